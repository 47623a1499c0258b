"""Usernames' confusable keys (``cardtable/names.py``): ``username_skeleton``, the UTS #39
skeleton of the casefolded username, uniquely indexed, so that no account is registered under a name
that reads as another's (``a1ice`` beside ``alice``); ``username_look``, the skeleton of the
username as written (a capital ``I`` is an ``l``), indexed. A guest's seat name is refused
when one of its keys is either of an account's.

The accounts that exist get their keys here. Should two of them already read alike, the
one registered later keeps no ``username_skeleton`` (the unique column cannot hold both)
and is still found by its ``username_look``.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from cardtable.names import name_key, name_look

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("players", sa.Column("username_skeleton", sa.String(length=128),
                                       nullable=True))
    op.add_column("players", sa.Column("username_look", sa.String(length=128),
                                       nullable=True))
    players = sa.table("players", sa.column("player_id", sa.String),
                       sa.column("username", sa.String),
                       sa.column("registered_at", sa.DateTime),
                       sa.column("username_skeleton", sa.String),
                       sa.column("username_look", sa.String))
    conn = op.get_bind()
    rows = conn.execute(sa.select(players.c.player_id, players.c.username)
                        .where(players.c.username.is_not(None))
                        .order_by(players.c.registered_at, players.c.player_id)).all()
    keys: set[str] = set()
    for player_id, username in rows:
        key = name_key(username)
        conn.execute(sa.update(players).where(players.c.player_id == player_id).values(
            username_skeleton=None if key in keys else key,
            username_look=name_look(username)))
        keys.add(key)
    # A unique index, not a constraint: SQLite adds a constraint only by copying the table
    # (a batch "move and copy"), and dropping the old players would, with foreign keys
    # on, delete every session and block with it (as 0002 says).
    op.create_index("ix_players_username_skeleton", "players", ["username_skeleton"],
                    unique=True)
    op.create_index("ix_players_username_look", "players", ["username_look"])


def downgrade() -> None:
    op.drop_index("ix_players_username_look", table_name="players")
    op.drop_index("ix_players_username_skeleton", table_name="players")
    op.drop_column("players", "username_look")  # SQLite 3.35+ has DROP COLUMN
    op.drop_column("players", "username_skeleton")
