"""No card is seen before the match starts, and no deal is repeated at anyone's wish
(issue 26, item 1): a table waiting for players holds no cards (its log and row have no
deck order, its frames no view); the match is dealt, once, when the last seat is taken;
its rules are fixed from then until it is over, at friends' tables and against the
computer alike. For every game, on SQLite and PostgreSQL, and across a restart (kill -9)
after which the match goes on into a new deal."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

import db_fixtures
from cardtable.engine import get_game
from cardtable.store import Store
from server_harness import ServerProcess, server_on, stored
from ws_helpers import play_simply, recv, recv_type, seated

pg_database_url = db_fixtures.pg_database_url
Frame = dict[str, Any]
GAMES = ("gin", "rummy", "rummy500", "romme", "indian", "spades")
EXPRESS: dict[str, Frame] = {"gin": {"deals": 1}, "rummy": {"deals": 1},
                             "rummy500": {"deals": 1}, "romme": {"end": "deals", "deals": 1},
                             "spades": {"deals": 1}, "indian": {"format": "pool"}}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_on(request, tmp_path_factory) as process:
        yield process


# Against the computer the match must outlast the computer's first turn: Indian's usual
# points rummy is one deal, which the computer may end at once by dropping.
LASTING: dict[str, Frame] = {"indian": {"format": "deals", "deals": 2, "drop": "none"}}


def create(server: ServerProcess, game: str, opponent: str = "friend",
           options: Frame | None = None) -> Frame:
    players = get_game(game).players[0]
    answer = httpx.post(f"{server.base_url}/api/tables", json={
        "game": game, "opponent": opponent, "name": "Ann", "players": players,
        "options": options or {}, "settings": {"turn_time": 0}})
    assert answer.status_code == 201, answer.text
    grant: Frame = answer.json()
    return grant


def join(server: ServerProcess, code: str, name: str) -> Frame:
    answer = httpx.post(f"{server.base_url}/api/tables/{code}/join", json={"name": name})
    assert answer.status_code == 200, answer.text
    grant: Frame = answer.json()
    return grant


async def settle(ws: ClientConnection) -> list[Frame]:
    """Everything the table sent before the answer to a ping (it answers in order)."""
    await ws.send(json.dumps({"t": "ping", "d": {}}))
    frames = []
    while (frame := await recv(ws))["t"] != "pong":
        frames.append(frame)
    return frames


async def change_rules(ws: ClientConnection, options: Frame) -> list[Frame]:
    await ws.send(json.dumps({"t": "settings", "d": {"settings": {}, "options": options}}))
    return await settle(ws)


def held(view: Frame) -> Any:
    """What the seat holds, as its view shows it (the same deal shows the same)."""
    v = view["d"]["view"]
    return v["hands"][v["seat"]] if "hands" in v else v.get("hand") or v


async def fill_seats(server: ServerProcess, grant: Frame, players: int
                     ) -> dict[int, tuple[ClientConnection, Frame]]:
    """Everyone but the host sits down and connects: seat -> (socket, first dealt view)."""
    guests = [join(server, grant["code"], f"Guest{n}") for n in range(1, players)]
    return {guest["seat"]: await seated(server, guest) for guest in guests}


@pytest.mark.parametrize("game", GAMES)
async def test_a_waiting_table_holds_no_cards_and_deals_once_when_full(
        server: ServerProcess, game: str) -> None:
    grant = create(server, game)
    host, first = await seated(server, grant)
    assert first["d"]["view"] is None  # the host sees no hand while his table waits
    record, events = await stored(server, grant["table_id"])
    assert record.start_chance == [] and events == [] and record.status == "waiting"
    match = httpx.get(f"{server.base_url}/api/tables/{grant['code']}/match")
    assert match.status_code == 404, match.text  # no match yet, no file of one

    # The rules may change while nobody holds a card: logged, nothing dealt.
    frames = await change_rules(host, EXPRESS[game])
    assert not [f for f in frames if f["t"] == "error"], frames
    assert all(f["d"]["view"] is None for f in frames if f["t"] == "view")
    record, events = await stored(server, grant["table_id"])
    assert [e.kind for e in events] == ["options"] and events[0].chance == []
    assert record.start_chance == [] and record.options == EXPRESS[game] | record.options

    players = get_game(game).players[0]
    others = await fill_seats(server, grant, players)
    dealt = await recv_type(host, "view")
    while dealt["d"]["view"] is None:
        dealt = await recv_type(host, "view")
    record, events = await stored(server, grant["table_id"])
    assert [e.kind for e in events] == ["options", "start"] and events[1].chance
    assert events[1].payload["options"] == record.options and record.status == "playing"
    assert all(view["d"]["view"] is not None and view["v"] == dealt["v"]
               for _, view in others.values())

    # Dealt: the rules are fixed until the match is over; nothing is dealt again.
    frames = await change_rules(host, get_game(game).options().to_dict())
    errors = [f for f in frames if f["t"] == "error"]
    assert [e["d"]["code"] for e in errors] == ["match_started"], frames
    assert not [f for f in frames if f["t"] == "view"]
    after, again = await stored(server, grant["table_id"])
    assert again == events and after.options == record.options
    for ws, _ in others.values():
        await ws.close()
    await host.close()


@pytest.mark.parametrize("game", GAMES)
async def test_against_the_computer_the_first_deal_is_the_only_one(
        server: ServerProcess, game: str) -> None:
    grant = create(server, game, opponent="computer", options=LASTING.get(game))
    ws, first = await seated(server, grant)
    assert first["d"]["view"] is not None  # every seat is taken: dealt at once
    record, _ = await stored(server, grant["table_id"])
    assert record.start_chance
    frames = await change_rules(ws, EXPRESS[game])
    assert [f["d"]["code"] for f in frames if f["t"] == "error"] == ["match_started"], frames
    after, later = await stored(server, grant["table_id"])
    assert after.start_chance == record.start_chance and after.options == record.options
    assert all(e.kind not in ("redeal", "start", "options") for e in later)
    await ws.close()


async def test_across_a_restart_undealt_stays_undealt_and_dealt_stays_dealt(
        server: ServerProcess) -> None:
    waiting = {game: create(server, game) for game in GAMES}
    full = {game: create(server, game) for game in GAMES}
    hands: dict[str, Any] = {}
    for game, grant in full.items():
        host, _ = await seated(server, grant)
        await fill_seats(server, grant, get_game(game).players[0])
        view = await recv_type(host, "view")
        while view["d"]["view"] is None:
            view = await recv_type(host, "view")
        hands[game] = held(view)
        await host.close()
    server.restart()  # kill -9
    for game, grant in waiting.items():
        ws, view = await seated(server, grant)
        assert view["d"]["view"] is None, game
        record, events = await stored(server, grant["table_id"])
        assert record.start_chance == [] and events == []
        await ws.close()
    for game, grant in full.items():
        ws, view = await seated(server, grant)
        assert held(view) == hands[game], game  # the very deal, not a new one
        await ws.close()

    # The last seat of a waiting table is taken after the restart: dealt then, and the
    # match goes on into its next deal.
    grant = waiting["gin"]
    ann, _ = await seated(server, grant)
    bob_grant = join(server, grant["code"], "Bob")
    bob, bob_view = await seated(server, bob_grant)
    ann_view = await recv_type(ann, "view")
    while ann_view["d"]["view"] is None:
        ann_view = await recv_type(ann, "view")
    server.restart()
    ann, ann_view = await seated(server, grant)
    bob, bob_view = await seated(server, bob_grant)
    views = await play_simply({0: ann, 1: bob}, {0: ann_view, 1: bob_view}, 200, "r",
                              until_hand=2)
    assert views[0]["d"]["view"]["hand"] == 2
    _, events = await stored(server, grant["table_id"])
    assert [e.kind for e in events].count("start") == 1
    assert not {e.kind for e in events} & {"redeal", "rematch"}
    await ann.close()
    await bob.close()


async def test_a_last_seat_saved_but_not_yet_dealt_is_dealt_at_the_next_load(
        server: ServerProcess) -> None:
    """The seats are saved, then the deal is logged: a crash between the two leaves a full
    table with nothing dealt, which the next load deals (once), and play goes on."""
    grant = create(server, "gin")
    bob_grant = join(server, grant["code"], "Bob")
    record, events = await stored(server, grant["table_id"])
    assert [e.kind for e in events] == ["start"]
    # The same table as the crash leaves it: its seats full, its log without the deal.
    store = await Store.open(server.store_url)
    try:
        await store.create_table(dataclasses.replace(
            record, table_id=record.table_id + "x",
            code=("Y" if record.code.startswith("Z") else "Z") + record.code[1:],
            start_chance=[], status="waiting"))
    finally:
        await store.close()
    server.restart()  # kill -9
    crashed = {**grant, "table_id": grant["table_id"] + "x"}
    ann, ann_view = await seated(server, crashed)
    while ann_view["d"]["view"] is None:
        ann_view = await recv_type(ann, "view")
    _, events = await stored(server, crashed["table_id"])
    assert [e.kind for e in events] == ["start"] and ann_view["v"] == 1
    bob, bob_view = await seated(server, {**bob_grant, "table_id": crashed["table_id"]})
    views = await play_simply({0: ann, 1: bob}, {0: ann_view, 1: bob_view}, 200, "c",
                              until_hand=2)
    assert views[0]["d"]["view"]["hand"] == 2  # on into a new deal
    _, events = await stored(server, crashed["table_id"])
    assert [e.kind for e in events].count("start") == 1
    await ann.close()
    await bob.close()
