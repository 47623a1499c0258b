"""No game is lost when a process dies or stops (issue 15), on three real processes
behind HAProxy, real Redis and PostgreSQL, clients of ``cardtable.client``.

* kill -9 of owners, 20 times, while every game is being played: afterwards every
  acknowledged action is in the log exactly once, nothing else of ours is, every table
  went on after the last kill (across new deals: the clients play match after match), and
  every player's last view is the log's replay;
* SIGTERM drains: the tables move to the other processes and play on;
* Redis away: the owner keeps its tables until its lease ends, a new table gets a clear
  error, the sockets are told to come back later, and when Redis returns (empty: it keeps
  nothing on disk here) play resumes where the log says.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from cardtable.client import ActionRefused, Client, Connection
from cardtable.engine import get_game
from cardtable.store import Store
from cluster_harness import Cluster, RedisServer, assert_logged_once, unavailable

pytestmark = pytest.mark.slow
GAMES = ["gin", "rummy", "rummy500", "romme", "indian", "spades"]
KILLS = 20


@pytest.fixture(autouse=True)
def cluster_possible() -> None:
    if (why := unavailable()) is not None:
        pytest.skip(why)


@dataclass
class Seat:
    """One client seat: what it sent and what the server acknowledged."""

    game: str
    conn: Connection
    table_id: str = ""
    acked: list[str] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)
    matches: int = 0


def owner(cluster: Cluster, table_id: str) -> int | None:
    """The process holding the table's lease now (None while nobody does)."""
    with redis.Redis.from_url(cluster.redis_url) as client:
        value = client.get(f"{cluster.redis_prefix}:lease:{table_id}")
    if value is None:
        return None
    node = value.decode().rsplit(":", 1)[0]
    for i in range(cluster.processes):
        with contextlib.suppress(httpx.HTTPError):
            if cluster.alive(i) and cluster.health(i)["node"] == node:
                return i
    return None


async def play_on(seat: Seat, stop: asyncio.Event, rng: random.Random) -> None:
    """Random legal moves, match after match (a rematch after each), until ``stop``."""
    conn = seat.conn
    number = 0
    while not stop.is_set():
        if conn.view.get("phase") == "match_over" and conn.seat not in conn.rematch_votes:
            await conn.rematch(timeout=60)  # one vote: the next match waits for the others'
            seat.matches += 1
            continue
        if not conn.my_turn:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(conn.recv(), 1.0)
            continue
        # A person's pace: with no pause at all a player outruns the server's frame limit
        # (20 a second) against computers that answer at once, and is closed as a flood.
        await asyncio.sleep(rng.uniform(0.05, 0.15))
        number += 1
        ref = f"{seat.game}-{number}"
        try:
            await conn.act(rng.choice(conn.view["legal"]), id=ref, timeout=60)
        except ActionRefused as refused:
            assert refused.code in ("stale", "not_your_turn", "retry"), refused
            continue
        seat.acked.append(ref)
        seat.acked_at.append(time.monotonic())


async def check_against_the_log(cluster: Cluster, seat: Seat) -> None:
    await assert_logged_once(cluster.database_url, seat.conn, seat.table_id, seat.game,
                             seat.acked)


async def sit_everyone(client: Client, rng: random.Random) -> list[Seat]:
    seats = []
    for game in GAMES:
        descriptor = get_game(game)
        players = 4 if game == "spades" else 3 if game != "gin" else 2
        assert players in descriptor.players
        grant = await client.create_table(game=game, opponent="computer", name="Ann",
                                          players=players,
                                          options=dict(descriptor.options.EXPRESS),
                                          settings={"turn_time": 0})
        conn = client.connect(grant, give_up_after=120)
        await conn.open()
        seats.append(Seat(game, conn, grant.table_id))
    return seats


@contextlib.asynccontextmanager
async def playing(seats: list[Seat]) -> AsyncIterator[list[asyncio.Task[None]]]:
    """Every seat plays on (play_on) inside the block; a player that failed fails the
    test once the block is over."""
    stop = asyncio.Event()
    players = [asyncio.create_task(play_on(seat, stop, random.Random(i)))
               for i, seat in enumerate(seats)]
    try:
        yield players
    finally:
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
    for task in players:
        task.result()


async def all_moved_since(seats: list[Seat], moment: float, timeout: float = 90) -> None:
    """Until every seat has had an action acknowledged after ``moment`` (none is stuck)."""
    deadline = time.monotonic() + timeout
    while stuck := [s.game for s in seats if not s.acked_at or s.acked_at[-1] < moment]:
        assert time.monotonic() < deadline, f"no move since: {stuck}"
        await asyncio.sleep(0.2)


