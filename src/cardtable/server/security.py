"""Seat tokens, Origin checks, rate limits and the headers every page carries."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import deque
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: codes are read aloud

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """What the database keeps: a leaked database does not leak seats."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str | None, stored_hash: str | None) -> bool:
    """Constant-time comparison of a presented token with a stored hash."""
    if not token or not stored_hash:
        return False
    return hmac.compare_digest(hash_token(token), stored_hash)


def new_code(length: int = 6) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def new_table_id() -> str:
    return "t_" + secrets.token_urlsafe(9)


def origin_allowed(headers: Mapping[str, str], allowed: Iterable[str] = ()) -> bool:
    """Browsers send Origin on a WebSocket handshake: it must be this server (or listed).

    Non-browser clients (our Python client, bots) send none and are allowed:
    the Origin check defends browsers against cross-site pages, not bots.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    if origin in set(allowed):
        return True
    host = headers.get("host", "")
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host.lower()


class TokenBucket:
    """``rate`` frames a second with bursts of ``burst``: the per-connection limit."""

    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class SlidingWindow:
    """At most ``limit`` events per ``seconds`` per key (client address)."""

    def __init__(self, limit: int, seconds: float):
        self.limit, self.seconds = limit, seconds
        self._hits: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.seconds:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        if len(self._hits) > 10_000:  # forget idle addresses so memory stays bounded
            for stale in [k for k, v in self._hits.items() if not v]:
                del self._hits[stale]
        return True
