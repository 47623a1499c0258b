"""Player statistics of a finished match: the figures players of each game care about.

A game's descriptor names a :class:`Stats`: ``count(state)`` gives each seat's sums for
one finished match (``{"gins": 1, "knocks": 3, ...}``; sums add up across matches), and
``shown`` says how a profile shows them: a label, the sum's key, and the key it is
divided by for an average or a share (``None``: the sum itself).

>>> shown = Stats(lambda state: [], (Stat("Average penalty", "penalty", "hands"),))
>>> shown.summary({"penalty": 30, "hands": 4})
[('Average penalty', 7.5, False)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Stat:
    label: str
    key: str
    per: str | None = None  # divide by this sum (an average, or a share of it)
    percent: bool = False  # show the quotient as a percentage


@dataclass(frozen=True)
class Stats:
    count: Callable[[Any], list[dict[str, int]]]
    shown: tuple[Stat, ...]

    def summary(self, sums: Mapping[str, int]) -> list[tuple[str, float | None, bool]]:
        """The figures as a profile shows them: label, value (None: nothing to divide by
        yet) and whether it is a percentage."""
        out: list[tuple[str, float | None, bool]] = []
        for stat in self.shown:
            value = sums.get(stat.key, 0)
            if stat.per is None:
                out.append((stat.label, float(value), False))
                continue
            base = sums.get(stat.per, 0)
            quotient = value / base if base else None
            if quotient is not None and stat.percent:
                quotient *= 100
            out.append((stat.label, None if quotient is None else round(quotient, 2),
                        stat.percent))
        return out


def seats_of(players: int) -> list[dict[str, int]]:
    return [{} for _ in range(players)]


def add(sums: dict[str, int], key: str, value: int = 1) -> None:
    sums[key] = sums.get(key, 0) + value
