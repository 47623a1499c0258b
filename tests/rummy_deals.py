"""Fixed Rummy deals for scenario tests."""

from __future__ import annotations

from typing import Any

from cardtable.engine.cards import format_cards, parse
from cardtable.engine.games import rummy


def deck_order(hands: list[str], dealer: int, upcard: str, stock: str = "") -> str:
    """A full deck that deals ``hands`` (by seat, one card at a time from the dealer's
    left), turns ``upcard`` and puts ``stock`` on top of the stock, first drawn first."""
    players = len(hands)
    cards = [parse(h) for h in hands]
    size = len(cards[0])
    assert all(len(h) == size for h in cards)
    order = [cards[(dealer + 1 + i) % players][i // players] for i in range(players * size)]
    order += parse(upcard) + parse(stock)
    order += [c for c in range(52) if c not in order]
    assert sorted(order) == list(range(52)), "a card is used twice"
    return format_cards(order)


def rigged(hands: list[str], upcard: str, stock: str = "", *, dealer: int = 1,
           options: dict[str, Any] | None = None, more_deals: int = 0) -> rummy.RummyState:
    """A match whose first hand is this deal (``more_deals`` further deals are ordered decks).

    With the default dealer (seat 1) and two players, seat 0 plays first.
    """
    chance: list[Any] = [dealer, deck_order(hands, dealer, upcard, stock)]
    chance += [format_cards(range(52))] * more_deals
    return rummy.replay({"game": "rummy", "options": options or {}, "players": len(hands),
                         "chance": chance, "actions": []})
