"""A CPU hog beside a benchmark: N busy processes, the load of a shared or cheap machine.

``with hog(2): ...`` starts two processes spinning in pure Python for as long as the block
runs and stops them after it (terminate, then join): the measured run competes for the
cores the way a server on a busy VPS does.  ``hog(0)`` does nothing.  Benchmarks offer it
as ``--hog N`` (:func:`add_argument`) and print :func:`load_note` next to their figures.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
from collections.abc import Iterator

MAX_HOGS = 64


def spin() -> None:
    """Burn CPU until terminated (pure Python: holds its own interpreter's lock only)."""
    count = 0
    while True:
        count = (count + 1) % 1_000_003


@contextlib.contextmanager
def hog(processes: int) -> Iterator[list[int]]:
    """Run ``processes`` busy processes for the duration of the block; yields their pids."""
    context = multiprocessing.get_context("spawn")  # nothing of the caller's loop inherited
    hogs = [context.Process(target=spin, name=f"hog-{i}", daemon=True)
            for i in range(processes)]
    try:
        for process in hogs:
            process.start()
        yield [process.pid for process in hogs if process.pid is not None]
    finally:
        for process in hogs:
            if process.pid is not None:
                process.terminate()
        for process in hogs:
            if process.pid is not None:
                process.join(10)


def add_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--hog N`` option, the same in every benchmark."""
    parser.add_argument("--hog", type=int, default=0, metavar="N",
                        help="run N busy processes (pure-Python spinning) beside the "
                             "measured runs, like a loaded machine (default: 0)")


def check(parser: argparse.ArgumentParser, processes: int) -> None:
    if not 0 <= processes <= MAX_HOGS:
        parser.error(f"--hog from 0 to {MAX_HOGS}")


def load_note(processes: int) -> str:
    """What the machine was doing: the hog and the load average (uptime)."""
    one, five, fifteen = os.getloadavg()
    hogs = f"--hog {processes}, " if processes else ""
    return (f"{hogs}{os.cpu_count()} cores, load average {one:.2f} {five:.2f} {fifteen:.2f}")
