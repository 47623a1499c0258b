"""Resampling for search bots: a full state consistent with what one seat knows.

What the seat knows stays put: its own hand (once it has looked), every card
played, the cards it passed to its partner, its own dead cards and the card
it is offered (two players).  Everything else is dealt anew at random, with
each hand keeping its size and respecting the voids the play has shown
(failing to follow suit; leading a spade before spades were broken).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ... import rollback
from ...api import Chance
from .phase import Phase
from .tricks import CLUBS, SPADES, suit_of

if TYPE_CHECKING:
    from .match import SpadesState

ALL_SUITS = frozenset(range(4))
NON_SPADES = frozenset({0, 1, 2})
_SUBSETS = [frozenset(s for s in range(4) if mask >> s & 1) for mask in range(1, 16)]


def shown_voids(state: SpadesState) -> list[set[int]]:
    """The suits each seat has shown it cannot hold."""
    voids: list[set[int]] = [set() for _ in range(state.players)]
    broken = False
    done = [plays for _, plays, _ in state.tricks]
    for number, plays in enumerate([*done, state.trick]):
        if not plays:
            continue
        leader, lead = plays[0]
        first = number == 0
        o = state.options
        no_spade_lead = (o.spade_breaking and not broken) or (
            first and (o.first_lead == "left_of_dealer_no_spade" or o.first_trick != "any"))
        if suit_of(lead) == SPADES and no_spade_lead:
            voids[leader] |= NON_SPADES  # a spade lead then means a hand of spades only
        if first and o.first_trick == "lowest_club" and suit_of(lead) != CLUBS:
            voids[leader].add(CLUBS)  # he would have had to lead his lowest club
        led = suit_of(lead)
        for seat, c in plays[1:]:
            if suit_of(c) != led:
                voids[seat].add(led)
                if first and o.first_trick != "any" and suit_of(c) == SPADES:
                    voids[seat] |= NON_SPADES
        broken = broken or any(suit_of(c) == SPADES for _, c in plays)
    return voids


def _feasible(counts: Sequence[int], capacity: Sequence[int],
              allowed: Sequence[frozenset[int]]) -> bool:
    """Whether the remaining cards (``counts`` per suit) fit the buckets (Hall's condition)."""
    for suits in _SUBSETS:
        need = sum(counts[s] for s in suits)
        if need and need > sum(c for c, a in zip(capacity, allowed, strict=True) if a & suits):
            return False
    return True


def deal_constrained(pool: list[int], capacity: list[int], allowed: list[frozenset[int]],
                     rng: random.Random) -> list[list[int]]:
    """Deal ``pool`` into buckets of the given sizes, each taking only its allowed suits.

    Card by card, a bucket is drawn in proportion to its free room among
    those that keep the rest feasible, so a consistent deal always exists
    (the true one does) and is found without backtracking.
    """
    cards = list(pool)
    rng.shuffle(cards)
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[suit_of(c)] += 1
    room = list(capacity)
    out: list[list[int]] = [[] for _ in capacity]
    for c in cards:
        counts[suit_of(c)] -= 1
        candidates = [b for b, free in enumerate(room) if free and suit_of(c) in allowed[b]]
        while candidates:
            weights = [room[b] for b in candidates]
            b = rng.choices(candidates, weights)[0]
            room[b] -= 1
            if _feasible(counts, room, allowed):
                out[b].append(c)
                break
            room[b] += 1
            candidates.remove(b)
        else:
            raise ValueError("the known voids leave no consistent deal")
    return out


def resample(state: SpadesState, seat: int, rng: random.Random) -> SpadesState:
    """A copy of ``state`` with every card unknown to ``seat`` dealt anew."""
    n = state.players
    twin = object.__new__(type(state))
    twin.__dict__.update(state.__dict__)
    voids = shown_voids(state)
    own_side = state.sides[state.side_of(seat)]

    fixed: list[list[int]] = [[] for _ in range(n)]
    if state.looked[seat]:
        fixed[seat] = list(state.hands[seat])
    partner = state.partner_of(seat)
    if partner is not None:  # the cards it passed its partner in an exchange
        fixed[partner] = [c for c in state.hands[partner] if c in state.given[seat]]
    offered = state.stock[-1:] if state.phase is Phase.DRAW and state.to_act == seat else []
    known = {c for cards in fixed for c in cards} | set(offered) | set(state.dead[seat])
    hidden = [c for h in state.hands for c in h] + state.stock + state.aside + [
        c for d in state.dead for c in d]
    pool = [c for c in hidden if c not in known]

    # buckets: each hand, then the stock, each seat's dead cards, the card set aside
    capacity = [len(h) - len(f) for h, f in zip(state.hands, fixed, strict=True)]
    allowed = [ALL_SUITS - voids[s] if s != seat or state.looked[s] else ALL_SUITS
               for s in range(n)]
    capacity.append(len(state.stock) - len(offered))
    capacity += [0 if s == seat else len(state.dead[s]) for s in range(n)]
    capacity.append(len(state.aside))
    allowed += [ALL_SUITS] * (n + 2)
    dealt = deal_constrained(pool, capacity, allowed, rng)

    twin.hands = [fixed[s] + dealt[s] for s in range(n)]
    twin.stock = dealt[n] + offered  # pop() takes the last: the offered card stays on top
    twin.dead = [list(state.dead[s]) if s == seat else dealt[n + 1 + s] for s in range(n)]
    twin.aside = dealt[-1]
    twin.received = [list(r) for r in state.received]
    twin.given = [set(g) for g in state.given]
    for s in range(n):  # the other side's exchange: unknown cards, redrawn from their hands
        if s not in own_side and state.received[s]:
            twin.received[s] = rng.sample(twin.hands[s], min(len(state.received[s]),
                                                              len(twin.hands[s])))
            giver = state.partner_of(s)
            if giver is not None:
                twin.given[giver] = set(twin.received[s])
    for name in ("bids", "blind", "looked", "tricks_won", "trick", "exchanges", "scores",
                 "bags", "history", "_actions"):
        setattr(twin, name, list(getattr(state, name)))
    twin.tricks = [(leader, list(plays), winner) for leader, plays, winner in state.tricks]
    twin._chance = Chance(rng)
    twin._legal = None
    rollback.mark_origin(twin)
    return twin


__all__ = ["deal_constrained", "resample", "shown_voids"]
