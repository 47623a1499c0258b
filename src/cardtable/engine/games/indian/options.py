"""Indian Rummy options and presets (see the package docstring for the table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import api
from ...api import option
from .arrange import Rules, rules

YES_NO = (True, False)

_PAGAT: dict[str, Any] = {
    "direction": "anticlockwise",
    "drop": "10/40",
    "printed_joker_cut": "no_extra_wild",
    "joker_pickup": "allowed",
    "discard_taken": False,
    "round_to_5": True,
    "first_turn_show": "half",
}


@dataclass(frozen=True)
class Options(api.Options):
    """Every knob of the rules file; the defaults are the ``points`` preset (online "O")."""

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "points": {},
        "pool101": {"format": "pool", "target": 101},
        "pool201": {"format": "pool", "target": 201, "drop": "25/50"},
        "pool61": {"format": "pool", "target": 61, "drop": "15/30", "wrong_show": 60},
        "deals": {"format": "deals", "deals": 2, "drop": "none"},
        "pagat": _PAGAT,
    }
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {
        "points": "Points rummy (one deal)",
        "pool101": "Pool 101",
        "pool201": "Pool 201",
        "pool61": "Pool 61",
        "deals": "Deals rummy (2 deals)",
        "pagat": "Traditional (pagat.com)",
    }
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {
        "points": "One deal: the first valid show collects everyone else's points; dropping "
                  "costs 20 before your first draw, 40 later.",
        "pool101": "Deal after deal; a total of 101 puts you out and the last player left wins; "
                   "drops 20/40.",
        "pool201": "Like Pool 101, but you are out at 201 and drops cost 25/50.",
        "pool61": "A short pool: out at 61; drops cost 15/30 and a wrong show 60.",
        "deals": "Two deals, lowest total wins; no dropping.",
        "pagat": "The traditional table game: play goes anticlockwise, drops cost 10/40, counts "
                 "are rounded to 5 and a show on your first draw is paid at half.",
    }
    DEFAULT_PRESET: ClassVar[str] = "points"
    EXPRESS: ClassVar[dict[str, Any]] = {"format": "points"}  # points rummy is one deal

    format: str = option(
        "points", choices=("points", "pool", "deals"),
        doc="points: one deal, the winner collects the others' points; pool: deals until one "
            "player is left under the target; deals: a fixed number of deals, lowest total wins")
    target: int = option(
        101, range=(1, 1000), doc="pool: a total at which a player is out (101, 201, 61)")
    deals: int = option(2, choices=(2, 3, 6), doc="deals format: the number of deals")
    decks: int = option(
        2, choices=(2, 1, 3),
        doc="packs, each with one printed joker: 1 (2 players only), 2, or 3 (5-6 players)")
    printed_joker_cut: str = option(
        "aces_wild", choices=("aces_wild", "no_extra_wild"),
        doc="a printed joker as the cut card makes the aces wild, or no extra wild")
    drop: str = option(
        "20/40", choices=("20/40", "10/40", "25/50", "15/30", "none"),
        doc="first drop (before one's first draw) / middle drop (later), or no dropping")
    full_count: int = option(80, choices=(80, 60), doc="the most a hand counts")
    wrong_show: int = option(80, choices=(80, 60), doc="the penalty for a wrong show")
    wrong_show_ends_deal: bool = option(
        False, choices=YES_NO,
        doc="a wrong show ends the deal (others score 0) instead of the deal going on")
    four_card_life: bool = option(
        False, choices=YES_NO, doc="one of the sequences of a show must hold 4 or more cards")
    joker_pickup: str = option(
        "forbidden", choices=("forbidden", "allowed"),
        doc="a joker (printed or wild) a player discarded may be taken from the open deck")
    direction: str = option(
        "clockwise", choices=("clockwise", "anticlockwise"),
        doc="clockwise: the turn passes to the next seat up; anticlockwise: down")
    big_sets: bool = option(
        False, choices=YES_NO, doc="extra jokers may make a set of 5 or more cards")
    joker_group: str = option(
        "sequence", choices=("sequence", "set", "invalid"),
        doc="a group of printed jokers only counts as an impure sequence, as a set, "
            "or is not a group")
    discard_taken: bool = option(
        True, choices=YES_NO,
        doc="the card just taken from the open deck may be discarded in the same turn")
    round_to_5: bool = option(
        False, choices=YES_NO, doc="a hand's count is rounded to the nearest 5 (62 -> 60)")
    first_turn_show: str = option(
        "full", choices=("full", "half"),
        doc="a show made on the declarer's first draw is paid in full, or at half rate")

    @property
    def rules(self) -> Rules:
        """What the arranger needs."""
        return rules(self.joker_group, self.four_card_life, self.big_sets)

    @property
    def drops(self) -> tuple[int, int] | None:
        """(first drop, middle drop), or ``None`` when dropping is not allowed."""
        if self.drop == "none":
            return None
        first, middle = self.drop.split("/")
        return int(first), int(middle)

    def check_players(self, players: int) -> None:
        """Refuse a pack count the rules file does not pair with this many players."""
        if self.decks == 1 and players != 2:
            raise ValueError("option 'decks': one pack is for 2 players only")
        if self.decks == 3 and players < 5:
            raise ValueError("option 'decks': three packs are for 5-6 players")
