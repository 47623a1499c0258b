"""Fixed Rommé deals for scenario tests: two packs and jokers, dealt to the seats in play."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardtable.engine import Action
from cardtable.engine.cards import deck, format_cards, parse
from cardtable.engine.games import romme


def deck_order(hands: list[str], dealer: int, next_card: str, stock: str = "",
               jokers: int = 6, eliminated: tuple[int, ...] = ()) -> str:
    """A full deck that deals ``hands`` (by seat; the dealer's extra card last in his, under
    ``dealer_extra``), then ``next_card`` (the dealer's extra card or the upcard; pass "" when
    it is already the last of the dealer's hand), then ``stock``, first drawn first."""
    players = len(hands)
    live = [(dealer + k) % players for k in range(1, players + 1)]
    live = [s for s in live if s not in eliminated]
    cards = [parse(h) for h in hands]
    size = min(len(cards[s]) for s in live)
    order = [cards[live[i % len(live)]][i // len(live)] for i in range(len(live) * size)]
    extra = cards[dealer][size:]
    order += extra + parse(next_card) + parse(stock)
    left = Counter(deck(packs=2, jokers=jokers))
    left.subtract(order)
    assert all(n >= 0 for n in left.values()), f"used too often: {-left}"
    order += sorted(left.elements())
    return format_cards(order)


def rigged(hands: list[str], next_card: str = "", stock: str = "", *, dealer: int = 0,
           options: dict[str, Any] | None = None, more_deals: int = 0) -> romme.RommeState:
    """A match whose first hand is this deal; ``more_deals`` further deals get unshuffled decks.

    With the default dealer (seat 0) and deal, seat 0 holds 14 cards and opens the hand.
    """
    options = options or {}
    jokers = romme.Options.from_dict(options).jokers
    chance: list[Any] = [dealer, deck_order(hands, dealer, next_card, stock, jokers)]
    chance += [format_cards(deck(packs=2, jokers=jokers))] * more_deals
    return romme.replay({"game": "romme", "options": options, "players": len(hands),
                         "chance": chance, "actions": []})


def act(state: romme.RommeState, *moves: str) -> None:
    """Play moves written as ``Action.parse`` text: ``"meld melds=QhKhAh/7c7d7s"``."""
    for text in moves:
        state.apply(Action.parse(text))


def legal_text(state: romme.RommeState, kind: str) -> list[str]:
    return [str(a) for a in state.legal_actions() if a.type == kind]


def meld_id(state: romme.RommeState, cards: str) -> int:
    """The id of the table meld holding exactly ``cards`` (in any order)."""
    wanted = sorted(parse(cards))
    return next(m.id for m in state.table if sorted(m.cards) == wanted)
