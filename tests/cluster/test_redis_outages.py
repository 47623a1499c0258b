"""Redis away and back, three times, while a card room plays (issue 27, item 5).

Three real processes behind HAProxy share a private ``redis-server`` (nothing on disk:
it comes back empty) and PostgreSQL; a dozen tables of mixed games are played by the
games' bots through ``cardtable.client`` (``tests/timed_client.py``), their sockets on
whichever process the proxy picked, so most frames are forwarded over the bus. Redis is
stopped three times during play, each time for longer than a lease lasts. For all three:

* every move sent got an answer within 10 s: its acknowledgement or an error, or the
  socket's close after which the client reconnects and resends it with the same id,
  and then that copy was answered in its turn;
* every table moved again after Redis came back (no socket orphaned, no table stuck);
* at the end every acknowledged move is in the log exactly once and none of ours that
  was not acknowledged is, and every seat's last view is the log's replay.

The bus itself is checked alone too (two nodes on the private Redis): what it could not
deliver it says at once, and it subscribes again by itself. How fast play resumes is
measured, not asserted: ``bench/cluster.py --part
redis-outages`` (docs/benchmarks.md, "Redis away and back").
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis as AsyncRedis

from cardtable.client import Client
from cardtable.cluster.bus import Bus, Message, NoAnswer
from cardtable.engine import get_game
from cardtable.server import metrics
from cluster_harness import Cluster, RedisServer, assert_logged_once, unavailable
from timed_client import TimedConnection, TimedSeat

pytestmark = pytest.mark.slow
GAMES = ["gin", "rummy", "rummy500", "romme", "indian", "spades"] * 2
OUTAGES = 3
PAST_THE_LEASE = 4.0  # an outage lasts the lease's TTL and this much more
THINK = 0.1  # seconds before each move, 0.05-0.15


@pytest.fixture(autouse=True)
def cluster_possible() -> None:
    if (why := unavailable()) is not None:
        pytest.skip(why)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    try:
        (tmp_path / "redis").mkdir()
        server = RedisServer(tmp_path / "redis").start()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    yield server
    server.stop()


async def sit_everyone(client: Client, cluster: Cluster) -> list[TimedSeat]:
    seats = []
    for game in GAMES:
        descriptor = get_game(game)
        players = 4 if game == "spades" else 3 if game != "gin" else 2
        grant = await client.create_table(game=game, opponent="computer", name="Ann",
                                          players=players,
                                          options=dict(descriptor.options.EXPRESS),
                                          settings={"turn_time": 0})
        conn = TimedConnection(f"{cluster.ws_base}/ws/{grant.table_id}", grant,
                               give_up_after=120)
        await conn.open()
        # A person's pace: at no think at all the bots outrun the server's frame limit
        # (20 a second), and the socket is rightly closed as a flood.
        seats.append(TimedSeat(game, conn, grant.table_id, think=THINK))
    return seats


@contextlib.asynccontextmanager
async def playing(seats: list[TimedSeat]) -> AsyncIterator[list[asyncio.Task[None]]]:
    stop = asyncio.Event()
    players = [asyncio.create_task(seat.play(stop, random.Random(i)))
               for i, seat in enumerate(seats)]
    try:
        yield players
    finally:
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
    for task in players:
        task.result()


async def all_moved_since(seats: list[TimedSeat], players: list[asyncio.Task[None]],
                          moment: float, timeout: float = 120) -> None:
    """Until every seat has had a move acknowledged after ``moment`` (none is stuck)."""
    deadline = time.perf_counter() + timeout
    while stuck := [s.game for s in seats if s.acked_after(moment) is None]:
        for task in players:
            if task.done():
                task.result()  # a player that failed fails the test now
        assert time.perf_counter() < deadline, f"no move since Redis came back: {stuck}"
        await asyncio.sleep(0.2)


async def check_against_the_log(cluster: Cluster, seat: TimedSeat) -> None:
    await assert_logged_once(cluster.database_url, seat.conn, seat.table_id, seat.game,
                             seat.acked_ids)


async def test_redis_away_three_times_every_move_answered(
        tmp_path: Path, own_redis: RedisServer) -> None:
    with Cluster(tmp_path, processes=3, redis_url=own_redis.url) as cluster:
        outage = cluster.lease_ttl + PAST_THE_LEASE
        async with Client(cluster.base_url) as client:
            seats = await sit_everyone(client, cluster)
            async with playing(seats) as players:
                for _ in range(OUTAGES):
                    await all_moved_since(seats, players, time.perf_counter())
                    await asyncio.to_thread(own_redis.stop)
                    await asyncio.sleep(outage)  # the outage's length, on purpose
                    await asyncio.to_thread(own_redis.start)  # empty: nothing on disk
                    await all_moved_since(seats, players, time.perf_counter())
            late = {seat.game: seat.conn.late() for seat in seats if seat.conn.late()}
            assert not late, late
            assert sum(len(seat.acked_ids) for seat in seats) > 0
            for seat in seats:
                await check_against_the_log(cluster, seat)
                await seat.conn.close()


async def test_the_bus_says_what_it_could_not_deliver_and_comes_back(
        own_redis: RedisServer) -> None:
    """The bus alone, two nodes on the private Redis: a question nobody hears fails at
    once (not after its timeout); when Redis goes, a waiting question fails and the node
    hears of the cut; when Redis is back each node subscribes again by itself."""
    heard: list[Message] = []
    cuts: list[str] = []
    unheard: list[tuple[str, list[Message]]] = []

    async def handle(message: Message) -> None:
        heard.append(message)

    clients = [AsyncRedis.from_url(own_redis.url, socket_timeout=1) for _ in range(2)]
    a, b = (Bus(client, "outages", name, handle)
            for client, name in zip(clients, "ab", strict=True))
    a.on_cut = lambda: cuts.append("a")
    a.on_unheard = lambda node, messages: unheard.append((node, messages))
    lag_before = _sample("cardtable_bus_lag_seconds_count")
    await a.start()
    await b.start()
    try:
        a.post("b", {"k": "hello"})
        await _until(lambda: heard)
        assert heard[0]["k"] == "hello" and "@" not in heard[0]
        assert _sample("cardtable_bus_lag_seconds_count") > lag_before
        # Nobody listens on c's channel: the question fails as soon as that is known.
        with pytest.raises(NoAnswer, match="did not hear"):
            await a.ask("c", {"k": "info"}, timeout=3600)
        assert unheard and unheard[0][0] == "c"
        # A broadcast is answered once Redis has handed it on: to both processes.
        lobby: list[Message] = []
        b.on_lobby = lobby.append
        assert await a.broadcast({"k": "block", "by": "p1", "of": "p2", "on": True}) == 2
        await _until(lambda: lobby)
        assert lobby[0]["k"] == "block"
        # b never answers: the question waits; Redis going away ends the wait.
        waiting = asyncio.create_task(a.ask("b", {"k": "info"}, timeout=3600))
        await _until(lambda: len(heard) == 2)
        publish_errors = _sample("cardtable_redis_errors_total", op="publish")
        await asyncio.to_thread(own_redis.stop)
        with pytest.raises(NoAnswer, match="lost Redis"):
            await waiting
        await _until(lambda: cuts == ["a"] and not a.connected and not b.connected)
        with pytest.raises(NoAnswer, match="not subscribed"):
            await a.ask("b", {"k": "info"})
        a.post("b", {"k": "lost"})
        assert await a.broadcast({"k": "block", "by": "p1", "of": "p2", "on": False}) == 0
        await _until(lambda: _sample("cardtable_redis_errors_total", op="publish")
                     > publish_errors)
        await asyncio.to_thread(own_redis.start)
        await _until(lambda: a.connected and b.connected)
        a.post("b", {"k": "again"})
        await _until(lambda: heard[-1]["k"] == "again")
        assert [m["k"] for m in heard] == ["hello", "info", "again"]
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.aclose()


async def _until(condition: Callable[[], object], timeout: float = 30) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


def _sample(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0
