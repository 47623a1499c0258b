"""Three parts of the scale-out benchmark (``bench/cluster.py``), each with its report:
throughput of 1-3 processes, forwarded against local commands, idle sockets (failover
after kill -9 is ``cluster_failover.py``)."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# The card room comes from the tests' harness (tests/cluster_harness.py).
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))

import redis.asyncio as aioredis
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from cardtable.client import Client, ClientError, Connection
from cluster_harness import Cluster
from cluster_room import (
    LoadGenerators,
    WindowFigures,
    card_room,
    each,
    field_of,
    health,
    healths,
    measured_window,
    ms,
    node_pids,
    progress_bar,
    show_troubles,
)
from server import raise_open_files, rss_kib

# -- throughput and latency of 1, 2, 3 processes ----------------------------------------------


@dataclass
class Step:
    """One table count of one variant of the room."""

    variant: str
    processes: int
    tables: int
    figures: WindowFigures
    owned: list[int | None]  # tables in memory per process (/api/health; None: no answer)
    open_failed: int
    open_seconds: float
    warnings: int  # new trouble lines in the processes' logs


def variant_name(processes: int, single: bool) -> str:
    return "single, no Redis" if single else f"cluster of {processes}"


async def throughput_part(args: argparse.Namespace, console: Console) -> list[Step]:
    variants = ([(1, True)] if args.single else []) + [(n, False) for n in args.processes]
    plan = [v for _ in range(args.repeat) for v in variants]
    steps: list[Step] = []
    for processes, single in plan:
        name = variant_name(processes, single)
        console.print(f"[bold]{name}[/bold]: starting")
        with card_room(args, processes, single=single) as room:
            async with LoadGenerators(args.clients, args.think, room.tmp_dir) as load:
                opened = seen = 0
                for count in sorted(args.tables):
                    began = time.perf_counter()
                    with console.status(f"{name}: opening tables {opened + 1:,}-{count:,}"):
                        _, failed = await load.open(room.base_url, count - opened)
                    if failed:
                        console.print(f"[red]{len(failed)} tables failed to open: "
                                      f"{failed[0]}[/red]")
                    opening = time.perf_counter() - began
                    opened = count
                    await asyncio.sleep(args.warmup)
                    with progress_bar(console) as progress:
                        figures = await measured_window(room, load, args.seconds, progress,
                                                        f"{name}, {count:,} tables")
                    owned = field_of(await healths(room), "tables")
                    warned, seen = seen, show_troubles(room, seen, console)
                    step = Step(name, processes, count, figures, owned, len(failed), opening,
                                seen - warned)
                    steps.append(step)
                    console.print(f"{name}, {count:,} tables: {figures.rate:,.0f} actions/s, "
                                  f"p99 {ms(figures.p(0.99))} ms, client CPU "
                                  f"{sum(figures.client_cpu):.0%}, tables per process "
                                  f"{each(owned)}")
                    if figures.errors:
                        console.print(f"[red]{figures.stopped} bots stopped: "
                                      f"{figures.errors[0]}[/red]")
    report_throughput(steps, args, console)
    return steps


def report_throughput(steps: list[Step], args: argparse.Namespace, console: Console) -> None:
    table = Table(title=f"throughput and latency: friend tables of two normal Gin bots, "
                        f"{args.think:g} s think, {args.seconds:g} s windows, "
                        f"{args.clients} load generator(s), {args.proxy} in front")
    for name in ("room", "tables", "actions/s", "p50 ms", "p99 ms", "max ms", "servers CPU",
                 "ms CPU/action", "proxy CPU", "Redis CPU", "clients CPU"):
        table.add_column(name, no_wrap=True, justify="left" if name == "room" else "right")
    for s in steps:
        f = s.figures
        per_action = 1000 * sum(f.server_cpu) / f.rate if f.actions else float("nan")
        table.add_row(
            s.variant, f"{s.tables:,}", f"{f.rate:,.0f}", ms(f.p(0.5)), ms(f.p(0.99)),
            ms(f.p(1.0)), f"{sum(f.server_cpu):.0%}", ms(per_action), f"{f.proxy_cpu:.0%}",
            f"{f.redis_cpu:.0%}", " + ".join(f"{c:.0%}" for c in f.client_cpu))
    console.print(table)
    health = Table(title="the same windows, process by process, and what went wrong")
    for name in ("room", "tables", "CPU each", "tables each", "refused", "bots stopped",
                 "open failed", "open s", "log warnings"):
        health.add_column(name, no_wrap=True,
                          justify="left" if name in ("room", "CPU each") else "right")
    for s in steps:
        f = s.figures
        health.add_row(s.variant, f"{s.tables:,}", " ".join(f"{c:.0%}" for c in f.server_cpu),
                       each(s.owned), f"{f.refused}", f"{f.stopped}", f"{s.open_failed}",
                       f"{s.open_seconds:.0f}", f"{s.warnings}")
    console.print(health)
    groups: dict[tuple[str, int], list[Step]] = {}
    for s in steps:
        groups.setdefault((s.variant, s.tables), []).append(s)
    if any(len(g) > 1 for g in groups.values()):
        medians = Table(title="medians of the repeated runs (variants interleaved)")
        for name in ("room", "tables", "runs", "actions/s", "p50 ms", "p99 ms", "server CPU",
                     "client CPU"):
            medians.add_column(name, justify="left" if name == "room" else "right")
        for (variant, tables), runs in groups.items():
            def med(f: Callable[[WindowFigures], float], rs: list[Step] = runs) -> float:
                return statistics.median(f(r.figures) for r in rs)
            medians.add_row(variant, f"{tables:,}", f"{len(runs)}",
                            f"{med(lambda f: f.rate):,.0f}", ms(med(lambda f: f.p(0.5))),
                            ms(med(lambda f: f.p(0.99))),
                            f"{med(lambda f: sum(f.server_cpu)):.0%}",
                            f"{med(lambda f: sum(f.client_cpu)):.0%}")
        console.print(medians)
    console.print("Latency: from an action sent to the opponent's view of it received. CPU "
                  "(servers: all the room's processes, each: per process; proxy; Redis: the "
                  "machine's one Redis, from INFO; clients: each load generator) in "
                  "core-seconds per second; ms CPU/action: the servers' per action. Tables "
                  "each: tables in memory in each process (/api/health), i.e. owned there. "
                  "Refused: moves answered with an error; stopped: bots that gave up (a "
                  "connection lost for good, or a move unanswered for 30 s); open failed: "
                  "tables that could not be created or joined; log warnings: new lines "
                  "saying something went wrong in the processes' logs.")


# -- forwarded against local commands ---------------------------------------------------------


@dataclass
class Round:
    where: str  # "local" or "forwarded"
    figures: WindowFigures
    moved: int  # tables not owned by process 0 at the end of the round


async def owners_of(room: Cluster, table_ids: list[str]) -> list[str | None]:
    """The node holding each table's lease now."""
    async with aioredis.Redis.from_url(room.redis_url, decode_responses=True) as client:
        values = await client.mget([f"{room.redis_prefix}:lease:{t}" for t in table_ids])
    return [v.rpartition(":")[0] if v else None for v in values]


