"""Moderation in the store (``store.moderation``): who blocks whom, and reports.

A block is a row of ``blocks`` (blocker, blocked): the blocker hears nothing the blocked
player says at any table, and the blocked player cannot take a seat at a private table the
blocker hosts (server/moderation.py). Blocking twice is one block; unblocking what is not
blocked changes nothing.

A report is a row of ``reports``: who reported whom, why (plain text, at most
:data:`MAX_REASON` characters, kept as typed: whoever shows it shows it as text) and at
which table. It is for the operator (:meth:`Moderation.reports`); nothing in the card room
shows reports to players.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from cardtable.store.engine import Writer
from cardtable.store.models import blocks, players, reports

MAX_REASON = 500  # characters of a report's reason


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class BlockRecord:
    player_id: str  # the blocked player
    name: str  # the name he goes by now
    since: datetime


@dataclass
class ReportRecord:
    reporter_id: str | None  # None once the reporter deleted himself
    reported_id: str
    reason: str
    table_code: str | None = None
    created_at: datetime | None = None  # set when stored
    report_id: int | None = None  # set when stored


class Moderation:
    """Blocks and reports (``store.moderation``)."""

    def __init__(self, engine: AsyncEngine, writer: Writer) -> None:
        self.engine, self._writer = engine, writer

    # -- blocks -------------------------------------------------------------------------

    async def block(self, blocker_id: str, blocked_id: str) -> bool:
        """``blocker_id`` blocks ``blocked_id``: True if he did not already. Both must be
        players (IntegrityError otherwise)."""
        try:
            async with self._writer.begin() as conn:
                await conn.execute(insert(blocks).values(
                    blocker_id=blocker_id, blocked_id=blocked_id, created_at=utcnow()))
        except IntegrityError:
            if await self.blocks(blocker_id, blocked_id):
                return False  # blocked already (the primary key)
            raise  # one of them is no player
        return True

    async def unblock(self, blocker_id: str, blocked_id: str) -> bool:
        """True if there was such a block."""
        async with self._writer.begin() as conn:
            result = await conn.execute(delete(blocks).where(
                blocks.c.blocker_id == blocker_id, blocks.c.blocked_id == blocked_id))
        return bool(result.rowcount)

    async def blocks(self, blocker_id: str, blocked_id: str) -> bool:
        """Whether ``blocker_id`` blocks ``blocked_id``."""
        async with self.engine.connect() as conn:
            found = await conn.scalar(select(blocks.c.blocker_id).where(
                blocks.c.blocker_id == blocker_id, blocks.c.blocked_id == blocked_id))
        return found is not None

    async def blocked_ids(self, blocker_id: str) -> set[str]:
        """The ids of everyone ``blocker_id`` blocks."""
        async with self.engine.connect() as conn:
            found = await conn.scalars(select(blocks.c.blocked_id).where(
                blocks.c.blocker_id == blocker_id))
            return set(found.all())

    async def blocked_by(self, blocker_id: str) -> list[BlockRecord]:
        """Everyone ``blocker_id`` blocks, with their names, the latest block first."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(blocks.c.blocked_id, players.c.name, blocks.c.created_at)
                .join(players, players.c.player_id == blocks.c.blocked_id)
                .where(blocks.c.blocker_id == blocker_id)
                .order_by(blocks.c.created_at.desc(), blocks.c.blocked_id))).all()
        return [BlockRecord(row.blocked_id, row.name, row.created_at) for row in rows]

    async def count_blocks(self, blocker_id: str) -> int:
        async with self.engine.connect() as conn:
            count = await conn.scalar(select(func.count()).select_from(blocks).where(
                blocks.c.blocker_id == blocker_id))
        return int(count or 0)

    # -- reports ------------------------------------------------------------------------

    async def report(self, report: ReportRecord) -> int:
        """Store a report (its reason at most :data:`MAX_REASON` characters: ValueError
        otherwise); sets and returns its id."""
        if not 0 < len(report.reason) <= MAX_REASON:
            raise ValueError(f"a report's reason has 1 to {MAX_REASON} characters")
        report.created_at = report.created_at or utcnow()
        async with self._writer.begin() as conn:
            result = await conn.execute(insert(reports).values(
                reporter_id=report.reporter_id, reported_id=report.reported_id,
                reason=report.reason, table_code=report.table_code,
                created_at=report.created_at).returning(reports.c.report_id))
            report.report_id = int(result.scalar_one())
        return report.report_id

    async def reports_since(self, reporter_id: str, since: datetime) -> int:
        """How many reports ``reporter_id`` made since ``since`` (the rate limit)."""
        async with self.engine.connect() as conn:
            count = await conn.scalar(select(func.count()).select_from(reports).where(
                reports.c.reporter_id == reporter_id, reports.c.created_at >= since))
        return int(count or 0)

    async def reports(self, limit: int = 100, reported_id: str | None = None
                      ) -> list[ReportRecord]:
        """For the operator: the newest reports (about ``reported_id`` only, if given)."""
        query = select(reports).order_by(reports.c.created_at.desc(),
                                         reports.c.report_id.desc()).limit(limit)
        if reported_id is not None:
            query = query.where(reports.c.reported_id == reported_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [ReportRecord(row.reporter_id, row.reported_id, row.reason, row.table_code,
                             row.created_at, row.report_id) for row in rows]
