"""Calling Rummy (option ``calling_rummy``): claiming a discard out of turn.

After every discard the other players are asked one at a time, in turn
order from the discarder's left, in phase ``call``: each answers ``pass``,
or ``call`` when he could put the card on the table (lay it off on any meld,
or meld it with cards of his own hand).  Everyone is asked, whether he could
use the card or not: asking only those who could would tell the table (and
spectators) something about their hands.

The first to ``call`` takes the card from the pile and must put it on the
table at once, in one move (a ``meld`` that holds it, or a ``lay_off`` of
it), for his own credit; he draws and discards nothing.  If that empties his
hand he has gone out.  Then, or when everyone asked has passed, the player
to the discarder's left takes his normal turn.  Nobody may call his own
discard, and there is nothing to call after a player goes out by discarding.

This module holds the offer (:class:`Call`); the phase's moves are
``Rummy500State._legal_call`` and ``_apply_call``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...api import JSON
from ...cards import str_card


@dataclass(frozen=True, slots=True)
class Call:
    """A discard on offer: ``waiting`` are the seats still to answer (the first is asked now);
    ``caller`` is set once someone called and must place the card."""

    card: int
    discarder: int
    waiting: tuple[int, ...]
    caller: int | None = None

    @classmethod
    def offer(cls, card: int, discarder: int, players: int) -> Call:
        """``card`` just discarded, every other seat to be asked in turn order from the
        discarder's left (whether it could use the card or not: see the module doc)."""
        return cls(card, discarder, tuple((discarder + k) % players for k in range(1, players)))

    @property
    def asked(self) -> int:
        """The seat that answers now."""
        return self.waiting[0]

    def passed(self) -> Call | None:
        """The offer once the seat asked passed: the next seat's turn, ``None`` when all did."""
        rest = self.waiting[1:]
        return replace(self, waiting=rest) if rest else None

    def called(self) -> Call:
        """The offer once the seat asked called: nobody else is asked, he must place it."""
        return replace(self, waiting=(), caller=self.asked)

    def to_json(self) -> dict[str, JSON]:
        # ``waiting`` stays hidden: who else could use the card is part of their hands.
        return {"card": str_card(self.card), "discarder": self.discarder, "caller": self.caller}


def why_not_call(asking: Call | None, calling_rummy: bool) -> str:
    """Why a move is refused while the seats are ``asking`` about a discard (phase
    ``call``), or why ``call`` is refused."""
    if asking is not None:
        return (f"{str_card(asking.card)} was just discarded: 'call' to take it and play "
                "it now, or 'pass'")
    if not calling_rummy:
        return "calling Rummy is not played at this table"
    return "there is no discard you can call now"
