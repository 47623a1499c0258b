"""The same server on SQLite and on PostgreSQL: play, kill -9, restart, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import db_fixtures
from server_harness import ServerProcess
from ws_helpers import create, join, play_simply, seated

store_url = db_fixtures.store_url
pg_database_url = db_fixtures.pg_database_url


async def play_some(server: ServerProcess, grant: dict, other: dict,  # type: ignore[type-arg]
                    moves: int, prefix: str, until_hand: int | None = None
                    ) -> dict:  # type: ignore[type-arg]
    """Both seats play simply (see ``play_simply``) on fresh sockets; each seat's last view."""
    sockets = {}
    views = {}
    for g in (grant, other):
        ws, view = await seated(server, g)
        sockets[g["seat"]], views[g["seat"]] = ws, view
    await play_simply(sockets, views, moves, prefix, until_hand)
    for ws in sockets.values():
        await ws.close()
    return views


async def test_kill_and_restart_on_each_database(store_url: str, tmp_path: Path) -> None:
    database = None if store_url.startswith("sqlite") else store_url
    server = ServerProcess(tmp_path / "data", database_url=database).start()
    try:
        grant = create(server)
        other = join(server, grant["code"])
        before = await play_some(server, grant, other, 12, "before")
        server.restart()  # kill -9, then start on the same database
        for g in (grant, other):
            ws, view = await seated(server, g)
            seat = g["seat"]
            assert view["v"] == before[seat]["v"] == 1 + 12  # the start (the join), 12 moves
            assert json.dumps(view["d"]["view"], sort_keys=True) == json.dumps(
                before[seat]["d"]["view"], sort_keys=True)
            await ws.close()
        # and play goes on, across the next deal (drawn from a live rng after the restart)
        hand = before[0]["d"]["view"]["hand"]
        after = await play_some(server, grant, other, 200, "after", until_hand=hand + 1)
        assert after[0]["d"]["view"]["hand"] == hand + 1 and after[0]["v"] > 16
        if database:
            assert "cardtable.db" not in {p.name for p in (tmp_path / "data").iterdir()}
    finally:
        server.stop()
