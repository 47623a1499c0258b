"""The ASGI app: pages, the table API and the table WebSocket (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, Response, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.websockets import WebSocketDisconnect

from ..engine import GAMES, get_game
from ..store import Store, database_url
from . import protocol as p
from .config import Settings
from .connection import Connection
from .lobby import Lobby, install_routes
from .registry import Registry
from .security import (
    SECURITY_HEADERS,
    SlidingWindow,
    TokenBucket,
    client_address,
    origin_allowed,
    trusted_networks,
)
from .table_commit import SaveFailed
from .table_presence import CLOSE_NO_SPECTATORS

WEB = Path(__file__).resolve().parents[1] / "web"
CLOSE_BAD_TOKEN, CLOSE_UNKNOWN_TABLE, CLOSE_RATE = 4003, 4004, 1008
CLOSE_TRY_LATER = 1013
CLOSE_SPECTATORS_FULL = 4006
REFUSALS = {  # why a hello is refused: close code and message
    "bad_token": (CLOSE_BAD_TOKEN, "that seat token is not valid here"),
    "no_spectators": (CLOSE_NO_SPECTATORS, "the host does not allow spectators at this table"),
    "table_full_spectators": (CLOSE_SPECTATORS_FULL,
                              "this table has as many spectators as it takes; try again later"),
}


class _ClientFaults(logging.Filter):
    """uvicorn logs a client's invalid UTF-8 as an error with a traceback (then closes with
    1007): it is the client's fault, and a client must not fill the log with tracebacks.
    One warning line says it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith("Invalid UTF-8 sequence"):
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_CLIENT_FAULTS = _ClientFaults()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    logging.getLogger("uvicorn.error").addFilter(_CLIENT_FAULTS)  # once: the same filter

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = settings.database_url or database_url(settings.data_dir)
        store = await Store.open(url)
        lobby = Lobby(store)
        await lobby.load()
        app.state.lobby = lobby
        app.state.registry = Registry(store, settings, notify=lambda table: lobby.table_changed(
            table.table_info().model_dump(mode="json"), table.record.private))
        try:
            yield
        finally:
            await app.state.registry.close()
            await lobby.close()
            await store.close()

    app = FastAPI(title="cardtable", lifespan=lifespan, docs_url=None, redoc_url=None)
    lookups = SlidingWindow(settings.join_limit, settings.join_window)
    proxies = trusted_networks(settings.trusted_proxies)

    @app.middleware("http")
    async def security_headers(request: Request,
                               call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    def registry(request: Request | WebSocket) -> Registry:
        found: Registry = request.app.state.registry
        return found

    def address_of(request: Request | WebSocket) -> str:
        """Whom to count a request against (see client_address: proxies only if trusted)."""
        peer = request.client.host if request.client else None
        return client_address(peer, request.headers.getlist("x-forwarded-for"), proxies)

    def limit_lookups(request: Request) -> None:
        """Room codes are short: lookups, joins and quick joins share one budget per
        address, so codes cannot be guessed by trying them."""
        if not lookups.allow(address_of(request)):
            raise HTTPException(429, "too many room-code lookups; wait a minute")

    # -- pages --------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    @app.get("/t/{code}", include_in_schema=False)
    async def page(code: str | None = None) -> FileResponse:
        return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})

    if WEB.is_dir():
        app.mount("/static", StaticFiles(directory=WEB), name="static")

    # -- API ------------------------------------------------------------------------------------

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        out = []
        for name in GAMES:
            game = get_game(name)
            out.append({"name": name, "title": p.title_of(name),
                        # the home page offers only games the browser can draw
                        "browser": (WEB / "games" / f"{name}.js").is_file(),
                        "players": list(game.PLAYERS), "presets": list(game.Options.PRESETS),
                        "default_preset": game.Options.DEFAULT_PRESET,
                        "preset_values": {preset: game.Options.preset(preset).to_dict()
                                          for preset in game.Options.PRESETS},
                        "express": dict(getattr(game.Options, "EXPRESS", {})),
                        "options": game.Options.describe()})
        return {"games": out}

    @app.post("/api/tables", status_code=201)
    async def create_table(body: p.CreateTable, request: Request) -> p.SeatGrant:
        try:
            table, seat, token = await registry(request).create(
                body.game, body.options, body.opponent, body.name, body.players,
                None if body.seats is None else list(body.seats), body.settings)
        except ValueError as error:
            raise HTTPException(422, str(error)) from None
        code = table.record.code
        return p.SeatGrant(table_id=table.table_id, code=code, seat=seat, token=token,
                           invite_url=f"/t/{code}")

    @app.get("/api/tables/{code}")
    async def table_info(code: str, request: Request) -> p.TableInfo:
        limit_lookups(request)
        table = await registry(request).by_code(code)
        if table is None:
            raise HTTPException(404, "no table has that code")
        return await table.info()

    @app.post("/api/tables/{code}/join")
    async def join(code: str, body: p.JoinTable, request: Request) -> p.SeatGrant:
        limit_lookups(request)
        table = await registry(request).by_code(code)
        if table is None:
            raise HTTPException(404, "no table has that code")
        granted = await table.join(body.name, body.seat)
        if isinstance(granted, str):
            raise HTTPException(422 if "no such" in granted else 409, granted)
        seat, token = granted
        return p.SeatGrant(table_id=table.table_id, code=table.record.code, seat=seat,
                           token=token, invite_url=f"/t/{table.record.code}")

    async def quick_join(code: str, name: str) -> dict[str, Any] | None:
        table = await app.state.registry.by_code(code)
        granted = None if table is None else await table.join(name)
        if table is None or isinstance(granted, str) or granted is None:
            return None
        seat, token = granted
        return p.SeatGrant(table_id=table.table_id, code=table.record.code, seat=seat,
                           token=token, invite_url=f"/t/{table.record.code}").model_dump()

    install_routes(app, lambda request: request.app.state.lobby, quick_join,
                   settings.allowed_origins, limit=limit_lookups,
                   max_frame=settings.max_frame_bytes,
                   frame_rate=settings.frame_rate, frame_burst=settings.frame_burst)

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"] if part != "body") or "body"
        return JSONResponse({"detail": f"{where}: {first['msg']}"}, status_code=422,
                            headers=SECURITY_HEADERS)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"detail": error.detail}, status_code=error.status_code,
                            headers=SECURITY_HEADERS)

    @app.exception_handler(SaveFailed)
    @app.exception_handler(DBAPIError)
    async def database_fault(request: Request, error: Exception) -> JSONResponse:
        # The database is locked, down or unreachable: nothing changed (docs/server.md).
        return JSONResponse({"detail": "the server cannot reach its database just now; "
                                       "nothing changed, try again in a moment"},
                            status_code=503, headers={**SECURITY_HEADERS, "Retry-After": "5"})

    # -- the table socket ----------------------------------------------------------------------

    @app.websocket("/ws/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        if not origin_allowed(websocket.headers, settings.allowed_origins):
            await websocket.close(code=CLOSE_RATE)  # before accept: the handshake gets a 403
            return
        await websocket.accept()
        try:
            table = await registry(websocket).get(table_id)
        except (SaveFailed, DBAPIError):  # the database is away: clients reconnect later
            await websocket.close(code=CLOSE_TRY_LATER, reason="database unavailable")
            return
        if table is None:
            await websocket.close(code=CLOSE_UNKNOWN_TABLE, reason="unknown table")
            return
        conn = Connection(websocket)
        writer = asyncio.create_task(conn.write_loop())
        bucket = TokenBucket(settings.frame_rate, settings.frame_burst)
        attached = False
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not bucket.take():
                    await websocket.close(code=CLOSE_RATE, reason="too many frames")
                    break
                try:
                    text = message.get("text")
                    frame = p.parse_client_frame(text if text is not None
                                                 else message.get("bytes") or b"")
                except p.ProtocolError as error:
                    conn.send(p.frame("error", table.version, p.ErrorData(
                        code=error.code, message=error.message, id=error.ref)))
                    if attached:
                        table.submit(conn, p.Sync(t="sync"))
                    continue
                if attached:
                    table.submit(conn, frame)
                elif not isinstance(frame, p.Hello):
                    conn.send(p.frame("error", table.version, p.ErrorData(
                        code="hello_first", message="say hello with your seat token first")))
                elif (refused := await table.attach(conn, frame)) is None:
                    attached = True
                else:
                    close_code, why = REFUSALS[refused]
                    await websocket.send_text(p.frame("error", table.version, p.ErrorData(
                        code=refused, message=why)))
                    await websocket.close(code=close_code, reason=refused)
                    break
        except WebSocketDisconnect:
            pass
        finally:
            if attached:
                table.detach(conn)
            conn.close()
            writer.cancel()

    return app
