"""Fixed Gin Rummy deals for scenario tests."""

from __future__ import annotations

from typing import Any

from cardtable.engine.cards import format_cards, parse
from cardtable.engine.games import gin


def deck_order(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> str:
    """A full deck that deals these hands (one card at a time, non-dealer first),
    turns ``upcard`` and puts ``stock`` on top of the stock, first drawn first."""
    nd, de, up, top = parse(non_dealer), parse(dealer), parse(upcard), parse(stock)
    assert len(nd) == len(de) == 10 and len(up) == 1
    order = [c for pair in zip(nd, de, strict=True) for c in pair] + up + top
    order += [c for c in range(52) if c not in order]
    assert sorted(order) == list(range(52)), "a card is used twice"
    return format_cards(order)


def rigged(non_dealer: str, dealer: str, upcard: str, stock: str = "", *, dealer_seat: int = 0,
           options: dict[str, Any] | None = None, more_deals: int = 0) -> gin.GinState:
    """A match whose first hand is this deal (``more_deals`` further deals are ordered decks)."""
    chance: list[Any] = [dealer_seat, deck_order(non_dealer, dealer, upcard, stock)]
    chance += [format_cards(range(52))] * more_deals
    return gin.replay({"game": "gin", "options": options or {}, "players": 2,
                       "chance": chance, "actions": []})
