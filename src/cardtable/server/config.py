"""The server's configuration: command-line flags and environment variables, with safe
defaults, read once at start (:meth:`ServerConfig.from_env`) and passed down.

Extra games (a plug-in, a test's toy game) are modules that register their game on
import (``DESCRIPTOR = register(Descriptor(...))``); ``CARDTABLE_GAME_MODULES`` names
them and :func:`load_game_modules` imports them, here and not in the engine, which does
no I/O.

>>> config = ServerConfig.from_env(environ={"CARDTABLE_FRAME_RATE": "5",
...                                         "CARDTABLE_GAME_MODULES": " my.game, other "})
>>> config.frame_rate, config.frame_burst, config.game_modules
(5.0, 10, ('my.game', 'other'))
>>> ServerConfig.from_env(environ={"CARDTABLE_BOT_DELAY": "soon"})
Traceback (most recent call last):
...
ValueError: CARDTABLE_BOT_DELAY must be a number, not 'soon'
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import Descriptor, register
from . import gc_tuning
from .logs import LogSettings
from .security import trusted_networks

GAME_MODULES_VARIABLE = "CARDTABLE_GAME_MODULES"
METRICS_MODES = ("off", "on", "open")


def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cardtable"


def _number(environ: Mapping[str, str], name: str, default: float) -> float:
    value = environ.get(name)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {value!r}") from None


def _positive(environ: Mapping[str, str], name: str, default: float) -> float:
    value = _number(environ, name, default)
    if not value > 0:
        raise ValueError(f"{name} must be a number of seconds above 0, not {value!r}")
    return value


def _whole(environ: Mapping[str, str], name: str, default: int) -> int:
    value = environ.get(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclass(frozen=True)
class ServerConfig:
    """Everything the server needs to know; ``from_env`` reads the variables below.

    =========================  ==============================================  =========
    variable                   meaning                                         default
    =========================  ==============================================  =========
    DATABASE_URL               PostgreSQL (postgresql+asyncpg://...)           SQLite
    CARDTABLE_BOT_DELAY        seconds a computer player waits before moving   0.8
    CARDTABLE_ALLOWED_ORIGINS  extra WebSocket Origins, comma-separated        none
    CARDTABLE_FRAME_RATE       frames a second per connection (burst x2)       20
    CARDTABLE_JOIN_LIMIT       room-code lookups and joins per address/minute  30
    CARDTABLE_CREATE_LIMIT     new tables per address/minute                   10
    CARDTABLE_TRUSTED_PROXIES  proxies (IPs, CIDRs) whose X-Forwarded-For is   none
                               believed; comma-separated
    CARDTABLE_MAX_SPECTATORS   spectators a table takes at once                200
    CARDTABLE_SEAT_GRACE       seconds a dropped person's seat is held         120
    CARDTABLE_TIME_SCALE       multiplies turn times (tests, demos)            1
    CARDTABLE_EVICT_IDLE       seconds a table nobody is connected to stays    600
                               in memory (0: for ever)
    CARDTABLE_EVICT_FINISHED   the same once its match is over (0: for ever)   60
    CARDTABLE_GAME_MODULES     modules to import at start, each registering    none
                               a game; comma-separated
    CARDTABLE_GC               the garbage collector (server/gc_tuning.py)     tuned
    CARDTABLE_GC_STATS         a file for the collector's pause figures        none
    REDIS_URL                  Redis (redis://host:6379/0): many processes,    none
                               one card room (needs DATABASE_URL: PostgreSQL)
    CARDTABLE_REDIS_PREFIX     the namespace of every Redis key and channel    cardtable
    CARDTABLE_LEASE_TTL        seconds a table's owner lease lasts unrenewed   3
    CARDTABLE_NODE_ID          this process's name in the cluster              random
    CARDTABLE_EXPERT_BUDGET    seconds an expert computer thinks per move      0.5
                               at most (CPU time, in a thread of its own)
    CARDTABLE_HASH_WORKERS     passwords hashed or judged at once, each in a   2
                               worker thread (server/accounts.py)
    CARDTABLE_HELLO_TIMEOUT    seconds a table or lobby socket has to say      10
                               hello before it is closed (4008)
    CARDTABLE_SOCKET_LIMIT     WebSockets open at once per address, in each    64
                               process (one more: closed with 1008)
    CARDTABLE_HEADER_TIMEOUT   seconds an HTTP connection may stay silent, or  5
                               take to send a request's head, then its body
    CARDTABLE_MAX_BODY         bytes of a request body (more: 413)             65536
    CARDTABLE_LOG_FORMAT       the log's lines: text or json (server/logs.py)  text
    CARDTABLE_LOG_LEVEL        DEBUG, INFO, WARNING or ERROR                   INFO
    CARDTABLE_LOG_REPEATS      seconds a repeated line is counted, not         60
                               written (0: every line)
    CARDTABLE_METRICS          /metrics (Prometheus text): off, on             off
                               (loopback only) or open (server/metrics.py)
    CARDTABLE_METRICS_TOKEN    a bearer token /metrics asks of anyone          none
    =========================  ==============================================  =========
    """

    data_dir: Path = field(default_factory=default_data_dir)
    database_url: str | None = None
    bot_delay: float = 0.8
    allowed_origins: tuple[str, ...] = ()
    frame_rate: float = 20.0
    frame_burst: int = 40
    join_limit: int = 30
    join_window: float = 60.0
    create_limit: int = 10
    create_window: float = 60.0
    max_frame_bytes: int = 4096
    seat_grace: float = 120.0
    time_scale: float = 1.0
    trusted_proxies: tuple[str, ...] = ()  # checked by security.trusted_networks
    max_spectators: int = 200
    evict_idle: float = 600.0  # see server/table/eviction.py
    evict_finished: float = 60.0
    game_modules: tuple[str, ...] = ()  # imported by create_app: see load_game_modules
    gc_freeze: bool = True  # see server/gc_tuning.py
    gc_thresholds: tuple[int, int, int] | None = gc_tuning.THRESHOLDS
    gc_stats: Path | None = None
    redis_url: str | None = None  # see cardtable/cluster
    redis_prefix: str = "cardtable"
    lease_ttl: float = 3.0
    node_id: str | None = None
    expert_budget: float = 0.5  # see bots/levels.py EXPERT_BUDGET
    hash_workers: int = 2  # see server/accounts.py PasswordWork
    # Bounded clients (docs/server.md): request_guards.py, http_protocol.py, the sockets.
    hello_timeout: float = 10.0
    socket_limit: int = 64
    header_timeout: int = 5  # whole seconds: it is uvicorn's timeout_keep_alive too
    max_body_bytes: int = 64 * 1024
    log: LogSettings = field(default_factory=LogSettings)
    metrics: str = "off"  # off, on (loopback or token), open: see routes/metrics.py
    metrics_token: str | None = None

    @classmethod
    def from_env(cls, data_dir: Path | None = None, *, game_modules: Iterable[str] = (),
                 environ: Mapping[str, str] | None = None) -> ServerConfig:
        """The configuration the environment asks for (``environ``: ``os.environ``), with
        ``data_dir`` and ``game_modules`` from the command line; ``ValueError`` naming the
        variable that holds a bad value."""
        env = os.environ if environ is None else environ
        rate = _number(env, "CARDTABLE_FRAME_RATE", 20.0)
        database = env.get("DATABASE_URL", "").strip()
        gc_freeze, gc_thresholds = gc_tuning.parse_mode(env.get("CARDTABLE_GC"))
        stats = env.get("CARDTABLE_GC_STATS")
        redis = env.get("REDIS_URL", "").strip()
        if redis and not database.startswith("postgres"):
            raise ValueError("REDIS_URL needs DATABASE_URL on PostgreSQL: the processes of "
                             "one card room share its event log")
        header_timeout = _whole(env, "CARDTABLE_HEADER_TIMEOUT", 5)
        if header_timeout < 1:
            raise ValueError("CARDTABLE_HEADER_TIMEOUT must be a whole number of seconds, "
                             "at least 1")
        if _number(env, "CARDTABLE_LEASE_TTL", 3.0) <= 0:
            raise ValueError("CARDTABLE_LEASE_TTL must be a number of seconds above 0")
        metrics = env.get("CARDTABLE_METRICS", "").strip().lower() or "off"
        if metrics not in METRICS_MODES:
            raise ValueError(f"CARDTABLE_METRICS must be one of {', '.join(METRICS_MODES)}, "
                             f"not {metrics!r}")
        if _whole(env, "CARDTABLE_HASH_WORKERS", 2) < 1:
            raise ValueError("CARDTABLE_HASH_WORKERS must be a whole number above 0")
        return cls(
            data_dir=data_dir or default_data_dir(env),
            database_url=database or None,
            bot_delay=_number(env, "CARDTABLE_BOT_DELAY", 0.8),
            expert_budget=_number(env, "CARDTABLE_EXPERT_BUDGET", 0.5),
            hash_workers=_whole(env, "CARDTABLE_HASH_WORKERS", 2),
            allowed_origins=_names(env.get("CARDTABLE_ALLOWED_ORIGINS", "")),
            frame_rate=rate,
            frame_burst=max(1, int(rate * 2)),
            join_limit=_whole(env, "CARDTABLE_JOIN_LIMIT", 30),
            create_limit=_whole(env, "CARDTABLE_CREATE_LIMIT", 10),
            seat_grace=_number(env, "CARDTABLE_SEAT_GRACE", 120.0),
            time_scale=_number(env, "CARDTABLE_TIME_SCALE", 1.0),
            trusted_proxies=tuple(str(n) for n in trusted_networks(
                env.get("CARDTABLE_TRUSTED_PROXIES", "").split(","))),
            max_spectators=_whole(env, "CARDTABLE_MAX_SPECTATORS", 200),
            evict_idle=_number(env, "CARDTABLE_EVICT_IDLE", 600.0),
            evict_finished=_number(env, "CARDTABLE_EVICT_FINISHED", 60.0),
            game_modules=game_modules_from_env(env) + tuple(game_modules),
            gc_freeze=gc_freeze,
            gc_thresholds=gc_thresholds,
            gc_stats=Path(stats) if stats else None,
            redis_url=redis or None,
            redis_prefix=env.get("CARDTABLE_REDIS_PREFIX", "").strip() or "cardtable",
            lease_ttl=_number(env, "CARDTABLE_LEASE_TTL", 3.0),
            node_id=env.get("CARDTABLE_NODE_ID", "").strip() or None,
            hello_timeout=_positive(env, "CARDTABLE_HELLO_TIMEOUT", 10.0),
            socket_limit=_whole(env, "CARDTABLE_SOCKET_LIMIT", 64),
            header_timeout=header_timeout,
            max_body_bytes=_whole(env, "CARDTABLE_MAX_BODY", 64 * 1024),
            log=LogSettings.from_env(env),
            metrics=metrics,
            metrics_token=env.get("CARDTABLE_METRICS_TOKEN", "").strip() or None,
        )

    def store_url(self) -> str:
        """The database: ``DATABASE_URL`` given its async driver, else the SQLite file in
        ``data_dir`` (created)."""
        # Imported here: the store loads SQLAlchemy, and the cli reads this module for
        # commands that never open a database.
        from ..store import normalize_url, sqlite_url

        return normalize_url(self.database_url) if self.database_url else sqlite_url(
            self.data_dir)




def game_modules_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The modules ``CARDTABLE_GAME_MODULES`` names (comma-separated)."""
    env = os.environ if environ is None else environ
    return _names(env.get(GAME_MODULES_VARIABLE, ""))


def load_game_modules(modules: Iterable[str]) -> list[str]:
    """Import each module, so that the game it registers is known; a ``DESCRIPTOR`` it
    defines but did not register is registered here, like a built-in game's.  Returns the
    names of the games the modules define.  ``ValueError`` saying which module failed."""
    names = []
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise ValueError(f"{GAME_MODULES_VARIABLE}: cannot import {module_name!r}: "
                             f"{error}") from None
        descriptor = getattr(module, "DESCRIPTOR", None)
        if isinstance(descriptor, Descriptor):
            names.append(register(descriptor).name)
    return names
