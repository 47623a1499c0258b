"""An async Python client of the cardtable protocol (``docs/protocol.md``).

The tests, the server benchmark and anyone's own bot use it.  Plug a bot into
a table in a few lines (``choose`` gets the seat's view and returns one of
``view["legal"]``)::

    import asyncio
    from cardtable.bots.gin_simple import choose
    from cardtable.client import Client, play

    async def main() -> None:
        async with Client("http://127.0.0.1:8000") as client:
            seat = await client.create_table(game="gin", opponent="computer", name="MyBot")
            async with client.connect(seat) as conn:
                await play(conn, choose)
                print(conn.view["result"])

    asyncio.run(main())

To sit at a friend's table instead: ``seat = await client.join("K7PX3M", "MyBot")``.

A :class:`Connection` is driven by one task at a time: every read goes through
:meth:`Connection.recv`, which also reconnects (with backoff) when the socket
drops, says ``hello`` again with the seat token, and re-sends an action that
was not acknowledged yet with the same ``id`` (the server applies it once).
An ``act`` or ``rematch`` the server could not save (error ``retry``: its database
hiccuped) is sent again, the same ``id``, after a short backoff, a few times.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import httpx
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from cardtable.engine.api import Action
from cardtable.server.codes import CloseCode

View = dict[str, Any]
ActionLike = Action | Mapping[str, Any]
Chooser = Callable[[View], ActionLike | Awaitable[ActionLike]]

# Close codes after which reconnecting cannot help (docs/protocol.md, "Close codes").
FATAL_CLOSE_CODES: dict[int, str] = {
    CloseCode.POLICY: "rate limit", CloseCode.TOO_BIG: "frame too big",
    CloseCode.BAD_TOKEN: "bad token", CloseCode.UNKNOWN_TABLE: "unknown table"}
# Reconnects: 0.25 s growing by half to 10 s. A table whose process died is playable
# again a lease's time after the kill (3 s): tries at 0.25, 0.6, 1.2, 2, 3.3, 5.2 s find
# it within about a second of that, where doubling from 0.5 s (0.5, 1.5, 3.5, 7.5 s) could
# miss it by 4 s; the jitter still spreads the many sockets of a dead process.
BACKOFF_FIRST, BACKOFF_GROWTH, BACKOFF_MAX = 0.25, 1.5, 10.0
# The server closes a socket sending more than 20 frames a second (bursts of 40);
# the client stays a little below so that network jitter never trips it.
FRAME_RATE, FRAME_BURST = 18.0, 30
# Resends after a ``retry`` answer: 0.5 s doubling, ~15 s in all, before giving up.
RETRY_ATTEMPTS, RETRY_FIRST, RETRY_MAX = 5, 0.5, 8.0


class ClientError(Exception):
    """Base of everything this module raises on purpose."""


class RequestRefused(ClientError):
    """An HTTP call answered 4xx/5xx; ``detail`` is the server's reason."""

    def __init__(self, status: int, detail: str):
        super().__init__(f"{status}: {detail}")
        self.status, self.detail = status, detail


class ActionRefused(ClientError):
    """The server answered a frame of ours with an ``error`` frame.

    ``code`` is the protocol's error code (``stale``, ``illegal``, ...),
    ``message`` its reason; ``snapshot`` is the ``view`` frame the server sent
    after the error (the connection's view is already in step with it).
    """

    def __init__(self, frame: Frame, snapshot: Frame | None = None):
        self.code = str(frame.d.get("code", ""))
        self.message = str(frame.d.get("message", ""))
        super().__init__(f"{self.code}: {self.message}")
        self.frame, self.snapshot = frame, snapshot


class ConnectionLost(ClientError):
    """The socket closed for good: a fatal close code, or reconnecting gave up."""

    def __init__(self, reason: str, code: int | None = None):
        super().__init__(reason if code is None else f"{reason} (close code {code})")
        self.reason, self.code = reason, code


@dataclass(frozen=True, slots=True)
class Seat:
    """A claimed seat: what ``POST /api/tables`` and ``.../join`` answer."""

    table_id: str
    code: str
    seat: int
    token: str = field(repr=False)  # a secret: kept out of logs and reprs
    invite_url: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """One server frame ``{"t", "v", "d"}`` and when it arrived (``time.perf_counter()``)."""

    t: str
    v: int | None
    d: dict[str, Any]
    at: float = 0.0

    @property
    def ack(self) -> str | None:
        """The client ``id`` this ``view`` acknowledges, if any."""
        ack = self.d.get("ack")
        return ack if isinstance(ack, str) else None

    def to_json(self) -> dict[str, Any]:
        return {"t": self.t, "v": self.v, "d": self.d}


