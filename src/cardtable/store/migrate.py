"""Alembic migrations, run programmatically: :func:`upgrade` brings a database to head.

There is no alembic.ini: :func:`alembic_config` builds the Config in code, pointing at the
``migrations`` directory inside this package (it ships with the wheel). The migration runs on
the caller's own async engine through ``AsyncConnection.run_sync`` (Alembic's
"connection sharing" recipe), in one transaction, so there is no thread and no second event
loop; on an up-to-date database it is a no-op. Concurrent starts are serialized: on
PostgreSQL by an advisory lock, on SQLite by the write lock of ``BEGIN IMMEDIATE``.

To write a new migration after changing ``models.py``, against a database at head::

    from alembic import command
    from cardtable.store.migrate import alembic_config
    command.revision(alembic_config("sqlite:///dev.db"), message="...", autogenerate=True)
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from cardtable.store.engine import writer

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")
# Any fixed 64-bit number: the key of the PostgreSQL advisory lock held while migrating.
PG_MIGRATION_LOCK = 0x63617264746162  # "cardtab"


def alembic_config(url: str) -> Config:
    """An Alembic Config for this package's migrations and the database at ``url``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", _escape(str(MIGRATIONS_DIR)))
    config.set_main_option("path_separator", "os")
    config.set_main_option("sqlalchemy.url", _escape(url))
    return config


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database of ``engine`` to ``revision`` (default: the newest).

    A database already at the newest revision is left alone without loading Alembic
    (0.3 CPU-s of imports at every restart); any other runs Alembic's upgrade, which
    checks again under the lock.
    """
    if revision == "head" and await _stored_revisions(engine) == [newest_revision()]:
        return
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    async with writer(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                     {"key": PG_MIGRATION_LOCK})
        await connection.run_sync(_upgrade, config, revision)


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at, or None before the first migration."""
    from alembic.runtime.migration import MigrationContext

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with engine.connect() as connection:
        return await connection.run_sync(read)


def head_revision() -> str:
    """The newest revision of this package's migrations."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None, "no migrations"
    return head


_REVISION = re.compile(r"^revision\b[^=]*=\s*[\"'](\w+)[\"']", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision\b[^=]*=\s*(.+)$", re.MULTILINE)


@cache
def newest_revision() -> str:
    """The head of this package's migrations, read from their files' ``revision`` and
    ``down_revision`` lines (as :func:`head_revision` finds it, without Alembic)."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for script in (MIGRATIONS_DIR / "versions").glob("*.py"):
        source = script.read_text(encoding="utf-8")
        found = _REVISION.search(source)
        if found is None:
            continue
        revisions.add(found[1])
        down = _DOWN_REVISION.search(source)
        downs.update(re.findall(r"[\"'](\w+)[\"']", down[1]) if down else ())
    heads = revisions - downs
    if len(heads) != 1:  # not a line of revisions: let Alembic judge
        return ""
    return heads.pop()


async def _stored_revisions(engine: AsyncEngine) -> list[str] | None:
    """The revisions recorded in the database, or None when it has no record of them."""
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
            return sorted(row[0] for row in rows)
    except DBAPIError:  # no alembic_version table: a new database
        return None


def _upgrade(connection: Connection, config: Config, revision: str) -> None:
    from alembic import command

    config.attributes["connection"] = connection  # env.py migrates on this connection
    command.upgrade(config, revision)


def _escape(value: str) -> str:
    return value.replace("%", "%%")  # Config values go through configparser interpolation
