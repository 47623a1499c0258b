"""The public lobby: open tables with a free seat, live over ``WS /ws/lobby``, and quick join.

The lobby knows tables only through the TableInfo JSON their actors report after every change
of seats, settings or status (:meth:`Lobby.table_changed`), plus the store's records at
startup (:meth:`Lobby.load`). A table is listed while it is public, ``waiting`` and has a free
seat. Subscribers get the whole list on connect and after changes, at most one frame per
``interval`` (0.25 s) however many tables change; each has a small outbox, and one that cannot
keep up loses its queued frames for the latest one: no subscriber ever waits on another. A
subscriber says ``hello`` within ``hello_timeout`` (10 s) or is closed (4008), so sockets
that never speak are not held.
Its routes are in ``server/routes/lobby.py``.

>>> lobby = Lobby(store=None)
>>> lobby.table_changed({"table_id": "t_1", "code": "ABCDEF", "game": "gin", "title": "Gin",
...     "options": {}, "status": "waiting", "express": False, "settings": {"turn_time": 30},
...     "seats": [{"seat": 0, "kind": "human", "taken": True},
...               {"seat": 1, "kind": "human", "taken": False}]}, private=False)
>>> [(e["code"], e["players"], e["free"], e["settings"]) for e in lobby.entries()]
[('ABCDEF', 2, 1, {'turn_time': 30, 'spectators': True, 'rated': False})]
>>> lobby.quick_join_candidates("gin", 2), lobby.quick_join_candidates("gin", 4)
(['ABCDEF'], [])
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect

from ..store import Store, TableRecord
from . import protocol as p
from .codes import CloseCode
from .security import TokenBucket
from .table import stored_info

JSON = Any
Entry = dict[str, JSON]
INTERVAL = 0.25  # seconds: at most ~4 lobby frames a second per subscriber
OUTBOX_SIZE = 8
SEND_TIMEOUT = 30.0  # a subscriber that takes longer to accept one frame is dropped
MAX_FRAME = 4096  # bytes of an inbound frame (uvicorn's ws_max_size enforces it first)
HELLO_TIMEOUT = 10.0  # seconds a new socket has to say hello (CARDTABLE_HELLO_TIMEOUT)
NO_SEAT = "no public table has a free seat for that; create one"


def listed(info: dict[str, JSON], private: bool) -> bool:
    """Whether a table belongs in the lobby: public, waiting, with a free seat."""
    return (not private and info.get("status") == "waiting"
            and any(not seat.get("taken") for seat in info.get("seats", ())))


def entry_of(info: dict[str, JSON]) -> Entry:
    """A LobbyEntry (docs/protocol.md) from a table's TableInfo JSON (copied, not shared)."""
    seats = [dict(seat) for seat in info.get("seats", ())]
    settings = info.get("settings") or {}
    return {
        "table_id": info["table_id"], "code": info["code"], "game": info["game"],
        "title": info.get("title", info["game"]), "players": len(seats),
        "free": sum(not seat.get("taken") for seat in seats),
        "options": copy.deepcopy(info.get("options", {})),
        "express": bool(info.get("express", False)),
        "settings": {"turn_time": settings.get("turn_time", 0),
                     "spectators": settings.get("spectators", True),
                     "rated": settings.get("rated", False)},
        "seats": seats,
    }


def free_human_seat(entry: Entry) -> int | None:
    """The first free seat a person may take (not a computer's), or None."""
    for seat in entry["seats"]:
        if not seat.get("taken") and seat.get("kind", "human") == "human":
            return int(seat["seat"])
    return None


def fitting_seat(entries: Iterable[Entry], game: str | None,
                 players: int | None) -> tuple[str, int] | None:
    """(code, seat) of the first entry (oldest first) of this game and player count (None:
    any) with a free seat for a person, or None."""
    for entry in entries:
        if game is not None and entry["game"] != game:
            continue
        if players is not None and entry["players"] != players:
            continue
        seat = free_human_seat(entry)
        if seat is not None:
            return entry["code"], seat
    return None


