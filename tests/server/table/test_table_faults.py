"""The table actor under database faults it cannot provoke from outside, in one process.

The store is the real one on a SQLite file; :class:`FaultyStore` only makes chosen calls
fail the way a database does: before anything is written (it is down), or after the
commit landed (the answer was lost on the way back). The real-process tests with a held
write lock and killed PostgreSQL connections are in test_server_faults.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from cardtable.bots.gin.normal import choose
from cardtable.server import protocol as p
from cardtable.server.config import ServerConfig
from cardtable.server.connection import Connection
from cardtable.server.registry import Registry
from cardtable.server.table import Table, rebuild
from cardtable.server.table.commit import SaveFailed
from cardtable.store import EventRecord, Store, sqlite_url

# The version of a friends' table once Bob takes the last seat: the match is dealt then (its
# log's first event, start); nothing is dealt while the table waits.
DEALT = 1


def _fault(what: str) -> OperationalError:
    return OperationalError(what, {}, Exception("database is locked"))


class FaultyStore(Store):
    """The real store, failing on demand. ``appends``: "ok", "down" (nothing is written)
    or "lost" (written and committed, then the answer is lost)."""

    appends = "ok"
    reads_fail = False
    updates_fail = False

    async def _append(self, write: Any) -> None:
        if self.appends == "down":
            write.close()
            raise _fault("INSERT")
        await write
        if self.appends == "lost":
            raise ConnectionResetError("the connection broke before the commit's answer")

    async def append_events(self, batch: list[tuple[str, EventRecord]],
                            fences: Mapping[str, int] | None = None) -> None:
        await self._append(super().append_events(batch, fences))

    async def append_event(self, table_id: str, event: EventRecord,
                           fence: int | None = None) -> None:
        await self._append(super().append_event(table_id, event, fence))

    async def load_events(self, table_id: str, after: int = 0) -> list[EventRecord]:
        if self.reads_fail:
            raise _fault("SELECT")
        return await super().load_events(table_id, after)

    async def update_table(self, table_id: str, **fields: Any) -> None:
        if self.updates_fail:
            raise _fault("UPDATE")
        await super().update_table(table_id, **fields)


@dataclass
class Seat:
    conn: Connection
    view: dict[str, Any]
    version: int = -1

    async def frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(self.conn.outbox.get(), 10))
        if frame["t"] == "view":
            self.view, self.version = frame["d"]["view"], frame["v"]
        return frame

    async def answer(self, ref: str) -> dict[str, Any]:
        """The one answer to act ``ref`` (and, after an error, the snapshot that follows)."""
        while True:
            frame = await self.frame()
            if frame["t"] == "error" and frame["d"]["id"] == ref:
                assert (await self.frame())["t"] == "view"
                return frame
            if frame["t"] == "view" and frame["d"]["ack"] == ref:
                return frame

    async def settle(self) -> None:
        while not self.conn.outbox.empty():
            await self.frame()


def send(table: Table, seat: Seat, message: dict[str, Any]) -> None:
    table.submit(seat.conn, p.parse_client_frame(json.dumps(message)))


def act(table: Table, seat: Seat, ref: str) -> dict[str, Any]:
    """Send the seat's normal Gin move on its version; returns the message (to resend)."""
    message = {"t": "act", "v": seat.version,
               "d": {"id": ref, "action": choose(seat.view).to_json()}}
    send(table, seat, message)
    return message


@asynccontextmanager
async def one_person(tmp_path: Path) -> AsyncIterator[tuple[Table, FaultyStore, str]]:
    """A table of two people, the second seat free: (table, store, seat 0's token)."""
    store = await FaultyStore.open(sqlite_url(tmp_path / "data"))
    registry = Registry(store, ServerConfig(data_dir=tmp_path, bot_delay=0))
    try:
        table, _, ann = await registry.create("gin", {"target": 500}, "friend", "Ann")
        yield table, store, ann
    finally:
        await registry.close()
        await store.close()


async def attach(table: Table, token: str) -> Seat:
    """A connection saying hello with the seat's token (its frames read from its outbox)."""
    conn = Connection(None)  # type: ignore[arg-type]
    hello = p.parse_client_frame(json.dumps({"t": "hello", "d": {"token": token}}))
    assert await table.attach(conn, hello) is None
    return Seat(conn, {})


