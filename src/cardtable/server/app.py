"""The ASGI app: its lifespan (store, lobby, tables), middleware and routes; the routes
themselves are in :mod:`cardtable.server.routes` (docs/protocol.md)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from fastapi import FastAPI, Request, Response

from ..store import Store
from .config import ServerConfig, load_game_modules
from .lobby import Lobby
from .registry import Registry
from .routes import games, pages
from .routes.errors import install_error_handlers
from .routes.lobby import install_routes as install_lobby_routes
from .routes.shared import LookupLimit, lobby_of
from .routes.table_socket import table_socket_router
from .routes.tables import seat_at, tables_router
from .security import SECURITY_HEADERS


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


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The app for ``config`` (default: the environment's); the games of
    ``config.game_modules`` are registered first (``ValueError`` if one cannot be
    imported)."""
    config = config or ServerConfig.from_env()
    load_game_modules(config.game_modules)
    logging.getLogger("uvicorn.error").addFilter(_CLIENT_FAULTS)  # once: the same filter

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(config.store_url())
        lobby = Lobby(store)
        await lobby.load()
        app.state.lobby = lobby
        app.state.registry = Registry(store, config, notify=lambda table: lobby.table_changed(
            table.table_info().model_dump(mode="json"), table.record.private))
        try:
            yield
        finally:
            await app.state.registry.close()
            await lobby.close()
            await store.close()

    app = FastAPI(title="cardtable", lifespan=lifespan, docs_url=None, redoc_url=None)

    @app.middleware("http")
    async def security_headers(request: Request,
                               call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    limit_lookups = LookupLimit(config)
    app.include_router(pages.router)
    pages.mount_static(app)
    app.include_router(games.router)
    app.include_router(tables_router(limit_lookups))
    app.include_router(table_socket_router(config))
    install_lobby_routes(  # first in line: "/ws/{table_id}" must not catch "/ws/lobby"
        app, lobby_of, lambda code, name: seat_at(app.state.registry, code, name),
        config.allowed_origins, limit=limit_lookups, max_frame=config.max_frame_bytes,
        frame_rate=config.frame_rate, frame_burst=config.frame_burst)
    install_error_handlers(app)
    return app