async def forwarding_part(args: argparse.Namespace, console: Console) -> list[Round]:
    rounds: list[Round] = []
    with card_room(args, 2) as room:
        first = await health(room, 0)
        assert first is not None, "process 0 does not answer its health check"
        owner = first["node"]
        async with LoadGenerators(1, args.forward_think, room.tmp_dir) as load:
            with console.status(f"opening {args.forward_tables} tables on process 0"):
                table_ids, failed = await load.open(room.node_url(0), args.forward_tables)
            if failed:
                console.print(f"[red]{len(failed)} tables failed to open: {failed[0]}[/red]")
            where = "local"
            for i in range(2 * args.forward_rounds):
                where = "local" if i % 2 == 0 else "forwarded"
                if i:
                    await load.all({"do": "reconnect",
                                    "base": room.node_url(0 if where == "local" else 1)})
                await asyncio.sleep(args.warmup)
                with progress_bar(console) as progress:
                    figures = await measured_window(room, load, args.forward_seconds, progress,
                                                    f"round {i + 1}: {where}")
                owners = await owners_of(room, table_ids)
                moved = sum(o != owner for o in owners)
                rounds.append(Round(where, figures, moved))
                show_troubles(room, 0, console)
                console.print(f"round {i + 1} ({where}): p50 {ms(figures.p(0.5))} ms, p99 "
                              f"{ms(figures.p(0.99))} ms, {figures.rate:,.0f} actions/s"
                              + (f", [red]{moved} tables moved[/red]" if moved else ""))
    report_forwarding(rounds, args, console)
    return rounds


def report_forwarding(rounds: list[Round], args: argparse.Namespace, console: Console) -> None:
    table = Table(title=f"forwarded against local: {args.forward_tables} friend tables on "
                        f"process 0 of 2, {args.forward_think:g} s think, "
                        f"{args.forward_seconds:g} s rounds")
    for name in ("round", "sockets on", "actions/s", "p50 ms", "p99 ms", "max ms",
                 "owner CPU", "other CPU", "Redis CPU", "refused", "moved"):
        table.add_column(name, justify="left" if name == "sockets on" else "right")
    for i, r in enumerate(rounds, 1):
        f = r.figures
        table.add_row(f"{i}", "process 0 (local)" if r.where == "local" else
                      "process 1 (forwarded)", f"{f.rate:,.0f}", ms(f.p(0.5)),
                      ms(f.p(0.99)), ms(f.p(1.0)), f"{f.server_cpu[0]:.0%}",
                      f"{f.server_cpu[1]:.0%}", f"{f.redis_cpu:.0%}", f"{f.refused}",
                      f"{r.moved}")
    console.print(table)
    summary = Table(title="medians of the rounds")
    for name in ("", "p50 ms", "p99 ms", "CPU of both processes"):
        summary.add_column(name, justify="left" if not name else "right")
    med: dict[str, tuple[float, float, float]] = {}
    for where in ("local", "forwarded"):
        mine = [r.figures for r in rounds if r.where == where]
        med[where] = (statistics.median(f.p(0.5) for f in mine),
                      statistics.median(f.p(0.99) for f in mine),
                      statistics.median(sum(f.server_cpu) for f in mine))
        summary.add_row(where, ms(med[where][0]), ms(med[where][1]), f"{med[where][2]:.0%}")
    local, forwarded = med["local"], med["forwarded"]
    summary.add_row("forwarded − local", ms(forwarded[0] - local[0]),
                    ms(forwarded[1] - local[1]), f"{forwarded[2] - local[2]:+.0%}")
    console.print(summary)


