"""A table's finished matches, into the players' history (``store/players.py``).

When a match ends (played out, or ended by agreement) the table records it once: who sat
where (the lasting player ids of the people), the scores and who won. The match is taken
down at once, before anything awaits, so a rematch that follows cannot mix into it. A
write that fails is kept and tried again by the table's heal timer; a table loaded from
its log with its match over records it again, which the store turns into a no-op when it
landed the first time (a crash between the log's commit and this write loses nothing).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

from ...engine import GameState
from ...engine.registry import Descriptor
from ...store import SeatRecord, Store, TableRecord
from ...store.players import MatchRecord, MatchSeat

log = logging.getLogger("cardtable.table")


class HistoryHost(Protocol):
    @property
    def record(self) -> TableRecord: ...
    @property
    def game(self) -> Descriptor: ...
    @property
    def store(self) -> Store: ...
    @property
    def state(self) -> GameState | None: ...  # None: not dealt yet

    match_started: int
    ended: str | None

    @property
    def rated(self) -> bool: ...


def winning_seats(result: Mapping[str, Any], sides: list[list[int]]) -> set[int]:
    """The seats that won, from a game's result (``winning_seats``, ``winners`` or a
    ``winner`` side or seat; none on a draw)."""
    if "winning_seats" in result:
        return set(result["winning_seats"])
    if "winners" in result:
        return set(result["winners"])
    winner = result.get("winner")
    if not isinstance(winner, int) or isinstance(winner, bool):
        return set()
    return set(sides[winner]) if len(sides) < sum(map(len, sides)) else {winner}


def seat_scores(result: Mapping[str, Any], sides: list[list[int]],
                players: int) -> list[int | None]:
    """Each seat's final score, bonuses included (``totals`` where a game adds them to the
    hands' ``scores``); a partnership's seats share their side's."""
    scores = result.get("totals", result.get("scores"))
    if not isinstance(scores, list):
        return [None] * players
    if len(scores) == players:
        return [int(s) for s in scores]
    by_seat: list[int | None] = [None] * players
    for side, seats in enumerate(sides):
        for seat in seats:
            by_seat[seat] = int(scores[side]) if side < len(scores) else None
    return by_seat


def match_record(table: HistoryHost) -> MatchRecord:
    """The table's current match, as it ended; at a rated table, with its sides and ranks
    when it counts (see :func:`rating_of`)."""
    record, state = table.record, table.state
    assert state is not None  # a match ends (or is ended by agreement) once it is dealt
    sides = table.game.teams(record.players)
    result = state.result() if state.is_over() else None
    won = winning_seats(result, sides) if result is not None and not table.ended else set()
    scores = seat_scores(result, sides, record.players) if result is not None \
        else [None] * record.players
    left = {s.seat for s in record.seats if leaver(s, table.match_started)}
    counted = table.game.stats is not None and result is not None and not table.ended
    figures = table.game.stats.count(state) if counted and table.game.stats else \
        [None] * record.players
    seats = [MatchSeat(s.seat, (s.was if s.seat in left else s.name) or "?", s.kind,
                       s.player_id if s.kind == "human" or s.seat in left else None,
                       scores[s.seat], s.seat in won and s.seat not in left,
                       figures[s.seat])
             for s in record.seats]
    match = MatchRecord(f"{record.table_id}:{table.match_started}", record.table_id,
                        record.code, record.game, record.players, state.options.to_dict(),
                        table.ended, None if table.ended else result, seats)
    if table.rated and result is not None and not table.ended \
            and all(s.player_id for s in seats):
        match.rated = True
        match.rating_sides = [[str(seats[s].player_id) for s in side] for side in sides]
        match.rating_ranks = [3 if left & set(side) else 1 if won & set(side) or not won else 2
                              for side in sides]
    return match


def leaver(seat: SeatRecord, match_started: int) -> bool:
    """Whether the person of ``seat`` lost the current match by leaving it: for good (a
    computer in his seat), or at a rated table by being away (``Presence.forfeit``: past
    the grace period, or too many drops; he keeps his seat)."""
    return seat.player_id is not None and seat.left is not None \
        and seat.left >= match_started


class History:
    """Records each finished match of one table, once; keeps what could not be written."""

    def __init__(self) -> None:
        self.recorded: set[str] = set()
        self.unsaved: dict[str, MatchRecord] = {}

    @property
    def settled(self) -> bool:
        return not self.unsaved

    def keep(self, match: MatchRecord) -> None:
        """``match`` is to be written (now or by the next retry), unless it was."""
        if match.match_id not in self.recorded:
            self.unsaved[match.match_id] = match

    async def finished(self, table: HistoryHost) -> bool:
        """The current match is over: record it (False: not written, kept for a retry)."""
        self.keep(match_record(table))
        return await self.retry(table.store)

    async def retry(self, store: Store) -> bool:
        """Write what is kept; True when nothing is left to write."""
        for match_id, match in list(self.unsaved.items()):
            try:
                await store.players.record_match(match)
            except Exception as error:
                log.warning("match %s: could not record it (%r); trying again later",
                            match_id, error)
                return False
            del self.unsaved[match_id]
            self.recorded.add(match_id)
        return True
