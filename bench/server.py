"""How many tables one `cardtable serve` process carries: actions per second and latency.

Run ``python bench/server.py --tables 100 500 --seconds 20 [--database-url URL]``.  For
each table count it starts a fresh server process on 127.0.0.1 (``CARDTABLE_BOT_DELAY=0``,
SQLite in a temporary data directory, or a fresh PostgreSQL database created on the
``--database-url`` server and dropped afterwards), opens that many friend tables whose two
seats are normal Gin bots playing through ``cardtable.client`` from this one asyncio
process, lets them play for ``--seconds``, and reports

* actions per second over the window (acknowledged actions, both seats, all tables);
* latency from an action sent to the resulting ``view`` received by the *opponent*
  (timestamped at send, matched by version), p50 / p99 / max;
* CPU used by the server process and by this client process (on a 2-core machine
  the two compete, so a saturated client shows up here, not as a server figure).

By default the bots move the instant their turn comes (``--think 0``): every table
always has an action in flight, so the figure is the server's saturated throughput and
latency is mostly queueing (Little's law: latency ≈ tables / throughput).  ``--think S``
makes each bot wait S seconds on average (uniformly 0.5 S to 1.5 S) before each move,
like people at a table: the offered load is then about tables / S actions a second.

Both sides' per-connection frame limits are lifted (``CARDTABLE_FRAME_RATE``) and so
is the per-address join limit, because every bot shares 127.0.0.1: the figure is the
server's capacity, not a human's pace.  Figures of record: docs/benchmarks.md.

Garbage collection: the server runs with ``CARDTABLE_GC_STATS`` (``server/gc_tuning.py``)
and is asked for its pause figures (``SIGUSR1``) just before and after the window, so the
table shows the longest collector pause *inside* the window, the full (generation 2)
passes there, the collector's share of the server's time, and the tracked objects and
resident memory of the server at the end.  ``--gc MODE ...`` runs each table count once
per ``CARDTABLE_GC`` mode (``tuned``, the default; ``python``, CPython's own settings;
``freeze``; or thresholds ``T0,T1,T2``), and ``--repeat N`` runs the whole plan N times,
the variants interleaved, with a table of medians at the end: on a noisy machine, compare
medians of runs taken side by side.  The client process freezes and tunes its own
collector once the tables are open and switches it off for the window (its pauses would
otherwise be counted as the server's latency; any left are shown).

Load: ``--hog N`` runs N busy processes (``bench/hog.py``) from before each server starts
until its window ends, like a cheap or shared machine; every run prints the load average
at the end of its window.  Creates and joins answered 5xx while the tables open are
counted (the ``5xx`` column; each is sent again after a second): the figure must be 0.
``--keep DIR`` keeps each run's data directory (the SQLite file and ``server.log``, where
every refusal is logged with its cause) instead of deleting it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

import hog
from cardtable.bots.gin.normal import choose
from cardtable.client import ActionRefused, Client, Connection, Frame, RequestRefused, Seat
from cardtable.server import gc_tuning
from local_postgres import fresh_postgres

OPTIONS = {"target": 500}  # long matches; rematches are played when one ends anyway
MAX_TABLES, MAX_SECONDS = 5000, 600
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


@dataclass
class Tally:
    """What every table reports into: actions in the window and opponent latencies."""

    start: float = 0.0
    end: float = float("inf")
    actions: int = 0
    refused: int = 0
    latencies: list[float] = field(default_factory=list)
    open_refusals: dict[int, int] = field(default_factory=dict)  # HTTP status -> creates/joins

    def refuse(self, status: int) -> None:
        self.open_refusals[status] = self.open_refusals.get(status, 0) + 1

    def in_window(self, at: float) -> bool:
        return self.start <= at <= self.end


# -- one server process --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def server_process(data_dir: Path, database_url: str | None, gc_mode: str = "tuned",
                   extra_env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """``python -m cardtable serve`` on a free local port: yields (base URL, pid).  Its
    collector runs as ``gc_mode`` says and writes its pause figures to
    ``data_dir/gc.json`` on SIGUSR1 (:func:`gc_figures`)."""
    port = free_port()
    env = {**os.environ, "CARDTABLE_BOT_DELAY": "0", "CARDTABLE_FRAME_RATE": "100000",
           "CARDTABLE_JOIN_LIMIT": "1000000", "CARDTABLE_CREATE_LIMIT": "1000000",
           "CARDTABLE_SOCKET_LIMIT": "1000000",
           "CARDTABLE_GC": gc_mode,
           "CARDTABLE_GC_STATS": str(data_dir / "gc.json"), **(extra_env or {})}
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    log_path = data_dir / "server.log"
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "cardtable", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--data-dir", str(data_dir)], env=env, stdout=log,
            stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{log_path.read_text()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base_url}/api/games", timeout=1, trust_env=False).is_success:
                    break
            time.sleep(0.1)
        yield base_url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """Resident memory of a process in KiB (``VmRSS`` of /proc/PID/status; ``VmHWM``: the
    most it ever had)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for process {pid}")


