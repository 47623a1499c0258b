"""Tables and their event logs.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "card_tables",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("start_chance", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_card_tables"),
        sa.UniqueConstraint("code", name="uq_card_tables_code"),
    )
    op.create_index("ix_card_tables_status", "card_tables", ["status"])
    op.create_table(
        "table_events",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("cmd_id", sa.String(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("chance", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("version >= 1", name="ck_table_events_version_positive"),
        sa.ForeignKeyConstraint(["table_id"], ["card_tables.table_id"],
                                name="fk_table_events_table_id_card_tables",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("table_id", "version", name="pk_table_events"),
        sa.UniqueConstraint("table_id", "seat", "cmd_id", name="uq_table_events_cmd"),
    )


def downgrade() -> None:
    op.drop_table("table_events")
    op.drop_index("ix_card_tables_status", table_name="card_tables")
    op.drop_table("card_tables")
