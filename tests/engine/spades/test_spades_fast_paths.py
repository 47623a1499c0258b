"""The fast paths of Spades give what the plain rules give.

Random play runs ``_legal_play`` (slices of the sorted hand) and the resample runs
``deal_constrained`` (Hall's condition checked only for the suit sets a placement puts
at risk).  Both are checked here against the plain statements of the same rules: the
``playable`` function of :mod:`~cardtable.engine.games.spades.tricks`, and a deal that
checks every set of suits after every card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from cardtable.engine.games.spades import Options, new_match
from cardtable.engine.games.spades.search import deal_constrained
from cardtable.engine.games.spades.tricks import suit_of

ALL_SUITS = frozenset(range(4))
SUIT_SETS = [frozenset(s for s in range(4) if mask >> s & 1) for mask in range(1, 16)]


@pytest.mark.parametrize(("preset", "overrides", "players"), [
    ("standard", {}, 4),
    ("classic", {}, 4),
    ("standard", {"jokers": "remove_2c_2d"}, 4),
    ("standard", {"first_trick": "no_spades", "spade_breaking": False}, 4),
    ("standard", {}, 3),
    ("standard", {}, 2),
])
def test_the_legal_plays_are_the_playable_cards(preset: str, overrides: dict[str, object],
                                                players: int) -> None:
    options = Options.from_dict({"preset": preset, **overrides})
    rng = random.Random(11)
    state = new_match(options, players=players, rng=random.Random(3))
    plays = 0
    while plays < 1500 and not state.is_over():
        legal = state.legal_actions()
        if state.phase.value == "play":
            seat = state.current_player()
            assert seat is not None
            assert [a.card for a in legal] == sorted(state.playable(seat))
            plays += 1
        state.apply_unchecked(legal[rng.randrange(len(legal))])
    assert plays >= 500


def _hall_holds(counts: Sequence[int], room: Sequence[int],
                allowed: Sequence[frozenset[int]]) -> bool:
    for suits in SUIT_SETS:
        need = sum(counts[s] for s in suits)
        if need > sum(r for r, a in zip(room, allowed, strict=True) if a & suits):
            return False
    return True


def _deal_checking_every_set(pool: list[int], capacity: list[int],
                             allowed: list[frozenset[int]],
                             rng: random.Random) -> list[list[int]]:
    """The plain statement: after every card, every set of suits still fits."""
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
            b = rng.choices(candidates, [room[b] for b in candidates])[0]
            room[b] -= 1
            if _hall_holds(counts, room, allowed):
                out[b].append(c)
                break
            room[b] += 1
            candidates.remove(b)
        else:
            raise ValueError("the known voids leave no consistent deal")
    return out


def _random_buckets(rng: random.Random) -> tuple[list[int], list[int], list[frozenset[int]]]:
    buckets = rng.randrange(1, 8)
    capacity = [rng.randrange(6) for _ in range(buckets)]
    size = max(0, sum(capacity) + rng.choice((0, 0, 0, 1, -1)))  # sometimes no deal fits
    pool = rng.sample(range(54), min(size, 54))
    allowed = [frozenset(s for s in range(4) if rng.random() < 0.7) or ALL_SUITS
               if rng.random() < 0.6 else ALL_SUITS for _ in range(buckets)]
    return pool, capacity, allowed


def test_the_constrained_deal_is_the_deal_that_checks_every_suit_set() -> None:
    rng = random.Random(4)
    refused = 0
    for _ in range(3000):
        pool, capacity, allowed = _random_buckets(rng)
        seed = rng.random()
        try:
            expected = _deal_checking_every_set(pool, capacity, allowed, random.Random(seed))
        except ValueError:
            refused += 1
            with pytest.raises(ValueError):
                deal_constrained(pool, capacity, allowed, random.Random(seed))
            continue
        dealt = deal_constrained(pool, capacity, allowed, random.Random(seed))
        assert dealt == expected
        for cards, a in zip(dealt, allowed, strict=True):
            assert {suit_of(c) for c in cards} <= a
    assert 100 < refused < 2900  # both kinds were tried
