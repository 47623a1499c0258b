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

**Renewal runs in a thread of its own** (:class:`Leases` ``start``), with a synchronous
Redis client of short timeouts, not on the event loop: a process whose loop is busy (a
long bot decision, a collector pass, many tables at once) or starved of CPU still renews
on time, because a thread waiting on a timer gets the interpreter's lock within its switch
interval (5 ms) however busy the loop is. Every ``ttl / 4`` it renews every lease held (one
script call per 500 leases) and the node's heartbeat key. A lease whose key expired while
the fence counter still holds our token (nobody took it since: the whole process was
paused longer than the TTL, e.g. SIGSTOP, swap, a VM stalled) is set back with our same
value in the same script: *retaken*, and the table never moves. A lease another process
holds is *lost*: reported to ``on_lost`` on the event loop (``call_soon_threadsafe``) with
its cause in the log. While Redis is away a table is kept only until its lease's end as
this process last saw it, so the owner never plays on after another may have taken over.

The cadence from measured pauses (``bench/cluster.py --part failover --hog 2``,
docs/benchmarks.md "Leases and failover"; 2 cores, load average 7-20, 3 processes): the
event loop ran a callback posted by the thread up to 3 s late (p99 1-1.5 s), so a renewal
on the loop every TTL/3 with a 3 s lease lost 55 leases in one run; the thread started its
rounds at most 0.5 s late (p99 0.1-0.25 s) and lost none. A 3 s TTL renewed every 0.75 s
leaves 2.25 s of slack, 4.5 times the worst lateness seen (and more than the collector's
~1.2 s pause at 1,000 tables, which holds the interpreter's lock, this thread's too).
``cardtable_lease_late_seconds`` keeps both figures for an operator.

**A holder that died is not waited for.** Every process listens on its own bus channel
(cluster/bus.py) on a connection it keeps open to Redis; when the process dies (kill -9,
a crash, OOM) its kernel closes that connection and Redis drops the subscription at once.
So a process about to take a table whose lease is still running asks, in the same atomic
script, whether anybody listens on the holder's channel: nobody does, the holder is gone,
and the lease is taken now rather than after up to a TTL (the failover's largest part,
docs/benchmarks.md). A holder that is alive but unsubscribed for a moment (its connection
to Redis broke) may lose a table this way: the fencing token keeps that safe, at the cost
of one table move. A holder on a machine that vanished without closing its connections
(power, network) keeps its subscription until Redis notices: its leases are waited
for until they end, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis as sync_redis
from redis.asyncio import Redis

from ..server import metrics

log = logging.getLogger("cardtable.cluster")
T = TypeVar("T")

RENEWALS_PER_TTL = 4  # a renewal every ttl / 4: three may be missed before a lease ends
REDIS_TIMEOUT = 0.5  # seconds the renewal thread waits for Redis (it answers in ~1 ms)
LEASE_POLL = 0.25  # seconds between looks at a lease while its holder does not answer

# Set the lease if nobody holds it, or if its holder is gone: {token, the holder before
# ('' if none)}; {0, holder} when someone holds it. Gone: nobody listens on the holder's
# bus channel (ARGV[3] .. node; ARGV[3] '' never takes), because Redis dropped the
# subscription the moment the holder's connection closed, i.e. its process died.
_ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then
  local holder = string.match(held, '^(.*):%d+$')
  if ARGV[3] == '' or not holder or holder == ARGV[1] then return {0, held} end
  if redis.call('PUBSUB', 'NUMSUB', ARGV[3] .. holder)[2] > 0 then return {0, held} end
