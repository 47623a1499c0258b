"""What a server's start-up leaves for later: heavy modules and tables load where used.

Each check runs in a fresh interpreter (``sys.modules`` of this one holds everything the
other tests imported).  How much CPU a start-up costs is measured in ``bench/startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cardtable.store.migrate import head_revision, newest_revision

LEFT_FOR_LATER = ("alembic", "zxcvbn")


def fresh_python(code: str, *args: str) -> dict[str, object]:
    """Run ``code`` in a new interpreter (``args`` in its ``sys.argv[1:]``); it prints one
    JSON object, returned here."""
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_newest_revision_read_from_the_files_is_alembics_head() -> None:
    assert newest_revision() == head_revision()


def test_the_app_imports_no_games_bot_no_password_judge_and_builds_no_meld_tables() -> None:
    found = fresh_python("""
import json, sys
import cardtable.server.app
from cardtable.engine import registry, melds
registry.descriptors()  # every game registered, as /api/games lists them
print(json.dumps({
    "bots": sorted(m for d in registry.descriptors() for m in (d.bot, d.hard_bot)
                   if m in sys.modules),
    "heavy": sorted(m for m in sys.argv[1:] if m in sys.modules),
    "meld_tables": melds._tables.cache_info().currsize,
}))
""", *LEFT_FOR_LATER)
    assert found == {"bots": [], "heavy": [], "meld_tables": 0}


def test_a_database_at_head_opens_without_alembic(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'room.db'}"
    program = """
import asyncio, json, sys
from cardtable.store import Store

async def main():
    store = await Store.open(sys.argv[1])
    await store.close()

asyncio.run(main())
print(json.dumps({"alembic": "alembic" in sys.modules}))
"""
    assert fresh_python(program, url) == {"alembic": True}  # a new database: migrated
    assert fresh_python(program, url) == {"alembic": False}  # at head: nothing to do
