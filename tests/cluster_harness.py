"""A real card room cluster for tests and ``bench/cluster.py``: N ``cardtable serve``
processes sharing one PostgreSQL database and one Redis, behind a real HAProxy or nginx.

    with Cluster(tmp_path, processes=3) as cluster:
        httpx.get(f"{cluster.base_url}/api/health")     # through the proxy
        cluster.kill(1)                                 # kill -9 one process
        cluster.restart(1)                              # the same port again

Everything it starts is its own: a fresh database (dropped at the end), a Redis prefix
of its own (its keys deleted at the end), the processes and the proxy (stopped by
``close``, and only those). Every process and the proxy log to files under ``tmp_dir``;
a process or proxy that does not come up raises with the tail of its log.

The proxy's configuration is generated here, not read from ``deploy/``: it listens on a
free port and checks the backends every few hundred milliseconds, so a test does not wait
for production timings; otherwise it follows ``deploy/haproxy.cfg`` and
``deploy/nginx.conf`` (WebSocket upgrade, long tunnel timeout, health checks on
``/api/health``, retries on another backend). It also names the backend that answered
in the response header ``X-Cardtable-Backend`` (``127.0.0.1:PORT``), which the
production configurations leave out, so that tests see where a request went.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any

import asyncpg
import httpx
import pytest
import redis
from redis.asyncio import Redis as AsyncRedis

from cardtable.server.table.replay import rebuild
from cardtable.store import Store
from db_fixtures import (
    PG_HOST,
    PG_PORT,
    PG_USER,
    create_pg_database,
    drop_pg_database,
    pg_url,
    run_async,
)
from server_harness import ServerProcess, free_port

PROXIES = ("haproxy", "nginx")
HEALTH_PATH = "/api/health"
BACKEND_HEADER = "X-Cardtable-Backend"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
LOG_TAIL = 3000


def proxy_binary(proxy: str) -> str | None:
    """The proxy's executable (Debian puts both in /usr/sbin, often not on a user's PATH)."""
    if proxy not in PROXIES:
        raise ValueError(f"proxy must be one of {PROXIES}, not {proxy!r}")
    return shutil.which(proxy) or shutil.which(proxy, path="/usr/sbin:/usr/local/sbin")


def shared_redis_url() -> str:
    """The Redis the clusters of tests use: ``$CARDTABLE_TEST_REDIS_URL``, or 127.0.0.1."""
    return os.environ.get("CARDTABLE_TEST_REDIS_URL") or DEFAULT_REDIS_URL


def unavailable(proxy: str = "haproxy") -> str | None:
    """Why a cluster cannot run on this machine (no proxy binary, no Redis, no PostgreSQL),
    or None when it can: a test skips with this reason (or fails on CI)."""
    if proxy_binary(proxy) is None:
        return f"{proxy} is not installed"
    try:
        with redis.Redis.from_url(shared_redis_url(), socket_timeout=2) as client:
            client.ping()
    except redis.RedisError as error:
        return f"Redis not reachable at {shared_redis_url()}: {error!r}"
    try:
        run_async(_probe_postgres)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        return f"PostgreSQL not reachable at {PG_HOST}:{PG_PORT}: {error!r}"
    return None


@pytest.fixture(name="redis")
async def live_redis() -> AsyncIterator[AsyncRedis]:
    """An asyncio client of the tests' Redis (the test skips when there is none)."""
    client: AsyncRedis = AsyncRedis.from_url(shared_redis_url())
    try:
        await client.ping()
    except Exception as error:
        await client.aclose()
        pytest.skip(f"no Redis at {shared_redis_url()}: {error!r}")
    yield client
    await client.aclose()


async def _probe_postgres() -> None:
    connection = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER,
                                       database="postgres", timeout=5)
    await connection.close()


def tail(path: Path, size: int = LOG_TAIL) -> str:
    return path.read_text(errors="replace")[-size:] if path.exists() else "(no log)"


