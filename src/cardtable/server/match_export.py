"""A table's finished match as a file (``cardtable.match_file``), built from the durable log.

It reads the store, not the table actor: the log is the truth of a match, any process can
read it (the table may live on another node, or in no memory at all), and a finished match
no longer changes. An unfinished match is not exported: its hidden cards stay hidden.
"""

from __future__ import annotations

from typing import Any

from ..match_file import match_document
from ..store import EventRecord, TableRecord
from .table_fairness import Fairness
from .table_replay import rebuild


def export_match(record: TableRecord, events: list[EventRecord]) -> dict[str, Any] | None:
    """The file of the table's current match, or None while it is being played."""
    replayed = rebuild(record, events)
    state = replayed.state
    if not (state.is_over() or replayed.ended):
        return None
    fairness = Fairness.of(record.table_id, record.fair_key, replayed.drawn)
    return match_document(record.code, state.record(), fairness.proofs(revealed=True),
                          state.result() if state.is_over() else None, replayed.ended)
