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

# mypy: disable-error-code="misc"
# (the mixins annotate self as the Table they are part of, for full checking)
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..engine import get_game
from ..engine.api import live_rng
from ..store import EventRecord
from . import protocol as p
from .table_replay import rebuild

if TYPE_CHECKING:
    from .connection import Connection
    from .table import Table

log = logging.getLogger("cardtable.table")

RETRY_MESSAGE = "the server could not save that just now; please try again"
INTERNAL_MESSAGE = "the server failed to handle that; the snapshot that follows is current"
HEAL_FIRST, HEAL_MAX = 1.0, 15.0  # seconds between attempts while the database is away
# What may change the match, the log or the seats, and so must start from the log's
# state: the table's own moves, joins, and frames but those served from memory (chat and
# mutes are saved apart from the log; the heal timer reloads by itself).
LOG_KINDS = frozenset({"bot", "timeout", "join"})
READ_FRAMES = (p.Hello, p.Sync, p.Ping, p.Chat, p.Mute)


class SaveFailed(Exception):
    """The database did not take a write; the table did not change (try again)."""


def needs_log(command: Any) -> bool:
    """Whether handling ``command`` may change the match, the log or the seats: then
    memory must be the log's first."""
    if command.kind != "frame":
        return command.kind in LOG_KINDS
    frame = command.frame
    if isinstance(frame, READ_FRAMES):
        return False
    return not (isinstance(frame, p.Empty) and frame.t == "resume")


def _same_event(a: EventRecord, b: EventRecord) -> bool:
    return (a.version, a.kind, a.seat, a.cmd_id) == (b.version, b.kind, b.seat, b.cmd_id) \
        and json.dumps(a.payload, sort_keys=True) == json.dumps(b.payload, sort_keys=True)