class ClusterNode(ServerProcess):
    """One ``cardtable serve`` of the cluster: started once it also answers its health
    check (200 from ``/api/health``), not merely its first page."""

    def start(self, timeout: float = 30.0) -> ClusterNode:
        deadline = time.monotonic() + timeout
        super().start(timeout)
        last = "no answer"
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"node :{self.port} exited: {tail(self.log)}")
            try:
                answer = httpx.get(self.base_url + HEALTH_PATH, timeout=1)
            except httpx.HTTPError as error:
                last = repr(error)
            else:
                if answer.status_code == 200:
                    if self.process is not None and answer.json().get("pid") != self.process.pid:
                        raise RuntimeError(f"node :{self.port}: another process answers there "
                                           f"({answer.text[:200]})")
                    return self
                last = f"{answer.status_code} {answer.text[:200]}"
                if answer.status_code != 503:  # not "busy starting" but a bug: say it now
                    break
            time.sleep(0.1)
        raise RuntimeError(f"node :{self.port} did not answer {HEALTH_PATH} with 200 "
                           f"(last: {last}): {tail(self.log)}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def haproxy_config(port: int, backends: list[int]) -> str:
    """HAProxy in the foreground, round robin over ``backends`` (ports of 127.0.0.1)."""
    servers = "\n".join(f"    server node{i} 127.0.0.1:{p}" for i, p in enumerate(backends))
    return f"""\
global
    log stdout format raw local0 info
    maxconn 4096
    # A reload or stop does not wait an hour for the last WebSocket tunnel.
    hard-stop-after 5s

defaults
    mode http
    log global
    option httplog
    option dontlognull
    option forwardfor
    # Every retry to another process (the default is the last one only): a connection
    # refused by a process that just died goes elsewhere at once, not after 1 s turns.
    option redispatch 1
    retries 3
    timeout connect 2s
    # As in production (deploy/haproxy.cfg): a process starved of CPU answers its check
    # late, not never (seen 2 s late on a loaded machine, when every process was then
    # marked down and the proxy answered 503); a dead one refuses it at once.
    timeout check 5s
    timeout client 30s
    timeout server 30s
    timeout tunnel 1h
    timeout client-fin 5s
    timeout http-request 10s

frontend cardtable
    bind 127.0.0.1:{port}
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk
    http-check send meth GET uri {HEALTH_PATH} ver HTTP/1.1 hdr Host localhost
    http-check expect status 200
    default-server check inter 200ms fastinter 100ms downinter 200ms rise 1 fall 3
    http-response set-header {BACKEND_HEADER} %si:%sp
{servers}
"""


def nginx_config(port: int, backends: list[int], directory: Path) -> str:
    """nginx in the foreground with every file it writes in ``directory``; round robin
    over ``backends`` (nginx's open-source edition checks backends only passively)."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=1s;"
                        for p in backends)
    temp = "\n".join(f"    {kind}_temp_path {directory}/{kind}_temp;"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""\
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log info;

events {{
    worker_connections 1024;
}}

http {{
    access_log {directory}/nginx-access.log;
{temp}

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      '';
    }}

    upstream nodes {{
{servers}
        keepalive 16;
    }}

    server {{
        listen 127.0.0.1:{port};

        location / {{
            proxy_pass http://nodes;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 3;
            add_header {BACKEND_HEADER} $upstream_addr always;
        }}
    }}
}}
"""


class Proxy:
    """HAProxy or nginx in the foreground, configured by :func:`haproxy_config` or
    :func:`nginx_config`, its output in ``directory/proxy.log``."""

    def __init__(self, kind: str, directory: Path, backends: list[int]):
        binary = proxy_binary(kind)
        if binary is None:
            raise RuntimeError(f"{kind} is not installed")
        self.kind = kind
        self.directory = directory
        self.port = free_port()
        self.log = directory / "proxy.log"
        self.config = directory / ("haproxy.cfg" if kind == "haproxy" else "nginx.conf")
        directory.mkdir(parents=True, exist_ok=True)
        if kind == "haproxy":
            self.config.write_text(haproxy_config(self.port, backends))
            self.command = [binary, "-db", "-f", str(self.config)]
        else:
            self.config.write_text(nginx_config(self.port, backends, directory))
            # -e: nginx writes to its compiled-in error log before it reads the config.
            self.command = [binary, "-p", str(directory), "-e", str(directory / "nginx-error.log"),
                            "-c", str(self.config)]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 15.0) -> Proxy:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.kind} exited: {self.output()}")
            try:
                answer = httpx.get(f"http://127.0.0.1:{self.port}{HEALTH_PATH}", timeout=1)
                if answer.status_code == 200:
                    return self
                last = f"{answer.status_code} {answer.text[:200]}"
            except httpx.HTTPError as error:
                last = repr(error)
            time.sleep(0.1)
        raise RuntimeError(f"{self.kind} never answered {HEALTH_PATH} with 200 (last: {last}): "
                           f"{self.output()}")

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # both stop at once on SIGTERM (no waiting for tunnels)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def output(self) -> str:
        text = tail(self.log)
        error_log = self.directory / "nginx-error.log"
        if self.kind == "nginx" and error_log.exists():
            text += "\n--- nginx-error.log ---\n" + tail(error_log)
        return text


