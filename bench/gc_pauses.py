"""Indian Rummy bot decisions in a process holding a server-sized heap: the collector's toll.

Run ``python bench/gc_pauses.py [--heap 1000000] [--matches 150] [--repeat 3]``.  Each run
is a fresh process that imports the engine and the bot, sets its collector up as
``cardtable serve`` does for a ``CARDTABLE_GC`` mode (``--gc``: ``python`` leaves
CPython's settings, ``tuned`` is the server's default, see ``server/gc_tuning.py``), then
builds ``--heap`` live container objects (dicts and lists, standing for a server's
tables, never freed: they are not frozen, as live tables are not), and plays
``--matches`` two-player Indian Rummy matches bot against bot (seeded: every run plays the
same decisions).  It reports the wall time of each decision (``choose(view)``): median,
99th percentile and slowest, and the full (generation 2) collections that ran meanwhile
with the longest of them, plus the bot caches' share of the heap (tracked objects and
resident memory after the matches, less before).

``--src DIR`` adds runs of another source tree (``DIR/cardtable``), e.g. an older commit
unpacked with ``git archive COMMIT src | tar -x -C /tmp/old`` and ``--src /tmp/old/src``:
its runs and ours are interleaved, so a noisy machine hurts both alike.  Figures of
record: docs/benchmarks.md ("Long uptime").
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from cardtable.server import gc_tuning

HERE = Path(__file__).resolve()
OURS = "this tree"


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def child(heap: int, matches: int, seed: int, freeze: bool,
          thresholds: tuple[int, int, int] | None) -> dict[str, Any]:
    """One run, in its own process: the figures as a dict."""
    from cardtable.bots.indian.normal import choose
    from cardtable.engine import get_game

    game = get_game("indian")
    if freeze:  # what `cardtable serve` does once started
        gc.collect()
        gc.freeze()
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    tables = [{"seats": [i], "hand": [i, i + 1], "log": [i]} for i in range(heap // 4)]
    gc.collect()
    tracked0, rss0 = len(gc.get_objects()), rss_kib()
    full: list[float] = []
    started = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif info["generation"] == 2:
            full.append(time.perf_counter() - started[0])

    gc.callbacks.append(on_gc)
    times: list[float] = []
    for m in range(matches):
        state = game.new_match(game.Options(), players=2, rng=random.Random(seed + m))
        while not state.is_over():
            view = state.view(state.current_player())
            clock = time.perf_counter()
            action = choose(view)
            times.append(time.perf_counter() - clock)
            state.apply(action)
    gc.callbacks.remove(on_gc)
    del state
    gc.collect()
    times.sort()
    return {"decisions": len(times), "median_ms": 1000 * times[len(times) // 2],
            "p99_ms": 1000 * times[len(times) * 99 // 100], "max_ms": 1000 * times[-1],
            "full_passes": len(full), "longest_full_ms": 1000 * max(full, default=0.0),
            "heap_tracked": tracked0, "heap_mib": rss0 / 1024,
            "cache_tracked": len(gc.get_objects()) - tracked0,
            "cache_mib": (rss_kib() - rss0) / 1024, "tables": len(tables)}


def run_child(src: str, mode: str, args: argparse.Namespace) -> dict[str, Any]:
    freeze, thresholds = gc_tuning.parse_mode(mode)
    env = dict(os.environ)
    if src != OURS:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    command = [sys.executable, str(HERE), "--child", "--heap", str(args.heap), "--matches",
               str(args.matches), "--seed", str(args.seed), "--freeze", str(int(freeze)),
               "--thresholds", ",".join(map(str, thresholds)) if thresholds else "python"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600,
                          check=False)
    if done.returncode:
        raise RuntimeError(f"a run failed:\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


COLUMNS = ("source", "gc", "decisions", "median ms", "p99 ms", "slowest ms", "full GCs",
           "longest full GC ms", "heap objects", "cache objects", "cache MiB")


def cells(src: str, mode: str, f: dict[str, Any]) -> list[str]:
    return [src, mode, f"{f['decisions']:,}", f"{f['median_ms']:.2f}", f"{f['p99_ms']:.1f}",
            f"{f['max_ms']:.0f}", f"{f['full_passes']:g}", f"{f['longest_full_ms']:.0f}",
            f"{f['heap_tracked']:,.0f}", f"{f['cache_tracked']:,.0f}",
            f"{f['cache_mib']:.0f}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--heap", type=int, default=1_000_000, metavar="N",
                        help="live container objects held while the bots play (1,000,000)")
    parser.add_argument("--matches", type=int, default=150, metavar="M",
                        help="two-player matches per run (default: 150)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gc", nargs="+", default=["python", "tuned"], metavar="MODE",
                        help="CARDTABLE_GC modes to compare (default: python tuned)")
    parser.add_argument("--src", metavar="DIR", help="also run another source tree")
    parser.add_argument("--repeat", type=int, default=3, metavar="N",
                        help="rounds of runs, interleaved (default: 3)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--freeze", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--thresholds", default="python", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 0 <= args.heap <= 20_000_000 or not 1 <= args.matches <= 10_000 \
            or not 1 <= args.repeat <= 20:
        parser.error("--heap up to 20,000,000, --matches 1 to 10,000, --repeat 1 to 20")
    if args.child:
        t = None if args.thresholds == "python" else tuple(map(int, args.thresholds.split(",")))
        figures = child(args.heap, args.matches, args.seed, bool(args.freeze),
                        t if t is None or len(t) == 3 else None)  # type: ignore[arg-type]
        print(json.dumps(figures))
        return 0
    for mode in args.gc:
        try:
            gc_tuning.parse_mode(mode)
        except ValueError as error:
            parser.error(str(error))
    sources = [OURS] + ([str(Path(args.src).resolve())] if args.src else [])
    label = {src: src if src == OURS else "/".join(Path(src).parts[-2:]) for src in sources}
    plan = [(src, mode) for _ in range(args.repeat) for src in sources for mode in args.gc]
    console = Console(width=None if sys.stdout.isatty() else 140)
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    table = Table(title=f"Indian bot decisions, {args.heap:,} live objects held")
    for name in COLUMNS:
        table.add_column(name, justify="left" if name in ("source", "gc") else "right")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True) as progress:
        bar = progress.add_task("runs", total=len(plan))
        for src, mode in plan:
            progress.update(bar, description=f"{label[src]}, gc {mode}")
            figures = run_child(src, mode, args)
            results.setdefault((src, mode), []).append(figures)
            table.add_row(*cells(label[src], mode, figures))
            progress.advance(bar)
    console.print(table)
    medians = Table(title=f"medians of {args.repeat} interleaved runs")
    for name in COLUMNS:
        medians.add_column(name, justify="left" if name in ("source", "gc") else "right")
    for (src, mode), runs in results.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        medians.add_row(*cells(label[src], mode, med))
    console.print(medians)
    console.print("Decision times are wall time of choose(view), collections included; "
                  "cache objects/MiB: what the matches left in the process (the bot's and "
                  "engine's caches).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
