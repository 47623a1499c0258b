"""The garbage collector of a long-running server: fewer full passes, and their figures.

CPython frees most objects by reference counting; its cycle collector finds the rest,
and while it runs nothing else does: every table of the process waits.  A young pass
looks only at objects made since the last one and takes a millisecond or so.  A full
pass (generation 2) walks every tracked object of the process: at 1,000 live tables
that is about half a million objects and 250-400 ms on a small machine, at 2,000 a
million and 600-700 ms, landing in whichever action or bot decision is running.
CPython starts one whenever the objects that survived two young passes since the last
reach a quarter of the old generation.  So, once
``cardtable serve`` has started (modules imported, database opened, lobby loaded),
:func:`apply` (``CARDTABLE_GC``, default ``tuned``):

* collects once and freezes the survivors (``gc.freeze()``): what start-up loaded lives
  for good (FastAPI's routes, pydantic's schemas, SQLAlchemy's metadata, the engine's
  tables: some 90,000 objects) and drops out of every later pass;
* sets :data:`THRESHOLDS`: a young pass after 10,000 net new container objects instead
  of 700, so that far fewer of an action's short-lived objects live long enough to be
  promoted, and a full pass not before 100 middle passes (10 million net allocations)
  instead of 10.  The quarter rule still holds, so memory stays bounded; full passes
  come much more rarely (none in a minute at 1,000 or 2,000 tables, against one or two),
  the collector's share of the time falls from 2-5% to 0.3-1.3%, and the p99 of
  ``bench/server.py`` from 22 to 8 ms at 1,000 tables, from about 500 to 70 ms at 2,000.
  The price: a middle pass sees up to 100,000 objects, 10-50 ms.

The other price of rarer full passes: what dies inside a reference cycle once it has reached
the old generation waits longer to be freed.  Keep such cycles out of what the server
drops all the time (an evicted table, a closed connection), so that reference counting
frees it at once; ``bench/memory.py`` shows whether it does (docs/benchmarks.md).

``CARDTABLE_GC`` is a diagnostic switch: ``python`` leaves CPython's defaults,
``freeze`` only freezes, ``tuned`` freezes and sets :data:`THRESHOLDS`, and three
numbers ``T0,T1,T2`` freeze and set those thresholds.  ``CARDTABLE_GC_STATS=FILE``
times every collection (``gc.callbacks``) and writes the figures to FILE as JSON on
``SIGUSR1``, on ``SIGUSR2`` after a full collection with a census of the live objects
(types, tables in memory), and when the server stops; ``bench/server.py`` and
``bench/memory.py`` read them.  Figures: docs/benchmarks.md, "Long uptime".
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
from collections import Counter, deque
from pathlib import Path
from typing import Any

THRESHOLDS = (10_000, 10, 100)
"""Young pass every 10,000 net allocations, middle every 10 young, full after 100 middle."""
MODES = ("python", "freeze", "tuned")
EDGES_MS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
"""Upper bounds of the pause histogram's buckets, in milliseconds (a last one is open)."""
KEPT_PAUSES = 10_000
"""Pauses of 1 ms or more kept with their time, newest last (a bench cuts its window)."""


def parse_mode(text: str | None) -> tuple[bool, tuple[int, int, int] | None]:
    """A ``CARDTABLE_GC`` value as (freeze, thresholds or None to keep CPython's);
    ``ValueError`` if it is none of :data:`MODES` nor ``T0,T1,T2``."""
    mode = (text or "tuned").strip().lower()
    if mode == "python":
        return False, None
    if mode == "freeze":
        return True, None
    if mode == "tuned":
        return True, THRESHOLDS
    parts = mode.split(",")
    if len(parts) == 3 and all(p.strip().isdigit() for p in parts):
        t0, t1, t2 = (int(p) for p in parts)
        if t0 > 0:
            return True, (t0, t1, t2)
    raise ValueError(f"CARDTABLE_GC is one of {', '.join(MODES)} or T0,T1,T2 "
                     f"(three counts, T0 above 0), not {text!r}")


