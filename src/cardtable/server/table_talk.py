"""What people at a table say and agree on: chat, mutes, the host's settings, ending early.

Players' chat is read by everyone at the table; spectators' chat by spectators only, so
nobody watching can coach a player. Mutes are per seat (a spectator: per connection) and
hold for that listener only.

Chat is kept with the table in the database (the last :data:`HISTORY` lines per room), and
a line is saved before anyone reads it: what was said is still there after a restart or
an eviction. A seat's mutes are saved too (they are its person's); a spectator's live and
die with the connection.
"""

# mypy: disable-error-code="misc"
# (the mixins annotate self as the Table they are part of, for full checking)
from __future__ import annotations

import functools
import secrets
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..engine import get_game
from ..store import ChatRecord, EventRecord
from . import protocol as p
from .chat import HISTORY, ChatRefused, ChatRoom, Message
from .table_commit import SaveFailed

if TYPE_CHECKING:
    from .connection import Connection
    from .table import Table


class TalkMixin:
    chat: ChatRoom
    ended: str | None

    # -- chat ----------------------------------------------------------------------------

    def _may_read(self: Table, conn: Connection, message: Message) -> bool:
        if message.channel == "spectators" and conn.seat is not None:
            return False
        return message.seat is None or message.seat not in conn.muted

    async def _chat(self: Table, conn: Connection, frame: p.Chat) -> None:
        if conn.seat is None:
            if not self.table_settings.spectator_chat:
                return self._error(conn, "chat_off", "the host turned spectators' chat off",
                                   snapshot=False)
            sender, name, channel = f"spectator:{conn.number}", conn.name, "spectators"
        else:
            seat = self.record.seats[conn.seat]
            sender, name, channel = f"seat:{conn.seat}", seat.name or "Player", "players"
        now = round(time.time(), 3)  # whole ms, as the database gives it back
        try:
            message = self.chat.compose(sender, conn.seat, name, frame.d.text, channel, now)
        except ChatRefused as refused:
            return self._error(conn, refused.code, refused.message, snapshot=False)
        try:
            await self.store.append_chat(self.table_id, ChatRecord(
                seq=message.id, channel=channel, sender=sender, seat=conn.seat, name=name,
                text=message.text, created_at=datetime.fromtimestamp(now, UTC)), keep=HISTORY)
        except Exception as error:  # nobody read it: it was not said (the sender may retry)
            raise SaveFailed(f"the chat line could not be saved: {error!r}") from error
        self.chat.keep(message)
        text = p.frame("chat", self.version, message.to_json())
        for other in list(self.connections):
            if self._may_read(other, message):
                other.send(text)

    def _send_chat_history(self: Table, conn: Connection) -> None:
        rooms = ("players",) if conn.seat is not None else ("players", "spectators")
        readable = [m for m in self.chat.history(rooms) if self._may_read(conn, m)]
        messages = [m.to_json() for m in readable[-HISTORY:]]
        conn.send(p.frame("chat_history", self.version, {"messages": messages}))

    def restore_chat(self: Table, kept: list[ChatRecord]) -> None:
        """The history saved with the table, for the table loaded again."""
        self.chat.restore([Message(r.seq, r.channel, r.seat, r.name, r.text,
                                   r.created_at.timestamp(), r.sender) for r in kept])

    async def _mute(self: Table, conn: Connection, frame: p.Mute) -> None:
        seat = frame.d.seat
        if seat >= len(self.record.seats):
            return self._error(conn, "bad_seat", f"the table has no seat {seat}", snapshot=False)
        muted = conn.muted | {seat} if frame.d.muted else conn.muted - {seat}
        if conn.seat is not None and muted != conn.muted:  # a person's: saved with the table
            mutes = {str(s): sorted(held.mutes) for s, held in enumerate(self.presence)
                     if held.mutes and s != conn.seat}
            if muted:
                mutes[str(conn.seat)] = sorted(muted)
            try:
                await self.store.update_table(self.table_id, mutes=mutes)
            except Exception as error:
                raise SaveFailed(f"the mute could not be saved: {error!r}") from error
            self.record.mutes = mutes
        conn.muted.clear()  # in place: the seat's connections share the set
        conn.muted.update(muted)
        conn.send(p.frame("muted", self.version, {"seats": sorted(conn.muted)}))

    # -- ending early ----------------------------------------------------------------------

    async def _end_vote(self: Table, conn: Connection, frame: p.EndVote) -> None:
        if conn.seat is None:
            return self._error(conn, "spectator", "spectators do not vote", snapshot=False)
        if self._status() != "playing":
            return self._error(conn, "not_playing", "only a match being played can be ended",
                               snapshot=False)
        if not frame.d.agree:
            self.end_votes.clear()
            return self._broadcast([], None, None)
        self.end_votes.add(conn.seat)
        people = {s.seat for s in self.record.seats if s.kind == "human"}
        if not people <= self.end_votes:
            return self._broadcast([], None, None)
        event = EventRecord(version=self.version + 1, kind="end", seat=conn.seat, cmd_id=None,
                            payload={"reason": "agreed"}, chance=[])
        if not await self._commit(event, conn, None):
            return
        self.ended = "agreed"
        await self._settle_row()  # the event is logged: a failure here only delays the row
        self.end_votes.clear()
        self._stop_clock()
        self._broadcast([], None, None)
        self._seats_changed()

    # -- the host's settings ------------------------------------------------------------------

    async def _change_settings(self: Table, conn: Connection, frame: p.ChangeSettings) -> None:
        if not self._is_host(conn):
            return self._error(conn, "not_host", "only the host changes the settings",
                               snapshot=False)
        try:
            settings = self.table_settings.merged(frame.d.settings, self.record.players)
        except ValueError as error:
            return self._error(conn, "bad_settings", str(error), snapshot=False)
        options = None
        if frame.d.options is not None:
            if self.moves and self._status() != "over":
                return self._error(conn, "match_started", "the game's rules can change before "
                                   "the first move or after the match", snapshot=False)
            game = get_game(self.record.game)
            try:
                options = game.Options.from_dict(frame.d.options).to_dict()
            except ValueError as error:
                return self._error(conn, "bad_settings", str(error), snapshot=False)
        logged = options is not None and options != self.options
        if logged and options is not None:
            # Logged either way: replay must know which rules each match was played by.
            saved = (await self._next_rules(conn, options) if self._status() == "over"
                     else await self._redeal(conn, options))
            if not saved:
                return
            self.options = options
        redealt = options is not None and self._status() != "over"
        if redealt and options is not None:  # the current match is played by them
            self.record.options = options  # logged: the row's copy is derived from here on
        try:
            await self.store.update_table(self.table_id, settings=settings.to_json(),
                                          private=settings.private,
                                          options=options if redealt else None)
        except Exception as error:
            if not logged:
                raise SaveFailed(f"the settings could not be saved: {error!r}") from error
            # The new rules are logged (and a redeal dealt): everyone sees them; the other
            # settings stay as they were and their sender is asked to try again.
            self._row_dirty = True
            self._schedule_heal()
            self._seats_changed(table=True)
            self._next_turn()
            self._broadcast([], None, None)
            raise SaveFailed(f"the rules changed; the settings could not be saved: "
                             f"{error!r}") from error
        self.record.settings, self.record.private = settings.to_json(), settings.private
        time_changed = settings.turn_time != self.table_settings.turn_time
        self.table_settings = settings
        if not settings.spectators:
            self._close_spectators()
        if time_changed:
            self._stop_clock()  # the new time counts from now
        self._seats_changed(table=True)
        self._next_turn()
        self._broadcast([], None, None)

    async def _next_rules(self: Table, conn: Connection, options: dict[str, Any]) -> bool:
        """New rules after a match: the rematch will be played by them."""
        event = EventRecord(version=self.version + 1, kind="options", seat=conn.seat,
                            cmd_id=None, payload={"options": options}, chance=[])
        return await self._commit(event, conn, None)

    async def _redeal(self: Table, conn: Connection, options: dict[str, Any]) -> bool:
        """New rules before the first move: the cards are dealt again under them."""
        game = get_game(self.record.game)
        fresh = game.new_match(game.Options.from_dict(options), players=self.record.players,
                               rng=secrets.SystemRandom())
        previous, self.state = self.state, fresh
        event = EventRecord(version=self.version + 1, kind="redeal", seat=conn.seat,
                            cmd_id=None, payload={"options": options},
                            chance=fresh.chance_outcomes())
        return await self._commit(event, conn, None,
                                  functools.partial(setattr, self, "state", previous))
