"""Table leases on a real Redis (cardtable/cluster/leases.py): one holder at a time,
tokens that only grow, renewal by the holder only, and what a holder does when Redis
goes away (it keeps a table only until the lease it last renewed ends). A holder whose
event loop is blocked, or a whole process stopped past its lease, keeps its tables: the
renewal runs in a thread of its own, and a lease that expired with nobody taking it since
is retaken with the same token."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis as sync_redis
from redis.asyncio import Redis

from cardtable.bots.gin.normal import choose
from cardtable.client import Client
from cardtable.cluster.leases import Leases, holder_of
from cardtable.server import metrics
from cluster_harness import Cluster, RedisServer, shared_redis_url, unavailable


@pytest.fixture
def prefix() -> str:
    return f"test-{secrets.token_hex(4)}"


def leases(redis: Redis, prefix: str, node: str, ttl: float = 5.0,
           lost: list[str] | None = None) -> Leases:
    return Leases(redis, prefix, node, ttl, (lost if lost is not None else []).append,
                  listen_prefix=f"{prefix}:to:")


async def test_one_holder_and_growing_tokens(redis: Redis, prefix: str) -> None:
    a, b = leases(redis, prefix, "A"), leases(redis, prefix, "B")
    token, holder = await a.acquire("t_1")
    assert token is not None and holder is None
    assert await b.acquire("t_1") == (None, "A")
    assert await b.owner("t_1") == "A" and await b.owners(["t_1", "t_2"]) == {"t_1": "A",
                                                                           "t_2": None}
    await b.release("t_1")  # not B's to give back
    assert await b.owner("t_1") == "A"
    await a.release("t_1")
    later, _ = await b.acquire("t_1")
    assert later is not None and later > token
    assert holder_of(f"B:{later}") == ("B", later)


async def test_a_lease_whose_holder_is_gone_is_taken_before_its_end(
        redis: Redis, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    """A holder is alive while something listens on its bus channel; once nothing does
    (its process died and Redis dropped its connection), a taker that asks may have the
    lease now, with a larger token, and the old holder finds it lost."""
    lost: list[str] = []
    a, b = leases(redis, prefix, "A", ttl=60, lost=lost), leases(redis, prefix, "B")
    first, _ = await a.acquire("t_1")
    assert first is not None
    listener = redis.pubsub()
    await listener.subscribe(f"{prefix}:to:A")  # A's bus, alive
    try:
        assert await b.acquire("t_1", take_from_gone=True) == (None, "A")
    finally:
        await listener.unsubscribe()
        await listener.aclose()
    assert await b.acquire("t_1") == (None, "A")  # not asked: the lease's end is waited for
    before = event_count("taken_from_gone")
    with caplog.at_level(logging.WARNING, logger="cardtable.cluster"):
        second, holder = await b.acquire("t_1", take_from_gone=True)
    assert second is not None and second > first and holder is None
    assert await b.owner("t_1") == "B" and "t_1" in b.held
    assert event_count("taken_from_gone") == before + 1
    assert "took the lease of table t_1 from node A before its end" in caplog.text
    await a.renew_all()
    assert lost == ["t_1"] and "t_1" not in a.held


async def test_without_a_listen_prefix_nobody_is_taken_for_gone(redis: Redis,
                                                                prefix: str) -> None:
    a = leases(redis, prefix, "A")
    b = Leases(redis, prefix, "B", 5.0, [].append)  # no channels to look at
    await a.acquire("t_1")
    assert await b.acquire("t_1", take_from_gone=True) == (None, "A")


def event_count(event: str) -> float:
    return metrics.LEASE_EVENTS.labels(event)._value.get()


async def until_expired(redis: Redis, key: str) -> None:
    deadline = time.monotonic() + 10
    while await redis.exists(key):
        assert time.monotonic() < deadline, f"{key} never expired"
        await asyncio.sleep(0.02)


async def test_a_lease_taken_by_another_node_is_reported_lost(
        redis: Redis, prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    lost: list[str] = []
    a, b = leases(redis, prefix, "A", ttl=0.3, lost=lost), leases(redis, prefix, "B")
    first, _ = await a.acquire("t_1")
    await until_expired(redis, a.key("t_1"))
    second, _ = await b.acquire("t_1")
    assert second is not None and first is not None and second > first
    before = event_count("lost")
    with caplog.at_level(logging.WARNING, logger="cardtable.cluster"):
        await a.renew_all()
    assert lost == ["t_1"] and "t_1" not in a.held
    assert event_count("lost") == before + 1
    assert f"lost the lease of table t_1: taken by node B (token {second})" in caplog.text
    assert await a.owner("t_1") == "B"  # A's failed renewal did not touch B's lease


async def test_an_expired_lease_still_ours_is_retaken_with_its_token(redis: Redis,
                                                                    prefix: str) -> None:
    """The whole process was paused past its lease and nobody took the table meanwhile:
    the next renewal sets it back, the same token, and the table never moves."""
    lost: list[str] = []
    a = leases(redis, prefix, "A", ttl=0.3, lost=lost)
    token, _ = await a.acquire("t_1")
    await until_expired(redis, a.key("t_1"))
    before = event_count("retaken")
    await a.renew_all()
    assert lost == [] and a.held == {"t_1": token}
    assert (await redis.get(a.key("t_1"))).decode() == f"A:{token}"
    assert 0 < await redis.pttl(a.key("t_1")) <= 300
    assert event_count("retaken") == before + 1
    assert int(await redis.get(a.fence_key("t_1"))) == token  # not taken anew


async def test_a_lease_given_back_is_not_retaken(redis: Redis, prefix: str) -> None:
    """A renewal round that read the lease before it was given back does not set it
    again: the table is free for another process at once."""
    lost: list[str] = []
    a = leases(redis, prefix, "A", lost=lost)
    token, _ = await a.acquire("t_1")
    await a.release("t_1")
    a.held["t_1"] = token  # as the round's copy, taken just before the release, has it
    await a.renew_all()
    assert await redis.get(a.key("t_1")) is None
    assert await leases(redis, prefix, "B").acquire("t_1") == (token + 2, None)


async def test_a_blocked_event_loop_does_not_cost_the_lease(redis: Redis, prefix: str) -> None:
    """The loop is held by a slow synchronous call (a long bot decision, a big encode) for
    twice the TTL: the renewal thread keeps the lease and the heartbeat all along, and
    another node asking for the table meanwhile finds it held."""
    ttl = 1.5
    lost: list[str] = []
    beat = f"{prefix}:node:A"
    a = Leases(redis, prefix, "A", ttl, lost.append, redis_url=shared_redis_url(),
               beat_key=beat)
    token, _ = await a.acquire("t_1")
    seen: set[str | None] = set()
    beats: set[int] = set()
    stop = threading.Event()

    def watch() -> None:  # another node looking, from outside the blocked loop
        with sync_redis.Redis.from_url(shared_redis_url()) as client:
            while not stop.wait(0.02):
                value = client.get(a.key("t_1"))
                seen.add(None if value is None else value.decode())
                beats.add(int(client.exists(beat)))

    watcher = threading.Thread(target=watch)
    a.start()
    watcher.start()
    try:
        time.sleep(2 * ttl)  # the loop blocked: nothing on it runs meanwhile
    finally:
        stop.set()
        watcher.join()
        await a.stop()
    assert seen == {f"A:{token}"}, "the lease was gone or someone else's meanwhile"
    assert beats == {1}, "the heartbeat lapsed meanwhile"
    assert lost == [] and a.held == {"t_1": token}
    assert await leases(redis, prefix, "B").acquire("t_1") == (None, "A")


async def test_the_keeper_renews_what_it_holds(redis: Redis, prefix: str) -> None:
    a, b = leases(redis, prefix, "A", ttl=0.3), leases(redis, prefix, "B")
    await a.acquire("t_1")
    rounds = metrics.LEASE_RENEW_SECONDS._sum.get()
    a.start()
    try:
        await asyncio.sleep(1.0)  # three lease lengths
        assert await b.acquire("t_1") == (None, "A")
    finally:
        await a.stop()
    assert metrics.LEASE_RENEW_SECONDS._sum.get() > rounds  # its rounds were timed


async def test_the_counter_follows_a_token_the_database_has_seen(redis: Redis,
                                                                prefix: str) -> None:
    """Redis restarted empty: the log's row has token 41; the next token must be above."""
    a = leases(redis, prefix, "A")
    await a.acquire("t_1")
    await a.raise_counter("t_1", 41)
    assert "t_1" not in a.held and await a.owner("t_1") is None
    token, _ = await a.acquire("t_1")
    assert token is not None and token > 41


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    try:
        server = RedisServer(tmp_path).start()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    yield server
    server.stop()


