"""Fixed Rummy 500 deals for scenario tests."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardtable.engine.cards import deck, format_cards, parse
from cardtable.engine.games import rummy500

# A two-player deal where North (to play) holds 9s 9h and the pile is 4c 9d 5s Jh 2d:
#   North  9s 9h  Kc Qd 8h 6c 2s 3h Td 7c 4d Ad Kh
#   South  Ac 2h 3c 5h 6s 7s 8c 8s Tc Jc Qc Qs Ks
NORTH_3 = "9s 9h Kc Qd 8h 6c 2s 3h Td 7c 4d Ad Kh"
SOUTH_3 = "Ac 2h 3c 5h 6s 7s 8c 8s Tc Jc Qc Qs Ks"


def deck_order(hands: list[str], dealer: int, upcard: str, stock: str = "", *,
               packs: int = 1, jokers: int = 2) -> str:
    """A full deck that deals ``hands`` (by seat, one card at a time from the dealer's
    left), turns ``upcard`` and puts ``stock`` on top of the stock, first drawn first;
    the rest of the pack follows in order."""
    players = len(hands)
    cards = [parse(h) for h in hands]
    size = len(cards[0])
    assert all(len(h) == size for h in cards)
    order = [cards[(dealer + 1 + i) % players][i // players] for i in range(players * size)]
    order += parse(upcard) + parse(stock)
    rest = Counter(deck(packs, jokers)) - Counter(order)
    assert not Counter(order) - Counter(deck(packs, jokers)), "a card is used too often"
    order += sorted(rest.elements())
    return format_cards(order)


def rigged(hands: list[str], upcard: str, stock: str = "", *, dealer: int | None = None,
           options: dict[str, Any] | None = None,
           more: list[Any] | None = None) -> rummy500.Rummy500State:
    """A match whose first hand is this deal; the seat after ``dealer`` plays first.

    The default dealer is the last seat, so seat 0 plays first.  ``more``: later
    chance outcomes (a reshuffled pile, the next deal).
    """
    players = len(hands)
    opts = rummy500.Options.from_dict(options or {})
    packs = 2 if players >= 5 else 1
    jokers = 2 * packs if opts.jokers else 0
    dealer = players - 1 if dealer is None else dealer
    chance: list[Any] = [dealer, deck_order(hands, dealer, upcard, stock, packs=packs,
                                            jokers=jokers), *(more or [])]
    return rummy500.replay({"game": "rummy500", "options": opts.to_dict(), "players": players,
                            "chance": chance, "actions": []})


def set_pile(state: rummy500.Rummy500State, pile: str) -> None:
    """Make the discard pile ``pile`` (bottom to top), trading cards with the stock's bottom
    so every card is still somewhere once."""
    wanted = parse(pile)
    state.stock[:0] = state.discard
    for c in wanted:
        state.stock.remove(c)
    state.discard = wanted
    state._legal = None
