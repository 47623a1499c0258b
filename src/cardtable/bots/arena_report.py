"""The arena's figures: :class:`ArenaTally` adds up :class:`~cardtable.bots.arena.MatchReport`
s per entrant and prints them (``rich``) or writes them as JSON.

Per entrant: its **match win share** (a match it won counts 1, one shared with others
its part, a drawn one is split) with a 95% confidence interval (normal approximation
on the per-match scores: ±1.96·s/√n), its **net points per hand** (its points less the
others' mean, penalties turned round so that + is good) with the same interval, how its
hands ended (knock, gin, undercut..., or the game's own), and the CPU time of its
decisions (median, 99th percentile, slowest).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardtable.bots.arena import MatchReport

Z95 = 1.96


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation); a lone value has none.

    >>> mean_interval([1, 0, 1, 1])
    (0.75, 0.26, 1.24)
    """
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return round(mean, 4), round(mean - half, 4), round(mean + half, 4)


def percentile(ordered: Sequence[float], share: float) -> float:
    """The value below which ``share`` of ``ordered`` (sorted) lies: nearest rank."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


@dataclass
class EntrantTally:
    match_scores: list[float] = field(default_factory=list)
    net_points: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    times: list[float] = field(default_factory=list)
    seats_played: int = 0


@dataclass
class ArenaTally:
    """Everything the arena counts while the matches come in."""

    entrants: list[str]
    games: int = 0
    hands: int = 0
    turns: int = 0
    decisions: int = 0
    illegal: int = 0
    stalled: int = 0
    table_outcomes: Counter[str] = field(default_factory=Counter)
    counts: dict[str, Counter[str]] = field(default_factory=dict)
    per_entrant: dict[str, EntrantTally] = field(default_factory=dict)
    per_seat_wins: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        for label in self.entrants:
            self.per_entrant.setdefault(label, EntrantTally())

    def add(self, match: MatchReport) -> None:
        self.games += 1
        self.hands += match.hands
        self.turns += match.turns
        self.illegal += match.illegal
        self.stalled += match.stalled
        players = len(match.seats)
        if len(self.per_seat_wins) < players:
            self.per_seat_wins += [0.0] * (players - len(self.per_seat_wins))
        winners = match.winners or list(range(players))  # a draw: shared by all
        for seat in winners:
            self.per_seat_wins[seat] += 1 / len(winners)
        by_label: dict[str, list[int]] = {}
        for seat, label in enumerate(match.seats):
            by_label.setdefault(label, []).append(seat)
        for label, seats in by_label.items():
            tally = self.per_entrant.setdefault(label, EntrantTally())
            tally.seats_played += len(seats)
            tally.match_scores.append(sum(1 for s in winners if s in seats) / len(winners))
            for hand in match.net_points:
                tally.net_points.append(sum(hand[s] for s in seats) / len(seats))
            for seat in seats:
                times = match.times.get(seat, [])
                tally.times.extend(times)
                self.decisions += len(times)
        for where, what in match.outcomes:
            if where is None:
                self.table_outcomes[what] += 1
            else:
                self.per_entrant[match.seats[where]].outcomes[what] += 1
        for label, counted in match.counts.items():
            self.counts.setdefault(label, Counter()).update(counted)

    # -- the figures ---------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The figures as JSON-safe data."""
        entrants = {}
        for label, tally in self.per_entrant.items():
            share, low, high = mean_interval(tally.match_scores)
            net, net_low, net_high = mean_interval(tally.net_points)
            times = sorted(tally.times)
            entrants[label] = {
                "matches": len(tally.match_scores), "seats": tally.seats_played,
                "win_share": share, "win_share_ci": [low, high],
                "net_points_per_hand": net, "net_points_ci": [net_low, net_high],
                "outcomes": dict(tally.outcomes.most_common()),
                "decisions": len(times),
                "decision_ms": {"p50": percentile(times, 0.5) * 1000,
                                "p99": percentile(times, 0.99) * 1000,
                                "max": (times[-1] if times else 0.0) * 1000},
            }
        return {"games": self.games, "hands": self.hands, "turns": self.turns,
                "decisions": self.decisions, "illegal": self.illegal,
                "stalled": self.stalled,
                "seat_win_share": [w / max(self.games, 1) for w in self.per_seat_wins],
                "table_outcomes": dict(self.table_outcomes),
                "plugin_counts": {k: dict(v) for k, v in self.counts.items()},
                "entrants": entrants}

    def write_json(self, path: Path, extra: dict[str, Any]) -> None:
        path.write_text(json.dumps({**extra, **self.summary()}, indent=2) + "\n")

    def print(self, console: Any, title: str, seconds: float, random_seats: set[int]) -> None:
        from rich.table import Table

        summary = self.summary()
        table = Table(title=title, show_header=False)
        table.add_row("games played", f"{self.games:,}")
        table.add_row("hands played", f"{self.hands:,}")
        table.add_row("illegal moves", f"{self.illegal:,}")
        table.add_row("stalled matches", f"{self.stalled:,} (counted as draws)")
        hands = max(self.hands, 1)
        table.add_row("average hand length", f"{self.turns / hands:.1f} turns "
                                             f"({self.decisions / hands:.1f} bot decisions)")
        share = "  ".join(f"seat {s}{' (random)' if s in random_seats else ''}: {w:.1%}"
                          for s, w in enumerate(summary["seat_win_share"]))
        table.add_row("win share per seat", share)
        if self.table_outcomes:
            table.add_row("hands nobody won", _counted(self.table_outcomes))
        total = sum(sum(t.times) for t in self.per_entrant.values())
        rate = self.decisions / total if total else 0.0
        table.add_row("decisions/second", f"{rate:,.0f} (bot CPU time)")
        table.add_row("wall time", f"{seconds:.1f} s")
        console.print(table)
        board = Table(title="Per player")
        board.add_column("")
        entrants = summary["entrants"]
        for label in entrants:
            board.add_column(label)

        def row(name: str, cell: Any) -> None:
            board.add_row(name, *(cell(f) for f in entrants.values()))

        row("matches (seats)", lambda f: f"{f['matches']:,} ({f['seats']:,})")
        row("match win share", lambda f: f"{f['win_share']:.1%}")
        row("  95% CI", lambda f: "{:.1%}-{:.1%}".format(*_clipped(f["win_share_ci"])))
        row("net points/hand", lambda f: f"{f['net_points_per_hand']:+.2f}")
        row("  95% CI", lambda f: "{:+.2f} to {:+.2f}".format(*f["net_points_ci"]))
        row("hands ended by", lambda f: _counted(Counter(f["outcomes"])))
        row("decisions", lambda f: f"{f['decisions']:,}")
        row("decision ms p50", lambda f: f"{f['decision_ms']['p50']:.2f}")
        row("  p99 / max", lambda f: "{:.1f} / {:.1f}".format(f["decision_ms"]["p99"],
                                                                f["decision_ms"]["max"]))
        console.print(board)
        for label, counted in self.counts.items():
            console.print(f"{label} counted: {_counted(counted)}")


def _clipped(interval: Sequence[float]) -> tuple[float, float]:
    """A share's interval within 0-100%."""
    return max(0.0, interval[0]), min(1.0, interval[1])


def _counted(counter: Counter[str]) -> str:
    return ", ".join(f"{what} {n:,}" for what, n in counter.most_common()) or "-"


__all__ = ["ArenaTally", "EntrantTally", "mean_interval", "percentile"]
