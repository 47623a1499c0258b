"""What a seat may know: the one redaction point of a Spades match (and, for the server
and the tests, where every card is).

Own hand in full (not before a blind nil decision: a seat that may still
bid blind nil sees none of its cards); everyone else's hand as a count;
bids, tricks and every card played this hand (all were public); the cards
received in a blind nil exchange (only to the receiver); two players: the
card offered from the stock (to the drawer) and one's own dead cards.

The jokers have their own names, ``"Jk"`` the Little and ``"Bj"`` the Big; ``"jokers"``
(own hand, in the order they are listed) and a play's ``"joker"`` say it in words too.
"""

from __future__ import annotations

from typing import Any

from ...api import JSON
from ...cards import JOKER, str_card
from .match import SpadesRules
from .phase import Phase
from .tricks import BIG_JOKER, LITTLE_JOKER, display_key


def joker_name(c: int) -> str:
    return "big" if c == BIG_JOKER else "little"


def _play(seat: int, c: int) -> dict[str, JSON]:
    out: dict[str, JSON] = {"seat": seat, "card": str_card(c)}
    if c >= JOKER:
        out["joker"] = joker_name(c)
    return out


def _trick(leader: int, plays: list[tuple[int, int]], winner: int) -> dict[str, JSON]:
    return {"leader": leader, "plays": [_play(s, c) for s, c in plays], "winner": winner}


def _own_hand(hand: list[int]) -> dict[str, JSON]:
    ordered = sorted(hand, key=display_key)
    entry: dict[str, JSON] = {"count": len(hand), "cards": [str_card(c) for c in ordered]}
    jokers = [joker_name(c) for c in ordered if c >= JOKER]
    if jokers:
        entry["jokers"] = jokers
    return entry


def build_view(state: SpadesRules, seat: int | None) -> dict[str, JSON]:
    """The view of ``seat`` (``None``: a spectator), with its legal moves when it is to act."""
    hands: list[dict[str, JSON]] = [
        _own_hand(hand) if s == seat and state.looked[s] else {"count": len(hand)}
        for s, hand in enumerate(state.hands)]
    contracts = [sum(state.bids[s] or 0 for s in seats) for seats in state.sides]
    completed = [_trick(leader, plays, winner) for leader, plays, winner in state.tricks]
    out: dict[str, JSON] = {
        "game": "spades", "seat": seat, "players": state.players, "phase": state.phase.value,
        "to_act": state.to_act, "dealer": state.dealer, "hand": state.hand_number,
        "hand_size": state.hand_size, "sides": [list(s) for s in state.sides],
        "partner": None if seat is None else state.partner_of(seat),
        "hands": hands, "looked": list(state.looked),
        "bids": list(state.bids), "blind": list(state.blind), "contracts": contracts,
        "tricks_won": list(state.tricks_won),
        "trick": [_play(s, c) for s, c in state.trick],
        "last_trick": completed[-1] if completed else None, "tricks": completed,
        "spades_broken": state.broken,
        "removed": [str_card(c) for c in state.removed], "stock": len(state.stock),
        "scores": list(state.scores), "bags": list(state.bags), "target": state.options.target,
        "history": list(state.history), "last": state.last, "result": state.final,
        "options": state.options.to_dict(),
        "legal": state.legal_for(seat),
    }
    if seat is not None:
        if state.received[seat] or state.given[seat]:
            # What you passed and partner has not played yet is yours to remember.
            out["exchange"] = {"received": [str_card(c) for c in state.received[seat]],
                               "gave": [str_card(c) for c in sorted(state.given[seat],
                                                                    key=display_key)],
                               "from": state.partner_of(seat)}
        if state.players == 2:
            out["dead"] = [str_card(c) for c in sorted(state.dead[seat], key=display_key)]
            if state.phase is Phase.DRAW and state.to_act == seat:
                out["offered"] = str_card(state.stock[-1])
    return out


def zones(state: SpadesRules) -> dict[str, Any]:
    """Server/test-only: where every card is; ``pack`` is every card of the deal (the two
    jokers differ, so the pack is not ``packs`` packs plus alike jokers)."""
    # Hidden cards a seat has seen: its own dead cards, the cards it passed
    # to its partner, the stock card it is offered.
    seen_by = {s: state.dead[s] + sorted(state.given[s]) for s in range(state.players)}
    if state.phase is Phase.DRAW and state.to_act is not None:
        seen_by[state.to_act].append(state.stock[-1])  # the card he is offered
    played = [c for _, plays, _ in state.tricks for _, c in plays] + [c for _, c in state.trick]
    jokers = [LITTLE_JOKER, BIG_JOKER][:state.jokers]
    return {"hands": [list(h) for h in state.hands], "stock": list(state.stock),
            "face_down": [c for d in state.dead for c in d] + state.aside,
            "public": played, "removed": list(state.removed), "jokers": state.jokers,
            "pack": [*range(52), *jokers], "revealed": False, "deal": state.hand_number,
            "unseen_by": {s: list(h) for s, h in enumerate(state.hands)
                          if not state.looked[s]},
            "seen_by": seen_by}


__all__ = ["build_view", "joker_name", "zones"]
