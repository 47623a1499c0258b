"""Shared test helpers."""

from __future__ import annotations

import itertools
from collections.abc import Generator, Sequence
from typing import Any

import pytest
from playwright.sync_api import Browser

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


import page_report  # noqa: E402  (what a failing browser test's pages showed)
import toy_war  # noqa: E402, F401  (registers the toy game: every suite over GAMES plays it)
from browser_harness import base_url, browser  # noqa: E402, F401  (browser tests' fixtures)
from cluster_harness import live_redis  # noqa: E402, F401  (the `redis` fixture: a live client)
from server_harness import server  # noqa: E402, F401  (the real-server fixture, for every test)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    page_report.CLOSED_PAGES.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, Any, None]:
    """A failing browser test's report shows what its pages showed (page_report)."""
    outcome = yield
    result = outcome.get_result()
    chromium = getattr(item, "funcargs", {}).get("browser")
    if result.when == "call" and result.failed and isinstance(chromium, Browser):
        result.sections.append(("what the pages showed", page_report.report(chromium, item.name)))
