"""The toy game (tests/toy_war/) at a real server and in the arena, which know it
only by its module.

The server runs as ``cardtable serve`` with ``CARDTABLE_GAME_MODULES=toy_war`` and
tests/ on its ``PYTHONPATH``: it offers the game, deals it, lets its computer play it,
runs its turn clocks by what the descriptor says, and logs a record that replays.
``cardtable arena`` loads it the same way.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from cardtable.client import Client, Frame, play
from cardtable.engine import get_game
from server_harness import ServerProcess, stored
from test_server_leak import Watched, follow, plugin_env, problems, true_states, truths
from toy_war import TITLE
from toy_war.bot import choose

GAME = "toy_war"


@pytest.fixture(scope="module")
def toy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("toy") / "data",
                            env=plugin_env(GAME)).start()
    try:
        yield process
    finally:
        process.stop()


def test_the_server_offers_the_game_it_loaded(toy_server: ServerProcess) -> None:
    games = {g["name"]: g for g in httpx.get(f"{toy_server.base_url}/api/games").json()["games"]}
    assert {"gin", "spades", GAME} <= set(games)
    toy = games[GAME]
    assert toy["title"] == TITLE and toy["players"] == [2]
    assert toy["presets"] == ["standard", "quick", "full_pack"]
    assert toy["express"] == {"deals": 1}
    assert toy["browser"] is False  # no board yet: the home page does not offer it


async def test_a_whole_match_against_the_computer_replays_from_the_log(
        toy_server: ServerProcess) -> None:
    record: list[Frame] = []
    async with Client(toy_server.base_url) as client:
        seat = await client.create_table(GAME, {"target": 10}, opponent="computer", name="Ann")
        async with client.connect(seat, record=record) as conn:
            assert conn.table["seats"][1]["kind"] == "bot"
            played = await asyncio.wait_for(play(conn, choose), 60)
            final = conn.view
    assert played > 0 and final["phase"] == "match_over"
    assert final["result"]["winner"] in (0, 1) and max(final["scores"]) >= 10
    table, events = await stored(toy_server, seat.table_id)
    assert table.game == GAME and {e.seat for e in events} == {0, 1}
    *_, (version, state) = true_states(table, events)
    assert version == conn.version and state.view(0) == final
    again = get_game(GAME).replay(state.record())
    assert again.view(None) == state.view(None) and again.result() == state.result()
    assert len(again.result()["hands"]) == len(final["history"]) >= 1


async def test_turns_that_run_out_are_played_as_the_descriptor_says(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two people who never move: the first turn's draw is a timeout, the play that
    finishes that turn follows at once (``same_turn("draw_stock")``); computers stand in
    later and the match ends.  Nobody is shown a card they may not see."""
    server = ServerProcess(tmp_path_factory.mktemp("toy-timeouts") / "data",
                           env={**plugin_env(GAME), "CARDTABLE_TIME_SCALE": "0.02"}).start()
    try:
        async with Client(server.base_url) as client:
            ann = await client.create_table(GAME, {"deals": 1}, opponent="friend",
                                            name="Ann", settings={"turn_time": 15})
            bob = await client.join(ann.code, "Bob")
            table = Watched(ann.table_id)
            spectator = client.connect(None, table_id=ann.table_id, record=table.frames[None])
            async with client.connect(ann, record=table.frames[0]) as a, \
                    client.connect(bob, record=table.frames[1]) as b, spectator:
                watching = asyncio.create_task(follow(spectator))
                over = lambda c: c.view.get("phase") == "match_over"  # noqa: E731
                await asyncio.gather(a.wait_for(over, timeout=60), b.wait_for(over, timeout=60))
                final = max(a.version, b.version)
                watching.cancel()
                await asyncio.gather(watching, return_exceptions=True)
                await spectator.wait_for(lambda c: c.version >= final, timeout=10)
        record, events = await stored(server, ann.table_id)
        start, first, second = events[:3]  # dealt when Bob took the last seat
        assert start.kind == "start" and start.chance
        assert (first.kind, first.payload["type"]) == ("timeout", "draw_stock")
        assert (second.kind, second.payload["type"], second.seat) == ("auto", "play", first.seat)
        assert {e.kind for e in events[1:]} == {"timeout", "auto"}
        assert problems(table.frames, truths(record, events)) == []
    finally:
        server.stop()


def arena(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardtable", "arena", GAME, "--games", "4",
                           "--seed", "3"], env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_arena_plays_the_game_it_loads_by_module() -> None:
    played = arena({**os.environ, **plugin_env(GAME)})
    assert played.returncode == 0, played.stderr
    assert re.search(r"games played\s*│\s*4\b", played.stdout), played.stdout
    assert re.search(r"illegal moves\s*│\s*0\b", played.stdout), played.stdout
    hands = re.search(r"hands played\s*│\s*(\d+)", played.stdout)
    assert hands and int(hands.group(1)) >= 4, played.stdout  # a match is a hand or more
    alone = {k: v for k, v in os.environ.items() if k != "CARDTABLE_GAME_MODULES"}
    unknown = arena(alone)  # without the module the game does not exist
    assert unknown.returncode == 2 and GAME in unknown.stderr
