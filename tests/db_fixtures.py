"""Database fixtures for tests that need a store, on SQLite and on PostgreSQL.

Use them everywhere with ``pytest_plugins = ["db_fixtures"]`` at the top of tests/conftest.py
(loaded before collection), or in one test module by name: ``import db_fixtures`` and
``store_url = db_fixtures.store_url`` (not ``pytest_plugins`` in a test module: once
``--doctest-modules`` has imported this file, pytest has already parsed its fixtures as local
to it and ignores them as a plugin).

- ``store_url``: parametrized over "sqlite" (a file in tmp_path) and "postgresql" (a database
  made for this test session, emptied before every test). Open it with ``Store.open``.
- ``store``: a :class:`Store` opened (migrated to head) on ``store_url``, closed after the
  test; a module takes it as ``store = db_fixtures.store`` beside ``store_url``.
- ``pg_database_url``: the session's throwaway PostgreSQL database (created at first use,
  dropped at the end).

PostgreSQL is expected at 127.0.0.1:5432 with trust auth for user postgres. If it cannot be
reached the PostgreSQL cases are skipped with the reason, except when ``CI`` is set: then
they fail, because CI must test both databases.

(PYTEST_DONT_REWRITE: this module has no asserts; the marker keeps pytest from warning that
it cannot rewrite it when ``--doctest-modules`` imported it before ``pytest_plugins`` did.)
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest

from cardtable.store import Store, sqlite_url

PG_HOST = "127.0.0.1"
PG_PORT = 5432
PG_USER = "postgres"

T = TypeVar("T")


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion in a thread of its own (out of pytest-asyncio's loops)."""
    async def main() -> T:
        return await make()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


def pg_url(database: str) -> str:
    return f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{database}"


async def _admin() -> Any:
    return await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER,
                                 database="postgres", timeout=5)


async def create_pg_database(prefix: str = "cardtable_test") -> str:
    """Create an empty database named ``<prefix>_<random hex>``; returns its name."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    conn = await _admin()
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return name


async def drop_pg_database(name: str) -> None:
    """Drop a database made by create_pg_database, closing any connection still on it."""
    conn = await _admin()
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def reset_pg_database(name: str) -> None:
    """Empty a test database: drop and recreate its public schema (tables, alembic_version)."""
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=name,
                                 timeout=5)
    try:
        await conn.execute("SET lock_timeout = '10s'")
        await conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def pg_database_url() -> Iterator[str]:
    """A PostgreSQL database of its own for this test session, dropped at the end."""
    try:
        name = run_async(create_pg_database)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        reason = f"PostgreSQL not reachable at {PG_HOST}:{PG_PORT}: {exc!r}"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set: both databases must be tested)")
        pytest.skip(reason)
    try:
        yield pg_url(name)
    finally:
        run_async(lambda: drop_pg_database(name))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty database for one test: a SQLite file, or the session's PostgreSQL
    database, emptied first."""
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "data")
    url: str = request.getfixturevalue("pg_database_url")
    run_async(lambda: reset_pg_database(url.rsplit("/", 1)[1]))
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    """A store on ``store_url``'s empty database (migrated to head), closed after the test."""
    opened = await Store.open(store_url)
    yield opened
    await opened.close()
