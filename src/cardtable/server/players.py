"""A guest's lasting identity: a secret in an HttpOnly cookie, a player row behind it.

Playing needs no account. The first time a browser sits down at a table the server makes
it a player: a public id (in profile addresses) and a secret of 256 bits that only the
cookie holds (the database keeps its SHA-256, so a copy of the database cannot sign
anyone in). Every later visit from that browser is the same player: his name, his
matches and his counts follow him from table to table.

The cookie is HttpOnly (no script reads it), SameSite=Lax (no other site's form or
frame sends it), Secure when the page came over HTTPS, and lives 400 days (the longest a
browser keeps one).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from fastapi import HTTPException, Request, Response
from starlette.requests import HTTPConnection

from ..store import Store
from ..store.players import PlayerRecord
from .security import over_https, trusted_networks

COOKIE = "cardtable_player"
MAX_AGE = 400 * 24 * 3600
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")  # token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def current_player(connection: HTTPConnection, store: Store) -> PlayerRecord | None:
    """The player whose cookie came with this request or socket; None without a good one
    (no cookie, a malformed one, or one no player has: forged, or of a deleted player)."""
    session = session_hash(connection)
    return None if session is None else await store.players.by_token(session)


async def sitting_player(request: Request, response: Response, store: Store,
                         name: str) -> PlayerRecord:
    """The player sitting down with ``name`` (cleaned: ``names.PersonName``): the
    cookie's, or a new one whose cookie goes out with ``response``. ``player.name`` is the
    name he sits under: an account's username, whatever was typed; else ``name``, refused
    (HTTP 409, nothing made or changed) when it reads as a registered username."""
    player = await current_player(request, store)
    session = session_hash(request)
    if player is not None and player.username is not None:
        name = player.username
    else:
        await refuse_account_names(store, name)
    if player is not None and session is not None:
        await store.players.seen(player.player_id, name if player.name != name else None,
                                 session)
        player.name = name
        # The same secret, its cookie's life renewed along with the session's.
        set_session_cookie(request, response, str(request.cookies.get(COOKIE)))
        return player
    token = new_session_token()
    player = await store.players.create(secrets.token_urlsafe(12), token_hash(token), name)
    set_session_cookie(request, response, token)
    return player


async def refuse_account_names(store: Store, name: str) -> None:
    """HTTP 409 if ``name`` cannot be told apart from a registered player's username
    (whatever its case, invisible characters or homoglyphs: ``cardtable/names.py``): a
    guest may not pass for an account's owner."""
    username = await store.players.username_like(name)
    if username is not None:
        raise HTTPException(409, f"{name!r} is too like the username of the registered "
                                 f"player {username!r}: choose another name, or sign in "
                                 "if the account is yours")


def new_session_token() -> str:
    return secrets.token_urlsafe(32)


def session_hash(connection: HTTPConnection) -> str | None:
    """The hash of the session the request's cookie holds (well-formed, not checked)."""
    token = connection.cookies.get(COOKIE)
    return token_hash(token) if token is not None and _TOKEN.match(token) else None


def _secure(request: Request) -> bool:
    """Secure cookies when the page came over HTTPS (ours, or a trusted proxy's)."""
    config = getattr(getattr(request.app.state, "registry", None), "config", None)
    trusted = trusted_networks(config.trusted_proxies) if config is not None else ()
    peer = request.client.host if request.client else None
    return over_https(request.url.scheme, peer, request.headers.getlist("x-forwarded-proto"),
                      trusted)


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(COOKIE, token, max_age=MAX_AGE, path="/", httponly=True,
                        samesite="lax", secure=_secure(request))


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=_secure(request))


@dataclass(frozen=True)
class Sitter:
    """Who takes a seat: his lasting player id, whether he has an account, and the address
    he comes from (for a rated table's one player per address); with an account, the
    username he sits under."""

    player_id: str | None = None
    registered: bool = False
    address: str | None = None
    username: str | None = None

    @classmethod
    def of(cls, player: PlayerRecord, address: str | None) -> Sitter:
        return cls(player.player_id, player.registered, address, player.username)

    def seat_name(self, typed: str) -> str:
        """The name he sits under: his username, or what he typed (a guest)."""
        return self.username if self.registered and self.username else typed

    def to_json(self) -> dict[str, object]:
        return {"player_id": self.player_id, "registered": self.registered,
                "address": self.address, "username": self.username}

    @classmethod
    def from_json(cls, data: object) -> Sitter:
        if not isinstance(data, dict):
            return cls()
        return cls(data.get("player_id"), bool(data.get("registered")), data.get("address"),
                   data.get("username"))


def address_key(fair_key: str | None, address: str | None) -> str | None:
    """What a rated table keeps of a seat's address: keyed by the table's secret, so it
    cannot be compared across tables nor reversed by trying every address."""
    if address is None:
        return None
    key = (fair_key or "").encode()
    return hmac.new(key, address.encode(), hashlib.sha256).hexdigest()
