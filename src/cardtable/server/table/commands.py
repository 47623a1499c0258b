"""What a table actor is asked to do: one typed command per kind, handled in order.

A connection's frame arrives as :class:`FromClient` (the frame is one of the pydantic
models of ``protocol``); the HTTP side and the socket's life put :class:`Join`,
:class:`Attach`, :class:`Detach` and :class:`Info`; the table's own timers put the rest.
A :class:`Question` is answered through its future once it has been handled.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from .. import protocol as p
from ..connection import Connection
from ..players import Sitter


@dataclass(frozen=True, eq=False)
class Question:
    """A command whose sender waits for the answer (or the error) in ``done``."""

    done: asyncio.Future[Any]


# -- from outside ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FromClient:
    """A frame a connection sent (answers go to the connection)."""

    conn: Connection
    frame: p.AnyClientFrame
    at: float = field(default_factory=time.perf_counter)  # received: for /metrics


@dataclass(frozen=True, eq=False)
class Join(Question):
    """Take a free seat (the first, or ``seat``): (seat, token), or why not."""

    name: str
    seat: int | None
    sitter: Sitter  # who sits down (his lasting identity, account, address)


@dataclass(frozen=True, eq=False)
class Attach(Question):
    """Welcome a connection that said hello: None, or the error code that refuses it."""

    conn: Connection
    hello: p.Hello


@dataclass(frozen=True, eq=False)
class Detach:
    """A connection closed."""

    conn: Connection


@dataclass(frozen=True, eq=False)
class Info(Question):
    """The table info, as the lobby and the HTTP API show it."""


# -- the table's own timers ------------------------------------------------------------------


@dataclass(frozen=True)
class ComputerMove:
    """A computer's move is due, if the table is still at ``version``."""

    version: int


@dataclass(frozen=True)
class TurnTimeout:
    """``seat``'s turn clock, started at ``version``, ran out."""

    seat: int
    version: int


@dataclass(frozen=True)
class GraceOver:
    """The grace period of ``seat``'s dropped person is over."""

    seat: int


@dataclass(frozen=True)
class SpectatorCount:
    """The spectator count held back by the rate limit may go out."""


@dataclass(frozen=True)
class HostBlocked:
    """``blocker`` blocked ``blocked``: if he is the host of this private table, the
    blocked player's spectator sockets here leave it (server/moderation.py)."""

    blocker: str
    blocked: str


@dataclass(frozen=True)
class Heal:
    """Try again what the database refused (a reload, the row, a computer's move)."""


@dataclass(frozen=True)
class Evict:
    """The registry's sweeper offers the table an eviction."""


@dataclass(frozen=True, eq=False)
class HandOver(Question):
    """This process stops (scale-out): leave memory between two commands, sockets told
    to reconnect, so that another process takes the table over."""


Command = (FromClient | Join | Attach | Detach | Info | ComputerMove | TurnTimeout
           | GraceOver | SpectatorCount | HostBlocked | Heal | Evict | HandOver)

# Frames served from memory: chat and mutes are saved apart from the log, a resume
# changes nothing the log says, a hint is no move (``hints``).
_READ_FRAMES = (p.Hello, p.Sync, p.Ping, p.Chat, p.Mute, p.AskHint)


def needs_log(command: Command) -> bool:
    """Whether handling ``command`` may change the match, the log or the seats: then
    memory must be the log's first. (The heal timer reloads by itself.)"""
    match command:
        case ComputerMove() | TurnTimeout() | Join():
            return True
        case FromClient(frame=frame):
            resume = isinstance(frame, p.Empty) and frame.t == "resume"
            return not (resume or isinstance(frame, _READ_FRAMES))
        case _:
            return False


def describe(command: Command) -> str:
    """The command in a log line: its kind, and a client frame's type."""
    if isinstance(command, FromClient):
        return f"frame {command.frame.t!r}"
    return type(command).__name__


def ref_of(command: Command) -> str | None:
    """The command id an answer to ``command`` carries (an act's or a hint's), else None."""
    if isinstance(command, FromClient) and isinstance(command.frame, p.Act | p.AskHint):
        return command.frame.d.id
    return None


def sender_of(command: Command) -> Connection | None:
    """The connection ``command`` came from or is about, if any."""
    match command:
        case FromClient(conn=conn) | Attach(conn=conn) | Detach(conn=conn):
            return conn
        case _:
            return None
