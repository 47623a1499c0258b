"""The host's settings, new rules while the table waits (and none once the match is dealt),
and ending a match by agreement, over a real server (and across a restart of it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cardtable.server.protocol import TableInfo, ViewData
from cardtable.store import EventRecord, Store, sqlite_url
from server_harness import ServerProcess
from table_life_helpers import quiet_table as new_table
from table_life_helpers import table_info as info
from ws_helpers import act, join, play_simply, recv, recv_dealt, recv_type, seated

Frame = dict[str, Any]
# A friends' table is dealt when Bob takes the last seat: its log's first event (start).
DEALT = 1
EXPRESS: dict[str, Frame] = {"gin": {"deals": 1}, "rummy": {"deals": 1}, "rummy500": {"deals": 1},
           "romme": {"end": "deals", "deals": 1}, "spades": {"deals": 1},
           "indian": {"format": "points"}}


@pytest.fixture(scope="module")
def restartable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of this module's own, for the tests that restart it."""
    process = ServerProcess(tmp_path_factory.mktemp("settings") / "data",
                            env={"CARDTABLE_JOIN_LIMIT": "100000"}).start()
    try:
        yield process
    finally:
        process.stop()


async def send(ws: ClientConnection, kind: str, data: Frame | None = None) -> None:
    await ws.send(json.dumps({"t": kind, "d": data or {}}))


async def change(ws: ClientConnection, settings: Frame | None = None,
                 options: Frame | None = None) -> None:
    data: Frame = {"settings": settings or {}}
    if options is not None:
        data["options"] = options
    await send(ws, "settings", data)


async def view_where(ws: ClientConnection, test: Callable[[Frame], bool]) -> Frame:
    """The next view frame whose data passes ``test``."""
    while True:
        frame = await recv_type(ws, "view")
        if test(frame["d"]):
            return frame


async def until_pong(ws: ClientConnection) -> list[Frame]:
    """Ping and return what came before the pong (the table answers in order)."""
    await send(ws, "ping")
    before = []
    while (frame := await recv(ws))["t"] != "pong":
        before.append(frame)
    return before


async def watch(server: ServerProcess, grant: Frame) -> ClientConnection:
    ws = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await send(ws, "hello", {"spectate": True})
    await recv_type(ws, "view")
    return ws


async def friends(server: ServerProcess, **body: Any
                  ) -> tuple[Frame, Frame, ClientConnection, ClientConnection, Frame]:
    """Ann and Bob seated at a fresh table: (grants, sockets, Bob's first view)."""
    grant, bob_grant, ann, bob, _, view = await friends_views(server, **body)
    return grant, bob_grant, ann, bob, view


async def friends_views(server: ServerProcess, **body: Any) -> tuple[
        Frame, Frame, ClientConnection, ClientConnection, Frame, Frame]:
    """Ann and Bob seated at a fresh table: (grants, sockets, their first views)."""
    grant = new_table(server, **body)
    bob_grant = join(server, grant["code"])
    ann, ann_view = await seated(server, grant)
    bob, bob_view = await seated(server, bob_grant)
    return grant, bob_grant, ann, bob, ann_view, bob_view


async def log_of(server: ServerProcess, table_id: str) -> list[EventRecord]:
    store = await Store.open(sqlite_url(server.data_dir))  # the server runs on SQLite
    try:
        events: list[EventRecord] = await store.load_events(table_id)
        return events
    finally:
        await store.close()


def cards(view: Frame) -> list[str]:
    v = view["d"]["view"]
    held: list[str] = v["hands"][v["seat"]]["cards"]
    return held


async def first_move(ann: ClientConnection, bob: ClientConnection, view: Frame) -> Frame:
    """The player to act passes the first upcard; returns his acknowledged view."""
    ws = ann if view["d"]["view"]["to_act"] == 0 else bob
    done = await act(ws, view["v"], {"type": "pass"}, "first")
    assert done["t"] == "view", done
    return done


# -- settings ---------------------------------------------------------------------------------


