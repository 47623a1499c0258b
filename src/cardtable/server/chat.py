"""Table chat: plain text, short, unhurried, never the same line twice in a row.

Two rooms share one table: the players' room (read by everyone at the table) and the
spectators' room (read by spectators only, so nobody watching can coach a player). The
rules are checked here, each refusal with a code the client shows as it is:

=================  ==========================================================
code               refused because
=================  ==========================================================
``chat_empty``     nothing left after removing control characters and spaces
``chat_too_long``  more than 300 characters
``chat_rate``      a sixth message within 10 seconds
``chat_repeat``    the same text as the sender's previous message
=================  ==========================================================

>>> room = ChatRoom()
>>> room.post("seat:0", 0, "Ann", "  good\\u0000 game ", "players", now=1.0).text
'good game'
>>> room.post("seat:0", 0, "Ann", "good game", "players", now=2.0)
Traceback (most recent call last):
...
cardtable.server.chat.ChatRefused: chat_repeat: you just said that
"""

from __future__ import annotations

import unicodedata
from collections import deque
from dataclasses import dataclass, field

MAX_LENGTH = 300
RATE_MESSAGES, RATE_WINDOW = 5, 10.0
HISTORY = 50  # kept per room, in memory and in the database
MAX_SENDERS = 64  # senders remembered before those quiet for a window are forgotten
QUICK_PHRASES = ("Good game", "Nice play", "Hurry up?")


class ChatRefused(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


@dataclass(frozen=True)
class Message:
    id: int
    channel: str  # "players" | "spectators"
    seat: int | None
    name: str
    text: str
    at: float  # seconds since the epoch
    sender: str = ""  # whose limits it counts for ("seat:1", "spectator:7"); never sent
    author: str | None = None  # the player who said it (server/moderation.py); never sent

    def to_json(self) -> dict[str, object]:
        # round, not int: a time kept in whole ms reads back as a float a hair below it
        return {"id": self.id, "channel": self.channel, "seat": self.seat, "name": self.name,
                "text": self.text, "at": round(self.at * 1000)}


def clean(text: str) -> str:
    """Plain text: control and format characters go (they can reorder or hide what is
    shown), runs of white space become one space."""
    kept = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch)[0] != "C")
    return " ".join(kept.split())


@dataclass
class ChatRoom:
    # One history per room, so a crowd of spectators cannot push the players' talk out.
    rooms: dict[str, deque[Message]] = field(default_factory=dict)
    _recent: dict[str, deque[float]] = field(default_factory=dict)
    _last: dict[str, str] = field(default_factory=dict)
    _next_id: int = 1

    def post(self, sender: str, seat: int | None, name: str, text: str, channel: str,
             now: float) -> Message:
        """Add a message from ``sender`` (a key per person) or raise :class:`ChatRefused`."""
        message = self.compose(sender, seat, name, text, channel, now)
        self.keep(message)
        return message

    def compose(self, sender: str, seat: int | None, name: str, text: str, channel: str,
                now: float) -> Message:
        """The message ``sender`` may post, not yet kept (:meth:`keep` it once it is saved),
        or :class:`ChatRefused`. The attempt counts against the rate limit either way."""
        text = clean(text)
        if not text:
            raise ChatRefused("chat_empty", "write something first")
        if len(text) > MAX_LENGTH:
            raise ChatRefused("chat_too_long",
                              f"a message has at most {MAX_LENGTH} characters, not {len(text)}")
        recent = self._recent.setdefault(sender, deque())
        while recent and now - recent[0] >= RATE_WINDOW:
            recent.popleft()
        if len(recent) >= RATE_MESSAGES:
            wait = max(1, round(RATE_WINDOW - (now - recent[0])))
            raise ChatRefused("chat_rate", f"at most {RATE_MESSAGES} messages in "
                              f"{RATE_WINDOW:.0f} seconds; wait {wait} s")
        if self._last.get(sender) == text.casefold():
            raise ChatRefused("chat_repeat", "you just said that")
        recent.append(now)
        if len(self._recent) > MAX_SENDERS:
            self._forget_quiet(now)
        return Message(self._next_id, channel, seat, name, text, now, sender)

    def keep(self, message: Message) -> None:
        """Add a composed (and saved) message to its room's history."""
        self._last[message.sender] = message.text.casefold()
        self._next_id = max(self._next_id, message.id + 1)
        self.rooms.setdefault(message.channel, deque(maxlen=HISTORY)).append(message)

    def restore(self, messages: list[Message]) -> None:
        """Take back the kept history of a table coming back into memory (oldest first).
        The players' repeat check goes on from their last lines; spectators are new
        connections, so theirs starts afresh."""
        for message in messages:
            self.keep(message)
        self._last = {sender: text for sender, text in self._last.items()
                      if sender.startswith("seat:")}

    def _forget_quiet(self, now: float) -> None:
        """Drop the limits of senders quiet for a whole window (spectators come and go:
        a table watched for months must not remember every one of them)."""
        for sender, times in list(self._recent.items()):
            if not times or now - times[-1] >= RATE_WINDOW:
                del self._recent[sender]
                if not sender.startswith("seat:"):
                    self._last.pop(sender, None)

    def history(self, channels: tuple[str, ...]) -> list[Message]:
        """The kept messages of these rooms, oldest first."""
        kept = [m for channel in channels for m in self.rooms.get(channel, ())]
        return sorted(kept, key=lambda m: m.id)
