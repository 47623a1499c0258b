"""Whose move it is, and who makes it: the turn clock, timeouts and computer players.

After every change the table asks its :class:`Turns` for the next turn. If a computer
plays the seat to act (a computer seat, or a computer standing in for a person) its move
is scheduled; if a person plays it and the table has a turn time, an absolute deadline
is set. When the deadline passes the server plays the automatic move (``bots.autoplay``)
and counts a timeout; after three in a match a computer stands in until the person acts
again. What a turn is (one move, or a draw, melds and a discard under one clock) is the
game descriptor's answer, not a list of games here.

Clocks run only while some person is connected to the table: if everyone has gone,
nobody is kept waiting, and the turn starts afresh when someone comes back (the same as
after a server restart, which credits the outage).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from ...bots import autoplay, levels
from ...engine import Action, Descriptor, GameState
from ...store import TableRecord
from ..codes import LogKind
from ..config import ServerConfig
from ..connection import Connection
from .commands import Command, ComputerMove, TurnTimeout
from .presence import Presence
from .replay import STANDIN_AFTER
from .settings import TableSettings

AUTOMATIC_FOLLOW_UPS = 4  # at most this many further moves finish a timed-out turn

log = logging.getLogger(__name__)


@dataclass
class TurnClock:
    seat: int
    version: int
    deadline: float  # seconds since the epoch
    turn_time: int
    handle: asyncio.TimerHandle

    def to_json(self) -> dict[str, int]:
        return {"seat": self.seat, "deadline": int(self.deadline * 1000),
                "now": now_ms(), "turn_time": self.turn_time}


def now_ms() -> int:
    return int(time.time() * 1000)


class TurnsHost(Protocol):
    """What the turns see of their table."""

    @property
    def record(self) -> TableRecord: ...
    @property
    def state(self) -> GameState | None: ...  # None: not dealt yet
    @property
    def version(self) -> int: ...
    @property
    def table_settings(self) -> TableSettings: ...
    @property
    def connections(self) -> set[Connection]: ...
    @property
    def presence(self) -> Presence: ...

    def status(self) -> str: ...
    def post(self, command: Command) -> None: ...
    def seats_changed(self, table: bool = False) -> None: ...
    def refresh(self, exclude: Connection | None = None) -> None: ...

    async def apply_move(self, seat: int, action: Action, ref: str | None,
                         conn: Connection | None, kind: LogKind = LogKind.ACTION) -> bool: ...


class Turns:
    """The turn clock and the computer's moves of one table."""

    def __init__(self, game: Descriptor, config: ServerConfig, rng: random.Random):
        self.game, self.config = game, config
        self.rng = rng  # the easy computers' slips, the seeds of the experts' worlds
        self.clock: TurnClock | None = None
        self.last_move: tuple[int | None, str] = (None, "")  # who moved last, and what kind
        self._bot_timer: asyncio.TimerHandle | None = None  # a computer's move on its way
        self._thinking: asyncio.Task[None] | None = None  # an expert's search on its way
        self._prepared: tuple[int, Action] | None = None  # (version, move) it found

    def stop(self) -> None:
        """Cancel the clock and a computer's move on its way (the table is stopping)."""
        self.stop_clock()
        if self._bot_timer is not None:
            self._bot_timer.cancel()
        if self._thinking is not None:
            self._thinking.cancel()  # its thread finishes its world; the move is dropped

    def stop_clock(self) -> None:
        if self.clock is not None:
            self.clock.handle.cancel()
            self.clock = None

    def moved(self, seat: int, kind: str) -> None:
        """``seat`` made a move of ``kind`` (the clock's next turn may be the same one)."""
        self.last_move = (seat, kind)

    def clock_json(self, table: TurnsHost) -> dict[str, int] | None:
        clock = self.clock
        if clock is None or clock.version != table.version:
            return None
        return clock.to_json()

    # -- who plays ----------------------------------------------------------------------

    def computer_plays(self, table: TurnsHost, seat: int) -> bool:
        return (table.record.seats[seat].kind == "bot"
                or table.presence.seats[seat].standin is not None)

    def _anyone_here(self, table: TurnsHost) -> bool:
        """A person (not a spectator) is connected: someone is waiting for the table."""
        return any(c.seat is not None and table.record.seats[c.seat].kind == "human"
                   for c in table.connections)

    # -- the next turn ------------------------------------------------------------------

    def next_turn(self, table: TurnsHost) -> bool:
        """Schedule what comes next: a computer's move or a person's deadline. True when
        the turn clock people see changed (a view frame must tell them)."""
        before = self.clock
        self._arm(table)
        return self.clock is not before

    def _arm(self, table: TurnsHost) -> None:
        if table.state is None or table.status() != "playing":
            return self.stop_clock()  # nothing dealt yet, or nothing more to play
        seat = table.state.current_player()
        if seat is None:
            return self.stop_clock()
        if self.computer_plays(table, seat):
            self.stop_clock()
            if table.record.seats[seat].kind == "bot" or self._anyone_here(table):
                self._schedule_computer(table)
            return
        turn_time = table.table_settings.turn_time
        if not turn_time or not self._anyone_here(table):
            return self.stop_clock()
        clock = self.clock
        if clock is not None and clock.seat == seat and clock.turn_time == turn_time:
            if clock.version == table.version:
                return  # this turn's clock is running: nothing a reconnect may extend
            if self._same_turn(seat):  # a draw, a meld...: the turn's deadline stands
                clock.handle.cancel()
                self._set_clock(table, seat, turn_time, clock.deadline)
                return
        self.stop_clock()
        self._set_clock(table, seat, turn_time,
                        time.time() + turn_time * self.config.time_scale)

    def _set_clock(self, table: TurnsHost, seat: int, turn_time: int, deadline: float) -> None:
        version = table.version
        handle = asyncio.get_running_loop().call_later(
            max(0.0, deadline - time.time()), table.post, TurnTimeout(seat, version))
        self.clock = TurnClock(seat, version, deadline, turn_time, handle)

    def _same_turn(self, seat: int) -> bool:
        """The seat to act made the last move, and it did not end his turn (the game
        says which moves do: a rummy turn is a draw, melds and a discard under one
        deadline; a trick won and led again, or a new deal, is a new turn)."""
        mover, kind = self.last_move
        return mover == seat and self.game.same_turn(kind)

    def _schedule_computer(self, table: TurnsHost) -> None:
        delay = self.config.bot_delay
        assert table.state is not None  # armed only while a match is played
        if self.game.only_dealing(table.state):
            delay *= 5  # leave people time to read the showdown before the next deal
        elif self._level(table, table.state.current_player()) == "expert":
            self._think(table, delay)
            return
        self._bot_timer = asyncio.get_running_loop().call_later(
            delay, table.post, ComputerMove(table.version))

    def _level(self, table: TurnsHost, seat: int | None) -> str:
        """The level of the computer playing ``seat`` (stand-ins play at ``normal``)."""
        if seat is not None and table.record.seats[seat].kind == "bot":
            return table.table_settings.levels[seat]
        return "normal"

    def _think(self, table: TurnsHost, delay: float) -> None:
        """Start an expert's search in a thread of its own, on a private copy of the
        match in which every card its seat cannot see is dealt anew (the search never
        touches the live state, which goes on changing meanwhile), and post its move once
        the usual delay has passed too.  The table keeps answering while it thinks."""
        state = table.state
        assert state is not None  # armed only while a match is played
        seat, version = state.current_player(), table.version
        assert seat is not None
        view = state.view(seat)
        private = state.resample(seat, random.Random(self.rng.getrandbits(64)))
        seed = self.rng.getrandbits(64)
        game, budget = self.game.name, self.config.expert_budget
        loop = asyncio.get_running_loop()
        started = loop.time()

        def search() -> Action:
            try:
                return levels.choose(game, "expert", view, random.Random(seed),
                                     sampler=partial(private.resample, seat), budget=budget)
            except Exception:  # a search bug must not stall the table: hard's move stands
                log.exception("expert search failed at %s; playing hard's move", game)
                return levels.choose(game, "hard", view, random.Random(seed))

        async def think() -> None:
            action = await asyncio.to_thread(search)
            self._prepared = (version, action)
            self._bot_timer = loop.call_later(max(0.0, delay - (loop.time() - started)),
                                              table.post, ComputerMove(version))

        self._thinking = asyncio.ensure_future(think())

    # -- moves the server makes -----------------------------------------------------------

    def _computer_choice(self, table: TurnsHost, seat: int) -> Action:
        """The move of the computer playing ``seat`` (at its level; stand-ins play well)."""
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[0] == table.version:
            return prepared[1]  # an expert's search, made for this very position
        level = self._level(table, seat)
        state = table.state
        assert state is not None  # a computer moves only in a match dealt
        return levels.choose(self.game.name, level, state.view(seat), self.rng,
                             sampler=partial(state.resample, seat),
                             budget=self.config.expert_budget)

    async def computer_move(self, table: TurnsHost, version: int) -> None:
        if table.state is None:
            return
        seat = table.state.current_player()
        if version != table.version or seat is None or not self.computer_plays(table, seat) \
                or table.status() != "playing":
            return  # the table moved on since this turn was scheduled
        kind = LogKind.ACTION if table.record.seats[seat].kind == "bot" else LogKind.AUTO
        await table.apply_move(seat, self._computer_choice(table, seat), None, None, kind)

    async def time_out(self, table: TurnsHost, seat: int, version: int) -> None:
        clock, state = self.clock, table.state
        if clock is None or state is None or clock.version != version \
                or version != table.version or state.current_player() != seat \
                or self.computer_plays(table, seat):
            return
        self.clock = None
        presence = table.presence.seats[seat]
        # Dealing the next hand is no decision: it costs nothing to be late.
        counts = not self.game.only_dealing(state)
        if counts:
            presence.timeouts += 1
            presence.misses += 1
        name = self.game.name
        bot = levels.bot_for(name)
        action = autoplay.timeout_move(name, state.view(seat), bot, presence.misses)
        kind = LogKind.TIMEOUT if counts else LogKind.AUTO
        if not await table.apply_move(seat, action, None, None, kind):
            return
        if counts:
            table.seats_changed()  # the seat's timeouts
        # The rest of the same turn (a rummy turn is a draw, then a discard; a card may be
        # owed after a pickup): automatic too. A trick-taker's next move is a new turn.
        for _ in range(AUTOMATIC_FOLLOW_UPS):
            state = table.state  # each move makes a new one
            if state is None or state.current_player() != seat \
                    or not self._same_turn(seat) or self.game.only_dealing(state):
                break
            follow = autoplay.timeout_move(name, state.view(seat), bot, presence.misses)
            if not await table.apply_move(seat, follow, None, None, LogKind.AUTO):
                break
        if presence.timeouts >= STANDIN_AFTER and presence.standin is None:
            presence.standin = "timeouts"
            table.seats_changed()
            table.refresh()
