"""What people at a table say and agree on: chat, mutes, a rematch, ending early, the
host's settings.

Players' chat is read by everyone at the table; spectators' chat by spectators only, so
nobody watching can coach a player. Mutes are per seat (a spectator: per connection) and
hold for that listener only.

Chat is kept with the table in the database (the last :data:`HISTORY` lines per room), and
a line is saved before anyone reads it: what was said is still there after a restart or
an eviction. A seat's mutes are saved too (they are its person's); a spectator's live and
die with the connection.

The host's settings are the table's :class:`~.table_settings.TableSettings` and the
game's typed options: the options a frame brings are parsed here once, and the table
keeps the parsed object.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

from ...engine import Descriptor, GameState
from ...engine.api import Options
from ...store import ChatRecord, EventRecord, SeatRecord, Store, TableRecord
from .. import protocol as p
from ..chat import HISTORY, ChatRefused, ChatRoom, Message
from ..codes import LogKind
from ..connection import Connection
from ..moderation import author_of, spectator_sender
from .commit import SaveFailed
from .presence import Presence
from .settings import TableSettings


class TalkHost(Protocol):
    """What the talk sees of its table."""

    fence: int | None  # the fencing token this process writes the table with

    @property
    def table_id(self) -> str: ...
    @property
    def record(self) -> TableRecord: ...
    @property
    def game(self) -> Descriptor: ...
    @property
    def store(self) -> Store: ...
    @property
    def version(self) -> int: ...
    @property
    def connections(self) -> set[Connection]: ...
    @property
    def presence(self) -> Presence: ...
    @property
    def rematch_votes(self) -> set[int]: ...
    @property
    def end_votes(self) -> set[int]: ...
    @property
    def state(self) -> GameState | None: ...  # None: not dealt yet

    options: Options
    ended: str | None
    moves: int
    table_settings: TableSettings

    def status(self) -> str: ...
    def is_host(self, conn: Connection) -> bool: ...
    async def match_finished(self) -> None: ...
    def error(self, conn: Connection, code: str, message: str, ref: str | None = None,
              snapshot: bool = True) -> None: ...
    def broadcast(self) -> None: ...
    def seats_changed(self, table: bool = False) -> None: ...
    def next_turn(self) -> bool: ...
    def stop_clock(self) -> None: ...
    def close_spectators(self) -> None: ...
    def row_lags(self) -> None: ...
    async def commit(self, event: EventRecord, conn: Connection | None,
                     ref: str | None) -> bool: ...
    async def settle_row(self) -> None: ...
    async def deal_again(self, kind: LogKind, seat: int | None, options: Options,
                         conn: Connection | None) -> bool: ...


class Talk:
    """The chat of one table, and the votes and settings its people send."""

    def __init__(self) -> None:
        self.chat = ChatRoom()

    # -- chat ----------------------------------------------------------------------------

    @staticmethod
    def _may_read(conn: Connection, message: Message) -> bool:
        if message.channel == "spectators" and conn.seat is not None:
            return False
        if message.author is not None and message.author in conn.blocked:
            return False  # he blocks its author: not at this table, nor at any other
        return message.seat is None or message.seat not in conn.muted

    async def say(self, table: TalkHost, conn: Connection, said: str) -> None:
        if conn.seat is None:
            if not table.table_settings.spectator_chat:
                return table.error(conn, "chat_off", "the host turned spectators' chat off",
                                   snapshot=False)
            sender, name, channel = (spectator_sender(conn.number, conn.player_id),
                                     conn.name, "spectators")
            author = conn.player_id
        else:
            seat = table.record.seats[conn.seat]
            sender, name, channel = f"seat:{conn.seat}", seat.name or "Player", "players"
            author = seat.player_id
        now = round(time.time(), 3)  # whole ms, as the database gives it back
        try:
            message = self.chat.compose(sender, conn.seat, name, said, channel, now)
        except ChatRefused as refused:
            return table.error(conn, refused.code, refused.message, snapshot=False)
        message = dataclasses.replace(message, author=author)
        try:
            await table.store.append_chat(table.table_id, ChatRecord(
                seq=message.id, channel=channel, sender=sender, seat=conn.seat, name=name,
                text=message.text, created_at=datetime.fromtimestamp(now, UTC)), keep=HISTORY,
                fence=table.fence)
        except Exception as error:  # nobody read it: it was not said (the sender may retry)
            raise SaveFailed(f"the chat line could not be saved: {error!r}") from error
        self.chat.keep(message)
        text = p.frame("chat", table.version, message.to_json())
        for other in list(table.connections):
            if self._may_read(other, message):
                other.send(text)

    def send_history(self, conn: Connection, version: int) -> None:
        rooms = ("players",) if conn.seat is not None else ("players", "spectators")
        readable = [m for m in self.chat.history(rooms) if self._may_read(conn, m)]
        messages = [m.to_json() for m in readable[-HISTORY:]]
        conn.send(p.frame("chat_history", version, {"messages": messages}))

    def restore(self, kept: Sequence[ChatRecord], seats: Sequence[SeatRecord] = ()) -> None:
        """The history saved with the table (of these ``seats``), for the table loaded
        again."""
        self.chat.restore([Message(r.seq, r.channel, r.seat, r.name, r.text,
                                   r.created_at.timestamp(), r.sender,
                                   author_of(seats, r.seat, r.sender)) for r in kept])

    async def mute(self, table: TalkHost, conn: Connection, seat: int, muting: bool) -> None:
        if seat >= len(table.record.seats):
            return table.error(conn, "bad_seat", f"the table has no seat {seat}",
                               snapshot=False)
        muted = conn.muted | {seat} if muting else conn.muted - {seat}
        if conn.seat is not None and muted != conn.muted:  # a person's: saved with the table
            mutes = {str(s): sorted(held.mutes) for s, held in enumerate(table.presence.seats)
                     if held.mutes and s != conn.seat}
            if muted:
                mutes[str(conn.seat)] = sorted(muted)
            try:
                await table.store.update_table(table.table_id, fence=table.fence, mutes=mutes)
            except Exception as error:
                raise SaveFailed(f"the mute could not be saved: {error!r}") from error
            table.record.mutes = mutes
        conn.muted.clear()  # in place: the seat's connections share the set
        conn.muted.update(muted)
        conn.send(p.frame("muted", table.version, {"seats": sorted(conn.muted)}))

    # -- agreeing --------------------------------------------------------------------------

    async def rematch_vote(self, table: TalkHost, conn: Connection) -> None:
        if conn.seat is None:
            return table.error(conn, "spectator", "spectators cannot ask for a rematch")
        if table.status() != "over":
            return table.error(conn, "not_over", "a rematch is possible once the match is over")
        table.rematch_votes.add(conn.seat)
        humans = {s.seat for s in table.record.seats if s.kind == "human"}
        if not humans <= table.rematch_votes:
            return table.broadcast()
        if not await table.deal_again(LogKind.REMATCH, conn.seat, table.options, conn):
            return
        table.rematch_votes.clear()
        table.end_votes.clear()
        table.ended, table.moves = None, 0
        table.presence.new_match()
        await table.settle_row()  # the event is logged: a failure here only delays the row
        table.next_turn()
        table.broadcast()
        table.seats_changed()

    async def end_vote(self, table: TalkHost, conn: Connection, agree: bool) -> None:
        if conn.seat is None:
            return table.error(conn, "spectator", "spectators do not vote", snapshot=False)
        if table.status() != "playing":
            return table.error(conn, "not_playing", "only a match being played can be ended",
                               snapshot=False)
        if not agree:
            table.end_votes.clear()
            return table.broadcast()
        table.end_votes.add(conn.seat)
        people = {s.seat for s in table.record.seats if s.kind == "human"}
        if not people <= table.end_votes:
            return table.broadcast()
        event = EventRecord(version=table.version + 1, kind=LogKind.END, seat=conn.seat,
                            cmd_id=None, payload={"reason": "agreed"}, chance=[])
        if not await table.commit(event, conn, None):
            return
        table.ended = "agreed"
        await table.settle_row()  # the event is logged: a failure here only delays the row
        table.end_votes.clear()
        table.stop_clock()
        await table.match_finished()  # first: whoever saw the end finds it in his history
        table.broadcast()
        table.seats_changed()

    # -- the host's settings ------------------------------------------------------------------

    async def change_settings(self, table: TalkHost, conn: Connection,
                              change: p.SettingsData) -> None:
        if not table.is_host(conn):
            return table.error(conn, "not_host", "only the host changes the settings",
                               snapshot=False)
        try:
            settings = table.table_settings.merged(change.settings, table.record.players)
        except ValueError as error:
            return table.error(conn, "bad_settings", str(error), snapshot=False)
        if settings.rated != table.table_settings.rated:
            return table.error(conn, "bad_settings", "rated: a table is rated or not from "
                               "the start", snapshot=False)
        options = None
        if change.options is not None:
            try:
                options = table.game.options.from_dict(change.options)
            except ValueError as error:
                return table.error(conn, "bad_settings", str(error), snapshot=False)
        logged = options is not None and options != table.options
        # Once dealt, a match keeps its rules: changing them must never deal again, or a
        # host could look at his cards and redeal until he liked them.
        if logged and table.state is not None and table.status() != "over":
            return table.error(conn, "match_started", "the rules are fixed once the cards "
                               "are dealt: they can change while the table waits for "
                               "players, or after the match", snapshot=False)
        if logged and options is not None:
            # Logged: replay must know which rules each match was played by.
            if not await self._next_rules(table, conn, options):
                return
            table.options = options
        redealt = logged and table.state is None  # the waiting table's match-to-be
        if redealt and options is not None:
            table.record.options = options.to_dict()  # logged: the row's copy follows it
        try:
            await table.store.update_table(table.table_id, fence=table.fence,
                                           settings=settings.to_json(),
                                           private=settings.private,
                                           options=table.record.options if redealt else None)
        except Exception as error:
            if not logged:
                raise SaveFailed(f"the settings could not be saved: {error!r}") from error
            # The new rules are logged: everyone sees them; the other
            # settings stay as they were and their sender is asked to try again.
            table.row_lags()
            table.seats_changed(table=True)
            table.next_turn()
            table.broadcast()
            raise SaveFailed(f"the rules changed; the settings could not be saved: "
                             f"{error!r}") from error
        table.record.settings, table.record.private = settings.to_json(), settings.private
        time_changed = settings.turn_time != table.table_settings.turn_time
        table.table_settings = settings
        if not settings.spectators:
            table.close_spectators()
        if time_changed:
            table.stop_clock()  # the new time counts from now
        table.seats_changed(table=True)
        table.next_turn()
        table.broadcast()

    async def _next_rules(self, table: TalkHost, conn: Connection, options: Options) -> bool:
        """New rules for the next match: the first (the table waits: nothing is dealt), or
        the rematch (after a match)."""
        event = EventRecord(version=table.version + 1, kind=LogKind.OPTIONS, seat=conn.seat,
                            cmd_id=None, payload={"options": options.to_dict()}, chance=[])
        return await table.commit(event, conn, None)