class Cluster:
    """``processes`` card room processes on PostgreSQL and Redis behind ``proxy``.

    ``env`` adds to (or overrides) every process's environment: the harness sets
    ``CARDTABLE_BOT_DELAY=0`` (as :class:`ServerProcess` does), ``REDIS_URL``,
    ``DATABASE_URL``, a unique ``CARDTABLE_REDIS_PREFIX`` and
    ``CARDTABLE_LEASE_TTL`` (``lease_ttl``, 2 s), and lifts the room-code rate limit and
    the new-table limit (every test client comes from 127.0.0.1). Use it as a context
    manager, or call :meth:`start` and :meth:`close`.
    """

    def __init__(self, tmp_dir: Path, processes: int = 3, proxy: str = "haproxy", *,
                 env: dict[str, str] | None = None, lease_ttl: float = 2.0,
                 redis_url: str | None = None):
        if processes < 1:
            raise ValueError("a cluster needs at least one process")
        if proxy not in PROXIES:
            raise ValueError(f"proxy must be one of {PROXIES}, not {proxy!r}")
        self.tmp_dir = tmp_dir
        self.processes = processes
        self.proxy_kind = proxy
        self.extra_env = dict(env or {})
        self.lease_ttl = lease_ttl
        self.redis_url = redis_url or shared_redis_url()
        self.redis_prefix = f"cardtable_test_{secrets.token_hex(6)}"
        self.database_name: str | None = None
        self.nodes: list[ClusterNode] = []
        self.proxy: Proxy | None = None
        self._cleanup = contextlib.ExitStack()

    # -- life ---------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> Cluster:
        """Make the database, start every process (in parallel: migrations take a lock),
        then the proxy; return once the proxy has routed a request to every process."""
        try:
            self._cleanup.callback(self._delete_redis_keys)
            self.database_name = run_async(lambda: create_pg_database("cardtable_cluster"))
            name = self.database_name
            self._cleanup.callback(lambda: run_async(lambda: drop_pg_database(name)))
            self.nodes = [self._node(i) for i in range(self.processes)]
            self._cleanup.callback(self._stop_nodes)
            with ThreadPoolExecutor(self.processes) as pool:
                for started in [pool.submit(node.start, timeout) for node in self.nodes]:
                    started.result()
            self.proxy = Proxy(self.proxy_kind, self.tmp_dir / "proxy",
                               [node.port for node in self.nodes])
            self._cleanup.callback(self.proxy.stop)
            self.proxy.start()
            self.wait_routed(range(self.processes))
        except BaseException:
            self.close()
            raise
        return self

    def _node(self, i: int) -> ClusterNode:
        assert self.database_name is not None
        env = {
            "REDIS_URL": self.redis_url,
            "CARDTABLE_REDIS_PREFIX": self.redis_prefix,
            "CARDTABLE_LEASE_TTL": str(self.lease_ttl),
            "CARDTABLE_JOIN_LIMIT": "100000",
            "CARDTABLE_CREATE_LIMIT": "100000",
            "CARDTABLE_SOCKET_LIMIT": "100000",
            **self.extra_env,
        }
        return ClusterNode(self.tmp_dir / f"node{i}", database_url=pg_url(self.database_name),
                           env=env)

    def close(self) -> None:
        """Stop the proxy and the processes this cluster started, delete its Redis keys,
        drop its database. Safe to call twice."""
        self._cleanup.close()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _stop_nodes(self) -> None:
        with ThreadPoolExecutor(max(1, len(self.nodes))) as pool:
            list(pool.map(lambda node: node.stop(), self.nodes))

    def _delete_redis_keys(self) -> None:
        client = redis.Redis.from_url(self.redis_url, socket_timeout=5)
        try:
            batch: list[bytes] = []
            # Any key naming our prefix, wherever the cluster code puts it ("{prefix}:..."
            # or a hash tag "{{prefix}}:..."); the random hex makes it ours alone.
            for key in client.scan_iter(match=f"*{self.redis_prefix}*", count=500):
                batch.append(key)
                if len(batch) >= 500:
                    client.delete(*batch)
                    batch.clear()
            if batch:
                client.delete(*batch)
        finally:
            client.close()

    # -- where things are ---------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._proxy().port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self._proxy().port}"

    def node_url(self, i: int) -> str:
        return self.nodes[i].base_url

    def node_ws(self, i: int) -> str:
        return self.nodes[i].ws_base

    @property
    def database_url(self) -> str:
        """The shared event log (a SQLAlchemy URL, for ``Store.open``)."""
        if self.database_name is None:
            raise RuntimeError("the cluster is not started")
        return pg_url(self.database_name)

    def backend_of(self, headers: Mapping[str, str]) -> int:
        """The index of the process that answered a response through the proxy (its
        ``X-Cardtable-Backend`` header), e.g. of an ``httpx`` response or a WebSocket
        handshake's ``response.headers``."""
        address = headers[BACKEND_HEADER]
        port = int(address.rsplit(":", 1)[1])
        return next(i for i, node in enumerate(self.nodes) if node.port == port)

    def _proxy(self) -> Proxy:
        if self.proxy is None:
            raise RuntimeError("the cluster is not started")
        return self.proxy

    # -- one process ----------------------------------------------------------------------

    def alive(self, i: int) -> bool:
        return self.nodes[i].alive()

    def health(self, i: int) -> dict[str, Any]:
        """Process ``i``'s ``/api/health`` JSON (also while it answers 503, draining)."""
        answer = httpx.get(self.node_url(i) + HEALTH_PATH, timeout=5)
        if answer.status_code not in (200, 503):
            answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body

    def kill(self, i: int) -> None:
        """``kill -9`` process ``i``: no drain, no goodbye to its sockets."""
        self.nodes[i].kill()

    def terminate(self, i: int, timeout: float = 30.0) -> int:
        """SIGTERM process ``i`` and wait until it has drained and exited; its exit code
        (0 or -SIGTERM after a clean stop: uvicorn re-raises the signal it caught). A
        process still running after ``timeout`` is killed and reported."""
        node = self.nodes[i]
        if node.process is None:
            raise RuntimeError(f"node {i} was never started")
        if node.alive():
            node.process.send_signal(signal.SIGTERM)
            try:
                node.process.wait(timeout)
            except subprocess.TimeoutExpired:
                node.kill()
                raise RuntimeError(f"node {i} did not exit within {timeout} s of SIGTERM "
                                   f"(killed): {tail(node.log)}") from None
        return node.process.returncode

    def restart(self, i: int, *, routed: bool = True, timeout: float = 30.0) -> None:
        """Start process ``i`` again on its port (``kill -9`` first if it still runs);
        with ``routed``, return once the proxy sends it requests again."""
        self.nodes[i].kill()
        self.nodes[i].start(timeout)
        if routed:
            self.wait_routed([i], timeout)

    def output(self, i: int) -> str:
        """Everything process ``i`` logged, over all its starts."""
        return self.nodes[i].output()

    def wait_routed(self, indexes: Iterable[int], timeout: float = 30.0) -> None:
        """Send requests through the proxy until each process in ``indexes`` has answered
        one (the proxy's health checks have found it up)."""
        waiting = set(indexes)
        deadline = time.monotonic() + timeout
        last = "no answer"
        with httpx.Client(timeout=2) as client:
            while waiting and time.monotonic() < deadline:
                try:
                    answer = client.get(self.base_url + HEALTH_PATH)
                    if answer.status_code == 200:
                        waiting.discard(self.backend_of(answer.headers))
                    last = f"{answer.status_code} {answer.text[:200]}"
                except (httpx.HTTPError, KeyError, StopIteration) as error:
                    last = repr(error)
                if waiting:
                    time.sleep(0.05)
        if waiting:
            raise RuntimeError(f"the {self.proxy_kind} proxy never routed to nodes "
                               f"{sorted(waiting)} (last: {last}): {self._proxy().output()}")



