"""One actor per live table: commands in order, log before acknowledge, views fan out.

Every change of the match goes the same way: validate, ``engine.apply``,
append the event (with the chance outcomes it drew) to the log and commit,
then send each connection its own ``view(seat)``.  Nothing is acknowledged or
broadcast before the commit; if the commit fails the table is rebuilt from
the log, so memory never runs ahead of what is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import Action, IllegalAction, get_game
from ..engine.api import State
from ..store import EventRecord, SeatRecord, Store, TableRecord
from . import protocol as p
from .config import Settings
from .connection import Connection
from .log_writer import LogWriter
from .security import hash_token, new_token, token_matches

log = logging.getLogger("cardtable.table")

Bot = Callable[[dict[str, Any]], Action]


BOTS = {"gin": "cardtable.bots.gin_simple", "rummy": "cardtable.bots.rummy_bot",
        "rummy500": "cardtable.bots.rummy500_bot", "romme": "cardtable.bots.romme_bot",
        "spades": "cardtable.bots.spades_bot", "indian": "cardtable.bots.indian_bot"}


def bot_for(game: str) -> Bot:
    """The computer player of ``game``: a module with ``choose(view) -> Action``."""
    if game not in BOTS:
        raise ValueError(f"no computer player for {game!r}")
    choose: Bot = importlib.import_module(BOTS[game]).choose
    return choose


def rebuild(record: TableRecord, events: list[EventRecord]) -> tuple[State, dict[str, int]]:
    """The current match from the log, and the command ids already applied."""
    game = get_game(record.game)
    chance: list[Any] = list(record.start_chance)
    actions: list[dict[str, Any]] = []
    commands: dict[str, int] = {}
    for event in events:
        if event.kind == "rematch":
            chance, actions = list(event.chance), []
        else:
            chance += event.chance
            actions.append(event.payload)
        if event.cmd_id is not None:
            commands[f"{event.seat}:{event.cmd_id}"] = event.version
    state = game.replay({"game": record.game, "options": record.options,
                         "players": record.players, "chance": chance, "actions": actions})
    return state, commands


@dataclass
class _Command:
    kind: str
    conn: Connection | None = None
    frame: Any = None
    data: Any = None
    done: asyncio.Future[Any] | None = None


@dataclass
class Table:
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

    def __post_init__(self) -> None:
        self._inbox: asyncio.Queue[_Command] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._bot = bot_for(self.record.game) if any(
            s.kind == "bot" for s in self.record.seats) else None
        self._views: dict[int | None, str] = {}

    @property
    def table_id(self) -> str:
        return self.record.table_id

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table {self.table_id}")
        self._schedule_bot()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            command = await self._inbox.get()
            try:
                result = await getattr(self, f"_on_{command.kind}")(command)
                if command.done is not None and not command.done.done():
                    command.done.set_result(result)
            except Exception as error:  # one bad command must not kill the table
                log.exception("table %s: %s failed", self.table_id, command.kind)
                if command.done is not None and not command.done.done():
                    command.done.set_exception(error)

    async def _ask(self, kind: str, **fields: Any) -> Any:
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait(_Command(kind, done=done, **fields))
        return await done

    def submit(self, conn: Connection, frame: Any) -> None:
        """Queue a frame from a connection (answers go to the connection)."""
        self._inbox.put_nowait(_Command("frame", conn=conn, frame=frame))

    async def join(self, name: str, seat: int | None = None) -> tuple[int, str] | str:
        """Take a free seat (the first, or ``seat``): (seat, token), or why not."""
        result: tuple[int, str] | str = await self._ask("join", data=(name, seat))
        return result

    async def attach(self, conn: Connection, hello: p.Hello) -> bool:
        accepted: bool = await self._ask("attach", conn=conn, frame=hello)
        return accepted

    def detach(self, conn: Connection) -> None:
        self._inbox.put_nowait(_Command("detach", conn=conn))

    async def info(self) -> p.TableInfo:
        info: p.TableInfo = await self._ask("info")
        return info

    # -- what clients see -----------------------------------------------------------------

    def table_info(self) -> p.TableInfo:
        live = {c.seat for c in self.connections if c.seat is not None}
        seats = [p.SeatInfo(seat=s.seat, name=s.name, kind=s.kind,  # type: ignore[arg-type]
                            taken=s.name is not None,
                            connected=s.kind == "bot" or s.seat in live)
                 for s in self.record.seats]
        return p.TableInfo(table_id=self.table_id, code=self.record.code, game=self.record.game,
                           title=p.title_of(self.record.game),
                           options=self.record.options, status=self._status(),  # type: ignore[arg-type]
                           seats=seats)

    def _status(self) -> str:
        if self.state.is_over():
            return "over"
        if any(s.name is None for s in self.record.seats):
            return "waiting"
        return "playing"

    def _view_frame(self, seat: int | None, events: list[Any] = (),  # type: ignore[assignment]
                    ack: str | None = None) -> str:
        return p.view_frame(self.version, self.state.view(seat), [e.view(seat) for e in events],
                            ack, sorted(self.rematch_votes))

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

    def _broadcast_seats(self) -> None:
        text = p.frame("seats", self.version, p.SeatsData(seats=self.table_info().seats))
        for conn in list(self.connections):
            conn.send(text)

    # -- commands -----------------------------------------------------------------------------

    async def _on_info(self, _: _Command) -> p.TableInfo:
        return self.table_info()

    async def _on_join(self, command: _Command) -> tuple[int, str] | str:
        name, wanted = command.data
        free = [s for s in self.record.seats if s.kind == "human" and s.name is None
                and wanted in (None, s.seat)]
        if not free:
            if wanted is not None and wanted < len(self.record.seats):
                return "that seat is taken"
            return "the table is full" if wanted is None else "the table has no such seat"
        token = new_token()
        seats = [SeatRecord(s.seat, name, s.kind, hash_token(token))
                 if s.seat == free[0].seat else s for s in self.record.seats]
        status = "waiting" if any(s.name is None for s in seats) else "playing"
        await self.store.update_table(self.table_id, seats=seats, status=status)
        self.record.seats = seats  # only once it is saved
        self._broadcast_seats()
        self._schedule_bot()
        return free[0].seat, token

    async def _on_attach(self, command: _Command) -> bool:
        conn, hello = command.conn, command.frame
        assert conn is not None
        if hello.d.spectate and hello.d.token is None:
            conn.seat = None
        else:
            seat = next((s.seat for s in self.record.seats
                         if token_matches(hello.d.token, s.token_hash)), None)
            if seat is None:
                return False  # the endpoint answers bad_token and closes
            conn.seat = seat
        self.connections.add(conn)
        welcome = p.WelcomeData(seat=conn.seat, role="spectator" if conn.seat is None
                                else "player", table=self.table_info())
        conn.send(p.frame("welcome", self.version, welcome))
        self._snapshot(conn)
        self._broadcast_seats()
        return True

    async def _on_detach(self, command: _Command) -> None:
        if command.conn in self.connections:
            self.connections.discard(command.conn)
            self._broadcast_seats()

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
        if self.state.current_player() != seat:
            return self._error(conn, "not_your_turn", "it is not your turn", ref)
        try:
            action = Action.from_json(frame.d.action)
        except ValueError as error:
            return self._error(conn, "bad_action", str(error), ref)
        await self._apply(seat, action, ref, conn)

    async def _apply(self, seat: int, action: Action, ref: str | None,
                     conn: Connection | None) -> None:
        drawn = len(self.state.chance_outcomes())
        try:
            events = self.state.apply(action)
        except IllegalAction as error:
            if conn is not None:
                self._error(conn, "illegal", error.reason, ref)
            return
        event = EventRecord(version=self.version + 1, kind="action", seat=seat, cmd_id=ref,
                            payload=action.to_json(),
                            chance=self.state.chance_outcomes()[drawn:])
        if not await self._commit(event, conn, ref):
            return
        if ref is not None:
            self.commands[f"{seat}:{ref}"] = self.version
        self._broadcast(events, seat, ref)
        self._schedule_bot()

    async def _commit(self, event: EventRecord, conn: Connection | None, ref: str | None) -> bool:
        """Append to the log; on failure rebuild from the log and tell the sender."""
        was_over = self._status() == "over"
        try:
            await self.log_writer.append(self.table_id, event)
            self.version = event.version
            if self.state.is_over() != was_over:
                await self.store.update_table(self.table_id, seats=None, status=self._status())
            return True
        except Exception:
            log.exception("table %s: could not log version %s", self.table_id, event.version)
            events = await self.store.load_events(self.table_id)
            self.state, self.commands = rebuild(self.record, events)
            self.version = events[-1].version if events else 0
            if conn is not None:
                self._error(conn, "internal", "the server could not save that; try again", ref)
            return False

    async def _rematch(self, conn: Connection) -> None:
        if conn.seat is None:
            return self._error(conn, "spectator", "spectators cannot ask for a rematch")
        if not self.state.is_over():
            return self._error(conn, "not_over", "a rematch is possible once the match is over")
        self.rematch_votes.add(conn.seat)
        humans = {s.seat for s in self.record.seats if s.kind == "human"}
        if not humans <= self.rematch_votes:
            return self._broadcast([], None, None)
        game = get_game(self.record.game)
        options = game.Options.from_dict(self.record.options)
        fresh = game.new_match(options, players=self.record.players, rng=secrets.SystemRandom())
        previous, self.state = self.state, fresh
        event = EventRecord(version=self.version + 1, kind="rematch", seat=conn.seat,
                            cmd_id=None, payload={}, chance=fresh.chance_outcomes())
        if not await self._commit(event, conn, None):
            self.state = previous
            return
        self.rematch_votes.clear()
        await self.store.update_table(self.table_id, seats=None, status=self._status())
        self._broadcast([], None, None)
        self._schedule_bot()

    # -- computer players ---------------------------------------------------------------------

    def _schedule_bot(self) -> None:
        seat = self.state.current_player()
        if self._bot is None or seat is None or self.record.seats[seat].kind != "bot":
            return
        version = self.version
        delay = self.settings.bot_delay
        if {a.type for a in self.state.legal_actions()} == {"deal"}:
            delay *= 5  # leave people time to read the showdown before the next deal
        loop = asyncio.get_running_loop()
        loop.call_later(delay, lambda: self._inbox.put_nowait(_Command("bot", data=version)))

    async def _on_bot(self, command: _Command) -> None:
        seat = self.state.current_player()
        if command.data != self.version or seat is None or self._bot is None:
            return  # the table moved on since this turn was scheduled
        await self._apply(seat, self._bot(self.state.view(seat)), None, None)
