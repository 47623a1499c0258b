"""Alembic's environment script, loaded by Alembic for every command.

``cardtable.store.migrate.upgrade`` passes its own connection in
``config.attributes["connection"]`` (a sync facade over the async engine, via ``run_sync``);
otherwise this script makes an async engine from ``sqlalchemy.url`` itself. It does not touch
logging configuration.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from cardtable.store.engine import create_engine
from cardtable.store.models import metadata


def run_on(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


async def run_on_url(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_on)
            await connection.commit()
    finally:
        await engine.dispose()


def run_offline(url: str) -> None:
    context.configure(url=url, target_metadata=metadata, literal_binds=True,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    url = config.get_main_option("sqlalchemy.url") or ""
    if connection is not None:
        run_on(connection)
    elif context.is_offline_mode():
        run_offline(url)
    else:
        asyncio.run(run_on_url(url))


# Run only when Alembic executes this file, not when it is merely imported (e.g. by doctests).
if getattr(context, "_proxy", None) is not None:
    main()
