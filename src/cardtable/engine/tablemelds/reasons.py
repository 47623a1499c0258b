"""Why a move is refused: the reason an :class:`~cardtable.engine.api.IllegalAction` carries.

Legality itself is decided once, by ``legal_actions``; these functions only
explain a refusal ("a run needs three cards of one suit in sequence", "your
first meld is 31 points; 40 are needed").
"""

from __future__ import annotations

from ..api import Action
from ..cards import format_cards, str_card
from ..melds import InvalidMeld, make_meld
from .hooks import Hooks
from .opening import opening_problem
from .phase import Phase
from .table import extend, swap_joker

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
    if action.type in ("draw_stock", "draw_discard", "deal"):
        return "you have drawn already: meld, lay off or discard"
    seat = state.to_act
    assert seat is not None
    hand = list(state.hands[seat])
    for c in [*action.cards, *(c for m in action.melds for c in m)] + (
            [] if action.card is None else [action.card]):
        if c not in hand:
            return f"you do not hold {str_card(c)}"
        hand.remove(c)
    return _why_play_illegal(state, seat, action)


def _why_play_illegal(state: Hooks, seat: int, action: Action) -> str:
    rules = state.meld_rules()
    if state.must_place:
        return f"you must first use {format_cards(state.must_place)} on the table"
    if action.type == "discard":
        return "you may not discard the card you just took from the discard pile"
    if action.type == "meld":
        try:
            for group in action.melds or (action.cards,):
                problem = state.meld_problem(make_meld(group, rules))
                if problem:
                    return problem
        except InvalidMeld as error:
            return str(error)
        limit = state.melds_per_turn()
        if limit is not None and state.melds_this_turn >= limit:
            return f"only {limit} new meld per turn"
        problem = opening_problem(state, seat, action)
        if problem:
            return problem
    elif action.type in ("lay_off", "swap_joker"):
        meld = next((m for m in state.table if m.id == action.meld), None)
        if meld is None:
            return f"there is no meld {action.meld} on the table"
        if action.type == "lay_off" and not state.may_lay_off(seat):
            return "you may not lay off before you have melded"
        if action.type == "swap_joker" and not state.may_swap_jokers(seat):
            return "you may not exchange jokers now"
        assert action.card is not None
        try:
            if action.type == "lay_off":
                problem = state.meld_problem(extend(meld, action.card, seat, rules))
                if problem:
                    return problem
            else:
                swap_joker(meld, action.card, seat, rules)
                return "the joker this frees must go back on the table this turn, and it cannot"
        except InvalidMeld as error:
            return str(error)
    if state.final_discard_required():
        return "you must keep a card to discard: you go out by discarding"
    return "you would be left with only the card you took from the discard pile"
