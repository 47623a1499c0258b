"""One actor per live table: commands in order, log before acknowledge, views fan out.

Every change of the match goes the same way: validate, ``engine.apply``,
append the event (with the chance outcomes it drew) to the log and commit,
then send each connection its own ``view(seat)``.  Nothing is acknowledged or
broadcast before the commit; if the commit fails the table is rebuilt from
the log, so memory never runs ahead of what is durable (``table_commit``: database
faults, and answering every command whatever goes wrong).

The actor's other duties live beside it: ``table_turns`` (the turn clock, timeouts,
computer moves), ``table_presence`` (seats, connections, the grace period, leaving) and
``table_talk`` (chat, the host's settings, ending a match by agreement).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import Action, IllegalAction, get_game
from ..engine.api import State
from ..store import EventRecord, Store, TableRecord
from . import protocol as p
from .chat import ChatRoom
from .config import Settings
from .connection import Connection
from .log_writer import LogWriter
from .table_commit import CommitMixin, SaveFailed, needs_log
from .table_eviction import EvictionMixin, Home
from .table_presence import PresenceMixin, SeatPresence, host_of
from .table_replay import Replayed, rebuild
from .table_settings import TableSettings, is_express
from .table_talk import TalkMixin
from .table_turns import TurnsMixin, now_ms

log = logging.getLogger("cardtable.table")

__all__ = ["Table", "rebuild", "stored_info"]


def settings_of(record: TableRecord) -> TableSettings:
    """The table's settings (its row's ``private`` column counts for old rows without)."""
    invited = any(s.kind == "human" for s in record.seats[1:])
    return TableSettings.from_record({"private": record.private, **record.settings},
                                     record.players, invited)


def seat_infos(record: TableRecord, settings: TableSettings, presence: list[SeatPresence],
               live: set[int]) -> list[p.SeatInfo]:
    """What everyone may know of the seats: ``live`` are the seats with a connection."""
    out = []
    for s in record.seats:
        held = presence[s.seat]
        deadline = held.reconnect_deadline
        out.append(p.SeatInfo(
            seat=s.seat, name=s.name, kind=s.kind,  # type: ignore[arg-type]
            taken=s.name is not None, connected=s.kind == "bot" or s.seat in live,
            level=settings.levels[s.seat], standin=held.standin,  # type: ignore[arg-type]
            reconnect_deadline=None if deadline is None else int(deadline * 1000),
            timeouts=held.timeouts))
    return out


def stored_info(record: TableRecord) -> p.TableInfo:
    """The table info of a stored table nobody has loaded yet (the lobby at start-up):
    nobody connected, nothing held, options and settings as saved."""
    settings = settings_of(record)
    return p.TableInfo(
        table_id=record.table_id, code=record.code, game=record.game,
        title=p.title_of(record.game), options=record.options,
        status=record.status, seats=seat_infos(  # type: ignore[arg-type]
            record, settings, [SeatPresence() for _ in record.seats], set()),
        settings=settings.to_json(), express=is_express(record.game, record.options),
        spectators=0, host=host_of(record.seats), now=now_ms())


@dataclass
class _Command:
    kind: str
    conn: Connection | None = None
    frame: Any = None
    data: Any = None
    done: asyncio.Future[Any] | None = None


@dataclass
class Table(CommitMixin, TurnsMixin, PresenceMixin, TalkMixin, EvictionMixin):
    """A live table: its record, match state, version and connections."""

    record: TableRecord
    state: State
    version: int
    store: Store
    settings: Settings
    log_writer: LogWriter
    commands: dict[str, int] = field(default_factory=dict)
    connections: set[Connection] = field(default_factory=set)
    rematch_votes: set[int] = field(default_factory=set)
    end_votes: set[int] = field(default_factory=set)
    ended: str | None = None
    moves: int = 0  # moves in the current match: its rules may change while there are none
    notify: Callable[[Table], None] | None = None  # the lobby hears of every change
    options: dict[str, Any] = field(default_factory=dict)  # the rules of this (or the next) match
    home: Home | None = None  # the registry: told when the table leaves memory

    def __post_init__(self) -> None:
        self.options = self.options or dict(self.record.options)
        self._inbox: asyncio.Queue[_Command] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._clock = None
        self._rng = random.Random(secrets.randbits(64))  # only the easy computers' slips
        self.chat = ChatRoom()
        self.table_settings: TableSettings = settings_of(self.record)
        self.presence: list[SeatPresence] = [SeatPresence() for _ in self.record.seats]
        for seat, muted in self.record.mutes.items():
            if 0 <= int(seat) < len(self.presence):
                self.presence[int(seat)].mutes = set(muted)
        self._touched = time.monotonic()  # idle from its creation or load
        self._waiting = []

    @classmethod
    def from_log(cls, record: TableRecord, replayed: Replayed, version: int,
                 **services: Any) -> Table:
        table = cls(record=record, state=replayed.state, version=version,
                    commands=replayed.commands, moves=replayed.moves, ended=replayed.ended,
                    options=replayed.options, **services)
        for seat, presence in enumerate(table.presence):
            presence.timeouts = replayed.timeouts.get(seat, 0)
            presence.misses = replayed.misses.get(seat, 0)
            if seat in replayed.asleep and record.seats[seat].kind == "human":
                presence.standin = "timeouts"
        return table

    @property
    def table_id(self) -> str:
        return self.record.table_id

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, loaded: bool = False) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table {self.table_id}")
        if loaded and not self._restore_runtime():  # back from eviction, or a fresh load
            self._hold_all_seats()
        self._next_turn()

    async def stop(self) -> None:
        self._stop_clock()
        for presence in self.presence:
            presence.cancel_grace()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            command = await self._inbox.get()
            try:
                # A commit that failed while the log could not be read may have landed:
                # the log is read again before anything else is written. (Reading goes
                # on from memory: it is at most that one commit behind the log.)
                if self._suspect and needs_log(command) and not await self._reload():
                    raise SaveFailed("the database cannot be reached")
                result = await getattr(self, f"_on_{command.kind}")(command)
                if command.done is not None and not command.done.done():
                    command.done.set_result(result)
            except Exception as error:  # one bad command must not kill the table
                try:
                    await self._failed(command, error)
                except Exception:  # not even an answer: the table must live on
                    log.exception("table %s: could not answer a failed %s", self.table_id,
                                  command.kind)

    def _post(self, kind: str, data: Any = None) -> None:
        """Queue a command of the table's own (a timer went off); an evicted table has
        none: the table loaded again sets its own timers."""
        if not self.evicted:
            self._enqueue(_Command(kind, data=data))

    async def _ask(self, kind: str, **fields: Any) -> Any:
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._enqueue(_Command(kind, done=done, **fields))
        return await done

    def submit(self, conn: Connection, frame: Any) -> None:
        """Queue a frame from a connection (answers go to the connection)."""
        self._enqueue(_Command("frame", conn=conn, frame=frame))

    async def join(self, name: str, seat: int | None = None) -> tuple[int, str] | str:
        """Take a free seat (the first, or ``seat``): (seat, token), or why not."""
        result: tuple[int, str] | str = await self._ask("join", data=(name, seat))
        return result

    async def attach(self, conn: Connection, hello: p.Hello) -> str | None:
        """Welcome the connection, or the error code that refuses it."""
        refused: str | None = await self._ask("attach", conn=conn, frame=hello)
        return refused

    def detach(self, conn: Connection) -> None:
        self._enqueue(_Command("detach", conn=conn))

    async def info(self) -> p.TableInfo:
        info: p.TableInfo = await self._ask("info")
        return info

    # -- what clients see -----------------------------------------------------------------

    def _seat_infos(self) -> list[p.SeatInfo]:
        live = {c.seat for c in self.connections if c.seat is not None}
        return seat_infos(self.record, self.table_settings, self.presence, live)

    def _spectators(self) -> int:
        return sum(1 for c in self.connections if c.seat is None)

    def table_info(self) -> p.TableInfo:
        return p.TableInfo(
            table_id=self.table_id, code=self.record.code, game=self.record.game,
            title=p.title_of(self.record.game), options=self.options,
            status=self._status(), seats=self._seat_infos(),  # type: ignore[arg-type]
            settings=self.table_settings.to_json(),
            express=is_express(self.record.game, self.options),
            spectators=self._spectators(), host=self._host(), now=now_ms())

    def _status(self) -> str:
        if self.state.is_over() or self.ended:
            return "over"
        if any(s.name is None for s in self.record.seats):
            return "waiting"
        return "playing"

    def _table_meta(self) -> dict[str, Any]:
        return {"rematch": sorted(self.rematch_votes), "clock": self._clock_json(),
                "end_votes": sorted(self.end_votes), "ended": self.ended}

    def _view_frame(self, seat: int | None, events: list[Any] = (),  # type: ignore[assignment]
                    ack: str | None = None) -> str:
        return p.view_frame(self.version, self.state.view(seat), [e.view(seat) for e in events],
                            ack, self._table_meta())

    def _snapshot(self, conn: Connection) -> None:
        conn.send(self._view_frame(conn.seat))

    def _error(self, conn: Connection, code: str, message: str, ref: str | None = None,
               snapshot: bool = True) -> None:
        conn.send(p.frame("error", self.version, p.ErrorData(code=code, message=message, id=ref)))
        if snapshot:
            self._snapshot(conn)

    def _broadcast(self, events: list[Any], ack_seat: int | None, ack: str | None) -> None:
        frames: dict[tuple[int | None, bool], str] = {}
        for conn in list(self.connections):
            acked = ack is not None and conn.seat == ack_seat
            key = (conn.seat, acked)
            if key not in frames:
                frames[key] = self._view_frame(conn.seat, events, ack if acked else None)
            conn.send(frames[key], resync=functools.partial(self._view_frame, conn.seat))

    def _seats_changed(self, table: bool = False) -> None:
        """Tell everyone (and the lobby) about the seats; ``table``: the settings too."""
        if table:
            text = p.frame("table", self.version, self.table_info())
        else:
            text = p.frame("seats", self.version, p.SeatsData(
                seats=self._seat_infos(), spectators=self._spectators(), now=now_ms()))
        self._watchers_told = self._spectators()  # the count went out with the seats
        for conn in list(self.connections):
            conn.send(text)
        if self.notify is not None:
            self.notify(self)

    # -- commands -----------------------------------------------------------------------------

    async def _on_info(self, _: _Command) -> p.TableInfo:
        return self.table_info()

    async def _on_frame(self, command: _Command) -> None:
        conn, frame = command.conn, command.frame
        assert conn is not None
        if conn not in self.connections:
            return  # it left while the frame waited
        if isinstance(frame, p.Hello):
            self._error(conn, "hello_first", "this connection has said hello already")
        elif isinstance(frame, p.Sync):
            self._snapshot(conn)
        elif isinstance(frame, p.Ping):
            conn.send(p.frame("pong", self.version, {}))
        elif isinstance(frame, p.Rematch):
            await self._rematch(conn)
        elif isinstance(frame, p.Act):
            await self._act(conn, frame)
        elif isinstance(frame, p.Chat):
            await self._chat(conn, frame)
        elif isinstance(frame, p.Mute):
            await self._mute(conn, frame)
        elif isinstance(frame, p.EndVote):
            await self._end_vote(conn, frame)
        elif isinstance(frame, p.ChangeSettings):
            await self._change_settings(conn, frame)
        elif isinstance(frame, p.Empty):
            await {"start": self._start, "resume": self._resume,
                   "leave": self._leave}[frame.t](conn)

    async def _act(self, conn: Connection, frame: p.Act) -> None:
        ref = frame.d.id
        seat = conn.seat
        if seat is None:
            return self._error(conn, "spectator", "spectators cannot act", ref)
        if f"{seat}:{ref}" in self.commands:  # a retry: applied once, acknowledged again
            return conn.send(self._view_frame(seat, ack=ref))
        if frame.v != self.version:
            return self._error(conn, "stale", f"you acted on version {frame.v}; the table is "
                               f"at {self.version}", ref)
        status = self._status()
        if status != "playing":
            why = ("the match starts when every seat is taken" if status == "waiting"
                   else "the match is over")
            return self._error(conn, "not_playing", why, ref)
        if self.state.current_player() != seat:
            return self._error(conn, "not_your_turn", "it is not your turn", ref)
        try:
            action = Action.from_json(frame.d.action)
        except ValueError as error:
            return self._error(conn, "bad_action", str(error), ref)
        presence = self.presence[seat]
        if presence.standin is not None:  # he acts again: the seat is his
            presence.standin = None
            self._seats_changed()
        await self._apply(seat, action, ref, conn)

    async def _apply(self, seat: int, action: Action, ref: str | None,
                     conn: Connection | None, kind: str = "action") -> bool:
        drawn = len(self.state.chance_outcomes())
        try:
            events = self.state.apply(action)
        except IllegalAction as error:
            if conn is not None:
                self._error(conn, "illegal", error.reason, ref)
            return False
        event = EventRecord(version=self.version + 1, kind=kind, seat=seat, cmd_id=ref,
                            payload=action.to_json(),
                            chance=self.state.chance_outcomes()[drawn:])
        if not await self._commit(event, conn, ref, functools.partial(self._undo_move, drawn)):
            return False
        self.moves += 1
        self._last_move = (seat, action.type)
        if ref is not None:
            self.commands[f"{seat}:{ref}"] = self.version
            self.presence[seat].misses = 0
        self._next_turn()  # first: the views carry the next turn's clock
        self._broadcast(events, seat, ref)
        if self.state.is_over():
            self._seats_changed()
        return True

    async def _rematch(self, conn: Connection) -> None:
        if conn.seat is None:
            return self._error(conn, "spectator", "spectators cannot ask for a rematch")
        if self._status() != "over":
            return self._error(conn, "not_over", "a rematch is possible once the match is over")
        self.rematch_votes.add(conn.seat)
        humans = {s.seat for s in self.record.seats if s.kind == "human"}
        if not humans <= self.rematch_votes:
            return self._broadcast([], None, None)
        game = get_game(self.record.game)
        options = game.Options.from_dict(self.options)
        fresh = game.new_match(options, players=self.record.players, rng=secrets.SystemRandom())
        previous, self.state = self.state, fresh
        event = EventRecord(version=self.version + 1, kind="rematch", seat=conn.seat,
                            cmd_id=None, payload={"options": self.options},
                            chance=fresh.chance_outcomes())
        if not await self._commit(event, conn, None,
                                  functools.partial(setattr, self, "state", previous)):
            return
        self.rematch_votes.clear()
        self.end_votes.clear()
        self.ended, self.moves = None, 0
        for presence in self.presence:
            presence.timeouts = presence.misses = 0
            if presence.standin == "timeouts":
                presence.standin = None
        await self._settle_row()  # the event is logged: a failure here only delays the row
        self._next_turn()
        self._broadcast([], None, None)
        self._seats_changed()
