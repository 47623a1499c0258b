"""Rate limits per key (a client's address, an account name) that hold across a cluster.

A single process counts in memory (:class:`~.security.SlidingWindow`). Processes joined
by Redis count together, or a limit would be multiplied by the number of processes behind
the proxy: eight sign-in tries per account would be sixteen with two processes, and room
codes could be guessed twice as fast. Each key is a sliding log in one Redis sorted set,
trimmed, counted and appended by one Lua script on the Redis server's clock (the
processes' clocks never meet) and expiring with its window. Keys are hashed: Redis holds
no address or username.

If Redis cannot be reached, a process counts alone until it can again (and says so in
its log): the limit stays a limit, and a Redis blip refuses nobody's sign-in.

A process without Redis counts in its memory only: its windows start empty again when it
restarts (a restart gives a guesser at most one more window's tries; persisting them
would put a database write on every try). A cluster's windows live in Redis and outlast
any one process.

=====================  ==========================================  =========================
window                 counts                                      default
=====================  ==========================================  =========================
lookups                room-code lookups and joins per address     CARDTABLE_JOIN_LIMIT/min
login-address          sign-in tries per address                   30 per 15 min
login-account-address  sign-in tries at an account from an address 8 per 15 min
login-account          sign-in tries at an account                 40 per 15 min
login-device           sign-in tries at an account from one of its 8 per 15 min
                       known browsers (instead of the three above)
register-address       registrations tried per address             10 per 15 min
reports                reports per address                         60 per hour
creates                new tables per address                      CARDTABLE_CREATE_LIMIT/min
=====================  ==========================================  =========================

Open WebSockets are not a rate but a count (:class:`OpenSockets`): at most
``CARDTABLE_SOCKET_LIMIT`` (64) per address at once, counted in each process (a count
kept in Redis would outlive a process that died holding sockets; a proxy in front of N
processes lets an address hold at most N times the limit).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError
from starlette.requests import HTTPConnection

from .security import Network, SlidingWindow, client_address, trusted_networks

log = logging.getLogger("cardtable.limits")

# KEYS[1]: the key's log; ARGV: window (ms), limit, a unique member. 1 = allowed.
_SLIDE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1
"""


class SharedWindow:
    """At most ``limit`` events per ``seconds`` per key: in this process, or across every
    process sharing a Redis once :meth:`share` is called."""

    def __init__(self, name: str, limit: int, seconds: float):
        self.name, self.limit, self.seconds = name, limit, seconds
        self.local = SlidingWindow(limit, seconds)
        self._slide: AsyncScript | None = None  # _SLIDE in the Redis shared, by its SHA
        self._prefix = ""
        self._alone = False  # Redis failed: counting here until it answers again

    def share(self, redis: Redis | None, prefix: str = "") -> None:
        self._slide = None if redis is None else redis.register_script(_SLIDE)
        self._prefix = prefix

    def redis_key(self, key: str) -> str:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return f"{self._prefix}:limit:{self.name}:{digest}"

    async def allow(self, key: str) -> bool:
        """Spend one event of ``key``'s budget: False (nothing spent) when none is left."""
        if self._slide is None:
            return self.local.allow(key)
        try:  # EVALSHA, and EVAL once when Redis does not know the script (yet)
            allowed = await self._slide(
                keys=[self.redis_key(key)],
                args=[int(self.seconds * 1000), self.limit, secrets.token_hex(8)])
        except (RedisError, OSError) as error:
            if not self._alone:
                log.warning("rate limit %s: Redis failed (%s); this process counts alone",
                            self.name, error)
                self._alone = True
            return self.local.allow(key)
        if self._alone:
            log.warning("rate limit %s: Redis answers again; counting together", self.name)
            self._alone = False
        return bool(allowed)


class RateLimits:
    """The app's windows, and whom a request counts against."""

    def __init__(self, trusted_proxies: Iterable[str] = ()):
        self.proxies: tuple[Network, ...] = trusted_networks(trusted_proxies)
        self._windows: dict[str, SharedWindow] = {}

    def window(self, name: str, limit: int, seconds: float) -> SharedWindow:
        if name in self._windows:
            raise ValueError(f"there is a rate limit called {name!r} already")
        made = self._windows[name] = SharedWindow(name, limit, seconds)
        return made

    def share(self, redis: Redis | None, prefix: str = "") -> None:
        """Count in ``redis`` from now on (None: in this process again)."""
        for window in self._windows.values():
            window.share(redis, prefix)

    def address(self, connection: HTTPConnection) -> str:
        """Whom to count a request against (see client_address: proxies only if trusted)."""
        peer = connection.client.host if connection.client else None
        return client_address(peer, connection.headers.getlist("x-forwarded-for"),
                              self.proxies)


class OpenSockets:
    """The WebSockets open in this process per client address (``address_of`` a
    connection: :meth:`RateLimits.address`), at most ``limit`` each.

    >>> sockets = OpenSockets(limit=1, address_of=str)
    >>> with sockets.hold("203.0.113.7") as first, sockets.hold("203.0.113.7") as second:
    ...     first, second, sockets.open("203.0.113.7")
    (True, False, 1)
    >>> sockets.open("203.0.113.7")
    0
    """

    def __init__(self, limit: int, address_of: Callable[[Any], str]) -> None:
        self.limit = limit
        self.address_of = address_of
        self._open: Counter[str] = Counter()

    @property
    def refusal(self) -> str:
        """The close reason of a socket over the limit (at most 123 bytes)."""
        return f"too many connections from your address (at most {self.limit})"

    def open(self, address: str) -> int:
        return self._open[address]

    @contextlib.contextmanager
    def hold(self, connection: Any) -> Iterator[bool]:
        """While the block runs, one more socket of the connection's address is counted if
        the limit allows it: True, else False (and nothing is counted)."""
        address = self.address_of(connection)
        if self._open[address] >= self.limit:
            yield False
            return
        self._open[address] += 1
        try:
            yield True
        finally:
            self._open[address] -= 1
            if not self._open[address]:
                del self._open[address]  # the counter holds only addresses with sockets
