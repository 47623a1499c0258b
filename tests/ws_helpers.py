"""Raw WebSocket helpers for protocol tests (no client library in between)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from server_harness import ServerProcess


def create(server: ServerProcess, opponent: str = "friend", **options: Any) -> dict[str, Any]:
    answer = httpx.post(f"{server.base_url}/api/tables",
                        json={"opponent": opponent, "name": "Ann", "options": options})
    answer.raise_for_status()
    grant: dict[str, Any] = answer.json()
    return grant


def join(server: ServerProcess, code: str, name: str = "Bob") -> dict[str, Any]:
    answer = httpx.post(f"{server.base_url}/api/tables/{code}/join", json={"name": name})
    answer.raise_for_status()
    grant: dict[str, Any] = answer.json()
    return grant


async def recv(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return frame


async def recv_type(ws: ClientConnection, kind: str, timeout: float = 10) -> dict[str, Any]:
    """The next frame of type ``kind`` (seat updates may come in between)."""
    while True:
        frame = await recv(ws, timeout)
        if frame["t"] == kind:
            return frame


async def recv_dealt(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    """The next view frame with a match in it: while a table waits for players nothing is
    dealt, and its view frames carry ``"view": null``."""
    while (frame := await recv_type(ws, "view", timeout))["d"]["view"] is None:
        pass
    return frame


async def seated(server: ServerProcess, grant: dict[str, Any]) -> tuple[ClientConnection,
                                                                        dict[str, Any]]:
    """Open the table socket, say hello with the grant's token; returns (ws, first view)."""
    ws = await connect(f"{server.ws_base}/ws/{grant['table_id']}")
    await ws.send(json.dumps({"t": "hello", "d": {"token": grant["token"]}}))
    welcome = await recv_type(ws, "welcome")
    assert welcome["d"]["seat"] == grant["seat"]
    view = await recv_type(ws, "view")
    return ws, view


async def act(ws: ClientConnection, version: int, action: dict[str, Any],
              ref: str) -> dict[str, Any]:
    await ws.send(json.dumps({"t": "act", "v": version, "d": {"id": ref, "action": action}}))
    while True:
        frame = await recv(ws)
        if frame["t"] == "error" or (frame["t"] == "view" and frame["d"]["ack"] == ref):
            return frame


SIMPLE_MOVES = ("pass", "draw_stock", "discard", "deal")


async def play_simply(sockets: dict[int, ClientConnection], views: dict[int, dict[str, Any]],
                      moves: int, prefix: str, until_hand: int | None = None
                      ) -> dict[int, dict[str, Any]]:
    """Gin for two open seats: pass, draw from the stock, throw the first card, deal when a
    hand is over; ``moves`` moves, or fewer once hand ``until_hand`` is dealt. ``views``
    (seat -> latest view frame) is brought up to date and returned."""
    for n in range(moves):
        if until_hand is not None and views[0]["d"]["view"]["hand"] >= until_hand:
            break
        seat = views[0]["d"]["view"]["to_act"]
        legal = views[seat]["d"]["view"]["legal"]
        move = next(a for a in legal if a["type"] in SIMPLE_MOVES)
        answer = await act(sockets[seat], views[seat]["v"], move, f"{prefix}{n}")
        assert answer["t"] == "view", answer
        views[seat] = answer
        for other in sockets:
            while views[other]["v"] < answer["v"]:
                views[other] = await recv_type(sockets[other], "view")
    return views
