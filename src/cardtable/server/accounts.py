"""Accounts: optional usernames and passwords over the guest identity (``players.py``).

* Passwords are hashed with argon2id (``argon2-cffi``'s maintained defaults; a hash made
  with older parameters is rehashed at the next sign-in). At least
  :data:`MIN_PASSWORD` characters, not one of the common passwords of
  ``common_passwords.txt``, and not the username.
* Usernames: 3 to 24 letters, digits, ``_`` ``-`` ``.``, unique whatever their case (the
  store keeps them casefolded in a unique column); shown only as text.
* Signing in (and registering) rotates the session: the browser's old session ends and a
  new cookie is set. Sign-in attempts are limited per account and per address
  (:data:`TRIES_PER_ACCOUNT`, :data:`TRIES_PER_ADDRESS` per :data:`TRY_WINDOW` seconds),
  so a password cannot be guessed by trying; within one process (a cluster's processes
  each keep their own count).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_PASSWORD = 10
MAX_PASSWORD = 256  # argon2 takes any length; a bound keeps a hostile body cheap
USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,24}$")
TRIES_PER_ACCOUNT, TRIES_PER_ADDRESS, TRY_WINDOW = 8, 30, 900.0

_hasher = PasswordHasher()


@cache
def common_passwords() -> frozenset[str]:
    text = (Path(__file__).with_name("common_passwords.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def username_problem(username: str) -> str | None:
    if not USERNAME.match(username):
        return "a username is 3 to 24 letters, digits, '_', '-' or '.'"
    return None


def password_problem(password: str, username: str) -> str | None:
    """Why ``password`` will not do (None: it will)."""
    if len(password) < MIN_PASSWORD:
        return f"a password needs at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"a password has at most {MAX_PASSWORD} characters"
    folded = password.casefold()
    if folded in common_passwords() or folded.rstrip("0123456789!") in common_passwords():
        return "that password is one of the most common ones; choose another"
    if username.casefold() in folded:
        return "a password must not contain the username"
    return None


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def check_password(password_hash: str, password: str) -> tuple[bool, str | None]:
    """Whether ``password`` matches, and a new hash when the old one's parameters are
    outdated (to store in its place)."""
    try:
        _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False, None
    return True, _hasher.hash(password) if _hasher.check_needs_rehash(password_hash) else None


def dummy_check(password: str) -> None:
    """As slow as a real check: an unknown username answers no faster than a wrong
    password, so timing does not tell which usernames exist."""
    check_password(_DUMMY, password)


_DUMMY = _hasher.hash("not anyone's password")