async def gc_figures(pid: int, data_dir: Path, timeout: float = 60,
                     collect: bool = False) -> dict[str, Any]:
    """Ask the server for its collector figures (SIGUSR1; SIGUSR2 with ``collect``: after
    a full collection, live objects only) and read them once written."""
    path = data_dir / "gc.json"
    asked = time.monotonic()
    os.kill(pid, signal.SIGUSR2 if collect else signal.SIGUSR1)
    while time.monotonic() - asked < timeout:
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            figures: dict[str, Any] = json.loads(path.read_text())
            if figures["at"] >= asked:
                return figures
        await asyncio.sleep(0.05)
    raise RuntimeError("the server wrote no GC figures (CARDTABLE_GC_STATS)")


@dataclass
class GcWindow:
    """The server's collector between two snapshots: passes per generation, time spent,
    the longest pause (of those of 1 ms or more, which carry their time)."""

    passes: list[int]
    total_ms: float
    longest_ms: float
    tracked: int
    frozen: int

    @classmethod
    def between(cls, before: dict[str, Any], after: dict[str, Any], start: float,
                end: float) -> GcWindow:
        """From two snapshots taken just before ``start`` and after ``end`` (monotonic
        times of the window: the longest pause is the longest that ended inside)."""
        gens = zip(before["generations"], after["generations"], strict=True)
        passes, total = [], 0.0
        for old, new in gens:
            passes.append(new["passes"] - old["passes"])
            total += new["total_ms"] - old["total_ms"]
        inside = [ms for at, _, ms in after["pauses"] if start <= at <= end]
        return cls(passes, total, max(inside, default=0.0), after.get("tracked", 0),
                   after["frozen"])


def client_pauses() -> gc_tuning.PauseStats:
    """Time this process's own collections (they delay the frames it timestamps)."""
    return gc_tuning.install_stats(Path(os.devnull), on_signal=False)


def raise_open_files(wanted: int) -> int:
    """Raise this process's open-file limit toward ``wanted`` (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return max(soft, target)


# -- the bots --------------------------------------------------------------------------------


class BenchTable:
    """Two bot seats at one friend table; the opponent's frames close the latency samples."""

    def __init__(self, tally: Tally, think: float):
        self.tally, self.think = tally, think
        self.sent: dict[int, tuple[float, int]] = {}  # version -> (send time, sender seat)

    def observer(self, seat: int) -> Callable[[Frame], None]:
        def on_frame(frame: Frame) -> None:
            if frame.t != "view" or frame.v is None:
                return
            sent = self.sent.get(frame.v)
            if sent is not None and sent[1] != seat:
                del self.sent[frame.v]
                if self.tally.in_window(sent[0]):
                    self.tally.latencies.append(frame.at - sent[0])
        return on_frame

    async def seat_loop(self, conn: Connection) -> None:
        """Play forever (the caller cancels): act on our turn, vote for a rematch at the end."""
        voted_at = -1
        while True:
            if conn.view.get("phase") == "match_over":
                if voted_at != conn.version:
                    voted_at = conn.version
                    await conn.rematch()
                else:
                    await conn.recv()
            elif conn.my_turn:
                if self.think:
                    await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
                action = choose(conn.view)
                self.sent[conn.version + 1] = (time.perf_counter(), conn.seat or 0)
                try:
                    answer = await conn.act(action)
                except ActionRefused:
                    self.tally.refused += 1
                    continue
                if self.tally.in_window(answer.at):
                    self.tally.actions += 1
            else:
                await conn.recv()


