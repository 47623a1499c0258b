"""Provably fair deals: a commitment to every shuffle before a card is seen, the proof after.

At each shuffle (a deal, or the discards turned into a new stock) the table publishes

    commit = SHA-256( salt + ":" + order )            (hex, lower case)

where ``order`` is the deck as dealt, top first, in the card codec (``"7h Ts Jk ..."``,
exactly as the engine records it; a chance outcome that is a number, such as a drawn
dealer, is its decimal) and ``salt`` is 64 hex digits (256 bits) no one can guess. When the
hand is over the table reveals ``order`` and ``salt``; anyone can then recompute the hash,
e.g. ``printf '%s:%s' "$SALT" "$ORDER" | sha256sum``, and see that the cards were dealt in an
order fixed before the first card was seen. The salt keeps the commitment from telling
anything about the cards during the hand (there are only 52! orders, but 2^256 salts per
order: no one can search them).

The salts are derived, not stored one by one: ``HMAC-SHA256(key, "table:version:index")``
with a 256-bit key per table that never leaves the server. A salt is as unpredictable as a
fresh random one to anyone without the key, revealing it tells nothing of the key or of any
other salt, and a table rebuilt from its log after a restart derives the very same salts,
so the commitments players saw before the restart stay good after it.

The shuffles themselves still come from ``secrets.SystemRandom()`` (the engine's live rng);
the commitment proves only that the order was not changed after it was published.

>>> key = bytes(32)
>>> salt = salt_for(key, "t_x", 3, 0)
>>> len(salt)
64
>>> proof = Shuffle(shuffle_id="3.0", commit=commitment(salt, "7h Ts"), order="7h Ts", salt=salt)
>>> proof.problem() is None
True
>>> Shuffle(proof.shuffle_id, proof.commit, "Ts 7h", salt).problem()
'shuffle 3.0: the revealed order does not match its commitment'
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SALT_HEX = 64  # 256 bits


def outcome_text(outcome: Any) -> str:
    """The text a commitment covers: a deck as recorded (``"7h Ts ..."``), a number in decimal."""
    if isinstance(outcome, bool) or not isinstance(outcome, (str, int)):
        raise ValueError(f"not a chance outcome: {outcome!r}")
    return outcome if isinstance(outcome, str) else str(outcome)


def salt_for(key: bytes, table_id: str, version: int, index: int) -> str:
    """The salt of the ``index``-th chance outcome drawn by the event at ``version``
    (0: the table's creation) of ``table_id``: 64 hex digits."""
    message = f"{table_id}:{version}:{index}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def commitment(salt: str, order: str) -> str:
    """SHA-256 of ``salt + ":" + order``, in hex."""
    return hashlib.sha256(f"{salt}:{order}".encode()).hexdigest()


@dataclass(frozen=True)
class Shuffle:
    """One committed chance outcome: its id (``"version.index"``), its commitment, and once
    the hand is over the order and salt that prove it."""

    shuffle_id: str
    commit: str
    order: str | None = None
    salt: str | None = None

    @property
    def revealed(self) -> bool:
        return self.order is not None and self.salt is not None

    def to_json(self) -> dict[str, str]:
        data = {"id": self.shuffle_id, "commit": self.commit}
        if self.order is not None and self.salt is not None:
            data["order"], data["salt"] = self.order, self.salt
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Shuffle:
        try:
            return cls(str(data["id"]), str(data["commit"]),
                       None if data.get("order") is None else str(data["order"]),
                       None if data.get("salt") is None else str(data["salt"]))
        except KeyError as missing:
            raise ValueError(f"a shuffle proof lacks {missing}") from None

    def problem(self) -> str | None:
        """Why this proof fails (None: it holds). An unrevealed shuffle proves nothing yet."""
        if not self.revealed:
            return f"shuffle {self.shuffle_id}: not revealed"
        assert self.salt is not None and self.order is not None
        if len(self.salt) != SALT_HEX:
            return f"shuffle {self.shuffle_id}: the salt is not 256 bits"
        if not hmac.compare_digest(commitment(self.salt, self.order), self.commit):
            return f"shuffle {self.shuffle_id}: the revealed order does not match its commitment"
        return None


def problems(shuffles: Iterable[Shuffle]) -> list[str]:
    """Every failing proof among ``shuffles``, in plain words."""
    return [why for why in (s.problem() for s in shuffles) if why is not None]
