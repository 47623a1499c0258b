"""Rummy options and presets (see the package docstring for the table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import api
from ...api import option

YES_NO = (True, False)

_PAGAT: dict[str, Any] = {
    "melds_per_turn": "one",
    "scoring": "winner_takes",
    "stock_exhausted": "turn_over",
    "stock_reuses": 10,
    "rummy_multiplier": 2,
}


@dataclass(frozen=True)
class Options(api.Options):
    """Every knob of the rules file; the defaults are the ``standard`` preset."""

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "standard": {},
        "pagat": _PAGAT,
    }
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {
        "standard": "Standard",
        "pagat": "Traditional (pagat.com)",
    }
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {
        "standard": "The usual online game: lay any melds each turn; each loser adds the cards "
                    "left in his hand, and at 100 the lowest total wins.",
        "pagat": "The classic book rules: one new meld a turn; the player out scores the others' "
                 "cards, doubled for going out all at once; first to 100 wins.",
    }
    DEFAULT_PRESET: ClassVar[str] = "standard"
    EXPRESS: ClassVar[dict[str, Any]] = {"deals": 1}

    two_player_cards: int = option(
        10, choices=(10, 7), doc="cards dealt to each of 2 players (3-4 players: 7, 5-6: 6)")
    melds_per_turn: str = option(
        "any", choices=("any", "one"), doc="new melds a player may lay in one turn")
    ace: str = option(
        "low", choices=("low", "high_or_low", "around"),
        doc="ace in runs: low only (A-2-3); also high (Q-K-A); or around the corner (K-A-2)")
    ace_value: int = option(1, choices=(1, 15), doc="an ace's count in hand at the end")
    final_discard: bool = option(
        False, choices=YES_NO, doc="a player goes out only by discarding his last card")
    stock_exhausted: str = option(
        "shuffle", choices=("shuffle", "turn_over", "block"),
        doc="empty stock: shuffle the discard pile into a new stock, turn it over unshuffled, "
            "or end the hand (block rummy)")
    stock_reuses: int = option(
        1, range=(1, 10),
        doc="times the discard pile may become the stock in a hand; the next time the stock "
            "runs out the hand is blocked")
    blocked_hand: str = option(
        "no_score", choices=("no_score", "lowest_wins"),
        doc="a blocked hand scores nothing, or the lowest hand wins the differences "
            "(a tie for lowest scores nothing)")
    rummy_multiplier: int = option(
        1, choices=(1, 2),
        doc="going out in one turn having laid nothing earlier in the hand multiplies the score")
    lay_off_before_meld: bool = option(
        True, choices=YES_NO, doc="a player may lay off before he has melded himself")
    top_discard_must_be_used: bool = option(
        False, choices=YES_NO,
        doc="the top discard may be taken only to meld or lay it off in the same turn")
    scoring: str = option(
        "penalty", choices=("penalty", "winner_takes"),
        doc="penalty: each loser adds his own hand, lowest total wins; winner_takes: the "
            "player out scores all the others' hands, highest total wins")
    target: int = option(100, range=(1, 10000), doc="a total that ends the match")
    deals: int = option(
        0, range=(0, 100), doc="a fixed number of deals ends the match instead (0: play to target)")
    next_dealer: str = option(
        "alternate", choices=("alternate", "winner"),
        doc="2 players: the deal alternates, or the hand's winner deals (3+: always to the left)")
