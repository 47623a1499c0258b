"""Whose move it is, and who makes it: the turn clock, timeouts and computer players.

After every change the table calls :meth:`TurnsMixin._next_turn`. If a computer plays the
seat to act (a computer seat, or a computer standing in for a person) its move is
scheduled; if a person plays it and the table has a turn time, an absolute deadline is set.
When the deadline passes the server plays the automatic move (``bots.autoplay``) and counts a
timeout; after three in a match a computer stands in until the person acts again.

Clocks run only while some person is connected to the table: if everyone has gone,
nobody is kept waiting, and the turn starts afresh when someone comes back (the same as
after a server restart, which credits the outage).
"""

# mypy: disable-error-code="misc"
# (the mixins annotate self as the Table they are part of, for full checking)
from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..bots import autoplay, levels
from ..engine import Action
from .table_replay import STANDIN_AFTER

if TYPE_CHECKING:
    from .connection import Connection
    from .table import Table


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


class TurnsMixin:
    _clock: TurnClock | None = None
    _last_move: tuple[int | None, str] = (None, "")  # who moved last, and what kind of move
    _bot_timer: asyncio.TimerHandle | None = None  # a computer's move on its way
    _rng: random.Random

    def _computer_plays(self: Table, seat: int) -> bool:
        return self.record.seats[seat].kind == "bot" or self.presence[seat].standin is not None

    def _anyone_here(self: Table) -> bool:
        """A person (not a spectator) is connected: someone is waiting for the table."""
        return any(c.seat is not None and self.record.seats[c.seat].kind == "human"
                   for c in self.connections)

    def _stop_clock(self: Table) -> None:
        if self._clock is not None:
            self._clock.handle.cancel()
            self._clock = None

    def _next_turn(self: Table) -> bool:
        """Schedule what comes next: a computer's move or a person's deadline. True when
        the turn clock people see changed (a view frame must tell them)."""
        before = self._clock
        self._arm()
        return self._clock is not before

    def _refresh(self: Table, exclude: Connection | None = None) -> None:
        """After a change that is not a move: schedule the next turn; if its clock changed,
        send everyone (but ``exclude``, who gets a snapshot anyway) a fresh view."""
        if self._next_turn():
            for conn in list(self.connections):
                if conn is not exclude:
                    self._snapshot(conn)

    def _arm(self: Table) -> None:
        seat = self.state.current_player()
        if seat is None or self._status() != "playing":
            return self._stop_clock()
        if self._computer_plays(seat):
            self._stop_clock()
            if self.record.seats[seat].kind == "bot" or self._anyone_here():
                self._schedule_bot()
            return
        turn_time = self.table_settings.turn_time
        if not turn_time or not self._anyone_here():
            return self._stop_clock()
        clock = self._clock
        if clock is not None and clock.seat == seat and clock.turn_time == turn_time:
            if clock.version == self.version:
                return  # this turn's clock is running: nothing a reconnect may extend
            if self._same_turn(seat):  # a draw, a meld...: the turn's deadline stands
                clock.handle.cancel()
                self._set_clock(seat, turn_time, clock.deadline)
                return
        self._stop_clock()
        self._set_clock(seat, turn_time, time.time() + turn_time * self.settings.time_scale)

    def _set_clock(self: Table, seat: int, turn_time: int, deadline: float) -> None:
        version = self.version
        handle = asyncio.get_running_loop().call_later(
            max(0.0, deadline - time.time()), lambda: self._post("timeout", (seat, version)))
        self._clock = TurnClock(seat, version, deadline, turn_time, handle)

    def _same_turn(self: Table, seat: int) -> bool:
        """The seat to act made the last move, and it did not end his turn: in the rummy
        games a turn is several moves (draw, melds, discard) under one deadline. A trick
        won and led again, or a new deal, is a new turn."""
        mover, kind = self._last_move
        return mover == seat and kind != "deal" and self.record.game in autoplay.RUMMY_GAMES

    def _clock_json(self: Table) -> dict[str, int] | None:
        clock = self._clock
        if clock is None or clock.version != self.version:
            return None
        return clock.to_json()

    def _schedule_bot(self: Table) -> None:
        version = self.version
        delay = self.settings.bot_delay
        if {a.type for a in self.state.legal_actions()} == {"deal"}:
            delay *= 5  # leave people time to read the showdown before the next deal
        loop = asyncio.get_running_loop()
        self._bot_timer = loop.call_later(delay, lambda: self._post("bot", version))

    def _computer_move(self: Table, seat: int) -> Action:
        """The move of the computer playing ``seat`` (at its level; stand-ins play well)."""
        level = "normal"
        if self.record.seats[seat].kind == "bot":
            level = self.table_settings.levels[seat]
        return levels.choose(self.record.game, level, self.state.view(seat), self._rng)

    async def _on_bot(self: Table, command: Any) -> None:
        seat = self.state.current_player()
        if command.data != self.version or seat is None or not self._computer_plays(seat) \
                or self._status() != "playing":
            return  # the table moved on since this turn was scheduled
        kind = "action" if self.record.seats[seat].kind == "bot" else "auto"
        await self._apply(seat, self._computer_move(seat), None, None, kind=kind)

    async def _on_timeout(self: Table, command: Any) -> None:
        seat, version = command.data
        clock = self._clock
        if clock is None or clock.version != version or version != self.version \
                or self.state.current_player() != seat or self._computer_plays(seat):
            return
        self._clock = None
        presence = self.presence[seat]
        counts = {a.type for a in self.state.legal_actions()} != {"deal"}
        if counts:  # dealing the next hand is no decision: it costs nothing to be late
            presence.timeouts += 1
            presence.misses += 1
        game = self.record.game
        bot = levels.bot_for(game)
        action = autoplay.timeout_move(game, self.state.view(seat), bot, presence.misses)
        if not await self._apply(seat, action, None, None, kind="timeout" if counts else "auto"):
            return
        if counts:
            self._seats_changed()  # the seat's timeouts
        # The rest of the same turn (a rummy turn is a draw, then a discard; a card may be
        # owed after a pickup): automatic too. A trick-taker's next move is a new turn.
        for _ in range(4):
            if game not in autoplay.RUMMY_GAMES or self.state.current_player() != seat \
                    or {a.type for a in self.state.legal_actions()} == {"deal"}:
                break
            follow = autoplay.timeout_move(game, self.state.view(seat), bot, presence.misses)
            if not await self._apply(seat, follow, None, None, kind="auto"):
                break
        if presence.timeouts >= STANDIN_AFTER and presence.standin is None:
            presence.standin = "timeouts"
            self._seats_changed()
            self._refresh()
