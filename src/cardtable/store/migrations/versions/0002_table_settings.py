"""Table settings (turn timer, privacy, spectators, computer levels) as one JSON column.

Existing tables get ``{}``: the server fills in the defaults.

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN on both databases (SQLite allows NOT NULL with a constant default).
    # Not a batch "move and copy": on SQLite that drops card_tables, and with foreign keys
    # on, the ON DELETE CASCADE would empty table_events.
    op.add_column("card_tables",
                  sa.Column("settings", sa.JSON(), nullable=False, server_default="{}"))


def downgrade() -> None:
    op.drop_column("card_tables", "settings")  # SQLite 3.35+ has DROP COLUMN
