"""Scale-out figures (issue 15): several ``cardtable serve`` processes as one card room.

Run ``python bench/cluster.py`` (every part) or ``--part failover throughput forwarding
idle`` (some).  Every part starts its own card room with ``tests/cluster_harness.py``:
N processes sharing a fresh PostgreSQL database and the local Redis (a key prefix of
their own), behind HAProxy (``--proxy nginx`` for nginx; its health checks wait 2 s for
an answer, as in production), ``CARDTABLE_BOT_DELAY=0``, the per-connection frame limit
and the per-address join limit lifted (every bot comes from 127.0.0.1).  ``--logs DIR``
keeps every process's log.  The parts:

* **failover**: 3 processes, ``--failover-tables`` tables of one client seat (a
  gin_simple bot of this process, playing through the proxy, ``--failover-think`` s
  before each move) against the server's computer.  ``--kills`` times: pick a table, find
  its owner (the Redis lease ``{prefix}:lease:{table}`` names a node; each process's
  ``/api/health`` says which node it is), ``kill -9`` it, and time until that table's
  client receives its next acknowledged move (``cardtable.client`` reconnects by itself
  through the proxy); the same for every other table the killed process owned; then
  start it again.  The lease lasts ``--lease-ttl`` s (the server's default, 3).
* **throughput**: actions per second and the latency from an action sent to the
  opponent's view received (``bench/server.py``'s measure: friend tables of *two client
  seats*, both gin_simple bots, ``--think`` s before each move) at each of ``--tables``
  for a card room of each of ``--processes`` processes, and for one process without
  Redis (plain single-process mode, behind the same proxy, on the same PostgreSQL) for
  reference.  The tables of one variant are opened in steps on one card room (1,000,
  then 1,000 more) and keep playing; each step is measured over ``--seconds``.  The bots
  run in ``--clients`` load-generating processes of their own (this file with
  ``--load-worker``), each with its share of the tables.  CPU (core-seconds per second)
  of the server processes, the proxy, Redis (its ``INFO``; the machine's one Redis) and
  the load generators shows who had the two cores.
* **forwarding**: 2 processes; ``--forward-tables`` tables created on process 0 (which
  owns them).  In alternating rounds every seat's socket is connected to process 0
  (local: the actor is in the process holding the socket) or to process 1 (forwarded:
  each frame goes over Redis pub/sub to the owner and every view comes back the same
  way); p50 / p99 of each round, medians and their difference.
* **idle**: ``--idle`` spectator sockets, ``--idle-per-table`` to a table, opened through
  the proxy to 3 processes and held; sockets per process (``/api/health``), the total,
  and each process's resident memory before and after.

Figures of record: docs/benchmarks.md ("Scale-out").
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The card room comes from the tests' harness (tests/cluster_harness.py).
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))

import httpx
import redis.asyncio as aioredis
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from cardtable.bots.gin_simple import choose
from cardtable.client import ActionRefused, Client, ClientError, Connection, Seat
from cardtable.server import gc_tuning
from cluster_harness import Cluster, unavailable
from server import OPTIONS, BenchTable, Tally, cpu_seconds, raise_open_files, rss_kib

PARTS = ("failover", "throughput", "forwarding", "idle")
WORKER_FLAG = "--load-worker"
SERVER_ENV = {"CARDTABLE_FRAME_RATE": "100000", "CARDTABLE_JOIN_LIMIT": "1000000"}
OPEN_AT_ONCE = 50  # tables being created and joined at once by one load generator
MAX_TABLES = 4000
# What a process logs when something went wrong (warnings of cardtable.cluster, uvicorn's
# errors, tracebacks); the rest of its log is the start-up lines.
TROUBLE = re.compile(r"warning|error|traceback|exception|cannot|could not|gone|lost", re.I)
NEVER = float("inf")


def percentile(samples: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) in milliseconds of samples in seconds."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(value: float) -> str:
    return "-" if value != value else f"{value:,.1f}"  # NaN: no samples


@contextlib.contextmanager
def scratch(keep: Path | None) -> Iterator[Path]:
    """A directory for a room's logs: deleted afterwards, or a new one kept under ``keep``."""
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="cardtable-cluster-bench-") as tmp:
            yield Path(tmp)
    else:
        keep.mkdir(parents=True, exist_ok=True)
        yield Path(tempfile.mkdtemp(prefix="room-", dir=keep))


