"""Blocks across processes (server/moderation.py): the blocker's socket on one process, the
table owned by another. The owner's stand-in for the socket carries the block list the
socket's process loaded at hello, so the blocked player's chat never leaves the owner for
him; and a join forwarded to the owner is refused by the host's block.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cardtable.server.codes import CloseCode
from cardtable.server.moderation import HOST_REFUSES
from cardtable.server.players import COOKIE
from cluster_harness import Cluster, unavailable
from ws_helpers import recv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if (why := unavailable()) is not None:
        pytest.skip(why)
    with Cluster(tmp_path_factory.mktemp("moderation"), processes=2,
                 env={"CARDTABLE_BOT_DELAY": "0"}) as made:
        yield made


async def socket(cluster: Cluster, i: int, http: httpx.AsyncClient, table_id: str,
                 token: str) -> ClientConnection:
    """A seat's socket on process ``i``, with the browser's cookie; read past its history."""
    ws = await connect(f"{cluster.node_ws(i)}/ws/{table_id}", max_queue=None,
                       additional_headers={"Cookie": f"{COOKIE}={http.cookies.get(COOKIE)}"})
    await ws.send(json.dumps({"t": "hello", "d": {"token": token}}))
    while (await recv(ws))["t"] != "chat_history":
        pass
    return ws


async def lines_until(ws: ClientConnection, text: str) -> list[str]:
    lines: list[str] = []
    while True:
        frame: dict[str, Any] = await recv(ws)
        if frame["t"] == "chat":
            if frame["d"]["text"] == text:
                return lines
            lines.append(frame["d"]["text"])


async def say(ws: ClientConnection, text: str) -> None:
    await ws.send(json.dumps({"t": "chat", "d": {"text": text}}))


async def friends_table(host: httpx.AsyncClient,
                        guest: httpx.AsyncClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Gin table made by ``host`` (owned by the process he asked) that ``guest`` joins:
    both seat grants."""
    grant = (await host.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann",
        "settings": {"turn_time": 0}})).json()
    joined = (await guest.post(f"/api/tables/{grant['code']}/join",
                               json={"name": "Bob"})).json()
    return grant, joined


async def test_a_block_holds_on_a_socket_of_another_process(cluster: Cluster) -> None:
    async with httpx.AsyncClient(base_url=cluster.node_url(0)) as ann, \
            httpx.AsyncClient(base_url=cluster.node_url(1)) as bob:
        grant, bob_grant = await friends_table(ann, bob)  # owned by process 0
        bob_id = (await bob.get("/api/me")).json()["player_id"]
        assert (await ann.post(f"/api/blocks/{bob_id}")).status_code == 200

        a = await socket(cluster, 1, ann, grant["table_id"], grant["token"])  # forwarded
        b = await socket(cluster, 0, bob, grant["table_id"], bob_grant["token"])
        await say(b, "can Ann hear me?")
        await lines_until(b, "can Ann hear me?")
        await say(a, "Ann here")  # after Bob's line at the owner: any copy would be first
        assert await lines_until(a, "Ann here") == []
        assert await lines_until(b, "Ann here") == []

        private = (await ann.post("/api/tables", json={
            "game": "gin", "opponent": "friend", "name": "Ann"})).json()
        refused = await bob.post(f"/api/tables/{private['code']}/join", json={"name": "Bob"})
        assert refused.status_code == 403 and refused.json()["detail"] == HOST_REFUSES
        for ws in (a, b):
            await ws.close()


async def test_a_block_reaches_sockets_already_open_on_every_process(cluster: Cluster) -> None:
    """Sockets first, then the block, made on a process that is neither the table's owner
    nor the blocker's socket's (and unblocking on the owner): each time his next line
    goes by the open socket as it should, with no reconnection."""
    async with httpx.AsyncClient(base_url=cluster.node_url(0)) as ann0, \
            httpx.AsyncClient(base_url=cluster.node_url(1)) as bob:
        grant, bob_grant = await friends_table(ann0, bob)  # owned by process 0
        bob_id = (await bob.get("/api/me")).json()["player_id"]
        cookie = {COOKIE: ann0.cookies.get(COOKIE) or ""}
        a = await socket(cluster, 1, ann0, grant["table_id"], grant["token"])  # forwarded
        b = await socket(cluster, 0, bob, grant["table_id"], bob_grant["token"])
        # A second table, owned by process 1, where Ann's socket is local to the owner.
        async with httpx.AsyncClient(base_url=cluster.node_url(1), cookies=cookie) as ann1:
            other, other_bob = await friends_table(ann1, bob)
            a2 = await socket(cluster, 1, ann0, other["table_id"], other["token"])
            b2 = await socket(cluster, 1, bob, other["table_id"], other_bob["token"])

            await say(b, "before the block")
            assert await lines_until(a, "before the block") == []

            async with httpx.AsyncClient(base_url=cluster.node_url(1), cookies=cookie) as anns:
                # Made on process 1 (the forwarded socket's): the owner (0) must hear it.
                assert (await anns.post(f"/api/blocks/{bob_id}")).status_code == 200
            await say(b, "after the block")
            await say(b2, "after the block, too")
            await say(a, "Ann again")
            await say(a2, "Ann again, too")
            assert await lines_until(a, "Ann again") == []
            assert await lines_until(a2, "Ann again, too") == []
            assert "after the block" in await lines_until(b, "Ann again")

            # Unblocked on process 0 (the owner of the first table): his lines come back.
            assert (await ann0.delete(f"/api/blocks/{bob_id}")).status_code == 204
            await say(b, "unblocked")
            assert await lines_until(a, "unblocked") == []
            for ws in (a, b, a2, b2):
                await ws.close()


async def test_a_new_block_sends_the_blocked_spectator_away_across_processes(
        cluster: Cluster) -> None:
    """Bob watches Ann's private table (owned by process 0) through process 1; Ann blocks
    him on process 1: the owner hears it and sends him away with 4007."""
    async with httpx.AsyncClient(base_url=cluster.node_url(0)) as ann, \
            httpx.AsyncClient(base_url=cluster.node_url(1)) as bob:
        grant = (await ann.post("/api/tables", json={
            "game": "gin", "opponent": "friend", "name": "Ann",
            "settings": {"private": True, "spectators": True, "turn_time": 0}})).json()
        await bob.post("/api/tables", json={"game": "gin", "opponent": "computer",
                                            "name": "Bob"})  # a player now: a cookie
        bob_id = (await bob.get("/api/me")).json()["player_id"]
        ws = await connect(f"{cluster.node_ws(1)}/ws/{grant['table_id']}", max_queue=None,
                           additional_headers={"Cookie": f"{COOKIE}={bob.cookies.get(COOKIE)}"})
        await ws.send(json.dumps({"t": "hello", "d": {"spectate": True, "name": "Bob"}}))
        while (await recv(ws))["t"] != "chat_history":
            pass
        cookie = {COOKIE: ann.cookies.get(COOKIE) or ""}
        async with httpx.AsyncClient(base_url=cluster.node_url(1), cookies=cookie) as ann1:
            assert (await ann1.post(f"/api/blocks/{bob_id}")).status_code == 200
        while (frame := await recv(ws))["t"] != "error":
            pass
        assert frame["d"]["code"] == "host_refuses"
        with pytest.raises(ConnectionClosed):
            while True:
                await recv(ws)
        assert ws.close_code == CloseCode.HOST_REFUSES
