"""What a hand pays, and how the three formats turn deals into a match.

>>> from cardtable.engine.cards import parse
>>> from .options import Options
>>> hand_points(parse("3h 4h 5h Qc Qd Qs 9c 9d 9h 2s 6c 8d Kc"), 6, Options())
80
>>> hand_points(parse("3h 4h 5h Qc Qd Qs 9c 9d 9h 2s 6c 8d Kc"), 6, Options(full_count=60))
60
>>> rounded(62), rounded(63), rounded(80)
(60, 65, 80)
"""

from __future__ import annotations

from collections.abc import Sequence

from ...api import JSON
from . import arrange
from .options import Options

EXTRA_DEALS = 6
"""Deals format: tie-break deals played at most, after which tied players share the win."""


def rounded(points: int) -> int:
    """To the nearest 5 (pagat): 62 -> 60, 63 -> 65."""
    return (points + 2) // 5 * 5


def hand_points(cards: Sequence[int], wild: int | None, options: Options,
                half: bool = False) -> int:
    """A loser's points: the count under the life rules, capped at the full count.

    ``half``: the show was made on the declarer's first draw and the
    ``first_turn_show`` option pays it at half rate.
    """
    points = min(arrange.count(cards, wild, options.rules), options.full_count)
    if options.round_to_5:
        points = rounded(points)
    if half:
        points = (points + 1) // 2
        if options.round_to_5:
            points = rounded(points)
    return points


class Standing:
    """The match's running totals and who is still in it (pool), per format."""

    def __init__(self, options: Options, players: int):
        self.options = options
        self.totals = [0] * players  # penalty points (pool, deals; points: the deal's points)
        self.net = [0] * players  # points format: the winner collects the others' points
        self.out = [False] * players  # pool: reached the target
        self.deals_played = 0

    def __deepcopy__(self, memo: dict[int, object]) -> Standing:
        # A search copies the standing with every resample: the options are frozen, so
        # the copy shares them and copies only the running figures.
        twin = Standing.__new__(Standing)
        twin.options, twin.deals_played = self.options, self.deals_played
        twin.totals, twin.net, twin.out = list(self.totals), list(self.net), list(self.out)
        return twin

    def active(self) -> list[int]:
        return [s for s, out in enumerate(self.out) if not out]

    def settle(self, points: list[int | None], winner: int | None) -> dict[str, JSON]:
        """Book one deal (``None``: the seat was not dealt in); the scorecard's extra columns."""
        self.deals_played += 1
        owed = [p or 0 for p in points]
        for seat, p in enumerate(owed):
            self.totals[seat] += p
        if winner is not None:
            self.net[winner] += sum(owed) - owed[winner]
        for seat, p in enumerate(owed):
            if seat != winner:
                self.net[seat] -= p
        newly_out = []
        if self.options.format == "pool":
            for seat in self.active():
                if self.totals[seat] >= self.options.target:
                    self.out[seat] = True
                    newly_out.append(seat)
        return {"collected": sum(owed) - (owed[winner] if winner is not None else 0),
                "eliminated": newly_out}

    def scores(self) -> list[int]:
        """What the scoreboard shows: net points (points format) or penalty totals."""
        return list(self.net) if self.options.format == "points" else list(self.totals)

    def winners(self, last_deal: list[int]) -> list[int] | None:
        """The match's winners once it is over, else ``None``.

        ``last_deal``: the seats dealt in the deal just booked (pool: if all of
        them went out together, the lowest of them win).
        """
        o = self.options
        if o.format == "points":
            best = max(self.net)
            return [s for s, v in enumerate(self.net) if v == best]
        if o.format == "pool":
            left = self.active()
            if len(left) > 1:
                return None
            if left:
                return left
            low = min(self.totals[s] for s in last_deal)
            return [s for s in last_deal if self.totals[s] == low]
        if self.deals_played < o.deals:
            return None
        low = min(self.totals)
        tied = [s for s, v in enumerate(self.totals) if v == low]
        if len(tied) > 1 and self.deals_played < o.deals + EXTRA_DEALS:
            return None  # a tie for lowest: one more deal
        return tied
