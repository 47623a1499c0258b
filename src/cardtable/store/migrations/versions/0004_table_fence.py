"""The fencing token of a table's current owner (scale-out over Redis).

A process writes a table's log only while it holds the table's Redis lease; the lease
comes with a fencing token that only grows. Taking a table over writes the new token to
``card_tables.fence`` under the row's lock, and every append checks its token against it
in the same transaction, so a process that lost its lease (paused, cut off from Redis)
can never append after the new owner took over. ``0`` on existing tables: the single
process server never fences.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("card_tables",
                  sa.Column("fence", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("card_tables", "fence")
