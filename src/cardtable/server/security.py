"""Seat tokens, Origin checks, client addresses, rate limits and the headers every page
carries."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
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


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """The proxies named in ``CARDTABLE_TRUSTED_PROXIES``: addresses or CIDR blocks.

    >>> [str(n) for n in trusted_networks(["127.0.0.1", " 10.0.0.0/8 ", "", "::1"])]
    ['127.0.0.1/32', '10.0.0.0/8', '::1/128']
    >>> trusted_networks(["localhost"])
    Traceback (most recent call last):
    ...
    ValueError: CARDTABLE_TRUSTED_PROXIES: 'localhost' is not an IP address or CIDR block
    """
    out = []
    for entry in (e.strip() for e in entries):
        if not entry:
            continue
        try:
            out.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"CARDTABLE_TRUSTED_PROXIES: {entry!r} is not an IP address "
                             "or CIDR block") from None
    return tuple(out)


def _address(text: str) -> Address | None:
    """An address as proxies write it: bare, or with a port (``1.2.3.4:80``, ``[::1]:80``);
    an IPv4 address mapped into IPv6 is the IPv4 address."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def client_address(peer: str | None, forwarded_for: Sequence[str],
                   trusted: Sequence[Network]) -> str:
    """The address a client's requests are counted against.

    The socket's ``peer``, unless the peer is a trusted proxy: then ``X-Forwarded-For``
    (every such header, in order) is read from the right, each trusted hop skipped, and
    the first untrusted address is the client. Everything left of that was written by the
    client itself and proves nothing. Without trusted proxies the header is never read.

    >>> lb = trusted_networks(["127.0.0.1", "10.0.0.0/8"])
    >>> client_address("127.0.0.1", ["6.6.6.6"], ())   # nobody trusted: a forged header
    '127.0.0.1'
    >>> client_address("127.0.0.1", ["6.6.6.6, 203.0.113.7, 10.1.2.3"], lb)
    '203.0.113.7'
    >>> client_address("198.51.100.2", ["203.0.113.7"], lb)   # not from our proxy
    '198.51.100.2'
    """
    current = _address(peer) if peer else None
    if current is None:
        return peer or "?"  # not an IP (an in-process test client): count it as it is
    if not any(current in network for network in trusted):
        return str(current)
    hops = [hop for header in forwarded_for for hop in header.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:  # garbage where a proxy's address should be: trust stops here
            break
        current = address
        if not any(current in network for network in trusted):
            break
    return str(current)


def over_https(scheme: str, peer: str | None, forwarded_proto: Sequence[str],
               trusted: Sequence[Network]) -> bool:
    """Whether the browser reached us over HTTPS: our own TLS, or a trusted proxy that
    ended TLS says so in ``X-Forwarded-Proto`` (the last value: the one it wrote).

    >>> lb = trusted_networks(["127.0.0.1"])
    >>> over_https("http", "127.0.0.1", ["https"], lb), over_https("http", "6.6.6.6", ["https"], lb)
    (True, False)
    >>> over_https("https", None, [], ()), over_https("http", "127.0.0.1", ["https"], ())
    (True, False)
    """
    if scheme == "https":
        return True
    current = _address(peer) if peer else None
    if current is None or not any(current in network for network in trusted):
        return False
    values = [v.strip().lower() for header in forwarded_proto for v in header.split(",")]
    return bool(values) and values[-1] == "https"


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
