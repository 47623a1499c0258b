"""The summary and report of `cardtable bench engine` (see engine.py): medians over rounds,
ratios, the tables and the issue's targets."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from typing import Any

from rich import box
from rich.table import Table

# The targets (issue 13).
PEER_FACTOR = 1.0  # Spades at least OpenSpiel's hands/s
BASELINE_FACTOR = 4.0  # every Rummy-family game at least 4x the code before the issue
RUMMY_FAMILY = ("rummy", "rummy500", "romme", "indian")  # DESIGN.md's, Gin Rummy apart
LEGAL_P99_LIMIT_US = 1000.0
BUSY_SHARE = 0.9  # below this share of wall time on a CPU, the machine was busy

Rounds = list[dict[str, dict[str, Any]]]
"""Per round, per side label, per game: a worker's figures."""


def median_of(rounds: Rounds, side: str, game: str,
              *path: str) -> float | None:
    values = []
    for figures in rounds:
        value: Any = figures.get(side, {}).get(game)
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int | float):
            values.append(float(value))
    return statistics.median(values) if values else None


def ratio_of(rounds: Rounds, game: str, ours: str,
             theirs: str) -> float | None:
    """The median over rounds of ours/theirs hands per second, each round's pair together."""
    ratios = []
    for figures in rounds:
        mine = figures.get(ours, {}).get(game, {}).get("hands_per_s")
        other = figures.get(theirs, {}).get(game, {}).get("hands_per_s")
        if mine and other:
            ratios.append(mine / other)
    return statistics.median(ratios) if ratios else None


def summarize(rounds: Rounds, labels: list[str],
              games: list[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for game in games:
        row: dict[str, Any] = {}
        for label in labels:
            row[label] = {
                "hands_per_s": median_of(rounds, label, game, "hands_per_s"),
                "cpu_share": median_of(rounds, label, game, "cpu_share"),
                **{f"{kind}_{stat}": median_of(rounds, label, game, kind, stat)
                   for kind in ("legal_actions", "apply", "resample", "hand_end_view")
                   for stat in ("p50", "p99", "mean")},
                "errors": sorted({f[label][game]["error"] for f in rounds
                                  if "error" in f.get(label, {}).get(game, {})}),
            }
        for label in labels[1:]:
            row[f"ours/{label}"] = ratio_of(rounds, game, labels[0], label)
        summary[game] = row
    return summary


def _number(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _times(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def report(console: Any, summary: dict[str, Any], labels: list[str], rounds: int) -> None:
    hands = Table(title=f"random hands per CPU second (median of {rounds} "
                        f"round{'s' if rounds > 1 else ''})",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    hands.add_column("game")
    for label in labels:
        hands.add_column(label, justify="right")
        if label != labels[0]:
            hands.add_column(f"ours ÷ {label}", justify="right")
    for game, row in summary.items():
        cells = [game]
        for label in labels:
            cells.append(_number(row[label]["hands_per_s"]))
            if label != labels[0]:
                cells.append(_times(row[f"ours/{label}"]))
        hands.add_row(*cells)
    console.print(hands)
    shares = [row[label]["cpu_share"] for row in summary.values() for label in labels]
    known = [share for share in shares if share is not None]
    if known and min(known) < BUSY_SHARE:
        console.print(f"[yellow]The workers had a core {min(known):.0%} to {max(known):.0%} of "
                      "the time (other processes ran): hands/s are per CPU second, but the "
                      "µs per call (wall clock) include time spent waiting.[/]")

    calls = Table(title="µs per call (medians over rounds)", box=box.SIMPLE_HEAD, pad_edge=False)
    for name in ("game", "side", "legal p50", "legal p99", "apply p50", "apply mean",
                 "resample p50", "resample mean", "hand-end view p50"):
        calls.add_column(name, justify="left" if name in ("game", "side") else "right")
    for game, row in summary.items():
        for label in labels:
            f = row[label]
            if f["hands_per_s"] is None and not f["errors"]:
                continue  # no peer for this game
            calls.add_row(game, label, *(_number(f[k], 1) for k in (
                "legal_actions_p50", "legal_actions_p99", "apply_p50", "apply_mean",
                "resample_p50", "resample_mean", "hand_end_view_p50")))
            for error in f["errors"]:
                console.print(f"[red]{game} ({label}): {error}[/]")
    console.print(calls)
    console.print("[bold]targets (issue 13)[/]")
    for line in target_lines(summary, labels):
        console.print("  " + line)


def target_lines(summary: dict[str, Any], labels: list[str]) -> Iterator[str]:
    """Each of the issue's targets that this run measures, and whether it is met."""

    def verdict(met: bool) -> str:
        return "[bold green]MET[/]" if met else "[bold red]NOT MET[/]"

    if "spades" in summary and "openspiel" in labels:
        factor = summary["spades"]["ours/openspiel"]
        if factor is not None:
            yield (f"spades ≥ OpenSpiel's hands/s: {factor:.2f}× "
                   + verdict(factor >= PEER_FACTOR))
    if "baseline" in labels:
        for game in RUMMY_FAMILY:
            factor = summary.get(game, {}).get("ours/baseline")
            if factor is not None:
                yield (f"{game} ≥ {BASELINE_FACTOR:g}× --baseline's hands/s (the target when "
                       f"it is the code before issue 13): {factor:.2f}× "
                       + verdict(factor >= BASELINE_FACTOR))
    for game, row in summary.items():
        p99 = row[labels[0]]["legal_actions_p99"]
        if p99 is not None:
            yield (f"{game} legal_actions p99 < {LEGAL_P99_LIMIT_US:,.0f} µs: {p99:,.1f} µs "
                   + verdict(p99 < LEGAL_P99_LIMIT_US))
