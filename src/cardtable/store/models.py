"""The database schema as SQLAlchemy Core tables (the current head of the migrations).

Migrations in ``migrations/versions`` are self-contained and do not import this module;
when this schema changes, add a migration (see ``cardtable.store.migrate``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always timezone-aware UTC in Python, on SQLite and PostgreSQL alike.

    SQLite has no time zones: the value is stored as naive UTC and marked UTC when read.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the store keeps aware UTC timestamps")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


card_tables = Table(
    "card_tables",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("code", String(16), nullable=False, unique=True),
    Column("game", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("players", Integer, nullable=False),
    Column("seats", JSON, nullable=False),
    Column("private", Boolean, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("start_chance", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("settings", JSON, nullable=False, server_default="{}"),
    Column("mutes", JSON, nullable=False, server_default="{}"),
    Column("runtime", JSON, nullable=True),
    # The fencing token of the owner that may append (0: no cluster; migration 0004).
    Column("fence", BigInteger, nullable=False, server_default="0"),
    # The secret the salts of provably fair deals derive from (migration 0005).
    Column("fair_key", String(64), nullable=True),
)

table_events = Table(
    "table_events",
    metadata,
    Column("table_id", String(64), ForeignKey("card_tables.table_id", ondelete="CASCADE"),
           primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("cmd_id", String, nullable=True),
    Column("payload", JSON, nullable=False),
    Column("chance", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("table_id", "seat", "cmd_id", name="uq_table_events_cmd"),
    CheckConstraint("version >= 1", name="version_positive"),
)

chat_messages = Table(
    "chat_messages",
    metadata,
    Column("table_id", String(64), ForeignKey("card_tables.table_id", ondelete="CASCADE"),
           primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("channel", String(16), nullable=False),
    Column("sender", String(64), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("name", String, nullable=False),
    Column("text", String, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_chat_messages_channel", "table_id", "channel", "seq"),
)

# -- players and their matches (migration 0006) -------------------------------------------

players = Table(
    "players",
    metadata,
    Column("player_id", String(32), primary_key=True),  # public: in profile addresses
    Column("name", String(64), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("seen_at", UTCDateTime, nullable=False),
    # An account, once the guest registers (server/accounts.py); NULL for guests.
    Column("username", String(32), nullable=True),
    Column("username_key", String(32), nullable=True, unique=True),  # casefolded
    # Its confusable keys (cardtable/names.py): no other account, and no guest's seat
    # name, may have one of them. The key is unique; the look (capital I as l) is not.
    Column("username_skeleton", String(128), nullable=True, unique=True, index=True),
    Column("username_look", String(128), nullable=True, index=True),
    Column("password_hash", String(256), nullable=True),  # argon2id
    Column("registered_at", UTCDateTime, nullable=True),
)

sessions = Table(
    "sessions",
    metadata,
    # The SHA-256 of the cookie's secret: the cookie alone signs a browser in.
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("seen_at", UTCDateTime, nullable=False),  # unused for SESSION_DAYS: expired
)

matches = Table(
    "matches",
    metadata,
    # "<table_id>:<version that started the match>": a table's matches, each recorded once.
    Column("match_id", String(96), primary_key=True),
    Column("table_id", String(64), nullable=False),
    Column("code", String(16), nullable=False),
    Column("game", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("options", JSON, nullable=False),
    Column("ended", String(16), nullable=True),  # "agreed": ended by agreement, unscored
    Column("rated", Boolean, nullable=False, server_default="0"),  # it moved ratings
    Column("result", JSON, nullable=True),  # the engine's result (None when agreed)
    Column("ended_at", UTCDateTime, nullable=False),
)

match_seats = Table(
    "match_seats",
    metadata,
    Column("match_id", String(96), ForeignKey("matches.match_id", ondelete="CASCADE"),
           primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="SET NULL"),
           nullable=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # "human" | "bot"
    Column("score", Integer, nullable=True),
    Column("won", Boolean, nullable=False),
    Column("stats", JSON, nullable=True),  # the game's own figures of his match (stats.py)
    # Copied from the match, so a player's recent matches are one index range scan.
    Column("game", String(32), nullable=False),
    Column("ended_at", UTCDateTime, nullable=False),
    Index("ix_match_seats_player_recent", "player_id", "ended_at"),
    # Copied from the match too: counts leave out matches ended by agreement, join-free.
    Column("agreed", Boolean, nullable=False, server_default="0"),
    Index("ix_match_seats_player_game", "player_id", "game", "agreed", "won"),
)

player_stats = Table(
    "player_stats",
    metadata,
    # Each game's figures of a player (engine/stats.py), summed over his finished matches.
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("sums", JSON, nullable=False),
)

# -- ratings (migration 0007) -------------------------------------------------------------

ratings = Table(
    "ratings",
    metadata,
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("display", Float, nullable=False),  # mu - 3 sigma: what players see
    Column("matches", Integer, nullable=False),  # rated matches played
    Column("updated_at", UTCDateTime, nullable=False),
    # The leaderboard: a game's established players, best first.
    # With matches: a rank counts the established above him from the index alone.
    Index("ix_ratings_board", "game", "display", "matches"),
)

rating_history = Table(
    "rating_history",
    metadata,
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("match_id", String(96), primary_key=True),
    Column("display", Float, nullable=False),
    Column("at", UTCDateTime, nullable=False),
    Index("ix_rating_history_player", "player_id", "game", "at"),
)

# -- moderation (migration 0008) ----------------------------------------------------------

blocks = Table(
    "blocks",
    metadata,
    # He (the blocker) sees nothing the blocked player says, and the blocked player cannot
    # sit at a private table he hosts. Either one deleted: the block goes with him.
    Column("blocker_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("blocked_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_blocks_blocked_id", "blocked_id"),  # a deleted player's blocks, found fast
)

reports = Table(
    "reports",
    metadata,
    Column("report_id", Integer, primary_key=True, autoincrement=True),
    # A reporter who deletes himself leaves his reports (the operator may still act on
    # them); the reported player deleted takes them with him (nobody is left to act on).
    Column("reporter_id", String(32), ForeignKey("players.player_id", ondelete="SET NULL"),
           nullable=True),
    Column("reported_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           nullable=False),
    Column("reason", String(500), nullable=False),  # plain text, as typed (cleaned)
    Column("table_code", String(16), nullable=True),  # where it happened, if said
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_reports_created_at", "created_at"),  # the operator reads the newest first
    Index("ix_reports_reported", "reported_id", "created_at"),  # reports about one player
    Index("ix_reports_reporter", "reporter_id", "created_at"),  # the rate limit's count
)
