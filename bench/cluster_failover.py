"""The failover part of the scale-out benchmark (``bench/cluster.py --part failover``):
kill -9 a table's owner and time, from each client's side, until its next acknowledged
move; and count the leases the live processes lost meanwhile (a starved owner whose
lease ran out: its table moved although nobody died)."""

from __future__ import annotations

import argparse
import asyncio
import bisect
import random
import re
import statistics
import time
from dataclasses import dataclass
from typing import Any

import httpx
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from cardtable.bots.levels import bot_for
from cardtable.client import ActionRefused, Client, ClientError, Connection, Frame
from cluster_harness import Cluster
from cluster_room import card_room, healths, percentile, show_troubles, wait_acks

# Long matches where a game has a target; a match that ends is played again (rematch).
GAME_OPTIONS: dict[str, dict[str, Any]] = {"gin": {"target": 500}}
# What a process logs when a lease of a live process ends (cardtable/cluster/leases.py).
LOST = re.compile(r"lost the lease of table")
RETAKEN = re.compile(r"retook the lease of table")
RESTART_TIMEOUT = 180.0  # seconds a killed process may take to start again on a loaded machine
LATE = "cardtable_lease_late_seconds"  # how late renewals ran (cardtable/server/metrics.py)


class LatenessScrapes:
    """The lateness histograms of every process life (``/metrics``, cumulative per life):
    the last scrape of each process before it was killed, and of the live ones at the end."""

    def __init__(self, room: Cluster):
        self.room = room
        self.last: dict[int, str] = {}
        self.finished: list[str] = []

    async def scrape(self) -> None:
        async with httpx.AsyncClient(timeout=10) as client:
            for i in range(self.room.processes):
                try:
                    answer = await client.get(self.room.node_url(i) + "/metrics")
                except httpx.HTTPError:
                    continue
                if answer.status_code == 200:
                    self.last[i] = answer.text

    def life_ended(self, i: int) -> None:
        if i in self.last:
            self.finished.append(self.last.pop(i))

    def buckets(self, where: str) -> list[tuple[float, float]]:
        """(upper bound, count) of the histogram ``where`` summed over every life."""
        total: dict[float, float] = {}
        for text in [*self.finished, *self.last.values()]:
            for family in text_string_to_metric_families(text):
                if family.name != LATE:
                    continue
                for sample in family.samples:
                    if sample.name.endswith("_bucket") and sample.labels.get("where") == where:
                        bound = float(sample.labels["le"])
                        total[bound] = total.get(bound, 0) + sample.value
        return sorted(total.items())


def bucket_quantile(buckets: list[tuple[float, float]], q: float) -> str:
    """The upper bound of the bucket holding the ``q`` quantile ("≤ 0.1 s")."""
    if not buckets or buckets[-1][1] == 0:
        return "-"
    wanted = q * buckets[-1][1]
    bound = next(b for b, count in buckets if count >= wanted)
    return f"≤ {bound:g} s" if bound != float("inf") else "> 10 s"


class FailoverSeat:
    """One client seat against the server's computers, through the proxy: the arrival
    time of each acknowledged move, and what went wrong."""

    def __init__(self, game: str, conn: Connection, think: float):
        self.game, self.conn, self.think = game, conn, think
        self.choose = bot_for(game)
        self.acks: list[float] = []
        self.welcomes: list[float] = []  # a hello answered: the socket is at the table again
        self.refusals: list[str] = []
        self.lost: str = ""

    def acked_after(self, moment: float) -> float | None:
        """When the first ack after ``moment`` arrived (acks are kept in arrival order)."""
        first = bisect.bisect_right(self.acks, moment)
        return self.acks[first] if first < len(self.acks) else None

    def welcomed_after(self, moment: float, until: float) -> float | None:
        """When the socket was welcomed again after ``moment`` and before ``until``."""
        first = bisect.bisect_right(self.welcomes, moment)
        found = self.welcomes[first] if first < len(self.welcomes) else None
        return found if found is not None and found <= until else None

    def heard(self, frame: Frame) -> None:
        if frame.t == "welcome":
            self.welcomes.append(frame.at)

    async def play(self) -> None:
        conn = self.conn
        try:
            while True:
                if conn.view.get("phase") == "match_over":
                    await conn.rematch()
                elif conn.my_turn:
                    await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
                    try:
                        answer = await conn.act(self.choose(conn.view))
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
    welcome_times: list[float]  # of those reconnected before their ack: kill to welcome
    restart_seconds: float
    repicked: bool  # the table first picked had no live owner for 10 s: another was


async def owners_of(room: Cluster, table_ids: list[str]) -> list[str | None]:
    """The node holding each table's lease now."""
    async with aioredis.Redis.from_url(room.redis_url, decode_responses=True) as client:
        values = await client.mget([f"{room.redis_prefix}:lease:{t}" for t in table_ids])
    return [v.rpartition(":")[0] if v else None for v in values]


def lease_lines(room: Cluster) -> tuple[int, int]:
    """Leases lost and retaken by live processes, from all their logs (every start)."""
    text = "\n".join(room.output(i) for i in range(room.processes))
    return len(LOST.findall(text)), len(RETAKEN.findall(text))


