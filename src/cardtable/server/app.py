"""The ASGI app: its lifespan (store, lobby, tables), middleware and routes; the routes
themselves are in :mod:`cardtable.server.routes` (docs/protocol.md)."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from fastapi import Depends, FastAPI, Request, Response
from redis.exceptions import RedisError

# The wiring: the one server module that names the cluster (it imports the server, and
# nothing of it leads back here, so no loop: server/coordinator.py, docs/server.md).
from ..cluster.node import ClusterNode
from ..store import Store
from . import metrics
from .accounts import PasswordWork
from .config import ServerConfig, load_game_modules
from .lobby import Lobby
from .moderation import BlockLists
from .players import Sitter, sitting_player
from .rate_limits import OpenSockets, RateLimits
from .registry import Registry
from .request_guards import RequestGuard, storable_text
from .routes import games, health, matches, pages, players
from .routes.accounts import accounts_router
from .routes.errors import install_error_handlers
from .routes.lobby import install_routes as install_lobby_routes
from .routes.metrics import metrics_router
from .routes.moderation import moderation_router
from .routes.shared import create_limit, lobby_of, lookup_limit
from .routes.table_socket import table_socket_router
from .routes.tables import seat_at, tables_router
from .security import SECURITY_HEADERS
from .serving import drain_before_stop
from .table import Table


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


async def drain(app: FastAPI) -> None:
    """A clean stop begins: a cluster's process hands its tables to the others first
    (once; ``/api/health`` answers 503 from now on, so the proxy sends no one new)."""
    app.state.draining = True
    cluster = app.state.cluster
    if cluster is not None and not cluster.draining:
        await cluster.drain()


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The app for ``config`` (default: the environment's); the games of
    ``config.game_modules`` are registered first (``ValueError`` if one cannot be
    imported)."""
    config = config or ServerConfig.from_env()
    load_game_modules(config.game_modules)
    logging.getLogger("uvicorn.error").addFilter(_CLIENT_FAULTS)  # once: the same filter

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metrics.time_collections()
        store = await Store.open(config.store_url())
        lobby = Lobby(store)
        await lobby.load()
        cluster = None if config.redis_url is None else ClusterNode(
            config.redis_url, config.redis_prefix, config.lease_ttl, config.node_id)

        def notify(table: Table) -> None:
            info = table.table_info().model_dump(mode="json")
            lobby.table_changed(info, table.record.private)
            if cluster is not None:  # every process's lobby lists every table
                cluster.lobby_changed(info, table.record.private)

        registry = Registry(store, config, notify=notify, cluster=cluster)
        app.state.lobby, app.state.registry, app.state.cluster = lobby, registry, cluster
        app.state.blocklists = blocklists = BlockLists()
        app.state.drain = functools.partial(drain, app)
        if cluster is not None:
            try:
                await cluster.start(registry, lambda message: lobby.table_changed(
                    message["info"], message["private"]), on_block=blocklists.changed)
            except (RedisError, OSError) as error:
                await registry.close()
                await store.close()
                raise RuntimeError(f"REDIS_URL: cannot reach Redis: {error}") from None
            limits.share(cluster.redis, config.redis_prefix)  # a limit holds cluster-wide
        drain_before_stop(app.state.drain)
        try:
            yield
        finally:
            await app.state.drain()
            await registry.close()
            if cluster is not None:
                limits.share(None)
                await cluster.stop()
            await lobby.close()
            await store.close()

    # storable_text: no route stores a NUL or a lone surrogate (server/request_guards.py).
    app = FastAPI(title="cardtable", lifespan=lifespan, docs_url=None, redoc_url=None,
                  dependencies=[Depends(storable_text)])

    @app.middleware("http")
    async def security_headers(request: Request,
                               call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    # Outermost: a change from another site's page, or a body too big, too slow or too
    # deep, is refused before anything else runs (server/request_guards.py).
    app.add_middleware(RequestGuard, allowed_origins=config.allowed_origins,
                       max_body=config.max_body_bytes, timeout=config.header_timeout)

    limits = RateLimits(config.trusted_proxies)
    limit_lookups = lookup_limit(config, limits)
    sockets = OpenSockets(config.socket_limit, limits.address)  # table and lobby sockets
    app.include_router(pages.router)
    pages.mount_static(app)
    app.include_router(games.router)
    app.include_router(health.router)
    app.include_router(metrics_router(config, metrics.LiveFigures(
        lambda: app.state.registry.resident_count(),
        lambda: app.state.registry.sockets + app.state.lobby.subscribers)))
    app.include_router(players.router)
    app.include_router(matches.router)
    app.include_router(accounts_router(limits, PasswordWork(config.hash_workers)))
    app.include_router(tables_router(limit_lookups, create_limit(config, limits)))
    app.include_router(table_socket_router(config, sockets))
    app.include_router(moderation_router(limits))
    async def identify(request: Request, response: Response, name: str) -> Sitter:
        player = await sitting_player(request, response, app.state.registry.store, name)
        return Sitter.of(player, limit_lookups.address_of(request))

    install_lobby_routes(  # first in line: "/ws/{table_id}" must not catch "/ws/lobby"
        app, lobby_of, lambda code, name, player: seat_at(app.state.registry, code, name,
                                                          player),
        config.allowed_origins, limit=limit_lookups, max_frame=config.max_frame_bytes,
        frame_rate=config.frame_rate, frame_burst=config.frame_burst, identify=identify,
        sockets=sockets, hello_timeout=config.hello_timeout)
    install_error_handlers(app)
    return app
