"""How many tables one `cardtable serve` process carries: actions per second and latency.

Run ``python bench/server.py --tables 100 500 --seconds 20 [--database-url URL]``.  For
each table count it starts a fresh server process on 127.0.0.1 (``CARDTABLE_BOT_DELAY=0``,
SQLite in a temporary data directory, or a fresh PostgreSQL database created on the
``--database-url`` server and dropped afterwards), opens that many friend tables whose two
seats are gin_simple bots playing through ``cardtable.client`` from this one asyncio
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
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from cardtable.bots.gin_simple import choose
from cardtable.client import ActionRefused, Client, Connection, Frame, Seat

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
OPTIONS = {"target": 500}  # long matches; rematches are played when one ends anyway
MAX_TABLES, MAX_SECONDS = 5000, 600


@dataclass
class Tally:
    """What every table reports into: actions in the window and opponent latencies."""

    start: float = 0.0
    end: float = float("inf")
    actions: int = 0
    refused: int = 0
    latencies: list[float] = field(default_factory=list)

    def in_window(self, at: float) -> bool:
        return self.start <= at <= self.end


# -- one server process --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def server_process(data_dir: Path, database_url: str | None) -> Iterator[tuple[str, int]]:
    """``python -m cardtable serve`` on a free local port: yields (base URL, pid)."""
    port = free_port()
    env = {**os.environ, "CARDTABLE_BOT_DELAY": "0", "CARDTABLE_FRAME_RATE": "100000",
           "CARDTABLE_JOIN_LIMIT": "1000000"}
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


@contextlib.asynccontextmanager
async def fresh_postgres(url: str) -> AsyncIterator[str]:
    """A new empty database on the server of ``url`` (local only), dropped afterwards."""
    import asyncpg  # type: ignore[import-untyped]  # only PostgreSQL runs need it

    parts = urlsplit(url)
    if parts.hostname not in LOCAL_HOSTS:
        raise SystemExit("--database-url must point at 127.0.0.1: the bench stays local")
    admin = urlunsplit(("postgresql", parts.netloc, "/postgres", "", ""))
    name = f"cardtable_bench_{secrets.token_hex(4)}"
    conn = await asyncpg.connect(admin)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
        yield urlunsplit(("postgresql+asyncpg", parts.netloc, f"/{name}", "", ""))
    finally:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()


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


async def open_tables(client: Client, count: int, tally: Tally,
                      think: float) -> list[tuple[BenchTable, Connection]]:
    """Create ``count`` friend tables, seat both bots and connect them (not timed)."""
    gate = asyncio.Semaphore(50)

    async def one() -> list[tuple[BenchTable, Connection]]:
        async with gate:
            ann = await client.create_table("gin", OPTIONS, opponent="friend", name="Ann")
            bob = await client.join(ann.code, "Bob")
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

    @property
    def rate(self) -> float:
        return self.tally.actions / self.seconds

    def percentile(self, q: float) -> float:
        samples = sorted(self.tally.latencies)
        if not samples:
            return float("nan")
        return 1000 * samples[min(len(samples) - 1, int(q * len(samples)))]


async def run(base_url: str, pid: int, count: int, seconds: float, think: float, database: str,
              console: Console) -> Result:
    tally = Tally()
    async with Client(base_url, frame_rate=None, timeout=60) as client:
        seats = await open_tables(client, count, tally, think)
        tally.start = time.perf_counter()
        cpu0, server0 = time.process_time(), cpu_seconds(pid)
        tasks = [asyncio.create_task(table.seat_loop(conn)) for table, conn in seats]
        columns = (TextColumn(f"{database} {count} tables"), BarColumn(),
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
        tally.end = time.perf_counter()
        client_cpu, server_cpu = time.process_time() - cpu0, cpu_seconds(pid) - server0
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(conn.close() for _, conn in seats), return_exceptions=True)
    window = tally.end - tally.start
    return Result(database, count, think, window, tally, server_cpu / window,
                  client_cpu / window)


def report(results: list[Result], console: Console) -> None:
    table = Table(title="cardtable server: friend tables of two gin_simple bots")
    for name in ("database", "tables", "think s", "actions", "actions/s", "p50 ms", "p99 ms",
                 "max ms", "server CPU", "client CPU", "refused"):
        table.add_column(name, justify="left" if name == "database" else "right")
    for r in results:
        table.add_row(r.database, f"{r.tables:,}", f"{r.think:g}", f"{r.tally.actions:,}",
                      f"{r.rate:,.0f}", f"{r.percentile(0.50):.1f}", f"{r.percentile(0.99):.1f}",
                      f"{r.percentile(1.0):.1f}", f"{r.server_cpu:.0%}", f"{r.client_cpu:.0%}",
                      f"{r.tally.refused}")
    console.print(table)
    samples = sum(len(r.tally.latencies) for r in results)
    console.print(f"{samples:,} latency samples; p50/p99/max from action sent to the "
                  "opponent's view received; CPU is core-seconds per second.")


async def bench(counts: list[int], seconds: float, think: float,
                database_url: str | None) -> list[Result]:
    console = Console(width=None if sys.stdout.isatty() else 120)
    results = []
    for count in counts:
        with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as tmp:
            async with contextlib.AsyncExitStack() as stack:
                url = None
                if database_url:
                    url = await stack.enter_async_context(fresh_postgres(database_url))
                database = "PostgreSQL" if url else "SQLite"
                base_url, pid = stack.enter_context(server_process(Path(tmp), url))
                results.append(await run(base_url, pid, count, seconds, think, database,
                                         console))
                console.print(f"{database} {count} tables: {results[-1].rate:,.0f} actions/s, "
                              f"p99 {results[-1].percentile(0.99):.1f} ms")
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
    parser.add_argument("--database-url", metavar="URL",
                        help="a local PostgreSQL server (postgresql+asyncpg://user@127.0.0.1:"
                             "5432/postgres): a fresh database is created there and dropped")
    args = parser.parse_args(argv)
    if not all(1 <= n <= MAX_TABLES for n in args.tables) or not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--tables from 1 to {MAX_TABLES}, --seconds up to {MAX_SECONDS}")
    if not 0 <= args.think <= 60:
        parser.error("--think from 0 to 60 seconds")
    asyncio.run(bench(args.tables, args.seconds, args.think, args.database_url))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
