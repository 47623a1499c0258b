"""One actor per live table: commands in order, log before acknowledge, views fan out.

Every change of the match goes the same way: validate, ``engine.apply``,
append the event (with the chance outcomes it drew) to the log and commit,
then send each connection its own ``view(seat)``.  Nothing is acknowledged or
broadcast before the commit; if the commit fails the table is rebuilt from
the log, so memory never runs ahead of what is durable.

The actor takes its commands (``commands``) from one inbox and dispatches them
with one ``match``. Its other duties are collaborators that own their state and are
handed the table when they act on it: the :class:`~.commit.Journal` (database
faults, and answering every command whatever goes wrong), the
:class:`~.turns.Turns` (the turn clock, timeouts, computer moves), the
:class:`~.presence.Presence` (seats, connections, the grace period, leaving), the
:class:`~.talk.Talk` (chat, mutes, ending a match by agreement, the host's
settings) and the :class:`~.eviction.Eviction` (leaving memory and coming back). The
changes of the match itself (a move checked and applied, a match dealt, memory put back
to the log) are the functions of :mod:`.moves`, which the actor and its collaborators
reach through the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...engine import Action, GameState, get_game
from ...engine.api import Event, Options
from ...store import ChatRecord, EventRecord, Store, TableRecord
from .. import metrics
from .. import protocol as p
from ..codes import CloseCode, LogKind
from ..config import ServerConfig
from ..connection import Connection
from ..log_writer import LogWriter
from ..players import Sitter
from . import moves
from .commands import (
    Attach,
    Command,
    ComputerMove,
    Detach,
    Evict,
    FromClient,
    GraceOver,
    HandOver,
    Heal,
    HostBlocked,
    Info,
    Join,
    Question,
    SpectatorCount,
    TurnTimeout,
    needs_log,
)
from .commit import Journal, SaveFailed
from .eviction import Eviction, Home
from .fairness import Drawn, Fairness
from .hints import answer_hint
from .history import History, match_record
from .info import table_info
from .presence import Presence, host_of
from .replay import Replayed
from .settings import TableSettings, settings_of
from .talk import Talk
from .turns import Turns, now_ms

log = logging.getLogger("cardtable.table")
HAND_OVER_WAIT = 5.0  # seconds a draining process waits for a table's current command

__all__ = ["Table"]


class Table:
    """A live table: its record, match state, version and connections."""

    def __init__(self, record: TableRecord, state: GameState | None, version: int, store: Store,
                 config: ServerConfig, log_writer: LogWriter, *,
                 options: Options | None = None, commands: dict[str, int] | None = None,
                 moves: int = 0, ended: str | None = None, drawn: Sequence[Drawn] | None = None,
                 match_started: int = 0,
                 notify: Callable[[Table], None] | None = None, home: Home | None = None):
        self.record, self.version = record, version
        # The match being played; None while the table waits for players: nothing is dealt
        # until every seat is taken (``deal_when_seated``), so nobody holds a card to judge.
        self.state: GameState | None = state
        self.store, self.config, self.log_writer = store, config, log_writer
        self.game = get_game(record.game)
        # The rules of this (or the next) match, parsed once.
        self.options = (options if options is not None
                        else self.game.options.from_dict(record.options))
        self.commands = commands or {}  # "seat:id" -> the version that command made
        self.moves = moves  # moves in the current match: its rules may change while none
        self.ended = ended
        self.notify = notify  # the lobby hears of every change
        self.home = home  # the registry: told when the table leaves memory
        self.connections: set[Connection] = set()
        self.rematch_votes: set[int] = set()
        self.end_votes: set[int] = set()
        self.table_settings: TableSettings = settings_of(record)
        self.journal = Journal()
        # The rng decides only the easy computers' slips.
        self.turns = Turns(self.game, config, random.Random(secrets.randbits(64)))
        self.presence = Presence(len(record.seats), record.mutes)
        self.talk = Talk()
        self.history = History()
        self.match_started = match_started  # the version that started the current match
        if drawn is None:
            drawn = [] if state is None else [Drawn(version, state.chance_outcomes(), True)]
        self.fairness = Fairness.of(record.table_id, record.fair_key, drawn)
        self.eviction = Eviction(self.table_id, config, home)
        self.fence: int | None = None  # the lease's fencing token (cardtable.cluster)
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def from_log(cls, record: TableRecord, replayed: Replayed, version: int, store: Store,
                 config: ServerConfig, log_writer: LogWriter, **services: Any) -> Table:
        table = cls(record, replayed.state, version, store, config, log_writer,
                    options=replayed.options, commands=replayed.commands,
                    moves=replayed.moves, ended=replayed.ended, drawn=replayed.drawn,
                    match_started=replayed.started,
                    **services)
        table.presence.take_counts(replayed.timeouts, replayed.misses)
        table.presence.stand_in_for(record, replayed.asleep)
        return table

    @property
    def table_id(self) -> str:
        return self.record.table_id

    @property
    def code(self) -> str:
        return self.record.code

    @property
    def evicted(self) -> bool:
        return self.eviction.evicted

    @property
    def settled(self) -> bool:
        """Memory and the database agree: nothing waits to be reloaded or written."""
        return self.journal.settled and self.history.settled

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, loaded: bool = False) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table {self.table_id}")
        if loaded and not self._restore_runtime():  # back from eviction, or a fresh load
            self.presence.hold_all_seats(self)
        if loaded and self.status() == "over":
            # It may have ended just before a crash, unrecorded: the store ignores a repeat.
            self.history.keep(match_record(self))
            self.post(Heal())
        self.next_turn()
        if self.state is None and all(s.name is not None for s in self.record.seats):
            self.post(Heal())  # the last seat was taken just before a crash: deal now

    async def stop(self) -> None:
        self._stop_timers()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _stop_timers(self) -> None:
        self.turns.stop()
        self.presence.stop()
        self.journal.stop()

    async def _run(self) -> None:
        inbox = self.eviction.inbox
        while True:
            command = await inbox.get()
            try:
                # A commit that failed while the log could not be read may have landed:
                # the log is read again before anything else is written. (Reading goes
                # on from memory: it is at most that one commit behind the log.)
                if self.journal.suspect and needs_log(command) \
                        and not await self.journal.reload(self):
                    raise SaveFailed("the database cannot be reached")
                result = await self._handle(command)
                if isinstance(command, Question) and not command.done.done():
                    command.done.set_result(result)
            except Exception as error:  # one bad command must not kill the table
                try:
                    await self.journal.failed(self, command, error)
                except Exception:  # not even an answer: the table must live on
                    log.exception("table %s: could not answer a failed %r", self.table_id,
                                  command)

    async def _handle(self, command: Command) -> Any:
        match command:
            case FromClient(conn=conn) if conn not in self.connections:
                return None  # it left while the frame waited
            case FromClient(conn=conn, frame=p.Hello()):
                self.error(conn, "hello_first", "this connection has said hello already")
            case FromClient(conn=conn, frame=p.Sync()):
                self.snapshot(conn)
            case FromClient(conn=conn, frame=p.Ping()):
                conn.send(p.frame("pong", self.version, {}))
            case FromClient(conn=conn, frame=p.Act() as act, at=received):
                await moves.act(self, conn, act)
                metrics.ACTION_SECONDS.observe(time.perf_counter() - received)
            case FromClient(conn=conn, frame=p.Rematch()):
                await self.talk.rematch_vote(self, conn)
            case FromClient(conn=conn, frame=p.Chat() as chat):
                await self.talk.say(self, conn, chat.d.text)
            case FromClient(conn=conn, frame=p.Mute() as mute):
                await self.talk.mute(self, conn, mute.d.seat, mute.d.muted)
            case FromClient(conn=conn, frame=p.AskHint() as ask):
                answer_hint(self, conn, ask)
            case FromClient(conn=conn, frame=p.EndVote() as vote):
                await self.talk.end_vote(self, conn, vote.d.agree)
            case FromClient(conn=conn, frame=p.ChangeSettings() as change):
                await self.talk.change_settings(self, conn, change.d)
            case FromClient(conn=conn, frame=p.Empty(t="start")):
                await self.presence.start(self, conn)
            case FromClient(conn=conn, frame=p.Empty(t="resume")):
                self.presence.resume(self, conn)
            case FromClient(conn=conn, frame=p.Empty(t="leave")):
                await self.presence.leave(self, conn)
            case Join(name=name, seat=seat, sitter=sitter):
                return await self.presence.join(self, name, seat, sitter)
            case Attach(conn=conn, hello=hello):
                return await self.presence.attach(self, conn, hello)
            case Detach(conn=conn):
                await self.presence.detach(self, conn)
            case Info():
                return self.table_info()
            case ComputerMove(version=version):
                await self.turns.computer_move(self, version)
            case TurnTimeout(seat=seat, version=version):
                await self.turns.time_out(self, seat, version)
            case GraceOver(seat=seat):
                await self.presence.grace_over(self, seat)
            case SpectatorCount():
                self.presence.send_spectators(self)
            case HostBlocked(blocker=blocker, blocked=blocked):
                self.presence.send_away(self, blocker, blocked)
            case Heal():
                await self.journal.heal(self)
                await self.deal_when_seated()
            case Evict():
                if await self.eviction.may_leave(self):
                    self._leave_memory()
            case HandOver():
                self.lose("this server is restarting")
            case _:
                raise TypeError(f"a table cannot handle {command!r}")
        return None

    def post(self, command: Command) -> None:
        """Queue a command of the table's own (a timer went off); an evicted table has
        none: the table loaded again sets its own timers."""
        if not self.evicted:
            self.eviction.enqueue(command)

    def enqueue(self, command: Command) -> None:
        """Queue a command; once evicted, it goes on to the table loaded again."""
        self.eviction.enqueue(command)

    async def _ask(self, make: Callable[[asyncio.Future[Any]], Join | Attach | Info]) -> Any:
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.enqueue(make(done))
        return await done

    def submit(self, conn: Connection, frame: p.AnyClientFrame) -> None:
        """Queue a frame from a connection (answers go to the connection)."""
        self.enqueue(FromClient(conn, frame))

    async def join(self, name: str, seat: int | None = None,
                   sitter: Sitter | None = None) -> tuple[int, str] | str:
        """Take a free seat (the first, or ``seat``): (seat, token), or why not."""
        result: tuple[int, str] | str = await self._ask(
            lambda done: Join(done, name, seat, sitter or Sitter()))
        return result

    async def attach(self, conn: Connection, hello: p.Hello) -> str | None:
        """Welcome the connection, or the error code that refuses it."""
        refused: str | None = await self._ask(lambda done: Attach(done, conn, hello))
        return refused

    def detach(self, conn: Connection) -> None:
        self.enqueue(Detach(conn))

    async def info(self) -> p.TableInfo:
        info: p.TableInfo = await self._ask(Info)
        return info

    async def hand_over(self) -> None:
        """Leave memory between two commands, every socket told to reconnect."""
        if self._task is None or self._task.done():
            return self.lose("this server is restarting")
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.enqueue(HandOver(done))
        try:
            await asyncio.wait_for(asyncio.shield(done), HAND_OVER_WAIT)
        except (TimeoutError, asyncio.CancelledError):
            # A command that does not end must not keep the table (nor the rest of the
            # drain): it stops now; the fencing token keeps its log safe from a late write.
            self.lose("this server is restarting")

    def lose(self, reason: str) -> None:
        """This process owns the table no more (scale-out): stop, write nothing more, and
        close every socket with 1012 so that it reconnects to whoever owns it next."""
        for conn in list(self.connections):
            conn.close(CloseCode.SERVICE_RESTART, reason)
        self.connections.clear()
        self._leave_memory()

    def offer_eviction(self) -> None:
        """The registry's sweeper: ask the actor to evict the table if it looks idle."""
        self.eviction.offer(self)

    def restore_chat(self, kept: Sequence[ChatRecord]) -> None:
        """The chat history saved with the table, for the table loaded again."""
        self.talk.restore(kept, self.record.seats)

    def send_chat_history(self, conn: Connection) -> None:
        self.talk.send_history(conn, self.version)

    # -- what clients see -----------------------------------------------------------------

    def table_info(self) -> p.TableInfo:
        live = {c.seat for c in self.connections if c.seat is not None}
        return table_info(self.record, self.options, self.status(),
                          self.presence.seat_infos(self.record, self.table_settings, live),
                          self.table_settings, self.spectators())

    def status(self) -> str:
        if self.ended or (self.state is not None and self.state.is_over()):
            return "over"
        if self.state is None or any(s.name is None for s in self.record.seats):
            return "waiting"
        return "playing"

    def spectators(self) -> int:
        return sum(1 for c in self.connections if c.seat is None)

    def host(self) -> int | None:
        """The seat that may change the settings."""
        return host_of(self.record.seats)

    def is_host(self, conn: Connection) -> bool:
        return conn.seat is not None and conn.seat == self.host()

    def _table_meta(self) -> dict[str, Any]:
        return {"rematch": sorted(self.rematch_votes), "clock": self.turns.clock_json(self),
                "end_votes": sorted(self.end_votes), "ended": self.ended,
                "fair": self.fairness.hand(self.hand_done())}

    @property
    def rated(self) -> bool:
        return self.table_settings.rated

    def hand_done(self) -> bool:
        """Whether the hand is over (its shuffles may be revealed): dealing the next is the
        only move, or the match is over."""
        return self.status() == "over" or (self.state is not None
                                           and self.game.only_dealing(self.state))

    def view_frame(self, seat: int | None, events: Sequence[Event] = (),
                   ack: str | None = None, acked: int | None = None) -> str:
        # Not dealt yet: no view at all (the seats, the settings and the chat say the rest).
        view = None if self.state is None else self.state.view(seat)
        return p.view_frame(self.version, view, [e.view(seat) for e in events], ack,
                            self._table_meta(), acked)

    def snapshot(self, conn: Connection) -> None:
        conn.send(self.view_frame(conn.seat))

    def error(self, conn: Connection, code: str, message: str, ref: str | None = None,
              snapshot: bool = True) -> None:
        conn.send(p.frame("error", self.version, p.ErrorData(code=code, message=message, id=ref)))
        if snapshot:
            self.snapshot(conn)

    def broadcast(self, events: Sequence[Event] = (), ack_seat: int | None = None,
                  ack: str | None = None) -> None:
        frames: dict[tuple[int | None, bool], str] = {}
        for conn in list(self.connections):
            acked = ack is not None and conn.seat == ack_seat
            key = (conn.seat, acked)
            if key not in frames:
                frames[key] = self.view_frame(conn.seat, events, ack if acked else None)
            conn.send(frames[key], resync=functools.partial(self.view_frame, conn.seat))

    def seats_changed(self, table: bool = False) -> None:
        """Tell everyone (and the lobby) about the seats; ``table``: the settings too."""
        if table:
            text = p.frame("table", self.version, self.table_info())
        else:
            live = {c.seat for c in self.connections if c.seat is not None}
            text = p.frame("seats", self.version, p.SeatsData(
                seats=self.presence.seat_infos(self.record, self.table_settings, live),
                spectators=self.spectators(), now=now_ms()))
        self.presence.spectators_told(self.spectators())  # the count went out with the seats
        for conn in list(self.connections):
            conn.send(text)
        if self.notify is not None:
            self.notify(self)

    def next_turn(self) -> bool:
        """Schedule what comes next (a computer's move, a person's deadline); True when
        the turn clock people see changed."""
        return self.turns.next_turn(self)

    def stop_clock(self) -> None:
        self.turns.stop_clock()

    def close_spectators(self) -> None:
        self.presence.close_spectators(self)

    def refresh(self, exclude: Connection | None = None) -> None:
        """After a change that is not a move: schedule the next turn; if its clock changed,
        send everyone (but ``exclude``, who gets a snapshot anyway) a fresh view."""
        if self.next_turn():
            for conn in list(self.connections):
                if conn is not exclude:
                    self.snapshot(conn)

    # -- moves and matches ------------------------------------------------------------------

    async def commit(self, event: EventRecord, conn: Connection | None, ref: str | None,
                     undo: Callable[[], None] | None = None) -> bool:
        """Append ``event`` to the log: True once it is durable (see ``Journal.commit``)."""
        return await self.journal.commit(self, event, conn, ref, undo)

    async def settle_row(self) -> None:
        await self.journal.settle_row(self)

    def row_lags(self) -> None:
        """The row's derived fields could not be written: the heal timer will."""
        self.journal.row_lags(self)

    async def apply_move(self, seat: int, action: Action, ref: str | None,
                         conn: Connection | None, kind: LogKind = LogKind.ACTION) -> bool:
        """``seat``'s move, logged and told: see ``moves.apply_move``."""
        return await moves.apply_move(self, seat, action, ref, conn, kind)

    async def match_finished(self) -> None:
        """The match just ended: into its players' history (retried by the heal timer)."""
        if not await self.history.finished(self):
            self.journal.schedule_heal(self)

    async def deal_when_seated(self) -> None:
        """The first match, once every seat is taken: see ``moves.deal_when_seated``."""
        await moves.deal_when_seated(self)

    async def deal_again(self, kind: LogKind, seat: int | None, options: Options,
                         conn: Connection | None) -> bool:
        """A new match, logged as ``kind``: see ``moves.deal_again``."""
        return await moves.deal_again(self, kind, seat, options, conn)

    async def restore(self, events: list[EventRecord]) -> None:
        """Put memory back to what ``events`` (the whole log) say: see ``moves.restore``."""
        await moves.restore(self, events)

    # -- leaving memory and coming back --------------------------------------------------------

    def _leave_memory(self) -> None:
        self.eviction.evicted = True
        # Every timer holds the table: cancelled, they let it go now, not when they fire.
        self._stop_timers()
        if self.home is not None:
            self.home.evicted(self)
        # We are in the task: it ends at its next await (its inbox, empty for good). Drop
        # our reference first: a cancelled task's traceback holds the actor's frame, so
        # keeping it makes the table cyclic garbage that only a rare full GC pass frees.
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    def _restore_runtime(self) -> bool:
        """Take back what this process knew when it evicted the table (``eviction``);
        False when there is nothing of this process and version to take back."""
        runtime = self.eviction.kept_runtime(self.record, self.version)
        if runtime is None or not self.presence.restore_runtime(self, runtime["seats"]):
            return False
        self.rematch_votes = set(runtime["rematch"])
        self.end_votes = set(runtime["end_votes"])
        return True
