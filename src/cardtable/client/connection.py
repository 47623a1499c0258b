"""One seat's (or a spectator's) WebSocket to a table, kept in step with it.

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
import itertools
import json
import random
import secrets
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from cardtable.client.frames import (
    ActionLike,
    ActionRefused,
    ClientError,
    ConnectionLost,
    Frame,
    Seat,
    View,
    action_json,
    parse_frame,
)
from cardtable.server.codes import CloseCode

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
