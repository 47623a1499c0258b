"""SQLite under load: many writers at once all succeed; a lock held elsewhere is a clear 503.

The server's write transactions take their turn in line (``store/engine.py``, ``Writer``),
so SQLite's busy timeout only matters when ANOTHER process holds the write lock. The
tests run with a busy timeout of 100 ms (``CARDTABLE_SQLITE_BUSY_MS``): writers of one
process that asked SQLite for the lock by themselves would outwait it (its busy handler
sleeps between tries, unfairly) and be answered 503; in line none is. A lock held by a
second process past the timeout is refused with the database's 503, nothing changed, and
the server goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Connection, RequestRefused
from cardtable.store import Store, TableRecord, sqlite_url
from server_harness import LIFTED_LIMITS, ServerProcess

BUSY_MS = 100
POOL = 5 + 10  # SQLAlchemy's default pool: 5 connections and 10 more on demand
TABLES_FIRST, TABLES_AT_ONCE = 12, 2 * POOL


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("sqlite_load") / "data", env={
        **LIFTED_LIMITS, "CARDTABLE_SQLITE_BUSY_MS": str(BUSY_MS)}).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
async def client(server: ServerProcess) -> AsyncIterator[Client]:
    async with Client(server.base_url, frame_rate=None, timeout=60) as client:
        yield client


def table_count(server: ServerProcess) -> int:
    """Tables in the server's SQLite file (a reader of our own: WAL lets it read while a
    writer holds the lock)."""
    with contextlib.closing(sqlite3.connect(server.data_dir / "cardtable.db", timeout=30)) as db:
        count: int = db.execute("SELECT count(*) FROM card_tables").fetchone()[0]
    return count


async def open_table(client: Client) -> list[Connection]:
    """A friend table of two seats, both connected."""
    ann = await client.create_table("gin", {"target": 500}, opponent="friend", name="Ann")
    bob = await client.join(ann.code, "Bob")
    conns = [client.connect(seat) for seat in (ann, bob)]
    for conn in conns:
        await conn.open()
    return conns


async def move(conns: list[Connection]) -> None:
    """The seat whose turn it is makes one move (acknowledged: it is in the log)."""
    waits = [asyncio.create_task(conn.wait_for(lambda c: c.my_turn)) for conn in conns]
    _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for wait in pending:
        wait.cancel()
    await asyncio.gather(*waits, return_exceptions=True)
    mover = next(conn for conn in conns if conn.my_turn)
    await mover.act(choose(mover.view))


async def test_many_writers_at_once_all_succeed(server: ServerProcess, client: Client) -> None:
    """Creates, joins and moves at once, twice as many as the pool has connections: every
    one is answered with success (no 503, no ``retry``), on a 100 ms busy timeout."""
    log_from = len(server.output())
    playing = list(await asyncio.gather(*(open_table(client) for _ in range(TABLES_FIRST))))
    before = table_count(server)
    try:
        opened, _ = await asyncio.gather(
            asyncio.gather(*(open_table(client) for _ in range(TABLES_AT_ONCE))),
            asyncio.gather(*(move(conns) for conns in playing)))
        playing += opened
        assert table_count(server) == before + TABLES_AT_ONCE
        # and again, with the tables opened just now moving beside new ones
        opened, _ = await asyncio.gather(
            asyncio.gather(*(open_table(client) for _ in range(TABLES_AT_ONCE))),
            asyncio.gather(*(move(conns) for conns in playing)))
        playing += opened
        assert table_count(server) == before + 2 * TABLES_AT_ONCE
    finally:
        everyone = [conn for group in playing for conn in group]
        await asyncio.gather(*(conn.close() for conn in everyone), return_exceptions=True)
    assert "locked" not in server.output()[log_from:]


HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
db.execute("ROLLBACK")
"""


async def test_lock_held_by_another_process_is_a_clear_503(server: ServerProcess,
                                                           client: Client) -> None:
    """While a second process holds SQLite's write lock past the busy timeout, a create is
    answered 503 "cannot reach its database" with nothing changed, the server stays up,
    and once the lock is let go the same create succeeds."""
    database = server.data_dir / "cardtable.db"
    before = table_count(server)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(database)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RequestRefused) as refused:
            await client.create_table("gin", {"target": 500}, opponent="friend", name="Ann")
        assert refused.value.status == 503
        assert "cannot reach its database" in refused.value.detail
        assert table_count(server) == before  # nothing changed
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(30)
    assert server.process is not None and server.process.poll() is None
    conns = await open_table(client)
    try:
        await move(conns)
    finally:
        await asyncio.gather(*(conn.close() for conn in conns))
    assert table_count(server) == before + 1


async def test_store_writes_queue_in_line(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The store by itself: a hundred write transactions at once on one file, with a 20 ms
    busy timeout, all committed."""
    monkeypatch.setenv("CARDTABLE_SQLITE_BUSY_MS", "20")
    store = await Store.open(sqlite_url(tmp_path))
    try:
        records = [TableRecord(table_id=f"t_{n}", code=f"Q{n:05d}", game="gin", options={},
                               players=2, seats=[], private=True, status="waiting",
                               start_chance=[]) for n in range(100)]
        await asyncio.gather(*(store.create_table(record) for record in records))
        await asyncio.gather(*(store.update_table(record.table_id, status="playing")
                               for record in records))
        assert len(await store.table_ids(status="playing")) == len(records)
    finally:
        await store.close()
