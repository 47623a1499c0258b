"""The public lobby: listing rules, order, coalesced live updates, quick join, its routes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request, WebSocket
from starlette.websockets import WebSocketDisconnect

from cardtable.engine import get_game
from cardtable.server import lobby as lobby_module
from cardtable.server.lobby import NO_SEAT, Lobby, fitting_seat
from cardtable.server.routes.lobby import install_routes
from cardtable.store import SeatRecord, Store, TableRecord, sqlite_url

with warnings.catch_warnings():  # Starlette would rather have httpx2; httpx is what we have
    warnings.filterwarnings("ignore", message=".*httpx2")
    from starlette.testclient import TestClient


def info(table_id: str, code: str | None = None, *, game: str = "gin",
         seats: str = "H.", status: str = "waiting", turn_time: int = 30,
         spectators: bool = True, express: bool = False) -> dict[str, Any]:
    """A TableInfo dict; ``seats`` spells the seats: H taken human, B bot, . free seat."""
    return {
        "table_id": table_id, "code": code or table_id[-6:].upper(), "game": game,
        "title": game.title(), "options": {"target": 100}, "status": status,
        "seats": [{"seat": i, "name": None if c == "." else f"P{i}",
                   "kind": "bot" if c == "B" else "human", "taken": c != ".",
                   "connected": c == "B", "level": "normal", "standin": None,
                   "reconnect_deadline": None, "timeouts": 0}
                  for i, c in enumerate(seats)],
        "settings": {"turn_time": turn_time, "private": False, "spectators": spectators,
                     "spectator_chat": True, "levels": ["normal"] * len(seats)},
        "express": express, "spectators": 3,
    }


def codes(lobby: Lobby) -> list[str]:
    return [entry["code"] for entry in lobby.entries()]


def new_lobby(interval: float = 0.05) -> Lobby:
    return Lobby(store=None, interval=interval)  # type: ignore[arg-type]  # load() unused


# -- the list ------------------------------------------------------------------------------------


def test_entry_has_exactly_the_spec_fields() -> None:
    lobby = new_lobby()
    table = info("t_aaaaaa", seats="HB..", turn_time=15, spectators=False, express=True)
    lobby.table_changed(table, private=False)
    [entry] = lobby.entries()
    assert set(entry) == {"table_id", "code", "game", "title", "players", "free", "options",
                          "express", "settings", "seats"}
    assert entry["table_id"] == "t_aaaaaa" and entry["code"] == "AAAAAA"
    assert (entry["game"], entry["title"], entry["options"]) == ("gin", "Gin", {"target": 100})
    assert (entry["players"], entry["free"], entry["express"]) == (4, 2, True)
    assert entry["settings"] == {"turn_time": 15, "spectators": False, "rated": False}
    assert entry["seats"] == table["seats"]
    table["seats"][2]["taken"] = True  # the lobby keeps a copy, not the actor's dicts
    assert lobby.entries()[0]["free"] == 2 and lobby.entries()[0]["seats"][2]["taken"] is False


def test_listed_only_public_waiting_with_a_free_seat() -> None:
    lobby = new_lobby()
    lobby.table_changed(info("t_public"), private=False)
    lobby.table_changed(info("t_secret"), private=True)
    lobby.table_changed(info("t_fullup", seats="HH"), private=False)
    lobby.table_changed(info("t_bots01", seats="HB", status="playing"), private=False)
    lobby.table_changed(info("t_playin", seats="H.", status="playing"), private=False)
    lobby.table_changed(info("t_over01", seats="H.", status="over"), private=False)
    assert codes(lobby) == ["PUBLIC"]
    # Private is never listed, whatever else changes.
    lobby.table_changed(info("t_secret", seats="H..."), private=True)
    assert codes(lobby) == ["PUBLIC"]


def test_removed_when_full_playing_private_or_over() -> None:
    lobby = new_lobby()
    for table_id in ("t_aaaaaa", "t_bbbbbb", "t_cccccc", "t_dddddd"):
        lobby.table_changed(info(table_id, seats="H.."), private=False)
    assert codes(lobby) == ["AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD"]
    lobby.table_changed(info("t_aaaaaa", seats="HH."), private=False)  # one seat left
    assert codes(lobby) == ["AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD"]
    assert lobby.entries()[0]["free"] == 1
    lobby.table_changed(info("t_aaaaaa", seats="HHH"), private=False)  # full
    lobby.table_changed(info("t_bbbbbb", seats="HBB", status="playing"), private=False)
    lobby.table_changed(info("t_cccccc", seats="H.."), private=True)  # the host hid it
    assert codes(lobby) == ["DDDDDD"]
    lobby.table_changed(info("t_dddddd", seats="H..", status="over"), private=False)
    assert codes(lobby) == []
    lobby.forget("t_nobody")  # unknown: nothing happens


def test_oldest_first_and_a_table_keeps_its_place() -> None:
    lobby = new_lobby()
    for table_id in ("t_aaaaaa", "t_bbbbbb", "t_cccccc"):
        lobby.table_changed(info(table_id), private=False)
    lobby.table_changed(info("t_aaaaaa", turn_time=60), private=False)  # changed, not newer
    assert codes(lobby) == ["AAAAAA", "BBBBBB", "CCCCCC"]
    lobby.table_changed(info("t_bbbbbb"), private=True)
    lobby.table_changed(info("t_bbbbbb"), private=False)  # listed again: where it was
    assert codes(lobby) == ["AAAAAA", "BBBBBB", "CCCCCC"]
    lobby.forget("t_aaaaaa")
    lobby.table_changed(info("t_aaaaaa"), private=False)  # forgotten: a newcomer now
    assert codes(lobby) == ["BBBBBB", "CCCCCC", "AAAAAA"]


def test_quick_join_candidates_and_fitting_seat() -> None:
    lobby = new_lobby()
    lobby.table_changed(info("t_gin001"), private=False)
    lobby.table_changed(info("t_spade4", game="spades", seats="H.B."), private=False)
    lobby.table_changed(info("t_gin002"), private=False)
    lobby.table_changed(info("t_rummy3", game="rummy", seats="H.."), private=False)
    lobby.table_changed(info("t_rummy4", game="rummy", seats="HH.."), private=False)
    lobby.table_changed(info("t_hidden", game="rummy", seats="H.."), private=True)
    assert lobby.quick_join_candidates(None, None) == [
        "GIN001", "SPADE4", "GIN002", "RUMMY3", "RUMMY4"]
    assert lobby.quick_join_candidates("gin", None) == ["GIN001", "GIN002"]
    assert lobby.quick_join_candidates("rummy", 4) == ["RUMMY4"]
    assert lobby.quick_join_candidates(None, 4) == ["SPADE4", "RUMMY4"]
    assert lobby.quick_join_candidates("rummy", 2) == []
    assert lobby.quick_join_candidates("okey", None) == []
    entries = lobby.entries()
    assert fitting_seat(entries, "spades", 4) == ("SPADE4", 1)
    assert fitting_seat(entries, "rummy", None) == ("RUMMY3", 1)
    assert fitting_seat(entries, None, 4) == ("SPADE4", 1)
    assert fitting_seat(entries, "romme", None) is None
    # A free seat only a computer may take is no seat for a person.
    entries[0]["seats"][1]["kind"] = "bot"
    assert fitting_seat(entries[:1], "gin", 2) is None


async def test_changes_are_coalesced_into_few_frames() -> None:
    lobby = new_lobby(interval=0.5)
    assert lobby.version == 0
    for n in range(20):  # a burst: one frame, at once
        lobby.table_changed(info(f"t_tab{n:03d}"), private=False)
    await asyncio.sleep(0.05)
    assert lobby.version == 1
    for n in range(20):  # another burst within the interval: one more frame, later
        lobby.table_changed(info(f"t_tab{n:03d}", turn_time=60), private=False)
    await asyncio.sleep(0.05)
    assert lobby.version == 1
    await wait_for(lambda: lobby.version == 2)
    lobby.table_changed(info("t_tab000", turn_time=60), private=False)  # no real change
    lobby.table_changed(info("t_private", seats="H."), private=True)  # nothing listed changes
    await asyncio.sleep(0.6)
    assert lobby.version == 2
    # Changes spread over a second: at most one frame per 0.5 s (plus the last one's).
    start = time.monotonic()
    for n in range(20):
        lobby.table_changed(info(f"t_tab{n:03d}", turn_time=15), private=False)
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.6)
    frames = lobby.version - 2
    assert 2 <= frames <= (time.monotonic() - start) / 0.5 + 1
    assert len(lobby.entries()) == 20
    await lobby.close()


# -- live subscribers without a network ----------------------------------------------------------


class FakeSocket:
    """Enough of a starlette WebSocket for Lobby.serve; ``stuck`` never finishes a send."""

    def __init__(self, stuck: bool = False) -> None:
        self.stuck = stuck
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.got = asyncio.Event()

    async def accept(self) -> None:
        pass

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()
        self.sent.append(json.loads(text))
        self.got.set()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": code})

    def say(self, text: str) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": text})


async def wait_for(condition: Any, timeout: float = 3.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_stuck_subscriber_blocks_nobody_and_stays_bounded() -> None:
    lobby = new_lobby(interval=0.01)
    fast, stuck = FakeSocket(), FakeSocket(stuck=True)
    tasks = [asyncio.create_task(lobby.serve(ws)) for ws in (fast, stuck)]  # type: ignore[arg-type]
    await wait_for(lambda: lobby.subscribers == 2 and len(fast.sent) == 1)
    assert fast.sent[0] == {"t": "lobby", "v": 0, "d": {"tables": []}}
    slow = next(s for s in lobby._subscribers if s.websocket is stuck)
    n = 0
    while n < 40 or lobby.version < 3 * lobby_module.OUTBOX_SIZE:  # far more than fits
        lobby.table_changed(info(f"t_tab{n:03d}"), private=False)
        n += 1
        await asyncio.sleep(0.015)
    await wait_for(lambda: fast.sent[-1]["v"] == lobby.version)
    assert len(fast.sent[-1]["d"]["tables"]) == n
    versions = [frame["v"] for frame in fast.sent]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    assert slow.outbox.qsize() <= lobby_module.OUTBOX_SIZE and slow.dropped > 0
    queued = [slow.outbox.get_nowait() for _ in range(slow.outbox.qsize())]
    assert json.loads(queued[-1] or "{}")["v"] == lobby.version  # the newest list survives
    fast.say('{"t":"ping"}')
    await wait_for(lambda: fast.sent[-1]["t"] == "pong")
    assert fast.sent[-1] == {"t": "pong", "v": lobby.version, "d": {}}
    await lobby.close()
    async with asyncio.timeout(3):
        await asyncio.gather(*tasks)
    assert lobby.subscribers == 0 and fast.closed == stuck.closed == 1001


# -- the routes, on a tiny app with a real store ------------------------------------------------


def record(table_id: str, code: str, seats: list[SeatRecord], *, private: bool = False,
           status: str = "waiting", game: str = "gin", options: dict[str, Any] | None = None,
           settings: dict[str, Any] | None = None) -> TableRecord:
    return TableRecord(table_id=table_id, code=code, game=game,
                       options=options if options is not None else {"target": 100},
                       players=len(seats), seats=seats, private=private, status=status,
                       start_chance=[], settings=settings or {})


def ann(seat: int = 0) -> SeatRecord:
    return SeatRecord(seat, "Ann", "human", "ab" * 32)


def free(seat: int) -> SeatRecord:
    return SeatRecord(seat, None, "human", None)


def bot(seat: int) -> SeatRecord:
    return SeatRecord(seat, "Computer", "bot", None)


async def seed(store: Store) -> None:
    express = get_game("gin").Options.from_dict(get_game("gin").Options.EXPRESS).to_dict()
    for table in (
        record("t_old", "OLDGIN", [ann(), free(1)], options=express),  # settings from before
        record("t_priv", "PRIVAT", [ann(), free(1)], private=True),
        record("t_play", "PLAYIN", [ann(), bot(1)], status="playing"),
        record("t_spad", "SPADES", [ann(), bot(1), free(2), free(3)], game="spades",
               settings={"turn_time": 60, "spectators": False,
                         "levels": ["normal", "easy", "easy", "normal"]}),
        record("t_full", "FULLUP", [ann(), ann(1)]),  # "waiting" but no free seat
    ):
        await store.create_table(table)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    joins: list[tuple[str, str]] = []
    taken = {"OLDGIN"}  # someone else took it between the listing and the join

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(sqlite_url(tmp_path))
        await seed(store)
        app.state.lobby = Lobby(store, interval=0.05)
        await app.state.lobby.load()
        try:
            yield
        finally:
            await app.state.lobby.close()
            await store.close()

    async def join(code: str, name: str, player_id: str | None) -> dict[str, Any] | None:
        joins.append((code, name))
        if code in taken:
            return None
        return {"table_id": f"t_{code.lower()}", "code": code, "seat": 2, "token": "x" * 32,
                "invite_url": f"/t/{code}"}

    def lobby_of(connection: Request | WebSocket) -> Lobby:
        found: Lobby = connection.app.state.lobby
        return found

    app = FastAPI(lifespan=lifespan)

    @app.websocket("/ws/{table_id}")  # the app's table socket comes first and must not win
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.close(code=4004)

    install_routes(app, lobby_of, join, allowed_origins=("https://cards.example",))
    with TestClient(app) as test_client:
        test_client.app_state = app.state  # type: ignore[attr-defined]
        test_client.joins = joins  # type: ignore[attr-defined]
        yield test_client


def test_get_lobby_is_loaded_from_the_store(client: TestClient) -> None:
    answer = client.get("/api/lobby")
    assert answer.status_code == 200
    tables = answer.json()["tables"]
    assert [t["code"] for t in tables] == ["OLDGIN", "SPADES"]  # oldest first
    old, spades = tables
    assert old["express"] is True and old["title"] == "Gin Rummy"
    assert old["settings"] == {"turn_time": 30, "spectators": True, "rated": False}  # defaults
    assert (old["players"], old["free"]) == (2, 1)
    assert old["seats"][0] == {"seat": 0, "name": "Ann", "kind": "human", "taken": True,
                               "connected": False, "level": "normal", "standin": None,
                               "reconnect_deadline": None, "timeouts": 0, "player_id": None,
                               "drops": 0, "forfeited": False, "registered": False}
    assert old["seats"][1]["taken"] is False and old["seats"][1]["name"] is None
    assert spades["express"] is False and spades["game"] == "spades"
    assert spades["settings"] == {"turn_time": 60, "spectators": False, "rated": False}
    assert [(s["kind"], s["connected"], s["level"]) for s in spades["seats"]] == [
        ("human", False, "normal"), ("bot", True, "easy"), ("human", False, "easy"),
        ("human", False, "normal")]
    assert (spades["players"], spades["free"]) == (4, 2)
    assert "token_hash" not in json.dumps(tables) and "ab" * 32 not in json.dumps(tables)


def test_quick_join(client: TestClient) -> None:
    joins = client.joins  # type: ignore[attr-defined]
    answer = client.post("/api/lobby/quick-join", json={"name": "  Bob ", "game": None})
    assert answer.status_code == 200, answer.text
    assert answer.json()["code"] == "SPADES"  # the older table's seat went meanwhile
    assert joins == [("OLDGIN", "Bob"), ("SPADES", "Bob")]
    joins.clear()
    answer = client.post("/api/lobby/quick-join", json={"game": "spades", "players": 4})
    assert answer.status_code == 200 and answer.json()["seat"] == 2
    assert joins == [("SPADES", "Guest")]
    joins.clear()
    for body in ({"game": "gin"}, {"game": "spades", "players": 2}, {"game": "romme"}):
        answer = client.post("/api/lobby/quick-join", json=body)
        assert answer.status_code == 404, body
        assert answer.json() == {"detail": NO_SEAT}
    assert joins == [("OLDGIN", "Guest")]
    for body in ({"game": "chess"}, {"players": 1}, {"players": 9}, {"name": ""},
                 {"name": "x" * 25}, {"colour": "red"}):
        assert client.post("/api/lobby/quick-join", json=body).status_code == 422, body


def test_lobby_socket_live_updates(client: TestClient) -> None:
    lobby: Lobby = client.app_state.lobby  # type: ignore[attr-defined]
    with client.websocket_connect("/ws/lobby") as ws:
        first = ws.receive_json()
        assert first["t"] == "lobby"
        assert [t["code"] for t in first["d"]["tables"]] == ["OLDGIN", "SPADES"]
        ws.send_text('{"t": "hello"}')  # ignored
        ws.send_text("not json")  # answered, but changes nothing
        ws.send_bytes(b"\x00")
        for _ in range(2):
            assert ws.receive_json()["d"]["code"] == "bad_frame"
        ws.send_text('{"t": "ping"}')
        assert ws.receive_json() == {"t": "pong", "v": first["v"], "d": {}}
        assert client.portal is not None

        def a_new_table_and_a_full_one() -> None:
            # One turn of the event loop: a burst, which one frame carries. (Two portal
            # calls are two turns: a loaded machine once sent the first change on its own.)
            lobby.table_changed(info("t_newgin", "NEWGIN"), False)
            lobby.table_changed(info("t_old", "OLDGIN", seats="HH"), False)

        client.portal.call(a_new_table_and_a_full_one)
        update = ws.receive_json()
        assert update["t"] == "lobby" and update["v"] == first["v"] + 1
        assert [t["code"] for t in update["d"]["tables"]] == ["SPADES", "NEWGIN"]
        assert client.get("/api/lobby").json() == update["d"]


def test_lobby_socket_checks_origin_and_frame_size(client: TestClient) -> None:
    with (pytest.raises(WebSocketDisconnect) as refused,
          client.websocket_connect("/ws/lobby", headers={"origin": "https://evil.example"})):
        pass
    assert refused.value.code == 1008
    for origin in ("http://testserver", "https://cards.example"):
        with client.websocket_connect("/ws/lobby", headers={"origin": origin}) as ws:
            assert ws.receive_json()["t"] == "lobby"
    with client.websocket_connect("/ws/lobby") as ws:
        ws.receive_json()
        ws.send_text(json.dumps({"t": "ping", "pad": "x" * 5000}))
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1009
