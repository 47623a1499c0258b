"""Replays and match files by match id (server/match_replay.py, routes/matches.py), at a real
server: a finished match replays move by move with every hand face up and its deals
proved; a match still being played replays only its public part (hands as counts, no
proofs), and not at all at a table that takes no spectators; an earlier match of a table
(before a rematch) still downloads and replays; ``cardtable replay FILE`` prints it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable.bots.gin.normal import choose
from cardtable.client import Client, play
from cardtable.fairness import Shuffle, problems
from cardtable.match_file import verify
from cardtable.store import Store
from server_harness import ServerProcess

HANG = 120


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {"CARDTABLE_JOIN_LIMIT": "100000", "CARDTABLE_FRAME_RATE": "10000"}
    process = ServerProcess(tmp_path_factory.mktemp("replay") / "data", env=env).start()
    try:
        yield process
    finally:
        process.stop()


async def test_finished_and_unfinished_matches_replay_as_they_may(
        server: ServerProcess, tmp_path: Path) -> None:
    async with Client(server.base_url, frame_rate=None) as ann, \
            Client(server.base_url, frame_rate=None) as bob:
        seat = await ann.create_table("gin", {"deals": 1}, opponent="friend", name="Ann")
        other = await bob.join(seat.code, "Bob")
        async with ann.connect(seat) as a, bob.connect(other) as b:
            await asyncio.wait_for(asyncio.gather(play(a, choose), play(b, choose)), HANG)
            # The first match began when Bob sat down (the table's "start"), not at its
            # creation: a waiting table had no match, and has none to replay.
            first = f"{seat.table_id}:{await match_start(server, seat.table_id, 'start')}"
            assert (await ann.http.get(f"/api/matches/{seat.table_id}:0/replay")
                    ).status_code == 404
            await a.rematch()
            await b.rematch()
            await a.wait_for(lambda c: c.view["phase"] != "match_over", 10)
            for conn in (a, b):  # a few moves into the rematch, then stop
                await conn.wait_for(lambda c: c.view.get("phase") is not None, 10)
            await asyncio.wait_for(asyncio.gather(play(a, choose, max_actions=2),
                                                  play(b, choose, max_actions=2)), HANG)

        done = (await ann.http.get(f"/api/matches/{first}/replay")).json()
        assert done["over"] is True and done["seats"] == ["Ann", "Bob"]
        steps = done["steps"]
        # A step for the deal, then one for every move to the end (a hand may be short:
        # the simple bot knocks at its first chance, seen ending after five moves).
        assert steps[0]["action"] is None and len(steps) >= 3
        assert [step["n"] for step in steps] == list(range(len(steps)))
        assert all(step["action"] for step in steps[1:])
        assert steps[-1]["phase"] == "match_over"
        for step in steps:  # every hand face up, 10 or 11 cards
            assert all(isinstance(hand, list) and len(hand) in (10, 11)
                       for hand in step["hands"]), step
        proofs = [Shuffle.from_json(s) for s in done["shuffles"]]
        assert proofs and problems(proofs) == []
        file = (await ann.http.get(f"/api/matches/{first}/file")).json()
        assert verify(file).ok and file["seats"] == ["Ann", "Bob"]
        assert len(file["record"]["actions"]) == len(steps) - 1

        me = (await ann.http.get("/api/me")).json()
        assert [m["match_id"] for m in me["recent"]] == [first]  # the finished match only
        assert (await ann.http.get(f"/api/tables/{seat.code}/match")).status_code == 409
        start = await match_start(server, seat.table_id, "rematch")
        live = (await ann.http.get(f"/api/matches/{seat.table_id}:{start}/replay")).json()
        assert live["over"] is False and live["shuffles"] == []
        assert all(isinstance(h, int) for step in live["steps"] for h in step["hands"])
        assert "order" not in json.dumps(live) and "salt" not in json.dumps(live)
        assert (await ann.http.get(f"/api/matches/{seat.table_id}:{start}/file")
                ).status_code == 409
        for bad in ("nope", f"{seat.table_id}:7", "t_nosuch:0", "x" * 200):
            assert (await ann.http.get(f"/api/matches/{bad}/replay")).status_code == 404

    path = tmp_path / "match.json"
    path.write_text(json.dumps(file))
    shown = subprocess.run([sys.executable, "-m", "cardtable", "replay", str(path)],
                           capture_output=True, text=True, timeout=HANG)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"Gin Rummy: Ann v Bob (table {seat.code})"
    assert len([line for line in lines if line[:4].strip().isdigit()]) == len(steps) - 1
    assert "hand over; scores" in shown.stdout and lines[-1].startswith("Result: ")


async def match_start(server: ServerProcess, table_id: str, kind: str) -> int:
    """The version that began a match of the table (``kind``: ``"start"`` its first,
    ``"rematch"`` its second), from the log; waits for the table to log it (the last
    join's answer may come before the deal is written)."""
    store = await Store.open(server.store_url)
    try:
        async with asyncio.timeout(10):
            while True:
                events = await store.load_events(table_id)
                found = [e.version for e in events if e.kind == kind]
                if found:
                    return found[0]
                await asyncio.sleep(0.02)  # polled: the server's log is in another process
    finally:
        await store.close()


async def test_no_spectators_no_replay_of_a_match_in_play(server: ServerProcess) -> None:
    async with Client(server.base_url, frame_rate=None) as ann:
        seat = await ann.create_table("gin", {"target": 500}, opponent="friend", name="Ann",
                                      settings={"spectators": False})
        await ann.join(seat.code, "Bob")  # the last seat: the match is dealt
        start = await match_start(server, seat.table_id, "start")
        hidden = await ann.http.get(f"/api/matches/{seat.table_id}:{start}/replay")
        assert hidden.status_code == 403 and "no spectators" in hidden.json()["detail"]
