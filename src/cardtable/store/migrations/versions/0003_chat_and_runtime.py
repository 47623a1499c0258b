"""Chat history and mutes kept with the table, and what an evicted table knew at eviction.

``chat_messages`` keeps the last messages of each table and room (the server prunes older
ones as it writes); ``card_tables.mutes`` the mutes of each seat's person (``{}`` on
existing tables); ``card_tables.runtime`` what a table held in memory beyond its log
when it was evicted (NULL until then).

Revision ID: 0003
Revises: 0002
Create Date: 2025-03-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMNs, as in 0002: a batch "move and copy" of card_tables would, with
    # foreign keys on, cascade-delete every table's events on SQLite.
    op.add_column("card_tables",
                  sa.Column("mutes", sa.JSON(), nullable=False, server_default="{}"))
    op.add_column("card_tables", sa.Column("runtime", sa.JSON(), nullable=True))
    op.create_table(
        "chat_messages",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("sender", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["card_tables.table_id"],
                                name="fk_chat_messages_table_id_card_tables",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("table_id", "seq", name="pk_chat_messages"),
    )
    op.create_index("ix_chat_messages_channel", "chat_messages",
                    ["table_id", "channel", "seq"])


def downgrade() -> None:
    op.drop_index("ix_chat_messages_channel", table_name="chat_messages")
    op.drop_table("chat_messages")
    op.drop_column("card_tables", "runtime")  # SQLite 3.35+ has DROP COLUMN
    op.drop_column("card_tables", "mutes")
