"""Whether a move of the play phase is legal, judged from the move itself.

This is the check of OpenSpiel's ``ApplyAction`` for ``meld``, ``lay_off``,
``swap_joker`` and ``discard``: the cards named are held, each group is a meld
the game allows (``meld_problem``: joker limits), the first melds reach the
minimum together, a card owed to the table is placed, and a card is left to
discard when one must be (``final_discard``, the card just taken from the pile).
:func:`play_problem` returns the first rule a move breaks, in a player's words,
or ``None``.

``legal_actions`` lists these moves for views, hints and bots, filtered by the
same predicates (:func:`placement_problem`, :func:`may_discard`, ``meld_problem``,
``may_extend``, the opening minimum); but its melds are a bounded menu
(openings of up to three melds, at most 300 of them; melds of up to two
jokers), so a submitted move is judged here, never by whether the menu lists
it.  The other phases (draw, call, the next deal) list every legal move, and
there membership is the check.
"""

from __future__ import annotations

from collections import Counter

from ..api import Action
from ..cards import format_cards, str_card
from ..melds import InvalidMeld
from .hooks import Hooks, meld_of
from .opening import opening_problem
from .table import TableMeld, extend, swap_joker

PLAY_MOVES = ("meld", "lay_off", "swap_joker", "discard")
"""The moves of the play phase that are judged from their content."""


def play_problem(state: Hooks, action: Action) -> str | None:
    """Why ``action`` (in canonical form) is not legal in the play phase (``None``: it is)."""
    seat = state.to_act
    assert seat is not None, "no seat is to act"
    problem = _shape_problem(action) or _held_problem(state.hands[seat], action)
    if problem:
        return problem
    if action.type == "discard":
        assert action.card is not None
        return discard_problem(state, action.card)
    if action.type == "meld":
        return _meld_problem(state, seat, action)
    return _table_move_problem(state, seat, action)


def _shape_problem(action: Action) -> str | None:
    """A move carries the fields of its type and no others."""
    if action.type == "meld":
        if action.card is not None or action.number is not None or action.meld is not None:
            return "a meld names only its cards (cards), or the first melds (melds)"
        if action.cards and action.melds:
            return "a meld names its cards (cards) or the first melds (melds), not both"
        if not (action.cards or action.melds):
            return "name the cards of the meld"
        return None
    if action.card is None:
        return f"{action.type} names a card"
    if action.number is not None or action.cards or action.melds:
        return f"{action.type} names one card" + ("" if action.type == "discard"
                                                  else " and a meld on the table")
    if action.type == "discard":
        return None if action.meld is None else "a discard names only the card"
    return None if action.meld is not None else f"{action.type} names a meld on the table (meld)"


def _held_problem(hand: list[int], action: Action) -> str | None:
    """Every card the move names is in the hand, as many times as it is named."""
    named = Counter([*action.cards, *(c for group in action.melds for c in group)])
    if action.card is not None:
        named[action.card] += 1
    held = Counter(hand)
    for card, count in sorted(named.items()):
        if held[card] < count:
            name = str_card(card) if 0 <= card <= 53 else str(card)
            if not held[card]:
                return f"you do not hold {name}"
            return f"you hold {name} only {'once' if held[card] == 1 else f'{held[card]} times'}"
    return None


def _meld_problem(state: Hooks, seat: int, action: Action) -> str | None:
    limit = state.melds_per_turn()
    if limit is not None and state.melds_this_turn >= limit:
        return f"only {limit} new meld per turn"
    minimum = state.opening_minimum(seat)
    if action.melds and (not minimum or state.has_melded[seat]):
        return "lay one meld at a time (cards)" + (
            ": only the first melds go down together (melds)" if minimum else "")
    groups = action.melds or (action.cards,)
    placed = [c for group in groups for c in group]
    owed = owed_problem(state, placed)
    if owed:
        return owed
    rules = state.meld_rules()
    for group in groups:
        try:
            problem = state.meld_problem(meld_of(tuple(group), rules))
        except InvalidMeld as error:
            problem = str(error)
        if problem:  # among several melds, say which one
            return f"{format_cards(group)}: {problem}" if len(groups) > 1 else problem
    return opening_problem(state, seat, action) or placement_problem(state, action, placed)


