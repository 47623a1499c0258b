"""Fixed Spades deals for scenario tests: hands drawn as pictures or listed as text."""

from __future__ import annotations

from typing import Any

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, RANKS, SUITS, format_cards, parse
from cardtable.engine.games import spades
from cardtable.engine.games.spades.tricks import pack


def drawn(picture: str) -> list[int]:
    """Cards from a picture: rows ``c``/``d``/``h``/``s``, columns A..K, ``.`` for none.

    The columns run A 2 3 .. K as in the heading; a row ``j`` holds jokers (``Jk``).
    """
    cards = []
    for line in picture.strip().splitlines():
        suit, *cells = line.split()
        if suit == "j":
            cards += [JOKER] * sum(1 for cell in cells if cell == "Jk")
            continue
        if suit not in SUITS:
            continue  # the A 2 3 ... heading
        assert len(cells) == 13, f"row {suit!r} needs 13 columns"
        for rank, cell in enumerate(cells):
            assert cell in (".", RANKS[rank]), f"{cell!r} in the {RANKS[rank]} column"
            if cell != ".":
                cards.append(SUITS.index(suit) * 13 + rank)
    return cards


def deck_order(hands: list[list[int]], dealer: int) -> str:
    """The deck that deals ``hands`` (seat by seat) one card at a time from dealer's left."""
    players = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands), "every hand needs the same number of cards"
    order = [hands[(dealer + 1 + i) % players][i // players] for i in range(size * players)]
    return format_cards(order)


def rigged(hands: list[str] | list[list[int]], *, dealer: int = 3,
           options: dict[str, Any] | None = None, more_deals: int = 0,
           scores: list[int] | None = None) -> spades.SpadesState:
    """A match whose first hand deals these hands (text or card lists, one per seat).

    The first ``Jk`` in dealing order is the Big Joker.  ``scores`` sets the
    running scores before the bidding (so blind nil eligibility follows
    them); ``more_deals`` further deals are unshuffled packs.
    """
    cards = [parse(h) if isinstance(h, str) else list(h) for h in hands]
    players = len(cards)
    state_options = spades.Options.from_dict(options or {})
    pack = sorted(_pack(state_options, players))
    order = deck_order(cards, dealer)
    assert sorted(parse(order)) == pack, "the hands do not hold this game's cards"
    chance: list[Any] = [dealer, order] + [format_cards(pack)] * more_deals
    state = spades.replay({"game": "spades", "options": options or {}, "players": players,
                           "chance": chance, "actions": []})
    if scores is not None:
        state.scores = list(scores)
        state._start_bidding()  # the blind nil offer depends on the scores
        state._legal = None
    return state


def stacked(stock: str, *, dealer: int = 1, options: dict[str, Any] | None = None
            ) -> spades.SpadesState:
    """A two-player match whose stock, top card first, begins with ``stock``."""
    state_options = spades.Options.from_dict(options or {})
    top = parse(stock)
    rest = sorted(_pack(state_options, 2))
    for c in top:
        rest.remove(c)
    order = top + rest
    return spades.replay({"game": "spades", "options": options or {}, "players": 2,
                          "chance": [dealer, format_cards(order)], "actions": []})


def _pack(options: spades.Options, players: int) -> list[int]:
    cards, _, _ = pack(options, players)
    return cards


def play(state: spades.SpadesState, *moves: str) -> None:
    for move in moves:
        state.apply(Action.parse(move))
