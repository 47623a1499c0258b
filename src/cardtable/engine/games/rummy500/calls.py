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
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...api import JSON, Action, Event
from ...cards import str_card
from ...tablemelds import Phase

if TYPE_CHECKING:
    from .match import Rummy500State


@dataclass(frozen=True, slots=True)
class Call:
    """A discard on offer: ``waiting`` are the seats still to answer (the first is asked now);
    ``caller`` is set once someone called and must place the card."""

    card: int
    discarder: int
    waiting: tuple[int, ...]
    caller: int | None = None

    def to_json(self) -> dict[str, JSON]:
        # ``waiting`` stays hidden: who else could use the card is part of their hands.
        return {"card": str_card(self.card), "discarder": self.discarder, "caller": self.caller}


def callers(state: Rummy500State, discarder: int, card: int) -> tuple[int, ...]:
    """The seats asked about ``card``: every other seat, in turn order from the discarder's left."""
    n = state.players
    return tuple((discarder + k) % n for k in range(1, n))


def may_call(state: Rummy500State, seat: int) -> bool:
    """Whether ``seat``, asked now, could put the card on offer on the table."""
    call = state.call
    assert call is not None
    return state.usable(call.card, [*state.hands[seat], call.card])


def apply_call(state: Rummy500State, action: Action) -> list[Event]:
    """``call`` or ``pass`` by the seat asked (``state.phase`` is ``CALL``)."""
    call, seat = state.call, state.current_player()
    assert call is not None and seat is not None
    if action.type == "pass":
        events = [Event("pass", seat, {"card": str_card(call.card)})]
        rest = call.waiting[1:]
        if not rest:
            return events + state.next_turn(call.discarder)
        state.call = replace(call, waiting=rest)
        state.to_act = rest[0]
        return events
    taken = state.discard.pop()
    assert taken == call.card
    state.hands[seat].append(taken)
    state.picked[seat].append(taken)  # everyone saw it taken: it is no secret while held
    state.call = replace(call, waiting=(), caller=seat)
    state.to_act, state.phase = seat, Phase.PLAY
    state._new_turn()
    state.must_place = [taken]
    return [Event("call", seat, {"card": str_card(taken)})]


def why_not_call(state: Rummy500State, action: Action) -> str:
    """Why a move is refused while a call is open, or why ``call`` is refused."""
    if state.phase is Phase.CALL and state.call is not None:
        return (f"{str_card(state.call.card)} was just discarded: 'call' to take it and play "
                "it now, or 'pass'")
    if not state.options.calling_rummy:
        return "calling Rummy is not played at this table"
    return "there is no discard you can call now"