class RedisServer:
    """A ``redis-server`` of a test's own on a free port (nothing kept on disk), to stop
    and start again at will (``start``/``stop``): what a shared Redis must not be used for.
    """

    def __init__(self, directory: Path):
        binary = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/bin")
        if binary is None:
            raise FileNotFoundError("redis-server is not installed")
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.directory)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with redis.Redis(port=self.port, socket_timeout=1) as client:
                    client.ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        """Kill it (as a crash would): its data is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.wait()


async def assert_logged_once(database_url: str, conn: Any, table_id: str, game: str,
                             acked: list[str]) -> None:
    """Every act of seat 0 that ``conn`` saw acknowledged (``acked``: their ids) is in the
    table's log exactly once, none of its acts is there unacknowledged, and the seat's
    view is the log's replay (``conn``: a ``cardtable.client.Connection``)."""
    # Quiet first: the computers have moved until it is this seat's turn (or it is over).
    await conn.wait_for(lambda c: c.my_turn or c.view.get("phase") == "match_over",
                        timeout=60)
    frame = await conn.sync(timeout=60)
    store = await Store.open(database_url)
    try:
        record = await store.get_table(table_id)
        events = await store.load_events(table_id)
    finally:
        await store.close()
    assert record is not None
    ours = [e.cmd_id for e in events if e.seat == 0 and e.cmd_id is not None]
    assert len(ours) == len(set(ours)), f"{game}: an action logged twice"
    assert sorted(ours) == sorted(acked), (
        f"{game}: lost {set(acked) - set(ours)}, unacknowledged {set(ours) - set(acked)}")
    assert frame.v == events[-1].version
    assert frame.d["view"] == rebuild(record, events).state.view(0)
