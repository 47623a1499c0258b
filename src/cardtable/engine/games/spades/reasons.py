"""Why a move is refused, in plain words (the legal list itself is the authority)."""

from __future__ import annotations

from ...api import Action
from ...api import Phase as PhaseEnum
from ...cards import str_card
from .match import SpadesRules
from .phase import Phase
from .tricks import CLUBS, suit_of

MOVES = {"keep", "reject", "blind_nil", "look", "bid", "pass_cards", "play", "deal"}
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
EXPECTED: dict[PhaseEnum, str] = {Phase.DRAW: "keep or reject the top card",
            Phase.BLIND_NIL: "bid blind nil or look at your cards", Phase.BID: "bid",
            Phase.EXCHANGE: "pass two cards to your partner", Phase.PLAY: "play a card",
            Phase.HAND_OVER: "deal the next hand"}


def why_illegal(state: SpadesRules, action: Action) -> str:
    """The reason ``action`` is not among ``state.legal_actions()``."""
    if action.type not in MOVES:
        return f"{action.type!r} is not a move in spades"
    if state.phase is Phase.MATCH_OVER or state.to_act is None:
        return "the match is over"
    if action.type not in {a.type for a in state.legal_actions()}:
        return f"now {EXPECTED[state.phase]}"
    hand = state.hands[state.to_act]
    if action.type == "play" and action.card is not None:
        return _why_not_playable(state, action.card, hand)
    if action.type == "pass_cards":
        if len(action.cards) != 2:
            return "pass exactly two cards"
        missing = [c for c in action.cards if action.cards.count(c) > hand.count(c)]
        if missing:
            return f"you do not hold {str_card(missing[0])}"
    if action.type == "bid":
        return _why_not_biddable(state, action.number)
    return f"{action} is not allowed now ({state.phase.value.replace('_', ' ')})"


def _why_not_playable(state: SpadesRules, card: int, hand: list[int]) -> str:
    if card not in hand:
        return f"you do not hold {str_card(card)}"
    first = not state.tricks
    lowest_club = state.options.first_trick == "lowest_club"
    if not state.trick:
        if first and state.opening is not None:
            return f"the first trick opens with {str_card(state.opening)}"
        if first and lowest_club and any(suit_of(c) == CLUBS for c in hand):
            return "on the first trick lead your lowest club"
        if first:
            return "the first trick may not be led with a spade"
        return "spades are not broken yet: lead another suit"
    led = suit_of(state.trick[0][1])
    if any(suit_of(c) == led for c in hand):
        if first and lowest_club and led == CLUBS:
            return "on the first trick play your lowest club"
        return f"you must follow {SUIT_NAMES[led]}"
    return "no spades on the first trick while you hold another suit"


def _why_not_biddable(state: SpadesRules, number: int | None) -> str:
    if number is None or not 0 <= number <= state.hand_size:
        return f"bid a number from 0 (nil) to {state.hand_size}"
    least = state.options.minimum_team_bid
    if not state.partnership:
        return f"bid nil or at least {least}"
    partner = state.partner_of(state.to_act) if state.to_act is not None else None
    partner_bid = None if partner is None else state.bids[partner]
    if state.options.suicide and (partner_bid is None or (number == 0) == (partner_bid == 0)):
        return "suicide: exactly one partner bids nil, the other at least " \
               f"{max(least, 1)}"
    return f"your side must bid at least {least} in all"


__all__ = ["why_illegal"]
