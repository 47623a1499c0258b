"""Resampling for search bots: the cards one seat cannot see, dealt anew.

What the seat knows stays put: its own hand (once it has looked), every card
played, the cards it passed to its partner, its own dead cards and the card
it is offered (two players).  Everything else is dealt anew at random, with
each hand keeping its size and respecting the voids the play has shown
(failing to follow suit; leading a spade before spades were broken).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...state import Held, take_guesses
from .match import SpadesRules
from .phase import Phase
from .tricks import CLUBS, SPADES, SUIT_OF, suit_of

ALL_SUITS = frozenset(range(4))
NON_SPADES = frozenset({0, 1, 2})


def shown_voids(state: SpadesRules) -> list[set[int]]:
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


def _suit_mask(suits: frozenset[int]) -> int:
    return sum(1 << s for s in suits)


_SUITS_IN = [tuple(s for s in range(4) if subset >> s & 1) for subset in range(16)]
"""The suits of each set of suits, a set being a mask (bit ``s`` for suit ``s``)."""
_EVERY_SET = tuple(range(1, 16))
_OPEN = 15  # a bucket taking every suit
_AT_RISK = [[tuple(subset for subset in _EVERY_SET if not subset >> s & 1 and subset & m)
             for m in range(16)] for s in range(4)]
"""Placing a card of suit ``s`` in a bucket open to the suits of ``m`` takes one card from
every set holding ``s`` and one place from every set meeting ``m`` (which holds ``s``): only
the sets meeting ``m`` without ``s`` come nearer to failing Hall's condition."""


def _short(sets: Sequence[int], counts: Sequence[int], room_by_mask: dict[int, int]) -> bool:
    """Whether the remaining cards of one of ``sets`` outnumber the room open to them (Hall's
    condition fails): ``counts`` per suit, ``room_by_mask`` the free room per bucket kind."""
    for subset in sets:
        need = 0
        for s in _SUITS_IN[subset]:
            need += counts[s]
        if need and need > sum([r for m, r in room_by_mask.items() if m & subset]):
            return True
    return False


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
        counts[SUIT_OF[c]] += 1
    room = list(capacity)
    masks = [_suit_mask(a) for a in allowed]
    room_by_mask: dict[int, int] = {}
    for free, mask in zip(room, masks, strict=True):
        room_by_mask[mask] = room_by_mask.get(mask, 0) + free
    # Once the condition holds, a placement can break it only for the sets at risk, and
    # with no void to respect for none: checking only those refuses exactly the draws
    # the full check refuses, so the rng is drawn alike and the deal is the same.
    holds = not _short(_EVERY_SET, counts, room_by_mask)
    unconstrained = holds and all(m == _OPEN for m, free in room_by_mask.items() if free)
    out: list[list[int]] = [[] for _ in capacity]
    for c in cards:
        suit = SUIT_OF[c]
        counts[suit] -= 1
        candidates = [b for b, free in enumerate(room) if free and masks[b] >> suit & 1]
        while candidates:
            weights = [room[b] for b in candidates]
            b = rng.choices(candidates, weights)[0]
            mask = masks[b]
            room[b] -= 1
            room_by_mask[mask] -= 1
            if unconstrained or not _short(_AT_RISK[suit][mask] if holds else _EVERY_SET,
                                           counts, room_by_mask):
                out[b].append(c)
                break
            room[b] += 1
            room_by_mask[mask] += 1
            candidates.remove(b)
        else:
            raise ValueError("the known voids leave no consistent deal")
    return out


def redeal_hidden(state: SpadesRules, seat: int, rng: random.Random, held: Held) -> None:
    """On a copy of a match: every card unknown to ``seat`` dealt anew (a guess in
    ``held`` to its seat first; a card of a suit that seat has shown void in is refused)."""
    n = state.players
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
    allowed = [ALL_SUITS - voids[s] if s != seat or state.looked[s] else ALL_SUITS
               for s in range(n)]
    room = {s: len(state.hands[s]) - len(fixed[s]) for s in range(n) if s != seat}
    for s, cards in take_guesses(pool, held, room).items():
        if any(suit_of(c) not in allowed[s] for c in cards):
            raise ValueError(f"seat {s} has shown a void in a suit guessed in its hand")
        fixed[s] += cards

    # buckets: each hand, then the stock, each seat's dead cards, the card set aside
    capacity = [len(h) - len(f) for h, f in zip(state.hands, fixed, strict=True)]
    capacity.append(len(state.stock) - len(offered))
    capacity += [0 if s == seat else len(state.dead[s]) for s in range(n)]
    capacity.append(len(state.aside))
    allowed += [ALL_SUITS] * (n + 2)
    dealt = deal_constrained(pool, capacity, allowed, rng)

    state.hands = [fixed[s] + dealt[s] for s in range(n)]
    state.stock = dealt[n] + offered  # pop() takes the last: the offered card stays on top
    state.dead = [state.dead[s] if s == seat else dealt[n + 1 + s] for s in range(n)]
    state.aside = dealt[-1]
    for s in range(n):  # the other side's exchange: unknown cards, redrawn from their hands
        if s not in own_side and state.received[s]:
            state.received[s] = rng.sample(state.hands[s], min(len(state.received[s]),
                                                                len(state.hands[s])))
            giver = state.partner_of(s)
            if giver is not None:
                state.given[giver] = set(state.received[s])


__all__ = ["deal_constrained", "redeal_hidden", "shown_voids"]
