"""What a seat may see, where every card is, and the unseen cards dealt anew for search.

The view is the only way information leaves the engine (DESIGN.md): the own
hand with an engine-made arrangement and, when the seat may declare, the
finish cards that give a valid show; others' hands as counts (plus the
cards everyone saw them take from the open deck); the open deck's top card;
the closed deck as a count; the wild joker card.  After a deal every hand
is shown with its arrangement.  ``docs/rules/indian.md`` lists the fields.
"""

from __future__ import annotations

import random

from ...api import JSON
from ...cards import RANKS, format_cards, str_card
from ...state import Held, take_guesses
from . import arrange
from .layout import arrangement
from .match import IndianRules
from .scoring import hand_points


def _cards(cards: list[int]) -> list[str]:
    return format_cards(sorted(cards)).split()


def view(state: IndianRules, seat: int | None) -> dict[str, JSON]:
    o = state.options
    hands: list[JSON] = []
    for s, hand in enumerate(state.hands):
        entry: dict[str, JSON] = {"count": len(hand), "status": state.status[s].value,
                                  "drawn": state.draws[s] > 0, "penalty": state.penalty[s],
                                  "picked": _cards(state.picked[s])}
        if s == seat or state.revealed:
            entry["cards"] = _cards(hand)
        if s == seat and s in state.finish:
            entry["finish"] = str_card(state.finish[s])
        hands.append(entry)
    drops = o.drops
    return {
        "game": state.NAME, "seat": seat, "phase": state.phase.value, "to_act": state.to_act,
        "players": state.players, "dealer": state.dealer, "hand": state.deal_number,
        "direction": o.direction,
        "wild": {"card": str_card(state.cut),
                 "rank": None if state.wild is None else RANKS[state.wild]},
        "hands": hands,
        "open": {"top": str_card(state.open[-1]) if state.open else None,
                 "count": len(state.open),
                 "takeable": bool(state.open) and state.may_take(state.open[-1])},
        "closed": len(state.closed),
        "taken": None if state.taken is None else str_card(state.taken),
        "drop": None if drops is None else {"first": drops[0], "middle": drops[1]},
        "me": _own(state, seat) if seat is not None and seat < state.players else None,
        "format": _format(state),
        "scores": state.standing.scores(),
        "history": list(state.history),
        "last": None if state.last is None else dict(state.last),
        "result": state.final, "options": o.to_dict(),
        "legal": state.legal_for(seat),
    }


def _own(state: IndianRules, seat: int) -> JSON:
    """The seat's own hand arranged by the engine; the finish cards when it may declare."""
    hand = state.hands[seat]
    if not hand or state.revealed:
        return None
    o = state.options
    mine = arrangement(hand, state.wild, o.rules)
    mine["points"] = hand_points(hand, state.wild, o)
    if seat == state.to_act and len(hand) == 14:
        mine["finish_cards"] = format_cards(arrange.finish_cards(hand, state.wild, o.rules)).split()
    else:
        mine["finish_cards"] = []
    return mine


def _format(state: IndianRules) -> JSON:
    o, standing = state.options, state.standing
    return {"kind": o.format, "target": o.target if o.format == "pool" else None,
            "deals": o.deals if o.format == "deals" else None,
            "deals_played": standing.deals_played, "totals": list(standing.totals),
            "eliminated": list(standing.out)}


def zones(state: IndianRules) -> dict[str, JSON]:
    finish = list(state.finish.values())
    public = list(state.open) + [state.cut] + (finish if state.revealed else [])
    return {"hands": [list(h) for h in state.hands], "stock": list(state.closed),
            "face_down": [] if state.revealed else finish, "public": public,
            "seen_by": {s: [c] for s, c in state.finish.items()},
            "revealed": state.revealed, "deal": state.deal_number,
            "jokers": state.options.decks, "packs": state.options.decks}


def redeal_hidden(state: IndianRules, seat: int, rng: random.Random, held: Held) -> None:
    """The unseen cards (closed deck, others' hands but what they picked, others' face-down
    finish cards) dealt anew (a guess in ``held`` to its seat's hand first); everything
    ``seat`` saw stays."""
    unseen = list(state.closed)
    kept: list[list[int]] = []
    for s, hand in enumerate(state.hands):
        known = list(hand) if s == seat or state.revealed else list(state.picked[s])
        rest = list(hand)
        for c in known:
            rest.remove(c)
        unseen += rest
        kept.append(known)
    hidden_finish = [s for s in state.finish if s != seat and not state.revealed]
    unseen += [state.finish[s] for s in hidden_finish]
    hidden = {s: len(hand) - len(kept[s]) for s, hand in enumerate(state.hands) if s != seat}
    for s, cards in take_guesses(unseen, held, hidden).items():
        kept[s] += cards
    rng.shuffle(unseen)
    for s, hand in enumerate(state.hands):
        extra = len(hand) - len(kept[s])
        state.hands[s] = kept[s] + unseen[:extra]
        del unseen[:extra]
    for s in hidden_finish:
        state.finish[s] = unseen.pop()
    state.closed = unseen
