"""Database faults at a table: memory never runs ahead of the log, and every sender hears back.

A change is durable once ``LogWriter.append`` returns; only then is it acknowledged. When
the append fails, memory goes back to what is durable:

* the database can be read: the table is rebuilt from the log. A commit reported as failed
  that landed after all (a lost answer) is then found at the end of the log and counts
  as done; otherwise the log, which lacks the event, wins.
* it cannot: the change is taken back in memory (the match is replayed without it, later
  deals from a live rng), and the table is *suspect*: before anything else writes, it is
  reloaded from the log, since the failed commit may have landed. While the log cannot be
  read, writes are answered ``retry`` and nothing is applied.

The sender of the change gets ``retry`` (a resend with the same command id is applied at
most once). A move the server makes itself (a computer's, a timeout) is tried again by
the *heal* timer, which backs off while the database stays away.

The table's row holds fields derived from memory (the status, the current match's
options, for the lobby and for tables not loaded yet). Once the event they follow is
logged, failing to write them loses nothing: the row is marked dirty and written again
at the next commit or by the heal timer.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Protocol

from ...store import EventRecord, Store, TableRecord
from .. import metrics
from ..connection import Connection
from ..log_writer import LogWriter
from .commands import Command, FromClient, Heal, Question, describe, ref_of, sender_of
from .history import History

log = logging.getLogger("cardtable.table")

RETRY_MESSAGE = "the server could not save that just now; please try again"
INTERNAL_MESSAGE = "the server failed to handle that; the snapshot that follows is current"
HEAL_FIRST, HEAL_MAX = 1.0, 15.0  # seconds between attempts while the database is away


class SaveFailed(Exception):
    """The database did not take a write; the table did not change (try again)."""


class JournalHost(Protocol):
    """What the journal sees of its table."""

    fence: int | None  # the fencing token this process writes the table with

    @property
    def table_id(self) -> str: ...
    @property
    def record(self) -> TableRecord: ...
    @property
    def store(self) -> Store: ...
    @property
    def log_writer(self) -> LogWriter: ...
    @property
    def history(self) -> History: ...
    @property
    def connections(self) -> set[Connection]: ...

    version: int

    def status(self) -> str: ...
    def post(self, command: Command) -> None: ...
    def snapshot(self, conn: Connection) -> None: ...
    def error(self, conn: Connection, code: str, message: str, ref: str | None = None,
              snapshot: bool = True) -> None: ...
    def refresh(self, exclude: Connection | None = None) -> None: ...
    async def restore(self, events: list[EventRecord]) -> None: ...


def _same_event(a: EventRecord, b: EventRecord) -> bool:
    return (a.version, a.kind, a.seat, a.cmd_id) == (b.version, b.kind, b.seat, b.cmd_id) \
        and json.dumps(a.payload, sort_keys=True) == json.dumps(b.payload, sort_keys=True)


class Journal:
    """One table's writes to the database, and what is owed after one failed."""

    def __init__(self) -> None:
        self.suspect = False  # memory may differ from the log: reload before the next write
        self.row_dirty = False  # the row's derived fields lag memory
        self.heal_delay = HEAL_FIRST
        self._heal_timer: asyncio.TimerHandle | None = None

    @property
    def settled(self) -> bool:
        """Memory and the database agree: nothing waits to be reloaded or written."""
        return not self.suspect and not self.row_dirty

    def stop(self) -> None:
        """Cancel the heal timer (the table is stopping)."""
        if self._heal_timer is not None:
            self._heal_timer.cancel()

    # -- the log ----------------------------------------------------------------------------

    async def commit(self, table: JournalHost, event: EventRecord, conn: Connection | None,
                     ref: str | None, undo: Callable[[], None] | None = None) -> bool:
        """Append ``event`` to the log: True once it is durable (``version`` is then its).

        On failure memory is put back to what is durable (``undo`` takes the caller's
        change back when the log cannot be read) and the sender gets ``retry``.
        """
        try:
            await table.log_writer.append(table.table_id, event, table.fence)
        except Exception as error:
            kind = metrics.database_error_kind(error)
            metrics.DATABASE_ERRORS.labels(kind).inc()
            log.warning("table %s: could not log version %s (database %s): %r",
                        table.table_id, event.version, kind, error)
            if not await self._recover(table, event, undo):
                if conn is not None:
                    metrics.RETRIES.labels(f"database {kind}").inc()
                    table.error(conn, "retry", RETRY_MESSAGE, ref)
                self.schedule_heal(table)  # a computer's or a timed-out move is tried again
                return False
        table.version = event.version
        self.heal_delay = HEAL_FIRST
        await self.settle_row(table)
        return True

    async def _recover(self, table: JournalHost, event: EventRecord,
                       undo: Callable[[], None] | None) -> bool:
        """After a failed append: True if the event is in the log after all."""
        try:
            events = await table.store.load_events(table.table_id)
        except Exception as error:
            log.warning("table %s: cannot read the log either (%r); taking version %s back "
                        "in memory", table.table_id, error, event.version)
            self.suspect = True  # first: whatever happens next, the log wins
            if undo is not None:
                undo()
            self.schedule_heal(table)
            return False
        if events and _same_event(events[-1], event):
            log.warning("table %s: version %s landed after all", table.table_id, event.version)
            return True  # memory, which has the event applied, is what the log says
        await self._restore(table, events)
        return False

    async def reload(self, table: JournalHost) -> bool:
        """Put memory back to the log; False (and still suspect) when it cannot be read."""
        try:
            events = await table.store.load_events(table.table_id)
        except Exception as error:
            log.warning("table %s: cannot read the log: %r", table.table_id, error)
            self.suspect = True
            self.schedule_heal(table)
            return False
        await self._restore(table, events)
        return True

    async def _restore(self, table: JournalHost, events: list[EventRecord]) -> None:
        await table.restore(events)
        self.suspect = False

    # -- the row's derived fields -----------------------------------------------------------

    async def settle_row(self, table: JournalHost) -> None:
        """Write the row's status (and current options) if they lag memory."""
        if self.row_dirty or table.status() != table.record.status:
            await self._save_row(table)

    async def _save_row(self, table: JournalHost) -> None:
        status = table.status()
        table.record.status = status  # memory is the truth of derived fields
        try:
            await table.store.update_table(table.table_id, fence=table.fence, status=status,
                                           options=table.record.options)
        except Exception as error:
            log.warning("table %s: could not save its status %s (%r); retrying later",
                        table.table_id, status, error)
            self.row_lags(table)
        else:
            self.row_dirty = False

    def row_lags(self, table: JournalHost) -> None:
        """The row's derived fields could not be written: the heal timer will."""
        self.row_dirty = True
        self.schedule_heal(table)

    # -- trying again -----------------------------------------------------------------------

    def schedule_heal(self, table: JournalHost) -> None:
        if self._heal_timer is not None:
            return
        delay = self.heal_delay
        self.heal_delay = min(delay * 2, HEAL_MAX)
        self._heal_timer = asyncio.get_running_loop().call_later(delay, table.post, Heal())

    async def heal(self, table: JournalHost) -> None:
        self._heal_timer = None
        if self.suspect and not await self.reload(table):
            return  # still away: reload has set the next try
        if self.row_dirty:
            await self._save_row(table)
        if not await table.history.retry(table.store):
            self.schedule_heal(table)  # the database is away: the match waits with the table
        if self.settled:
            self.heal_delay = HEAL_FIRST
        table.refresh()  # a computer's move or a turn clock a failed commit dropped

    async def failed(self, table: JournalHost, command: Command, error: Exception) -> None:
        """Answer a command that raised: ``retry`` if the database refused a write (nothing
        changed), else ``internal``, after putting memory back to the log."""
        retry = isinstance(error, SaveFailed)
        kind = metrics.database_error_kind(error.__cause__ or error)
        if retry:
            metrics.DATABASE_ERRORS.labels(kind).inc()
            log.warning("table %s: %s not saved (database %s): %s", table.table_id,
                        describe(command), kind, error)
        else:
            log.error("table %s: %s failed", table.table_id, describe(command),
                      exc_info=error)
            self.suspect = True  # whatever the handler left half done, the log wins
            try:
                await self.reload(table)
            except Exception:
                log.exception("table %s: could not rebuild from the log", table.table_id)
            # The handler may have stopped before telling the others of a logged change.
            sender = sender_of(command)
            for other in list(table.connections):
                if other is not sender:
                    table.snapshot(other)
        if isinstance(command, Question):
            if not command.done.done():
                command.done.set_exception(error)
            return
        if isinstance(command, FromClient):
            if command.conn in table.connections:
                code, message = ("retry", RETRY_MESSAGE) if retry else (
                    "internal", INTERNAL_MESSAGE)
                if retry:
                    metrics.RETRIES.labels(f"database {kind}").inc()
                table.error(command.conn, code, message, ref_of(command))
        else:  # the table's own move (a computer's, a timeout): tried again later
            self.schedule_heal(table)
