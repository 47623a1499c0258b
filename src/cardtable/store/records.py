"""What the store keeps: plain dataclasses for tables, seats and log events, and its errors.

The server builds and reads these; only ``cardtable.store`` turns them into rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass
class SeatRecord:
    """One seat of a table."""

    seat: int
    name: str | None  # None while the seat is free
    kind: str  # "human" or "bot"
    token_hash: str | None  # sha256 hex of the seat token; None for bots and free seats
    # The lasting identity of the person seated (store/players.py); None for computers,
    # free seats and seats taken before identities existed.
    player_id: str | None = None
    # At a rated table: a keyed hash of the address he sat down from (one player per
    # address), and, once he left for good, the version he left at and the name he had
    # (the computer in his seat finishes the match; he loses it).
    address: str | None = None
    left: int | None = None
    was: str | None = None
    # He sat down signed in to an account: ``name`` is its username, shown with a mark.
    registered: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "name": self.name, "kind": self.kind,
                                "token_hash": self.token_hash}
        for key in ("player_id", "address", "left", "was"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.registered:
            data["registered"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatRecord:
        return cls(seat=int(data["seat"]), name=data.get("name"), kind=str(data["kind"]),
                   token_hash=data.get("token_hash"), player_id=data.get("player_id"),
                   address=data.get("address"), left=data.get("left"), was=data.get("was"),
                   registered=bool(data.get("registered")))


@dataclass
class TableRecord:
    """A table as created (version 0): everything needed to rebuild it with its event log."""

    table_id: str  # e.g. "t_8mQ2xK1v" (primary key)
    code: str  # 6-char room code, unique, stored upper-case
    game: str  # "gin"
    options: dict[str, Any]  # the engine Options.to_dict()
    players: int
    seats: list[SeatRecord]
    private: bool
    status: str  # "waiting" | "playing" | "over"
    start_chance: list[Any]  # chance outcomes the match start consumed (new_match)
    # TableSettings as JSON (turn_time, private, spectators, spectator_chat, levels): what the
    # host chose; the server fills in defaults. {} on tables made before settings existed.
    settings: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None  # set by the store when None (timezone-aware UTC)
    # Chat mutes per seat ({"1": [0]}: seat 1's person does not read seat 0): they belong to
    # the person holding the seat, so they outlive restarts. {} on older rows.
    mutes: dict[str, list[int]] = field(default_factory=dict)
    # What a table evicted from memory knew beyond its log (server/table/eviction.py);
    # None until the table is first evicted.
    runtime: dict[str, Any] | None = None
    # The table's secret for provably fair deals (64 hex digits; server/table/fairness.py):
    # every shuffle's salt derives from it. None on tables made before it existed.
    fair_key: str | None = None


@dataclass
class ChatRecord:
    """One kept chat message of a table; ``seq`` is its id on the wire, 1, 2, 3 ... per table."""

    seq: int
    channel: str  # "players" | "spectators"
    sender: str  # "seat:1", "spectator:7": whose rate limit and repeat check it counts for
    seat: int | None
    name: str
    text: str
    created_at: datetime  # timezone-aware UTC


@dataclass
class EventRecord:
    """One entry of a table's event log; versions are 1, 2, 3 ... per table."""

    version: int
    kind: str  # "action" | "rematch"
    seat: int | None
    cmd_id: str | None  # the client's command id, for idempotent retries; None for bots
    payload: dict[str, Any]  # the action JSON, or {} for a rematch
    chance: list[Any]  # chance outcomes this event produced (deck orders), server-only
    created_at: datetime | None = None  # set by the store when None (timezone-aware UTC)


class StoreError(Exception):
    """Base class of the store's own errors."""


class VersionConflict(StoreError):
    """append_event with a version that is not exactly the table's next one."""

    def __init__(self, message: str, expected: int | None = None) -> None:
        super().__init__(message)
        self.expected = expected  # the version that would have been accepted, when known


class DuplicateCommand(StoreError):
    """append_event with a (table_id, seat, cmd_id) that is already in the log."""

    def __init__(self, message: str, version: int | None = None) -> None:
        super().__init__(message)
        self.version = version  # the version the earlier command was logged at, when known


class CodeTaken(StoreError):
    """create_table with a room code already in use."""


class TableExists(StoreError):
    """create_table with a table_id already in use."""


class UnknownTable(StoreError, LookupError):
    """append_event or update_table on a table_id the store does not have."""


class Fenced(StoreError):
    """A write carrying an older fencing token than the table's: the writer no longer owns
    the table (another process took its lease over) and must stop writing it."""

    def __init__(self, message: str, table_ids: frozenset[str] = frozenset()):
        super().__init__(message)
        self.table_ids = table_ids
