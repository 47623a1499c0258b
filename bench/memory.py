"""What one `cardtable serve` process holds: finished tables, and idle WebSockets.

Run ``python bench/memory.py`` (both parts) or ``--part finished`` / ``--part sockets``.

**Finished tables** (``--finished 100 10000``): one server (SQLite in a temporary
directory, ``CARDTABLE_BOT_DELAY=0``, collector as ``--gc`` says, default ``tuned``;
finished tables evicted ``--evict-finished`` seconds after their match, default 1 s, the
server's own default being 60 s: with a short delay the tables waiting for eviction are
about as many at the last checkpoint as at the first, so what is compared is what stays,
not the backlog of a fast run).  Tables against the computer are played to the end,
``--concurrency`` at a time: one hand of Gin (``target`` 1), seat 0 a normal Gin bot of
this process through ``cardtable.client``, seat 1 the server's own computer; the socket
is closed when the match is over.  At each checkpoint (after 100 tables, then after
10,000 in all) the bench waits for the finished tables to leave memory (until the
server's count of live ``Table`` objects, taken after a full collection, is 0 or stops
falling, at most ``--settle`` seconds) and reads the server's resident memory (``VmRSS``,
and ``VmHWM``, the most it ever had), its tracked objects, ``sys.getallocatedblocks()``
(every live Python object, tracked or not: a leak of objects shows there) and that count,
plus the full collections the server ran by itself.  With eviction the resident memory
after 10,000 tables should be within 10% of the figure after 100.

**Idle WebSockets** (``--sockets 10000``): a fresh server; ``N/2`` friend tables of two
seats are created and joined over HTTP (turn timers off: nothing moves), then
``--clients`` processes of this bench open the ``N`` seats' sockets (each says hello and
gets its snapshot) and keep them open, idle.  Resident memory before and after the
sockets gives KiB per idle WebSocket (the server side: its connection objects, the
socket buffers of the kernel are not in ``VmRSS``); the total is checked against 1 GiB.
The open-file limit is raised for the server and the clients (they inherit it).

``--hog N`` runs N busy processes beside each part (``bench/hog.py``), like a loaded
machine; the load average at the end of each part is printed under its table.

Figures of record: docs/benchmarks.md ("Long uptime").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hog
from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Connection, Seat, play
from server import gc_figures, raise_open_files, rss_kib, server_process

GIB = 1024 * 1024  # KiB
OWN_PASSES = 0  # full collections the bench asked the server for (SIGUSR2)


@dataclass
class Checkpoint:
    label: str
    tables: int
    rss_kib: int
    peak_kib: int  # VmHWM: the most resident memory so far
    tracked: int
    blocks: int  # sys.getallocatedblocks(): every live object's memory block, of all kinds
    live_tables: int
    waited: float
    full_passes: int = 0  # the server's full collections so far (the bench's own included)


async def settle(pid: int, data_dir: Path, least: float,
                 limit: float) -> tuple[dict[str, Any], float]:
    """Wait ``least`` seconds (the eviction delay and a sweep), then until the server's
    count of live tables is 0 or stops falling, at most ``limit`` seconds in all.  Each
    look is a full collection and a census (``SIGUSR2``), counted in ``OWN_PASSES``."""
    global OWN_PASSES
    started = time.monotonic()
    await asyncio.sleep(min(least, limit))
    figures = await gc_figures(pid, data_dir, collect=True)
    OWN_PASSES += 1
    while figures.get("tables", 0) and time.monotonic() - started < limit:
        await asyncio.sleep(3)
        later = await gc_figures(pid, data_dir, collect=True)
        OWN_PASSES += 1
        falling = later.get("tables", 0) < figures.get("tables", 0)
        figures = later
        if not falling:
            break
    return figures, time.monotonic() - started


async def play_one(client: Client, errors: list[BaseException]) -> None:
    try:
        seat = await client.create_table("gin", {"target": 1}, opponent="computer", name="Ann")
        conn = client.connect(seat)
        await conn.open()
        try:
            await play(conn, choose)
        finally:
            await conn.close()
    except Exception as error:  # counted and shown; the run goes on
        errors.append(error)


async def finished_part(checkpoints: list[int], concurrency: int, evict_finished: float,
                        settle_limit: float, gc_mode: str,
                        console: Console) -> list[Checkpoint]:
    out: list[Checkpoint] = []
    errors: list[BaseException] = []
    with tempfile.TemporaryDirectory(prefix="cardtable-memory-") as tmp:
        data = Path(tmp)
        env = {"CARDTABLE_EVICT_FINISHED": f"{evict_finished:g}"}
        # the sweeper looks every quarter of the delay (registry.sweep_interval)
        least = evict_finished * 1.25 + 2
        with server_process(data, None, gc_mode, extra_env=env) as (base_url, pid):
            first, _ = await settle(pid, data, 0, 0)
            out.append(Checkpoint("started", 0, rss_kib(pid), rss_kib(pid, "VmHWM"),
                                  first["tracked"], first["blocks"], first.get("tables", 0),
                                  0.0))
            played = 0
            async with Client(base_url, frame_rate=None, timeout=60) as client:
                columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TextColumn("{task.fields[note]}"))
                with Progress(*columns, console=console, transient=True) as progress:
                    bar = progress.add_task("tables played", total=checkpoints[-1], note="")
                    gate = asyncio.Semaphore(concurrency)
                    for goal in checkpoints:

                        async def one() -> None:
                            async with gate:
                                await play_one(client, errors)
                            progress.advance(bar)

                        await asyncio.gather(*(one() for _ in range(goal - played)))
                        played = goal
                        progress.update(bar, note=f"waiting for eviction ({len(errors)} errors)")
                        plain = await gc_figures(pid, data)
                        passes = plain["generations"][2]["passes"] - OWN_PASSES
                        figures, waited = await settle(pid, data, least, settle_limit)
                        progress.update(bar, note="")
                        out.append(Checkpoint(f"after {goal:,} tables", goal, rss_kib(pid),
                                              rss_kib(pid, "VmHWM"), figures["tracked"],
                                              figures["blocks"], figures.get("tables", 0),
                                              waited, passes))
                        console.print(f"{goal:,} tables played: RSS {out[-1].rss_kib / 1024:,.0f}"
                                      f" MiB, {out[-1].live_tables:,} tables in memory")
    if errors:
        console.print(f"[red]{len(errors)} tables failed; first: {errors[0]!r}[/red]")
    return out


# -- idle sockets ---------------------------------------------------------------------------


def hold_sockets(ws_base: str, seats: list[Seat], pipe: Pipe, limit: int) -> None:
    """A client process: open these seats' sockets, say so, hold them until told."""
    raise_open_files(len(seats) + 200)

    async def main() -> None:
        gate = asyncio.Semaphore(50)
        conns: list[Connection] = []

        async def open_one(seat: Seat) -> None:
            async with gate:
                conn = Connection(f"{ws_base}/ws/{seat.table_id}", seat, give_up_after=120)
                await conn.open()
                conns.append(conn)

        results = await asyncio.gather(*(open_one(s) for s in seats), return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        pipe.send(("open", len(conns), repr(failed[0]) if failed else ""))
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, pipe.recv)  # "close"
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)

    asyncio.run(main())
    pipe.send(("closed", 0, ""))