@contextlib.contextmanager
def card_room(args: argparse.Namespace, processes: int, *, single: bool = False,
              lease_ttl: float = 3.0) -> Iterator[Cluster]:
    """A started card room (``args.proxy`` in front, logs kept under ``args.logs`` if
    given); ``single``: one process without Redis (plain single-process mode) behind the
    same proxy."""
    env = dict(SERVER_ENV)
    if single:
        env["REDIS_URL"] = ""  # an empty REDIS_URL is no cluster
    with scratch(args.logs) as tmp:
        room = Cluster(tmp, processes=processes, proxy=args.proxy, env=env,
                       lease_ttl=lease_ttl)
        room.start()
        try:
            yield room
        finally:
            room.close()


def node_pids(room: Cluster) -> list[int]:
    pids = []
    for node in room.nodes:
        assert node.process is not None
        pids.append(node.process.pid)
    return pids


async def health(room: Cluster, i: int) -> dict[str, Any] | None:
    """Process ``i``'s ``/api/health``, or None when it does not answer within 5 s (a
    process saturated by the load)."""
    try:
        return await asyncio.to_thread(room.health, i)
    except httpx.HTTPError:
        return None


async def healths(room: Cluster) -> list[dict[str, Any] | None]:
    return list(await asyncio.gather(*(health(room, i) for i in range(room.processes))))


def field_of(answers: list[dict[str, Any] | None], name: str) -> list[int | None]:
    return [None if a is None else a[name] for a in answers]


def each(values: list[int | None]) -> str:
    return "/".join("?" if v is None else f"{v}" for v in values)


def trouble_lines(room: Cluster) -> list[str]:
    """Lines of the processes' logs that say something went wrong, each with its process."""
    return [f"process {i}: {line.strip()}" for i in range(room.processes)
            for line in room.output(i).splitlines() if TROUBLE.search(line)]


def show_troubles(room: Cluster, seen: int, console: Console) -> int:
    """Print how many new trouble lines the logs have since ``seen``, and the first;
    returns how many there are now."""
    lines = trouble_lines(room)
    if len(lines) > seen:
        console.print(f"[yellow]{len(lines) - seen} new warnings in the processes' logs; "
                      f"first: {lines[seen][:300]}[/yellow]")
    return len(lines)


# -- the load generators: processes of their own ----------------------------------------------


