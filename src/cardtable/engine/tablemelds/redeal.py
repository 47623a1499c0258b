"""The redeal of a resample: the cards a seat has not seen, dealt anew."""

from __future__ import annotations

import random

from ..state import Held, take_guesses


def redeal(hands: list[list[int]], picked: list[list[int]], stock: list[int], seat: int,
           revealed: bool, rng: random.Random, held: Held) -> tuple[list[list[int]], list[int]]:
    """New (hands, stock): the stock and the cards of the others' hands ``seat`` has not
    seen, shuffled and dealt anew (a guess in ``held`` to its seat first); cards others
    picked up from the discard pile (``picked``) stay with them, as does everything once
    the hands are ``revealed``."""
    unseen = list(stock)
    kept: list[list[int]] = []
    for s, hand in enumerate(hands):
        known = list(picked[s]) if s != seat and not revealed else list(hand)
        rest = list(hand)
        for c in known:
            rest.remove(c)
        unseen += rest
        kept.append(known)
    hidden = {s: len(hand) - len(kept[s]) for s, hand in enumerate(hands) if s != seat}
    for s, cards in take_guesses(unseen, held, hidden).items():
        kept[s] += cards
    rng.shuffle(unseen)
    dealt = []
    for s, hand in enumerate(hands):
        extra = len(hand) - len(kept[s])
        dealt.append(kept[s] + unseen[:extra])
        del unseen[:extra]
    return dealt, unseen
