"""Shared test helpers."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from cardtable.engine.cards import deadwood_value


def brute_force_deadwood(cards: Sequence[int], ace_high: bool = False,
                         around: bool = False) -> int:
    """Minimum deadwood by trying every collection of disjoint melds (slow, obviously right)."""
    cards = list(cards)
    melds: list[frozenset[int]] = []
    for size in (3, 4):
        for group in itertools.combinations(cards, size):
            if len({c % 13 for c in group}) == 1:
                melds.append(frozenset(group))
    for suit in range(4):
        ranks = {c % 13 for c in cards if c // 13 == suit}
        for length in range(3, 14):
            starts = range(13) if around else range(14 - length + (1 if ace_high else 0))
            for start in starts:
                window = [(start + i) % 13 for i in range(length)]
                if len(set(window)) == length and set(window) <= ranks:
                    melds.append(frozenset(suit * 13 + r for r in window))
    melds = list(set(melds))
    best = sum(deadwood_value(c) for c in cards)

    def walk(start: int, used: frozenset[int]) -> None:
        nonlocal best
        left = sum(deadwood_value(c) for c in cards if c not in used)
        best = min(best, left)
        for i in range(start, len(melds)):
            if used.isdisjoint(melds[i]):
                walk(i + 1, used | melds[i])

    walk(0, frozenset())
    return best


import toy_war  # noqa: E402, F401  (registers the toy game: every suite over GAMES plays it)
from browser_harness import base_url, browser  # noqa: E402, F401  (browser tests' fixtures)
from cluster_harness import live_redis  # noqa: E402, F401  (the `redis` fixture: a live client)
from server_harness import server  # noqa: E402, F401  (the real-server fixture, for every test)