def parse_frame(raw: str | bytes) -> Frame:
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise ClientError(f"the server sent a frame that is not {{t, v, d}}: {raw!r:.200}")
    v, d = data.get("v"), data.get("d")
    return Frame(data["t"], v if isinstance(v, int) else None,
                 d if isinstance(d, dict) else {}, time.perf_counter())


def action_json(action: ActionLike) -> dict[str, Any]:
    return action.to_json() if isinstance(action, Action) else dict(action)


class Client:
    """HTTP side of the protocol, and the factory of :class:`Connection`.

    ``frame_rate``/``frame_burst`` pace each connection's outgoing frames
    below the server's per-connection limit; ``frame_rate=None`` sends at
    once (for a server started with a higher ``CARDTABLE_FRAME_RATE``).
    """

    def __init__(self, base_url: str, *, timeout: float = 10.0,
                 frame_rate: float | None = FRAME_RATE, frame_burst: int = FRAME_BURST):
        self.base_url = base_url.rstrip("/")
        self.frame_rate, self.frame_burst = frame_rate, frame_burst
        self.ws_base = "ws" + self.base_url.removeprefix("http")  # http->ws, https->wss
        # trust_env=False: never route a local table through a proxy from the environment.
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, trust_env=False)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def _call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        response = await self.http.request(method, path, json=body)
        if response.is_error:
            try:
                detail = str(response.json().get("detail", response.text))
            except (ValueError, AttributeError):
                detail = response.text
            raise RequestRefused(response.status_code, detail)
        data: dict[str, Any] = response.json()
        return data

    async def games(self) -> list[dict[str, Any]]:
        """The games this server offers, with their presets and options."""
        games: list[dict[str, Any]] = (await self._call("GET", "/api/games"))["games"]
        return games

    async def create_table(self, game: str = "gin", options: Mapping[str, Any] | None = None,
                           opponent: str = "computer", name: str = "Player",
                           players: int | None = None,
                           seats: Sequence[str] | None = None,
                           settings: Mapping[str, Any] | None = None) -> Seat:
        """Create a table and take seat 0.

        ``opponent`` (``"computer"`` or ``"friend"``) fills the other seats;
        ``seats`` (``"human"`` or ``"bot"`` for seats 1, 2, ...) overrides it seat
        by seat; ``players`` defaults to the game's usual count (its descriptor's
        first); ``settings`` are the host's table settings (``turn_time``, ``private``,
        ... see docs/protocol.md).
        """
        body: dict[str, Any] = {"game": game, "options": dict(options or {}),
                                "opponent": opponent, "name": name}
        if players is not None:
            body["players"] = players
        if seats is not None:
            body["seats"] = list(seats)
        if settings is not None:
            body["settings"] = dict(settings)
        return _seat(await self._call("POST", "/api/tables", body))

    async def join(self, code: str, name: str = "Player") -> Seat:
        """Take the first free seat of the table with invite ``code``."""
        return _seat(await self._call("POST", f"/api/tables/{code}/join", {"name": name}))

    async def table_info(self, code: str) -> dict[str, Any]:
        """What an invitee sees before sitting down: game, options, status, seats."""
        return await self._call("GET", f"/api/tables/{code}")

    def connect(self, seat: Seat | None, *, table_id: str | None = None,
                record: list[Frame] | None = None,
                on_frame: Callable[[Frame], object] | None = None,
                give_up_after: float = 60.0) -> Connection:
        """A WebSocket to a table: ``seat`` plays it, ``None`` watches ``table_id``.

        Every frame received is appended to ``record`` and passed to
        ``on_frame``; reconnecting stops after ``give_up_after`` seconds of
        failed attempts.
        """
        if seat is None and table_id is None:
            raise ValueError("a spectator needs the table_id")
        table = seat.table_id if seat is not None else table_id
        assert table is not None
        pace = Pace(self.frame_rate, self.frame_burst) if self.frame_rate else None
        return Connection(f"{self.ws_base}/ws/{table}", seat, pace=pace, record=record,
                          on_frame=on_frame, give_up_after=give_up_after)


