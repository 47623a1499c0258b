"""A secret per table for provably fair deals.

Each shuffle's salt is derived from it (``cardtable.fairness``, ``server/table/fairness.py``),
so a table rebuilt from its log commits to exactly what it committed to before. NULL on
tables made before it existed: they publish no proofs.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("card_tables", sa.Column("fair_key", sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column("card_tables", "fair_key")
