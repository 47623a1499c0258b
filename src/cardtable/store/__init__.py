"""Persistence: tables and their event logs in SQLite (default) or PostgreSQL.

>>> import asyncio, tempfile
>>> from pathlib import Path
>>> async def demo(data_dir: Path) -> list[int]:
...     store = await Store.open(sqlite_url(data_dir))     # migrates to the newest schema
...     seats = [SeatRecord(0, "Ann", "human", "ab12"), SeatRecord(1, "Computer", "bot", None)]
...     await store.create_table(TableRecord("t_1", "k7px3m", "gin", {"target": 100}, 2,
...                                          seats, False, "playing", [[3, 1, 4]]))
...     await store.append_event("t_1", EventRecord(1, "action", 0, "c-1",
...                                                 {"type": "draw", "from": "stock"}, []))
...     table = await store.get_table_by_code("K7PX3M")
...     versions = [event.version for event in await store.load_events(table.table_id)]
...     await store.close()
...     return versions
>>> with tempfile.TemporaryDirectory() as tmp:
...     asyncio.run(demo(Path(tmp)))
[1]
"""

from cardtable.store.database import Store
from cardtable.store.engine import normalize_url, sqlite_url
from cardtable.store.records import (
    ChatRecord,
    CodeTaken,
    DuplicateCommand,
    EventRecord,
    Fenced,
    SeatRecord,
    StoreError,
    TableExists,
    TableRecord,
    UnknownTable,
    VersionConflict,
)

__all__ = [
    "ChatRecord",
    "CodeTaken",
    "DuplicateCommand",
    "EventRecord",
    "Fenced",
    "SeatRecord",
    "Store",
    "StoreError",
    "TableExists",
    "TableRecord",
    "UnknownTable",
    "VersionConflict",
    "normalize_url",
    "sqlite_url",
]
