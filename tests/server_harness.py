"""A real `cardtable serve` process for tests: start, kill -9, restart."""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from cardtable.client import Client
from cardtable.store import EventRecord, Store, TableRecord, normalize_url, sqlite_url

if TYPE_CHECKING:
    from local_server import LocalServer  # which takes free_port from here

_HANDED_OUT: set[int] = set()


def _worker_share() -> tuple[int, int]:
    """(this pytest-xdist worker's number, how many workers): (0, 1) when run alone."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return int(worker.removeprefix("gw") or 0), max(1, count)


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on, and not one this test process handed out
    before: the kernel may give a just-closed port again, and two servers of one cluster
    told the same port share one process without a word (the second cannot bind). Under
    pytest-xdist each worker takes only its own share of the ports, so two workers never
    hand out the same port between a look and a bind. The share is by a hash of the
    port, not ``port % workers``: Linux gives ``bind(0)`` even ports by preference (odd
    ones go to ``connect``), so a worker of odd ports would wait for ever."""
    index, count = _worker_share()
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if zlib.crc32(port.to_bytes(2, "big")) % count == index and port not in _HANDED_OUT:
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


async def stored(server: ServerProcess, table_id: str) -> tuple[TableRecord, list[EventRecord]]:
    """A table's row and its event log as the server's database holds them (read by a store
    of the test's own, closed after)."""
    store = await Store.open(server.store_url)
    try:
        record = await store.get_table(table_id)
        assert record is not None, f"no table {table_id} in the store"
        return record, await store.load_events(table_id)
    finally:
        await store.close()


# -- people with addresses and accounts of their own ------------------------------------------


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def proxied_server(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server on each database (``server_on``) that trusts 127.0.0.1 as a proxy, so that
    each test client speaks from an address of its own (``X-Forwarded-For``): the limits
    per address (registrations, one player per address at a rated table) are the real ones.
    A module takes it as its ``server``: ``server = proxied_server``."""
    with server_on(request, tmp_path_factory, CARDTABLE_TRUSTED_PROXIES="127.0.0.1") as process:
        yield process


PASSWORD = "plum tractor quietly orbits 9 lemons"  # strong enough for zxcvbn
_addresses = itertools.count(1)


def new_address() -> str:
    """An address no other client of this test process has spoken from (in 198.18.0.0/15,
    which is reserved for network tests)."""
    n = next(_addresses)
    return f"198.18.{n // 250}.{n % 250 + 1}"


async def person(server: ServerProcess | LocalServer, username: str | None = None) -> Client:
    """A browser of its own (its own cookies) from a new address, at a server that trusts
    127.0.0.1 as a proxy; registered as ``username`` (with ``PASSWORD``) unless None.
    Close it with ``aclose``."""
    client = Client(server.base_url, frame_rate=None)
    client.http.headers["X-Forwarded-For"] = new_address()
    if username is not None:
        made = await client.http.post("/api/account/register",
                                      json={"username": username, "password": PASSWORD})
        assert made.status_code == 200, made.text
    return client
