"""What every HTTP request must get past before a route sees it (docs/server.md, "Bounded
clients").

:class:`RequestGuard` is plain ASGI middleware, in front of every route, and refuses:

1. **a change from another site's page** (403): any method but GET, HEAD and OPTIONS whose
   ``Origin`` is not this server's (:func:`~.security.origin_allowed`: the ``Host`` it was
   sent to, or one of ``CARDTABLE_ALLOWED_ORIGINS``), or that a browser marks
   ``Sec-Fetch-Site: cross-site``/``same-site`` without such an Origin. This is the
   Origin check of Django's and Rails' CSRF protection and of Go's
   ``CrossOriginProtection``: browsers send ``Origin`` on every cross-origin POST and no
   page can make them forge it. A request with neither header is no browser's (our
   Python client, the CLI, curl) and passes: a page cannot make a browser leave both out,
   and a program that is no browser carries no victim's cookies.
2. **a body over** ``max_body`` bytes (413), before a byte of it is read when
   ``Content-Length`` says so, else (chunked) as soon as the count passes it; and a JSON
   body nested deeper than a frame may be (422: the parser would recurse that deep).
3. **a body that has not arrived** ``timeout`` seconds after the request's head (408).

Each refusal is ``{"detail": "<a sentence>"}`` with the pages' security headers, and
closes the connection (a refused body may still be coming: it is not read).

:func:`storable_text`, a dependency of every route, refuses (422, naming the field) text
no database can store: a NUL character or a lone UTF-16 surrogate
(:func:`~.storable.unstorable`) in a path parameter, a query parameter or a JSON body.
PostgreSQL refuses a NUL, and the route would answer 503 "cannot reach its database" for
what is the client's mistake; SQLite would store it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from fastapi import HTTPException
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .protocol import MAX_DEPTH, too_deep
from .security import SECURITY_HEADERS, origin_allowed
from .storable import first_unstorable, unstorable

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
OTHER_SITES = frozenset({"cross-site", "same-site"})  # Sec-Fetch-Site of another origin


def cross_site_refusal(method: str, headers: Headers,
                       allowed_origins: Iterable[str] = ()) -> str | None:
    """Why a request that would change something comes from another site's page, or None.

    >>> H = lambda **h: Headers({k.replace("_", "-"): v for k, v in h.items()})
    >>> here = {"host": "cards.example:8000"}
    >>> cross_site_refusal("POST", H(**here, origin="http://cards.example:8000")) is None
    True
    >>> cross_site_refusal("POST", H(**here, origin="http://cards.example:9000"))
    'refused: a page of http://cards.example:9000 may not change anything here'
    >>> cross_site_refusal("POST", H(**here, sec_fetch_site="same-site"))
    'refused: a page of another site may not change anything here'
    >>> cross_site_refusal("POST", H(**here)) is None   # no browser: our client, curl
    True
    >>> cross_site_refusal("GET", H(**here, origin="http://evil.example")) is None
    True
    """
    if method in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None:
        if origin_allowed(headers, allowed_origins):
            return None
        return f"refused: a page of {origin[:100]} may not change anything here"
    if headers.get("sec-fetch-site", "").lower() in OTHER_SITES:
        return "refused: a page of another site may not change anything here"
    return None


class RequestGuard:
    """The checks of this module's docstring, for every ``http`` request of ``app``."""

    def __init__(self, app: ASGIApp, *, allowed_origins: Iterable[str] = (),
                 max_body: int = 64 * 1024, timeout: float = 5.0) -> None:
        self.app = app
        self.allowed_origins = tuple(allowed_origins)
        self.max_body = max_body
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = cross_site_refusal(scope["method"], headers, self.allowed_origins)
        if refusal is not None:
            await _refuse(403, refusal, scope, receive, send)
            return
        if _declared_length(headers) > self.max_body:
            await _refuse(413, self._too_big(), scope, receive, send)
            return
        try:
            body = await asyncio.wait_for(self._read(receive), self.timeout)
        except TimeoutError:
            await _refuse(408, f"the request's body did not arrive within {self.timeout:g} s",
                          scope, receive, send)
            return
        except _TooBig:
            await _refuse(413, self._too_big(), scope, receive, send)
            return
        except _Gone:
            return
        if too_deep(body.decode(errors="replace")):  # json.loads would recurse that deep
            await _refuse(422, f"body: nested deeper than {MAX_DEPTH} levels", scope, receive,
                          send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _too_big(self) -> str:
        return f"a request's body has at most {self.max_body} bytes"

    async def _read(self, receive: Receive) -> bytes:
        """The whole body (at most ``max_body`` bytes: :class:`_TooBig` past it)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Gone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise _TooBig
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


class _TooBig(Exception):
    pass


class _Gone(Exception):
    pass


def _declared_length(headers: Headers) -> int:
    """``Content-Length`` (0 when absent; the HTTP parser has refused a malformed one)."""
    try:
        return int(headers.get("content-length", "0"))
    except ValueError:
        return 0


async def storable_text(connection: HTTPConnection) -> None:
    """A dependency of every route: refuse (422, naming the field) a path parameter, a
    query parameter or a JSON body's field that holds text no database stores. Here and
    not in the middleware: only the route knows its path parameters' names."""
    if connection.scope["type"] != "http":
        return  # a socket's frames are checked as they are parsed (protocol.decode_json)
    for name, value in [*connection.path_params.items(),
                        *connection.query_params.multi_items()]:
        why = unstorable(name)
        if why is not None:
            raise HTTPException(422, f"query: a parameter's name {why}")
        why = unstorable(value) if isinstance(value, str) else None
        if why is not None:
            raise HTTPException(422, f"{name}: {why}")
    if isinstance(connection, Request):
        body = await connection.body()  # already read (and bounded) by RequestGuard
        if b"\\u" in body:  # only an escape writes a NUL or a lone surrogate in JSON
            try:
                data: Any = json.loads(body)
            except (ValueError, RecursionError):
                return  # not JSON: the route says what is wrong with it
            found = first_unstorable(data)
            if found is not None:
                raise HTTPException(422, f"{found[0]}: {found[1]}")


def _replay(body: bytes, receive: Receive) -> Receive:
    """The app's ``receive``: the body already read, then the client's own messages (its
    disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


async def _refuse(status: int, detail: str, scope: Scope, receive: Receive,
                  send: Send) -> None:
    response = JSONResponse({"detail": detail}, status_code=status,
                            headers={**SECURITY_HEADERS, "Connection": "close"})
    await response(scope, receive, send)