@asynccontextmanager
async def two_people(tmp_path: Path) -> AsyncIterator[tuple[Table, FaultyStore, list[Seat]]]:
    async with one_person(tmp_path) as (table, store, ann):
        granted = await table.join("Bob")
        assert not isinstance(granted, str)
        seats = [await attach(table, token) for token in (ann, granted[1])]
        for seat in seats:
            await seat.settle()
        assert table.version == DEALT
        yield table, store, seats


def mover(table: Table, seats: list[Seat]) -> Seat:
    assert table.state is not None
    to_act = table.state.current_player()
    assert to_act is not None
    return seats[to_act]


async def assert_matches_log(table: Table, store: Store, seats: list[Seat]) -> None:
    events = await store.load_events(table.table_id)
    assert table.version == (events[-1].version if events else 0)
    replayed = rebuild(table.record, events).state  # None: not dealt yet, and no view
    for number, seat in enumerate(seats):
        await seat.settle()
        assert seat.version == table.version
        assert seat.view == (None if replayed is None
                             else json.loads(json.dumps(replayed.view(number))))


async def test_a_commit_whose_answer_was_lost_counts_once(tmp_path: Path) -> None:
    async with two_people(tmp_path) as (table, store, seats):
        seat = mover(table, seats)
        store.appends = "lost"
        act(table, seat, "m1")
        answer = await seat.answer("m1")
        assert answer["t"] == "view" and answer["v"] == DEALT + 1  # found in the log: done
        store.appends = "ok"
        events = await store.load_events(table.table_id)
        assert [(e.kind, e.cmd_id) for e in events] == [("start", None), ("action", "m1")]
        await assert_matches_log(table, store, seats)


async def test_database_down_takes_the_move_back_and_the_log_wins(tmp_path: Path) -> None:
    async with two_people(tmp_path) as (table, store, seats):
        seat = mover(table, seats)
        before = seat.view
        # Down for reads too, and the commit landed although it was reported failed.
        store.appends, store.reads_fail = "lost", True
        message = act(table, seat, "m1")
        answer = await seat.answer("m1")
        assert answer["d"]["code"] == "retry" and answer["v"] == DEALT
        assert seat.view == before and table.version == DEALT  # taken back in memory
        assert not table.settled
        # Still down: nothing is applied, every command is answered.
        store.appends = "down"
        send(table, seat, message)
        assert (await seat.answer("m1"))["d"]["code"] == "retry"
        other = seats[1 - seats.index(seat)]
        send(table, other, {"t": "act", "v": DEALT,
                            "d": {"id": "x1", "action": {"type": "pass"}}})
        assert (await other.answer("x1"))["d"]["code"] == "retry"
        # Back: the log (which has m1) wins; the resend is acknowledged, applied once.
        store.appends, store.reads_fail = "ok", False
        send(table, seat, message)
        again = await seat.answer("m1")
        assert again["t"] == "view" and again["v"] == DEALT + 1
        assert table.settled
        assert [e.cmd_id for e in await store.load_events(table.table_id)] == [None, "m1"]
        await assert_matches_log(table, store, seats)
        # And play goes on.
        seat = mover(table, seats)
        act(table, seat, "m2")
        assert (await seat.answer("m2"))["v"] == DEALT + 2
        await assert_matches_log(table, store, seats)


async def test_database_down_for_a_move_that_never_landed(tmp_path: Path) -> None:
    async with two_people(tmp_path) as (table, store, seats):
        seat = mover(table, seats)
        store.appends, store.reads_fail = "down", True
        message = act(table, seat, "m1")
        assert (await seat.answer("m1"))["d"]["code"] == "retry"
        store.appends, store.reads_fail = "ok", False
        send(table, seat, message)
        assert (await seat.answer("m1"))["v"] == DEALT + 1
        await assert_matches_log(table, store, seats)


