"""A table's matches as files and replays (:mod:`.match_replay`), built from the durable log.

It reads the store, not the table actor: the log is the truth of a match, any process can
read it (the table may live on another node, or in no memory at all), and a finished match
no longer changes. An unfinished match is not exported: its hidden cards stay hidden.
"""

from __future__ import annotations

from typing import Any

from ..store import EventRecord, TableRecord
from .match_replay import logged_match, match_file
from .table import NEW_MATCH


def current_start(events: list[EventRecord]) -> int:
    """The version that started the table's current match (0: its creation)."""
    return next((e.version for e in reversed(events) if e.kind in NEW_MATCH), 0)


def export_match(record: TableRecord, events: list[EventRecord],
                 start: int | None = None) -> dict[str, Any] | None:
    """The file of the match that began at ``start`` (default: the current one), or None
    while it is being played or when no match began there."""
    match = logged_match(record, events, current_start(events) if start is None else start)
    return None if match is None else match_file(record, match)
