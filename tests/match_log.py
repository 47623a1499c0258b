"""A table's event log read as its matches, for tests that replay it themselves.

A table made with every seat taken (against the computer) is dealt at its creation: its
row's ``start_chance`` holds that deal. A table made with a free seat has no match while
it waits (``start_chance`` is empty; ``options`` events may change its rules): the first
match is the ``start`` event logged when the last seat is taken. Each later match is a
``rematch`` (or, in logs written before matches were dealt only at the start, a
``redeal``). Such an event carries the match's options and its deck orders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardtable.engine import get_game
from cardtable.engine.api import State
from cardtable.server.codes import LogKind
from cardtable.server.table.replay import MOVES, NEW_MATCH
from cardtable.store import EventRecord, TableRecord


@dataclass
class LoggedMatch:
    """One match of a table's log."""

    version: int  # the version it was dealt at (0: at the table's creation)
    options: dict[str, Any]
    deal: list[Any]  # the chance outcomes of its first deal
    events: list[EventRecord] = field(default_factory=list)  # the log after it, to the next

    @property
    def moves(self) -> list[EventRecord]:
        return [e for e in self.events if e.kind in MOVES]

    @property
    def chance(self) -> list[Any]:
        """Every chance outcome of the match: its deal's, then those its moves drew."""
        return self.deal + [c for e in self.moves for c in e.chance]

    def replay(self, record: TableRecord, actions: bool = True, rng: Any = None) -> State:
        """The match replayed from its chance outcomes (with its moves, unless not
        ``actions``: then the deal, and later moves draw from the outcomes left)."""
        return get_game(record.game).replay(
            {"game": record.game, "options": self.options, "players": record.players,
             "chance": self.chance,
             "actions": [e.payload for e in self.moves] if actions else []}, rng)


def logged_matches(record: TableRecord, events: list[EventRecord]) -> list[LoggedMatch]:
    """The table's matches in order (none while it waits for players). The events
    before the first deal (``options`` while the table waited) belong to no match.
    A match dealt at the table's creation was dealt under the row's options: a test
    that changes the rules after it must not count on them."""
    matches = [LoggedMatch(0, dict(record.options), list(record.start_chance))] \
        if record.start_chance else []
    for event in events:
        if event.kind in NEW_MATCH:
            options = event.payload.get("options") or record.options
            matches.append(LoggedMatch(event.version, dict(options), list(event.chance)))
        elif matches:
            matches[-1].events.append(event)
        else:
            assert event.kind == LogKind.OPTIONS, f"{event} before the first deal"
    return matches
