"""uvicorn's HTTP/1.1 protocol (httptools), with a deadline on each request's head.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``: closed that many
seconds after its last response) but nothing before a request's head is complete: a
connection that never sends a byte, or sends its headers a byte at a time (slowloris),
is held for ever, and httptools gathers a head of any size. ``h11_max_incomplete_event_size``
bounds the head's size only under the (slower) h11 protocol, and bounds no time.

:class:`BoundedHttpProtocol` adds both bounds: from the moment a connection is made, and
from the first byte of each later request on it, the request's line and headers must be
complete within ``timeout_keep_alive`` seconds (the server's ``CARDTABLE_HEADER_TIMEOUT``,
which is also the keep-alive time) and within :data:`MAX_HEAD` bytes. Past either, the
client gets 408 or 431 (nothing if it sent nothing) and the connection is closed. A
WebSocket handshake is a request like the others until its head is complete; after it
the socket's own bounds hold (the hello timeout, uvicorn's pings). The body's deadline
is :class:`~.request_guards.RequestGuard`'s.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD = 32 * 1024  # bytes of a request line and headers (a browser sends a few KiB)

_REASONS = {408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


class BoundedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol; a request's head is due within a time and a size."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_deadline: asyncio.TimerHandle | None = None
        self.head_bytes = 0
        self.sent_anything = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.sent_anything = True
        if self.head_deadline is not None:
            self.head_bytes += len(data)
        super().data_received(data)
        if (self.head_deadline is not None and self.head_bytes > MAX_HEAD
                and not self.transport.is_closing()):
            self._refuse(431, f"a request's line and headers have at most {MAX_HEAD} bytes")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._await_head()

    def on_headers_complete(self) -> None:
        self._head_done()
        super().on_headers_complete()

    def _await_head(self) -> None:
        if self.head_deadline is None:  # a deadline already running is not extended
            self.head_bytes = 0
            self.head_deadline = self.loop.call_later(self.timeout_keep_alive, self._too_slow)

    def _head_done(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _too_slow(self) -> None:
        self.head_deadline = None
        if self.transport.is_closing():
            return
        if not self.sent_anything:  # a silent connection: nobody to answer
            self.transport.close()
            return
        self._refuse(408, f"a request's head must come within {self.timeout_keep_alive:g} s")

    def _refuse(self, status: int, message: str) -> None:
        """Answer ``status`` and close: unless a response of an earlier request on this
        connection (pipelined) is still being written, which the answer would corrupt."""
        self._head_done()
        if self.cycle is None or self.cycle.response_complete:
            body = message.encode()
            self.transport.write(b"".join([
                b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status]),
                b"content-type: text/plain; charset=utf-8\r\n",
                b"content-length: %d\r\n" % len(body), b"connection: close\r\n\r\n", body]))
        self.transport.close()
