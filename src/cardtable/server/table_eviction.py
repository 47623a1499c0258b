"""When a table leaves memory, and how it comes back as it was.

A table nobody is connected to leaves memory after a while: ``Settings.evict_idle``
seconds without a command (a connection's, a join, a lookup, or one of its own timers:
a table of computers plays its match out first), or ``Settings.evict_finished`` once its
match is over. The registry's sweeper only offers
it an ``evict`` command; the actor decides, between two commands, so nothing is ever
half done. It evicts only if still nobody is connected and nothing is queued; it writes
what it knows beyond the log (the *runtime*, below) to its row, looks again (a command
may have come while it wrote) and only then leaves the registry, in one step without an
await: every command is either queued before (and the table stays) or finds the table
evicted.

A command that finds the table evicted (a socket that looked the table up before and says
hello only now, an HTTP join that raced the eviction) is not lost: it goes, in order, to the
table loaded again from the log, and so does everything that connection sends later. The
table's own timers (a computer's move, a grace period) die with it; rehydration sets them
again.

The runtime is what the log does not say: per seat the stand-in, the reconnect deadline,
the timeouts and missed turns (a ``resume`` is not logged), and the rematch and end
votes. The table loaded again takes it back only if this very process wrote it at this
very version; after a restart the outage is credited as before (a whole grace period from
the load, stand-ins and timeouts as the log has them). No turn clock is kept: none runs
while nobody is connected, and the person to act gets a whole turn on return either way.
"""

# mypy: disable-error-code="misc"
# (the mixins annotate self as the Table they are part of, for full checking)
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .table import Table, _Command

log = logging.getLogger("cardtable.table")


class Home(Protocol):
    """Where a table lives (the registry)."""

    boot: str  # this process: stamped on the runtime it writes

    def evicted(self, table: Table) -> None:
        """``table`` has left memory: forget it."""

    async def revive(self, table_id: str) -> Table | None:
        """The table, in memory again (loaded from the log if need be)."""


class EvictionMixin:
    home: Home | None
    _evicted: bool = False
    _touched: float = 0.0  # time.monotonic() of the last command (but ``evict``)
    _successor: Table | None = None  # the table loaded again after this one was evicted
    _reviving: asyncio.Task[None] | None = None
    _task: asyncio.Task[None] | None
    _waiting: list[_Command]  # commands for the evicted table while it is loaded again

    @property
    def evicted(self) -> bool:
        return self._evicted

    def _enqueue(self: Table, command: _Command) -> None:
        """Queue a command; once evicted, hand it on to the table loaded again."""
        if not self._evicted:
            self._touched = time.monotonic()
            self._inbox.put_nowait(command)
        elif self._successor is not None:
            self._successor._enqueue(command)
        else:
            self._waiting.append(command)
            if self._reviving is None:
                self._reviving = asyncio.create_task(self._revive(),
                                                     name=f"revive {self.table_id}")

    async def _revive(self: Table) -> None:
        table: Table | None = None
        error: Exception = LookupError(f"table {self.table_id} is gone")
        try:
            if self.home is not None:
                table = await self.home.revive(self.table_id)
        except Exception as failed:
            log.exception("table %s: could not load it again", self.table_id)
            error = failed
        waiting, self._waiting, self._reviving = self._waiting, [], None
        if table is None:
            # Only questions can wait here (a connection sends frames once attached, and
            # its attach is among them): they get the error.
            for command in waiting:
                if command.done is not None and not command.done.done():
                    command.done.set_exception(error)
            return
        self._successor = table
        for command in waiting:
            table._enqueue(command)

    # -- deciding ----------------------------------------------------------------------------

    def _evict_after(self: Table) -> float | None:
        """Seconds without a command after which the table may leave memory (None: never)."""
        wait = (self.settings.evict_finished if self._status() == "over"
                else self.settings.evict_idle)
        return wait if wait > 0 else None

    def _evictable(self: Table) -> bool:
        """Nobody here, nothing queued (an ``evict`` itself included), nothing left to
        write or to reload, and quiet for long enough."""
        wait = self._evict_after()
        return (wait is not None and not self.connections and self._inbox.empty()
                and self.settled and time.monotonic() - self._touched >= wait)

    def offer_eviction(self: Table) -> None:
        """The registry's sweeper: ask the actor to evict the table if it looks idle."""
        if self._evicted or not self._evictable():
            return
        from .table import _Command

        self._inbox.put_nowait(_Command("evict"))  # not _enqueue: asking is no activity

    async def _on_evict(self: Table, _: Any) -> None:
        if not self._evictable():
            return
        try:
            await self.store.update_table(self.table_id, runtime=self._runtime())
        except Exception as error:  # it stays, and is offered again at the next sweep
            log.warning("table %s stays in memory: %r", self.table_id, error)
            return
        if self._evictable():  # nobody came while the runtime was written
            self._leave_memory()

    def _leave_memory(self: Table) -> None:
        self._evicted = True
        # Every timer holds the table: cancelled, they let it go now, not when they fire.
        self._stop_clock()
        for presence in self.presence:
            presence.cancel_grace()
        for timer in (self._bot_timer, self._heal_timer, self._watchers_due):
            if timer is not None:
                timer.cancel()
        if self.home is not None:
            self.home.evicted(self)
        # We are in the task: it ends at its next await (its inbox, empty for good). Drop
        # our reference first: a cancelled task's traceback holds the actor's frame, so
        # keeping it makes the table cyclic garbage that only a rare full GC pass frees.
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    # -- what the log does not say ------------------------------------------------------------

    def _runtime(self: Table) -> dict[str, Any]:
        return {
            "boot": None if self.home is None else self.home.boot, "version": self.version,
            "seats": [{"standin": held.standin, "reconnect_deadline": held.reconnect_deadline,
                       "timeouts": held.timeouts, "misses": held.misses}
                      for held in self.presence],
            "rematch": sorted(self.rematch_votes), "end_votes": sorted(self.end_votes)}

    def _restore_runtime(self: Table) -> bool:
        """Take back what this process knew when it evicted the table. False when it did
        not write it (a restart, another node) or the table has moved on since."""
        runtime, self.record.runtime = self.record.runtime, None
        if not runtime or self.home is None or runtime.get("boot") != self.home.boot \
                or runtime.get("version") != self.version \
                or len(runtime.get("seats", ())) != len(self.presence):
            return False
        for seat, (held, kept) in enumerate(zip(self.presence, runtime["seats"], strict=True)):
            held.standin = kept["standin"]
            held.timeouts, held.misses = kept["timeouts"], kept["misses"]
            if kept["reconnect_deadline"] is not None:
                self._hold_seat(seat, until=kept["reconnect_deadline"])
        self.rematch_votes = set(runtime["rematch"])
        self.end_votes = set(runtime["end_votes"])
        return True