OPEN_ATTEMPTS = 10  # a create or join refused with a 5xx is counted, then sent again


async def refused_then_retried(tally: Tally, call: Callable[[], Any]) -> Any:
    """``await call()``; a 5xx answer is counted in ``tally.open_refusals`` (the figure
    that must stay 0) and the call sent again after a second, a few times."""
    for attempt in range(OPEN_ATTEMPTS):
        try:
            return await call()
        except RequestRefused as refusal:
            if refusal.status < 500 or attempt == OPEN_ATTEMPTS - 1:
                raise
            tally.refuse(refusal.status)
            await asyncio.sleep(1.0)
    raise AssertionError("unreachable")


async def open_tables(client: Client, count: int, tally: Tally,
                      think: float) -> list[tuple[BenchTable, Connection]]:
    """Create ``count`` friend tables, seat both bots and connect them (not timed).  Any
    5xx answer on the way is counted (``tally.open_refusals``) and the call retried."""
    gate = asyncio.Semaphore(50)

    async def one() -> list[tuple[BenchTable, Connection]]:
        async with gate:
            ann = await refused_then_retried(tally, lambda: client.create_table(
                "gin", OPTIONS, opponent="friend", name="Ann"))
            bob = await refused_then_retried(tally, lambda: client.join(ann.code, "Bob"))
            table = BenchTable(tally, think)
            seats: list[Seat] = [ann, bob]
            conns = [client.connect(s, on_frame=table.observer(s.seat)) for s in seats]
            for conn in conns:
                await conn.open()
            return [(table, conn) for conn in conns]

    groups = await asyncio.wait_for(asyncio.gather(*(one() for _ in range(count))), 300)
    return [pair for group in groups for pair in group]


@dataclass
class Result:
    database: str
    tables: int
    think: float
    seconds: float
    tally: Tally
    server_cpu: float
    client_cpu: float
    gc_mode: str = "tuned"
    gc: GcWindow | None = None
    rss_mib: float = 0.0
    client_gc_ms: float = 0.0  # this process's longest collection in the window
    load: str = ""  # the hog and the load average at the end of the window

    @property
    def refusals(self) -> int:
        """5xx answers to creates and joins while the tables opened: must be 0."""
        return sum(self.tally.open_refusals.values())

    @property
    def rate(self) -> float:
        return self.tally.actions / self.seconds

    def percentile(self, q: float) -> float:
        samples = sorted(self.tally.latencies)
        if not samples:
            return float("nan")
        return 1000 * samples[min(len(samples) - 1, int(q * len(samples)))]

    @property
    def gc_share(self) -> float:
        """Share of the window the server spent collecting."""
        return self.gc.total_ms / 1000 / self.seconds if self.gc else float("nan")


