"""An expert computer at a real server: it thinks in a thread of its own on a private
copy of the match, so the table keeps answering while it does, and its moves go
through the log like any other.  The match goes on across a new deal."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Connection, play
from server_harness import ServerProcess, stored
from test_server_leak import true_states


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("expert") / "data",
                            env={"CARDTABLE_EXPERT_BUDGET": "0.05"}).start()
    try:
        yield process
    finally:
        process.stop()


async def test_an_expert_seat_plays_two_hands_and_its_level_shows(server: ServerProcess) -> None:
    async with Client(server.base_url) as client:
        seat = await client.create_table("gin", {"target": 200}, opponent="computer",
                                         name="Ann", settings={"levels": ["normal", "expert"]})
        async with client.connect(seat) as conn:
            assert conn.table["seats"][1]["kind"] == "bot"
            assert conn.table["seats"][1]["level"] == "expert"
            # Until the expert has moved (a first-upcard knock can end a hand before its
            # turn) and a second hand is dealt.
            turns: list[str] = []

            def done(c: Connection) -> bool:
                if c.view.get("to_act") == 1:
                    turns.append("its turn")
                elif turns and turns[-1] == "its turn":
                    turns.append("moved")
                return "moved" in turns and c.view.get("hand", 1) >= 2

            played = await asyncio.wait_for(play(conn, choose, until=done), 120)
            if played == 0:  # the expert ended the first hand before my first turn came
                after = conn.view.get("hand", 1) + 1
                played = await asyncio.wait_for(
                    play(conn, choose, until=lambda c: c.view.get("hand", 1) >= after), 120)
            assert played > 0
            # Answered whoever is to move (the expert may be thinking meanwhile).
            pong = await conn.ping(timeout=10)
            assert pong.t == "pong", pong
    table, events = await stored(server, seat.table_id)
    assert {e.seat for e in events if e.kind == "action"} >= {0, 1}
    *_, (_version, state) = true_states(table, events)
    assert state.view(0)["hand"] >= 2  # a new deal after the expert's hand
    assert "Traceback" not in server.output()
