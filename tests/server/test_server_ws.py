"""The table WebSocket of a real server: play, idempotency, and every kind of bad input."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from cardtable.server.protocol import ViewData
from server_harness import ServerProcess
from ws_helpers import act, create, join, recv, recv_type, seated


async def two_players(server: ServerProcess):  # type: ignore[no-untyped-def]
    grant = create(server)
    other = join(server, grant["code"])
    a, view_a = await seated(server, grant)
    b, view_b = await seated(server, other)
    return grant, other, a, b, view_a, view_b


def mover(view_a: dict, view_b: dict) -> int:  # type: ignore[type-arg]
    return int(view_a["d"]["view"]["to_act"])


async def test_play_against_the_computer(server: ServerProcess) -> None:
    grant = create(server, "computer")
    ws, first = await seated(server, grant)
    view = first
    for _ in range(40):  # draw from the stock and throw the drawn card, the bot answers
        v = view["d"]["view"]
        if v["phase"] == "match_over":  # the computer won the match (it plays far better)
            break
        if v["to_act"] != 0:
            view = await recv_type(ws, "view", timeout=30)  # the computer, under load
            continue
        # (The computer may knock on its first turn, dealt well: then the next deal.)
        if v["phase"] not in ("first_upcard", "draw", "discard", "hand_over"):
            break
        legal = v["legal"]
        move = next((a for a in legal if a["type"] in ("pass", "draw_stock", "discard", "deal")),
                    legal[0])
        view = await act(ws, view["v"], move, f"m{view['v']}")
        assert view["t"] == "view", view
    assert view["v"] >= 10, view
    await ws.close()


async def test_views_are_redacted_per_seat(server: ServerProcess) -> None:
    grant, _, a, b, view_a, view_b = await two_players(server)
    for frame in (view_a, view_b):  # frames match their documented models
        ViewData.model_validate(frame["d"])
    hand_a = view_a["d"]["view"]["hands"][0]
    hand_b = view_b["d"]["view"]["hands"][1]
    assert "cards" in hand_a and "cards" not in view_a["d"]["view"]["hands"][1]
    assert "cards" in hand_b and "cards" not in view_b["d"]["view"]["hands"][0]
    spectator = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await spectator.send(json.dumps({"t": "hello", "d": {"spectate": True}}))
    welcome = await recv_type(spectator, "welcome")
    assert welcome["d"]["role"] == "spectator" and welcome["d"]["seat"] is None
    seen = (await recv_type(spectator, "view"))["d"]["view"]
    assert all("cards" not in h for h in seen["hands"]) and seen["legal"] == []
    for ws in (a, b, spectator):
        await ws.close()


async def test_idempotent_retry_stale_and_illegal(server: ServerProcess) -> None:
    _, _, a, b, view_a, view_b = await two_players(server)
    seat = mover(view_a, view_b)
    ws, view = (a, view_a) if seat == 0 else (b, view_b)
    version = view["v"]
    first = await act(ws, version, {"type": "pass"}, "same-id")
    assert first["t"] == "view" and first["v"] == version + 1
    again = await act(ws, version, {"type": "pass"}, "same-id")  # a retry: no second pass
    assert again["t"] == "view" and again["v"] == version + 1 and again["d"]["ack"] == "same-id"
    other_ws = b if ws is a else a
    stale = await act(other_ws, version, {"type": "pass"}, "late")
    assert stale["t"] == "error" and stale["d"]["code"] == "stale"
    snapshot = await recv_type(other_ws, "view")
    assert snapshot["v"] == version + 1
    other_view = (view_b if ws is a else view_a)["d"]["view"]
    held = other_view["hands"][other_view["seat"]]["cards"][0]
    illegal = await act(other_ws, version + 1, {"type": "discard", "card": held}, "bad")
    assert illegal["t"] == "error" and illegal["d"]["code"] in ("illegal",)
    assert "first take the upcard or pass" in illegal["d"]["message"]
    after = await recv_type(other_ws, "view")
    assert after["v"] == version + 1  # unchanged
    wrong_turn = await act(ws, version + 1, {"type": "pass"}, "not-mine")
    assert wrong_turn["d"]["code"] == "not_your_turn"
    for s in (a, b):
        await s.close()


async def test_an_act_acknowledged_again_names_the_version_it_was_logged_at(
        server: ServerProcess) -> None:
    _, _, a, b, view_a, view_b = await two_players(server)
    seat = mover(view_a, view_b)
    ws, other = (a, b) if seat == 0 else (b, a)
    version = (view_a if seat == 0 else view_b)["v"]
    first = await act(ws, version, {"type": "pass"}, "once")
    assert first["d"]["ack"] == "once" and first["d"]["ack_v"] == first["v"] == version + 1
    moved = await act(other, version + 1, {"type": "pass"}, "theirs")  # the table moves on
    assert moved["t"] == "view" and moved["v"] == version + 2
    again = await act(ws, version, {"type": "pass"}, "once")  # a resend, late
    assert again["d"]["ack"] == "once" and again["v"] == version + 2
    assert again["d"]["ack_v"] == version + 1  # logged then, not at the current version
    for s in (a, b):
        await s.close()


@pytest.mark.parametrize(
    ("text", "code"),
    [("not json", "bad_frame"),
     ("[1, 2]", "bad_frame"),
     ('{"v": 1}', "bad_frame"),
     ('{"t": "dance", "d": {}}', "unknown_type"),
     ('{"t": "act", "v": "one", "d": {"id": "x", "action": {"type": "pass"}}}', "bad_frame"),
     # "v": 1, the table's version: dealt (its start event) when the friend sat down
     ('{"t": "act", "v": 1, "d": {"id": "x"}}', "bad_frame"),
     ('{"t": "act", "v": 1, "d": {"id": "x", "action": {"type": "pass", "colour": 1}}}',
      "bad_action"),
     ('{"t": "act", "v": 1, "d": {"id": "x", "action": {"type": "discard", "card": "Zz"}}}',
      "bad_action"),
     ('{"t": "hello", "d": {"token": "again"}}', "hello_first"),
     ('{"t": "rematch"}', "not_over")],
)
async def test_bad_frames_get_their_error_and_change_nothing(server: ServerProcess, text: str,
                                                             code: str) -> None:
    _, _, a, b, view_a, view_b = await two_players(server)
    seat = mover(view_a, view_b)
    ws, view = (a, view_a) if seat == 0 else (b, view_b)
    assert view["v"] == 1  # the version the bad acts name: they must not be merely stale
    await ws.send(text)
    error = await recv_type(ws, "error")
    assert error["d"]["code"] == code, error
    snapshot = await recv_type(ws, "view")
    assert snapshot["v"] == view["v"] and snapshot["d"]["view"] == view["d"]["view"]
    ok = await act(ws, view["v"], {"type": "pass"}, "still-alive")
    assert ok["t"] == "view"  # the connection and the table are fine
    for s in (a, b):
        await s.close()


async def test_frames_before_hello_and_bad_tokens(server: ServerProcess) -> None:
    grant = create(server)
    ws = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await ws.send(json.dumps({"t": "sync"}))
    assert (await recv(ws))["d"]["code"] == "hello_first"
    for hello in ({"token": "x" * 32}, {}):
        ws = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
        await ws.send(json.dumps({"t": "hello", "d": hello}))
        error = await recv(ws)
        assert error["t"] == "error" and error["d"]["code"] == "bad_token"
        with pytest.raises(ConnectionClosed) as closed:
            await recv(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4003
    # the real seat still works after the failed attempts
    real, view = await seated(server, grant)  # welcomed to seat 0
    assert view["v"] == 0 and view["d"]["view"] is None  # the table waits: nothing dealt
    await real.close()


async def test_oversized_frame_closes_1009(server: ServerProcess) -> None:
    grant = create(server)
    ws, _ = await seated(server, grant)
    await ws.send(json.dumps({"t": "act", "v": 0, "d": {"id": "x" * 10, "pad": "y" * 5000}}))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await recv(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    again, view = await seated(server, grant)  # the server is alive, the table unchanged
    assert view["v"] == 0
    await again.close()


async def test_flooding_closes_1008(server: ServerProcess) -> None:
    grant = create(server)
    ws, _ = await seated(server, grant)
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(200):
            await ws.send('{"t": "ping"}')
        while True:
            await recv(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


async def test_foreign_origin_is_refused_and_own_origin_accepted(server: ServerProcess) -> None:
    grant = create(server)
    url = f"{server.ws_base}/ws/{grant['table_id']}"
    with pytest.raises(InvalidStatus) as refused:
        await connect(url, origin="http://evil.example")  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    ws = await connect(url, origin=server.base_url)  # type: ignore[arg-type]
    await ws.send(json.dumps({"t": "hello", "d": {"spectate": True}}))
    assert (await recv_type(ws, "welcome"))["d"]["role"] == "spectator"
    await ws.close()


async def test_unknown_table_closes_4004(server: ServerProcess) -> None:
    ws = await connect(f"{server.ws_base}/ws/t_nope")
    with pytest.raises(ConnectionClosed) as closed:
        await recv(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4004


async def test_spectators_cannot_act(server: ServerProcess) -> None:
    grant = create(server, "computer")
    ws = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await ws.send(json.dumps({"t": "hello", "d": {"spectate": True}}))
    view = await recv_type(ws, "view")
    answer = await act(ws, view["v"], {"type": "pass"}, "s1")
    assert answer["d"]["code"] == "spectator"
    await asyncio.sleep(0)
    await ws.close()