async def test_the_host_changes_settings_and_everyone_is_told(server: ServerProcess) -> None:
    grant, _, ann, bob, _ = await friends(server)
    spectator = await watch(server, grant)
    wanted = {"turn_time": 60, "private": False, "spectators": True, "spectator_chat": False,
              "levels": ["easy", "normal"], "hints": False, "rated": False}
    await change(ann, wanted)
    for ws in (ann, bob, spectator):
        table = await recv_type(ws, "table")
        TableInfo.model_validate(table["d"])
        assert table["d"]["settings"] == wanted and table["d"]["host"] == 0
        assert table["d"]["code"] == grant["code"] and table["v"] == DEALT
        assert [seat["level"] for seat in table["d"]["seats"]] == ["easy", "normal"]
        # the turn clock now runs at the new time
        view = await view_where(ws, lambda d: d["clock"] is not None)
        ViewData.model_validate(view["d"])
        clock = view["d"]["clock"]
        assert clock["turn_time"] == 60 and clock["seat"] == view["d"]["view"]["to_act"]
        assert 0 < clock["deadline"] - clock["now"] <= 60_000
    assert info(server, grant["code"])["settings"] == wanted
    await change(ann, {"turn_time": 15})  # a partial change keeps the rest
    table = await recv_type(bob, "table")
    assert table["d"]["settings"] == wanted | {"turn_time": 15}
    assert info(server, grant["code"])["settings"] == wanted | {"turn_time": 15}
    await change(ann, {"turn_time": 0})
    view = await view_where(bob, lambda d: d["clock"] is None)  # timers off: no clock
    assert view["v"] == DEALT
    for ws in (ann, bob, spectator):
        await ws.close()


async def test_spectators_off_sends_watchers_away(server: ServerProcess) -> None:
    grant, _, ann, bob, _ = await friends(server)
    spectator = await watch(server, grant)
    await change(ann, {"spectators": False})
    error = await recv_type(spectator, "error")
    assert error["d"]["code"] == "no_spectators"
    with pytest.raises(ConnectionClosed) as closed:
        await recv(spectator)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4005
    late = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await send(late, "hello", {"spectate": True})
    assert (await recv(late))["d"]["code"] == "no_spectators"
    with pytest.raises(ConnectionClosed) as closed:
        await recv(late)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4005
    table = await recv_type(bob, "table")  # the players stay
    assert table["d"]["settings"]["spectators"] is False and table["d"]["spectators"] == 0
    await change(ann, {"spectators": True})
    again = await watch(server, grant)
    for ws in (ann, bob, again):
        await ws.close()


async def test_only_the_host_changes_settings(server: ServerProcess) -> None:
    grant, _, ann, bob, _ = await friends(server)
    spectator = await watch(server, grant)
    before = info(server, grant["code"])
    for ws in (bob, spectator):
        await change(ws, {"turn_time": 60}, {"target": 250})
        error = await recv_type(ws, "error")
        assert error["d"]["code"] == "not_host" and error["v"] == DEALT
    assert not [f for f in await until_pong(ann) if f["t"] in ("table", "view")]
    after = info(server, grant["code"])
    assert (after["settings"], after["options"]) == (before["settings"], before["options"])
    for ws in (ann, bob, spectator):
        await ws.close()


async def test_when_the_host_leaves_the_next_person_is_host(server: ServerProcess) -> None:
    grant, _, ann, bob, _ = await friends(server)
    assert info(server, grant["code"])["host"] == 0
    await send(ann, "leave")
    assert (await recv_type(ann, "left"))["d"] == {"seat": 0}
    table = await recv_type(bob, "table")
    assert table["d"]["host"] == 1 and table["d"]["seats"][0]["kind"] == "bot"
    await change(bob, {"turn_time": 60})
    changed = await recv_type(bob, "table")
    assert changed["d"]["settings"]["turn_time"] == 60
    await bob.close()


@pytest.mark.parametrize(("settings", "options", "reason"), [
    ({"turn_time": 45}, None, "turn_time: Input should be 0, 15, 30 or 60"),
    ({"turn_time": "30"}, None, "turn_time"),
    ({"levels": ["easy"]}, None, "levels: give one level per seat (2)"),
    ({"levels": ["easy", "easy", "easy"]}, None, "levels: give one level per seat (2)"),
    ({"levels": ["master", "normal"]}, None, "levels: unknown computer level 'master'"),
    ({"hints": "off"}, None, "hints"),
    ({"colour": "red"}, None, "colour"),
    ({"private": "no"}, None, "private"),
    ({"turn_time": 60}, {"target": -5}, "option 'target'"),  # all or nothing
    ({}, {"preset": "nope"}, "unknown preset"),
    ({}, {"colour": 1}, "unknown option 'colour'"),
])
async def test_bad_settings_change_nothing(server: ServerProcess, settings: Frame,
                                           options: Frame | None, reason: str) -> None:
    grant, _, ann, bob, _ = await friends(server)
    before = info(server, grant["code"])
    await change(ann, settings, options)
    error = await recv_type(ann, "error")
    assert error["d"]["code"] == "bad_settings" and error["v"] == DEALT
    assert error["d"]["message"].startswith(reason), error
    assert not [f for f in await until_pong(bob) if f["t"] in ("table", "view")]
    after = info(server, grant["code"])
    assert (after["settings"], after["options"]) == (before["settings"], before["options"])
    await ann.close()
    await bob.close()