async def run(base_url: str, pid: int, data_dir: Path, count: int, seconds: float,
              think: float, database: str, gc_mode: str, console: Console,
              hogs: int = 0) -> Result:
    tally = Tally()
    async with Client(base_url, frame_rate=None, timeout=60) as client:
        opened = time.perf_counter()
        seats = await open_tables(client, count, tally, think)
        console.print(f"{database} {count} tables opened in {time.perf_counter() - opened:.1f} s"
                      f", 5xx answers on the way: {tally.open_refusals or 0}")
        # This process's own collections would stall every bot in it and count as the
        # server's latency: what it holds now is frozen, and its collector stays off for
        # the window (a minute of garbage at most); the passes left are shown.
        gc_tuning.apply()
        gc.disable()
        mine = client_pauses()
        before = await gc_figures(pid, data_dir)
        tally.start, window_start = time.perf_counter(), time.monotonic()
        cpu0, server0 = time.process_time(), cpu_seconds(pid)
        tasks = [asyncio.create_task(table.seat_loop(conn)) for table, conn in seats]
        columns = (TextColumn(f"{database} {count} tables, gc {gc_mode}"), BarColumn(),
                   TextColumn("{task.fields[status]}"), TimeRemainingColumn())
        with Progress(*columns, console=console, transient=True) as progress:
            bar = progress.add_task("play", total=seconds, status="")
            while (elapsed := time.perf_counter() - tally.start) < seconds:
                await asyncio.sleep(0.25)
                failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
                if failed:
                    raise RuntimeError("a bot stopped") from failed[0].exception()
                status = f"{tally.actions:,} actions · {tally.actions / max(elapsed, 1e-9):,.0f}/s"
                progress.update(bar, completed=min(elapsed, seconds), status=status)
        tally.end, window_end = time.perf_counter(), time.monotonic()
        client_cpu, server_cpu = time.process_time() - cpu0, cpu_seconds(pid) - server0
        load = hog.load_note(hogs)
        rss = rss_kib(pid) / 1024
        after = await gc_figures(pid, data_dir)
        gc_tuning.uninstall_stats(mine)
        console.print(f"client collector: longest pause per generation "
                      f"{', '.join(f'{x * 1000:.1f}' for x in mine.longest)} ms, passes "
                      f"{', '.join(str(sum(c)) for c in mine.counts)}")
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(conn.close() for _, conn in seats), return_exceptions=True)
    gc.enable()
    gc.unfreeze()
    gc.set_threshold(*DEFAULT_THRESHOLDS)
    window = tally.end - tally.start
    return Result(database, count, think, window, tally, server_cpu / window,
                  client_cpu / window, gc_mode,
                  GcWindow.between(before, after, window_start, window_end), rss,
                  max(mine.longest) * 1000, load)


DEFAULT_THRESHOLDS = gc.get_threshold()
COLUMNS = ("database", "tables", "think s", "gc", "5xx", "actions/s", "p50 ms", "p99 ms",
           "max ms",
           "GC max ms", "full GCs", "GC time", "tracked", "RSS MiB", "server CPU",
           "client CPU", "client GC ms")


def row(r: Result) -> list[str]:
    g = r.gc
    return [r.database, f"{r.tables:,}", f"{r.think:g}", r.gc_mode, f"{r.refusals}",
            f"{r.rate:,.0f}",
            f"{r.percentile(0.50):.1f}", f"{r.percentile(0.99):.1f}",
            f"{r.percentile(1.0):.1f}", f"{g.longest_ms:.0f}" if g else "-",
            f"{g.passes[2]}" if g else "-", f"{r.gc_share:.1%}",
            f"{g.tracked:,}" if g else "-", f"{r.rss_mib:,.0f}", f"{r.server_cpu:.0%}",
            f"{r.client_cpu:.0%}", f"{r.client_gc_ms:.0f}"]


def report(results: list[Result], console: Console) -> None:
    table = Table(title="cardtable server: friend tables of two normal Gin bots")
    for name in COLUMNS:
        table.add_column(name, justify="left" if name in ("database", "gc") else "right")
    for r in results:
        table.add_row(*row(r))
    console.print(table)
    groups: dict[tuple[str, int, str], list[Result]] = {}
    for r in results:
        groups.setdefault((r.database, r.tables, r.gc_mode), []).append(r)
    if any(len(g) > 1 for g in groups.values()):
        medians = Table(title="medians of the repeated runs (interleaved)")
        for name in ("database", "tables", "gc", "runs", "actions/s", "p50 ms", "p99 ms",
                     "GC max ms", "full GCs", "GC time", "server CPU"):
            medians.add_column(name, justify="left" if name in ("database", "gc") else "right")
        for (database, tables, mode), runs in groups.items():
            def med(f: Callable[[Result], float], rs: list[Result] = runs) -> float:
                return statistics.median(f(r) for r in rs)
            medians.add_row(
                database, f"{tables:,}", mode, f"{len(runs)}", f"{med(lambda r: r.rate):,.0f}",
                f"{med(lambda r: r.percentile(0.5)):.1f}",
                f"{med(lambda r: r.percentile(0.99)):.1f}",
                f"{med(lambda r: r.gc.longest_ms if r.gc else 0):.0f}",
                f"{med(lambda r: r.gc.passes[2] if r.gc else 0):g}",
                f"{med(lambda r: r.gc_share):.1%}", f"{med(lambda r: r.server_cpu):.0%}")
        console.print(medians)
    samples = sum(len(r.tally.latencies) for r in results)
    console.print(f"{samples:,} latency samples; p50/p99/max from action sent to the "
                  "opponent's view received; CPU is core-seconds per second.  GC columns: the "
                  "server's collector in the window (longest pause, full passes, share of "
                  "the time; tracked objects at the end); client GC: this process's longest. "
                  "5xx: creates and joins refused while the tables opened (retried).")
    for r in results:
        console.print(f"{r.database} {r.tables:,} tables: {r.load}")


