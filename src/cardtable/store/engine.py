"""Database URLs and the async engine: SQLite (aiosqlite) by default, PostgreSQL (asyncpg).

SQLite is set up for a server that acknowledges a move only once it is on disk: WAL journal,
``synchronous=FULL`` (each commit is fsynced, so it survives a kill -9 and a power cut),
a busy timeout instead of instant "database is locked" errors, foreign keys on, and
SQLAlchemy emitting BEGIN itself so that reads are in the transaction too. Transactions
that write go through :func:`writer`, which on SQLite begins with ``BEGIN IMMEDIATE``: they
take the write lock up front and queue behind each other instead of failing on upgrade.

Nothing waits on the database forever, so that a server with a broken database still
answers every command (with an error): SQLite gives up on a held write lock after the busy
timeout (10 s, ``CARDTABLE_SQLITE_BUSY_MS``), PostgreSQL connections time out after 10 s
and statements after 30 s, and a pooled PostgreSQL connection is pinged before use, so
that one the server killed (a restart, a failover, ``pg_terminate_backend``) is replaced
instead of failing the next command.

**One writer at a time (SQLite).** Write transactions of this process take their turn
through an asyncio lock (:class:`Writer`, first come first served) before they check out a
connection and send ``BEGIN IMMEDIATE``, so the busy timeout only ever matters between
processes. Measured (docs/benchmarks.md, "Under load"): with each pooled connection asking
SQLite for the write lock by itself, the losers sleep in SQLite's busy handler (1, 2, 5 ...
up to 100 ms between tries, no queue: the unlucky one can keep losing), the lock sits idle
while they sleep, latency grows to seconds and, on a loaded machine, a write waited past the
10 s timeout and its create or join was answered 503 "database is locked". In line, each
write waits only for the ones ahead of it, and the lock is never idle while one waits. The
wait in line is bounded too (10 s, or the busy timeout if longer): behind a lock held by
another process the writers in line fail in turn, none later than that bound plus one busy
timeout. PostgreSQL locks rows, not the database: its writers need no line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry

SQLITE_BUSY_TIMEOUT_MS = 10_000
LINE_WAIT_S = 10.0  # the longest a write waits for this process's earlier writes (SQLite)
PG_CONNECT_TIMEOUT, PG_STATEMENT_TIMEOUT = 10.0, 30.0  # seconds
WRITE_OPTION = "cardtable_write"

_SCHEMES = {
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
}


def sqlite_url(data_dir: Path) -> str:
    """The URL of the SQLite file ``<data_dir>/cardtable.db`` (the directory is created)."""
    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{data_dir / 'cardtable.db'}"


def normalize_url(url: str) -> str:
    """Give a bare ``postgresql://``, ``postgres://`` or ``sqlite://`` URL its async driver.

    >>> normalize_url("postgresql://u:p@db:5432/cards")
    'postgresql+asyncpg://u:p@db:5432/cards'
    >>> normalize_url("sqlite+aiosqlite:////var/lib/cardtable/cardtable.db")
    'sqlite+aiosqlite:////var/lib/cardtable/cardtable.db'
    """
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in _SCHEMES:
        return f"{_SCHEMES[scheme.lower()]}://{rest}"
    return url


def sqlite_busy_timeout_ms() -> int:
    """How long a SQLite write waits for a lock held elsewhere: ``$CARDTABLE_SQLITE_BUSY_MS``
    or 10 s."""
    value = os.environ.get("CARDTABLE_SQLITE_BUSY_MS", "").strip()
    return max(0, int(value)) if value else SQLITE_BUSY_TIMEOUT_MS


def create_engine(url: str) -> AsyncEngine:
    """An async engine for ``url`` (normalized), with the settings described above.

    ``hide_parameters``: a database error's text (in a traceback in the log) names the
    statement but not its values, which hold deck orders and hidden cards (events'
    payloads and chance) and players' details."""
    sa_url = make_url(normalize_url(url))
    if sa_url.get_backend_name() == "sqlite":
        busy_ms = sqlite_busy_timeout_ms()
        engine = create_async_engine(sa_url, hide_parameters=True,
                                     connect_args={"timeout": busy_ms / 1000})
        _setup_sqlite(engine, busy_ms)
        return engine
    return create_async_engine(sa_url, pool_pre_ping=True, hide_parameters=True, connect_args={
        "timeout": PG_CONNECT_TIMEOUT, "command_timeout": PG_STATEMENT_TIMEOUT})


def writer(engine: AsyncEngine) -> AsyncEngine:
    """The same engine (same pool) for transactions that write: BEGIN IMMEDIATE on SQLite."""
    return engine.execution_options(**{WRITE_OPTION: True})


class Writer:
    """Write transactions: ``async with store_writer.begin() as conn`` (committed at the end).

    On SQLite they run one at a time in this process, in arrival order (see the module's
    docstring); a transaction that waited longer than ``wait_limit`` for its turn fails
    like one that waited for SQLite's lock (OperationalError "database is locked"), with
    nothing changed. On PostgreSQL ``begin()`` is the engine's own.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = writer(engine)
        self.in_line = engine.dialect.name == "sqlite"
        self.wait_limit = max(LINE_WAIT_S, sqlite_busy_timeout_ms() / 1000)
        # One lock per event loop (a Store can outlive the loop it was opened in: tests).
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary())

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        if not self.in_line:
            async with self.engine.begin() as conn:
                yield conn
            return
        lock = self._locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        try:
            async with asyncio.timeout(self.wait_limit):
                await lock.acquire()
        except TimeoutError:
            raise OperationalError(
                "BEGIN IMMEDIATE", None, sqlite3.OperationalError(
                    f"database is locked (waited {self.wait_limit:g} s for this process's "
                    "earlier writes)")) from None
        try:
            async with self.engine.begin() as conn:
                yield conn
        finally:
            lock.release()


def _setup_sqlite(engine: AsyncEngine, busy_ms: int) -> None:
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        # Leave BEGIN to us (see _on_begin); the driver would skip it before SELECTs.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