end
local token = redis.call('INCR', KEYS[2])
local value = ARGV[1] .. ':' .. token
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
return {token, held or ''}
"""
# Keep each lease we hold (ARGV[1]: ms, ARGV[2]: our node; per table two keys, its lease
# and its fence counter, and ARGV[i + 2] our token): 1 renewed; 2 retaken (the key had
# expired but the counter is still at our token: nobody took it since); 0 lost, with who
# holds it now ("node:token") or, when nobody does, the counter ("fence N"). One call for
# many tables: a process with thousands renews them in a few calls, not thousands.
_RENEW = """
local answers = {}
for i = 1, #KEYS / 2 do
  local ours = ARGV[2] .. ':' .. ARGV[i + 2]
  local held = redis.call('GET', KEYS[2 * i - 1])
  if held == ours then
    redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[1])
    answers[2 * i - 1], answers[2 * i] = 1, ''
  elseif held then
    answers[2 * i - 1], answers[2 * i] = 0, held
  else
    local fence = redis.call('GET', KEYS[2 * i]) or '0'
    if fence == ARGV[i + 2] then
      redis.call('SET', KEYS[2 * i - 1], ours, 'PX', ARGV[1])
      answers[2 * i - 1], answers[2 * i] = 2, ''
    else
      answers[2 * i - 1], answers[2 * i] = 0, 'fence ' .. fence
    end
  end