def _seat(data: Mapping[str, Any]) -> Seat:
    return Seat(table_id=data["table_id"], code=data["code"], seat=data["seat"],
                token=data["token"], invite_url=data.get("invite_url"))


class Connection:
    """One seat's (or a spectator's) socket to a table, kept in step with it.

    ``view`` and ``version`` are the latest ``view`` frame's; ``table`` and
    ``seats`` come from ``welcome`` and ``seats`` frames; ``rematch_votes``
    lists the seats that asked for a rematch.
    """

    def __init__(self, url: str, seat: Seat | None, *, pace: Pace | None = None,
                 record: list[Frame] | None = None,
                 on_frame: Callable[[Frame], object] | None = None,
                 give_up_after: float = 60.0):
        self.url, self.pace = url, pace
        self.claim = seat
        self.seat: int | None = seat.seat if seat else None
        self.record, self.on_frame = record, on_frame
        self.give_up_after = give_up_after
        self.view: View = {}
        self.version = -1
        self.events: list[dict[str, Any]] = []
        self.table: dict[str, Any] = {}
        self.seats: list[dict[str, Any]] = []
        self.rematch_votes: list[int] = []
        self.reconnects = 0
        self._ws: ClientConnection | None = None
        self._closed = False
        self._pending: dict[str, Any] | None = None  # the act (or rematch vote) not answered yet
        self._buffer: list[Frame] = []  # frames read while reconnecting, not yet returned
        # Unique per seat even across clients holding the same token.
        self._ids = (f"{secrets.token_hex(4)}-{n}" for n in itertools.count(1))

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def open(self) -> None:
        """Connect, say hello, and wait for the first snapshot."""
        await self._connect_with_backoff()
        await self.wait_for(lambda c: c.version >= 0, timeout=30)

    async def close(self) -> None:
        self._closed = True
        if self._ws is not None:
            await self._ws.close()

    async def drop(self) -> None:
        """Close the socket as a network failure would: the next read reconnects."""
        if self._ws is not None:
            await self._ws.close()

    @property
    def hello(self) -> dict[str, Any]:
        d = {"token": self.claim.token} if self.claim else {"spectate": True}
        return {"t": "hello", "d": d}

    async def _connect_once(self) -> None:
        # compression=None: frames are small and deflate costs CPU on both sides.
        # proxy=None: a table is never reached through an environment proxy.
        # No Origin header: the server's Origin check guards browsers, not bots.
        self._ws = await ws_connect(self.url, compression=None, proxy=None, open_timeout=10)
        await self._paced_send(self.hello)
        # The server answers hello with welcome (then a view), or error + close;
        # a server that accepts but never answers is retried like a refused one.
        async with asyncio.timeout(10):
            frame = self._handle(await self._ws.recv())
        if frame.t == "error":  # bad_token: the socket closes with 4003 next
            await self._ws.close()
            raise ConnectionLost(f"{frame.d.get('code')}: {frame.d.get('message')}")
        if frame.t != "welcome":
            raise ClientError(f"expected welcome after hello, got {frame.to_json()}")
        self._buffer.append(frame)
        if self._pending is not None:
            # Same id: the server applies it at most once and acknowledges it again.
            await self._paced_send(self._pending)

    async def _connect_with_backoff(self) -> None:
        """Connect until it works: 0.25 s growing by half to 10 s, with jitter, for
        ``give_up_after``."""
        deadline = time.monotonic() + self.give_up_after
        delay = BACKOFF_FIRST
        while True:
            try:
                await self._connect_once()
                return
            except ConnectionClosed as closed:
                self._check_fatal(closed)
                error: Exception = closed
            except (OSError, InvalidHandshake, TimeoutError) as failure:
                if isinstance(failure, InvalidStatus) and failure.response.status_code < 500:
                    # 403 (origin) or 404: the server is up and says no.
                    raise ConnectionLost(f"handshake refused: {failure}") from failure
                error = failure
            if self._closed:
                raise ConnectionLost("closed by the client")
            if time.monotonic() + delay > deadline:
                raise ConnectionLost(f"could not reconnect: {error!r}")
            # Jitter keeps many clients of a restarted server from knocking in lockstep.
            await asyncio.sleep(delay * random.uniform(0.75, 1.25))
            delay = min(delay * BACKOFF_GROWTH, BACKOFF_MAX)

    def _check_fatal(self, closed: ConnectionClosed) -> None:
        code = closed.rcvd.code if closed.rcvd is not None else None
        if code in FATAL_CLOSE_CODES:
            raise ConnectionLost(FATAL_CLOSE_CODES[code], code) from closed

    # -- reading -----------------------------------------------------------------------

    def _handle(self, raw: str | bytes) -> Frame:
        """Parse a frame, record it and fold it into the connection's state."""
        frame = parse_frame(raw)
        if self.record is not None:
            self.record.append(frame)
        if self.on_frame is not None:
            self.on_frame(frame)
        d = frame.d
        if frame.t == "view" and frame.v is not None:
            self.view, self.version = d.get("view") or {}, frame.v
            self.events = d.get("events", [])
            self.rematch_votes = list(d.get("rematch", []))
        elif frame.t == "welcome":
            self.table = d.get("table", {})
            self.seats = self.table.get("seats", [])
            self.seat = d.get("seat", self.seat)
        elif frame.t == "seats":
            self.seats = d.get("seats", [])
        if self._pending is not None and self._pending["t"] == "act" \
                and _answers(frame, self._pending["d"]["id"]):
            self._pending = None
        return frame

    async def recv(self) -> Frame:
        """The next frame; a dropped socket is reconnected on the way."""
        while True:
            if self._buffer:
                return self._buffer.pop(0)
            if self._ws is None:
                raise ConnectionLost("not connected")
            try:
                return self._handle(await self._ws.recv())
            except ConnectionClosed as closed:
                if self._closed:
                    raise ConnectionLost("closed by the client") from closed
                self._check_fatal(closed)
                self.reconnects += 1
                await self._connect_with_backoff()

    async def wait_for(self, predicate: Callable[[Connection], bool],
                       timeout: float | None = 30.0) -> None:
        """Read frames until ``predicate(self)`` holds (``TimeoutError`` after ``timeout``)."""
        async with asyncio.timeout(timeout):
            while not predicate(self):
                await self.recv()

    async def _until(self, match: Callable[[Frame], bool], timeout: float | None) -> Frame:
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.recv()
                if match(frame):
                    return frame

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._ws is not None
        # A send on a dead socket is not an error here: the next recv()
        # reconnects, and an unacknowledged act is re-sent then.
        with contextlib.suppress(ConnectionClosed):
            await self._paced_send(message)

    async def _paced_send(self, message: Any) -> None:
        if self.pace is not None:
            await self.pace.wait()
        assert self._ws is not None
        await self._ws.send(json.dumps(message))

    # -- commands ----------------------------------------------------------------------

    @property
    def my_turn(self) -> bool:
        return bool(self.view.get("legal")) and self.seat is not None \
            and self.view.get("to_act") == self.seat

    async def act(self, action: ActionLike, *, id: str | None = None, version: int | None = None,
                  timeout: float | None = 30.0, retries: int = RETRY_ATTEMPTS) -> Frame:
        """Play ``action`` on the current version; returns the ``view`` frame that acks it.

        Raises :class:`ActionRefused` on an ``error`` frame for this ``id``,
        after reading the snapshot that follows it. An error ``retry`` (the server
        could not save the action) is retried up to ``retries`` times with the same
        id and version, which the server applies at most once; ``timeout`` is per try.
        """
        act_id = id or next(self._ids)
        message = {"t": "act", "v": self.version if version is None else version,
                   "d": {"id": act_id, "action": action_json(action)}}
        for attempt in itertools.count():
            self._pending = message
            await self._send(message)
            try:
                answer = await self._until(lambda f: _answers(f, act_id), timeout)
            finally:
                self._pending = None
            if answer.t != "error":
                return answer
            snapshot = await self._until(lambda f: f.t == "view", timeout)
            if answer.d.get("code") != "retry" or attempt >= retries:
                raise ActionRefused(answer, snapshot)
            await _backoff(attempt)
        raise AssertionError("unreachable")

    async def sync(self, timeout: float | None = 30.0) -> Frame:
        """Ask for a fresh snapshot and return it."""
        await self._send({"t": "sync"})
        return await self._until(lambda f: f.t == "view", timeout)

    async def rematch(self, timeout: float | None = 30.0,
                      retries: int = RETRY_ATTEMPTS) -> Frame:
        """Vote for a rematch; returns the view that shows the vote (or the new match).

        A vote the server could not save (``retry``) is cast again, up to ``retries``
        times (a vote counts once however often it is cast).
        """
        def answered(f: Frame) -> bool:
            return f.t == "error" or (f.t == "view" and (
                self.seat in self.rematch_votes or self.view.get("phase") != "match_over"))

        for attempt in itertools.count():
            vote = {"t": "rematch"}
            self._pending = vote  # cast again after a reconnect: the vote may have been lost
            await self._send(vote)
            try:
                answer = await self._until(answered, timeout)
            finally:
                self._pending = None
            if answer.t != "error":
                return answer
            if answer.d.get("code") != "retry" or attempt >= retries:
                raise ActionRefused(answer)
            await self._until(lambda f: f.t == "view", timeout)  # the snapshot after it
            await _backoff(attempt)
        raise AssertionError("unreachable")

    async def hint(self, timeout: float | None = 30.0) -> Frame:
        """Ask what a strong player would do now; returns the ``hint`` frame, whose ``d``
        holds one of this seat's legal actions (``action``) and a short ``text`` saying why.

        Raises :class:`ActionRefused` on the table's ``error`` (``hints_off``,
        ``not_your_turn``, ``spectator``, ...); a hint is no move: nothing changes.
        """
        ask_id = next(self._ids)
        await self._send({"t": "hint", "d": {"id": ask_id}})
        answer = await self._until(
            lambda f: f.t in ("hint", "error") and f.d.get("id") == ask_id, timeout)
        if answer.t == "error":
            raise ActionRefused(answer)
        return answer

    async def ping(self, timeout: float | None = 30.0) -> Frame:
        await self._send({"t": "ping"})
        return await self._until(lambda f: f.t == "pong", timeout)

    async def send_raw(self, message: Any) -> None:
        """Send any JSON value as a frame (tests of the server's error handling)."""
        await self._send(message)


