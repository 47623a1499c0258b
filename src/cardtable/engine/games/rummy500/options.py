"""Rummy 500 options and presets (see the package docstring for the table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import api
from ...api import option

YES_NO = (False, True)

_BICYCLE: dict[str, Any] = {
    "jokers": False,
    "top_discard_must_be_used": True,
}


@dataclass(frozen=True)
class Options(api.Options):
    """Every knob of the rules file's variant table; the defaults are the ``pagat`` preset."""

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "pagat": {},
        "bicycle": _BICYCLE,
    }
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {
        "pagat": "Standard (pagat.com)",
        "bicycle": "No jokers (Bicycle)",
    }
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {
        "pagat": "Two jokers; take as deep into the discard pile as you like if you use the "
                 "deepest card; melded cards score, cards in hand cost; first to 500.",
        "bicycle": "The rules printed by Bicycle cards: no jokers, and a top discard taken "
                   "alone must be played at once.",
    }
    DEFAULT_PRESET: ClassVar[str] = "pagat"
    EXPRESS: ClassVar[dict[str, Any]] = {"deals": 1}

    two_player_cards: int = option(
        13, choices=(13, 10), doc="cards dealt to each of 2 players (3-8 players: 7)")
    jokers: bool = option(
        True, choices=(True, False),
        doc="two jokers per pack (2 with one pack, 4 with the two packs of 5-8 players)")
    joker_value: str = option(
        "15", choices=("15", "represented"),
        doc="a melded joker scores 15, or the value of the card it stands for "
            "(a joker left in hand always counts 15)")
    low_ace_value: int = option(
        1, choices=(1, 15),
        doc="an ace at the low end of a run (A-2-3) scores 1, or 15 like every other ace")
    ace: str = option(
        "high_or_low", choices=("high_or_low", "around"),
        doc="ace in runs: low (A-2-3) or high (Q-K-A) but not both; or also round the "
            "corner (K-A-2)")
    pickup_use: str = option(
        "meld_or_lay_off", choices=("meld_or_lay_off", "new_meld"),
        doc="a card taken from the discard pile that must be used (the deepest of a "
            "pickup) goes into a new meld or a lay-off, or into a new meld only")
    top_discard_must_be_used: bool = option(
        False, choices=YES_NO,
        doc="the top discard taken alone must also be used in the same turn")
    final_discard: bool = option(
        False, choices=YES_NO, doc="a player goes out only by discarding his last card")
    stock_exhausted: str = option(
        "end_hand", choices=("end_hand", "shuffle"),
        doc="empty stock: play goes on while players take from the discard pile and the hand "
            "ends when one cannot or will not; or the discard pile is shuffled into a new stock")
    calling_rummy: bool = option(
        False, choices=YES_NO,
        doc="after a discard another player who can use it may call Rummy, take it and play "
            "it at once for his own credit")
    going_out_bonus: int = option(
        0, choices=(0, 10), doc="points for the player who goes out")
    target: int = option(500, range=(1, 10000), doc="a total that ends the match")
    deals: int = option(
        0, range=(0, 100), doc="a fixed number of deals ends the match instead (0: play to target)")
