"""Helpers for the table-life protocol tests (turn clocks, timeouts, presence).

A real ``cardtable serve`` with short clocks: ``CARDTABLE_TIME_SCALE=0.05`` (a 15 s turn
lasts 0.75 s, a 60 s turn 3 s) and ``CARDTABLE_SEAT_GRACE=1`` (a dropped seat is held for
one second). :class:`Player` is a raw WebSocket that remembers what it was last told.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server_harness import ServerProcess
from ws_helpers import recv

SCALE = 0.05
GRACE = 1.0
ENV = {"CARDTABLE_TIME_SCALE": str(SCALE), "CARDTABLE_SEAT_GRACE": str(GRACE),
       "CARDTABLE_JOIN_LIMIT": "100000"}
WAIT = 20.0  # seconds to wait for a frame that must come (generous: never a speed test)

Frame = dict[str, Any]


def turn_ms(turn_time: int) -> int:
    """How long a turn of ``turn_time`` seconds lasts on the test server, in ms."""
    return int(turn_time * SCALE * 1000)


def now_ms() -> int:
    return int(time.time() * 1000)


@pytest.fixture(scope="module")
def life(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with short clocks and a one-second grace, shared by a test module."""
    process = ServerProcess(tmp_path_factory.mktemp("life") / "data", env=ENV).start()
    try:
        yield process
    finally:
        process.stop()