def _table_move_problem(state: Hooks, seat: int, action: Action) -> str | None:
    """A lay-off or a joker exchange on the table meld ``action.meld``."""
    card = action.card
    assert card is not None
    meld = next((m for m in state.table if m.id == action.meld), None)
    if meld is None:
        return f"there is no meld {action.meld} on the table"
    if action.type == "swap_joker":
        return _swap_problem(state, seat, action, meld, card)
    if not state.may_lay_off(seat):
        return "you may not lay off before you have melded"
    problem = owed_problem(state, (card,))
    if problem:
        return problem
    if not state.may_extend(meld, card):
        return _why_not_extend(state, meld, card, seat)
    return placement_problem(state, action, (card,))


def _why_not_extend(state: Hooks, meld: TableMeld, card: int, seat: int) -> str:
    try:
        return state.meld_problem(extend(meld, card, seat, state.meld_rules())) or \
            f"{str_card(card)} cannot be laid off on {meld}"
    except InvalidMeld as error:
        return str(error)


def _swap_problem(state: Hooks, seat: int, action: Action, meld: TableMeld,
                  card: int) -> str | None:
    if not state.may_swap_jokers(seat):
        return "you may not exchange jokers now"
    if state.must_place:
        return f"you must first use {format_cards(state.must_place)} on the table"
    try:
        swap_joker(meld, card, seat, state.meld_rules())
    except InvalidMeld as error:
        return str(error)
    if not state.joker_can_return(action):
        return "the joker this frees must go back on the table this turn, and it cannot"
    return None


# -- the predicates ``legal_actions`` filters its lists with, too -------------------------


def may_discard(card: int, hand: list[int], taken: int | None) -> bool:
    """Not the card just taken from the pile (``taken``); a second copy of it (two packs)
    may go."""
    return card != taken or hand.count(card) > 1


def discard_problem(state: Hooks, card: int) -> str | None:
    """Why the held ``card`` may not be discarded now."""
    if state.must_place:
        return f"you must first use {format_cards(state.must_place)} on the table"
    if not may_discard(card, _hand(state), state.taken):
        return "you may not discard the card you just took from the discard pile"
    return None


def owed_problem(state: Hooks, cards: tuple[int, ...] | list[int]) -> str | None:
    """Why placing ``cards`` does not meet the obligation to use a card this turn."""
    owed = state.must_place
    if owed and not set(owed) & set(cards):
        return f"you must first use {format_cards(owed)} on the table"
    return None


def placement_problem(state: Hooks, move: Action,
                      cards: tuple[int, ...] | list[int]) -> str | None:
    """Why the placement ``move``, which lays the held ``cards``, would break the obligation
    to use a card this turn or leave no way to finish the turn (``None``: it is fine)."""
    problem = owed_problem(state, cards)
    if problem:
        return problem
    hand = _hand(state)
    left = len(hand) - len(cards)
    if left > 1:
        # two cards left: one of them is not the card just taken from the pile, or
        # both are copies of it, and a copy may go
        return None
    if not left:
        if state.final_discard_required():
            return "you must keep a card to discard: you go out by discarding"
        return None
    kept, still_owed = list(hand), list(state.must_place)
    for c in cards:
        kept.remove(c)
        if c in still_owed:
            still_owed.remove(c)
    if kept[0] != state.taken or still_owed:
        return None  # it may be discarded (a card still owed is placed first, checked then)
    # the card just taken from the pile, kept alone, may not be discarded: the turn goes
    # on only if it can be laid off, going out
    if not state.final_discard_required() and state.kept_card_can_go(move):
        return None
    return (f"you would keep only {str_card(kept[0])}, the card you took from the discard "
            "pile: it may not be discarded this turn, and it cannot be laid off")


def _hand(state: Hooks) -> list[int]:
    seat = state.to_act
    assert seat is not None, "no seat is to act"
    return state.hands[seat]
