"""The fencing token in the event log (store side of cardtable/cluster/leases.py), on
SQLite and PostgreSQL: a process that lost a table's lease can never append to its log,
change its row or keep its chat, and a new owner's claim waits for an append under way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

import db_fixtures
from cardtable.server.log_writer import LogWriter
from cardtable.store import ChatRecord, EventRecord, Fenced, SeatRecord, Store, TableRecord

pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url


def table(table_id: str, code: str) -> TableRecord:
    return TableRecord(
        table_id=table_id, code=code, game="gin", options={}, players=2,
        seats=[SeatRecord(0, "Ann", "human", "ab" * 32), SeatRecord(1, None, "bot", None)],
        private=False, status="playing", start_chance=[[5, 17, 3]])


def action(version: int, cmd_id: str | None = None) -> EventRecord:
    return EventRecord(version=version, kind="action", seat=0, cmd_id=cmd_id,
                       payload={"type": "discard", "card": "7h"}, chance=[])


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    opened = await Store.open(store_url)
    await opened.create_table(table("t_a", "AAAAAA"))
    await opened.create_table(table("t_b", "BBBBBB"))
    yield opened
    await opened.close()


async def test_a_claim_takes_only_a_newer_token(store: Store) -> None:
    assert await store.fence_of("t_a") == 0
    assert await store.claim("t_a", 3)
    assert not await store.claim("t_a", 3)  # the same token again: nothing to do
    assert not await store.claim("t_a", 2)  # an older one never wins
    assert await store.fence_of("t_a") == 3
    assert await store.fence_of("t_nope") is None


async def test_the_old_owner_cannot_append_after_a_claim(store: Store) -> None:
    await store.claim("t_a", 1)
    await store.append_event("t_a", action(1), fence=1)
    await store.claim("t_a", 2)  # another process took the lease over
    with pytest.raises(Fenced) as caught:
        await store.append_event("t_a", action(2, "late"), fence=1)
    assert caught.value.table_ids == frozenset({"t_a"})
    assert [e.version for e in await store.load_events("t_a")] == [1]  # nothing written
    await store.append_event("t_a", action(2, "new owner"), fence=2)
    assert [e.cmd_id for e in await store.load_events("t_a")] == [None, "new owner"]


async def test_a_batch_with_a_stale_table_keeps_nothing(store: Store) -> None:
    await store.claim("t_a", 5)
    await store.claim("t_b", 7)
    with pytest.raises(Fenced) as caught:
        await store.append_events([("t_a", action(1)), ("t_b", action(1))], {"t_a": 5, "t_b": 6})
    assert caught.value.table_ids == frozenset({"t_b"})
    assert await store.load_events("t_a") == [] and await store.load_events("t_b") == []


async def test_the_log_writer_commits_the_owned_tables_of_a_batch(store: Store) -> None:
    """One stale table in a group commit fails alone: the others' events are durable."""
    import asyncio

    await store.claim("t_a", 5)
    await store.claim("t_b", 7)
    writer = LogWriter(store)
    writer.start()
    try:
        results = await asyncio.gather(writer.append("t_a", action(1), 5),
                                       writer.append("t_b", action(1), 6),
                                       return_exceptions=True)
    finally:
        await writer.stop()
    assert results[0] is None and isinstance(results[1], Fenced)
    assert len(await store.load_events("t_a")) == 1 and await store.load_events("t_b") == []


async def test_row_and_chat_writes_are_fenced_too(store: Store) -> None:
    await store.claim("t_a", 4)
    await store.update_table("t_a", status="over", fence=4)
    with pytest.raises(Fenced):
        await store.update_table("t_a", status="waiting", fence=3)
    assert (await store.get_table("t_a")).status == "over"  # type: ignore[union-attr]
    line = ChatRecord(seq=1, channel="players", sender="seat:0", seat=0, name="Ann",
                      text="hello", created_at=datetime.now(UTC))
    with pytest.raises(Fenced):
        await store.append_chat("t_a", line, keep=10, fence=3)
    assert await store.load_chat("t_a") == []
    await store.append_chat("t_a", line, keep=10, fence=4)
    assert [m.text for m in await store.load_chat("t_a")] == ["hello"]


async def test_without_a_token_nothing_is_checked(store: Store) -> None:
    """The single-process server never fences: its writes carry no token."""
    await store.claim("t_a", 9)
    await store.append_event("t_a", action(1))
    await store.update_table("t_a", status="over")
    assert len(await store.load_events("t_a")) == 1
