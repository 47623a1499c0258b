"""Positions of the table-meld family (Rummy, Rummy 500, Rommé) for the bots' tests: a
real match set to given hands, pile and table melds (the rest of the deck is the stock),
and a turn played out by a bot with every move checked legal."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from cardtable.engine import Action, get_game
from cardtable.engine.cards import parse
from cardtable.engine.tablemelds import lay


def position(name: str, hands: Sequence[str], *, pile: str = "",
             table: Sequence[tuple[int, str]] = (), melded: Sequence[int] = (),
             picked: Sequence[str] | None = None, draw: bool = False,
             options: dict[str, Any] | None = None) -> Any:
    """A match of ``name`` in this position, seat 0 to play (``draw``: to draw first).
    ``table``: (owner, cards) of each meld, numbered 1, 2, ...; ``options``: the game's
    options other than its default preset's."""
    game = get_game(name)
    state: Any = game.new_match(game.Options.from_dict(options or {}), len(hands),
                                random.Random(0))
    state.hands = [parse(h) for h in hands]
    state.discard = parse(pile)
    state.table = [lay(i + 1, owner, parse(cards), state.meld_rules())
                   for i, (owner, cards) in enumerate(table)]
    used = Counter(c for h in state.hands for c in h) + Counter(state.discard)
    used += Counter(c for m in state.table for c in m.cards)
    assert not used - Counter(state.full_deck()), "a card is used too often"
    state.stock = sorted((Counter(state.full_deck()) - used).elements())
    state.has_melded = [s in melded for s in range(len(hands))]
    state.picked = [parse(p) for p in picked] if picked else [[] for _ in hands]
    state.to_act = 0
    state.phase = game.Phase.DRAW if draw else game.Phase.PLAY
    state._new_turn()
    state._legal = None
    return state


def play_turn(state: Any, choose: Callable[[dict[str, Any]], Action]) -> list[str]:
    """Every move of the seat to act until its turn is over, each checked legal."""
    seat, moves = state.current_player(), list[str]()
    while state.current_player() == seat and len(moves) < 40:
        action = choose(state.view(seat))
        assert action in state.legal_actions()
        state.apply(action)
        moves.append(str(action))
        if action.type == "discard" or state.phase.value == "hand_over":
            break
    return moves
