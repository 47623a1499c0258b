"""A table from its log: the match, the command ids seen, and what the log says of its seats.

Event kinds: ``action`` (a seat's own move; a person's carries the client's command id),
``timeout`` (the automatic move of a turn that ran out: it counts against the seat),
``auto`` (any other move the server made for a person: the rest of a timed-out turn, or
a computer standing in), ``redeal`` (new options before the first move: a new deal),
``rematch`` (a new match), ``options`` (new rules after a match, for the rematch) and
``end`` (the match ended by agreement, unscored).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from ..engine import get_game
from ..engine.api import State
from ..store import EventRecord, TableRecord

MOVES = ("action", "timeout", "auto")
NEW_MATCH = ("rematch", "redeal")
STANDIN_AFTER = 3  # timeouts in a match before a computer takes the seat


@dataclass
class Replayed:
    state: State
    options: dict[str, Any]  # the rules of this match, or those set for the next one
    commands: dict[str, int] = field(default_factory=dict)  # "seat:id" -> version
    timeouts: dict[int, int] = field(default_factory=dict)  # in the current match
    misses: dict[int, int] = field(default_factory=dict)  # consecutive timeouts
    asleep: set[int] = field(default_factory=set)  # timed out 3 times and not back since
    moves: int = 0  # moves in the current match
    ended: str | None = None


def rebuild(record: TableRecord, events: list[EventRecord]) -> Replayed:
    """The current match from the log, and the command ids already applied."""
    game = get_game(record.game)
    options: dict[str, Any] = dict(record.options)
    chance: list[Any] = list(record.start_chance)
    actions: list[dict[str, Any]] = []
    out = Replayed(state=None, options=options)  # type: ignore[arg-type]  # set below
    for event in events:
        if event.cmd_id is not None:
            out.commands[f"{event.seat}:{event.cmd_id}"] = event.version
        if event.kind in NEW_MATCH:
            options = dict(event.payload.get("options") or options)
            out.options = options
            chance, actions = list(event.chance), []
            out.timeouts, out.misses, out.asleep = {}, {}, set()
            out.moves, out.ended = 0, None
            continue
        if event.kind == "options":
            out.options = dict(event.payload["options"])
            continue
        if event.kind == "end":
            out.ended = str(event.payload.get("reason", "agreed"))
            continue
        chance += event.chance
        actions.append(event.payload)
        out.moves += 1
        seat = event.seat
        if seat is None:
            continue
        if event.kind == "timeout":
            out.timeouts[seat] = out.timeouts.get(seat, 0) + 1
            out.misses[seat] = out.misses.get(seat, 0) + 1
            if out.timeouts[seat] >= STANDIN_AFTER:
                out.asleep.add(seat)
        elif event.kind == "action" and event.cmd_id is not None:
            out.misses[seat] = 0
            out.asleep.discard(seat)
    # Later deals of the rebuilt match come from the live rng, like any live table's.
    out.state = game.replay({"game": record.game, "options": options,
                             "players": record.players, "chance": chance, "actions": actions},
                            secrets.SystemRandom())
    return out
