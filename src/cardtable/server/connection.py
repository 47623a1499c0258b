"""One WebSocket: its seat and an outbox the table actor never waits on.

A client that cannot keep up does not slow its table down: when its outbox
is full, the queued frames are dropped and replaced by one fresh snapshot
(every ``view`` frame is complete), so it resyncs instead of losing state.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from starlette.websockets import WebSocket

from .codes import CloseCode

OUTBOX_SIZE = 64
_numbers = itertools.count(1)


@dataclass(frozen=True)
class _Close:
    code: CloseCode
    reason: str


class Connection:
    def __init__(self, websocket: WebSocket):
        self.websocket = websocket
        self.seat: int | None = None
        self.name = "Spectator"  # what a spectator is called in the spectators' chat
        self.number = next(_numbers)  # tells spectators apart (chat limits, mutes)
        self.muted: set[int] = set()  # seats whose chat this connection does not want
        # The browser's player (its cookie, at hello) and the players he blocks: a set
        # shared by his sockets here (server/moderation.py), changed by the block API.
        self.player_id: str | None = None
        self.blocked: set[str] = set()
        self.outbox: asyncio.Queue[str | _Close | None] = asyncio.Queue(OUTBOX_SIZE)
        self.resyncs = 0

    def send(self, text: str, resync: Callable[[], str] | None = None) -> None:
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.resyncs += 1
            self.outbox.put_nowait(resync() if resync is not None else text)

    def close(self, code: CloseCode | None = None, reason: str = "") -> None:
        """Stop writing; with a ``code``, close the socket once the queued frames are out."""
        item = None if code is None else _Close(code, reason)
        try:
            self.outbox.put_nowait(item)
        except asyncio.QueueFull:  # the close matters more than what was queued
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.outbox.put_nowait(item)

    async def write_loop(self) -> None:
        """Send queued frames until :meth:`close` or the socket fails."""
        while True:
            item = await self.outbox.get()
            if item is None:
                return
            try:
                if isinstance(item, _Close):
                    await self.websocket.close(code=item.code, reason=item.reason)
                    return
                await self.websocket.send_text(item)
            except Exception:  # the peer went away; the reader notices and detaches
                return
