"""What an operator sees of a real ``cardtable serve``: /metrics (off, on, token) and the
log's line for every refusal, with its cause, once (server/metrics.py, server/logs.py)."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from cardtable.bots.gin.normal import choose
from cardtable.client import ActionRefused, Client, play
from cardtable.server.app import create_app
from cardtable.server.config import ServerConfig
from cardtable.store import sqlite_url
from server_harness import ServerProcess

SAMPLE = re.compile(r"^(\w+)(\{[^}]*\})? (\S+)$")
WAIT = 20.0


def scrape(base_url: str, **headers: str) -> httpx.Response:
    return httpx.get(f"{base_url}/metrics", headers=headers, timeout=10)


def samples(text: str) -> dict[str, float]:
    """``name{labels}`` -> value, for every sample line of an exposition."""
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            match = SAMPLE.match(line)
            assert match is not None, line
            found[match.group(1) + (match.group(2) or "")] = float(match.group(3))
    return found


def log_lines(server: ServerProcess, needle: str) -> list[str]:
    return [line for line in server.output().splitlines() if needle in line]


def wait_until(check: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {WAIT} s: {what}"
        time.sleep(0.05)


@pytest.fixture
def metered(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / "data", env={
        "CARDTABLE_METRICS": "on", "CARDTABLE_SQLITE_BUSY_MS": "200",
        "CARDTABLE_LOG_REPEATS": "2"}).start()
    try:
        yield server
    finally:
        server.stop()


def test_off_by_default_as_if_absent(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data").start()
    try:
        assert scrape(server.base_url).status_code == 404
    finally:
        server.stop()


def test_the_figures_of_a_played_table(metered: ServerProcess) -> None:
    async def play_some() -> int:
        async with Client(metered.base_url) as client:
            seat = await client.create_table("gin")
            async with client.connect(seat) as conn:
                return await play(conn, choose, max_actions=12)

    played = asyncio.run(play_some())
    response = scrape(metered.base_url)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert response.headers["cache-control"] == "no-store"
    figures = samples(response.text)
    # Ours and the computer's: every act committed counts, the player's are timed.
    assert figures['cardtable_actions_total{game="gin"}'] >= played == 12
    assert figures["cardtable_action_seconds_count"] >= played
    assert figures["cardtable_log_commit_seconds_count"] >= played
    assert figures["cardtable_tables_live"] == 1
    assert figures["cardtable_sockets"] == 0  # closed by now
    assert figures["process_cpu_seconds_total"] > 0
    assert figures["process_resident_memory_bytes"] > 10_000_000
    assert any(name.startswith("cardtable_gc_pause_seconds_count") for name in figures)
    assert not any(name.endswith("_created") for name in figures)


def test_a_token_is_asked_of_everyone_when_set(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", env={
        "CARDTABLE_METRICS": "on", "CARDTABLE_METRICS_TOKEN": "s3cret-scrape"}).start()
    try:
        assert scrape(server.base_url).status_code == 401
        refused = scrape(server.base_url, Authorization="Bearer wrong")
        assert refused.status_code == 401 and "CARDTABLE_METRICS_TOKEN" in refused.json()[
            "detail"]
        assert scrape(server.base_url, Authorization="Basic s3cret-scrape").status_code == 401
        good = scrape(server.base_url, Authorization="Bearer s3cret-scrape")
        assert good.status_code == 200 and "cardtable_tables_live" in good.text
    finally:
        server.stop()


@pytest.mark.parametrize(("mode", "status"), [("on", 403), ("open", 200), ("off", 404)])
def test_on_answers_this_machine_only_open_anyone(tmp_path: Path, mode: str,
                                                  status: int) -> None:
    # Starlette's test client comes from the address "testclient", not from loopback.
    config = ServerConfig(data_dir=tmp_path, database_url=sqlite_url(tmp_path), metrics=mode)
    with TestClient(create_app(config)) as client:
        assert client.get("/metrics").status_code == status


def test_a_refusal_is_logged_once_with_its_cause_and_counted(metered: ServerProcess) -> None:
    """A write lock held past the busy timeout (another program on the SQLite file): every
    create is refused with 503, the log says why once, then how many more, and the figures
    count them; once the lock is gone the room works and nothing half-made is left."""
    locker = sqlite3.connect(metered.data_dir / "cardtable.db", isolation_level=None)
    try:
        locker.execute("BEGIN IMMEDIATE")
        body = {"game": "gin", "opponent": "computer", "name": "Ann"}
        for _ in range(4):
            refused = httpx.post(f"{metered.base_url}/api/tables", json=body, timeout=10)
            assert refused.status_code == 503
            assert refused.headers["retry-after"] == "5"
            assert "cannot reach its database" in refused.json()["detail"]
        wait_until(lambda: log_lines(metered, "answered 503"), "the 503 in the log")
        first = log_lines(metered, "answered 503")
        assert len(first) == 1, first
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARNING cardtable\.http "
                        r"\[\d+\] POST /api/tables answered 503: database locked: "
                        r"OperationalError\('database is locked'\)", first[0]), first[0]
        time.sleep(2.1)  # the throttle's window (CARDTABLE_LOG_REPEATS=2) runs out
        assert httpx.post(f"{metered.base_url}/api/tables", json=body,
                          timeout=10).status_code == 503
        wait_until(lambda: len(log_lines(metered, "answered 503")) == 2, "the report")
        assert log_lines(metered, "answered 503")[1].endswith(
            "(and 3 more like it in the last 2 s)")
    finally:
        locker.rollback()
        locker.close()
    figures = samples(scrape(metered.base_url).text)
    assert figures['cardtable_http_errors_total{cause="database locked",status="503"}'] == 5
    assert figures['cardtable_database_errors_total{kind="locked"}'] == 5
    assert httpx.post(f"{metered.base_url}/api/tables", json={"game": "gin"},
                      timeout=10).status_code == 201
    with sqlite3.connect(metered.data_dir / "cardtable.db") as db:
        assert db.execute("SELECT count(*) FROM card_tables").fetchone() == (1,)


def test_a_retry_is_logged_with_its_cause_and_the_move_lands_later(
        metered: ServerProcess) -> None:
    async def scenario() -> None:
        async with Client(metered.base_url) as client:
            seat = await client.create_table("gin")
            async with client.connect(seat) as conn:
                await conn.wait_for(lambda c: c.my_turn, timeout=WAIT)
                version = conn.version
                locker = sqlite3.connect(metered.data_dir / "cardtable.db",
                                         isolation_level=None)
                locker.execute("BEGIN IMMEDIATE")
                try:
                    with pytest.raises(ActionRefused) as refused:
                        await conn.act(choose(conn.view), id="held-1", retries=0)
                    assert refused.value.code == "retry"
                finally:
                    locker.rollback()
                    locker.close()
                assert conn.version == version  # nothing changed
                await conn.act(choose(conn.view), id="held-1")  # the same id, once
                assert conn.version > version

    asyncio.run(scenario())
    lines = log_lines(metered, "could not log version")
    assert len(lines) == 1 and "(database locked)" in lines[0] and " WARNING " in lines[0]
    figures = samples(scrape(metered.base_url).text)
    assert figures['cardtable_retries_total{cause="database locked"}'] == 1


def test_json_lines_on_request(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", env={"CARDTABLE_LOG_FORMAT": "json",
                                                   "CARDTABLE_LOG_LEVEL": "debug"}).start()
    try:
        httpx.post(f"{server.base_url}/api/tables", json={"game": "gin"}, timeout=10)
    finally:
        server.stop()
    logged = [json.loads(line) for line in server.output().splitlines()
              if line.startswith("{")]
    assert logged and all({"ts", "level", "logger", "pid", "msg"} <= set(line)
                          for line in logged)
    assert any(line["logger"] == "cardtable.server" and "objects frozen" in line["msg"]
               for line in logged)
