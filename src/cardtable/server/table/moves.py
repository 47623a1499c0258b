"""The changes of the match: a move checked and applied, a match dealt, memory put back
to the log.

Each goes the same way: the engine changes the state (validating a move), the event,
with the chance outcomes it drew, is appended to the log (``Table.commit``), and only
then does anyone hear of it; a commit that fails puts the state back with the undo it
was handed. These are functions of the table (a :class:`MovesHost`), as the actor and
its collaborators call them through it: a person's move (``act``), a computer's or an
automatic one (``apply_move``, from ``turns``), the first deal and a rematch
(``deal_when_seated``, ``deal_again``), and the log read again after a commit whose
fate was unknown (``restore``, from ``commit``).
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Protocol

from ...engine import Action, Descriptor, GameState, IllegalAction
from ...engine.api import Event, Options
from ...store import EventRecord, TableRecord
from .. import metrics
from .. import protocol as p
from ..codes import LogKind
from ..connection import Connection
from .fairness import Drawn, Fairness
from .presence import Presence
from .replay import rebuild, without_last_move
from .turns import Turns

log = logging.getLogger("cardtable.table")


class MovesHost(Protocol):
    """What the moves see of their table, and change: the match is the table's."""

    state: GameState | None  # None: not dealt yet
    version: int
    options: Options  # the rules of this (or the next) match
    commands: dict[str, int]  # "seat:id" -> the version that command made
    moves: int  # in the current match
    ended: str | None
    match_started: int  # the version that started the current match

    @property
    def table_id(self) -> str: ...
    @property
    def record(self) -> TableRecord: ...
    @property
    def game(self) -> Descriptor: ...
    @property
    def evicted(self) -> bool: ...
    @property
    def connections(self) -> set[Connection]: ...
    @property
    def rematch_votes(self) -> set[int]: ...
    @property
    def end_votes(self) -> set[int]: ...
    @property
    def fairness(self) -> Fairness: ...
    @property
    def turns(self) -> Turns: ...
    @property
    def presence(self) -> Presence: ...

    def status(self) -> str: ...
    def view_frame(self, seat: int | None, events: Sequence[Event] = (),
                   ack: str | None = None, acked: int | None = None) -> str: ...
    def snapshot(self, conn: Connection) -> None: ...
    def error(self, conn: Connection, code: str, message: str, ref: str | None = None,
              snapshot: bool = True) -> None: ...
    def broadcast(self, events: Sequence[Event] = (), ack_seat: int | None = None,
                  ack: str | None = None) -> None: ...
    def seats_changed(self, table: bool = False) -> None: ...
    def next_turn(self) -> bool: ...
    async def commit(self, event: EventRecord, conn: Connection | None, ref: str | None,
                     undo: Callable[[], None] | None = None) -> bool: ...
    async def settle_row(self) -> None: ...
    async def match_finished(self) -> None: ...


async def act(table: MovesHost, conn: Connection, frame: p.Act) -> None:
    """A seated player's move from his socket: checked (his turn, the version he saw, a
    retry of a move already logged is acknowledged again), then applied."""
    ref = frame.d.id
    seat = conn.seat
    if seat is None:
        return table.error(conn, "spectator", "spectators cannot act", ref)
    logged = table.commands.get(f"{seat}:{ref}")
    if logged is not None:  # a retry: applied once, acknowledged again
        return conn.send(table.view_frame(seat, ack=ref, acked=logged))
    if frame.v != table.version:
        return table.error(conn, "stale", f"you acted on version {frame.v}; the table is "
                           f"at {table.version}", ref)
    status = table.status()
    if status != "playing":
        why = ("the match starts when every seat is taken" if status == "waiting"
               else "the match is over")
        return table.error(conn, "not_playing", why, ref)
    if table.state is None or table.state.current_player() != seat:
        return table.error(conn, "not_your_turn", "it is not your turn", ref)
    try:
        action = Action.from_json(frame.d.action)
    except ValueError as error:
        return table.error(conn, "bad_action", str(error), ref)
    if table.presence.seats[seat].standin is not None:  # he acts again: the seat is his
        table.presence.seats[seat].standin = None
        table.seats_changed()
    await apply_move(table, seat, action, ref, conn)