def test_bad_settings_when_creating_a_table_are_refused(server: ServerProcess) -> None:
    for settings, reason in (({"turn_time": 45}, "turn_time"), ({"levels": ["easy"]}, "levels"),
                             ({"colour": 1}, "colour")):
        answer = httpx.post(f"{server.base_url}/api/tables",
                            json={"opponent": "computer", "settings": settings})
        assert answer.status_code == 422 and reason in answer.json()["detail"], answer.text


async def test_new_options_while_the_table_waits_are_the_first_deals_and_then_fixed(
        server: ServerProcess) -> None:
    grant = new_table(server)
    ann, first = await seated(server, grant)
    assert first["d"]["view"] is None  # nothing is dealt while the table waits
    spectator = await watch(server, grant)
    await change(ann, options={"target": 250})
    for ws in (ann, spectator):
        table = await recv_type(ws, "table")
        assert table["d"]["options"]["target"] == 250 and table["v"] == 1
        view = await recv_type(ws, "view")
        assert view["v"] == 1 and view["d"]["view"] is None  # still nothing dealt
    assert info(server, grant["code"])["options"]["target"] == 250
    assert [event.kind for event in await log_of(server, grant["table_id"])] == ["options"]

    bob_grant = join(server, grant["code"])  # the last seat: dealt now, under the new rules
    bob, bob_view = await seated(server, bob_grant)
    for view in (bob_view, await recv_dealt(ann), await recv_dealt(spectator)):
        assert view["v"] == 2 and view["d"]["view"]["options"]["target"] == 250
        assert view["d"]["view"]["target"] == 250
    log = await log_of(server, grant["table_id"])
    assert [event.kind for event in log] == ["options", "start"] and log[1].chance
    assert log[1].payload["options"]["target"] == 250

    # Dealt (no move yet): the rules are fixed; nothing is dealt again.
    await change(ann, {"turn_time": 60}, {"target": 300})
    error = await recv_type(ann, "error")
    assert error["d"]["code"] == "match_started" and error["v"] == 2
    assert not [f for f in await until_pong(bob) if f["t"] in ("table", "view")]
    after = info(server, grant["code"])
    assert after["options"]["target"] == 250 and after["settings"]["turn_time"] == 0
    await change(ann, options={"target": 250})  # the same rules again: no change, no deal
    assert (await recv_type(bob, "table"))["v"] == 2
    assert not [f for f in await until_pong(bob) if f["t"] == "view" and f["v"] != 2]
    assert await log_of(server, grant["table_id"]) == log
    bob_again, again = await seated(server, bob_grant)  # the very deal Bob was given
    assert cards(again) == cards(bob_view)
    for ws in (ann, bob, spectator, bob_again):
        await ws.close()


async def test_new_options_after_a_move_are_match_started(server: ServerProcess) -> None:
    grant, _, ann, bob, view = await friends(server)
    moved = await first_move(ann, bob, view)
    await change(ann, {"turn_time": 60}, {"target": 250})
    error = await recv_type(ann, "error")
    assert error["d"]["code"] == "match_started" and error["v"] == moved["v"]
    after = info(server, grant["code"])
    assert after["options"]["target"] == 100 and after["settings"]["turn_time"] == 0
    await change(ann, {"turn_time": 15})  # settings alone may change any time
    assert (await recv_type(bob, "table"))["d"]["settings"]["turn_time"] == 15
    await ann.close()
    await bob.close()


async def test_express_options(server: ServerProcess) -> None:
    games = httpx.get(f"{server.base_url}/api/games").json()["games"]
    assert {game["name"]: game["express"] for game in games} == EXPRESS
    express = new_table(server, opponent="computer", options={"deals": 1})
    assert info(server, express["code"])["express"] is True
    grant = new_table(server)
    assert info(server, grant["code"])["express"] is False
    ann, _ = await seated(server, grant)
    await change(ann, options=EXPRESS["gin"])  # what the client merges in, while it waits
    table = await recv_type(ann, "table")
    assert table["d"]["express"] is True and table["d"]["options"]["deals"] == 1
    bob, view = await seated(server, join(server, grant["code"]))
    assert view["d"]["view"]["options"]["deals"] == 1  # the match is dealt under them
    await ann.close()
    await bob.close()


