"""The public lobby's routes: ``GET /api/lobby``, ``POST /api/lobby/quick-join`` and
``WS /ws/lobby`` (the lobby itself is :class:`cardtable.server.lobby.Lobby`)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request, Response, WebSocket
from pydantic import BaseModel, ConfigDict, Field

from ...engine import GAMES
from ...names import PersonName
from ..codes import CloseCode
from ..lobby import HELLO_TIMEOUT, MAX_FRAME, NO_SEAT, Lobby
from ..rate_limits import OpenSockets
from ..security import origin_allowed

JSON = Any
Name = PersonName  # NFKC, no invisible characters, one space between words (names.py)


class QuickJoin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = "Guest"
    game: str | None = None
    players: int | None = Field(default=None, ge=2, le=8)


Join = Callable[[str, str, Any], Awaitable[dict[str, JSON] | None]]
"""``join(code, name, who)`` seats a person at a table: the SeatGrant dict, or None when
no seat was free any more (``who``: what ``identify`` said of him, else None)."""
Limit = Callable[[Request], Awaitable[None]]
"""``limit(request)`` spends one of the address's lookups, or raises HTTP 429."""
Identify = Callable[[Request, Response, str], Awaitable[Any]]
"""``identify(request, response, name)``: who sits down (the server's Sitter: his lasting
identity, its cookie set on ``response`` when new)."""


def lobby_router(lobby_of: Callable[[Request | WebSocket], Lobby], join: Join,
                 allowed_origins: Iterable[str] = (), *,
                 limit: Limit | None = None, max_frame: int = MAX_FRAME,
                 frame_rate: float = 20.0, frame_burst: int = 40,
                 identify: Identify | None = None, sockets: OpenSockets | None = None,
                 hello_timeout: float = HELLO_TIMEOUT) -> APIRouter:
    """The lobby's routes; ``limit(request)`` raises HTTP 429 when the client's address
    has joined too often; ``sockets`` counts the sockets of each address (the table
    sockets' count: one more than it allows is closed with 1008)."""
    origins = tuple(allowed_origins)
    router = APIRouter()

    @router.get("/api/lobby")
    async def lobby_list(request: Request) -> dict[str, JSON]:
        return {"tables": lobby_of(request).entries()}

    @router.post("/api/lobby/quick-join")
    async def quick_join(body: QuickJoin, request: Request,
                         response: Response) -> dict[str, JSON]:
        if limit is not None:
            await limit(request)
        if body.game is not None and body.game not in GAMES:
            raise HTTPException(422, f"game: unknown game {body.game[:32]!r}")
        candidates = lobby_of(request).quick_join_candidates(body.game, body.players)
        who = None
        if candidates and identify is not None:
            who = await identify(request, response, body.name)
        for code in candidates:
            grant = await join(code, body.name, who)
            if grant is not None:
                return grant
        raise HTTPException(404, NO_SEAT)

    @router.websocket("/ws/lobby")
    async def lobby_socket(websocket: WebSocket) -> None:
        if not origin_allowed(websocket.headers, origins):
            # Closed before accept: the handshake gets a 403.
            await websocket.close(code=CloseCode.POLICY)
            return
        with contextlib.nullcontext(True) if sockets is None else sockets.hold(
                websocket) as admitted:
            if not admitted and sockets is not None:
                await websocket.accept()
                await websocket.close(code=CloseCode.POLICY, reason=sockets.refusal)
                return
            await lobby_of(websocket).serve(websocket, max_frame=max_frame,
                                            frame_rate=frame_rate, frame_burst=frame_burst,
                                            hello_timeout=hello_timeout)

    return router


def install_routes(app: FastAPI, lobby_of: Callable[[Request | WebSocket], Lobby], join: Join,
                   allowed_origins: Iterable[str] = (), *,
                   limit: Limit | None = None, max_frame: int = MAX_FRAME,
                   frame_rate: float = 20.0, frame_burst: int = 40,
                   identify: Identify | None = None, sockets: OpenSockets | None = None,
                   hello_timeout: float = HELLO_TIMEOUT) -> None:
    """Add the lobby's routes (:func:`lobby_router`) to ``app``, before the routes it
    already has, so that a route like ``/ws/{table_id}`` does not catch ``/ws/lobby``."""
    existing = len(app.router.routes)
    app.include_router(lobby_router(lobby_of, join, allowed_origins, limit=limit,
                                    max_frame=max_frame, frame_rate=frame_rate,
                                    frame_burst=frame_burst, identify=identify,
                                    sockets=sockets, hello_timeout=hello_timeout))
    routes = app.router.routes
    routes[:] = routes[existing:] + routes[:existing]
