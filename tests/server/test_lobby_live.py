"""The public lobby of a real server: GET /api/lobby, live /ws/lobby frames, quick join, restart."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from cardtable.server.lobby import NO_SEAT
from server_harness import ServerProcess
from ws_helpers import join, recv, recv_type, seated

Entry = dict[str, Any]
ENTRY_FIELDS = {"table_id", "code", "game", "title", "players", "free", "options", "express",
                "settings", "seats"}


@pytest.fixture(scope="module")
def lobby_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """This module's own server: one test restarts it."""
    process = ServerProcess(tmp_path_factory.mktemp("lobby") / "data",
                            env={"CARDTABLE_JOIN_LIMIT": "100000"}).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def server(lobby_server: ServerProcess) -> Iterator[ServerProcess]:
    """The lobby server with an empty lobby: every listed table of earlier tests is filled."""
    for entry in listed(lobby_server):
        for seat in entry["seats"]:
            if not seat["taken"]:
                httpx.post(f"{lobby_server.base_url}/api/tables/{entry['code']}/join",
                           json={"name": "Filler", "seat": seat["seat"]}).raise_for_status()
    assert listed(lobby_server) == []
    yield lobby_server


def table(server: ServerProcess, private: bool | None = False, **body: Any) -> dict[str, Any]:
    """A table of Ann's waiting for a friend (public unless said), no turn clock."""
    settings = {"turn_time": 0} if private is None else {"turn_time": 0, "private": private}
    answer = httpx.post(f"{server.base_url}/api/tables",
                        json={"opponent": "friend", "name": "Ann", "settings": settings} | body)
    answer.raise_for_status()
    grant: dict[str, Any] = answer.json()
    return grant


def listed(server: ServerProcess) -> list[Entry]:
    answer = httpx.get(f"{server.base_url}/api/lobby")
    answer.raise_for_status()
    tables: list[Entry] = answer.json()["tables"]
    return tables


def codes(tables: list[Entry]) -> list[str]:
    return [entry["code"] for entry in tables]


def quick_join(server: ServerProcess, **body: Any) -> httpx.Response:
    return httpx.post(f"{server.base_url}/api/lobby/quick-join", json={"name": "Bob"} | body)


class Lobby:
    """A /ws/lobby subscriber that checks each frame's version is one more than the last."""

    def __init__(self, ws: ClientConnection):
        self.ws = ws
        self.version: int | None = None

    @classmethod
    async def open(cls, server: ServerProcess) -> Lobby:
        return cls(await connect(f"{server.ws_base}/ws/lobby"))

    async def next(self, test: Callable[[list[Entry]], bool] = lambda _: True) -> list[Entry]:
        """The tables of the next lobby frame whose list passes ``test``."""
        while True:
            frame = await recv(self.ws)
            if frame["t"] != "lobby":
                continue
            if self.version is not None:
                assert frame["v"] == self.version + 1, (frame["v"], self.version)
            self.version = frame["v"]
            tables: list[Entry] = frame["d"]["tables"]
            if test(tables):
                return tables

    async def close(self) -> None:
        await self.ws.close()


async def test_a_public_table_appears_live(server: ServerProcess) -> None:
    lobby = await Lobby.open(server)
    assert await lobby.next() == []
    grant = table(server, options={"deals": 1})
    tables = await lobby.next(lambda t: grant["code"] in codes(t))
    [entry] = tables
    assert set(entry) == ENTRY_FIELDS
    assert (entry["table_id"], entry["code"], entry["game"], entry["title"]) == \
        (grant["table_id"], grant["code"], "gin", "Gin Rummy")
    assert (entry["players"], entry["free"], entry["express"]) == (2, 1, True)
    assert entry["options"]["deals"] == 1
    assert entry["settings"] == {"turn_time": 0, "spectators": True, "rated": False}
    assert [(s["seat"], s["name"], s["taken"]) for s in entry["seats"]] == [
        (0, "Ann", True), (1, None, False)]
    assert codes(listed(server)) == [grant["code"]]
    await lobby.ws.send(json.dumps({"t": "ping"}))
    assert (await recv_type(lobby.ws, "pong"))["t"] == "pong"
    await lobby.ws.send(json.dumps({"t": "chat", "d": {"text": "anyone?"}}))  # ignored
    await lobby.ws.send(json.dumps({"t": "ping"}))
    await recv_type(lobby.ws, "pong")
    await lobby.close()


async def test_a_private_table_never_appears(server: ServerProcess) -> None:
    lobby = await Lobby.open(server)
    hidden = table(server, private=None)  # private is the default
    secret = table(server, private=True)
    shown = table(server)
    tables = await lobby.next(lambda t: shown["code"] in codes(t))
    assert codes(tables) == [shown["code"]]
    assert codes(listed(server)) == [shown["code"]]
    for grant in (hidden, secret):
        info = httpx.get(f"{server.base_url}/api/tables/{grant['code']}").json()
        assert info["settings"]["private"] is True and info["status"] == "waiting"
    await lobby.close()


