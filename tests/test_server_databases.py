"""The same server on SQLite and on PostgreSQL: play, kill -9, restart, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import db_fixtures
from server_harness import ServerProcess
from ws_helpers import act, create, join, recv_type, seated

store_url = db_fixtures.store_url
pg_database_url = db_fixtures.pg_database_url


async def play_some(server: ServerProcess, grant: dict, other: dict,  # type: ignore[type-arg]
                    moves: int, prefix: str) -> dict:  # type: ignore[type-arg]
    """Both seats pass/draw from the stock/throw the drawn card; returns each seat's last view."""
    sockets = {}
    views = {}
    for g in (grant, other):
        ws, view = await seated(server, g)
        sockets[g["seat"]], views[g["seat"]] = ws, view
    for n in range(moves):
        seat = views[0]["d"]["view"]["to_act"]
        view = views[seat]["d"]["view"]
        legal = view["legal"]
        move = next(a for a in legal if a["type"] in ("pass", "draw_stock", "discard"))
        answer = await act(sockets[seat], views[seat]["v"], move, f"{prefix}{n}")
        assert answer["t"] == "view", answer
        views[seat] = answer
        other_seat = 1 - seat
        while views[other_seat]["v"] < answer["v"]:
            views[other_seat] = await recv_type(sockets[other_seat], "view")
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
            assert view["v"] == before[seat]["v"] == 12
            assert json.dumps(view["d"]["view"], sort_keys=True) == json.dumps(
                before[seat]["d"]["view"], sort_keys=True)
            await ws.close()
        after = await play_some(server, grant, other, 4, "after")  # and play goes on
        assert after[0]["v"] == 16
        if database:
            assert "cardtable.db" not in {p.name for p in (tmp_path / "data").iterdir()}
    finally:
        server.stop()