async def sockets_part(count: int, clients: int, console: Console) -> dict[str, Any]:
    raise_open_files(count + 1000)
    with tempfile.TemporaryDirectory(prefix="cardtable-sockets-") as tmp:
        data = Path(tmp)
        with server_process(data, None) as (base_url, pid):
            started_kib = rss_kib(pid)
            seats: list[Seat] = []
            async with Client(base_url, frame_rate=None, timeout=60) as client:
                gate = asyncio.Semaphore(50)
                with Progress(TextColumn("{task.description}"), BarColumn(),
                              MofNCompleteColumn(), console=console, transient=True) as progress:
                    bar = progress.add_task("tables created and joined", total=count // 2)

                    async def one() -> None:
                        async with gate:
                            ann = await client.create_table("gin", opponent="friend",
                                                            name="Ann",
                                                            settings={"turn_time": 0})
                            bob = await client.join(ann.code, "Bob")
                            seats.extend((ann, bob))
                        progress.advance(bar)

                    await asyncio.gather(*(one() for _ in range(count // 2)))
            await asyncio.sleep(2)
            tables_kib = rss_kib(pid)
            ws_base = base_url.replace("http://", "ws://", 1)
            random.shuffle(seats)
            share = [seats[i::clients] for i in range(clients)]
            context = multiprocessing.get_context("spawn")
            pipes, processes = [], []
            opened_at = time.monotonic()
            for part in share:
                mine, theirs = context.Pipe()
                process = context.Process(target=hold_sockets,
                                          args=(ws_base, part, theirs, count), daemon=True)
                process.start()
                pipes.append(mine)
                processes.append(process)
            opened, problems = 0, []
            with console.status(f"opening {count:,} WebSockets from {clients} processes"):
                for pipe in pipes:
                    _, n, problem = await asyncio.get_running_loop().run_in_executor(
                        None, pipe.recv)
                    opened += n
                    if problem:
                        problems.append(problem)
            opening = time.monotonic() - opened_at
            await asyncio.sleep(5)  # settled: every hello answered, buffers drained
            sockets_kib = rss_kib(pid)
            figures = await gc_figures(pid, data)
            for pipe in pipes:
                pipe.send("close")
            for process in processes:
                process.join(60)
    if problems:
        console.print(f"[red]{count - opened:,} sockets failed; first: {problems[0]}[/red]")
    return {"sockets": opened, "started_kib": started_kib, "tables_kib": tables_kib,
            "sockets_kib": sockets_kib, "per_socket_kib": (sockets_kib - tables_kib) / opened,
            "opening_s": opening, "tracked": figures["tracked"], "tables": count // 2}


def report_finished(points: list[Checkpoint], evict_finished: float, gc_mode: str,
                    console: Console) -> None:
    table = Table(title="resident memory as finished tables pile up (one process, SQLite, "
                        f"gc {gc_mode})")
    for name in ("checkpoint", "tables played", "RSS MiB", "vs first checkpoint",
                 "peak RSS MiB", "tracked objects", "allocated blocks", "tables in memory",
                 "waited s", "server's full GCs"):
        table.add_column(name, justify="left" if name == "checkpoint" else "right")
    base = points[1].rss_kib if len(points) > 1 else points[0].rss_kib
    for p in points:
        table.add_row(p.label, f"{p.tables:,}", f"{p.rss_kib / 1024:,.1f}",
                      f"{p.rss_kib / base - 1:+.1%}" if p.tables else "",
                      f"{p.peak_kib / 1024:,.1f}", f"{p.tracked:,}", f"{p.blocks:,}",
                      f"{p.live_tables:,}", f"{p.waited:.0f}", f"{p.full_passes:,}")
    console.print(table)
    console.print(f"Finished tables evicted {evict_finished:g} s after the match "
                  "(CARDTABLE_EVICT_FINISHED); 'tables in memory' counts the server's live "
                  "Table objects (gc census).")


def report_sockets(r: dict[str, Any], console: Console) -> None:
    table = Table(title="idle WebSockets in one server process")
    for name in ("sockets", "tables", "RSS started MiB", "RSS with tables MiB",
                 "RSS with sockets MiB", "KiB per socket", "under 1 GiB", "opened in s"):
        table.add_column(name, justify="right")
    table.add_row(f"{r['sockets']:,}", f"{r['tables']:,}", f"{r['started_kib'] / 1024:,.0f}",
                  f"{r['tables_kib'] / 1024:,.0f}", f"{r['sockets_kib'] / 1024:,.0f}",
                  f"{r['per_socket_kib']:.1f}", "yes" if r["sockets_kib"] < GIB else "NO",
                  f"{r['opening_s']:.0f}")
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--part", choices=("both", "finished", "sockets"), default="both")
    parser.add_argument("--finished", type=int, nargs="+", default=[100, 10_000], metavar="N",
                        help="checkpoints: tables played in all (default: 100 10000)")
    parser.add_argument("--concurrency", type=int, default=50, metavar="C",
                        help="tables played at once (default: 50)")
    parser.add_argument("--evict-finished", type=float, default=1.0, metavar="S",
                        help="CARDTABLE_EVICT_FINISHED for the run (default: 1 s)")
    parser.add_argument("--settle", type=float, default=120.0, metavar="S",
                        help="longest wait for evictions at a checkpoint (default: 120 s)")
    parser.add_argument("--gc", default="tuned", metavar="MODE",
                        help="the server's CARDTABLE_GC (default: tuned)")
    parser.add_argument("--sockets", type=int, default=10_000, metavar="N",
                        help="idle WebSockets to open (default: 10000)")
    parser.add_argument("--clients", type=int, default=4, metavar="K",
                        help="client processes holding them (default: 4)")
    hog.add_argument(parser)
    args = parser.parse_args(argv)
    hog.check(parser, args.hog)
    if sorted(args.finished) != args.finished or args.finished[0] < 1 \
            or args.finished[-1] > 50_000:
        parser.error("--finished: increasing counts from 1 to 50,000")
    if not 2 <= args.sockets <= 15_000 or not 1 <= args.clients <= 16:
        parser.error("--sockets from 2 to 15,000, --clients from 1 to 16")
    if not 1 <= args.concurrency <= 500:
        parser.error("--concurrency from 1 to 500")
    console = Console(width=None if sys.stdout.isatty() else 130)
    if args.part in ("both", "finished"):
        with hog.hog(args.hog):
            points = asyncio.run(finished_part(args.finished, args.concurrency,
                                               args.evict_finished, args.settle, args.gc,
                                               console))
            load = hog.load_note(args.hog)
        report_finished(points, args.evict_finished, args.gc, console)
        console.print(f"finished tables: {load}")
    if args.part in ("both", "sockets"):
        with hog.hog(args.hog):
            result = asyncio.run(sockets_part(args.sockets, args.clients, console))
            load = hog.load_note(args.hog)
        report_sockets(result, console)
        console.print(f"idle sockets: {load}")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
