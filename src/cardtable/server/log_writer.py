"""Group commit: the events of all tables that arrive while a commit runs share the next one.

Every action must be durable before it is acknowledged, and a commit (an fsync) costs the
same for one row as for a hundred. So tables hand their events to one writer task and
wait; it commits everything pending in one transaction. Under load, throughput grows with
the batch instead of being capped at one table's commit rate.

A batch that breaks a constraint, or holds an event of a table this process no longer owns
(its fencing token is stale: scale-out), is retried event by event, so that only the table
whose event is wrong hears of it. A batch the database could not take at all (it is locked,
down, or the connection died) fails as a whole, at once: trying each event again would
only multiply the wait by the batch's size. The writer itself never dies of a failure:
every waiting table gets its event's outcome, and the next batch is tried afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy.exc import IntegrityError

from ..store import EventRecord, Fenced, Store
from . import metrics

log = logging.getLogger("cardtable.log_writer")
MAX_BATCH = 500
# A table's event, the fencing token it is written under (None: no cluster), its outcome.
Pending = tuple[str, EventRecord, int | None, "asyncio.Future[None]"]


class LogWriter:
    def __init__(self, store: Store):
        self.store = store
        self._pending: list[Pending] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.events = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="log writer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for *_, done in self._pending:
            if not done.done():
                done.set_exception(RuntimeError("the server is stopping"))

    async def append(self, table_id: str, event: EventRecord, fence: int | None = None) -> None:
        """Return once the event is committed; raise what the store raised for it (Fenced
        when ``fence`` is no longer the table's token)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((table_id, event, fence, done))
        self._wake.set()
        with metrics.LOG_COMMIT_SECONDS.time():  # the wait for the batch, then its commit
            await done

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                try:
                    await self._commit(batch)
                except Exception as error:  # a bug here must not stop every table's log
                    log.exception("the log writer failed on a batch of %d", len(batch))
                    _settle(batch, error)

    async def _commit(self, batch: list[Pending]) -> None:
        fences = {table_id: fence for table_id, _, fence, _ in batch if fence is not None}
        try:
            await self.store.append_events([(table_id, event) for table_id, event, *_ in batch],
                                           fences)
        except (IntegrityError, Fenced):
            # Some event of the batch is wrong: one by one, so each table learns about its
            # own event only.
            for pending in batch:
                table_id, event, fence, _ = pending
                try:
                    await self.store.append_event(table_id, event, fence)
                except Exception as error:
                    _settle([pending], error)
                else:
                    _settle([pending])
            return
        except Exception as error:
            log.warning("could not commit %d events: %r", len(batch), error)
            _settle(batch, error)
            return
        self.batches += 1
        self.events += len(batch)
        _settle(batch)


def _settle(batch: list[Pending], error: BaseException | None = None) -> None:
    """Tell each waiting table its event's outcome (a table stopped meanwhile no longer
    waits: its future is cancelled)."""
    for *_, done in batch:
        if done.done():
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