async def test_status_writes_after_logged_events_never_lose_them(tmp_path: Path) -> None:
    async with two_people(tmp_path) as (table, store, seats):
        table.journal.heal_delay = 0.05  # try again soon (the real first wait is a second)
        store.updates_fail = True
        for seat in seats:  # end by agreement: the event is logged, the status write fails
            send(table, seat, {"t": "end", "d": {"agree": True}})
        await seats[0].settle()
        while seats[0].view.get("phase") is None or table.ended is None:
            await seats[0].frame()
        assert table.ended == "agreed" and table.status() == "over"
        row = await store.get_table(table.table_id)
        assert row is not None and row.status == "playing"
        # A rematch now: logged, answered with the new match, the status still lagging.
        for seat in seats:
            send(table, seat, {"t": "rematch"})
        while table.version < DEALT + 2 or not seats[1].conn.outbox.empty():
            await seats[1].frame()
        assert table.status() == "playing" and seats[1].version == DEALT + 2
        # Leaving is the seat's own record: refused as a whole, nothing changes.
        send(table, seats[1], {"t": "leave"})
        while (frame := await seats[1].frame())["t"] != "error":
            pass
        assert frame["d"]["code"] == "retry"
        assert table.record.seats[1].kind == "human" and seats[1].conn in table.connections
        store.updates_fail = False
        for _ in range(200):  # the heal timer writes the row once the database takes it
            if table.settled:
                break
            await asyncio.sleep(0.05)
        row = await store.get_table(table.table_id)
        assert row is not None and row.status == "playing" and table.settled
        await assert_matches_log(table, store, seats)


async def test_any_error_answers_the_sender(tmp_path: Path) -> None:
    async with two_people(tmp_path) as (table, store, seats):
        seat = mover(table, seats)

        def broken(*_: Any, **__: Any) -> None:
            raise RuntimeError("a bug")

        table.next_turn = broken  # type: ignore[method-assign]
        message = act(table, seat, "m1")
        answer = await seat.answer("m1")
        assert answer["d"]["code"] == "internal"
        del table.next_turn
        # The move was logged before the bug: memory is the log's, and a resend is acked.
        send(table, seat, message)
        assert (await seat.answer("m1"))["v"] == DEALT + 1
        await assert_matches_log(table, store, seats)


async def test_a_join_the_database_refuses_changes_nothing(tmp_path: Path) -> None:
    async with one_person(tmp_path) as (table, store, _):
        before = list(table.record.seats)
        store.updates_fail = True
        with pytest.raises(SaveFailed):  # HTTP answers 503
            await table.join("Bob")
        assert table.record.seats == before and table.status() == "waiting"
        store.reads_fail = True  # and the log cannot be read either: still an answer
        table.journal.suspect = True
        with pytest.raises(SaveFailed):
            await table.join("Bob")
        assert table.state is None  # no seat taken, so nothing dealt
        store.updates_fail = store.reads_fail = False
        assert await store.load_events(table.table_id) == []
        granted = await table.join("Bob")
        assert not isinstance(granted, str) and granted[0] == 1
        row = await store.get_table(table.table_id)
        assert row is not None and row.seats[1].name == "Bob" and row.status == "playing"
        assert table.state is not None  # the last seat taken: dealt, once
        assert [e.kind for e in await store.load_events(table.table_id)] == ["start"]


async def test_new_rules_stand_when_the_settings_cannot_be_saved(tmp_path: Path) -> None:
    async with one_person(tmp_path) as (table, store, ann):
        seats = [await attach(table, ann)]
        await seats[0].settle()
        table.journal.heal_delay = 0.05
        turn_time = table.table_settings.turn_time
        store.updates_fail = True
        send(table, seats[0], {"t": "settings", "d": {"settings": {"turn_time": 60},
                                                       "options": {"target": 200}}})
        while (frame := await seats[0].frame())["t"] != "error":
            pass
        assert frame["d"]["code"] == "retry"
        # The new rules are logged (the table waits: nothing is dealt); the other settings
        # were not saved and did not change.
        await assert_matches_log(table, store, seats)
        assert table.state is None and seats[0].view is None
        assert [e.kind for e in await store.load_events(table.table_id)] == ["options"]
        assert table.version == 1 and table.options.to_dict()["target"] == 200
        assert table.record.options["target"] == 200
        assert table.table_settings.turn_time == turn_time != 60
        store.updates_fail = False
        for _ in range(200):
            if table.settled:
                break
            await asyncio.sleep(0.05)
        row = await store.get_table(table.table_id)
        assert row is not None and row.options["target"] == 200 and table.settled
        # Bob takes the last seat: the match is dealt under the rules that stood.
        granted = await table.join("Bob")
        assert not isinstance(granted, str)
        seats.append(await attach(table, granted[1]))
        await assert_matches_log(table, store, seats)
        assert table.version == 2 and seats[1].view["target"] == 200