async def apply_move(table: MovesHost, seat: int, action: Action, ref: str | None,
                     conn: Connection | None, kind: LogKind = LogKind.ACTION) -> bool:
    """Apply ``seat``'s ``action``, log it, then tell everyone: True once it is durable,
    False (the match as it was, ``conn`` told why) if it was illegal or not logged."""
    if table.state is None:
        raise RuntimeError("a move before the deal")  # callers check the status first
    drawn = len(table.state.chance_outcomes())
    try:
        events = table.state.apply(action)
    except IllegalAction as error:
        if conn is not None:
            table.error(conn, "illegal", error.reason, ref)
        return False
    event = EventRecord(version=table.version + 1, kind=kind, seat=seat, cmd_id=ref,
                        payload=action.to_json(),
                        chance=table.state.chance_outcomes()[drawn:])
    if not await table.commit(event, conn, ref, functools.partial(_undo_move, table, drawn)):
        return False
    table.fairness.drew(Drawn(event.version, event.chance, action.type == "deal"))
    metrics.ACTIONS.labels(table.record.game).inc()
    table.moves += 1
    table.turns.moved(seat, action.type)
    if ref is not None:
        table.commands[f"{seat}:{ref}"] = table.version
        table.presence.seats[seat].misses = 0
    if table.state.is_over():  # recorded first: whoever saw the end finds it in his history
        await table.match_finished()
    table.next_turn()  # first: the views carry the next turn's clock
    table.broadcast(events, seat, ref)
    if table.state.is_over():
        table.seats_changed()
    return True


def _undo_move(table: MovesHost, drawn: int) -> None:
    assert table.state is not None
    table.state = without_last_move(table.state, table.record.game, drawn)


async def deal_when_seated(table: MovesHost) -> None:
    """Deal the first match once every seat is taken (nothing is dealt before: the
    host's cards must not be seen while he could still change the rules or wait)."""
    if table.state is not None or table.ended or table.evicted \
            or any(s.name is None for s in table.record.seats):
        return
    if not await deal_again(table, LogKind.START, None, table.options, None):
        return  # the log did not take it: the heal timer deals again
    table.record.options = table.options.to_dict()  # the row's copy of this match's rules
    table.presence.new_match()
    await table.settle_row()  # logged: a failure here only delays the row
    table.next_turn()
    table.broadcast()
    table.seats_changed()


async def deal_again(table: MovesHost, kind: LogKind, seat: int | None, options: Options,
                     conn: Connection | None) -> bool:
    """A new match under ``options`` (the first, once every seat is taken, or a
    rematch), logged as ``kind``; False (and the table as it was) if the log did not
    take it. Nobody may ask for a match to be dealt again: see ``Talk.change_settings``."""
    fresh = table.game.new_match(options, players=table.record.players,
                                 rng=secrets.SystemRandom())
    previous, table.state = table.state, fresh
    event = EventRecord(version=table.version + 1, kind=kind, seat=seat, cmd_id=None,
                        payload={"options": options.to_dict()},
                        chance=fresh.chance_outcomes())
    if not await table.commit(event, conn, None,
                              functools.partial(setattr, table, "state", previous)):
        return False
    table.fairness.new_match(event.version, event.chance)
    table.match_started = event.version
    return True


async def restore(table: MovesHost, events: list[EventRecord]) -> None:
    """Put memory back to what ``events`` (the whole log) say."""
    before, status = table.version, table.status()
    replayed = rebuild(table.record, events)
    table.state, table.commands, table.moves = replayed.state, replayed.commands, replayed.moves
    table.ended, table.options = replayed.ended, replayed.options
    table.fairness.replay(replayed.drawn)
    table.match_started = replayed.started
    table.version = events[-1].version if events else 0
    table.presence.take_counts(replayed.timeouts, replayed.misses)
    if table.version == before:
        return
    # A commit reported as failed had landed: everyone gets the table as it is.
    log.warning("table %s: the log is at version %s, memory was at %s", table.table_id,
                table.version, before)
    if table.status() != "over":
        table.rematch_votes.clear()
    if table.status() != "playing":
        table.end_votes.clear()
    table.next_turn()
    for conn in list(table.connections):
        table.snapshot(conn)
    if table.status() != status:
        table.seats_changed()
    await table.settle_row()

