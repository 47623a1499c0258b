"""Running the app under uvicorn: one process, or ``--workers N`` processes on one port.

On a clean stop (SIGTERM, Ctrl-C) the app drains first (``app.state.drain``: in a
cluster its tables go to the other processes) and only then lets uvicorn close its
sockets: :func:`drain_before_stop` puts itself in front of uvicorn's signal handlers.
``--workers`` is uvicorn's own supervisor (``Multiprocess``): the processes share the
listening socket, each is a full member of the card room over Redis (any of them may get
any socket), and a worker that dies is started again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from . import gc_tuning, logs
from .config import GAME_MODULES_VARIABLE, ServerConfig
from .http_protocol import BoundedHttpProtocol

# Frames over max_frame_bytes close the socket with 1009 inside the websockets library.
# proxy_headers=False: uvicorn would believe X-Forwarded-For from 127.0.0.1 by default;
# the app reads it itself, from CARDTABLE_TRUSTED_PROXIES only (security.client_address).
# http: uvicorn's httptools protocol with a deadline and a size for each request's head
# (http_protocol.py); its deadline is timeout_keep_alive, set from header_timeout.
COMMON: dict[str, Any] = {"ws": "websockets-sansio", "log_level": "warning",
                          "proxy_headers": False, "timeout_graceful_shutdown": 3,
                          "http": BoundedHttpProtocol}


log = logging.getLogger("cardtable.server")


def bounds(config: ServerConfig) -> dict[str, Any]:
    """uvicorn's settings that bound a client (docs/server.md "Bounded clients"), and its
    log: ours (server/logs.py), in this process and in each worker."""
    return {"ws_max_size": config.max_frame_bytes, "timeout_keep_alive": config.header_timeout,
            "log_config": logs.dict_config(config.log)}


class CardtableServer(uvicorn.Server):
    """uvicorn's server, tuned after start-up and drained before shutdown."""

    def __init__(self, config: uvicorn.Config, settings: ServerConfig) -> None:
        super().__init__(config)
        self.settings = settings  # read once, by the command line
        stats_file = settings.gc_stats  # the collector's pause figures
        self.stats = (stats_file, gc_tuning.install_stats(stats_file)) if stats_file else None

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        # Start-up is over (modules, database, lobby): freeze it, rarer full passes.
        log.info("%s", gc_tuning.apply(self.settings.gc_freeze, self.settings.gc_thresholds))


    async def shutdown(self, sockets: Any = None) -> None:
        await super().shutdown(sockets)
        if self.stats is not None:
            self.stats[1].write(self.stats[0])


def drain_before_stop(drain: Callable[[], Awaitable[None]]) -> None:
    """Make SIGTERM and SIGINT run ``drain`` before the handler uvicorn installed (which
    starts its shutdown). Called from the app's start-up, when uvicorn's handlers are in
    place; a server run outside the main thread (the tests' in-process servers) has none."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue

        def handler(signum: int, frame: FrameType | None,
                    previous: Callable[[int, FrameType | None], Any] = previous) -> None:
            async def then_stop() -> None:
                try:
                    await drain()
                finally:
                    previous(signum, frame)

            task = loop.create_task(then_stop(), name="drain")
            pending.add(task)
            task.add_done_callback(pending.discard)

        signal.signal(sig, handler)


def run_one(app: Any, config: ServerConfig, host: str, port: int) -> bool:
    """Serve ``app`` (made for ``config``) in this process until stopped; False if it
    never started."""
    server = CardtableServer(uvicorn.Config(app, host=host, port=port, **bounds(config),
                                            **COMMON), config)
    server.run()
    return bool(server.started)


def run_workers(config: ServerConfig, host: str, port: int, workers: int) -> None:
    """Serve from ``workers`` processes on one port (each builds its app from the
    environment, as ``config`` was read from it)."""
    os.environ[GAME_MODULES_VARIABLE] = ",".join(config.game_modules)
    uv_config = uvicorn.Config("cardtable.server.app:create_app", factory=True, host=host,
                               port=port, workers=workers, **bounds(config), **COMMON)
    Multiprocess(uv_config, sockets=[uv_config.bind_socket()]).run()
