"""Chat and mutes kept with the table, on SQLite and PostgreSQL: the store, migration 0003,
and a real server killed with -9 and started again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert, inspect
from sqlalchemy.engine import Connection

import db_fixtures
from cardtable.server.chat import HISTORY
from cardtable.store import ChatRecord, EventRecord, SeatRecord, Store, TableRecord, UnknownTable
from cardtable.store.database import utcnow
from cardtable.store.engine import create_engine
from cardtable.store.migrate import current_revision, head_revision, upgrade
from cardtable.store.models import card_tables, table_events
from chat_helpers import heard_before, history, say
from db_fixtures import run_async
from local_server import eventually
from server_harness import ServerProcess
from table_life_helpers import join_table, quiet_table, sit, table_info, watch

store_url = db_fixtures.store_url
pg_database_url = db_fixtures.pg_database_url

T0 = datetime(2025, 3, 1, 12, 0, 0, 123000, tzinfo=UTC)


def table(table_id: str = "t_chat", code: str = "CHAT01") -> TableRecord:
    return TableRecord(
        table_id=table_id, code=code, game="gin", options={"target": 100}, players=2,
        seats=[SeatRecord(0, "Ann", "human", "ab" * 32), SeatRecord(1, "Bob", "human", "cd" * 32)],
        private=True, status="playing", start_chance=[[1, 2, 3]])


def line(seq: int, channel: str = "players", text: str | None = None) -> ChatRecord:
    seat = seq % 2 if channel == "players" else None
    return ChatRecord(seq=seq, channel=channel,
                      sender=f"seat:{seat}" if seat is not None else f"spectator:{seq}",
                      seat=seat, name="Ann" if seat == 0 else "Bob" if seat == 1 else "Zoe",
                      text=text or f"line {seq}", created_at=T0 + timedelta(seconds=seq))


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    opened = await Store.open(store_url)
    await opened.create_table(table())
    yield opened
    await opened.close()


async def test_chat_is_kept_oldest_first_and_pruned_per_room(store: Store) -> None:
    assert await store.load_chat("t_chat") == []
    spectators = {5, 17, 40}  # a few spectators' lines among many of the players'
    for seq in range(1, HISTORY + 21):
        channel = "spectators" if seq in spectators else "players"
        await store.append_chat("t_chat", line(seq, channel), keep=HISTORY)
    kept = await store.load_chat("t_chat")
    players = [r for r in kept if r.channel == "players"]
    assert len(players) == HISTORY and players[-1].seq == HISTORY + 20
    assert [r.seq for r in kept if r.channel == "spectators"] == sorted(spectators)
    assert [r.seq for r in kept] == sorted(r.seq for r in kept)
    assert kept[-1] == line(HISTORY + 20)  # every field, the time to the microsecond
    assert kept[-1].created_at.tzinfo is not None


async def test_the_first_line_and_its_text_round_trip(store: Store) -> None:
    await store.append_chat("t_chat", line(1, text="Grüße <b>🂡</b> \\u003c"), keep=3)
    assert await store.load_chat("t_chat") == [line(1, text="Grüße <b>🂡</b> \\u003c")]


async def test_chat_of_an_unknown_table(store: Store) -> None:
    with pytest.raises(UnknownTable):
        await store.append_chat("t_nothing", line(1), keep=HISTORY)


async def test_mutes_and_runtime_round_trip(store: Store) -> None:
    got = await store.get_table("t_chat")
    assert got is not None and got.mutes == {} and got.runtime is None
    runtime = {"boot": "b1", "version": 7, "seats": [{"standin": None}], "rematch": [0]}
    await store.update_table("t_chat", mutes={"1": [0]}, runtime=runtime)
    got = await store.get_table("t_chat")
    assert got is not None and got.mutes == {"1": [0]} and got.runtime == runtime
    await store.update_table("t_chat", mutes={})  # the runtime stays as it was
    got = await store.get_table("t_chat")
    assert got is not None and got.mutes == {} and got.runtime == runtime


async def test_upgrade_from_0002_keeps_tables_and_logs(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        await upgrade(engine, "0002")
        async with engine.begin() as conn:
            now = utcnow()
            await conn.execute(insert(card_tables).values(  # the 0002 columns only
                table_id="t_old", code="OLD123", game="gin", options={"target": 100},
                players=2, seats=[s.to_json() for s in table().seats], private=False,
                status="playing", start_chance=[[1, 2]], settings={"turn_time": 30},
                created_at=now, updated_at=now))
            await conn.execute(insert(table_events).values(
                table_id="t_old", version=1, kind="action", seat=0, cmd_id="c-1",
                payload={"type": "draw_stock"}, chance=[], created_at=now))
    finally:
        await engine.dispose()
    store = await Store.open(store_url)  # migrates to head
    try:
        assert await current_revision(store.engine) == head_revision()
        got = await store.get_table("t_old")
        assert got is not None
        assert (got.settings, got.mutes, got.runtime) == ({"turn_time": 30}, {}, None)
        assert [e.version for e in await store.load_events("t_old")] == [1]
        await store.append_event("t_old", EventRecord(2, "action", 1, "c-2",
                                                      {"type": "discard"}, []))
        await store.append_chat("t_old", line(1), keep=HISTORY)
        assert [r.seq for r in await store.load_chat("t_old")] == [1]
    finally:
        await store.close()


async def test_downgrade_to_0002_keeps_tables(store: Store, store_url: str) -> None:
    from alembic import command

    from cardtable.store.migrate import alembic_config

    await store.append_chat("t_chat", line(1), keep=HISTORY)
    await store.update_table("t_chat", mutes={"0": [1]})

    def down(sync: Connection) -> None:
        config = alembic_config(store_url)
        config.attributes["connection"] = sync
        command.downgrade(config, "0002")

    async with store._writer.begin() as conn:
        await conn.run_sync(down)
    async with store.engine.connect() as conn:
        names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
        columns = await conn.run_sync(
            lambda sync: {c["name"] for c in inspect(sync).get_columns("card_tables")})
    assert "chat_messages" not in names and not {"mutes", "runtime"} & columns
    assert await current_revision(store.engine) == "0002"
    await upgrade(store.engine)
    got = await store.get_table("t_chat")
    assert got is not None and got.mutes == {} and await store.load_chat("t_chat") == []


# -- a real server, killed --------------------------------------------------------------------


async def runtime_written(url: str, table_id: str) -> bool:
    """Whether the table's row holds a runtime: the server evicted it."""
    store = await Store.open(url)
    try:
        record = await store.get_table(table_id)
        return record is not None and record.runtime is not None
    finally:
        await store.close()


