"""How well a seat stands in its match, read from its own view: what the expert's
search compares after playing a hand out.

``standing(view)`` is higher when the seat of ``view`` is better off: its (side's)
score against the best of the others, with the sign each game's scorecard needs —
Gin, Rummy 500, Spades, winner-takes Rummy and Points Rummy (Indian: the chips won)
count up (high wins); Rommé, penalty Rummy and Indian pool and deals formats count
penalties (low wins).  Only differences between
worlds that share their past matter, so the scale is the scorecard's own points.

>>> standing({"game": "gin", "seat": 1, "scores": [30, 55]})
25.0
>>> standing({"game": "romme", "seat": 0, "scores": [12, 40, 7]})
-5.0
>>> standing({"game": "spades", "seat": 3, "sides": [[0, 2], [1, 3]], "scores": [120, 80]})
-40.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

View = Mapping[str, Any]

LOW_WINS = frozenset({"romme"})
"""Games whose scorecard counts penalties whatever their options."""


def low_wins(view: View) -> bool:
    """Whether the lowest total is the best in the match of ``view``."""
    game = view.get("game")
    options = view.get("options") or {}
    if game in LOW_WINS:
        return True
    if game == "indian":
        return options.get("format") != "points"
    return game == "rummy" and options.get("scoring") == "penalty"


def standing(view: View) -> float:
    """The seat's score (its side's, where partners share one) less the best of the
    others', turned round where low wins."""
    scores: Sequence[float] = view.get("scores") or []
    seat = view["seat"]
    sides = view.get("sides")
    if sides and len(sides) == len(scores):
        mine = next(i for i, side in enumerate(sides) if seat in side)
    else:
        mine = seat
    if not 0 <= mine < len(scores):
        return 0.0
    others = [s for i, s in enumerate(scores) if i != mine]
    if not others:
        return float(scores[mine])
    if low_wins(view):
        return float(min(others) - scores[mine])
    return float(scores[mine] - max(others))


__all__ = ["LOW_WINS", "low_wins", "standing"]
