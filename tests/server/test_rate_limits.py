"""Rate limits that hold across processes (server/rate_limits.py), on a real Redis.

Two windows of the same name sharing one Redis stand for two processes: they spend one
budget. The window slides on Redis's clock, its keys are hashed and expire, and when
Redis cannot be reached a process goes on counting alone. (Real processes behind a
proxy: tests/cluster/test_limits_across_processes.py.)
"""

from __future__ import annotations

import asyncio
import logging
import secrets

import pytest
from redis.asyncio import Redis

from cardtable.server.rate_limits import RateLimits, SharedWindow


@pytest.fixture
def prefix() -> str:
    return f"cardtable_test_{secrets.token_hex(6)}"


async def _cleanup(redis: Redis, prefix: str) -> None:
    keys = [key async for key in redis.scan_iter(f"{prefix}:*")]
    if keys:
        await redis.delete(*keys)


def two_processes(redis: Redis, prefix: str, limit: int,
                  seconds: float = 60) -> tuple[SharedWindow, SharedWindow]:
    a, b = SharedWindow("login", limit, seconds), SharedWindow("login", limit, seconds)
    a.share(redis, prefix)
    b.share(redis, prefix)
    return a, b


async def test_two_processes_spend_one_budget(redis: Redis, prefix: str) -> None:
    a, b = two_processes(redis, prefix, 3)
    try:
        assert [await a.allow("ann"), await b.allow("ann"), await a.allow("ann")] == [True] * 3
        assert not await b.allow("ann")
        assert not await a.allow("ann")  # a refusal spends nothing, but nothing is left
        assert await b.allow("bob")  # another key has a budget of its own
    finally:
        await _cleanup(redis, prefix)


async def test_alone_each_process_would_count_separately() -> None:
    a, b = SharedWindow("login", 2, 60), SharedWindow("login", 2, 60)
    assert [await a.allow("ann") for _ in range(3)] == [True, True, False]
    assert [await b.allow("ann") for _ in range(3)] == [True, True, False]


async def test_the_window_slides(redis: Redis, prefix: str) -> None:
    a, b = two_processes(redis, prefix, 2, seconds=0.4)
    try:
        assert await a.allow("ann") and await b.allow("ann")
        assert not await a.allow("ann")
        await asyncio.sleep(0.5)
        assert await b.allow("ann")
    finally:
        await _cleanup(redis, prefix)


async def test_keys_are_hashed_and_expire(redis: Redis, prefix: str) -> None:
    a, _ = two_processes(redis, prefix, 5, seconds=30)
    try:
        await a.allow("203.0.113.7")
        keys = [key.decode() async for key in redis.scan_iter(f"{prefix}:*")]
        assert keys == [a.redis_key("203.0.113.7")]
        assert "203.0.113.7" not in keys[0] and keys[0].startswith(f"{prefix}:limit:login:")
        assert 0 < await redis.pttl(keys[0]) <= 30_000
    finally:
        await _cleanup(redis, prefix)


async def test_without_redis_a_process_counts_alone(caplog: pytest.LogCaptureFixture) -> None:
    dead: Redis = Redis.from_url("redis://127.0.0.1:1/0", socket_timeout=1,
                                 socket_connect_timeout=1)
    window = SharedWindow("login", 2, 60)
    window.share(dead, "cardtable_test")
    try:
        with caplog.at_level(logging.WARNING, logger="cardtable.limits"):
            assert [await window.allow("ann") for _ in range(3)] == [True, True, False]
        warnings = [r for r in caplog.records if "counts alone" in r.getMessage()]
        assert len(warnings) == 1  # said once, not once per request
    finally:
        await dead.aclose()


async def test_back_to_redis_counts_together_again(redis: Redis, prefix: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    dead: Redis = Redis.from_url("redis://127.0.0.1:1/0", socket_timeout=1,
                                 socket_connect_timeout=1)
    window = SharedWindow("login", 2, 60)
    window.share(dead, prefix)
    try:
        with caplog.at_level(logging.WARNING, logger="cardtable.limits"):
            assert await window.allow("ann")
            window.share(redis, prefix)
            assert await window.allow("ann") and await window.allow("ann")
            assert not await window.allow("ann")  # Redis's own count: two
        assert any("answers again" in r.getMessage() for r in caplog.records)
    finally:
        await dead.aclose()
        await _cleanup(redis, prefix)


def test_limits_name_their_windows_once() -> None:
    limits = RateLimits()
    limits.window("lookups", 30, 60)
    with pytest.raises(ValueError, match="lookups"):
        limits.window("lookups", 5, 60)


async def test_limits_share_every_window(redis: Redis, prefix: str) -> None:
    limits, other = RateLimits(), RateLimits()
    mine = [limits.window("lookups", 1, 60), limits.window("reports", 1, 60)]
    theirs = [other.window("lookups", 1, 60), other.window("reports", 1, 60)]
    limits.share(redis, prefix)
    other.share(redis, prefix)
    try:
        for window, twin in zip(mine, theirs, strict=True):
            assert await window.allow("127.0.0.1")
            assert not await twin.allow("127.0.0.1")
        limits.share(None)  # in this process again
        assert await mine[0].allow("127.0.0.1")
    finally:
        await _cleanup(redis, prefix)