class Pace:
    """A client-side token bucket: at most ``rate`` frames a second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = float(burst), time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.rate)
            self.tokens, self.stamp = 1.0, time.monotonic()
        self.tokens -= 1


async def _backoff(attempt: int) -> None:
    delay = min(RETRY_FIRST * 2 ** attempt, RETRY_MAX)
    await asyncio.sleep(delay * random.uniform(0.75, 1.25))


def _answers(frame: Frame, act_id: str) -> bool:
    """Whether ``frame`` is the server's answer to the act ``act_id``."""
    if frame.t == "view":
        return frame.ack == act_id
    return frame.t == "error" and frame.d.get("id") == act_id


async def play(conn: Connection, choose: Chooser, *,
               until: Callable[[Connection], bool] | None = None,
               max_actions: int | None = None) -> int:
    """Play for ``conn``'s seat until the match is over or ``until(conn)``; returns actions.

    Whenever the latest view offers this seat legal actions, ``choose(view)``
    (plain or async) picks one.  A ``stale`` or ``not_your_turn`` refusal just
    means the table moved on (a timer, a reconnect), and ``retry`` (after the
    resends :meth:`Connection.act` made) or ``internal`` that the server could
    not handle the move: the loop waits a moment and looks again.
    """
    played = 0
    while conn.view.get("phase") != "match_over" and not (until and until(conn)):
        if max_actions is not None and played >= max_actions:
            break
        if not conn.my_turn:
            await conn.recv()
            continue
        choice = choose(conn.view)
        if inspect.isawaitable(choice):
            choice = await choice
        try:
            await conn.act(choice)
        except ActionRefused as refused:
            if refused.code in ("retry", "internal"):
                await asyncio.sleep(1.0)  # the database hiccuped: give it a moment
            elif refused.code not in ("stale", "not_your_turn"):
                raise
        else:
            played += 1
    return played


async def watch(conn: Connection, until: Callable[[Connection], bool] | None = None) -> None:
    """Follow a table without acting (a spectator) until the match is over or ``until(conn)``."""
    while conn.view.get("phase") != "match_over" and not (until and until(conn)):
        await conn.recv()


__all__ = ["ActionRefused", "Client", "ClientError", "Connection", "ConnectionLost", "Frame",
           "RequestRefused", "Seat", "parse_frame", "play", "watch"]
