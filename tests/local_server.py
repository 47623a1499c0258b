"""The server app in a thread of the test process: real sockets, and a registry to look into.

:class:`LocalServer` has the ``base_url`` and ``ws_base`` of a :class:`ServerProcess`, so the
helpers of ``table_life_helpers`` and ``ws_helpers`` work with it; its own event loop runs in
a thread, so the tests' blocking HTTP calls do not stall it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn

from cardtable.server.app import create_app
from cardtable.server.config import ServerConfig
from cardtable.server.registry import Registry
from cardtable.store import sqlite_url
from server_harness import free_port

WAIT = 20.0  # seconds to wait for something that must happen (generous: never a speed test)


class LocalServer:
    def __init__(self, data_dir: Path, **settings: Any):
        settings.setdefault("database_url", sqlite_url(data_dir))
        settings.setdefault("create_limit", 100_000)  # every test client is on 127.0.0.1
        settings.setdefault("socket_limit", 100_000)
        self.settings = ServerConfig(data_dir=data_dir, **settings)
        self.app = create_app(self.settings)
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, ws="websockets-sansio",
            log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, name="local server", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def registry(self) -> Registry:
        registry: Registry = self.app.state.registry
        return registry

    def holds(self, table_id: str) -> bool:
        """Whether the table is in memory (a dict lookup: safe from the test's thread)."""
        return table_id in self.registry

    def start(self) -> LocalServer:
        self.thread.start()
        deadline = time.monotonic() + WAIT
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the local server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT)


async def eventually(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Wait until ``check()`` holds (polling; the timeout only bounds a failing test)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.02)
