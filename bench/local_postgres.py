"""A throwaway PostgreSQL database for a benchmark run, on a server of this machine only."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


@contextlib.asynccontextmanager
async def fresh_postgres(url: str, prefix: str = "cardtable_bench") -> AsyncIterator[str]:
    """A new empty database on the PostgreSQL server of ``url`` (127.0.0.1 only: the
    benchmarks stay local), as a SQLAlchemy URL; dropped afterwards."""
    import asyncpg  # type: ignore[import-untyped]  # only PostgreSQL runs need it

    parts = urlsplit(url)
    if parts.hostname not in LOCAL_HOSTS:
        raise SystemExit(f"{url} is not on 127.0.0.1: the benchmarks stay local")
    admin = urlunsplit(("postgresql", parts.netloc, "/postgres", "", ""))
    name = f"{prefix}_{secrets.token_hex(4)}"
    conn = await asyncpg.connect(admin)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
        yield urlunsplit(("postgresql+asyncpg", parts.netloc, f"/{name}", "", ""))
    finally:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()
