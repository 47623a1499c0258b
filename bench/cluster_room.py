"""What the scale-out benchmark (``bench/cluster.py``) is made of: its card rooms (the tests'
harness), the processes' health and logs, and the load generators, processes of their own
(``python bench/cluster.py --load-worker``) that play the tables and time the moves."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

# The card room comes from the tests' harness (tests/cluster_harness.py).
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))

import httpx
import redis.asyncio as aioredis
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from cardtable.client import Client, Connection, Seat
from cardtable.server import gc_tuning
from cluster_harness import Cluster
from server import OPTIONS, BenchTable, Tally, cpu_seconds, raise_open_files

PARTS = ("failover", "throughput", "forwarding", "idle", "redis-outages")
WORKER_FLAG = "--load-worker"
SERVER_ENV = {"CARDTABLE_FRAME_RATE": "100000", "CARDTABLE_JOIN_LIMIT": "1000000",
              "CARDTABLE_CREATE_LIMIT": "1000000", "CARDTABLE_SOCKET_LIMIT": "1000000"}
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
              lease_ttl: float = 3.0, env: dict[str, str] | None = None) -> Iterator[Cluster]:
    """A started card room (``args.proxy`` in front, logs kept under ``args.logs`` if
    given; ``env`` added to the processes' environment); ``single``: one process without
    Redis (plain single-process mode) behind the same proxy."""
    env = {**SERVER_ENV, **(env or {})}
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
    """One load-generating process: friend tables of two normal Gin bots (``BenchTable``
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
                sys.executable, str(Path(__file__).resolve().with_name("cluster.py")), WORKER_FLAG,
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


class Acking(Protocol):
    def acked_after(self, moment: float) -> float | None: ...


async def wait_acks(seats: Sequence[Acking], after: float, limit: float) -> list[float | None]:
    """Each seat's first ack after ``after`` (perf_counter) minus ``after``; None for a
    seat with none within ``limit`` seconds."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        if all(s.acked_after(after) is not None for s in seats):
            break
        await asyncio.sleep(0.02)
    found = [s.acked_after(after) for s in seats]
    return [None if at is None else at - after for at in found]
