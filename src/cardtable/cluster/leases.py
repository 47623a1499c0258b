"""Table ownership: one Redis lease per table, with a fencing token that only grows.

The lease is a key ``{prefix}:lease:{table_id}`` holding ``"{node}:{token}"`` with an
expiry (``PX``): set only if absent, renewed only by its holder, deleted only by its
holder (each a small Lua script, atomic in Redis). The token comes from ``INCR`` on
``{prefix}:fence:{table_id}``, so every new owner has a larger one than all before it.

Redis alone cannot stop an owner that lost its lease without knowing it (a long pause, a
partition) from writing once more. The token closes that gap in PostgreSQL: a new owner
writes its token to the table's row (``Store.claim``) before it reads the log, and every
append checks its token under the row's lock (``Store.append_event``), so a stale owner's
write fails with ``Fenced`` instead of forking the log.

The holder renews all its leases every ``ttl / 3`` (one script call per 500 leases). A
lease it cannot renew (taken over, expired, or Redis away past the lease's end) is
reported to ``on_lost``; while Redis is
away a table is kept only until its lease's end as this process last saw it, so the owner
never plays on after another process may have taken over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from redis.asyncio import Redis

log = logging.getLogger("cardtable.cluster")

# Set the lease if nobody holds it: {token, holder}; {0, holder} when someone does.
_ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then return {0, held} end
local token = redis.call('INCR', KEYS[2])
local value = ARGV[1] .. ':' .. token
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
return {token, value}
"""
# Extend each lease we still hold (ARGV[1]: ms; ARGV[i + 1]: what KEYS[i] must hold):
# per key 1, or 0 when it is not ours any more. One call for many keys: a process with
# thousands of tables renews them in a few calls, not thousands.
_RENEW = """
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    renewed[i] = redis.call('PEXPIRE', key, ARGV[1])
  else
    renewed[i] = 0
  end
end
return renewed
"""
RENEW_CHUNK = 500  # leases per call: Redis runs a script alone, so keep each one short
# Delete the lease if we still hold it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# The counter follows a token found in the database (Redis lost its data): max(counter, n).
_RAISE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
"""


def holder_of(value: str | None) -> tuple[str, int] | None:
    """(node, token) of a lease value, None for no lease."""
    if not value:
        return None
    node, _, token = value.rpartition(":")
    return node, int(token)


class Leases:
    """The leases this process holds, and the loop that keeps them."""

    def __init__(self, redis: Redis, prefix: str, node: str, ttl: float,
                 on_lost: Callable[[str], None]):
        self.redis, self.prefix, self.node, self.ttl = redis, prefix, node, ttl
        self.on_lost = on_lost
        self.held: dict[str, int] = {}  # table id -> our token
        self.valid_until: dict[str, float] = {}  # monotonic end of each lease as last renewed
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._raise = redis.register_script(_RAISE)
        self._task: asyncio.Task[None] | None = None

    def key(self, table_id: str) -> str:
        return f"{self.prefix}:lease:{table_id}"

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep(), name="lease keeper")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def acquire(self, table_id: str) -> tuple[int | None, str | None]:
        """Take the table's lease: (our token, None), or (None, the holder's node)."""
        started = time.monotonic()
        token, value = await self._acquire(
            keys=[self.key(table_id), f"{self.prefix}:fence:{table_id}"],
            args=[self.node, int(self.ttl * 1000)])
        text = value.decode() if isinstance(value, bytes) else str(value)
        if not token:
            holder = holder_of(text)
            return None, None if holder is None else holder[0]
        self.held[table_id] = int(token)
        self.valid_until[table_id] = started + self.ttl
        return int(token), None

    async def raise_counter(self, table_id: str, token: int) -> None:
        """The database has seen ``token``: the next one must be larger (Redis restarted
        empty); the lease we hold is given back, to be taken again with a good token."""
        await self._raise(keys=[f"{self.prefix}:fence:{table_id}"], args=[token])
        await self.release(table_id)

    async def owner(self, table_id: str) -> str | None:
        """The node holding the table's lease now, if any."""
        holder = holder_of(_text(await self.redis.get(self.key(table_id))))
        return None if holder is None else holder[0]

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        """The holder of each table's lease (one round trip)."""
        if not table_ids:
            return {}
        values = await self.redis.mget([self.key(t) for t in table_ids])
        found = {}
        for table_id, value in zip(table_ids, values, strict=True):
            holder = holder_of(_text(value))
            found[table_id] = None if holder is None else holder[0]
        return found

    async def release(self, table_id: str) -> None:
        """Give the lease back (the table left memory, or this process stops)."""
        token = self.held.pop(table_id, None)
        self.valid_until.pop(table_id, None)
        if token is not None:
            with contextlib.suppress(Exception):  # it expires anyway
                await self._release(keys=[self.key(table_id)], args=[f"{self.node}:{token}"])

    def drop(self, table_id: str) -> None:
        """Forget a lease lost to another process (nothing to give back)."""
        self.held.pop(table_id, None)
        self.valid_until.pop(table_id, None)

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            await self.renew_all()

    async def renew_all(self) -> None:
        """Renew every lease held; report those lost (or past their end while Redis is
        away) to ``on_lost``."""
        tables = list(self.held.items())
        if not tables:
            return
        started = time.monotonic()
        lost: list[str] = []
        try:
            results: list[int] = []
            for start in range(0, len(tables), RENEW_CHUNK):
                chunk = tables[start:start + RENEW_CHUNK]
                results += await self._renew(
                    keys=[self.key(table_id) for table_id, _ in chunk],
                    args=[int(self.ttl * 1000), *(f"{self.node}:{token}" for _, token in chunk)])
        except Exception as error:  # Redis away: keep each table until its lease ends
            log.warning("cannot renew %d leases: %r", len(tables), error)
            now = time.monotonic()
            lost = [t for t, _ in tables if self.valid_until.get(t, 0) <= now + self.ttl / 3]
        else:
            for (table_id, token), renewed in zip(tables, results, strict=True):
                if self.held.get(table_id) != token:
                    continue  # released or taken again meanwhile
                if renewed:
                    self.valid_until[table_id] = started + self.ttl
                else:
                    lost.append(table_id)
        for table_id in lost:
            if table_id in self.held:
                log.warning("lost the lease of table %s", table_id)
                self.drop(table_id)
                self.on_lost(table_id)


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