class LoadWorker:
    """One load-generating process: friend tables of two gin_simple bots (``BenchTable``
    of bench/server.py), told what to do on stdin, one JSON line per command, and
    answering on stdout (``{"done": ...}``; ``{"progress": n}`` lines while measuring)."""

    def __init__(self, think: float):
        self.think = think
        self.tally = Tally(start=NEVER)  # nothing counts outside a window
        self.seats: list[tuple[BenchTable, Seat]] = []
        self.conns: list[tuple[BenchTable, Connection]] = []
        self.bots: list[asyncio.Task[None]] = []
        self.frozen = False

    async def connect(self, ws_base: str, table: BenchTable, seat: Seat) -> Connection:
        conn = Connection(f"{ws_base}/ws/{seat.table_id}", seat,
                          on_frame=table.observer(seat.seat), give_up_after=120)
        await conn.open()
        return conn

    def start_bots(self, conns: list[tuple[BenchTable, Connection]]) -> None:
        self.bots += [asyncio.create_task(table.seat_loop(conn)) for table, conn in conns]

    async def open(self, base_url: str, count: int) -> dict[str, Any]:
        """Create ``count`` tables through ``base_url``, connect both seats there and
        start their bots at once."""
        ws_base = "ws" + base_url.removeprefix("http")
        gate = asyncio.Semaphore(OPEN_AT_ONCE)
        opened: list[str] = []
        # The HTTP client goes when the tables are made: its kept-alive connections would
        # count against the proxy's connection limit next to the sockets.
        async with Client(base_url, frame_rate=None, timeout=60) as client:
            async def one() -> None:
                async with gate:
                    ann = await client.create_table("gin", OPTIONS, opponent="friend",
                                                    name="Ann")
                    bob = await client.join(ann.code, "Bob")
                    table = BenchTable(self.tally, self.think)
                    pairs = [(table, await self.connect(ws_base, table, s)) for s in (ann, bob)]
                    self.seats += [(table, ann), (table, bob)]
                    self.conns += pairs
                    self.start_bots(pairs)
                    opened.append(ann.table_id)

            results = await asyncio.gather(*(one() for _ in range(count)),
                                           return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        if not self.frozen:  # what this process holds now is never garbage
            gc_tuning.apply()
            self.frozen = True
        return {"tables": len(self.seats) // 2, "failed": len(failed),
                "error": repr(failed[0]) if failed else "",
                "ids": opened}

    async def reconnect(self, base_url: str) -> dict[str, Any]:
        """Stop the bots, and connect every seat again, through ``base_url`` now."""
        for bot in self.bots:
            bot.cancel()
        await asyncio.gather(*self.bots, return_exceptions=True)
        await asyncio.gather(*(conn.close() for _, conn in self.conns), return_exceptions=True)
        self.bots, self.conns = [], []
        ws_base = "ws" + base_url.removeprefix("http")
        gate = asyncio.Semaphore(OPEN_AT_ONCE)

        async def one(table: BenchTable, seat: Seat) -> tuple[BenchTable, Connection]:
            async with gate:
                return table, await self.connect(ws_base, table, seat)

        self.conns = list(await asyncio.gather(*(one(t, s) for t, s in self.seats)))
        self.start_bots(self.conns)
        return {"tables": len(self.seats) // 2}

    async def window(self, seconds: float) -> dict[str, Any]:
        """Measure ``seconds`` of play; this process's collector is off meanwhile (its
        pauses would count as the servers' latency)."""
        tally = self.tally
        tally.actions = tally.refused = 0
        tally.latencies = []
        gc.disable()
        cpu0 = time.process_time()
        tally.start, tally.end = time.perf_counter(), NEVER
        while (elapsed := time.perf_counter() - tally.start) < seconds:
            await asyncio.sleep(min(0.5, seconds - elapsed))
            print(json.dumps({"progress": tally.actions}), flush=True)
        tally.end = time.perf_counter()
        cpu = time.process_time() - cpu0
        await asyncio.sleep(0.5)  # views of the window's last actions still on their way
        gc.enable()
        stopped = [b for b in self.bots if b.done() and not b.cancelled() and b.exception()]
        return {"seconds": tally.end - tally.start, "actions": tally.actions,
                "refused": tally.refused, "latencies": tally.latencies, "cpu": cpu,
                "stopped": len(stopped),
                "error": repr(stopped[0].exception()) if stopped else ""}

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command = json.loads(line)
            match command["do"]:
                case "open":
                    answer = await self.open(command["base"], command["count"])
                case "reconnect":
                    answer = await self.reconnect(command["base"])
                case "window":
                    answer = await self.window(command["seconds"])
                case _:
                    break
            print(json.dumps({"done": command["do"], **answer}), flush=True)
        for bot in self.bots:
            bot.cancel()
        await asyncio.gather(*self.bots, return_exceptions=True)
        await asyncio.gather(*(conn.close() for _, conn in self.conns), return_exceptions=True)


def worker_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"cluster.py {WORKER_FLAG}")
    parser.add_argument("--think", type=float, default=2.0)
    args = parser.parse_args(argv)
    raise_open_files(20000)
    asyncio.run(LoadWorker(args.think).serve())
    return 0


@dataclass
class WindowFigures:
    """One measured window of every load generator, and what the servers spent."""

    seconds: float
    actions: int
    refused: int
    stopped: int
    latencies: list[float]
    client_cpu: list[float]  # per load generator, core-seconds per second
    errors: list[str]
    server_cpu: list[float] = field(default_factory=list)  # per server process
    proxy_cpu: float = 0.0
    redis_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.actions / self.seconds

    def p(self, q: float) -> float:
        return percentile(self.latencies, q)


class LoadGenerators:
    """``count`` load-generating processes (this file with ``--load-worker``); every
    command goes to each with its share and waits for all their answers."""

    def __init__(self, count: int, think: float, log_dir: Path):
        self.count, self.think, self.log_dir = count, think, log_dir
        self.processes: list[asyncio.subprocess.Process] = []
        self.progress = [0] * count

    async def __aenter__(self) -> LoadGenerators:
        for i in range(self.count):
            log = (self.log_dir / f"load{i}.log").open("ab")
            self.processes.append(await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), WORKER_FLAG,
                "--think", str(self.think), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=log, limit=256 * 2**20))
            log.close()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for process in self.processes:
            if process.stdin is not None and not process.stdin.is_closing():
                process.stdin.close()
        for process in self.processes:
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()

    async def _one(self, i: int, command: dict[str, Any]) -> dict[str, Any]:
        process = self.processes[i]
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((json.dumps(command) + "\n").encode())
        await process.stdin.drain()
        while line := await process.stdout.readline():
            answer: dict[str, Any] = json.loads(line)
            if "progress" in answer:
                self.progress[i] = answer["progress"]
            elif answer.get("done") == command["do"]:
                return answer
        log = (self.log_dir / f"load{i}.log").read_text(errors="replace")[-3000:]
        raise RuntimeError(f"load generator {i} stopped: {log}")

    async def each(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(self._one(i, c) for i, c in enumerate(commands))))

    async def all(self, command: dict[str, Any]) -> list[dict[str, Any]]:
        return await self.each([command] * self.count)

    async def open(self, base_url: str, count: int) -> tuple[list[str], list[str]]:
        """``count`` more tables, shared out: their ids, and why some failed to open."""
        shares = [count // self.count + (i < count % self.count) for i in range(self.count)]
        answers = await self.each([{"do": "open", "base": base_url, "count": n}
                                   for n in shares])
        return ([i for a in answers for i in a["ids"]],
                [a["error"] for a in answers for _ in range(a["failed"])])

    async def window(self, seconds: float) -> WindowFigures:
        self.progress = [0] * self.count
        answers = await self.all({"do": "window", "seconds": seconds})
        window = statistics.mean(a["seconds"] for a in answers)
        return WindowFigures(
            window, sum(a["actions"] for a in answers), sum(a["refused"] for a in answers),
            sum(a["stopped"] for a in answers), [x for a in answers for x in a["latencies"]],
            [a["cpu"] / a["seconds"] for a in answers], [a["error"] for a in answers
                                                          if a["error"]])


async def redis_cpu_seconds(client: aioredis.Redis) -> float:
    info = await client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def measured_window(room: Cluster, load: LoadGenerators, seconds: float,
                          progress: Progress, label: str) -> WindowFigures:
    """One window of the load generators with the CPU every part of the room used
    meanwhile, a progress bar counting the actions."""
    pids = node_pids(room)
    assert room.proxy is not None and room.proxy.process is not None
    proxy_pid = room.proxy.process.pid
    async with aioredis.Redis.from_url(room.redis_url) as redis_client:
        redis0 = await redis_cpu_seconds(redis_client)
        servers0, proxy0 = [cpu_seconds(p) for p in pids], cpu_seconds(proxy_pid)
        started = time.perf_counter()
        bar = progress.add_task(label, total=seconds, status="")
        measuring = asyncio.create_task(load.window(seconds))
        while not measuring.done():
            await asyncio.wait({measuring}, timeout=0.25)
            elapsed = time.perf_counter() - started
            done = sum(load.progress)
            progress.update(bar, completed=min(elapsed, seconds),
                            status=f"{done:,} actions · {done / max(elapsed, 1e-9):,.0f}/s")
        progress.remove_task(bar)
        elapsed = time.perf_counter() - started
        figures = measuring.result()
        figures.server_cpu = [(cpu_seconds(p) - c) / elapsed for p, c in zip(pids, servers0,
                                                                           strict=True)]
        figures.proxy_cpu = (cpu_seconds(proxy_pid) - proxy0) / elapsed
        figures.redis_cpu = (await redis_cpu_seconds(redis_client) - redis0) / elapsed
    return figures


def progress_bar(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.fields[status]}"), TimeRemainingColumn(),
                    console=console, transient=True)


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
    table = Table(title=f"throughput and latency: friend tables of two gin_simple bots, "
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


# -- failover after kill -9 -------------------------------------------------------------------


class FailoverSeat:
    """One client seat against the server's computer, through the proxy: the arrival
    time of each acknowledged move, and what went wrong."""

    def __init__(self, conn: Connection, think: float):
        self.conn, self.think = conn, think
        self.acks: list[float] = []
        self.refusals: list[str] = []
        self.lost: str = ""

    def acked_after(self, moment: float) -> float | None:
        """When the first ack after ``moment`` arrived (acks are kept in arrival order)."""
        first = bisect.bisect_right(self.acks, moment)
        return self.acks[first] if first < len(self.acks) else None

    async def play(self) -> None:
        conn = self.conn
        try:
            while True:
                if conn.view.get("phase") == "match_over":
                    await conn.rematch()
                elif conn.my_turn:
                    await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
                    try:
                        answer = await conn.act(choose(conn.view))
                    except ActionRefused as refused:  # stale after a reconnect: look again
                        self.refusals.append(refused.code)
                        continue
                    self.acks.append(answer.at)
                else:
                    await conn.recv()
        except ClientError as error:
            self.lost = repr(error)


@dataclass
class Kill:
    process: int
    table_time: float | None  # the picked table's next ack after the kill; None: stuck
    owned_times: list[float | None]  # every table the killed process owned
    restart_seconds: float


async def wait_acks(seats: list[FailoverSeat], after: float, limit: float) -> list[float | None]:
    """Each seat's first ack after ``after`` (perf_counter) minus ``after``; None for a
    seat with none within ``limit`` seconds."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        if all(s.acked_after(after) is not None for s in seats):
            break
        await asyncio.sleep(0.02)
    found = [s.acked_after(after) for s in seats]
    return [None if at is None else at - after for at in found]


async def failover_part(args: argparse.Namespace, console: Console) -> list[Kill]:
    kills: list[Kill] = []
    with card_room(args, 3, lease_ttl=args.lease_ttl) as room:
        async with Client(room.base_url, frame_rate=None, timeout=60) as client:
            seats: list[FailoverSeat] = []
            ids: list[str] = []
            for _ in range(args.failover_tables):
                seat = await client.create_table("gin", OPTIONS, opponent="computer",
                                                 name="Ann")
                conn = client.connect(seat, give_up_after=120)
                await conn.open()
                seats.append(FailoverSeat(conn, args.failover_think))
                ids.append(seat.table_id)
            players = [asyncio.create_task(s.play()) for s in seats]
            columns = (TextColumn("kill -9"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[status]}"))
            with Progress(*columns, console=console, transient=True) as progress:
                bar = progress.add_task("kills", total=args.kills, status="")
                for n in range(args.kills):
                    await asyncio.sleep(random.uniform(1.0, 2.0))  # any moment of a renewal
                    steady = await wait_acks(seats, time.perf_counter(), args.stuck_after)
                    if None in steady:
                        console.print(f"[red]before kill {n + 1}: {steady.count(None)} "
                                      "tables without a move[/red]")
                    kill = await kill_one(room, ids, seats, random.randrange(len(ids)), args)
                    kills.append(kill)
                    shown = "stuck" if kill.table_time is None else f"{kill.table_time:.2f} s"
                    progress.update(bar, advance=1, status=f"last: {shown}")
            for player in players:
                player.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            await asyncio.gather(*(s.conn.close() for s in seats), return_exceptions=True)
        show_troubles(room, 0, console)
    report_failover(kills, seats, args, console)
    return kills


async def kill_one(room: Cluster, ids: list[str], seats: list[FailoverSeat], picked: int,
                   args: argparse.Namespace) -> Kill:
    """Kill -9 the owner of table ``picked``, time every table it owned to its next
    acknowledged move, start it again."""
    for _ in range(30):  # a lease between two owners, or a process slow to answer
        nodes = {h["node"]: i for i, h in enumerate(await healths(room)) if h is not None}
        owners = await owners_of(room, ids)
        owner = owners[picked]
        if owner in nodes:
            break
        await asyncio.sleep(1)
    else:
        raise RuntimeError(f"table {ids[picked]} is owned by {owner!r}, none of {nodes}")
    victim = nodes[owner]
    owned = [i for i, o in enumerate(owners) if o == owner]
    killed_at = time.perf_counter()
    await asyncio.to_thread(room.kill, victim)
    times = await wait_acks([seats[i] for i in owned], killed_at, args.stuck_after)
    began = time.perf_counter()
    await asyncio.to_thread(room.restart, victim)
    return Kill(victim, times[owned.index(picked)], times, time.perf_counter() - began)


def report_failover(kills: list[Kill], seats: list[FailoverSeat], args: argparse.Namespace,
                    console: Console) -> None:
    picked = [k.table_time for k in kills if k.table_time is not None]
    every = [t for k in kills for t in k.owned_times if t is not None]
    stuck = sum(k.table_time is None for k in kills)
    stuck_owned = sum(t is None for k in kills for t in k.owned_times)
    table = Table(title=f"failover: kill -9 of a table's owner, 3 processes behind "
                        f"{args.proxy}, lease TTL {args.lease_ttl:g} s, "
                        f"{args.failover_tables} tables (a client seat against the "
                        f"computer, {args.failover_think:g} s think)")
    for name in ("tables timed", "kills", "samples", "p50 s", "p99 s", "max s", "min s",
                 "over 5 s", "stuck"):
        table.add_column(name, justify="left" if name == "tables timed" else "right")
    for name, samples, stuck_count, count in (
            ("the picked table", picked, stuck, len(kills)),
            ("every table the killed process owned", every, stuck_owned,
             sum(len(k.owned_times) for k in kills))):
        table.add_row(name, f"{len(kills)}", f"{count}",
                      *(f"{percentile(samples, q) / 1000:.2f}" for q in (0.5, 0.99, 1.0)),
                      f"{min(samples):.2f}" if samples else "-",
                      f"{sum(t > 5 for t in samples)}", f"{stuck_count}")
    console.print(table)
    refusals: dict[str, int] = {}
    for s in seats:
        for code in s.refusals:
            refusals[code] = refusals.get(code, 0) + 1
    lost = [s.lost for s in seats if s.lost]
    restarts = statistics.median(k.restart_seconds for k in kills) if kills else float("nan")
    console.print(f"From the kill to the client's next acknowledged move (stuck: none within "
                  f"{args.stuck_after:g} s). Reconnects: "
                  f"{sum(s.conn.reconnects for s in seats)}; refused moves: "
                  f"{refusals or 'none'}; clients that gave up: {len(lost)}"
                  f"{' (' + lost[0] + ')' if lost else ''}; a restart took {restarts:.1f} s "
                  "(median, until the proxy routed to it again).")


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


# -- the command line -------------------------------------------------------------------------


async def bench(args: argparse.Namespace) -> int:
    console = Console(width=None if sys.stdout.isatty() else 160)
    raise_open_files(20000)
    why = unavailable(args.proxy)
    if why:
        console.print(f"[red]cannot run a card room here: {why}[/red]")
        return 2
    parts: dict[str, Callable[[argparse.Namespace, Console], Awaitable[object]]] = {
        "failover": failover_part, "throughput": throughput_part,
        "forwarding": forwarding_part, "idle": idle_part}
    for part in args.part:
        began = time.perf_counter()
        console.rule(part)
        await parts[part](args, console)
        console.print(f"({part}: {time.perf_counter() - began:.0f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [WORKER_FLAG]:
        return worker_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS), metavar="PART",
                        help=f"parts to run, in order: {', '.join(PARTS)} (default: all)")
    parser.add_argument("--proxy", choices=("haproxy", "nginx"), default="haproxy")
    parser.add_argument("--logs", type=Path, metavar="DIR",
                        help="keep every room's logs (processes, proxy, load generators) in "
                             "a new directory under DIR (default: deleted)")
    parser.add_argument("--warmup", type=float, default=5.0, metavar="S",
                        help="seconds of play before each measured window (default: 5)")
    failover = parser.add_argument_group("failover")
    failover.add_argument("--kills", type=int, default=20, help="kills -9 (default: 20)")
    failover.add_argument("--failover-tables", type=int, default=12, metavar="N",
                          help="tables playing meanwhile (default: 12)")
    failover.add_argument("--failover-think", type=float, default=0.1, metavar="S",
                          help="mean seconds before each move (default: 0.1)")
    failover.add_argument("--lease-ttl", type=float, default=3.0, metavar="S",
                          help="CARDTABLE_LEASE_TTL of the processes (default: 3, the "
                               "server's own default)")
    failover.add_argument("--stuck-after", type=float, default=30.0, metavar="S",
                          help="a table without a move this long after a kill is stuck "
                               "(default: 30)")
    load = parser.add_argument_group("throughput")
    load.add_argument("--tables", type=int, nargs="+", default=[1000, 2000], metavar="N",
                      help="table counts, opened in steps on one room (default: 1000 2000)")
    load.add_argument("--processes", type=int, nargs="+", default=[1, 2, 3], metavar="N",
                      help="card rooms of N processes to compare (default: 1 2 3)")
    load.add_argument("--no-single", dest="single", action="store_false",
                      help="leave out the single-process (no Redis) reference")
    load.add_argument("--seconds", type=float, default=30.0,
                      help="measured window per table count (default: 30)")
    load.add_argument("--think", type=float, default=2.0, metavar="S",
                      help="mean seconds a bot waits before each move (default: 2)")
    load.add_argument("--clients", type=int, default=1, metavar="N",
                      help="load-generating processes sharing the tables (default: 1)")
    load.add_argument("--repeat", type=int, default=1, metavar="N",
                      help="run every variant N times, interleaved (default: 1)")
    forwarding = parser.add_argument_group("forwarding")
    forwarding.add_argument("--forward-tables", type=int, default=100, metavar="N")
    forwarding.add_argument("--forward-think", type=float, default=1.0, metavar="S")
    forwarding.add_argument("--forward-seconds", type=float, default=15.0, metavar="S")
    forwarding.add_argument("--forward-rounds", type=int, default=3, metavar="N",
                            help="rounds of each (local, forwarded, local, ...; default: 3)")
    idle = parser.add_argument_group("idle")
    idle.add_argument("--idle", type=int, default=3000, metavar="N",
                      help="idle spectator sockets (default: 3000)")
    idle.add_argument("--idle-per-table", type=int, default=100, metavar="N",
                      help="spectators to a table (default: 100; the server takes 200)")
    args = parser.parse_args(argv)
    if not all(1 <= n <= MAX_TABLES for n in [*args.tables, args.forward_tables]):
        parser.error(f"table counts from 1 to {MAX_TABLES}")
    if not all(1 <= n <= 3 for n in args.processes) or not 1 <= args.clients <= 4:
        parser.error("--processes from 1 to 3, --clients from 1 to 4")
    if not (1 <= args.kills <= 200 and 1 <= args.failover_tables <= 200
            and 1 <= args.repeat <= 10 and 1 <= args.forward_rounds <= 20
            and 1 <= args.idle <= 15000 and 1 <= args.idle_per_table <= 200):
        parser.error("a count out of range")
    if not (0 < args.seconds <= 600 and 0 < args.forward_seconds <= 600
            and 0 <= args.think <= 60 and 0 <= args.failover_think <= 10
            and 0 <= args.forward_think <= 60 and 0 < args.lease_ttl <= 60
            and 0 <= args.warmup <= 120 and 0 < args.stuck_after <= 600):
        parser.error("a time out of range")
    return asyncio.run(bench(args))


if __name__ == "__main__":
    raise SystemExit(main())
