"""Known browsers: the device cookie that lets an account's owner keep signing in while
strangers are locked out (OWASP's "device cookies" against online password guessing).

A successful sign-in or registration gives the browser a cookie naming the account's
player id and a random nonce, signed with HMAC-SHA256 keyed by the account's password
hash: a secret only the database holds (128 random bits of salt and 256 of hash), the same
for every process of a cluster. So nobody can make the cookie without signing in, it
belongs to one account, and it dies with the password (changed, or rehashed with newer
parameters) and with the account. A browser that presents it when signing in to that
account spends tries of its own window (per device) instead of its address's and the
account's: strangers who spend those never lock the owner out of the browsers he uses.

It signs no one in: it only decides which window a try counts against. HttpOnly,
SameSite=Strict, ``Path=/api/account`` (no other request carries it), 400 days, Secure
when the page came over HTTPS. A browser holds one: signing in to another account
replaces it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from fastapi import Request, Response
from starlette.requests import HTTPConnection

from .players import MAX_AGE, _secure

COOKIE = "cardtable_device"
PATH = "/api/account"
_FORM = re.compile(r"^([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$")


def _mac(player_id: str, nonce: str, password_hash: str) -> str:
    digest = hmac.new(password_hash.encode(), f"device|{player_id}|{nonce}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@dataclass(frozen=True)
class Device:
    """A device cookie as presented: well-formed, its signature not yet checked."""

    player_id: str
    nonce: str
    mac: str

    @classmethod
    def made_for(cls, player_id: str, password_hash: str) -> Device:
        """A new device cookie for a browser that just signed in as ``player_id``.

        >>> made = Device.made_for("p_1", "$argon2id$...")
        >>> Device.parse(made.value()) == made, made.belongs_to("p_1", "$argon2id$...")
        (True, True)
        >>> made.belongs_to("p_1", "$argon2id$other"), made.belongs_to("p_2", "$argon2id$...")
        (False, False)
        >>> Device.parse("p_1.short.mac") is None
        True
        """
        nonce = secrets.token_urlsafe(16)
        return cls(player_id, nonce, _mac(player_id, nonce, password_hash))

    @classmethod
    def parse(cls, value: str | None) -> Device | None:
        matched = _FORM.match(value) if value else None
        return None if matched is None else cls(*matched.groups())

    def value(self) -> str:
        return f"{self.player_id}.{self.nonce}.{self.mac}"

    def belongs_to(self, player_id: str, password_hash: str) -> bool:
        """Whether this browser signed in as ``player_id`` since its password was set."""
        return self.player_id == player_id and hmac.compare_digest(
            self.mac, _mac(player_id, self.nonce, password_hash))

    @property
    def key(self) -> str:
        """Its rate-limit key: one window per known browser of an account."""
        return f"{self.player_id}|{self.nonce}"


def presented(connection: HTTPConnection) -> Device | None:
    return Device.parse(connection.cookies.get(COOKIE))


def set_device_cookie(request: Request, response: Response, player_id: str,
                      password_hash: str) -> None:
    device = Device.made_for(player_id, password_hash)
    response.set_cookie(COOKIE, device.value(), max_age=MAX_AGE, path=PATH, httponly=True,
                        samesite="strict", secure=_secure(request))


def clear_device_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path=PATH, httponly=True, samesite="strict",
                           secure=_secure(request))
