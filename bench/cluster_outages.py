"""The Redis-outage part of the scale-out benchmark (``bench/cluster.py --part
redis-outages``, issue 27): stop the card room's Redis during play, start it again
(empty: nothing on disk), and measure from the clients' side.

3 processes behind the proxy share a private ``redis-server`` of this part (the machine's
Redis is left alone) and a fresh PostgreSQL database; ``--failover-tables`` tables of
``--failover-games`` (in turn), each a client seat playing its game's bot through the
proxy (``--failover-think`` s before each move) against the server's computers, with the
client's own reconnects (``tests/timed_client.py`` notes every move's copies and their
answers). ``--outages`` times: play until every table has moved, stop Redis for
``--outage-seconds``, start it again. Per outage:

* **unanswered**: copies of moves (first sends and resends) sent from the stop until the
  next outage that got no answer (acknowledgement, error, or the socket's close that
  makes the client resend) within 10 s;
* **answer p50/p99 during**: seconds from a copy sent while Redis was away to its answer;
* **welcome p50/p99**: seconds from Redis back to each table's socket welcomed again
  (its hello served: its table loaded, by whichever process the proxy picked);
* **next move p50/p99/max**: seconds from Redis back to each table's next acknowledged
  move; **stuck**: tables without one within ``--stuck-after`` s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from cardtable.client import Client
from cluster_harness import Cluster, RedisServer
from cluster_room import SERVER_ENV, percentile, scratch, show_troubles, wait_acks
from timed_client import ANSWER_BOUND, TimedConnection, TimedSeat

GAME_OPTIONS = {"gin": {"target": 500}}  # long matches; a match that ends is played again


def outage_arguments(parser: argparse.ArgumentParser) -> None:
    """This part's options (its tables, games, think and TTL are the failover part's)."""
    group = parser.add_argument_group("redis-outages")
    group.add_argument("--outages", type=int, default=10, metavar="N",
                       help="times Redis is stopped (default: 10)")
    group.add_argument("--outage-seconds", type=float, default=10.0, metavar="S",
                       help="how long each outage lasts (default: 10)")


@dataclass
class Outage:
    stopped: float  # perf_counter
    back: float
    next_moves: list[float | None]  # per table: Redis back -> its next acknowledged move
    welcomed: list[float | None]  # per table: Redis back -> its socket's next welcome
    during: list[float] = field(default_factory=list)  # answer times of copies sent meanwhile
    unanswered: int = 0
    copies: int = 0


async def redis_outages_part(args: argparse.Namespace, console: Console) -> list[Outage]:
    outages: list[Outage] = []
    games = args.failover_games
    if not (1 <= args.outages <= 100 and 0 < args.outage_seconds <= 120):
        console.print("[red]--outages from 1 to 100, --outage-seconds up to 120[/red]")
        return outages
    with scratch(args.logs) as tmp:
        (tmp / "redis").mkdir()
        redis_server = RedisServer(tmp / "redis").start()
        room = Cluster(tmp, processes=3, proxy=args.proxy, env=dict(SERVER_ENV),
                       lease_ttl=args.lease_ttl, redis_url=redis_server.url)
        try:
            room.start()
            outages, seats = await play_through_outages(room, redis_server, games, args,
                                                        console)
            show_troubles(room, 0, console)
        finally:
            room.close()
            redis_server.stop()
    report_outages(outages, seats, args, console)
    return outages


async def play_through_outages(room: Cluster, redis_server: RedisServer, games: list[str],
                               args: argparse.Namespace, console: Console
                               ) -> tuple[list[Outage], list[TimedSeat]]:
    outages: list[Outage] = []
    async with Client(room.base_url, frame_rate=None, timeout=60) as client:
        seats: list[TimedSeat] = []
        for n in range(args.failover_tables):
            game = games[n % len(games)]
            grant = await client.create_table(game, GAME_OPTIONS.get(game, {}),
                                              opponent="computer", name="Ann")
            conn = TimedConnection(f"{room.ws_base}/ws/{grant.table_id}", grant,
                                   give_up_after=300)
            await conn.open()
            seats.append(TimedSeat(game, conn, grant.table_id, args.failover_think))
        stop = asyncio.Event()
        players = [asyncio.create_task(s.play(stop, random.Random(i)))
                   for i, s in enumerate(seats)]
        columns = (TextColumn("Redis away"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[status]}"))
        with Progress(*columns, console=console, transient=True) as progress:
            bar = progress.add_task("outages", total=args.outages, status="")
            for n in range(args.outages):
                steady = await wait_acks(seats, time.perf_counter(), args.stuck_after)
                if None in steady:
                    console.print(f"[red]before outage {n + 1}: {steady.count(None)} tables "
                                  "without a move[/red]")
                stopped = time.perf_counter()
                await asyncio.to_thread(redis_server.stop)
                await asyncio.sleep(args.outage_seconds)  # the outage's length, on purpose
                await asyncio.to_thread(redis_server.start)
                back = time.perf_counter()
                moved = await wait_acks(seats, back, args.stuck_after)
                welcomed = [s.welcomed_after(back) for s in seats]
                outages.append(Outage(stopped, back, moved,
                                      [None if w is None else w - back for w in welcomed]))
                times = [t for t in moved if t is not None]
                progress.update(bar, advance=1, status=f"last: next move p99 "
                                f"{percentile(times, 0.99) / 1000:.1f} s, "
                                f"{moved.count(None)} stuck")
            await asyncio.sleep(ANSWER_BOUND)  # the last copies' time to be answered
        stop.set()  # each player ends after its move in flight is answered
        _, unfinished = await asyncio.wait(players, timeout=90)
        for player in unfinished:
            player.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.gather(*(s.conn.close() for s in seats), return_exceptions=True)
    for n, outage in enumerate(outages):
        until = outages[n + 1].stopped if n + 1 < len(outages) else float("inf")
        waits = [w for s in seats for w in s.conn.answer_times(outage.stopped, until)]
        outage.copies = len(waits)
        outage.unanswered = sum(w > ANSWER_BOUND for w in waits)
        outage.during = [w for s in seats for w in s.conn.answer_times(outage.stopped,
                                                                        outage.back)]
    return outages, seats


def report_outages(outages: list[Outage], seats: list[TimedSeat], args: argparse.Namespace,
                   console: Console) -> None:
    load = os.getloadavg()
    table = Table(title=f"Redis away and back: {args.outages} outages of "
                        f"{args.outage_seconds:g} s, 3 processes behind {args.proxy}, lease "
                        f"TTL {args.lease_ttl:g} s, {args.failover_tables} tables of "
                        f"{'/'.join(args.failover_games)} ({args.failover_think:g} s think), "
                        f"CPU hog {args.hog}, load {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f}")
    for name in ("outage", "copies sent", "unanswered in 10 s", "answer p50 during s",
                 "answer p99 during s", "welcome p50 s", "p99 s", "next move p50 s",
                 "p99 s", "max s", "stuck"):
        table.add_column(name, justify="right")
    every: list[float] = []
    welcomes: list[float] = []
    for n, o in enumerate(outages, 1):
        moved = [t for t in o.next_moves if t is not None]
        welcomed = [t for t in o.welcomed if t is not None]
        every += moved
        welcomes += welcomed
        table.add_row(f"{n}", f"{o.copies}", f"{o.unanswered}",
                      *(_s(o.during, q) for q in (0.5, 0.99)),
                      *(_s(welcomed, q) for q in (0.5, 0.99)),
                      *(_s(moved, q) for q in (0.5, 0.99, 1.0)),
                      f"{o.next_moves.count(None)}")
    table.add_row("all", f"{sum(o.copies for o in outages)}",
                  f"{sum(o.unanswered for o in outages)}",
                  *(_s([w for o in outages for w in o.during], q) for q in (0.5, 0.99)),
                  *(_s(welcomes, q) for q in (0.5, 0.99)),
                  *(_s(every, q) for q in (0.5, 0.99, 1.0)),
                  f"{sum(o.next_moves.count(None) for o in outages)}")
    console.print(table)
    late = [line for s in seats for line in s.conn.late()]
    refusals: dict[str, int] = {}
    for s in seats:
        for code in s.refusals:
            refusals[code] = refusals.get(code, 0) + 1
    console.print(f"Reconnects: {sum(s.conn.reconnects for s in seats)}; refused moves: "
                  f"{refusals or 'none'}; copies not answered within {ANSWER_BOUND:g} s "
                  f"over the whole run: {len(late)}{' (first: ' + late[0] + ')' if late else ''}"
                  f"; stuck: no move within {args.stuck_after:g} s of Redis back.")


def _s(samples: list[float], q: float) -> str:
    finite = [s for s in samples if s != float("inf")]
    if not samples:
        return "-"
    if len(finite) < len(samples) and q >= 0.99:
        return "never"
    return f"{percentile(finite, q) / 1000:.2f}"
