"""Table leases on a real Redis (cardtable/cluster/leases.py): one holder at a time,
tokens that only grow, renewal by the holder only, and what a holder does when Redis
goes away (it keeps a table only until the lease it last renewed ends)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from cardtable.cluster.leases import Leases, holder_of
from cluster_harness import RedisServer


@pytest.fixture
def prefix() -> str:
    return f"test-{secrets.token_hex(4)}"


def leases(redis: Redis, prefix: str, node: str, ttl: float = 5.0,
           lost: list[str] | None = None) -> Leases:
    return Leases(redis, prefix, node, ttl, (lost if lost is not None else []).append)


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


async def test_a_lease_not_renewed_expires_and_its_holder_hears_it(redis: Redis,
                                                                   prefix: str) -> None:
    lost: list[str] = []
    a, b = leases(redis, prefix, "A", ttl=0.3, lost=lost), leases(redis, prefix, "B")
    first, _ = await a.acquire("t_1")
    await asyncio.sleep(0.45)
    second, _ = await b.acquire("t_1")
    assert second is not None and first is not None and second > first
    await a.renew_all()
    assert lost == ["t_1"] and "t_1" not in a.held
    assert await a.owner("t_1") == "B"  # A's failed renewal did not touch B's lease


async def test_the_keeper_renews_what_it_holds(redis: Redis, prefix: str) -> None:
    a, b = leases(redis, prefix, "A", ttl=0.3), leases(redis, prefix, "B")
    await a.acquire("t_1")
    a.start()
    try:
        await asyncio.sleep(1.0)  # three lease lengths
        assert await b.acquire("t_1") == (None, "A")
    finally:
        await a.stop()


async def test_the_counter_follows_a_token_the_database_has_seen(redis: Redis,
                                                                prefix: str) -> None:
    """Redis restarted empty: the log's row has token 41; the next token must be above."""
    a = leases(redis, prefix, "A")
    await a.acquire("t_1")
    await a.raise_counter("t_1", 41)
    assert "t_1" not in a.held and await a.owner("t_1") is None
    token, _ = await a.acquire("t_1")
    assert token == 42


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