class CommitMixin:
    _suspect: bool = False  # memory may differ from the log: reload before the next write
    _row_dirty: bool = False  # the row's derived fields lag memory
    _heal_timer: asyncio.TimerHandle | None = None
    _heal_delay: float = HEAL_FIRST

    @property
    def settled(self: Table) -> bool:
        """Memory and the database agree: nothing waits to be reloaded or written."""
        return not self._suspect and not self._row_dirty

    # -- the log ----------------------------------------------------------------------------

    async def _commit(self: Table, event: EventRecord, conn: Connection | None,
                      ref: str | None, undo: Callable[[], None] | None = None) -> bool:
        """Append ``event`` to the log: True once it is durable (``version`` is then its).

        On failure memory is put back to what is durable (``undo`` takes the caller's
        change back when the log cannot be read) and the sender gets ``retry``.
        """
        try:
            await self.log_writer.append(self.table_id, event)
        except Exception as error:
            log.warning("table %s: could not log version %s: %r", self.table_id,
                        event.version, error)
            if not await self._recover(event, undo):
                if conn is not None:
                    self._error(conn, "retry", RETRY_MESSAGE, ref)
                self._schedule_heal()  # a computer's or a timed-out move is tried again
                return False
        self.version = event.version
        self._heal_delay = HEAL_FIRST
        await self._settle_row()
        return True

    async def _recover(self: Table, event: EventRecord,
                       undo: Callable[[], None] | None) -> bool:
        """After a failed append: True if the event is in the log after all."""
        try:
            events = await self.store.load_events(self.table_id)
        except Exception as error:
            log.warning("table %s: cannot read the log either (%r); taking version %s back "
                        "in memory", self.table_id, error, event.version)
            self._suspect = True  # first: whatever happens next, the log wins
            if undo is not None:
                undo()
            self._schedule_heal()
            return False
        if events and _same_event(events[-1], event):
            log.warning("table %s: version %s landed after all", self.table_id, event.version)
            return True  # memory, which has the event applied, is what the log says
        await self._reload_from(events)
        return False

    def _undo_move(self: Table, drawn: int) -> None:
        """Take back the move just applied: the match replayed without it (the chance
        outcomes it drew are dropped; later deals come from a live rng)."""
        record = self.state.record()
        record["actions"] = record["actions"][:-1]
        record["chance"] = record["chance"][:drawn]
        self.state = get_game(self.record.game).replay(record, rng=live_rng())

    async def _reload(self: Table) -> bool:
        """Put memory back to the log; False (and still suspect) when it cannot be read."""
        try:
            events = await self.store.load_events(self.table_id)
        except Exception as error:
            log.warning("table %s: cannot read the log: %r", self.table_id, error)
            self._suspect = True
            self._schedule_heal()
            return False
        await self._reload_from(events)
        return True

    async def _reload_from(self: Table, events: list[EventRecord]) -> None:
        before, status = self.version, self._status()
        replayed = rebuild(self.record, events)
        self.state, self.commands, self.moves = replayed.state, replayed.commands, replayed.moves
        self.ended, self.options = replayed.ended, replayed.options
        self.version = events[-1].version if events else 0
        for seat, presence in enumerate(self.presence):
            presence.timeouts = replayed.timeouts.get(seat, 0)
            presence.misses = replayed.misses.get(seat, 0)
        self._suspect = False
        if self.version == before:
            return
        # A commit reported as failed had landed: everyone gets the table as it is.
        log.warning("table %s: the log is at version %s, memory was at %s", self.table_id,
                    self.version, before)
        if self._status() != "over":
            self.rematch_votes.clear()
        if self._status() != "playing":
            self.end_votes.clear()
        self._next_turn()
        for conn in list(self.connections):
            self._snapshot(conn)
        if self._status() != status:
            self._seats_changed()
        await self._settle_row()

    # -- the row's derived fields -----------------------------------------------------------

    async def _settle_row(self: Table) -> None:
        """Write the row's status (and current options) if they lag memory."""
        if self._row_dirty or self._status() != self.record.status:
            await self._save_row()

    async def _save_row(self: Table) -> None:
        status = self._status()
        self.record.status = status  # memory is the truth of derived fields
        try:
            await self.store.update_table(self.table_id, status=status,
                                          options=self.record.options)
        except Exception as error:
            log.warning("table %s: could not save its status %s (%r); retrying later",
                        self.table_id, status, error)
            self._row_dirty = True
            self._schedule_heal()
        else:
            self._row_dirty = False

    # -- trying again -----------------------------------------------------------------------

    def _schedule_heal(self: Table) -> None:
        if self._heal_timer is not None:
            return
        delay = self._heal_delay
        self._heal_delay = min(delay * 2, HEAL_MAX)
        self._heal_timer = asyncio.get_running_loop().call_later(
            delay, lambda: self._post("heal"))

    async def _on_heal(self: Table, _: Any) -> None:
        self._heal_timer = None
        if self._suspect and not await self._reload():
            return  # still away: _reload has set the next try
        if self._row_dirty:
            await self._save_row()
        if self.settled:
            self._heal_delay = HEAL_FIRST
        self._refresh()  # a computer's move or a turn clock a failed commit dropped

    async def _failed(self: Table, command: Any, error: Exception) -> None:
        """Answer a command that raised: ``retry`` if the database refused a write (nothing
        changed), else ``internal``, after putting memory back to the log."""
        retry = isinstance(error, SaveFailed)
        if retry:
            log.warning("table %s: %s not saved: %s", self.table_id, command.kind, error)
        else:
            log.error("table %s: %s failed", self.table_id, command.kind, exc_info=error)
            self._suspect = True  # whatever the handler left half done, the log wins
            try:
                await self._reload()
            except Exception:
                log.exception("table %s: could not rebuild from the log", self.table_id)
            # The handler may have stopped before telling the others of a logged change.
            for other in list(self.connections):
                if other is not command.conn:
                    self._snapshot(other)
        done = command.done
        if done is not None:
            if not done.done():
                done.set_exception(error)
            return
        conn = command.conn
        if command.kind == "frame" and conn is not None and conn in self.connections:
            ref = command.frame.d.id if isinstance(command.frame, p.Act) else None
            if retry:
                self._error(conn, "retry", RETRY_MESSAGE, ref)
            else:
                self._error(conn, "internal", INTERNAL_MESSAGE, ref)
        elif command.kind != "frame":
            self._schedule_heal()  # the table's own move (a computer's, a timeout): again later