async def test_computer_levels(server: ServerProcess) -> None:
    grant = new_table(server, opponent="computer", settings={"levels": ["normal", "easy"]})
    table = info(server, grant["code"])
    assert table["settings"]["levels"] == ["normal", "easy"]
    assert [(s["kind"], s["level"]) for s in table["seats"]] == [("human", "normal"),
                                                                 ("bot", "easy")]
    ws = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await send(ws, "hello", {"token": grant["token"]})
    welcome = await recv_type(ws, "welcome")
    assert welcome["d"]["table"]["seats"][1]["level"] == "easy"
    await ws.close()
    spades = new_table(server, game="spades", players=4, seats=["bot", "human", "bot"],
                       settings={"levels": ["normal", "easy", "normal", "easy"]})
    seats = info(server, spades["code"])["seats"]
    assert [(s["kind"], s["taken"], s["level"]) for s in seats] == [
        ("human", True, "normal"), ("bot", True, "easy"), ("human", False, "normal"),
        ("bot", True, "easy")]


# -- ending by agreement ------------------------------------------------------------------------


async def test_ending_by_agreement_then_a_rematch(server: ServerProcess) -> None:
    grant, bob_grant, ann, bob, view = await friends(server)
    spectator = await watch(server, grant)
    await send(ann, "end", {"agree": True})
    for ws in (ann, bob, spectator):
        proposed = await view_where(ws, lambda d: d["end_votes"] == [0])
        assert proposed["d"]["ended"] is None and proposed["v"] == DEALT
    await send(spectator, "end", {"agree": True})  # spectators do not vote
    assert (await recv_type(spectator, "error"))["d"]["code"] == "spectator"
    assert info(server, grant["code"])["status"] == "playing"
    await send(bob, "end", {"agree": True})
    for ws in (ann, bob, spectator):
        ended = await view_where(ws, lambda d: d["ended"] is not None)
        assert ended["d"]["ended"] == "agreed" and ended["d"]["end_votes"] == []
        assert ended["v"] == DEALT + 1
    assert info(server, grant["code"])["status"] == "over"
    mover = ann if view["d"]["view"]["to_act"] == 0 else bob
    refused = await act(mover, DEALT + 1, {"type": "pass"}, "too-late")
    assert refused["t"] == "error" and refused["d"]["code"] == "not_playing"
    await send(ann, "end", {"agree": True})
    assert (await recv_type(ann, "error"))["d"]["code"] == "not_playing"
    await send(ann, "rematch")
    await view_where(bob, lambda d: d["rematch"] == [0])
    await send(bob, "rematch")
    for ws in (ann, bob, spectator):
        fresh = await view_where(ws, lambda d: d["ended"] is None)
        assert fresh["v"] == DEALT + 2 and fresh["d"]["rematch"] == []
        assert fresh["d"]["view"]["scores"] == [0, 0]
    table = info(server, grant["code"])
    assert table["status"] == "playing"
    assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"]
    for ws in (ann, bob, spectator):
        await ws.close()
    for seat_grant in (grant, bob_grant):  # the same seats, the same tokens
        ws, again = await seated(server, seat_grant)
        assert again["v"] == DEALT + 2 and again["d"]["ended"] is None
        await ws.close()


async def test_agree_false_clears_the_votes(server: ServerProcess) -> None:
    grant, _, ann, bob, _ = await friends(server)
    await send(ann, "end", {"agree": True})
    await view_where(bob, lambda d: d["end_votes"] == [0])
    await send(bob, "end", {"agree": False})
    for ws in (ann, bob):
        cleared = await view_where(ws, lambda d: d["end_votes"] == [])
        assert cleared["d"]["ended"] is None
    await send(bob, "end")  # agree is the default
    await view_where(ann, lambda d: d["end_votes"] == [1])
    await send(bob, "end", {"agree": False})  # withdrawing one's own proposal
    await view_where(ann, lambda d: d["end_votes"] == [])
    assert info(server, grant["code"])["status"] == "playing"
    await ann.close()
    await bob.close()


async def test_alone_with_computers_one_proposal_ends_the_match(server: ServerProcess) -> None:
    grant = new_table(server, game="spades", players=4, opponent="computer")
    ws, _ = await seated(server, grant)
    await send(ws, "end", {"agree": True})
    ended = await view_where(ws, lambda d: d["ended"] is not None)
    assert ended["d"]["ended"] == "agreed"
    assert info(server, grant["code"])["status"] == "over"
    await ws.close()


async def test_ending_a_match_that_waits_for_players_is_not_playing(
        server: ServerProcess) -> None:
    grant = new_table(server)
    ws, _ = await seated(server, grant)
    await send(ws, "end", {"agree": True})
    assert (await recv_type(ws, "error"))["d"]["code"] == "not_playing"
    assert info(server, grant["code"])["status"] == "waiting"
    await ws.close()


