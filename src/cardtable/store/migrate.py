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

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from cardtable.store.engine import writer

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")
# Any fixed 64-bit number: the key of the PostgreSQL advisory lock held while migrating.
PG_MIGRATION_LOCK = 0x63617264746162  # "cardtab"


def alembic_config(url: str) -> Config:
    """An Alembic Config for this package's migrations and the database at ``url``."""
    config = Config()
    config.set_main_option("script_location", _escape(str(MIGRATIONS_DIR)))
    config.set_main_option("path_separator", "os")
    config.set_main_option("sqlalchemy.url", _escape(url))
    return config


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database of ``engine`` to ``revision`` (default: the newest)."""
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


def _upgrade(connection: Connection, config: Config, revision: str) -> None:
    config.attributes["connection"] = connection  # env.py migrates on this connection
    command.upgrade(config, revision)


def _escape(value: str) -> str:
    return value.replace("%", "%%")  # Config values go through configparser interpolation
