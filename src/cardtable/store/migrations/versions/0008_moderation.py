"""Moderation: who blocks whom (``blocks``) and reports for the operator (``reports``).

A block is one row per (blocker, blocked) pair; either player deleted, it goes. A report
keeps its reporter as NULL when he deletes himself, and goes with the reported player.
``ix_reports_created_at`` lets the operator read the newest reports first;
``ix_reports_reporter`` counts a reporter's latest reports (the rate limit).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.String(length=32), nullable=False),
        sa.Column("blocked_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["blocker_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_blocks_blocker_id_players"),
        sa.ForeignKeyConstraint(["blocked_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_blocks_blocked_id_players"),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name="pk_blocks"),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "reports",
        sa.Column("report_id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reporter_id", sa.String(length=32), nullable=True),
        sa.Column("reported_id", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("table_code", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["reporter_id"], ["players.player_id"], ondelete="SET NULL",
                                name="fk_reports_reporter_id_players"),
        sa.ForeignKeyConstraint(["reported_id"], ["players.player_id"], ondelete="CASCADE",
                                name="fk_reports_reported_id_players"),
        sa.PrimaryKeyConstraint("report_id", name="pk_reports"),
    )
    op.create_index("ix_reports_created_at", "reports", ["created_at"])
    op.create_index("ix_reports_reported", "reports", ["reported_id", "created_at"])
    op.create_index("ix_reports_reporter", "reports", ["reporter_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_reports_reporter", table_name="reports")
    op.drop_index("ix_reports_reported", table_name="reports")
    op.drop_index("ix_reports_created_at", table_name="reports")
    op.drop_table("reports")
    op.drop_index("ix_blocks_blocked_id", table_name="blocks")
    op.drop_table("blocks")