async def test_chat_and_mutes_survive_kill_9(store_url: str, tmp_path: Path) -> None:
    """And a table evicted before the crash comes back as after any restart: whole grace
    periods from the restart (the runtime of a dead process is not taken back)."""
    database = None if store_url.startswith("sqlite") else store_url
    server = ServerProcess(tmp_path / "data", database_url=database,
                           env={"CARDTABLE_JOIN_LIMIT": "100000",
                                "CARDTABLE_EVICT_IDLE": "0.3"}).start()
    try:
        grant = quiet_table(server)
        other = join_table(server, grant["code"])
        table_id = grant["table_id"]
        ann, bob = await sit(server, grant, "Ann"), await sit(server, other, "Bob")
        zoe = await watch(server, table_id, "Zoe")
        await bob.send("mute", {"seat": 0, "muted": True})
        await zoe.send("mute", {"seat": 1, "muted": True})  # a spectator's: his connection's
        for player in (bob, zoe):
            await player.until(lambda f: f["t"] == "muted", "the mute")
        said = [await say(ann, "hello", zoe), await say(bob, "hi", ann),
                await say(zoe, "psst")]
        for player in (ann, bob):
            await player.close()
        seats = await zoe.seats_become(
            lambda s: not s[0]["connected"] and not s[1]["connected"], "both gone")
        held = [s["reconnect_deadline"] for s in seats]
        await zoe.close()
        await eventually(lambda: run_async(lambda: runtime_written(store_url, table_id)),
                         "the table evicted")
        server.restart()  # kill -9, then start on the same database
        seats = table_info(server, grant["code"])["seats"]
        assert all(s["reconnect_deadline"] > before for s, before in zip(seats, held,
                                                                          strict=True))

        zoe = await watch(server, table_id, "Zoe")
        assert await history(zoe) == said  # a new connection: no mutes of the old one
        bob = await sit(server, other, "Bob")
        assert await history(bob) == [said[1]]  # his mute of Ann outlived the server
        ann = await sit(server, grant, "Ann")
        assert await history(ann) == said[:2]
        after = await say(ann, "after the restart", zoe)
        assert after["id"] > max(m["id"] for m in said)  # ids go on, never reused
        assert await heard_before(bob, "bob's marker") == []
        # Unmuting is kept too.
        await bob.send("mute", {"seat": 0, "muted": False})
        await bob.until(lambda f: f["t"] == "muted" and f["d"]["seats"] == [], "the unmute")
        for player in (ann, bob, zoe):
            await player.close()
        server.restart()
        bob = await sit(server, other, "Bob")
        assert [m["text"] for m in await history(bob)] == [
            "hello", "hi", "after the restart", "bob's marker"]
        await bob.close()
    finally:
        server.stop()
