"""Rommé options and presets (see the package docstring for the table)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import api
from ...api import option

YES_NO = (True, False)

JOKER_LIMITS = ("none", "one_per_meld", "not_more_than_naturals", "not_adjacent")

_DSKV_ONLINE: dict[str, Any] = {
    # rommee.de / romme24 (DSkV-based online rules): a joker left in hand costs 25
    "joker_penalty": 25,
}


@dataclass(frozen=True)
class Options(api.Options):
    """Every knob of the rules file; the defaults are the ``standard`` preset."""

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "standard": {},
        "dskv_online": _DSKV_ONLINE,
    }
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {
        "standard": "Standard",
        "dskv_online": "German online rooms (DSkV)",
    }
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {
        "standard": "Two packs and 6 jokers; come out with melds worth 40; a joker left in hand "
                    "costs 20; one round of deals, lowest total wins.",
        "dskv_online": "As on German online rooms that follow the DSkV club rules: the standard "
                       "game, but a joker left in hand costs 25.",
    }
    DEFAULT_PRESET: ClassVar[str] = "standard"
    EXPRESS: ClassVar[dict[str, Any]] = {"end": "deals", "deals": 1}

    def to_dict(self) -> dict[str, Any]:
        # every view carries the options: skip dataclasses.fields() at each one
        return {name: getattr(self, name) for name in _NAMES}

    jokers: int = option(6, choices=(6, 4, 2), doc="jokers added to the two packs")
    deal: str = option(
        "dealer_extra", choices=("dealer_extra", "upcard"),
        doc="dealer_extra: the dealer gets one card more and opens the hand by discarding, "
            "without drawing; upcard: one card is turned up and the dealer's left draws first")
    hand_size: int = option(
        13, choices=(13, 14), doc="cards dealt to each player (the dealer one more under "
                                  "dealer_extra: 14 or 15)")
    short_hands_5_6: bool = option(
        False, choices=YES_NO, doc="with 5 or 6 players in the deal, 11 cards each")
    first_meld: int = option(
        40, choices=(40, 30, 50), doc="points a player's first melds must total, laid together")
    ace_penalty: int = option(11, choices=(11, 15), doc="an ace left in hand at the end")
    joker_penalty: int = option(
        20, choices=(20, 25, 30), doc="a joker left in hand at the end")
    king_ace_two: bool = option(
        False, choices=YES_NO, doc="runs may go around the corner (K-A-2)")
    joker_limit: str = option(
        "none", choices=JOKER_LIMITS,
        doc="jokers in one meld: no limit; at most one; no more than the natural cards; "
            "never two side by side in a run (a meld always needs a natural card)")
    top_discard_must_be_used: bool = option(
        False, choices=YES_NO,
        doc="the top discard may be taken only to meld or lay it off in the same turn")
    hand_romme_multiplier: int = option(
        2, choices=(2, 1),
        doc="going out in one turn having laid nothing before (Hand-Rommé) multiplies "
            "every penalty")
    final_discard: bool = option(
        False, choices=YES_NO, doc="a player goes out only by discarding his last card")
    stock_exhausted: str = option(
        "shuffle", choices=("shuffle", "end_hand"),
        doc="empty stock: the discard pile but its top card is shuffled into a new stock, "
            "or the hand ends and everyone counts")
    never_out: str = option(
        "hand", choices=("hand", "fixed_100", "double"),
        doc="a loser who never came out pays his hand, 100, or his hand doubled")
    winner_scores: str = option(
        "zero", choices=("zero", "sum"),
        doc="the player out scores 0, or is credited the sum of the penalties (a minus "
            "entry on the penalty scorecard)")
    end: str = option(
        "deals", choices=("deals", "limit", "elimination"),
        doc="deals: a fixed number of deals; limit: until a total passes target; "
            "elimination: a total of eliminate_at puts a player out, the last one left wins")
    deals: int = option(
        0, range=(0, 100), doc="end=deals: the number of deals (0: one round, each deals once)")
    target: int = option(
        500, range=(1, 10000), doc="end=limit: the match ends when a total passes this")
    eliminate_at: int = option(
        101, range=(1, 10000), doc="end=elimination: a total this high puts a player out")


_NAMES = tuple(f.name for f in dataclasses.fields(Options))
