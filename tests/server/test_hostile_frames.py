"""Hostile frames against a real server, on the table socket and the lobby socket.

JSON nested 2,000 deep inside 4 KiB (which would overflow ``json.loads``' recursion),
numbers JSON allows but no frame needs (NaN, 1e999, 4,000 digits), duplicate keys, lone
surrogates, binary frames and invalid UTF-8: each is refused by name with ``bad_frame``
(invalid UTF-8 by the WebSocket library's 1007 close), the connection keeps working, and
the server's log shows no traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cardtable.server.protocol import MAX_DEPTH
from server_harness import ServerProcess
from ws_helpers import create, recv, recv_type, seated

FRAME_LIMIT = 4096
ACT = '{"t": "act", "v": 0, "d": {"id": "x", "action": '
DEEP = f"nested deeper than {MAX_DEPTH} levels"

HOSTILE = [  # (frame text, what the error message says)
    pytest.param("[" * 2000 + "]" * 2000, DEEP, id="2000-deep-arrays"),
    pytest.param('{"":' * 1020, DEEP, id="1020-deep-objects"),
    pytest.param('[{"":' * 800, DEEP, id="1600-deep-mixed"),
    pytest.param(ACT + "[" * 2000 + "]" * 2000 + "}}", DEEP, id="deep-inside-a-frame"),
    pytest.param('{"t": "ping", "d": {"a": ' + "[" * 40 + "]" * 40 + "}}", DEEP,
                 id="just-over-the-limit"),
    pytest.param('{"t": "act", "v": NaN, "d": {}}', "NaN is not a JSON number", id="nan"),
    pytest.param('{"t": "act", "v": -Infinity, "d": {}}', "-Infinity is not a JSON number",
                 id="infinity"),
    pytest.param('{"t": "act", "v": 1e999, "d": {}}', "1e999 is out of range", id="1e999"),
    pytest.param('{"t": "ping", "v": ' + "9" * 4000 + "}", "beyond ±2^53",
                 id="4000-digits"),
    pytest.param('{"t": "ping", "v": 9007199254740993}', "beyond ±2^53", id="2^53+1"),
    pytest.param('{"t": "ping", "t": "act"}', "'t' appears twice", id="duplicate-key"),
    pytest.param('{"t": "chat", "d": {"text": "a\\ud800b"}}', "lone UTF-16 surrogate",
                 id="lone-surrogate"),
    pytest.param('"ping"', "a frame is a JSON object", id="top-level-string"),
    pytest.param("[]", "a frame is a JSON object", id="top-level-array"),
    pytest.param("null", "a frame is a JSON object", id="top-level-null"),
    pytest.param("", "not valid JSON", id="empty"),
    pytest.param("{" * 3000, DEEP, id="braces-only"),  # counted before parsing
    pytest.param("{{{", "not valid JSON", id="not-json"),
]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """This module's own server: its log must show no traceback."""
    process = ServerProcess(tmp_path_factory.mktemp("hostile") / "data",
                            env={"CARDTABLE_JOIN_LIMIT": "100000"}).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def grant(hostile: ServerProcess) -> dict[str, Any]:
    """A table against the computer, seat 0's grant: every test sits down with it."""
    return create(hostile, "computer")


def no_traceback(server: ServerProcess) -> None:
    log = server.output()
    assert "Traceback" not in log, log[-3000:]


async def refused(ws: ClientConnection, text: str | bytes, message: str) -> dict[str, Any]:
    await ws.send(text)
    error = await recv_type(ws, "error")
    assert error["d"]["code"] == "bad_frame", error
    assert message in error["d"]["message"], error
    return error


async def still_answers(ws: ClientConnection) -> None:
    await ws.send(json.dumps({"t": "ping"}))
    await recv_type(ws, "pong")


@pytest.mark.parametrize(("text", "message"), HOSTILE)
async def test_the_table_socket_refuses_by_name(hostile: ServerProcess, grant: dict[str, Any],
                                                text: str, message: str) -> None:
    assert len(text.encode()) <= FRAME_LIMIT  # under the size limit: the parser sees it
    ws, view = await seated(hostile, grant)
    await refused(ws, text, message)
    snapshot = await recv_type(ws, "view")  # in step again, nothing changed
    assert snapshot["d"]["view"]["seat"] == 0
    await ws.send(json.dumps({"t": "sync"}))
    assert (await recv_type(ws, "view"))["v"] >= view["v"]
    await still_answers(ws)
    await ws.close()
    no_traceback(hostile)


@pytest.mark.parametrize(("text", "message"), HOSTILE)
async def test_the_lobby_socket_refuses_by_name(hostile: ServerProcess, text: str,
                                                message: str) -> None:
    ws = await connect(f"{hostile.ws_base}/ws/lobby")
    assert (await recv(ws))["t"] == "lobby"
    await refused(ws, text, message)
    await still_answers(ws)
    await ws.close()
    no_traceback(hostile)


async def test_before_hello_a_hostile_frame_changes_nothing(hostile: ServerProcess,
                                                            grant: dict[str, Any]) -> None:
    """A surrogate token would have failed in hashing, deep JSON in the parser: both are
    refused before the table sees them, and a real hello still works after."""
    ws = await connect(f"{hostile.ws_base}/ws/{grant['table_id']}")
    await refused(ws, '{"t": "hello", "d": {"token": "\\udc00"}}', "lone UTF-16 surrogate")
    await refused(ws, '{"t": "hello", "d": ' + "[" * 2000 + "]" * 2000 + "}", DEEP)
    await ws.send(json.dumps({"t": "hello", "d": {"token": grant["token"]}}))
    assert (await recv_type(ws, "welcome"))["d"]["seat"] == 0
    await still_answers(ws)
    await ws.close()
    no_traceback(hostile)


async def test_binary_frames_are_refused_by_name(hostile: ServerProcess,
                                                 grant: dict[str, Any]) -> None:
    ws, _ = await seated(hostile, grant)
    await refused(ws, b'{"t": "ping"}', "not binary")
    await still_answers(ws)
    lobby = await connect(f"{hostile.ws_base}/ws/lobby")
    await refused(lobby, b"\xff\xfe[[[[", "not binary")
    await still_answers(lobby)
    for socket in (ws, lobby):
        await socket.close()
    no_traceback(hostile)


@pytest.mark.parametrize("path", ["table", "lobby"])
async def test_invalid_utf8_text_closes_1007_and_the_server_goes_on(
        hostile: ServerProcess, grant: dict[str, Any], path: str) -> None:
    url = f"{hostile.ws_base}/ws/{grant['table_id'] if path == 'table' else 'lobby'}"
    ws = await connect(url)
    await ws.send(b'{"t": "ping", "d": {"x": "\xff\xfe"}}', text=True)  # not UTF-8
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await recv(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
    again, _ = await seated(hostile, grant)
    await still_answers(again)
    await again.close()
    no_traceback(hostile)