async def test_with_redis_away_a_table_is_kept_until_its_lease_ends(
        own_redis: RedisServer) -> None:
    client = Redis.from_url(own_redis.url, socket_timeout=0.2, socket_connect_timeout=0.2)
    lost: list[str] = []
    a = leases(client, "p", "A", ttl=1.2, lost=lost)
    await a.acquire("t_1")
    own_redis.stop()
    await a.renew_all()  # fails, but the lease it renewed last runs for a while yet
    assert lost == [] and "t_1" in a.held
    await asyncio.sleep(1.0)
    await a.renew_all()  # now it may have ended: another process may take the table
    assert lost == ["t_1"] and "t_1" not in a.held
    await client.aclose()


async def test_a_table_that_could_not_be_made_keeps_no_lease(redis: Redis, prefix: str,
                                                            tmp_path: Path) -> None:
    """The new table's lease is taken before its row is written; when the write fails
    (the database away) the lease goes back instead of being renewed for ever."""
    from types import SimpleNamespace

    from cardtable.server.config import ServerConfig
    from cardtable.server.registry import Registry
    from cardtable.store import Store, sqlite_url

    store = await Store.open(sqlite_url(tmp_path))

    async def database_away(record: object) -> None:
        raise ConnectionError("the database is away")

    store.create_table = database_away  # type: ignore[method-assign]
    keeper = leases(redis, prefix, "A")
    registry = Registry(store, ServerConfig(data_dir=tmp_path),
                        cluster=SimpleNamespace(leases=keeper))  # type: ignore[arg-type]
    try:
        with pytest.raises(ConnectionError):
            await registry.create("gin", {}, "computer", "Ann")
        assert keeper.held == {}
        assert [k async for k in redis.scan_iter(match=f"{prefix}:lease:*")] == []
    finally:
        await registry.close()
        await store.close()


