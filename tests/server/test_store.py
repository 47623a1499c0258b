"""The store on SQLite and PostgreSQL: schema migrations, tables, the event log, durability."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import insert, inspect, text
from sqlalchemy.engine import Connection

import db_fixtures
from cardtable.store import (
    CodeTaken,
    DuplicateCommand,
    EventRecord,
    SeatRecord,
    Store,
    TableRecord,
    UnknownTable,
    VersionConflict,
    sqlite_url,
)
from cardtable.store.database import utcnow
from cardtable.store.engine import create_engine
from cardtable.store.migrate import current_revision, head_revision, upgrade
from cardtable.store.models import card_tables, metadata

# The database fixtures, by name: pytest_plugins would miss them once --doctest-modules has
# imported db_fixtures.py (pytest parses a module's fixtures once, under its first node id).
pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url
store = db_fixtures.store

ROOT = Path(__file__).resolve().parents[2]


def table(table_id: str = "t_8mQ2xK1v", code: str = "K7PX3M",
          status: str = "waiting") -> TableRecord:
    return TableRecord(
        table_id=table_id, code=code, game="gin", options={"target": 100, "gin_bonus": 25},
        players=2,
        seats=[SeatRecord(0, "Ann", "human", "ab" * 32), SeatRecord(1, None, "human", None)],
        private=True, status=status, start_chance=[[5, 17, 3], {"dealer": 1}])


def action(version: int, seat: int | None = 0, cmd_id: str | None = None) -> EventRecord:
    return EventRecord(version=version, kind="action", seat=seat, cmd_id=cmd_id,
                       payload={"type": "discard", "card": "7h"}, chance=[[1, 2, 3]])


async def test_migrations_create_the_schema_and_rerun_as_no_ops(store_url: str) -> None:
    for i in range(2):
        store = await Store.open(store_url)
        assert await current_revision(store.engine) == head_revision()
        async with store.engine.connect() as conn:
            names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
        assert {"card_tables", "table_events", "alembic_version"} <= names
        await store.create_table(table(f"t_{i}", f"CODE0{i}"))
        await store.close()
    store = await Store.open(store_url)
    assert await store.table_ids() == ["t_0", "t_1"]  # nothing dropped by the second start
    await store.close()


async def test_models_match_the_migrations(store: Store) -> None:
    def diff(sync: Connection) -> list[Any]:
        context = MigrationContext.configure(sync, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))

    async with store.engine.connect() as conn:
        assert await conn.run_sync(diff) == []


async def test_create_and_get_by_id_and_code(store: Store) -> None:
    record = table(code="k7px3m")
    await store.create_table(record)
    assert record.created_at is not None
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None
    assert got.code == "K7PX3M"
    assert got.options == {"target": 100, "gin_bonus": 25}
    assert got.seats == record.seats
    assert got.start_chance == [[5, 17, 3], {"dealer": 1}]
    assert (got.game, got.players, got.private, got.status) == ("gin", 2, True, "waiting")
    assert got.created_at is not None and got.created_at.utcoffset() is not None
    assert abs((got.created_at - datetime.now(UTC)).total_seconds()) < 60
    assert got.created_at == record.created_at
    for code in ("K7PX3M", "k7px3m", "K7px3M"):
        assert await store.get_table_by_code(code) == got
    assert await store.get_table("t_nope") is None
    assert await store.get_table_by_code("ZZZZZZ") is None


async def test_code_taken_in_any_case(store: Store) -> None:
    await store.create_table(table("t_1", "K7PX3M"))
    with pytest.raises(CodeTaken):
        await store.create_table(table("t_2", "k7px3m"))
    assert await store.get_table("t_2") is None


async def test_events_append_in_order_and_load_after(store: Store) -> None:
    await store.create_table(table())
    for version in range(1, 6):
        await store.append_event("t_8mQ2xK1v", action(version, cmd_id=f"c-{version}"))
    await store.append_event("t_8mQ2xK1v", EventRecord(6, "rematch", None, None, {}, []))
    events = await store.load_events("t_8mQ2xK1v")
    assert [e.version for e in events] == [1, 2, 3, 4, 5, 6]
    assert events[0].payload == {"type": "discard", "card": "7h"}
    assert events[0].chance == [[1, 2, 3]]
    assert events[0].cmd_id == "c-1" and events[0].seat == 0
    assert events[-1].kind == "rematch" and events[-1].seat is None
    assert all(e.created_at is not None and e.created_at.tzinfo is not None for e in events)
    assert [e.version for e in await store.load_events("t_8mQ2xK1v", after=4)] == [5, 6]
    assert await store.load_events("t_8mQ2xK1v", after=6) == []
    assert await store.load_events("t_other") == []


async def test_version_conflict_on_gap_or_repeat(store: Store) -> None:
    await store.create_table(table())
    with pytest.raises(VersionConflict) as first:
        await store.append_event("t_8mQ2xK1v", action(2))
    assert first.value.expected == 1
    await store.append_event("t_8mQ2xK1v", action(1))
    with pytest.raises(VersionConflict):
        await store.append_event("t_8mQ2xK1v", action(1))
    with pytest.raises(VersionConflict) as gap:
        await store.append_event("t_8mQ2xK1v", action(3))
    assert gap.value.expected == 2
    with pytest.raises(VersionConflict):
        await store.append_event("t_8mQ2xK1v", action(0))
    assert [e.version for e in await store.load_events("t_8mQ2xK1v")] == [1]


async def test_duplicate_command_per_seat(store: Store) -> None:
    await store.create_table(table())
    await store.append_event("t_8mQ2xK1v", action(1, seat=0, cmd_id="c-1"))
    with pytest.raises(DuplicateCommand) as dup:
        await store.append_event("t_8mQ2xK1v", action(2, seat=0, cmd_id="c-1"))
    assert dup.value.version == 1
    # A stale retry is still reported as the duplicate it is.
    with pytest.raises(DuplicateCommand):
        await store.append_event("t_8mQ2xK1v", action(1, seat=0, cmd_id="c-1"))
    await store.append_event("t_8mQ2xK1v", action(2, seat=1, cmd_id="c-1"))  # another seat
    await store.append_event("t_8mQ2xK1v", action(3, seat=1, cmd_id=None))  # bots: no ids
    await store.append_event("t_8mQ2xK1v", action(4, seat=1, cmd_id=None))
    await store.create_table(table("t_2", "ABCDEF"))
    await store.append_event("t_2", action(1, seat=0, cmd_id="c-1"))  # another table
    assert len(await store.load_events("t_8mQ2xK1v")) == 4


async def test_a_database_error_never_shows_the_values_it_was_given(store_url: str) -> None:
    """Tracebacks go to the log: the values of a failed statement (an event's deck order,
    a hidden card) must not be in its text."""
    engine = create_engine(store_url)
    try:
        async with engine.connect() as conn:
            with pytest.raises(Exception) as failed:
                await conn.execute(text("INSERT INTO no_such_table VALUES (:deck)"),
                                   {"deck": "7h Qs 2c secret-order"})
    finally:
        await engine.dispose()
    assert "no_such_table" in str(failed.value)
    assert "secret-order" not in str(failed.value) + repr(failed.value)


async def test_unknown_table(store: Store) -> None:
    with pytest.raises(UnknownTable):
        await store.append_event("t_nope", action(1))
    with pytest.raises(UnknownTable):
        await store.update_table("t_nope", status="over")


async def test_update_table_round_trip(store: Store) -> None:
    await store.create_table(table())
    seats = [SeatRecord(0, "Ann", "human", "ab" * 32), SeatRecord(1, "Bob", "human", "cd" * 32)]
    await store.update_table("t_8mQ2xK1v", seats=seats)
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None and got.seats == seats and got.status == "waiting"
    await store.update_table("t_8mQ2xK1v", status="playing")
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None and got.seats == seats and got.status == "playing"
    bot = [seats[0], SeatRecord(1, "Computer", "bot", None)]
    await store.update_table("t_8mQ2xK1v", seats=bot, status="over")
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None and got.seats == bot and got.status == "over"


async def test_table_ids_by_status(store: Store) -> None:
    await store.create_table(table("t_a", "AAAAAA", "playing"))
    await store.create_table(table("t_b", "BBBBBB", "over"))
    await store.create_table(table("t_c", "CCCCCC", "playing"))
    assert sorted(await store.table_ids()) == ["t_a", "t_b", "t_c"]
    assert sorted(await store.table_ids("playing")) == ["t_a", "t_c"]
    assert await store.table_ids("waiting") == []


async def test_settings_round_trip(store: Store) -> None:
    record = table()
    assert record.settings == {}
    await store.create_table(record)
    got = await store.get_table(record.table_id)
    assert got is not None and got.settings == {}
    settings = {"turn_time": 30, "private": False, "spectators": True,
                "spectator_chat": False, "levels": ["normal", "easy"]}
    record = table("t_2", "SETTIN")
    record.settings = settings
    await store.create_table(record)
    got = await store.get_table_by_code("settin")
    assert got is not None and got.settings == settings
    assert got == record


async def test_update_table_each_field(store: Store) -> None:
    await store.create_table(table())
    before = await store.get_table("t_8mQ2xK1v")
    assert before is not None
    await store.update_table("t_8mQ2xK1v", options={"target": 250, "gin_bonus": 20})
    await store.update_table("t_8mQ2xK1v", settings={"turn_time": 15, "levels": ["easy"] * 2})
    await store.update_table("t_8mQ2xK1v", private=False)
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None
    assert got.options == {"target": 250, "gin_bonus": 20}
    assert got.settings == {"turn_time": 15, "levels": ["easy", "easy"]}
    assert got.private is False
    # everything else is as it was
    assert (got.seats, got.status, got.start_chance, got.created_at, got.players) == (
        before.seats, before.status, before.start_chance, before.created_at, before.players)
    await store.update_table("t_8mQ2xK1v", private=True)
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None and got.private is True
    await store.update_table("t_8mQ2xK1v", settings={})  # an empty dict is a value, not None
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None and got.settings == {}
    await store.update_table("t_8mQ2xK1v")  # nothing to change: fine
    with pytest.raises(UnknownTable):
        await store.update_table("t_nope", settings={"turn_time": 0})


async def test_update_table_all_at_once(store: Store) -> None:
    await store.create_table(table())
    seats = [SeatRecord(0, "Ann", "human", "ab" * 32), SeatRecord(1, "Computer", "bot", None)]
    await store.update_table("t_8mQ2xK1v", seats=seats, status="playing", options={"target": 50},
                             settings={"turn_time": 60, "private": False}, private=False)
    got = await store.get_table("t_8mQ2xK1v")
    assert got is not None
    assert (got.seats, got.status, got.options, got.settings, got.private) == (
        seats, "playing", {"target": 50}, {"turn_time": 60, "private": False}, False)


async def test_list_tables_filters_oldest_first(store: Store) -> None:
    def made(table_id: str, code: str, status: str, private: bool, age: int) -> TableRecord:
        record = table(table_id, code, status)
        record.private = private
        record.settings = {"turn_time": age}
        record.created_at = datetime(2025, 1, 1, 12, 0, 60 - age, tzinfo=UTC)  # older: larger
        return record

    # Created out of age order: the list follows created_at, not insertion.
    for record in (made("t_c", "CCCCCC", "waiting", False, 10),
                   made("t_a", "AAAAAA", "waiting", False, 30),
                   made("t_p", "PPPPPP", "waiting", True, 20),
                   made("t_g", "GGGGGG", "playing", False, 40),
                   made("t_o", "OOOOOO", "over", True, 50)):
        await store.create_table(record)
    ids = [r.table_id for r in await store.list_tables()]
    assert ids == ["t_o", "t_g", "t_a", "t_p", "t_c"]
    lobby = await store.list_tables(private=False, status="waiting")
    assert [r.table_id for r in lobby] == ["t_a", "t_c"]
    assert lobby[0].settings == {"turn_time": 30}
    assert lobby[0].seats == table().seats
    assert [r.table_id for r in await store.list_tables(private=True)] == ["t_o", "t_p"]
    assert [r.table_id for r in await store.list_tables(private=False)] == ["t_g", "t_a", "t_c"]
    assert [r.table_id for r in await store.list_tables(status="waiting")] == [
        "t_a", "t_p", "t_c"]
    assert await store.list_tables(private=True, status="playing") == []
    await store.update_table("t_p", private=False)
    await store.update_table("t_a", status="playing")
    lobby = await store.list_tables(private=False, status="waiting")
    assert [r.table_id for r in lobby] == ["t_p", "t_c"]


async def test_upgrade_from_0001_keeps_tables_with_empty_settings(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        await upgrade(engine, "0001")
        assert await current_revision(engine) == "0001"
        async with engine.begin() as conn:
            columns = await conn.run_sync(
                lambda sync: {c["name"] for c in inspect(sync).get_columns("card_tables")})
            assert "settings" not in columns
            now = utcnow()
            await conn.execute(insert(card_tables).values(  # the 0001 columns only
                table_id="t_old", code="OLD123", game="gin", options={"target": 100},
                players=2, seats=[seat.to_json() for seat in table().seats], private=False,
                status="waiting", start_chance=[[1, 2]], created_at=now, updated_at=now))
    finally:
        await engine.dispose()
    store = await Store.open(store_url)  # migrates to head
    try:
        assert await current_revision(store.engine) == head_revision()
        got = await store.get_table("t_old")
        assert got is not None
        assert got.settings == {}
        assert (got.code, got.options, got.seats, got.start_chance) == (
            "OLD123", {"target": 100}, table().seats, [[1, 2]])
        await store.append_event("t_old", action(1))  # the log still works on the old table
        assert [r.table_id for r in await store.list_tables(private=False, status="waiting")
                ] == ["t_old"]
        await store.update_table("t_old", settings={"turn_time": 30})
        got = await store.get_table("t_old")
        assert got is not None and got.settings == {"turn_time": 30}
        await store.create_table(table("t_new", "NEW123"))  # the default applies to new rows
        new = await store.get_table("t_new")
        assert new is not None and new.settings == {}
    finally:
        await store.close()


async def test_downgrade_to_0001_and_back(store_url: str) -> None:
    from alembic import command

    from cardtable.store.migrate import alembic_config

    store = await Store.open(store_url)
    await store.create_table(table())
    await store.append_event("t_8mQ2xK1v", action(1))

    def down(sync: Connection) -> None:
        config = alembic_config(store_url)
        config.attributes["connection"] = sync
        command.downgrade(config, "0001")

    try:
        async with store._writer.begin() as conn:
            await conn.run_sync(down)
        assert await current_revision(store.engine) == "0001"
        async with store.engine.connect() as conn:
            columns = await conn.run_sync(
                lambda sync: {c["name"] for c in inspect(sync).get_columns("card_tables")})
        assert "settings" not in columns
    finally:
        await store.close()
    store = await Store.open(store_url)
    try:
        got = await store.get_table("t_8mQ2xK1v")
        assert got is not None and got.settings == {}
        assert [e.version for e in await store.load_events("t_8mQ2xK1v")] == [1]
    finally:
        await store.close()


async def test_data_survives_close_and_reopen(store_url: str) -> None:
    store = await Store.open(store_url)
    await store.create_table(table())
    await store.append_event("t_8mQ2xK1v", action(1, cmd_id="c-1"))
    await store.update_table("t_8mQ2xK1v", status="playing")
    before = await store.get_table("t_8mQ2xK1v")
    await store.close()
    store = await Store.open(store_url)
    try:
        assert await store.get_table("t_8mQ2xK1v") == before
        assert [e.cmd_id for e in await store.load_events("t_8mQ2xK1v")] == ["c-1"]
        await store.append_event("t_8mQ2xK1v", action(2))
    finally:
        await store.close()


async def test_concurrent_appends_of_one_version_one_wins(store: Store) -> None:
    await store.create_table(table())
    for version in (1, 2, 3):
        results = await asyncio.gather(
            *(store.append_event("t_8mQ2xK1v", action(version, seat=i % 2, cmd_id=f"c{i}"))
              for i in range(6)),
            return_exceptions=True)
        assert sum(r is None for r in results) == 1, results
        assert all(r is None or isinstance(r, VersionConflict | DuplicateCommand)
                   for r in results), results
    assert [e.version for e in await store.load_events("t_8mQ2xK1v")] == [1, 2, 3]


async def test_concurrent_retries_of_one_command_log_it_once(store: Store) -> None:
    await store.create_table(table())
    results = await asyncio.gather(
        *(store.append_event("t_8mQ2xK1v", action(1, cmd_id="c-1")) for _ in range(4)),
        return_exceptions=True)
    assert sum(r is None for r in results) == 1, results
    assert len(await store.load_events("t_8mQ2xK1v")) == 1


def test_urls(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "new" / "dir")
    assert (tmp_path / "new" / "dir").is_dir()
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'new' / 'dir' / 'cardtable.db'}"
    # DATABASE_URL is the server's configuration: tests/server/test_server_config.py.


async def test_sqlite_is_wal_and_fsyncs(tmp_path: Path) -> None:
    store = await Store.open(sqlite_url(tmp_path))
    try:
        async with store.engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
            assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar() == 2  # FULL
            assert (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    finally:
        await store.close()


WRITER = textwrap.dedent("""
    import asyncio, sys
    from cardtable.store import EventRecord, SeatRecord, Store, TableRecord

    async def main(url):
        store = await Store.open(url)
        await store.create_table(TableRecord("t_1", "KILLME", "gin", {}, 2,
            [SeatRecord(0, "Ann", "human", None)], False, "playing", []))
        print("ready", flush=True)
        version = 0
        while True:
            version += 1
            await store.append_event("t_1", EventRecord(version, "action", 0, f"c{version}",
                                                        {"type": "knock"}, [version]))
            print(version, flush=True)

    asyncio.run(main(sys.argv[1]))
""")


async def test_acknowledged_events_survive_sigkill(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    acknowledged: list[int] = []
    with (open(tmp_path / "stderr.txt", "w+") as stderr,
          subprocess.Popen([sys.executable, "-c", WRITER, url], stdout=subprocess.PIPE,
                           stderr=stderr, text=True, env=env) as proc):
        assert proc.stdout is not None
        try:
            assert proc.stdout.readline().strip() == "ready", stderr.read()
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                assert line, stderr.read()
                acknowledged.append(int(line))
            os.kill(proc.pid, signal.SIGKILL)  # mid-stream: appends are in flight
            proc.wait(timeout=10)
            acknowledged += [int(line) for line in proc.stdout.read().split()]
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert len(acknowledged) >= 5, acknowledged
    store = await Store.open(url)
    try:
        logged = [e.version for e in await store.load_events("t_1")]
    finally:
        await store.close()
    assert logged[:len(acknowledged)] == acknowledged  # nothing acknowledged was lost
    assert logged == list(range(1, len(logged) + 1))  # at most the in-flight one beyond
    assert len(logged) - len(acknowledged) <= 1
