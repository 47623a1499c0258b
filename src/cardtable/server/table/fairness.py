"""A table's proofs of fair deals: what it has committed to this hand, and when it reveals it.

The :mod:`cardtable.fairness` scheme, kept by one collaborator of the table actor. Every
chance outcome the match draws (a deal, a new stock from the discards) gets a commitment
at once, in the same frames that carry the first view of the new cards. The orders and
salts of the hand's shuffles go out only once the hand is over (dealing is the only move,
or the match is over); until then the frames carry commitments alone.

The salts derive from the table's key (``card_tables.fair_key``), so a table rebuilt from
its log after a restart commits to exactly what it did before. A table made before the
key existed has none and publishes no proofs.

Why the server and not the engine: the commitment is a promise of the table (its log, its
key) to its players, not a rule of any game; the engine records the deck orders as chance
outcomes and the table proves them, the way it logs them. Revealing a hand's orders once
the hand is over is the one deliberate disclosure beside ``view(seat)`` (docs/fairness.md):
the hand's cards, the stock's included, decide nothing any more.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...fairness import Shuffle, commitment, outcome_text, salt_for


@dataclass(frozen=True)
class Drawn:
    """The chance outcomes one logged event drew (version 0: the table's creation)."""

    version: int
    outcomes: Sequence[Any]
    new_hand: bool  # a deal or the start of a match: the hand before it is done


@dataclass
class _Committed:
    shuffle_id: str
    order: str
    salt: str
    commit: str

    def proof(self, revealed: bool) -> Shuffle:
        return Shuffle(self.shuffle_id, self.commit,
                       self.order if revealed else None, self.salt if revealed else None)


@dataclass
class Fairness:
    """The commitments of the current match, by hand."""

    table_id: str
    key: bytes | None
    match: list[_Committed] = field(default_factory=list)
    hand_start: int = 0  # where the current hand's shuffles begin in ``match``

    @classmethod
    def of(cls, table_id: str, key_hex: str | None, drawn: Iterable[Drawn]) -> Fairness:
        fairness = cls(table_id, bytes.fromhex(key_hex) if key_hex else None)
        fairness.replay(drawn)
        return fairness

    @property
    def enabled(self) -> bool:
        return self.key is not None

    def replay(self, drawn: Iterable[Drawn]) -> None:
        """The current match's commitments from its events (the table rebuilt from its log)."""
        self.match, self.hand_start = [], 0
        for event in drawn:
            self.drew(event)

    def drew(self, event: Drawn) -> None:
        """A logged event drew ``event.outcomes``: commit to each."""
        if event.new_hand:
            self.hand_start = len(self.match)
        if self.key is None:
            return
        for index, outcome in enumerate(event.outcomes):
            salt = salt_for(self.key, self.table_id, event.version, index)
            order = outcome_text(outcome)
            self.match.append(_Committed(f"{event.version}.{index}", order, salt,
                                         commitment(salt, order)))

    def new_match(self, version: int, outcomes: Sequence[Any]) -> None:
        """A rematch or redeal logged at ``version``: a match of its own."""
        self.match, self.hand_start = [], 0
        self.drew(Drawn(version, outcomes, True))

    def hand(self, revealed: bool) -> dict[str, Any] | None:
        """For the frames: this hand's proofs (orders and salts once ``revealed``)."""
        if self.key is None:
            return None
        return {"revealed": revealed,
                "shuffles": [c.proof(revealed).to_json() for c in self.match[self.hand_start:]]}

    def proofs(self, revealed: bool) -> list[Shuffle]:
        """Every proof of the match so far; the current hand's orders only if ``revealed``."""
        return [c.proof(revealed or i < self.hand_start) for i, c in enumerate(self.match)]