end
return answers
"""
RENEW_CHUNK = 500  # tables per call: Redis runs a script alone, so keep each one short
# Delete the lease if we still hold it, and move the fence counter past our token: a
# renewal round already under way in the thread must not take for a retake what was given
# back (the next owner's token is then two up, which is as good).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('INCR', KEYS[2])
  return 1
end
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


def lost_cause(info: str) -> str:
    """Why a lease is not ours any more, from what the renewal script found."""
    holder = holder_of(info) if not info.startswith("fence ") else None
    if holder is not None:
        return f"taken by node {holder[0]} (token {holder[1]})"
    return f"it expired and another process took it since ({info})"


class Leases:
    """The leases this process holds, and the thread that keeps them.

    ``held`` and ``valid_until`` are shared with the renewal thread: change them only
    under ``lock`` (the thread holds it for a copy or an update, never across a call to
    Redis). ``redis_url`` is the renewal thread's Redis (default: where ``redis`` goes);
    ``beat_key``, if given, is set to expire after ``ttl`` at every round: the node's
    heartbeat, kept by the same thread for the same reason. ``listen_prefix`` begins
    every node's bus channel (``{listen_prefix}{node}``): a lease whose holder nobody
    listens for there is taken before its end by ``acquire(take_from_gone=True)``.
    """

    def __init__(self, redis: Redis, prefix: str, node: str, ttl: float,
                 on_lost: Callable[[str], None], *, redis_url: str | None = None,
                 beat_key: str | None = None, listen_prefix: str | None = None):
        self.redis, self.prefix, self.node, self.ttl = redis, prefix, node, ttl
        self.on_lost = on_lost
        self.interval = ttl / RENEWALS_PER_TTL
        self.held: dict[str, int] = {}  # table id -> our token
        self.valid_until: dict[str, float] = {}  # monotonic end of each lease as last renewed
        self.lock = threading.Lock()
        self.redis_url, self.beat_key = redis_url, beat_key
        self.listen_prefix = listen_prefix
        self._acquire = redis.register_script(_ACQUIRE)
        self._release = redis.register_script(_RELEASE)
        self._raise = redis.register_script(_RAISE)
        self._sync: sync_redis.Redis | None = None  # the renewal thread's own client
        self._renew: Any = None  # its renewal script
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._away_since: float | None = None  # when renewals began to fail

    def key(self, table_id: str) -> str:
        return f"{self.prefix}:lease:{table_id}"

    def fence_key(self, table_id: str) -> str:
        return f"{self.prefix}:fence:{table_id}"

    # -- the renewal thread -------------------------------------------------------------------

    def start(self) -> None:
        """Start renewing, from a thread of its own (call on the event loop)."""
        self._loop = asyncio.get_running_loop()
        self._stopping.clear()
        self._thread = threading.Thread(target=self._keep, name="lease keeper", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5)
            self._thread = None
        if self._sync is not None:
            self._sync.close()
            self._sync = None

    def _sync_client(self) -> sync_redis.Redis:
        if self.redis_url is not None:
            return sync_redis.Redis.from_url(self.redis_url, socket_timeout=REDIS_TIMEOUT,
                                             socket_connect_timeout=REDIS_TIMEOUT)
        given = self.redis.connection_pool.connection_kwargs
        return sync_redis.Redis(host=given.get("host", "localhost"),
                                port=given.get("port", 6379), db=given.get("db", 0),
                                username=given.get("username"),
                                password=given.get("password"),
                                socket_timeout=REDIS_TIMEOUT,
                                socket_connect_timeout=REDIS_TIMEOUT)

    def _keep(self) -> None:
        due = time.monotonic()
        while not self._stopping.wait(max(0.0, due - time.monotonic())):
            began = time.monotonic()
            metrics.LEASE_LATE_SECONDS.labels("thread").observe(max(0.0, began - due))
            self._probe_loop(began)
            try:
                self.renew_round()
            except Exception:  # a bug, not Redis: say it, and keep renewing
                log.exception("lease renewal round failed")
            metrics.LEASE_RENEW_SECONDS.observe(time.monotonic() - began)
            # The next round a whole interval after this one began; after a pause (the
            # process stopped, the machine stalled) from now, not in a burst to catch up.
            due = max(due + self.interval, time.monotonic())

    def _probe_loop(self, sent: float) -> None:
        """Time how late the event loop runs a callback: what a renewal on the loop would
        have waited (the figure that moved renewal into this thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(_loop_heard, sent)

    def renew_round(self) -> None:
        """Renew every lease held and the heartbeat (in the thread: blocking calls)."""
        if self._sync is None:
            self._sync = self._sync_client()
            self._renew = self._sync.register_script(_RENEW)
        client = self._sync
        with self.lock:
            tables = list(self.held.items())
        began = time.monotonic()
        answers: list[Any] = []  # per table: its status, then what the script found
        try:
            if self.beat_key is not None:
                client.set(self.beat_key, "1", px=int(self.ttl * 1000))
            for start in range(0, len(tables), RENEW_CHUNK):
                chunk = tables[start:start + RENEW_CHUNK]
                keys = [k for table_id, _ in chunk
                        for k in (self.key(table_id), self.fence_key(table_id))]
                answers += self._renew(keys=keys, args=[int(self.ttl * 1000), self.node,
                                                        *(token for _, token in chunk)])
        except sync_redis.RedisError as error:  # Redis away: keep each table until its end
            metrics.REDIS_ERRORS.labels("renew").inc()
            self._away_since = self._away_since or began
            log.warning("cannot renew %d leases: %r", len(tables), error)
            self._past_their_end(tables, began)
            return
        away, self._away_since = self._away_since, None
        if away is not None:
            log.warning("renewing leases again after %.1f s of Redis errors", began - away)
        lost: list[tuple[str, str]] = []
        with self.lock:
            for i, (table_id, token) in enumerate(tables):
                status, info = int(answers[2 * i]), _text(answers[2 * i + 1]) or ""
                if self.held.get(table_id) != token:
                    continue  # released or taken again meanwhile
                if status:
                    self.valid_until[table_id] = began + self.ttl
                    if status == 2:
                        metrics.LEASE_EVENTS.labels("retaken").inc()
                        log.warning("retook the lease of table %s: it had expired (this "
                                    "process ran late) and nobody took it since", table_id)
                else:
                    lost.append((table_id, lost_cause(info)))
                    self._forget(table_id)
        for table_id, cause in lost:
            self._report_lost(table_id, cause)

    def _past_their_end(self, tables: list[tuple[str, int]], now: float) -> None:
        """Redis is away: the leases that may have ended before the next round are lost
        (another process may take them as soon as Redis is back)."""
        away = now - (self._away_since or now)
        lost = []
        with self.lock:
            for table_id, token in tables:
                if self.held.get(table_id) == token and \
                        self.valid_until.get(table_id, 0) <= now + self.interval:
                    self._forget(table_id)
                    lost.append(table_id)
        for table_id in lost:
            self._report_lost(table_id, f"it expired while Redis was away ({away:.1f} s "
                                        "so far)")

    def _report_lost(self, table_id: str, cause: str) -> None:
        metrics.LEASE_EVENTS.labels("lost").inc()
        log.warning("lost the lease of table %s: %s", table_id, cause)
        loop = self._loop
        if loop is None:  # never started nor run from a loop: a plain call
            self._lost_on_loop(table_id)
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing to stop
            loop.call_soon_threadsafe(self._lost_on_loop, table_id)

    def _lost_on_loop(self, table_id: str) -> None:
        with self.lock:
            taken_again = table_id in self.held  # acquired anew since: a new table there
        if not taken_again:
            self.on_lost(table_id)

    def _forget(self, table_id: str) -> None:
        self.held.pop(table_id, None)
        self.valid_until.pop(table_id, None)

    # -- the event loop's side ----------------------------------------------------------------

    async def acquire(self, table_id: str, *,
                      take_from_gone: bool = False) -> tuple[int | None, str | None]:
        """Take the table's lease: (our token, None), or (None, the holder's node).
        ``take_from_gone``: also when its holder's process is gone (``listen_prefix``)."""
        started = time.monotonic()
        listen = self.listen_prefix if take_from_gone and self.listen_prefix else ""
        try:
            token, value = await self._acquire(
                keys=[self.key(table_id), self.fence_key(table_id)],
                args=[self.node, int(self.ttl * 1000), listen])
        except Exception:
            metrics.REDIS_ERRORS.labels("acquire").inc()
            raise
        holder = holder_of(_text(value))
        if not token:
            return None, None if holder is None else holder[0]
        with self.lock:
            self.held[table_id] = int(token)
            self.valid_until[table_id] = started + self.ttl
        if holder is not None:
            metrics.LEASE_EVENTS.labels("taken_from_gone").inc()
            log.warning("took the lease of table %s from node %s before its end: that "
                        "process is gone (nobody listens on its bus channel)",
                        table_id, holder[0])
        metrics.LEASE_EVENTS.labels("gained").inc()
        return int(token), None

    async def raise_counter(self, table_id: str, token: int) -> None:
        """The database has seen ``token``: the next one must be larger (Redis restarted
        empty); the lease we hold is given back, to be taken again with a good token."""
        await self._raise(keys=[self.fence_key(table_id)], args=[token])
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

    async def while_held_by(self, table_id: str, node: str,
                            work: Awaitable[T]) -> tuple[bool, T | None]:
        """``work``'s result, unless the table's lease leaves ``node`` first: (True, its
        result), or (False, None) as soon as the lease is seen elsewhere or ended. A
        question to an owner that died waits for its lease's end, not the full timeout."""
        task = asyncio.ensure_future(work)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=LEASE_POLL)
                if done:
                    return True, task.result()
                with contextlib.suppress(Exception):  # Redis away: the question's timeout
                    if await self.owner(table_id) != node:
                        return False, None
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def release(self, table_id: str) -> None:
        """Give the lease back (the table left memory, or this process stops)."""
        with self.lock:
            token = self.held.pop(table_id, None)
            self.valid_until.pop(table_id, None)
        if token is not None:
            metrics.LEASE_EVENTS.labels("released").inc()
            with contextlib.suppress(Exception):  # it expires anyway
                await self._release(keys=[self.key(table_id), self.fence_key(table_id)],
                                    args=[f"{self.node}:{token}"])

    def drop(self, table_id: str) -> None:
        """Forget a lease lost to another process (nothing to give back)."""
        with self.lock:
            self._forget(table_id)

    async def renew_all(self) -> None:
        """One renewal round now, off the loop (tests; the thread does it by itself); the
        leases it finds lost are reported before it returns."""
        self._loop = self._loop or asyncio.get_running_loop()
        await asyncio.to_thread(self.renew_round)


def _loop_heard(sent: float) -> None:
    metrics.LEASE_LATE_SECONDS.labels("loop").observe(time.monotonic() - sent)


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
