"""When a table leaves memory, and how it comes back as it was.

A table nobody is connected to leaves memory after a while: ``ServerConfig.evict_idle``
seconds without a command (a connection's, a join, a lookup, or one of its own timers:
a table of computers plays its match out first), or ``ServerConfig.evict_finished`` once
its match is over. The registry's sweeper only offers it an :class:`Evict` command; the
actor decides, between two commands, so nothing is ever half done. It evicts only if
still nobody is connected and nothing is queued; it writes what it knows beyond the log
(the *runtime*, below) to its row, looks again (a command may have come while it wrote)
and only then leaves the registry, in one step without an await: every command is either
queued before (and the table stays) or finds the table evicted.

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

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

from redis.exceptions import RedisError

from ...store import Store, TableRecord
from ..config import ServerConfig
from ..connection import Connection
from ..coordinator import Moved
from .commands import Command, Evict, Question
from .presence import Presence

log = logging.getLogger("cardtable.table")


class Resident(Protocol):
    """A table as its home knows it."""

    @property
    def table_id(self) -> str: ...

    def enqueue(self, command: Command) -> None: ...


class Home(Protocol):
    """Where a table lives (the registry)."""

    @property
    def boot(self) -> str:
        """This process: stamped on the runtime it writes."""

    def evicted(self, table: Resident) -> None:
        """``table`` has left memory: forget it."""

    async def revive(self, table_id: str) -> Resident | None:
        """The table, in memory again (loaded from the log if need be)."""


class EvictionHost(Protocol):
    """What the eviction sees of its table."""

    fence: int | None  # the fencing token this process writes the table with

    @property
    def table_id(self) -> str: ...
    @property
    def store(self) -> Store: ...
    @property
    def connections(self) -> set[Connection]: ...
    @property
    def settled(self) -> bool: ...
    @property
    def version(self) -> int: ...
    @property
    def presence(self) -> Presence: ...
    @property
    def rematch_votes(self) -> set[int]: ...
    @property
    def end_votes(self) -> set[int]: ...

    def status(self) -> str: ...


class Eviction:
    """The table's inbox, and whether the table is still in memory to read it."""

    def __init__(self, table_id: str, config: ServerConfig, home: Home | None):
        self.table_id, self.config, self.home = table_id, config, home
        self.inbox: asyncio.Queue[Command] = asyncio.Queue()
        self.evicted = False
        self.touched = time.monotonic()  # of the last command (but ``Evict``): idle since
        self._successor: Resident | None = None  # the table loaded again after eviction
        self._reviving: asyncio.Task[None] | None = None
        self._waiting: list[Command] = []  # for the evicted table while it loads again

    def enqueue(self, command: Command) -> None:
        """Queue a command; once evicted, hand it on to the table loaded again."""
        if not self.evicted:
            self.touched = time.monotonic()
            self.inbox.put_nowait(command)
        elif self._successor is not None:
            self._successor.enqueue(command)
        else:
            self._waiting.append(command)
            if self._reviving is None:
                self._reviving = asyncio.create_task(self._revive(),
                                                     name=f"revive {self.table_id}")

    async def _revive(self) -> None:
        table: Resident | None = None
        error: Exception = LookupError(f"table {self.table_id} is gone")
        try:
            if self.home is not None:
                table = await self.home.revive(self.table_id)
        except Moved as moved:  # scale-out: another process owns it now; askers look there
            log.info("table %s: %s", self.table_id, moved)
            error = moved
        except RedisError as away:  # scale-out: nobody can own it while Redis is away
            log.warning("table %s: cannot load it again: %r", self.table_id, away)
            error = away
        except Exception as failed:
            log.exception("table %s: could not load it again", self.table_id)
            error = failed
        waiting, self._waiting, self._reviving = self._waiting, [], None
        if table is None:
            # Only questions can wait here (a connection sends frames once attached, and
            # its attach is among them): they get the error.
            for command in waiting:
                if isinstance(command, Question) and not command.done.done():
                    command.done.set_exception(error)
            return
        self._successor = table
        for command in waiting:
            table.enqueue(command)

    # -- deciding ----------------------------------------------------------------------------

    def _evict_after(self, table: EvictionHost) -> float | None:
        """Seconds without a command after which the table may leave memory (None: never)."""
        wait = (self.config.evict_finished if table.status() == "over"
                else self.config.evict_idle)
        return wait if wait > 0 else None

    def _evictable(self, table: EvictionHost) -> bool:
        """Nobody here, nothing queued (an ``Evict`` itself included), nothing left to
        write or to reload, and quiet for long enough."""
        wait = self._evict_after(table)
        return (wait is not None and not table.connections and self.inbox.empty()
                and table.settled and time.monotonic() - self.touched >= wait)

    def offer(self, table: EvictionHost) -> None:
        """The registry's sweeper: ask the actor to evict the table if it looks idle."""
        if not self.evicted and self._evictable(table):
            self.inbox.put_nowait(Evict())  # not enqueue: asking is no activity

    async def may_leave(self, table: EvictionHost) -> bool:
        """Handling ``Evict``: write the runtime; True if the table may leave memory now
        (then nothing may await before it has left the registry)."""
        if not self._evictable(table):
            return False
        try:
            await table.store.update_table(table.table_id, fence=table.fence,
                                           runtime=self._runtime(table))
        except Exception as error:  # it stays, and is offered again at the next sweep
            log.warning("table %s stays in memory: %r", table.table_id, error)
            return False
        return self._evictable(table)  # nobody came while the runtime was written

    # -- what the log does not say ------------------------------------------------------------

    def _runtime(self, table: EvictionHost) -> dict[str, Any]:
        return {"boot": None if self.home is None else self.home.boot,
                "version": table.version, "seats": table.presence.runtime(),
                "rematch": sorted(table.rematch_votes), "end_votes": sorted(table.end_votes)}

    def kept_runtime(self, record: TableRecord, version: int) -> dict[str, Any] | None:
        """The runtime the table loaded again may take back (taken off its record): only
        what this very process wrote at this very ``version``; else None."""
        runtime, record.runtime = record.runtime, None
        if not runtime or self.home is None or runtime.get("boot") != self.home.boot \
                or runtime.get("version") != version:
            return None
        return runtime
