"""Break the database in the middle of play: every command is answered, nothing is lost.

A real ``cardtable serve`` on each database. SQLite: the test holds the database's write
lock (``BEGIN EXCLUSIVE`` from a connection of its own; reads go on, as with a long
VACUUM or a second writer). PostgreSQL: the test closes the server's database to new
connections and terminates the server's backends on it (only on the server's own test
database), as a crashed or restarted database does. While the fault lasts, people act,
resend, sync, join and ask for a rematch, and a computer's move falls due; each command
sent must get exactly one answer. Afterwards the tables play on across a new deal, the
computer moves by itself, and every seat's view equals the view rebuilt from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from websockets.asyncio.client import ClientConnection, connect

import db_fixtures
from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Frame
from cardtable.server.table.replay import rebuild
from cardtable.store import Store
from server_harness import ServerProcess
from ws_helpers import create

store_url = db_fixtures.store_url
pg_database_url = db_fixtures.pg_database_url

BOT_DELAY = 0.5  # long enough to start the fault between a person's move and the computer's
ENV = {"CARDTABLE_SQLITE_BUSY_MS": "300", "CARDTABLE_BOT_DELAY": str(BOT_DELAY),
       "CARDTABLE_JOIN_LIMIT": "100000"}


class Fault:
    """The database fault of the test's database: ``hold`` starts it, ``release`` ends it."""

    def __init__(self, server: ServerProcess, database: str | None):
        self.server, self.database = server, database
        self.lock: sqlite3.Connection | None = None

    async def hold(self) -> None:
        if self.database is None:
            await asyncio.to_thread(self._lock_sqlite)
            return
        admin = await asyncpg.connect(host=db_fixtures.PG_HOST, port=db_fixtures.PG_PORT,
                                      user=db_fixtures.PG_USER, database="postgres")
        try:
            await admin.execute(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS false')
            killed = await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = $1 AND pid <> pg_backend_pid()", self.database)
            assert killed >= 1  # the server's pooled connection, at least
        finally:
            await admin.close()

    async def release(self) -> None:
        if self.database is None:
            if self.lock is not None:
                self.lock.execute("ROLLBACK")
                self.lock.close()
                self.lock = None
            return
        admin = await asyncpg.connect(host=db_fixtures.PG_HOST, port=db_fixtures.PG_PORT,
                                      user=db_fixtures.PG_USER, database="postgres")
        try:
            await admin.execute(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS true')
        finally:
            await admin.close()

    def _lock_sqlite(self) -> None:
        lock = sqlite3.connect(self.server.data_dir / "cardtable.db", timeout=30,
                               isolation_level=None, check_same_thread=False)
        lock.execute("BEGIN EXCLUSIVE")
        self.lock = lock


class Player:
    """A raw table socket that counts what it sent and what answered it."""

    def __init__(self, ws: ClientConnection):
        self.ws = ws
        self.view: dict[str, Any] = {}
        self.version = -1
        self.sent: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.codes: Counter[str] = Counter()  # error codes received

    @classmethod
    async def seated(cls, server: ServerProcess, table_id: str, token: str) -> Player:
        player = cls(await connect(f"{server.ws_base}/ws/{table_id}"))
        await player.send({"t": "hello", "d": {"token": token}})
        await player.until(lambda f: f["t"] == "view")
        return player

    async def send(self, message: dict[str, Any]) -> None:
        if message["t"] == "act":
            self.sent[message["d"]["id"]] += 1
        await self.ws.send(json.dumps(message))

    async def read(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
        d = frame["d"]
        if frame["t"] == "view":
            self.view, self.version = d["view"], frame["v"]
            if d.get("ack"):
                self.answered[d["ack"]] += 1
        elif frame["t"] == "error":
            self.codes[d["code"]] += 1
            if d.get("id"):
                self.answered[d["id"]] += 1
        return frame

    async def until(self, match: Any) -> dict[str, Any]:
        while True:
            frame = await self.read()
            if match(frame):
                return frame

    async def act(self, ref: str, action: dict[str, Any] | None = None,
                  version: int | None = None) -> dict[str, Any]:
        """Send an act and read until its answer (an error's snapshot is read too)."""
        message = {"t": "act", "v": self.version if version is None else version,
                   "d": {"id": ref, "action": action or choose(self.view).to_json()}}
        await self.send(message)
        answer = await self.until(lambda f: (f["t"] == "error" and f["d"].get("id") == ref)
                                  or (f["t"] == "view" and f["d"].get("ack") == ref))
        if answer["t"] == "error":
            await self.until(lambda f: f["t"] == "view")
        return answer

    async def sync(self) -> dict[str, Any]:
        await self.send({"t": "sync"})
        return await self.until(lambda f: f["t"] == "view")

    def my_turn(self, seat: int) -> bool:
        return self.view.get("to_act") == seat and bool(self.view.get("legal"))

    async def listen(self, seconds: float) -> None:
        """Read whatever comes for ``seconds``."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while True:
                    await self.read()


def grant(server: ServerProcess, opponent: str, **options: Any) -> dict[str, Any]:
    return create(server, opponent, **options)


def join(server: ServerProcess, code: str) -> httpx.Response:
    return httpx.post(f"{server.base_url}/api/tables/{code}/join", json={"name": "Bob"},
                      timeout=60)


async def play_until(players: list[Player], done: Any, prefix: str) -> None:
    """Both seats of a friend table play normal Gin moves until ``done()``."""
    n = 0
    while not done():
        seat = players[0].view["to_act"]
        mover = players[seat]
        answer = await mover.act(f"{prefix}{n}")
        assert answer["t"] == "view", answer
        for other in players:
            while other.version < answer["v"]:
                await other.read()
        n += 1


async def check_against_log(store: Store, table_id: str, players: dict[int, Player]) -> None:
    """Every seat's view (a fresh snapshot) equals the log's replay, at the log's version."""
    record = await store.get_table(table_id)
    events = await store.load_events(table_id)
    assert record is not None and events
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    ids = Counter((e.seat, e.cmd_id) for e in events if e.cmd_id is not None)
    assert all(count == 1 for count in ids.values())
    replayed = rebuild(record, events).state
    for seat, player in players.items():
        frame = await player.sync()
        assert frame["v"] == events[-1].version
        assert frame["d"]["view"] == json.loads(json.dumps(replayed.view(seat)))


async def database_fault_mid_play(server: ServerProcess, fault: Fault, url: str) -> None:
    # A friend table in play, a table against the computer, one over (ended by
    # agreement) for a rematch, one waiting for a friend to join.
    friends = grant(server, "friend", target=500)
    bob = join(server, friends["code"]).json()
    players = [await Player.seated(server, friends["table_id"], g["token"])
               for g in (friends, bob)]
    await play_until(players, lambda: players[0].version >= 4, "a")
    solo = grant(server, "computer", target=500)
    alone = await Player.seated(server, solo["table_id"], solo["token"])
    over = grant(server, "computer", target=500)
    done = await Player.seated(server, over["table_id"], over["token"])
    await done.send({"t": "end", "d": {"agree": True}})
    await done.until(lambda f: f["t"] == "view" and f["d"].get("ended") == "agreed")
    waiting = grant(server, "friend")

    # The person plays until the computer is to move, and the fault starts at once.
    n = 0
    while True:
        while not alone.my_turn(0):
            await alone.read()
        answer = await alone.act(f"s{n}")
        assert answer["t"] == "view", answer
        n += 1
        if answer["d"]["view"]["to_act"] != 0:
            break
    computer_due = alone.version
    await fault.hold()
    try:
        seat = players[0].view["to_act"]
        mover, other = players[seat], players[1 - seat]
        move = choose(mover.view).to_json()
        version = mover.version
        first = await mover.act("f1", move)
        assert first["t"] == "error" and first["d"]["code"] == "retry", first
        again = await mover.act("f1", move, version)  # the same command, resent
        assert again["t"] == "error" and again["d"]["code"] == "retry", again
        wrong = await other.act("f2", {"type": "pass"})  # never applied: refused or retry
        assert wrong["t"] == "error", wrong
        assert (await other.sync())["v"] == version  # reading still answers
        await other.send({"t": "ping"})
        await other.until(lambda f: f["t"] == "pong")
        await done.send({"t": "rematch"})
        refused = await done.until(lambda f: f["t"] == "error")
        assert refused["d"]["code"] == "retry", refused
        joined = await asyncio.to_thread(join, server, waiting["code"])
        assert joined.status_code == 503, joined.text
        assert "database" in joined.json()["detail"]
        # The computer's move fell due during the fault: it is not lost, nor made twice.
        await alone.listen(3 * BOT_DELAY)
        assert alone.version == computer_due
    finally:
        await fault.release()

    # Play goes on: the resend is applied once, the hand is played out, a new one dealt.
    assert (await mover.act("f1", move, version))["v"] == version + 1
    for player in players:
        while player.version < version + 1:
            await player.read()
    hand = players[0].view["hand"]
    await play_until(players, lambda: players[0].view["hand"] > hand
                     and players[0].version > version + 3, "b")
    # The computer moves by itself once the database is back.
    await alone.until(lambda f: f["t"] == "view" and f["v"] > computer_due)
    while not alone.my_turn(0):
        await alone.read()
    await done.send({"t": "rematch"})
    await done.until(lambda f: f["t"] == "view" and f["d"]["view"]["phase"] != "match_over")
    assert join(server, waiting["code"]).status_code == 200

    for player in [*players, alone, done]:
        assert player.answered == player.sent, (player.sent, player.answered)
    assert players[0].codes["retry"] + players[1].codes["retry"] >= 2
    store = await Store.open(url)
    try:
        await check_against_log(store, friends["table_id"], dict(enumerate(players)))
        await check_against_log(store, solo["table_id"], {0: alone})
        await check_against_log(store, over["table_id"], {0: done})
    finally:
        await store.close()
    for player in [*players, alone, done]:
        await player.ws.close()


async def test_database_fault_mid_play(store_url: str, tmp_path: Path) -> None:
    database = None if store_url.startswith("sqlite") else store_url
    server = ServerProcess(tmp_path / "data", database_url=database, env=ENV).start()
    fault = Fault(server, None if database is None else database.rsplit("/", 1)[1])
    try:
        await asyncio.wait_for(database_fault_mid_play(server, fault, server.store_url), 300)
    finally:
        await fault.release()
        server.stop()


async def test_the_client_resends_what_the_server_could_not_save(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", env=ENV).start()
    fault = Fault(server, None)
    try:
        records: tuple[list[Frame], list[Frame]] = ([], [])
        async with Client(server.base_url) as client:
            ann = await client.create_table("gin", {"target": 500}, opponent="friend")
            bob = await client.join(ann.code, "Bob")
            async with client.connect(ann, record=records[0]) as a, \
                    client.connect(bob, record=records[1]) as b:
                conn, frames = (a, records[0]) if a.my_turn else (b, records[1])
                before = conn.version
                await fault.hold()
                acting = asyncio.create_task(conn.act(choose(conn.view), id="c1"))
                async with asyncio.timeout(60):
                    while not any(f.t == "error" and f.d.get("code") == "retry"
                                  for f in frames):
                        await asyncio.sleep(0.05)
                await fault.release()
                answer = await asyncio.wait_for(acting, 60)
                assert answer.ack == "c1" and answer.v == before + 1
                assert conn.version == before + 1
    finally:
        await fault.release()
        server.stop()