async def failover_part(args: argparse.Namespace, console: Console) -> list[Kill]:
    kills: list[Kill] = []
    games = args.failover_games
    with card_room(args, 3, lease_ttl=args.lease_ttl, env={"CARDTABLE_METRICS": "on"}) as room:
        scrapes = LatenessScrapes(room)
        async with Client(room.base_url, frame_rate=None, timeout=60) as client:
            seats: list[FailoverSeat] = []
            ids: list[str] = []
            for n in range(args.failover_tables):
                game = games[n % len(games)]
                seat = await client.create_table(game, GAME_OPTIONS.get(game, {}),
                                                 opponent="computer", name="Ann")
                conn = client.connect(seat, give_up_after=120)
                player = FailoverSeat(game, conn, args.failover_think)
                conn.on_frame = player.heard
                await conn.open()
                seats.append(player)
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
                    await scrapes.scrape()
                    kill = await kill_one(room, ids, seats, random.randrange(len(ids)), args)
                    scrapes.life_ended(kill.process)
                    kills.append(kill)
                    shown = "stuck" if kill.table_time is None else f"{kill.table_time:.2f} s"
                    progress.update(bar, advance=1, status=f"last: {shown}")
            for player in players:
                player.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            await asyncio.gather(*(s.conn.close() for s in seats), return_exceptions=True)
            await scrapes.scrape()
        show_troubles(room, 0, console)
        lost, retaken = lease_lines(room)
    report_failover(kills, seats, args, console, lost, retaken)
    report_lateness(scrapes, console)
    return kills


async def kill_one(room: Cluster, ids: list[str], seats: list[FailoverSeat], picked: int,
                   args: argparse.Namespace) -> Kill:
    """Kill -9 the owner of table ``picked``, time every table it owned to its next
    acknowledged move, start it again."""
    repicked = False
    for attempt in range(30):  # a lease between two owners, or a process slow to answer
        nodes = {h["node"]: i for i, h in enumerate(await healths(room)) if h is not None}
        owners = await owners_of(room, ids)
        if attempt >= 10 and owners[picked] not in nodes:  # stuck ownerless: another one
            owned_now = [i for i, o in enumerate(owners) if o in nodes]
            if owned_now:
                picked, repicked = random.choice(owned_now), True
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
    welcomes = []
    for i, acked in zip(owned, times, strict=True):
        at = seats[i].welcomed_after(killed_at, killed_at + (acked or args.stuck_after))
        if at is not None:
            welcomes.append(at - killed_at)
    began = time.perf_counter()
    await asyncio.to_thread(room.restart, victim, timeout=RESTART_TIMEOUT)
    return Kill(victim, times[owned.index(picked)], times, welcomes,
                time.perf_counter() - began, repicked)


def report_failover(kills: list[Kill], seats: list[FailoverSeat], args: argparse.Namespace,
                    console: Console, lost: int, retaken: int) -> None:
    picked = [k.table_time for k in kills if k.table_time is not None]
    every = [t for k in kills for t in k.owned_times if t is not None]
    stuck = sum(k.table_time is None for k in kills)
    stuck_owned = sum(t is None for k in kills for t in k.owned_times)
    ttl = "the server's default" if args.lease_ttl is None else f"{args.lease_ttl:g} s"
    table = Table(title=f"failover: kill -9 of a table's owner, 3 processes behind "
                        f"{args.proxy}, lease TTL {ttl}, {args.failover_tables} tables of "
                        f"{'/'.join(args.failover_games)} (a client seat against the "
                        f"computers, {args.failover_think:g} s think), CPU hog {args.hog}")
    for name in ("tables timed", "kills", "samples", "p50 s", "p99 s", "max s", "min s",
                 "over 5 s", "stuck"):
        table.add_column(name, justify="left" if name == "tables timed" else "right")
    welcomed = [t for k in kills for t in k.welcome_times]
    for name, samples, stuck_count, count in (
            ("the picked table", picked, stuck, len(kills)),
            ("every table the killed process owned", every, stuck_owned,
             sum(len(k.owned_times) for k in kills)),
            ("… its socket welcomed again (reconnected ones)", welcomed, 0, len(welcomed))):
        table.add_row(name, f"{len(kills)}", f"{count}",
                      *(f"{percentile(samples, q) / 1000:.2f}" for q in (0.5, 0.99, 1.0)),
                      f"{min(samples):.2f}" if samples else "-",
                      f"{sum(t > 5 for t in samples)}", f"{stuck_count}")
    console.print(table)
    refusals: dict[str, int] = {}
    for s in seats:
        for code in s.refusals:
            refusals[code] = refusals.get(code, 0) + 1
    gave_up = [s.lost for s in seats if s.lost]
    restarts = statistics.median(k.restart_seconds for k in kills) if kills else float("nan")
    console.print(f"From the kill to the client's next acknowledged move (stuck: none within "
                  f"{args.stuck_after:g} s). Reconnects: "
                  f"{sum(s.conn.reconnects for s in seats)}; refused moves: "
                  f"{refusals or 'none'}; clients that gave up: {len(gave_up)}"
                  f"{' (' + gave_up[0] + ')' if gave_up else ''}; a restart took "
                  f"{restarts:.1f} s (median, until the proxy routed to it again). Leases "
                  f"lost by live processes: {lost}; retaken (expired, still theirs): "
                  f"{retaken}; kills whose first pick had no live owner for 10 s (another "
                  f"table picked): {sum(k.repicked for k in kills)}.")


def report_lateness(scrapes: LatenessScrapes, console: Console) -> None:
    table = Table(title="how late lease renewal ran (every process life, from /metrics)")
    for name in ("where", "rounds", "p50", "p99", "p99.9", "max"):
        table.add_column(name, justify="left" if name == "where" else "right")
    for where, what in (("thread", "the renewal thread, against its schedule"),
                        ("loop", "the event loop, a callback posted by that thread")):
        buckets = scrapes.buckets(where)
        count = buckets[-1][1] if buckets else 0
        table.add_row(what, f"{count:,.0f}", *(bucket_quantile(buckets, q)
                                                for q in (0.5, 0.99, 0.999, 1.0)))
    console.print(table)
    console.print("Bucket bounds (0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 1.5 2 3 5 10 s): a "
                  "figure is the bucket its quantile fell in. No rounds: a server without "
                  "the figure (before issue 27).")
