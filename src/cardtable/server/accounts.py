"""Accounts: optional usernames and passwords over the guest identity (``players.py``).

* Passwords are hashed with argon2id (``argon2-cffi``'s maintained defaults; a hash made
  with older parameters is rehashed at the next sign-in). At least
  :data:`MIN_PASSWORD` characters, not one of the common passwords of
  ``common_passwords.txt``, not the username, and hard to guess by ``zxcvbn``'s estimate
  (a score of at least :data:`MIN_SCORE`; a refusal gives its warning and suggestions).
* The work a password costs (argon2, and ``zxcvbn``, slow on long text) runs in worker
  threads, at most ``CARDTABLE_HASH_WORKERS`` at once (:class:`PasswordWork`): the event
  loop, and every table of the process, never waits on it.
* Usernames: 3 to 24 letters, digits, ``_`` ``-`` ``.``, unique whatever their case (the
  store keeps them casefolded in a unique column); shown only as text.
* Signing in (and registering) rotates the session: the browser's old session ends and a
  new cookie is set, and so is a device cookie (``devices.py``) that marks the browser as
  one this account signed in from.
* Sign-in tries are limited (``routes/accounts.py``): a browser without the account's
  device cookie to :data:`TRIES_PER_ADDRESS` per address, :data:`TRIES_PER_ACCOUNT_ADDRESS`
  per account from one address and :data:`TRIES_PER_ACCOUNT` per account from everywhere;
  a browser with it only to :data:`TRIES_PER_DEVICE` of its own, so strangers who spend an
  account's tries never lock its owner out of the browsers he uses. Registrations are
  limited to :data:`REGISTERS_PER_ADDRESS` per address. Every window is
  :data:`TRY_WINDOW` seconds and counts across the cluster when the processes share a
  Redis (``rate_limits.py``); a single process counts in memory, so its windows start
  empty again when it restarts.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..names import given_name_problem

MIN_PASSWORD = 10
MAX_PASSWORD = 256  # argon2 takes any length; a bound keeps a hostile body cheap
USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,24}$")
TRY_WINDOW = 900.0  # seconds: every window below
TRIES_PER_ADDRESS = 30  # sign-in tries from one address, at any accounts
TRIES_PER_ACCOUNT_ADDRESS = 8  # at one account from one address
TRIES_PER_ACCOUNT = 40  # at one account from every address (not its known browsers)
TRIES_PER_DEVICE = 8  # at one account from one of its known browsers (its device cookie)
REGISTERS_PER_ADDRESS = 10  # registrations tried from one address (taken names too)
MIN_SCORE = 3  # zxcvbn's 0-4: 3 is "safely unguessable: moderate protection offline"
JUDGED_LENGTH = 72  # zxcvbn's own bound: it judges the first 72 characters (slow beyond)

_hasher = PasswordHasher()


@cache
def common_passwords() -> frozenset[str]:
    text = (Path(__file__).with_name("common_passwords.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def username_problem(username: str) -> str | None:
    if not USERNAME.match(username):
        return "a username is 3 to 24 letters, digits, '_', '-' or '.'"
    return given_name_problem(username)  # not "Guest": every guest would pass for him


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
    return _guessable(password, username)


def _guessable(password: str, username: str) -> str | None:
    """zxcvbn's verdict: its warning and suggestions when the password is too easy.

    >>> print(_guessable("aaaaaaaaaa", "zed"))  # doctest: +ELLIPSIS
    that password is too easy to guess. Repeats like "aaa" are easy to guess. ...
    >>> _guessable("violets are blue", "zed") is None
    True
    """
    from zxcvbn import zxcvbn  # its dictionaries load on the first password judged

    judged = zxcvbn(password[:JUDGED_LENGTH], user_inputs=[username])
    if judged["score"] >= MIN_SCORE:
        return None
    feedback = judged["feedback"]
    advice = " ".join(part for part in [feedback["warning"], *feedback["suggestions"]] if part)
    return f"that password is too easy to guess. {advice or 'Add another word or two.'}"


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


_Result = TypeVar("_Result")


class PasswordWork:
    """argon2 and zxcvbn off the event loop: each call runs in a worker thread, at most
    ``workers`` at once (the others wait their turn without holding a thread), so a burst
    of registrations and sign-ins costs the process at most that many cores and its
    tables none of their loop."""

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError("the password work needs at least one worker")
        self._slots = asyncio.Semaphore(workers)

    async def _run(self, work: Callable[..., _Result], *args: str) -> _Result:
        async with self._slots:
            job = asyncio.ensure_future(asyncio.to_thread(work, *args))
            try:
                return await asyncio.shield(job)
            except asyncio.CancelledError:
                # A thread cannot be stopped: its slot stays taken until it ends, or a
                # client that hangs up would let the next one start past the bound.
                await asyncio.wait([job])
                raise

    async def problem(self, password: str, username: str) -> str | None:
        return await self._run(password_problem, password, username)

    async def hash(self, password: str) -> str:
        return await self._run(hash_password, password)

    async def check(self, password_hash: str, password: str) -> tuple[bool, str | None]:
        return await self._run(check_password, password_hash, password)

    async def dummy_check(self, password: str) -> None:
        await self._run(dummy_check, password)


def dummy_check(password: str) -> None:
    """As slow as a real check: an unknown username answers no faster than a wrong
    password, so timing does not tell which usernames exist."""
    check_password(_dummy_hash(), password)


# A hash of "not anyone's password" made with the hasher's parameters: hashing it at
# import cost every start-up 0.17 CPU-s.  Should argon2-cffi's defaults change, the
# stored one would check at other costs than a real hash, so it is made anew (once).
_DUMMY = ("$argon2id$v=19$m=65536,t=3,p=4$hHoF9IsOnHBjB/ASl1oQ3g$"
          "EmTYZKPvLmXWE5rMRB/u8uN3sEqmSedxRZ5Xz0iHlRI")


@cache
def _dummy_hash() -> str:
    if _hasher.check_needs_rehash(_DUMMY):
        return _hasher.hash("not anyone's password")
    return _DUMMY