def info_from_record(record: TableRecord) -> dict[str, JSON]:
    """The TableInfo JSON of a stored table nobody has loaded yet."""
    return stored_info(record).model_dump(mode="json")


class _Subscriber:
    """One lobby socket and its bounded outbox."""

    def __init__(self, websocket: WebSocket, latest: Callable[[], str]) -> None:
        self.websocket = websocket
        self.latest = latest
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX_SIZE)
        self.dropped = 0
        self.writer: asyncio.Task[None] | None = None

    def push(self, text: str) -> None:
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:  # too slow: forget the backlog, keep only the newest list
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.dropped += 1
            self.outbox.put_nowait(self.latest())

    def stop(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait(None)

    async def write_loop(self) -> None:
        while True:
            text = await self.outbox.get()
            if text is None:
                return
            try:
                await asyncio.wait_for(self.websocket.send_text(text), SEND_TIMEOUT)
            except Exception:  # gone or stuck: the reader notices the close
                with contextlib.suppress(Exception):
                    await self.websocket.close(code=CloseCode.GOING_AWAY)
                return


class Lobby:
    """The public tables with a free seat, oldest first, and their live subscribers."""

    def __init__(self, store: Store, *, interval: float = INTERVAL,
                 info_of: Callable[[TableRecord], dict[str, JSON]] = info_from_record) -> None:
        self.store = store
        self.interval = interval
        self.info_of = info_of
        self.version = 0  # grows by one per lobby frame broadcast
        self._entries: dict[str, Entry] = {}  # table_id -> entry
        self._order: dict[str, int] = {}  # table_id -> rank (first seen), while not over
        self._ranks = itertools.count(1)
        self._sorted: list[Entry] | None = []
        self._subscribers: set[_Subscriber] = set()
        self._dirty = asyncio.Event()
        self._broadcaster: asyncio.Task[None] | None = None
        self._last_sent = float("-inf")
        self._closed = False

    # -- the list ----------------------------------------------------------------------------

    async def load(self) -> None:
        """Fill the lobby from the store at startup: public waiting tables, oldest first.
        Tables already reported live keep what they reported."""
        records = await self.store.list_tables(private=False, status="waiting")
        for rank, record in enumerate(records, start=-len(records)):  # before anything live
            if record.table_id in self._order:
                continue
            self._order[record.table_id] = rank
            info = self.info_of(record)
            if listed(info, record.private):
                self._entries[record.table_id] = entry_of(info)
        self._changed()

    def table_changed(self, info: dict[str, JSON], private: bool) -> None:
        """A table's seats, settings or status changed (``info``: its TableInfo JSON). Call it
        from the event loop; it never waits."""
        table_id = info["table_id"]
        if info.get("status") == "over":
            self._order.pop(table_id, None)
        elif table_id not in self._order:
            self._order[table_id] = next(self._ranks)
        old = self._entries.get(table_id)
        if listed(info, private):
            entry = entry_of(info)
            if entry == old:
                return
            self._entries[table_id] = entry
        elif old is not None:
            del self._entries[table_id]
        else:
            return
        self._changed()

    def forget(self, table_id: str) -> None:
        """The table is gone from this process (unloaded): drop it from the list."""
        self._order.pop(table_id, None)
        if self._entries.pop(table_id, None) is not None:
            self._changed()

    def entries(self) -> list[Entry]:
        """The LobbyEntry dicts, oldest first (shared: do not modify them)."""
        if self._sorted is None:
            self._sorted = sorted(self._entries.values(),
                                  key=lambda e: self._order.get(e["table_id"], 0))
        return list(self._sorted)

    def quick_join_candidates(self, game: str | None, players: int | None) -> list[str]:
        """Codes of the listed tables, oldest first, with a free seat for a person of this
        game and player count (None: any). Try them in turn: a seat may go meanwhile."""
        codes = []
        for entry in self.entries():
            if fitting_seat([entry], game, players) is not None:
                codes.append(entry["code"])
        return codes

    # -- live updates ------------------------------------------------------------------------

    def frame(self) -> str:
        """The lobby frame of the current list at the current version."""
        return json.dumps({"t": "lobby", "v": self.version, "d": {"tables": self.entries()}},
                          separators=(",", ":"))

    def _reply(self, kind: str, data: dict[str, JSON]) -> str:
        return json.dumps({"t": kind, "v": self.version, "d": data}, separators=(",", ":"))

    def _changed(self) -> None:
        self._sorted = None
        if self._closed:
            return
        self._dirty.set()
        if self._broadcaster is None or self._broadcaster.done():
            try:
                self._broadcaster = asyncio.get_running_loop().create_task(self._broadcast())
            except RuntimeError:  # no event loop (a plain test): nothing to broadcast to
                self._broadcaster = None

    async def _broadcast(self) -> None:
        """One frame per burst of changes, at most one per ``interval``."""
        while True:
            await self._dirty.wait()
            pause = self._last_sent + self.interval - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)  # changes meanwhile go into the same frame
            self._dirty.clear()
            self.version += 1
            self._last_sent = time.monotonic()
            text = self.frame()
            for subscriber in list(self._subscribers):
                subscriber.push(text)

    async def serve(self, websocket: WebSocket, *, max_frame: int = MAX_FRAME,
                    frame_rate: float = 20.0, frame_burst: int = 40,
                    hello_timeout: float = HELLO_TIMEOUT) -> None:
        """Run one ``WS /ws/lobby`` connection (the caller checked its Origin and its
        address's sockets); closed with 4008 if it says no ``hello`` in ``hello_timeout``
        seconds."""
        await websocket.accept()
        if self._closed:
            await websocket.close(code=CloseCode.GOING_AWAY)
            return
        subscriber = _Subscriber(websocket, self.frame)
        subscriber.push(self.frame())
        self._subscribers.add(subscriber)
        subscriber.writer = asyncio.create_task(subscriber.write_loop())
        bucket = TokenBucket(frame_rate, frame_burst)
        hello_by: float | None = asyncio.get_running_loop().time() + hello_timeout
        try:
            while True:
                try:
                    async with asyncio.timeout_at(hello_by):
                        message = await websocket.receive()
                except TimeoutError:
                    await websocket.close(code=CloseCode.NO_HELLO,
                                          reason=f"no hello within {hello_timeout:g} s")
                    break
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                size = len(text.encode()) if text is not None else len(message.get("bytes")
                                                                       or b"")
                if size > max_frame:
                    await websocket.close(code=CloseCode.TOO_BIG, reason="frame too big")
                    break
                if not bucket.take():
                    await websocket.close(code=CloseCode.POLICY, reason="too many frames")
                    break
                try:
                    data = p.decode_json(text if text is not None
                                         else message.get("bytes") or b"")
                except p.ProtocolError as error:
                    subscriber.push(self._reply("error", {"code": error.code,
                                                          "message": error.message}))
                    continue
                if data.get("t") == "hello":
                    hello_by = None  # a listener: it may stay silent from now on
                elif data.get("t") == "ping":
                    subscriber.push(self._reply("pong", {}))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self._subscribers.discard(subscriber)
            subscriber.stop()
            subscriber.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await subscriber.writer

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    async def close(self) -> None:
        """Stop broadcasting and close every lobby socket."""
        self._closed = True
        if self._broadcaster is not None:
            self._broadcaster.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._broadcaster
            self._broadcaster = None
        for subscriber in list(self._subscribers):
            if subscriber.writer is not None:
                subscriber.writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await subscriber.writer
            with contextlib.suppress(Exception):
                await subscriber.websocket.close(code=CloseCode.GOING_AWAY)
        self._subscribers.clear()
