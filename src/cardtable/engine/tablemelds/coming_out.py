"""Whether a player can come out with a given card: an exact search, for the draw's rule.

Under "the top discard must be used" a player who has not come out may take it
only when some first move places it (``_legal_draw``), and then the play phase
must offer that move, or the turn would stick.  The menu of openings
(:func:`~.opening.opening_actions`: up to three melds, at most 300 of them,
melds of up to two jokers) can miss the only such move (four small sets, or a
meld of one natural and three jokers), so this module searches them all:
:func:`opening_with` returns a first move that places the card, reaches the
minimum and keeps the cards the turn still needs, or ``None`` when there is none.

The search packs disjoint melds (every meld the hand holds, any number of
jokers: :func:`~.candidates.candidate_melds` with no joker bound) by the
lowest natural card still unused: it is left in hand, or it is the lowest
natural of one meld.  The best total of what is left is remembered by the
multiset left (a count vector, as in :mod:`.opening`), so a 14-card hand costs
a few thousand steps at most.
"""

from __future__ import annotations

from collections import Counter

from ..api import Action
from ..cards import JOKER
from .candidates import candidate_melds
from .hooks import Hooks, meld_of
from .opening import FIELD, GUARDS, counts

_NONE = -(10**9)
"""The worth of a packing that cannot keep the cards asked for."""
_NATURALFIELDS = (1 << (FIELD * JOKER)) - 1
_COUNT = (1 << (FIELD - 1)) - 1

Packing = tuple[int, tuple[tuple[int, ...], ...]]
"""A packing's total worth and its melds."""


def opening_with(state: Hooks, hand: list[int], card: int, keep: int) -> Action | None:
    """A first move of the seat to act from ``hand`` that places ``card``, reaches the
    opening minimum and leaves at least ``keep`` cards, and never leaves only a copy of
    ``card`` (just taken from the pile, it could not be discarded); ``None``: none does."""
    seat = state.to_act
    assert seat is not None
    minimum = state.opening_minimum(seat)
    rules = state.meld_rules()
    melds = [m for m in candidate_melds(hand, rules, hand.count(JOKER))
             if state.meld_problem(meld_of(m, rules)) is None]
    worth = {m: state.meld_value(meld_of(m, rules).stands_for) for m in melds}
    by_lowest: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
    for m in melds:  # a meld's lowest card is a natural (JOKER is the highest value)
        by_lowest.setdefault(m[0], []).append((counts(m), worth[m], m))
    memo: dict[tuple[int, int], Packing] = {}

    def best(left: int, leave: int) -> Packing:
        """The worthiest packing of the multiset ``left`` that leaves ``leave`` cards."""
        known = memo.get((left, leave))
        if known is not None:
            return known
        naturals = left & _NATURALFIELDS
        if not naturals:
            found: Packing = (0, ()) if left >> (FIELD * JOKER) & _COUNT >= leave else (_NONE, ())
        else:
            lowest = ((naturals & -naturals).bit_length() - 1) // FIELD
            found = best(left - (1 << (FIELD * lowest)), max(0, leave - 1))  # it stays
            for need, value, meld in by_lowest.get(lowest, ()):
                if (left | GUARDS) - need & GUARDS == GUARDS:
                    total, rest = best(left - need, leave)
                    if total + value > found[0]:
                        found = (total + value, (meld, *rest))
        memo[(left, leave)] = found
        return found

    held = counts(hand)
    for meld in sorted((m for m in melds if card in m), key=lambda m: -worth[m]):
        need = counts(meld)
        if (held | GUARDS) - need & GUARDS != GUARDS:
            continue
        # one copy of ``card`` left alone could not be discarded: then leave two cards
        for leave in sorted({keep, 2}):
            total, rest = best(held - need, leave)
            if total + worth[meld] < minimum:
                break
            laid = (meld, *rest)
            if list((Counter(hand) - Counter(c for m in laid for c in m)).elements()) != [card]:
                return Action("meld", melds=tuple(sorted(laid)))
    return None
