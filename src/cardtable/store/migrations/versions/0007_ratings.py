"""Ratings per player and game (openskill), and each rated match's effect on them.

``ratings.display`` is mu - 3 sigma, kept beside mu and sigma so that a game's leaderboard
is one index scan (``ix_ratings_board``), and a player's rank is counted from the index
alone (it holds ``matches`` too: only the established are ranked; bench/players.py).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_ratings_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", "game", name="pk_ratings"),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "display", "matches"])
    op.create_table(
        "rating_history",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("match_id", sa.String(length=96), nullable=False),
        sa.Column("display", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_rating_history_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", "game", "match_id", name="pk_rating_history"),
    )
    op.create_index("ix_rating_history_player", "rating_history", ["player_id", "game", "at"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_player", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