@pytest.mark.slow
async def test_a_process_stopped_past_its_lease_keeps_its_tables(tmp_path: Path) -> None:
    """A real owner process stopped (SIGSTOP) for twice its lease, nobody asking for its
    table meanwhile: when it runs again it retakes the lease with the same token and the
    table plays on where it was, without moving."""
    if (why := unavailable()) is not None:
        pytest.skip(why)
    with Cluster(tmp_path, processes=2, lease_ttl=1.0) as room:
        process = room.nodes[0].process
        assert process is not None
        async with Client(room.node_url(0), frame_rate=None) as client:
            seat = await client.create_table("gin", {"target": 500}, opponent="computer",
                                             name="Ann")
            async with client.connect(seat) as conn:  # says hello to process 0 itself
                key = f"{room.redis_prefix}:lease:{seat.table_id}"
                with sync_redis.Redis.from_url(room.redis_url) as store:
                    held = store.get(key)
                    assert held is not None
                    os.kill(process.pid, signal.SIGSTOP)
                    try:
                        time.sleep(2 * room.lease_ttl)  # stopped: the lease runs out
                        assert store.get(key) is None
                    finally:
                        os.kill(process.pid, signal.SIGCONT)
                    deadline = time.monotonic() + 30
                    while store.get(key) != held:
                        assert time.monotonic() < deadline, "the lease never came back"
                        await asyncio.sleep(0.05)
                    await conn.wait_for(lambda c: c.my_turn, timeout=30)
                    answer = await conn.act(choose(conn.view))
                    assert answer.t == "view" and store.get(key) == held
        assert "retook the lease of table" in room.output(0)
        assert "lost the lease" not in room.output(0)


@pytest.mark.slow
async def test_a_killed_owner_is_not_waited_for(tmp_path: Path) -> None:
    """kill -9 of a table's owner with a lease of a minute: the socket held by another
    process for it, idle (its player thinks: no command of his goes unheard), is
    reconnected as soon as the owner is seen gone, its hello takes the table over before
    the lease's end, and the game goes on into a new deal."""
    if (why := unavailable()) is not None:
        pytest.skip(why)
    with Cluster(tmp_path, processes=2, lease_ttl=60.0) as room:
        async with Client(room.node_url(0)) as client:
            seat = await client.create_table("gin", {"target": 10}, opponent="computer",
                                             name="Ann")  # made on process 0: its owner
        async with Client(room.node_url(1)) as client, \
                client.connect(seat, give_up_after=60) as conn:  # held by process 1
            await conn.wait_for(lambda c: c.my_turn, timeout=30)
            key = f"{room.redis_prefix}:lease:{seat.table_id}"
            old_owner = room.health(0)["node"]
            with sync_redis.Redis.from_url(room.redis_url) as store:
                assert _text(store.get(key)).startswith(f"{old_owner}:")
                room.kill(0)
                # Sending nothing, the socket is closed and reconnected (the watch of
                # gone owners), well inside the minute the dead owner's lease still runs.
                await conn.wait_for(lambda c: c.reconnects >= 1, timeout=30)
                deals = 0
                async with asyncio.timeout(45):
                    while deals < 1:
                        if conn.view.get("phase") == "match_over":
                            await conn.rematch()
                            deals += 1
                        elif conn.my_turn:
                            await conn.act(choose(conn.view))
                        else:
                            await conn.recv()
                    await conn.wait_for(lambda c: c.my_turn)  # the new deal plays
                    assert (await conn.act(choose(conn.view))).t == "view"
                assert _text(store.get(key)).startswith(room.health(1)["node"] + ":")
        assert f"took the lease of table {seat.table_id} from node {old_owner} before " \
               "its end" in room.output(1)


def _text(value: bytes | None) -> str:
    return value.decode() if value is not None else ""