async def bench(counts: list[int], seconds: float, think: float, databases: list[str],
                database_url: str, gc_modes: list[str], repeat: int, hogs: int = 0,
                keep: Path | None = None) -> list[Result]:
    console = Console(width=None if sys.stdout.isatty() else 160)
    raise_open_files(4 * max(counts) + 1000)
    results = []
    plan = [(count, db, mode) for _ in range(repeat) for count in counts
            for db in databases for mode in gc_modes]
    for count, db, mode in plan:
        with contextlib.ExitStack() as dirs:
            if keep is None:
                tmp = dirs.enter_context(tempfile.TemporaryDirectory(prefix="cardtable-bench-"))
            else:  # the data directory and the server's log stay for a look afterwards
                keep.mkdir(parents=True, exist_ok=True)
                tmp = tempfile.mkdtemp(prefix=f"{db}-{count}-", dir=keep)
                console.print(f"data directory and server.log: {tmp}")
            async with contextlib.AsyncExitStack() as stack:
                url = None
                if db == "postgresql":
                    url = await stack.enter_async_context(fresh_postgres(database_url))
                database = "PostgreSQL" if url else "SQLite"
                stack.enter_context(hog.hog(hogs))
                base_url, pid = stack.enter_context(server_process(Path(tmp), url, mode))
                result = await run(base_url, pid, Path(tmp), count, seconds, think, database,
                                   mode, console, hogs)
                results.append(result)
                console.print(f"{database} {count} tables, gc {mode}: {result.refusals} 5xx, "
                              f"{result.rate:,.0f} "
                              f"actions/s, p99 {result.percentile(0.99):.1f} ms, longest GC "
                              f"pause {result.gc.longest_ms if result.gc else 0:.0f} ms")
    report(results, console)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 500], metavar="N",
                        help="table counts to run, one fresh server each (default: 100 500)")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="measured play time per table count (default: 20)")
    parser.add_argument("--think", type=float, default=0.0, metavar="S",
                        help="mean seconds a bot waits before each move (default: 0, flat out)")
    parser.add_argument("--db", nargs="+", choices=("sqlite", "postgresql"), metavar="DB",
                        help="databases to run on, interleaved: sqlite, postgresql (default: "
                             "sqlite, or postgresql when --database-url is given)")
    parser.add_argument("--database-url", metavar="URL",
                        help="a local PostgreSQL server (postgresql+asyncpg://user@127.0.0.1:"
                             "5432/postgres): a fresh database is created there and dropped "
                             f"(default for --db postgresql: {DEFAULT_POSTGRES})")
    parser.add_argument("--gc", nargs="+", default=["tuned"], metavar="MODE",
                        help="the server's CARDTABLE_GC modes to compare: tuned (default), "
                             "python, freeze or T0,T1,T2")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run the whole plan N times, interleaved (default: 1)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each run's data directory (SQLite file, server.log) under "
                             "DIR instead of deleting it")
    hog.add_argument(parser)
    args = parser.parse_args(argv)
    hog.check(parser, args.hog)
    if not all(1 <= n <= MAX_TABLES for n in args.tables) or not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--tables from 1 to {MAX_TABLES}, --seconds up to {MAX_SECONDS}")
    if not 0 <= args.think <= 60:
        parser.error("--think from 0 to 60 seconds")
    if not 1 <= args.repeat <= 20:
        parser.error("--repeat from 1 to 20")
    for mode in args.gc:
        try:
            gc_tuning.parse_mode(mode)
        except ValueError as error:
            parser.error(str(error))
    databases = args.db or (["postgresql"] if args.database_url else ["sqlite"])
    asyncio.run(bench(args.tables, args.seconds, args.think, databases,
                      args.database_url or DEFAULT_POSTGRES, args.gc, args.repeat, args.hog,
                      args.keep))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
