"""One WebSocket: its seat and an outbox the table actor never waits on.

A client that cannot keep up does not slow its table down: when its outbox
is full, the queued frames are dropped and replaced by one fresh snapshot
(every ``view`` frame is complete), so it resyncs instead of losing state.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from starlette.websockets import WebSocket

OUTBOX_SIZE = 64


class Connection:
    def __init__(self, websocket: WebSocket):
        self.websocket = websocket
        self.seat: int | None = None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX_SIZE)
        self.resyncs = 0

    def send(self, text: str, resync: Callable[[], str] | None = None) -> None:
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.resyncs += 1
            self.outbox.put_nowait(resync() if resync is not None else text)

    def close(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait(None)

    async def write_loop(self) -> None:
        """Send queued frames until :meth:`close` or the socket fails."""
        while True:
            text = await self.outbox.get()
            if text is None:
                return
            try:
                await self.websocket.send_text(text)
            except Exception:  # the peer went away; the reader notices and detaches
                return
