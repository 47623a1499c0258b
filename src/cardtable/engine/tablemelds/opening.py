"""Coming out: a player's first melds must together reach a minimum (Rommé: 40 points).

The first melds go down in one move, ``{"type": "meld", "melds": [[...], [...]]}``,
so the engine can check the total before anything is on the table (placed
cards never return to the hand).  ``legal_actions`` lists the combinations
of up to :data:`MAX_OPENING_MELDS` disjoint candidate melds that reach the
minimum, at most :data:`MAX_OPENINGS` of them, in sorted order: finite, and
cheap for a 13-14 card hand; a player with more melds lays the rest after.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..api import Action
from ..cards import JOKER
from .hooks import Hooks, meld_of

MAX_OPENING_MELDS = 3
MAX_OPENINGS = 300


def opening_actions(state: Hooks, hand: list[int]) -> list[Action]:
    """Every listed first move of the seat to act that reaches its minimum."""
    seat = state.to_act
    assert seat is not None
    minimum = state.opening_minimum(seat)
    rules = state.meld_rules()
    candidates = state.listed_melds(hand)
    values = [state.meld_value(meld_of(m, rules).stands_for) for m in candidates]
    needs = [counts(m) for m in candidates]
    # the most one more meld from candidates[k:] can add: searches that cannot reach
    # the minimum any more are cut short (they would list nothing)
    best_from = [0] * (len(values) + 1)
    for k in range(len(values) - 1, -1, -1):
        best_from[k] = max(values[k], best_from[k + 1])
    held = counts(hand)
    found: list[Action] = []
    # The first melds must be disjoint within the hand: with each card's count in a field
    # of its own (see counts), one subtraction tells whether the hand still holds a meld.
    # Three nested loops (MAX_OPENING_MELDS) in candidate order list the combinations
    # sorted, as a depth-first search would, and stop at the MAX_OPENINGS-th.
    n = len(candidates)
    for i, first in enumerate(candidates):
        if (held | GUARDS) - needs[i] & GUARDS != GUARDS:
            continue
        left1 = held - needs[i]
        total1 = values[i]
        if total1 >= minimum:
            found.append(Action("meld", melds=(first,)))
            if len(found) == MAX_OPENINGS:
                return found
        if total1 + 2 * best_from[i + 1] < minimum:
            continue
        for j in range(i + 1, n):
            if (left1 | GUARDS) - needs[j] & GUARDS != GUARDS:
                continue
            total2 = total1 + values[j]
            second = candidates[j]
            if total2 >= minimum:
                found.append(Action("meld", melds=(first, second)))
                if len(found) == MAX_OPENINGS:
                    return found
            short = minimum - total2
            if best_from[j + 1] < short:
                continue
            spare = (left1 - needs[j]) | GUARDS
            for value, need, third in zip(values[j + 1:], needs[j + 1:], candidates[j + 1:],
                                          strict=True):
                if value >= short and spare - need & GUARDS == GUARDS:
                    found.append(Action("meld", melds=(first, second, third)))
                    if len(found) == MAX_OPENINGS:
                        return found
    return found


FIELD = 8
"""Bits per card in a count vector: 7 for the count (two packs and six jokers fit), 1 guard."""
GUARDS = sum(1 << (FIELD * c + FIELD - 1) for c in range(JOKER + 1))


def counts(cards: Iterable[int]) -> int:
    """The multiset ``cards`` as one int, card c's count in bits 8c..8c+6.

    ``((have | GUARDS) - need) & GUARDS == GUARDS`` exactly when ``have`` holds
    ``need``: a field short of its count borrows its own guard bit, never a neighbour's.
    """
    return sum(1 << (FIELD * c) for c in cards)


def opening_problem(state: Hooks, seat: int, action: Action) -> str | None:
    """Why ``action`` is not an acceptable first move of ``seat`` (``None``: no problem)."""
    minimum = state.opening_minimum(seat)
    if not minimum or state.has_melded[seat]:
        return None
    if not action.melds:
        return "lay your first melds together in one move (melds), to show they reach " \
               f"{minimum} points"
    rules = state.meld_rules()
    total = sum(state.meld_value(meld_of(m, rules).stands_for) for m in action.melds)
    if total < minimum:
        return f"your first meld is {total} points; {minimum} are needed"
    return None