async def test_options_after_the_end_are_the_next_matchs(server: ServerProcess) -> None:
    _, _, ann, bob, _ = await friends(server)
    await send(ann, "end")
    await send(bob, "end")
    await view_where(ann, lambda d: d["ended"] == "agreed")
    await change(ann, options={"target": 250})
    table = await recv_type(bob, "table")
    assert table["d"]["options"]["target"] == 250
    if table["d"]["status"] == "over":  # not dealt yet: the rematch deals under them
        await send(ann, "rematch")
        await send(bob, "rematch")
    fresh = await view_where(bob, lambda d: d["ended"] is None)
    assert fresh["d"]["view"]["options"]["target"] == 250
    await ann.close()
    await bob.close()


# -- across a restart -------------------------------------------------------------------------


async def test_a_deal_under_new_rules_is_rebuilt_after_a_restart(
        restartable: ServerProcess) -> None:
    server = restartable
    grant = new_table(server)
    ann, _ = await seated(server, grant)
    await change(ann, options={"preset": "oklahoma"})  # while the table waits
    await recv_type(ann, "table")
    bob_grant = join(server, grant["code"])
    ann_view = await recv_dealt(ann)
    bob, bob_view = await seated(server, bob_grant)
    assert ann_view["d"]["view"]["options"]["oklahoma"]
    assert ann_view["v"] == bob_view["v"] == 2
    log = await log_of(server, grant["table_id"])
    assert [event.kind for event in log] == ["options", "start"]
    server.restart()
    ann, again = await seated(server, grant)
    assert again["v"] == 2 and again["d"]["view"] == ann_view["d"]["view"]
    bob, again = await seated(server, bob_grant)
    assert again["d"]["view"] == bob_view["d"]["view"]
    assert info(server, grant["code"])["options"]["target"] == 150
    moved = await first_move(ann, bob, again)  # the rebuilt match plays on
    assert moved["v"] == 3
    # ... across its next deal, drawn from a live rng after the restart
    sockets = {0: ann, 1: bob}
    mover = moved["d"]["view"]["seat"]
    views = {mover: moved, 1 - mover: await recv_type(sockets[1 - mover], "view")}
    views = await play_simply(sockets, views, 200, "after", until_hand=2)
    assert views[0]["d"]["view"]["hand"] == views[1]["d"]["view"]["hand"] == 2
    await ann.close()
    await bob.close()


async def test_an_agreed_end_survives_a_restart(restartable: ServerProcess) -> None:
    server = restartable
    grant, bob_grant, ann, bob, _ = await friends(server)
    await send(ann, "end")
    await send(bob, "end")
    ended = await view_where(ann, lambda d: d["ended"] == "agreed")
    server.restart()
    assert info(server, grant["code"])["status"] == "over"
    ann, again = await seated(server, grant)
    assert again["v"] == ended["v"] and again["d"]["ended"] == "agreed"
    assert again["d"]["view"] == ended["d"]["view"]
    bob, _ = await seated(server, bob_grant)
    await send(ann, "rematch")
    await send(bob, "rematch")
    fresh = await view_where(ann, lambda d: d["ended"] is None)
    assert fresh["v"] == ended["v"] + 1
    await ann.close()
    await bob.close()


async def test_options_changed_after_the_end_survive_a_restart(
        restartable: ServerProcess) -> None:
    """The finished match was played under the old rules: a restart must replay it so."""
    server = restartable
    grant, bob_grant, ann, bob, view = await friends(server)
    await first_move(ann, bob, view)  # a pass of the first upcard
    await send(ann, "end")
    await send(bob, "end")
    await view_where(ann, lambda d: d["ended"] == "agreed")
    await change(ann, options={"first_upcard": False})  # under which that pass is no move
    await recv_type(ann, "table")
    latest = await recv_type(ann, "view")
    server.restart()
    table = httpx.get(f"{server.base_url}/api/tables/{grant['code']}")
    assert table.status_code == 200, table.text  # the table loads from its log
    assert table.json()["options"]["first_upcard"] is False
    ann, again = await seated(server, grant)
    assert again["v"] == latest["v"] and again["d"]["view"] == latest["d"]["view"]
    assert again["d"]["ended"] == latest["d"]["ended"]
    bob, _ = await seated(server, bob_grant)
    if again["d"]["ended"]:
        await send(ann, "rematch")
        await send(bob, "rematch")
    fresh = await view_where(ann, lambda d: d["ended"] is None)
    assert fresh["d"]["view"]["options"]["first_upcard"] is False
    await ann.close()
    await bob.close()
