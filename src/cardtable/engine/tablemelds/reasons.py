"""Why a move is refused: the reason an :class:`~cardtable.engine.api.IllegalAction` carries.

In the draw, call and deal phases ``legal_actions`` lists every legal move and
decides; these functions only explain a refusal ("first draw, from the stock or
the discard pile").  A meld, lay-off, joker exchange or discard in the play
phase is judged from its content by
:func:`~cardtable.engine.tablemelds.play_checks.play_problem`, whose answer is
the reason ("your first meld is 31 points; 40 are needed").
"""

from __future__ import annotations

from ..api import Action
from .hooks import Hooks
from .phase import Phase

MOVES = ("draw_stock", "draw_discard", "meld", "lay_off", "swap_joker", "discard", "deal")


def why_illegal(state: Hooks, action: Action) -> str:
    """Why ``action`` is not legal now, in words a player understands."""
    if action.type not in MOVES:
        return f"{action.type!r} is not a move in {state.NAME}"
    if state.phase is Phase.MATCH_OVER:
        return "the match is over"
    if state.phase is Phase.HAND_OVER:
        return "the hand is over: deal the next one"
    if state.phase is Phase.DRAW:
        if action.type == "draw_discard" and state.discard:
            return "you must use that card this turn, and you cannot"
        return "first draw, from the stock or the discard pile"
    # the moves of the play phase are judged, and explained, by ``play_checks``
    return "you have drawn already: meld, lay off or discard"