async def test_owners_killed_twenty_times_lose_nothing(tmp_path: Path) -> None:
    rng = random.Random(15)
    with Cluster(tmp_path, processes=3) as cluster:
        async with Client(cluster.base_url) as client:
            seats = await sit_everyone(client, rng)
            kills: list[tuple[str, int]] = []
            async with playing(seats) as players:
                while len(kills) < KILLS:
                    await asyncio.sleep(rng.uniform(0.5, 1.5))
                    for task in players:
                        if task.done():
                            task.result()  # a player that failed fails the test now
                    seat = rng.choice(seats)
                    victim = await asyncio.to_thread(owner, cluster, seat.table_id)
                    if victim is None:
                        continue  # the table is between owners: pick again
                    await asyncio.to_thread(cluster.kill, victim)
                    kills.append((seat.game, victim))
                    await asyncio.to_thread(cluster.restart, victim)
                await all_moved_since(seats, time.monotonic())
            for seat in seats:
                await check_against_the_log(cluster, seat)
                await seat.conn.close()
            assert len(kills) == KILLS
            # Play went on across new deals: every seat finished at least one match.
            assert all(seat.matches >= 1 for seat in seats), [(s.game, s.matches)
                                                              for s in seats]


async def test_a_clean_stop_hands_the_tables_over(tmp_path: Path) -> None:
    rng = random.Random(7)
    with Cluster(tmp_path, processes=3) as cluster:
        async with Client(cluster.base_url) as client:
            seats = await sit_everyone(client, rng)
            async with playing(seats):
                await asyncio.sleep(1.0)
                stopped = await asyncio.to_thread(owner, cluster, seats[0].table_id)
                assert stopped is not None
                code = await asyncio.to_thread(cluster.terminate, stopped)
                assert code in (0, -15), cluster.output(stopped)
                await all_moved_since(seats, time.monotonic(), timeout=60)
            for seat in seats:
                await check_against_the_log(cluster, seat)
                # A drain costs a socket at most one reconnect (a resync), never a failure.
                assert seat.conn.reconnects <= 2, (seat.game, seat.conn.reconnects)
                await seat.conn.close()
            assert "Traceback" not in cluster.output(stopped)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    try:
        (tmp_path / "redis").mkdir()
        server = RedisServer(tmp_path / "redis").start()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    yield server
    server.stop()


async def test_redis_away_and_back(tmp_path: Path, own_redis: RedisServer) -> None:
    with Cluster(tmp_path, processes=2, redis_url=own_redis.url, lease_ttl=2.0) as cluster:
        # The table and its player's socket on process 0 (its owner).
        async with Client(cluster.node_url(0)) as client:
            grant = await client.create_table(game="gin", opponent="computer", name="Ann",
                                              settings={"turn_time": 0})
            seat = Seat("gin", client.connect(grant, give_up_after=120), grant.table_id)
            await seat.conn.open()
            await seat.conn.wait_for(lambda c: c.my_turn, timeout=30)
            own_redis.stop()
            # The owner plays on while its lease lasts: this move is acknowledged.
            ref = "while-redis-is-away"
            await seat.conn.act(random.choice(seat.conn.view["legal"]), id=ref, timeout=30)
            seat.acked.append(ref)
            # A new table needs Redis (who would own it?): a clear error, nothing made.
            refused = httpx.post(f"{cluster.node_url(1)}/api/tables", timeout=10,
                                 json={"game": "gin", "opponent": "computer", "name": "Bo"})
            assert refused.status_code == 503 and "Redis" in refused.json()["detail"]
            store = await Store.open(cluster.database_url)
            try:
                assert await store.table_ids() == [grant.table_id]  # nothing half made
            finally:
                await store.close()
            # Once the lease may have ended the owner lets the table go; a socket that
            # says hello now is told to come back later, and why.
            await asyncio.sleep(cluster.lease_ttl + 1.5)
            async with connect(f"{cluster.node_ws(1)}/ws/{grant.table_id}") as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.send(json.dumps({"t": "hello", "d": {"token": grant.token}}))
                    for _ in range(5):
                        await asyncio.wait_for(ws.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
                assert "Redis" in closed.value.rcvd.reason
            own_redis.start()  # empty: the lease counters start again from 0
            async with playing([seat]):  # play resumes where the log says
                await all_moved_since([seat], time.monotonic(), timeout=60)
            await check_against_the_log(cluster, seat)
            await seat.conn.close()
