"""Spades options and presets (see the package docstring for the table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import api
from ...api import option

YES_NO = (True, False)

_CLASSIC: dict[str, Any] = {
    "nil_value": 50,
    "blind_nil_value": 100,
    "failed_nil_tricks": "contract",
    "first_lead": "two_of_clubs",
    "first_trick": "lowest_club",
}


@dataclass(frozen=True)
class Options(api.Options):
    """Every knob of the rules file; the defaults are the ``standard`` (pagat) preset."""

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "standard": {},
        "classic": _CLASSIC,
    }
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {
        "standard": "Standard (pagat.com)",
        "classic": "Classic (2 of clubs leads)",
    }
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {
        "standard": "Nil wins or loses 100, blind nil 200 (only when 100 behind); the dealer's "
                    "left leads any non-spade; 10 bags cost 100; game to 500.",
        "classic": "Nil 50, blind nil 100; the 2 of clubs leads and everyone plays his lowest "
                   "club; a failed nil's tricks count toward the partner's bid.",
    }
    DEFAULT_PRESET: ClassVar[str] = "standard"
    EXPRESS: ClassVar[dict[str, Any]] = {"deals": 1}

    nil_value: int = option(100, range=(0, 1000), doc="won for a made nil, lost for a failed one")
    blind_nil: bool = option(
        True, choices=YES_NO, doc="blind nil may be bid, before looking at one's cards"
    )
    blind_nil_value: int = option(
        200, range=(0, 1000), doc="won for a made blind nil, lost for a failed one"
    )
    blind_nil_margin: int = option(
        100, range=(0, 10000),
        doc="blind nil only when the side trails the best other score by at least this; "
            "0 = at any time",
    )
    blind_nil_exchange: bool = option(
        True, choices=YES_NO,
        doc="after the bidding the blind nil bidder passes 2 cards face down to partner, "
            "who returns 2",
    )
    failed_nil_tricks: str = option(
        "bags", choices=("bags", "contract", "nothing"),
        doc="a failed nil bidder's tricks: bags for the side, count toward the partner's "
            "contract, or nothing at all",
    )
    bag_limit: int = option(10, range=(1, 100), doc="bags that cost the penalty (5 in some homes)")
    bag_penalty: int = option(
        100, range=(0, 1000), doc="points lost each time the bags reach the limit; 0 = none"
    )
    bags_score: bool = option(
        True, choices=YES_NO, doc="each bag (overtrick) scores 1 point; off: bags score 0"
    )
    first_lead: str = option(
        "left_of_dealer_no_spade", choices=("left_of_dealer_no_spade", "two_of_clubs"),
        doc="who leads the first trick: dealer's left with any non-spade, or the holder of "
            "the lowest club (the 2c) leads it",
    )
    first_trick: str = option(
        "any", choices=("any", "no_spades", "lowest_club"),
        doc="first trick: normal play, no spades unless nothing else, or everyone plays his "
            "lowest club (void: a diamond or heart; a spade only if nothing else)",
    )
    spade_breaking: bool = option(
        True, choices=YES_NO,
        doc="spades may not be led until one has been played, unless the leader has only spades",
    )
    minimum_team_bid: int = option(
        0, range=(0, 13), doc="least contract a side (or a lone player) may bid; 0 = none"
    )
    ten_for_two_hundred: bool = option(
        False, choices=YES_NO, doc="a contract of 10 or more scores 200 if made, -200 if not"
    )
    jokers: str = option(
        "none", choices=("none", "remove_2c_2d", "remove_2h_2d"),
        doc="Big and Little Joker as the two top trumps, replacing two deuces",
    )
    target: int = option(500, range=(1, 10000), doc="points that win the match")
    deals: int = option(
        0, range=(0, 100), doc="a fixed number of deals ends the match instead (0: play to target)")
    mercy: int = option(
        0, range=(0, 10000),
        doc="a side at minus this many points or lower loses (200 is usual); 0 = off",
    )
    suicide: bool = option(
        False, choices=YES_NO, doc="4 players: exactly one partner of each side must bid nil"
    )
    three_player_removes: str = option(
        "two_of_clubs", choices=("two_of_clubs", "two_of_diamonds", "two_of_hearts", "deal_out"),
        doc="3 players: the card taken out so that 17 go to each; deal_out sets a random card "
            "aside face down",
    )