async def test_a_table_leaves_the_lobby_when_its_last_seat_is_taken(
        server: ServerProcess) -> None:
    lobby = await Lobby.open(server)
    spades = table(server, game="spades", players=4, seats=["human", "bot", "human"])
    tables = await lobby.next(lambda t: spades["code"] in codes(t))
    assert tables[0]["free"] == 2 and tables[0]["players"] == 4
    join(server, spades["code"])
    tables = await lobby.next(lambda t: bool(t) and t[0]["free"] == 1)
    assert codes(tables) == [spades["code"]]
    join(server, spades["code"], "Cy")
    await lobby.next(lambda t: spades["code"] not in codes(t))
    assert listed(server) == []
    # the host may also start with computers in the free seats: the table leaves too
    rummy = table(server, game="rummy", players=3, seats=["human", "human"])
    await lobby.next(lambda t: rummy["code"] in codes(t))
    host, _ = await seated(server, rummy)
    await host.send(json.dumps({"t": "start"}))
    await lobby.next(lambda t: rummy["code"] not in codes(t))
    assert listed(server) == []
    await host.close()
    await lobby.close()


async def test_quick_join_takes_the_oldest_fitting_table(server: ServerProcess) -> None:
    table(server, private=True)  # the oldest, but private: never a candidate
    older = table(server)
    rummy = table(server, game="rummy", players=3, seats=["human", "human"])
    newer = table(server)
    assert codes(listed(server)) == [older["code"], rummy["code"], newer["code"]]
    for refused in ({"game": "spades"}, {"game": "rummy", "players": 2},
                    {"game": "gin", "players": 4}, {"players": 5}):
        answer = quick_join(server, **refused)
        assert answer.status_code == 404 and answer.json() == {"detail": NO_SEAT}, refused
    grant = quick_join(server, game="gin").json()
    assert (grant["code"], grant["table_id"], grant["seat"]) == \
        (older["code"], older["table_id"], 1)
    assert grant["invite_url"] == f"/t/{older['code']}"
    ws, view = await seated(server, grant)  # the grant is a seat like any other
    assert view["d"]["view"]["seat"] == 1
    await ws.close()
    info = httpx.get(f"{server.base_url}/api/tables/{older['code']}").json()
    assert info["seats"][1]["name"] == "Bob" and info["status"] == "playing"
    assert quick_join(server, game="gin", name="Cy").json()["code"] == newer["code"]
    answer = quick_join(server, game="gin", name="Di")
    assert answer.status_code == 404 and answer.json()["detail"] == NO_SEAT
    assert (quick_join(server, players=3).json()["code"], quick_join(
        server, game="rummy", players=3).json()["seat"]) == (rummy["code"], 2)
    assert quick_join(server).status_code == 404  # nothing left anywhere
    assert listed(server) == []
    assert quick_join(server, game="poker").status_code == 422


async def test_quick_join_without_filters_takes_the_oldest(server: ServerProcess) -> None:
    first = table(server, game="spades", players=4, seats=["bot", "human", "bot"])
    table(server)
    assert quick_join(server).json()["code"] == first["code"]


async def test_going_public_shows_the_table_live(server: ServerProcess) -> None:
    lobby = await Lobby.open(server)
    await lobby.next()
    grant = table(server, private=True)
    host, _ = await seated(server, grant)
    await host.send(json.dumps({"t": "settings", "d": {"settings": {"private": False}}}))
    tables = await lobby.next(lambda t: grant["code"] in codes(t))
    assert codes(tables) == [grant["code"]] == codes(listed(server))
    await host.send(json.dumps({"t": "settings", "d": {"settings": {"turn_time": 60}}}))
    tables = await lobby.next(lambda t: bool(t) and t[0]["settings"]["turn_time"] == 60)
    await host.send(json.dumps({"t": "settings", "d": {"settings": {"private": True}}}))
    await lobby.next(lambda t: grant["code"] not in codes(t))
    assert listed(server) == []
    await host.close()
    await lobby.close()


async def test_the_lobby_survives_a_restart(server: ServerProcess) -> None:
    older = table(server)
    table(server, private=True)
    newer = table(server, game="rummy", players=3, seats=["human", "bot"])
    server.restart()
    assert codes(listed(server)) == [older["code"], newer["code"]]
    [first, second] = listed(server)
    assert (first["game"], first["players"], first["free"]) == ("gin", 2, 1)
    assert (second["game"], second["players"], second["free"]) == ("rummy", 3, 1)
    assert [s["kind"] for s in second["seats"]] == ["human", "human", "bot"]
    lobby = await Lobby.open(server)
    assert codes(await lobby.next()) == [older["code"], newer["code"]]
    grant = quick_join(server).json()
    assert grant["code"] == older["code"]
    await lobby.next(lambda t: codes(t) == [newer["code"]])
    ws, view = await seated(server, grant)
    assert view["d"]["view"]["seat"] == 1
    await ws.close()
    await lobby.close()