def new_table(server: ServerProcess, game: str = "gin", *, opponent: str = "friend",
              players: int | None = None, seats: list[str] | None = None,
              settings: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
              name: str = "Ann") -> Frame:
    """``POST /api/tables``: the host's seat grant (seat 0)."""
    body: dict[str, Any] = {"game": game, "opponent": opponent, "name": name,
                            "options": options or {}, "settings": settings or {}}
    if players is not None:
        body["players"] = players
    if seats is not None:
        body["seats"] = seats
    answer = httpx.post(f"{server.base_url}/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    grant: Frame = answer.json()
    return grant


def quiet_table(server: ServerProcess, **body: Any) -> Frame:
    """A table (gin for Ann and a friend, unless said) without a turn clock: nothing moves
    by itself."""
    body.setdefault("settings", {"turn_time": 0})
    return new_table(server, **body)


def join_table(server: ServerProcess, code: str, name: str = "Bob") -> Frame:
    answer = httpx.post(f"{server.base_url}/api/tables/{code}/join", json={"name": name})
    assert answer.status_code == 200, answer.text
    grant: Frame = answer.json()
    return grant


def table_info(server: ServerProcess, code: str) -> Frame:
    answer = httpx.get(f"{server.base_url}/api/tables/{code}")
    answer.raise_for_status()
    info: Frame = answer.json()
    return info


class Player:
    """One table socket and what it was last told: the view, the seats, every frame."""

    def __init__(self, ws: ClientConnection, label: str):
        self.ws, self.label = ws, label
        self.frames: list[Frame] = []
        self.welcome: Frame | None = None
        self.last_view: Frame | None = None
        self.seats: list[Frame] = []
        self.spectators: int | None = None

    # -- what it knows ------------------------------------------------------------------

    @property
    def version(self) -> int:
        assert self.last_view is not None
        return int(self.last_view["v"])

    @property
    def view(self) -> Frame:
        assert self.last_view is not None
        view: Frame = self.last_view["d"]["view"]
        return view

    @property
    def dealt(self) -> bool:
        """Whether the latest view holds a match: while a table waits for players nothing is
        dealt, and its view frames carry ``"view": null``."""
        return self.last_view is not None and self.last_view["d"]["view"] is not None

    @property
    def clock(self) -> Frame | None:
        assert self.last_view is not None
        clock: Frame | None = self.last_view["d"]["clock"]
        return clock

    @property
    def seat(self) -> int | None:
        assert self.welcome is not None
        seat: int | None = self.welcome["d"]["seat"]
        return seat

    def seat_info(self, seat: int) -> Frame:
        return self.seats[seat]

    def _note(self, frame: Frame) -> None:
        self.frames.append(frame)
        kind, data = frame["t"], frame.get("d") or {}
        if kind == "view":
            self.last_view = frame
        elif kind == "seats":
            self.seats, self.spectators = data["seats"], data["spectators"]
        elif kind == "spectators":
            self.spectators = data["count"]
        elif kind in ("welcome", "table"):
            info = data["table"] if kind == "welcome" else data
            self.seats, self.spectators = info["seats"], info["spectators"]
            if kind == "welcome":
                self.welcome = frame

    # -- reading --------------------------------------------------------------------------

    async def read(self, timeout: float = WAIT) -> Frame:
        frame = await recv(self.ws, timeout)
        self._note(frame)
        return frame

    async def until(self, wanted: Callable[[Frame], bool], what: str,
                    timeout: float = WAIT) -> Frame:
        """Read until a frame for which ``wanted`` is true (``what`` names it on failure)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                frame = await self.read(max(left, 0.01))
            except TimeoutError:
                recent = [json.dumps(f)[:300] for f in self.frames[-5:]]
                raise AssertionError(f"{self.label}: no {what} within {timeout} s; "
                                     f"last frames: {recent}") from None
            if wanted(frame):
                return frame

    async def until_view(self, wanted: Callable[[Frame], bool], what: str = "such view",
                         timeout: float = WAIT) -> Frame:
        """The next view frame whose data (``d``) satisfies ``wanted``."""
        return await self.until(lambda f: f["t"] == "view" and wanted(f["d"]), what, timeout)

    async def dealt_view(self, timeout: float = WAIT) -> Frame:
        """The latest view frame once it holds a match (reading on for it if need be)."""
        if not self.dealt:
            await self.until_view(lambda d: d["view"] is not None, "a dealt view", timeout)
        assert self.last_view is not None
        return self.last_view

    async def until_seats(self, wanted: Callable[[list[Frame]], bool],
                          what: str = "such seats frame", timeout: float = WAIT) -> Frame:
        """The next ``seats`` frame whose seat list satisfies ``wanted``."""
        return await self.until(lambda f: f["t"] == "seats" and wanted(f["d"]["seats"]),
                                what, timeout)

    async def seats_become(self, wanted: Callable[[list[Frame]], bool],
                           what: str = "such seats", timeout: float = WAIT) -> list[Frame]:
        """The seats as last told, once ``wanted`` holds for them (reading on if need be)."""
        if not (self.seats and wanted(self.seats)):
            await self.until_seats(wanted, what, timeout)
        return self.seats

    async def watching(self, count: int, what: str = "the spectator count",
                       timeout: float = WAIT) -> None:
        """Read on until the spectator count last told (by a ``spectators``, ``seats``,
        ``welcome`` or ``table`` frame) is ``count``."""
        if self.spectators != count:
            await self.until(lambda f: self.spectators == count, what, timeout)

    async def error(self, timeout: float = WAIT) -> Frame:
        return await self.until(lambda f: f["t"] == "error", "error frame", timeout)

    async def close_code(self, timeout: float = WAIT) -> int | None:
        """Read on until the server closes the socket: its close code."""
        try:
            await self.until(lambda f: False, "close", timeout)
        except ConnectionClosed as closed:
            return None if closed.rcvd is None else closed.rcvd.code
        raise AssertionError("unreachable")

    async def quiet(self, seconds: float) -> list[Frame]:
        """Every frame that arrives within ``seconds`` (for checking nothing happens)."""
        got: list[Frame] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                got.append(await self.read(left))
            except TimeoutError:
                break
        return got

    # -- writing --------------------------------------------------------------------------

    async def send(self, kind: str, data: Frame | None = None, v: int | None = None) -> None:
        frame: Frame = {"t": kind}
        if data is not None:
            frame["d"] = data
        if v is not None:
            frame["v"] = v
        await self.ws.send(json.dumps(frame))

    async def act(self, action: Frame, ref: str) -> Frame:
        """Act on the latest view seen: the acknowledging view, or the error."""
        await self.send("act", {"id": ref, "action": action}, v=self.version)
        return await self.until(lambda f: f["t"] == "error" or (
            f["t"] == "view" and f["d"]["ack"] == ref), f"answer to {ref}")

    async def sync(self) -> Frame:
        """A fresh snapshot (its clock is the one running now)."""
        await self.send("sync")
        return await self.until(lambda f: f["t"] == "view" and not f["d"]["events"]
                                and f["d"]["ack"] is None, "snapshot")

    async def close(self) -> None:
        await self.ws.close()


async def open_socket(server: ServerProcess, table_id: str) -> ClientConnection:
    # Unbounded: a socket the test reads later must not stall (nor its close handshake).
    return await connect(f"{server.ws_base}/ws/{table_id}", max_queue=None)


async def sit(server: ServerProcess, grant: Frame, label: str | None = None) -> Player:
    """A NEW socket saying hello with the grant's token; read up to its first view."""
    player = Player(await open_socket(server, grant["table_id"]),
                    label or f"seat {grant['seat']}")
    await player.send("hello", {"token": grant["token"]})
    welcome = await player.until(lambda f: f["t"] in ("welcome", "error"), "welcome")
    assert welcome["t"] == "welcome", welcome
    assert welcome["d"]["seat"] == grant["seat"] and welcome["d"]["role"] == "player"
    await player.until(lambda f: f["t"] == "view", "first view")
    return player


async def watch(server: ServerProcess, table_id: str, name: str | None = "Zoe") -> Player:
    """A spectator (a hello without a token); read up to its first view."""
    player = Player(await open_socket(server, table_id), f"spectator {name}")
    hello: Frame = {"spectate": True}
    if name is not None:
        hello["name"] = name
    await player.send("hello", hello)
    welcome = await player.until(lambda f: f["t"] in ("welcome", "error"), "welcome")
    assert welcome["t"] == "welcome", welcome
    assert welcome["d"]["seat"] is None and welcome["d"]["role"] == "spectator"
    await player.until(lambda f: f["t"] == "view", "first view")
    return player


async def refused(server: ServerProcess, table_id: str, hello: Frame) -> tuple[str, int | None]:
    """Say ``hello`` on a new socket that the server refuses: (error code, close code)."""
    player = Player(await open_socket(server, table_id), "refused")
    await player.send("hello", hello)
    error = await player.until(lambda f: f["t"] in ("welcome", "error"), "refusal")
    assert error["t"] == "error", f"the hello {hello} was accepted: {error}"
    return error["d"]["code"], await player.close_code()


def event_types(frame: Frame, seat: int | None = None) -> list[str]:
    """The types of the events in a view frame (of one seat's moves, if given)."""
    return [e["type"] for e in frame["d"]["events"]
            if seat is None or e.get("seat") == seat]


def pick(view: Frame, *kinds: str) -> Frame:
    """The first legal action of the first of ``kinds`` on offer."""
    for kind in kinds:
        for action in view["legal"]:
            if action["type"] == kind:
                found: Frame = action
                return found
    raise AssertionError(f"none of {kinds} in {view['legal']}")


async def drive(player: Player, done: Callable[[list[Frame]], bool], what: str,
                timeout: float = WAIT,
                moves: tuple[str, ...] = ("draw_stock", "discard", "pass", "deal")) -> None:
    """Play ``player``'s turns by hand until ``done`` holds for the frames read since the
    call: the first legal action of the first of ``moves`` on offer (by default a rummy
    turn: the stock, then the first discard; and across a hand's end, as a computer may
    end it: Gin's first upcard passed, the next hand dealt)."""
    start = len(player.frames)
    deadline = time.monotonic() + timeout
    acted: set[int] = set()  # versions acted on (a stale act: wait for the snapshot)
    while not done(player.frames[start:]):
        if player.dealt and player.version not in acted \
                and player.view["to_act"] == player.seat and player.view["legal"]:
            kinds = {a["type"] for a in player.view["legal"]}
            if kinds & set(moves):
                acted.add(player.version)
                await player.act(pick(player.view, *moves), f"drive-{player.version}")
                continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{player.label}: no {what} within {timeout} s")
        try:
            await player.read(left)
        except TimeoutError:
            raise AssertionError(f"{player.label}: no {what} within {timeout} s") from None
