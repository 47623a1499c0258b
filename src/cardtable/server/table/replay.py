"""A table from its log: the match, the command ids seen, and what the log says of its seats.

Event kinds (:class:`~cardtable.server.codes.LogKind`): ``action`` (a seat's own move; a
person's carries the client's command id), ``timeout`` (the automatic move of a turn
that ran out: it counts against the seat), ``auto`` (any other move the server made for
a person: the rest of a timed-out turn, or a computer standing in), ``start`` (every seat
is taken: the first match is dealt), ``rematch`` (a new match), ``options`` (new rules
while the table waits, or after a match for the rematch), ``end`` (the match ended by
agreement, unscored) and, in logs written before matches were dealt only at the start,
``redeal`` (new options before the first move dealt again).

A table made with a free seat has no match until ``start``: its row's ``start_chance`` is
empty and its state is None.

The game's options are parsed here, once, when the table is loaded: the table keeps the
typed :class:`~cardtable.engine.api.Options`; the log and the row keep their JSON.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from ...engine import GameState, get_game
from ...engine.api import Options, live_rng
from ...store import EventRecord, TableRecord
from ..codes import LogKind
from .fairness import Drawn

MOVES = frozenset({LogKind.ACTION, LogKind.TIMEOUT, LogKind.AUTO})
NEW_MATCH = frozenset({LogKind.START, LogKind.REMATCH, LogKind.REDEAL})
STANDIN_AFTER = 3  # timeouts in a match before a computer takes the seat


@dataclass
class Replayed:
    state: GameState | None  # None: not dealt yet (the table waits for players)
    options: Options  # the rules of this match, or those set for the next one
    commands: dict[str, int] = field(default_factory=dict)  # "seat:id" -> version
    timeouts: dict[int, int] = field(default_factory=dict)  # in the current match
    misses: dict[int, int] = field(default_factory=dict)  # consecutive timeouts
    asleep: set[int] = field(default_factory=set)  # timed out 3 times and not back since
    moves: int = 0  # moves in the current match
    ended: str | None = None
    drawn: list[Drawn] = field(default_factory=list)  # the current match's chance, by event
    started: int = 0  # the version that started the current match (0: the table's creation)


def rebuild(record: TableRecord, events: list[EventRecord]) -> Replayed:
    """The current match from the log, and the command ids already applied."""
    game = get_game(record.game)
    options: dict[str, Any] = dict(record.options)  # this match's
    following = options  # this match's, or the next one's once set after the match
    chance: list[Any] = list(record.start_chance)
    actions: list[dict[str, Any]] = []
    commands: dict[str, int] = {}
    timeouts: dict[int, int] = {}
    misses: dict[int, int] = {}
    asleep: set[int] = set()
    moves, ended = 0, None
    dealt = bool(record.start_chance)  # at the table's creation (every seat was taken)
    drawn = [Drawn(0, list(record.start_chance), True)] if dealt else []
    started = 0
    for event in events:
        if event.cmd_id is not None:
            commands[f"{event.seat}:{event.cmd_id}"] = event.version
        if event.kind in NEW_MATCH:
            options = dict(event.payload.get("options") or options)
            following = options
            chance, actions = list(event.chance), []
            timeouts, misses, asleep = {}, {}, set()
            moves, ended = 0, None
            drawn = [Drawn(event.version, list(event.chance), True)]
            started = event.version
            dealt = True
            continue
        if event.kind == LogKind.OPTIONS:
            following = dict(event.payload["options"])
            continue
        if event.kind == LogKind.END:
            ended = str(event.payload.get("reason", "agreed"))
            continue
        chance += event.chance
        if event.chance or event.payload.get("type") == "deal":
            drawn.append(Drawn(event.version, list(event.chance),
                               event.payload.get("type") == "deal"))
        actions.append(event.payload)
        moves += 1
        seat = event.seat
        if seat is None:
            continue
        if event.kind == LogKind.TIMEOUT:
            timeouts[seat] = timeouts.get(seat, 0) + 1
            misses[seat] = misses.get(seat, 0) + 1
            if timeouts[seat] >= STANDIN_AFTER:
                asleep.add(seat)
        elif event.kind == LogKind.ACTION and event.cmd_id is not None:
            misses[seat] = 0
            asleep.discard(seat)
    # Later deals of the rebuilt match come from the live rng, like any live table's.
    state = game.replay({"game": record.game, "options": options, "players": record.players,
                         "chance": chance, "actions": actions}, secrets.SystemRandom()) \
        if dealt else None
    return Replayed(state=state, options=game.options.from_dict(following), commands=commands,
                    timeouts=timeouts, misses=misses, asleep=asleep, moves=moves, ended=ended,
                    drawn=drawn, started=started)


def without_last_move(state: GameState, game: str, drawn: int) -> GameState:
    """``state`` before its last move: the match replayed without it (the chance
    outcomes past the first ``drawn`` are dropped; later deals come from a live rng)."""
    record = state.record()
    record["actions"] = record["actions"][:-1]
    record["chance"] = record["chance"][:drawn]
    return get_game(game).replay(record, rng=live_rng())
