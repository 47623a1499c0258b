"""The server's small vocabularies: kinds of event-log rows and WebSocket close codes.

Both are written to places that outlive a process (the log, a client's
reconnect logic), so each is one enum, str- or int-valued as it is stored.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class LogKind(StrEnum):
    """The ``kind`` of a row in a table's event log."""

    ACTION = "action"  # a seat's move (a person's or a computer's)
    TIMEOUT = "timeout"  # the move played when a turn clock ran out
    AUTO = "auto"  # the rest of a timed-out turn, or a stand-in's move
    OPTIONS = "options"  # the host changed the game's options between matches
    END = "end"  # the match ended by agreement (or was abandoned)
    START = "start"  # every seat is taken: the first match is dealt (nothing was before)
    REDEAL = "redeal"  # (old logs only) new options before the first move dealt again
    REMATCH = "rematch"  # the players agreed to play again


class CloseCode(IntEnum):
    """Why the server closed a WebSocket (4xxx: ours; the rest: RFC 6455)."""

    NORMAL = 1000  # done: the seat left the table
    GOING_AWAY = 1001  # the server is stopping
    SERVICE_RESTART = 1012  # the table moved to another process: reconnect now
    POLICY = 1008  # too many frames, or too many sockets open from one address
    TOO_BIG = 1009  # a frame above the size limit
    TRY_LATER = 1013  # the database is unavailable; reconnect later
    BAD_TOKEN = 4003  # the seat token is wrong
    UNKNOWN_TABLE = 4004
    NO_SPECTATORS = 4005  # this table admits no spectators
    SPECTATORS_FULL = 4006  # the spectator cap is reached
    HOST_REFUSES = 4007  # the private table's host blocks this browser's player
    NO_HELLO = 4008  # no hello within the hello timeout: reconnect and say it at once
