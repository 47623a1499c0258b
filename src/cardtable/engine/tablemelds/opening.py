"""Coming out: a player's first melds must together reach a minimum (Rommé: 40 points).

The first melds go down in one move, ``{"type": "meld", "melds": [[...], [...]]}``,
so the engine can check the total before anything is on the table (placed
cards never return to the hand).  ``legal_actions`` lists the combinations
of up to :data:`MAX_OPENING_MELDS` disjoint candidate melds that reach the
minimum, at most :data:`MAX_OPENINGS` of them, in sorted order: finite, and
cheap for a 13-14 card hand; a player with more melds lays the rest after.
"""

from __future__ import annotations

from collections import Counter

from ..api import Action
from ..melds import make_meld
from .hooks import Hooks

MAX_OPENING_MELDS = 3
MAX_OPENINGS = 300


def opening_actions(state: Hooks, hand: list[int]) -> list[Action]:
    """Every listed first move of the seat to act that reaches its minimum."""
    seat = state.to_act
    assert seat is not None
    minimum = state.opening_minimum(seat)
    rules = state.meld_rules()
    candidates = state.listed_melds(hand)
    values = [state.meld_value(make_meld(m, rules).stands_for) for m in candidates]
    found: list[Action] = []

    def search(start: int, chosen: list[tuple[int, ...]], left: Counter[int], total: int) -> None:
        if total >= minimum and chosen:
            found.append(Action("meld", melds=tuple(chosen)))
        if len(chosen) == MAX_OPENING_MELDS:
            return
        for i in range(start, len(candidates)):
            if len(found) >= MAX_OPENINGS:
                return
            need = Counter(candidates[i])
            if all(left[c] >= n for c, n in need.items()):
                search(i + 1, [*chosen, candidates[i]], left - need, total + values[i])

    search(0, [], Counter(hand), 0)
    return found


def opening_problem(state: Hooks, seat: int, action: Action) -> str | None:
    """Why ``action`` is not an acceptable first move of ``seat`` (``None``: no problem)."""
    minimum = state.opening_minimum(seat)
    if not minimum or state.has_melded[seat]:
        return None
    if not action.melds:
        return "lay your first melds together in one move (melds), to show they reach " \
               f"{minimum} points"
    rules = state.meld_rules()
    total = sum(state.meld_value(make_meld(m, rules).stands_for) for m in action.melds)
    if total < minimum:
        return f"your first meld is {total} points; {minimum} are needed"
    return None
