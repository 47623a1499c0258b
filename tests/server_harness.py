"""A real `cardtable serve` process for tests: start, kill -9, restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from cardtable.store import normalize_url, sqlite_url

_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on, and not one this test process handed out
    before: the kernel may give a just-closed port again, and two servers of one cluster
    told the same port share one process without a word (the second cannot bind)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


class ServerProcess:
    """``python -m cardtable serve`` on a free port of 127.0.0.1."""

    def __init__(self, data_dir: Path, *, database_url: str | None = None,
                 env: dict[str, str] | None = None, port: int | None = None):
        self.data_dir = data_dir
        self.port = port or free_port()
        # Every test client is on 127.0.0.1 and tests make tables by the dozen: the limits
        # of new tables and open sockets per address are lifted unless a test sets them.
        self.env = {**os.environ, "CARDTABLE_BOT_DELAY": "0",
                    "CARDTABLE_CREATE_LIMIT": "100000", "CARDTABLE_SOCKET_LIMIT": "100000",
                    **(env or {})}
        self.env.pop("DATABASE_URL", None)
        if database_url:
            self.env["DATABASE_URL"] = database_url
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cardtable", "serve", "--host", "127.0.0.1",
                 "--port", str(self.port), "--data-dir", str(self.data_dir)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.base_url}/api/games", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not start: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """``kill -9``: no shutdown, no flush."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then wait for the graceful shutdown; ``kill -9`` after ``timeout``.

        Returns the exit code (0: a clean stop; negative: killed by that signal), or
        None if it was never started.
        """
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode

    @property
    def store_url(self) -> str:
        """The database the server logs to: its DATABASE_URL, else the data dir's SQLite."""
        return normalize_url(self.env["DATABASE_URL"]) if "DATABASE_URL" in self.env \
            else sqlite_url(self.data_dir)

    def restart(self) -> ServerProcess:
        self.kill()
        return self.start()

    def output(self) -> str:
        return self.log.read_text() if self.log.exists() else ""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A started server on a fresh SQLite data directory, shared by a test module.

    Computer players move without delay, and room-code lookups are not rate
    limited (every test connects from 127.0.0.1); tests of those limits and
    of crashes start their own :class:`ServerProcess`.
    """
    process = ServerProcess(tmp_path_factory.mktemp("server") / "data",
                            env={"CARDTABLE_JOIN_LIMIT": "100000"}).start()
    try:
        yield process
    finally:
        process.stop()


LIFTED_LIMITS = {"CARDTABLE_JOIN_LIMIT": "100000", "CARDTABLE_FRAME_RATE": "10000"}
"""Every client of a test is on 127.0.0.1 and moves at once: the join and frame limits
are lifted (tests of those limits start their own server)."""


@contextmanager
def server_on(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
              **env: str) -> Iterator[ServerProcess]:
    """A started server on the database ``request.param`` names ("sqlite": a fresh data
    directory; "postgresql": the session's database), with the limits lifted and ``env``;
    stopped at the end. For a module fixture parametrized over both databases."""
    url = request.getfixturevalue("pg_database_url") if request.param == "postgresql" else None
    process = ServerProcess(tmp_path_factory.mktemp(request.param) / "data", database_url=url,
                            env={**LIFTED_LIMITS, **env}).start()
    try:
        yield process
    finally:
        process.stop()
