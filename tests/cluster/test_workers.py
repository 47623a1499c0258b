"""``cardtable serve --workers N``: N processes on one port, one card room over Redis
(uvicorn's supervisor shares the listening socket; src/cardtable/server/serving.py)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from cardtable.client import Client, play
from cluster_harness import shared_redis_url, unavailable
from db_fixtures import create_pg_database, drop_pg_database, pg_url, run_async
from server_harness import free_port

pytestmark = pytest.mark.slow


@pytest.fixture
def room_env() -> Iterator[dict[str, str]]:
    if (why := unavailable()) is not None:
        pytest.skip(why)
    name = run_async(lambda: create_pg_database("cardtable_workers"))
    prefix = f"cardtable_test_{secrets.token_hex(6)}"
    try:
        yield {**os.environ, "REDIS_URL": shared_redis_url(), "DATABASE_URL": pg_url(name),
               "CARDTABLE_REDIS_PREFIX": prefix, "CARDTABLE_LEASE_TTL": "2",
               "CARDTABLE_BOT_DELAY": "0", "CARDTABLE_JOIN_LIMIT": "100000",
               "CARDTABLE_CREATE_LIMIT": "100000", "CARDTABLE_SOCKET_LIMIT": "100000"}
    finally:
        with redis.Redis.from_url(shared_redis_url()) as client:
            keys = list(client.scan_iter(match=f"{prefix}:*"))
            if keys:
                client.delete(*keys)
        run_async(lambda: drop_pg_database(name))


def nodes_seen(base: str, requests: int = 40) -> set[str]:
    seen = set()
    for _ in range(requests):
        with httpx.Client(timeout=5) as client:  # a new connection each time: any worker
            try:
                answer = client.get(f"{base}/api/health")
            except httpx.TransportError:  # not listening yet
                continue
            if answer.status_code == 200:
                seen.add(answer.json()["node"])
    return seen


async def test_three_workers_are_one_card_room(tmp_path: Path,
                                               room_env: dict[str, str]) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "workers.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "cardtable", "serve", "--port", str(port), "--workers", "3",
         "--data-dir", str(tmp_path)], env=room_env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(seen := nodes_seen(base, 10)) < 3:
            assert server.poll() is None, (tmp_path / "workers.log").read_text()[-3000:]
            assert time.monotonic() < deadline, f"only {seen} answered"
            time.sleep(0.2)
        # A whole match, its sockets and requests landing on any of the three.
        async with Client(base) as client:
            grant = await client.create_table(game="gin", opponent="computer", name="Ann",
                                              options={"deals": 1})
            async with client.connect(grant) as conn:
                await play(conn, lambda view: view["legal"][0], max_actions=2000)
                assert conn.view["phase"] == "match_over"
        # A worker that dies is started again by the supervisor, as a new member.
        victim = httpx.get(f"{base}/api/health", timeout=5).json()["pid"]
        assert victim != server.pid  # a worker, not the supervisor
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while len(nodes_seen(base, 10) - seen) < 1:
            assert time.monotonic() < deadline, "the dead worker was not replaced"
            time.sleep(0.5)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            raise
        log.close()
    assert code == 0, (tmp_path / "workers.log").read_text()[-3000:]


def test_workers_without_redis_are_refused_clearly(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "cardtable", "serve", "--port", str(free_port()),
         "--workers", "2", "--data-dir", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--workers needs REDIS_URL" in done.stderr


def test_redis_without_postgresql_is_refused_clearly(tmp_path: Path) -> None:
    env = {**{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
           "REDIS_URL": "redis://127.0.0.1:6379/0"}
    done = subprocess.run(
        [sys.executable, "-m", "cardtable", "serve", "--port", str(free_port()),
         "--data-dir", str(tmp_path)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "REDIS_URL needs DATABASE_URL on PostgreSQL" in done.stderr