# -- idle sockets -----------------------------------------------------------------------------


@dataclass
class IdleFigures:
    sockets: list[int | None]
    rss_before: list[float]  # MiB per process, tables made, no sockets
    rss_after: list[float]
    proxy_before: float
    proxy_after: float
    opened: int
    failed: int
    opening_seconds: float
    first_error: str


async def idle_part(args: argparse.Namespace, console: Console) -> IdleFigures:
    raise_open_files(args.idle + 2000)
    tables = -(-args.idle // args.idle_per_table)
    with card_room(args, 3) as room:
        pids = node_pids(room)
        assert room.proxy is not None and room.proxy.process is not None
        proxy_pid = room.proxy.process.pid
        async with Client(room.base_url, frame_rate=None, timeout=60) as client:
            ids = [(await client.create_table("gin", opponent="friend", name="Ann",
                                              settings={"turn_time": 0})).table_id
                   for _ in range(tables)]
        await asyncio.sleep(2)
        before = [rss_kib(p) / 1024 for p in pids]
        proxy_before = rss_kib(proxy_pid) / 1024
        gate = asyncio.Semaphore(100)
        conns: list[Connection] = []
        errors: list[BaseException] = []
        began = time.perf_counter()
        columns = (TextColumn("idle spectator sockets"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=console, transient=True) as progress:
            bar = progress.add_task("open", total=args.idle)

            async def one(table_id: str) -> None:
                async with gate:
                    conn = Connection(f"{room.ws_base}/ws/{table_id}", None, give_up_after=60)
                    try:
                        await conn.open()
                    except (ClientError, OSError, TimeoutError) as error:
                        errors.append(error)
                    else:
                        conns.append(conn)
                progress.advance(bar)

            await asyncio.gather(*(one(ids[i % tables]) for i in range(args.idle)))
        opening = time.perf_counter() - began
        await asyncio.sleep(5)  # every hello answered, every buffer drained
        figures = IdleFigures(field_of(await healths(room), "sockets"), before,
                              [rss_kib(p) / 1024 for p in pids], proxy_before,
                              rss_kib(proxy_pid) / 1024, len(conns), len(errors), opening,
                              repr(errors[0]) if errors else "")
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    report_idle(figures, args, console)
    return figures


def report_idle(f: IdleFigures, args: argparse.Namespace, console: Console) -> None:
    table = Table(title=f"{f.opened:,} idle spectator sockets through {args.proxy}, "
                        f"{args.idle_per_table} to a table, 3 processes")
    for name in ("process", "sockets", "RSS before MiB", "RSS after MiB", "KiB per socket"):
        table.add_column(name, justify="left" if name == "process" else "right")
    for i, (n, b, a) in enumerate(zip(f.sockets, f.rss_before, f.rss_after, strict=True)):
        per = f"{(a - b) * 1024 / n:.1f}" if n else "-"
        table.add_row(f"{i}", "?" if n is None else f"{n:,}", f"{b:,.0f}", f"{a:,.0f}", per)
    grown = sum(f.rss_after) - sum(f.rss_before)
    counted = sum(n or 0 for n in f.sockets)
    table.add_row("all", f"{counted:,}", f"{sum(f.rss_before):,.0f}",
                  f"{sum(f.rss_after):,.0f}",
                  f"{grown * 1024 / f.opened:.1f}" if f.opened else "-")
    table.add_row(args.proxy, "", f"{f.proxy_before:,.0f}", f"{f.proxy_after:,.0f}",
                  f"{(f.proxy_after - f.proxy_before) * 1024 / f.opened:.1f}"
                  if f.opened else "-")
    console.print(table)
    console.print(f"Opened in {f.opening_seconds:.1f} s; {f.failed} failed"
                  f"{' (' + f.first_error + ')' if f.failed else ''}. A spectator held by "
                  "one process of a table owned by another costs memory on both (the "
                  "socket where it is held, a remote connection on the owner): KiB per "
                  "socket on the 'all' line is the room's growth over the sockets.")
