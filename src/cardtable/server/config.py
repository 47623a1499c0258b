"""Server settings: command-line flags and environment variables, with safe defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .security import trusted_networks


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cardtable"


def _float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def _int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


@dataclass(frozen=True)
class Settings:
    """Everything the server needs to know; ``from_env`` reads ``CARDTABLE_*`` variables.

    =========================  ==============================================  =========
    variable                   meaning                                         default
    =========================  ==============================================  =========
    DATABASE_URL               PostgreSQL (postgresql+asyncpg://...)           SQLite
    CARDTABLE_BOT_DELAY        seconds a computer player waits before moving   0.8
    CARDTABLE_ALLOWED_ORIGINS  extra WebSocket Origins, comma-separated        none
    CARDTABLE_FRAME_RATE       frames a second per connection (burst x2)       20
    CARDTABLE_JOIN_LIMIT       room-code lookups and joins per address/minute  30
    CARDTABLE_TRUSTED_PROXIES  proxies (IPs, CIDRs) whose X-Forwarded-For is   none
                               believed; comma-separated
    CARDTABLE_MAX_SPECTATORS   spectators a table takes at once                200
    CARDTABLE_SEAT_GRACE       seconds a dropped person's seat is held         120
    CARDTABLE_TIME_SCALE       multiplies turn times (tests, demos)            1
    CARDTABLE_EVICT_IDLE       seconds a table nobody is connected to stays    600
                               in memory (0: for ever)
    CARDTABLE_EVICT_FINISHED   the same once its match is over (0: for ever)   60
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
    max_frame_bytes: int = 4096
    seat_grace: float = 120.0
    time_scale: float = 1.0
    trusted_proxies: tuple[str, ...] = ()  # checked by security.trusted_networks
    max_spectators: int = 200
    evict_idle: float = 600.0  # see server/table_eviction.py
    evict_finished: float = 60.0

    @classmethod
    def from_env(cls, data_dir: Path | None = None) -> Settings:
        rate = _float("CARDTABLE_FRAME_RATE", 20.0)
        origins = os.environ.get("CARDTABLE_ALLOWED_ORIGINS", "")
        return cls(
            data_dir=data_dir or default_data_dir(),
            database_url=os.environ.get("DATABASE_URL") or None,
            bot_delay=_float("CARDTABLE_BOT_DELAY", 0.8),
            allowed_origins=tuple(o.strip() for o in origins.split(",") if o.strip()),
            frame_rate=rate,
            frame_burst=max(1, int(rate * 2)),
            join_limit=_int("CARDTABLE_JOIN_LIMIT", 30),
            seat_grace=_float("CARDTABLE_SEAT_GRACE", 120.0),
            time_scale=_float("CARDTABLE_TIME_SCALE", 1.0),
            trusted_proxies=tuple(str(n) for n in trusted_networks(
                os.environ.get("CARDTABLE_TRUSTED_PROXIES", "").split(","))),
            max_spectators=_int("CARDTABLE_MAX_SPECTATORS", 200),
            evict_idle=_float("CARDTABLE_EVICT_IDLE", 600.0),
            evict_finished=_float("CARDTABLE_EVICT_FINISHED", 60.0),
        )