def apply(freeze: bool = True, thresholds: tuple[int, int, int] | None = THRESHOLDS) -> str:
    """Once start-up is over: collect, freeze what is alive, set the thresholds (None
    keeps the current ones).  Returns a line saying what was done."""
    if freeze:
        gc.collect()
        gc.freeze()
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    return (f"gc: {gc.get_freeze_count():,} objects frozen, "
            f"thresholds {','.join(map(str, gc.get_threshold()))}")


class PauseStats:
    """Every collection's duration, by generation: a histogram, totals and the longest,
    plus the pauses of 1 ms or more with their ``time.monotonic()`` end (system-wide on
    Linux, so another process can keep those of its own time window)."""

    def __init__(self) -> None:
        self.counts = [[0] * (len(EDGES_MS) + 1) for _ in range(3)]
        self.total = [0.0, 0.0, 0.0]  # seconds
        self.longest = [0.0, 0.0, 0.0]
        self.collected = [0, 0, 0]
        self.recent: deque[tuple[float, int, float]] = deque(maxlen=KEPT_PAUSES)
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
            return
        gen, took = info["generation"], now - self._started
        ms = took * 1000
        bucket = next((i for i, edge in enumerate(EDGES_MS) if ms <= edge), len(EDGES_MS))
        self.counts[gen][bucket] += 1
        self.total[gen] += took
        self.longest[gen] = max(self.longest[gen], took)
        self.collected[gen] += info.get("collected", 0)
        if ms >= 1.0:
            self.recent.append((time.monotonic(), gen, took))

    def snapshot(self, census: bool = False) -> dict[str, Any]:
        """The figures as JSON-safe data, with the count of tracked objects; ``census``
        adds their commonest types and the live tables (a walk of the whole heap that
        allocates as it goes, so collections may run during it: for a dump, not for a
        measured window)."""
        out: dict[str, Any] = {"tracked": len(gc.get_objects()),  # no allocation meanwhile
                               "blocks": sys.getallocatedblocks()}  # live objects, all kinds
        if census:
            kinds = Counter(type(o) for o in gc.get_objects())
            out["types"] = [[f"{t.__module__}.{t.__qualname__}", n]
                            for t, n in kinds.most_common(20)]
            out["tables"] = sum(n for t, n in kinds.items() if t.__qualname__ == "Table"
                                and t.__module__ == "cardtable.server.table.actor")
            del kinds
        out.update({
            "edges_ms": list(EDGES_MS),
            "generations": [{"passes": sum(self.counts[g]), "histogram": self.counts[g],
                             "total_ms": self.total[g] * 1000,
                             "longest_ms": self.longest[g] * 1000,
                             "collected": self.collected[g]} for g in range(3)],
            "pauses": [[at, gen, took * 1000] for at, gen, took in self.recent],
            "thresholds": list(gc.get_threshold()),
            "frozen": gc.get_freeze_count(),
            "at": time.monotonic(),
        })
        return out

    def write(self, path: Path, collect: bool = False) -> None:
        """The snapshot to ``path``, atomically (a reader never sees half a file);
        ``collect``: a full collection first, then the census (garbage not collected
        yet is in ``gc.get_objects()`` too: this counts live objects only)."""
        if collect:
            gc.collect()
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.snapshot(census=collect)))
        os.replace(tmp, path)


def install_stats(path: Path, on_signal: bool = True) -> PauseStats:
    """Time every collection from now on; with ``on_signal``, write the figures to
    ``path`` on ``SIGUSR1``, and after a full collection on ``SIGUSR2`` (call from the main
    thread).  The caller writes them once
    more at the end (``stats.write(path)``)."""
    stats = PauseStats()
    gc.callbacks.append(stats)
    if on_signal:
        signal.signal(signal.SIGUSR1, lambda signum, frame: stats.write(path))
        signal.signal(signal.SIGUSR2, lambda signum, frame: stats.write(path, collect=True))
    return stats


def uninstall_stats(stats: PauseStats) -> None:
    if stats in gc.callbacks:
        gc.callbacks.remove(stats)
