"""Players (a lasting guest identity held by a cookie, an account once registered), their
sessions, and the matches they finished.

``sessions.token_hash`` is the SHA-256 of a cookie's secret (the cookie alone proves who
a browser is; a copy of the database does not); an account may have several.
``match_seats`` repeats the match's game and end time so that a player's recent matches
and per-game counts are index scans.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("username", sa.String(length=32), nullable=True),
        sa.Column("username_key", sa.String(length=32), nullable=True),
        sa.Column("password_hash", sa.String(length=256), nullable=True),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("player_id", name="pk_players"),
        sa.UniqueConstraint("username_key", name="uq_players_username_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_sessions_player_id_players"),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    op.create_table(
        "matches",
        sa.Column("match_id", sa.String(length=96), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("ended", sa.String(length=16), nullable=True),
        sa.Column("rated", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("match_id", name="pk_matches"),
    )
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(length=96), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("agreed", sa.Boolean(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.match_id"], ondelete="CASCADE",
                                name="fk_match_seats_match_id_matches"),
        sa.ForeignKeyConstraint(["player_id"], ["players.player_id"], ondelete="SET NULL",
                                name="fk_match_seats_player_id_players"),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_match_seats"),
    )
    op.create_index("ix_match_seats_player_recent", "match_seats", ["player_id", "ended_at"])
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("sums", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_player_stats_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", "game", name="pk_player_stats"),
    )
    op.create_index("ix_match_seats_player_game", "match_seats",
                    ["player_id", "game", "agreed", "won"])


def downgrade() -> None:
    op.drop_table("player_stats")
    op.drop_index("ix_match_seats_player_game", table_name="match_seats")
    op.drop_index("ix_match_seats_player_recent", table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_table("matches")
    op.drop_index("ix_sessions_player_id", table_name="sessions")
    op.drop_table("sessions")
    op.drop_table("players")
