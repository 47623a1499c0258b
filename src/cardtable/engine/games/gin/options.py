"""Gin Rummy options and presets (see the package docstring for the table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import api
from ...api import option

YES_NO = (True, False)

_PAGAT: dict[str, Any] = {
    "gin_bonus": 20,
    "undercut_bonus": 10,
    "big_gin_bonus": 0,
    "box_bonus": 20,
    "shutout": "double_game_bonus",
    "next_dealer": "winner",
    "oklahoma_ace": "one",
}


@dataclass(frozen=True)
class Options(api.Options):
    """Every knob of the rules file; the defaults are the ``standard`` preset."""

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "standard": {},
        "pagat": _PAGAT,
        "oklahoma": {"oklahoma": True, "target": 150},
    }
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {
        "standard": "Standard",
        "pagat": "Traditional (pagat.com)",
        "oklahoma": "Oklahoma Gin",
    }
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {
        "standard": "The usual online game: knock with 10 or less deadwood; gin 25, big gin 31, "
                    "undercut 25; game to 100.",
        "pagat": "The classic book rules: gin 20, undercut 10, no big gin; the hand's winner "
                 "deals next; a shutout doubles the game bonus.",
        "oklahoma": "The first upcard sets the knock limit (an ace: gin only) and a spade upcard "
                    "doubles the hand; game to 150.",
    }
    DEFAULT_PRESET: ClassVar[str] = "standard"
    EXPRESS: ClassVar[dict[str, Any]] = {"deals": 1}

    gin_bonus: int = option(25, range=(0, 100), doc="bonus for going gin")
    big_gin_bonus: int = option(
        31, range=(0, 100), doc="bonus for big gin (all 11 cards melded); 0 turns big gin off"
    )
    undercut_bonus: int = option(25, range=(0, 100), doc="bonus for an undercut")
    undercut_on_tie: bool = option(
        True, choices=YES_NO, doc="equal deadwood is an undercut; if off, a tie scores nothing"
    )
    knock_limit: int = option(10, range=(0, 10), doc="most deadwood a knocker may hold")
    oklahoma: bool = option(
        False, choices=YES_NO, doc="knock limit of each hand = value of its first upcard"
    )
    oklahoma_ace: str = option(
        "gin_only", choices=("gin_only", "one"), doc="Oklahoma limit for an ace upcard"
    )
    spade_doubles: bool = option(
        True, choices=YES_NO, doc="Oklahoma: a spade first upcard doubles the hand's score"
    )
    double_boxes: bool = option(
        False, choices=YES_NO, doc="Oklahoma: a doubled hand also wins two boxes"
    )
    target: int = option(100, range=(1, 10000), doc="points that win the match")
    deals: int = option(
        0, range=(0, 100), doc="a fixed number of deals ends the match instead (0: play to target)")
    game_bonus: int = option(100, range=(0, 1000), doc="bonus for winning the match")
    box_bonus: int = option(25, range=(0, 100), doc="bonus per hand won (box, line)")
    box_timing: str = option(
        "end", choices=("end", "immediate"),
        doc="boxes added at the end, or credited to the score as each hand is won",
    )
    shutout: str = option(
        "double_hand_points",
        choices=("double_hand_points", "double_game_bonus", "double_total", "none"),
        doc="when the loser scored no points: what doubles",
    )
    next_dealer: str = option(
        "alternate", choices=("alternate", "winner", "loser"), doc="who deals the next hand"
    )
    first_upcard: bool = option(
        True, choices=YES_NO, doc="offer the first upcard to non-dealer, then dealer"
    )
    stock_floor: int = option(
        2, range=(0, 10), doc="the hand is void when a discard leaves this many stock cards"
    )
    fiftieth_card: bool = option(
        False, choices=YES_NO,
        doc="at the floor, the opponent may still take the last discard to knock or gin",
    )

