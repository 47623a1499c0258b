"""Progress bars, results and the report tables of `cardtable bench gin` (see gin.py)."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

# The targets.
TARGET_HANDS_PER_SECOND = 1000.0
TARGET_MELDING_FACTOR = 3.0  # best_melding within 3x of OpenSpiel's C++ min-deadwood
OPENSPIEL_REFERENCE_US = 1.4  # the OpenSpiel figure, used when it isn't measured here


# --- progress ------------------------------------------------------------------------------------


class Bars:
    """Rich progress bars, refreshed by hand at most ten times a second.

    Rich's auto-refresh thread would take the GIL in the middle of timed loops, so the bars
    are only drawn from the measuring code, between timed stretches.
    """

    def __init__(self, console: Console):
        self._progress = Progress(
            TextColumn("{task.description:<44}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            auto_refresh=False,
            transient=True,
        )
        self._last_refresh = 0.0

    def __enter__(self) -> Bars:
        self._progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._progress.stop()

    def task(self, description: str, total: float) -> TaskID:
        task = self._progress.add_task(description, total=total)
        self._progress.refresh()
        return task

    def set(self, task: TaskID, completed: float, description: str | None = None) -> None:
        now = time.perf_counter()
        if now - self._last_refresh >= 0.1:
            self._progress.update(task, completed=completed, description=description)
            self._progress.refresh()
            self._last_refresh = now

    def finish(self, task: TaskID) -> None:
        total = self._progress.tasks[task].total or 0.0
        self._progress.update(task, completed=total)
        self._progress.refresh()


# --- results -------------------------------------------------------------------------------------


class Result(NamedTuple):
    """One measurement: µs per unit (a call or a hand) for each repeat; ``inputs`` measured.

    A named tuple, not a dataclass: the CLI may load this file by path without registering
    it in sys.modules, where dataclasses look their module up.
    """

    label: str
    inputs: int
    runs_us: tuple[float, ...]
    cpu_share: float  # of the wall time, how much this process spent on a CPU

    @property
    def median_us(self) -> float:
        return statistics.median(self.runs_us)

    @property
    def best_us(self) -> float:
        # The pass least disturbed by the rest of the machine; bench/peers.py reports this one.
        return min(self.runs_us)

    @property
    def per_second(self) -> float:
        return 1e6 / self.median_us


class Clock:
    """Wall and CPU time since it was made.

    A CPU share well below 100% means other processes took our core, and the figures
    understate the machine.
    """

    def __init__(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def cpu_share(self) -> float:
        wall = time.perf_counter() - self._wall
        return (time.process_time() - self._cpu) / wall if wall > 0 else 1.0


BUSY_SHARE = 0.9  # below this CPU share, we warn that the machine was busy


class KnockPosition(NamedTuple):
    """A greedy bot's knock: its 11 cards before the discard, its 10 after, the defender's."""

    before: list[int]
    knocker: list[int]
    defender: list[int]


class PeerRow(NamedTuple):
    key: str  # the figure's name in measure_all
    label: str
    is_rate: bool  # hands per second (higher is better), else µs per call
    ours: str  # the key of our comparable Result


# Rates compare with our random play; µs with our call on the same uniform hands.
PEER_ROWS = (
    PeerRow("openspiel_random_hands_per_second", "OpenSpiel random hands/s", True, "play"),
    PeerRow("rlcard_random_hands_per_second", "RLCard random hands/s (env)", True, "play"),
    PeerRow("rlcard_random_hands_per_second_no_env", "RLCard random hands/s (game)", True, "play"),
    PeerRow("openspiel_min_deadwood_us", "OpenSpiel MinDeadwood µs : deadwood", False, "deadwood"),
    PeerRow(
        "openspiel_min_deadwood_us", "OpenSpiel MinDeadwood µs : best_melding", False, "melding"
    ),
    PeerRow("rlcard_meld_search_us", "RLCard meld clusters µs : best_melding", False, "melding"),
)


# --- report --------------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cores() -> int:
    # What `nproc` says: the cores this process may run on.
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def machine_line() -> str:
    return (
        f"{_cpu_model()}, nproc {_cores()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.system()} {platform.release()}"
    )


def ours_table(results: Sequence[Result]) -> Table:
    table = Table(title="cardtable on this machine", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("measurement")
    for name in ("hands", "µs median", "µs best", "per s", "CPU"):
        table.add_column(name, justify="right")
    for r in results:
        table.add_row(
            r.label,
            f"{r.inputs:,}",
            f"{r.median_us:,.2f}",
            f"{r.best_us:,.2f}",
            f"{r.per_second:,.0f}",
            f"{r.cpu_share:.0%}",
        )
    return table


def _ratio(factor: float) -> str:
    """A factor where more than 1 means we are faster."""
    if factor >= 1:
        return f"{factor:.2f}x faster"
    return f"{1 / factor:.2f}x slower"


def peers_table(figures: dict[str, float | None], ours: dict[str, Result]) -> Table:
    """Each peer figure, our like-for-like figure and how many times faster we are."""
    table = Table(title="peers on this machine", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("peer figure")
    for name in ("theirs", "ours", "cardtable is"):
        table.add_column(name, justify="right")
    for row in PEER_ROWS:
        theirs = figures.get(row.key)
        mine = ours[row.ours]
        if theirs is None:
            table.add_row(row.label, "—", "", "")
        elif row.is_rate:
            ratio = _ratio(mine.per_second / theirs)
            table.add_row(row.label, f"{theirs:,.0f}", f"{mine.per_second:,.0f}", ratio)
        else:
            # peers.py reports the fastest pass, so we compare our fastest pass too.
            ratio = _ratio(theirs / mine.best_us)
            table.add_row(row.label, f"{theirs:.2f}", f"{mine.best_us:.2f}", ratio)
    return table


def target_lines(ours: dict[str, Result], figures: dict[str, float | None]) -> list[str]:
    """Each of the issue's targets, our figure, and whether it is met."""
    rate = ours["play"].per_second
    lines = [
        f"random play ≥ {TARGET_HANDS_PER_SECOND:,.0f} hands/s: {rate:,.0f} hands/s "
        + _verdict(rate >= TARGET_HANDS_PER_SECOND)
    ]
    # Like for like with peers.py's OpenSpiel figure: the fastest pass over the same hands.
    melding = ours["melding"].best_us
    measured = figures.get("openspiel_min_deadwood_us")
    reference = measured if measured is not None else OPENSPIEL_REFERENCE_US
    source = "measured here" if measured is not None else "the issue's figure, not measured"
    lines.append(
        f"best_melding ≤ {TARGET_MELDING_FACTOR:g}x OpenSpiel MinDeadwood: {melding:.2f} µs / "
        f"{reference:.2f} µs = {melding / reference:.2f}x "
        + _verdict(melding <= TARGET_MELDING_FACTOR * reference)
    )
    lines.append(f"[dim]  (OpenSpiel's {reference:.2f} µs: {source}; fastest passes)[/]")
    return lines


def _verdict(met: bool) -> str:
    return "[bold green]MET[/]" if met else "[bold red]NOT MET[/]"
