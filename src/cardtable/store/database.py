"""The Store: tables, their append-only event logs and their chat, on SQLite or PostgreSQL.

Every method is one transaction, committed before it returns. ``append_event`` is what the
server's durability rests on: once it returns, the event is on disk (SQLite: WAL with
``synchronous=FULL``; PostgreSQL: ``synchronous_commit`` as configured, on by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from cardtable.store.engine import Writer, create_engine, normalize_url
from cardtable.store.migrate import upgrade
from cardtable.store.models import card_tables, chat_messages, table_events
from cardtable.store.moderation import Moderation
from cardtable.store.players import Players
from cardtable.store.ratings import Ratings
from cardtable.store.records import (
    ChatRecord,
    CodeTaken,
    DuplicateCommand,
    EventRecord,
    Fenced,
    SeatRecord,
    TableExists,
    TableRecord,
    UnknownTable,
    VersionConflict,
)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Store:
    """Persistence of tables and event logs. Make one with ``await Store.open(url)``."""

    def __init__(self, url: str, engine: AsyncEngine) -> None:
        self.url = url
        self.engine = engine
        self._writer = Writer(engine)  # SQLite: one write at a time, in line
        self.players = Players(engine, self._writer)
        self.ratings = Ratings(engine)
        self.moderation = Moderation(engine, self._writer)

    @classmethod
    async def open(cls, url: str) -> Store:
        """Connect to ``url`` and migrate the database to the newest schema (a no-op if it is).

        Call it from a running event loop; it needs no thread.
        """
        url = normalize_url(url)
        engine = create_engine(url)
        try:
            await upgrade(engine)
        except BaseException:
            await engine.dispose()
            raise
        return cls(url, engine)

    async def close(self) -> None:
        await self.engine.dispose()

    # -- tables -------------------------------------------------------------------------

    async def create_table(self, record: TableRecord) -> None:
        """Insert a new table. Sets ``record.created_at`` if it is None.

        Raises CodeTaken if the room code is in use, TableExists if the table_id is.
        """
        if record.created_at is None:
            record.created_at = utcnow()
        code = record.code.upper()
        row = {
            "table_id": record.table_id, "code": code, "game": record.game,
            "options": record.options, "players": record.players,
            "seats": [seat.to_json() for seat in record.seats], "private": record.private,
            "status": record.status, "start_chance": record.start_chance,
            "settings": record.settings, "fair_key": record.fair_key,
            "created_at": record.created_at, "updated_at": record.created_at,
        }
        async with self._writer.begin() as conn:
            taken = await conn.scalar(
                select(card_tables.c.table_id).where(card_tables.c.code == code))
            if taken is not None:
                raise CodeTaken(f"room code {code} is in use")
            try:
                await conn.execute(insert(card_tables).values(row))
            except IntegrityError as exc:
                if "code" in str(exc.orig):
                    raise CodeTaken(f"room code {code} is in use") from exc
                raise TableExists(f"table {record.table_id} exists") from exc

    async def get_table(self, table_id: str) -> TableRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(card_tables).where(card_tables.c.table_id == table_id))).first()
        return None if row is None else _table_record(row)

    async def get_table_by_code(self, code: str) -> TableRecord | None:
        """The table with this room code, in any letter case."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(card_tables).where(card_tables.c.code == code.strip().upper()))).first()
        return None if row is None else _table_record(row)

    async def update_table(self, table_id: str, *, seats: list[SeatRecord] | None = None,
                           status: str | None = None, options: dict[str, Any] | None = None,
                           settings: dict[str, Any] | None = None,
                           private: bool | None = None,
                           mutes: dict[str, list[int]] | None = None,
                           runtime: dict[str, Any] | None = None,
                           fence: int | None = None) -> None:
        """Replace any of the seats, status, options, settings, privacy, mutes and runtime of
        a table, in one transaction (None leaves a field as it is). Raises UnknownTable;
        Fenced when ``fence`` is given and the table has another owner's."""
        values: dict[str, Any] = {"updated_at": utcnow()}
        if seats is not None:
            values["seats"] = [seat.to_json() for seat in seats]
        if status is not None:
            values["status"] = status
        if options is not None:
            values["options"] = options
        if settings is not None:
            values["settings"] = settings
        if private is not None:
            values["private"] = private
        if mutes is not None:
            values["mutes"] = mutes
        if runtime is not None:
            values["runtime"] = runtime
        query = update(card_tables).where(card_tables.c.table_id == table_id)
        if fence is not None:
            query = query.where(card_tables.c.fence == fence)
        async with self._writer.begin() as conn:
            result = await conn.execute(query.values(values))
            if result.rowcount == 0:
                owner = await conn.scalar(select(card_tables.c.fence)
                                          .where(card_tables.c.table_id == table_id))
                if owner is None:
                    raise UnknownTable(f"no table {table_id}")
                raise Fenced(f"table {table_id} has owner {owner}, not {fence}",
                             frozenset({table_id}))

    async def claim(self, table_id: str, fence: int) -> bool:
        """Make ``fence`` the table's fencing token if it is newer than the one it has:
        from the commit on, appends with an older token fail (Fenced). Waits for an append
        under way (it holds the row's lock), so the log read after a claim is complete.
        False when the table already has this token or a newer one; raises UnknownTable."""
        async with self._writer.begin() as conn:
            result = await conn.execute(
                update(card_tables)
                .where(card_tables.c.table_id == table_id, card_tables.c.fence < fence)
                .values(fence=fence))
            if result.rowcount:
                return True
            found = await conn.scalar(select(card_tables.c.table_id)
                                      .where(card_tables.c.table_id == table_id))
            if found is None:
                raise UnknownTable(f"no table {table_id}")
            return False

    async def fence_of(self, table_id: str) -> int | None:
        """The fencing token the table's log takes appends with (None: no such table)."""
        async with self.engine.connect() as conn:
            fence = await conn.scalar(select(card_tables.c.fence)
                                      .where(card_tables.c.table_id == table_id))
        return None if fence is None else int(fence)

    async def table_ids(self, status: str | None = None) -> list[str]:
        """The ids of all tables (or those with this status), oldest first."""
        query = select(card_tables.c.table_id).order_by(
            card_tables.c.created_at, card_tables.c.table_id)
        if status is not None:
            query = query.where(card_tables.c.status == status)
        async with self.engine.connect() as conn:
            return list((await conn.scalars(query)).all())

    async def list_tables(self, *, private: bool | None = None,
                          status: str | None = None) -> list[TableRecord]:
        """The tables, oldest first; only private (or public) ones and only those with this
        status when asked (the lobby loads ``private=False, status="waiting"``)."""
        query = select(card_tables).order_by(card_tables.c.created_at, card_tables.c.table_id)
        if private is not None:
            query = query.where(card_tables.c.private == private)
        if status is not None:
            query = query.where(card_tables.c.status == status)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_table_record(row) for row in rows]

    # -- event log ----------------------------------------------------------------------

    async def load_events(self, table_id: str, after: int = 0) -> list[EventRecord]:
        """The table's events with version > ``after``, in version order."""
        query = (select(table_events)
                 .where(table_events.c.table_id == table_id, table_events.c.version > after)
                 .order_by(table_events.c.version))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [EventRecord(version=row.version, kind=row.kind, seat=row.seat,
                            cmd_id=row.cmd_id, payload=row.payload, chance=row.chance,
                            created_at=row.created_at) for row in rows]

    async def append_event(self, table_id: str, event: EventRecord,
                           fence: int | None = None) -> None:
        """Append ``event`` to the log in one transaction, committed (durable) on return.

        Raises UnknownTable; DuplicateCommand if ``event.cmd_id`` is not None and the same
        seat already logged it (checked first: a retried command is reported as such, its
        ``version`` attribute says where it was logged); VersionConflict unless
        ``event.version`` is the last version + 1 (``expected`` says which); Fenced when
        ``fence`` is given and is not the table's token (checked under the row's lock, so
        a claim cannot slip in between). Sets ``event.created_at`` if it is None.
        """
        if event.created_at is None:
            event.created_at = utcnow()
        ev = table_events.c
        async with self._writer.begin() as conn:
            # Lock the table's row (PostgreSQL) so appends to one table queue up; on SQLite
            # BEGIN IMMEDIATE already holds the database's write lock.
            found = await conn.scalar(select(card_tables.c.fence)
                                      .where(card_tables.c.table_id == table_id)
                                      .with_for_update())
            if found is None:
                raise UnknownTable(f"no table {table_id}")
            if fence is not None and found != fence:
                raise Fenced(f"table {table_id} has owner {found}, not {fence}",
                             frozenset({table_id}))
            if event.cmd_id is not None:
                earlier = await conn.scalar(select(ev.version).where(
                    ev.table_id == table_id, ev.seat == event.seat, ev.cmd_id == event.cmd_id))
                if earlier is not None:
                    raise DuplicateCommand(
                        f"command {event.cmd_id!r} of seat {event.seat} is already logged "
                        f"at version {earlier}", version=earlier)
            last = await conn.scalar(select(func.max(ev.version)).where(ev.table_id == table_id))
            expected = (last or 0) + 1
            if event.version != expected:
                raise VersionConflict(
                    f"table {table_id} is at version {last or 0}; cannot append version "
                    f"{event.version}", expected=expected)
            try:
                await conn.execute(insert(table_events).values(
                    table_id=table_id, version=event.version, kind=event.kind, seat=event.seat,
                    cmd_id=event.cmd_id, payload=event.payload, chance=event.chance,
                    created_at=event.created_at))
            except IntegrityError as exc:  # a concurrent writer won the race after all
                if "cmd" in str(exc.orig):
                    raise DuplicateCommand(
                        f"command {event.cmd_id!r} of seat {event.seat} is already logged"
                    ) from exc
                raise VersionConflict(
                    f"version {event.version} of table {table_id} exists") from exc


    async def append_events(self, batch: list[tuple[str, EventRecord]],
                            fences: Mapping[str, int] | None = None) -> None:
        """Append events of many tables in ONE transaction (a group commit), or none of them.

        The server's single writer per table keeps each table's versions in order, so the
        database constraints (primary key, unique command id) are the only checks: on a
        violation nothing of the batch is kept and IntegrityError propagates; the caller
        then appends one by one with :meth:`append_event` to learn which event is wrong.
        ``fences`` (table id -> token) are checked first under the rows' locks; Fenced (and
        nothing kept) names the tables whose token is not theirs any more.
        """
        if not batch:
            return
        now = utcnow()
        rows = []
        for table_id, event in batch:
            if event.created_at is None:
                event.created_at = now
            rows.append({"table_id": table_id, "version": event.version, "kind": event.kind,
                         "seat": event.seat, "cmd_id": event.cmd_id, "payload": event.payload,
                         "chance": event.chance, "created_at": event.created_at})
        async with self._writer.begin() as conn:
            if fences:
                await _check_fences(conn, fences)
            await conn.execute(insert(table_events), rows)

    # -- chat ----------------------------------------------------------------------------

    async def append_chat(self, table_id: str, message: ChatRecord, keep: int,
                          fence: int | None = None) -> None:
        """Keep a chat message, committed on return, and forget all but the newest ``keep``
        of its table and channel. Raises UnknownTable; IntegrityError if ``seq`` is taken;
        Fenced when ``fence`` is given and is not the table's."""
        cm = chat_messages.c
        async with self._writer.begin() as conn:
            if fence is not None:
                await _check_fences(conn, {table_id: fence})
            found = await conn.scalar(select(card_tables.c.table_id)
                                      .where(card_tables.c.table_id == table_id))
            if found is None:
                raise UnknownTable(f"no table {table_id}")
            await conn.execute(insert(chat_messages).values(
                table_id=table_id, seq=message.seq, channel=message.channel,
                sender=message.sender, seat=message.seat, name=message.name, text=message.text,
                created_at=message.created_at))
            oldest_kept = await conn.scalar(
                select(cm.seq).where(cm.table_id == table_id, cm.channel == message.channel)
                .order_by(cm.seq.desc()).offset(keep - 1).limit(1))
            if oldest_kept is not None:
                await conn.execute(delete(chat_messages).where(
                    cm.table_id == table_id, cm.channel == message.channel,
                    cm.seq < oldest_kept))

    async def load_chat(self, table_id: str) -> list[ChatRecord]:
        """The kept chat messages of a table, oldest first."""
        query = (select(chat_messages).where(chat_messages.c.table_id == table_id)
                 .order_by(chat_messages.c.seq))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [ChatRecord(seq=row.seq, channel=row.channel, sender=row.sender, seat=row.seat,
                           name=row.name, text=row.text, created_at=row.created_at)
                for row in rows]


async def _check_fences(conn: AsyncConnection, fences: Mapping[str, int]) -> None:
    """Lock the rows of these tables (in id order: no deadlock between two writers) and
    raise Fenced naming those whose token is not the one given."""
    rows = (await conn.execute(
        select(card_tables.c.table_id, card_tables.c.fence)
        .where(card_tables.c.table_id.in_(sorted(fences)))
        .order_by(card_tables.c.table_id).with_for_update())).all()
    stale = frozenset(row.table_id for row in rows if row.fence != fences[row.table_id])
    if stale:
        raise Fenced(f"tables {', '.join(sorted(stale))} have other owners now", stale)


def _table_record(row: Row[Any]) -> TableRecord:
    return TableRecord(
        table_id=row.table_id, code=row.code, game=row.game, options=row.options,
        players=row.players, seats=[SeatRecord.from_json(seat) for seat in row.seats],
        private=row.private, status=row.status, start_chance=row.start_chance,
        settings=dict(row.settings or {}), created_at=row.created_at,
        mutes={str(seat): list(muted) for seat, muted in (row.mutes or {}).items()},
        runtime=row.runtime, fair_key=row.fair_key)
