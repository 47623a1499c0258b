"""One legality for the table-meld games: the move list and the check of a submitted move.

``legal_actions`` lists moves for views, hints and bots; ``apply`` judges a meld, lay-off,
joker exchange or discard from its content (``tablemelds/play_checks.py``).  Where the
list is complete (discards, lay-offs, exchanges, and melds within the listed joker count
outside an opening) the two must agree exactly; everywhere else every listed move must be
accepted.  Positions come from seeded playouts of every table-meld game with the house
rules that change the turn.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from cardtable.engine import Action, IllegalAction, get_game
from cardtable.engine.cards import JOKER
from cardtable.engine.melds import InvalidMeld, make_meld
from cardtable.engine.tablemelds import Phase, TableMeldState
from cardtable.engine.tablemelds.opening import MAX_OPENINGS
from cardtable.engine.tablemelds.play_checks import PLAY_MOVES
from conformance import eager_policy, snapshot

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("rummy", {}),
    ("rummy", {"top_discard_must_be_used": True, "final_discard": True, "melds_per_turn": "one",
               "lay_off_before_meld": False}),
    ("rummy500", {}),
    ("rummy500", {"pickup_use": "new_meld", "top_discard_must_be_used": True,
                  "final_discard": True, "calling_rummy": True}),
    ("romme", {}),
    ("romme", {"joker_limit": "not_adjacent", "final_discard": True,
               "top_discard_must_be_used": True, "first_meld": 30}),
    ("romme", {"joker_limit": "one_per_meld", "deal": "upcard"}),
]


def play_positions(name: str, options: dict[str, Any], seed: int, count: int
                   ) -> Iterator[tuple[TableMeldState, int]]:
    """The first ``count`` positions of a seeded eager playout where a seat is to meld, lay
    off or discard, each with that seat."""
    game = get_game(name)
    state = game.new_match(game.Options.from_dict(options), players=2, rng=random.Random(seed))
    assert isinstance(state, TableMeldState)
    rng = random.Random(seed)
    while not state.is_over() and count > 0:
        if state.phase is Phase.PLAY:
            seat = state.current_player()
            assert seat is not None
            yield state, seat
            count -= 1
        state.apply(eager_policy(state, rng))


def accepted(state: TableMeldState, action: Action) -> bool:
    return state.play_problem(state.canonical(action)) is None


def is_a_meld(state: TableMeldState, cards: tuple[int, ...]) -> bool:
    try:
        return state.meld_problem(make_meld(cards, state.meld_rules())) is None
    except InvalidMeld:
        return False


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_the_list_and_the_check_agree(name: str, options: dict[str, Any]) -> None:
    rng = random.Random(7)
    compared = 0
    for state, seat in play_positions(name, options, seed=3, count=120):
        legal = state.legal_actions()
        for action in legal:
            if action.type in PLAY_MOVES:
                assert accepted(state, action), action
        hand = state.hands[seat]
        singles = [Action("discard", card=c) for c in set(hand)]
        singles += [Action(kind, card=c, meld=meld) for kind in ("lay_off", "swap_joker")
                    for c in set(hand) for meld in [m.id for m in state.table] + [99]]
        for action in singles:
            assert accepted(state, action) == (action in legal), action
        opening = state.opening_minimum(seat) and not state.has_melded[seat]
        menu_full = sum(a.type == "meld" for a in legal) >= MAX_OPENINGS
        for _ in range(25):
            cards = tuple(sorted(rng.sample(hand, min(len(hand), rng.randint(3, 5)))))
            action = Action("meld", melds=(cards,)) if opening else Action("meld", cards=cards)
            ok = accepted(state, action)
            assert not ok or is_a_meld(state, cards), action
            listable = cards.count(JOKER) <= state.max_jokers_per_listed_meld()
            if listable and not menu_full:
                assert ok == (state.canonical(action) in legal), action
            compared += 1
    assert compared > 500


@pytest.mark.parametrize(("name", "options"), VARIANTS[::2])
def test_a_refused_move_changes_nothing_and_says_why(name: str, options: dict[str, Any]) -> None:
    rng = random.Random(11)
    refused = 0
    for state, seat in play_positions(name, options, seed=5, count=60):
        hand = state.hands[seat]
        tries = [Action("meld", cards=tuple(rng.sample(range(53), 3))),
                 Action("meld", melds=((hand[0],), tuple(hand[1:4]))),
                 Action("lay_off", card=hand[0], meld=99),
                 Action("discard", card=hand[0], cards=(hand[0],)),
                 Action("swap_joker", card=hand[-1], meld=1)]
        for action in tries:
            if accepted(state, action):
                continue
            before = snapshot(state, state.players)
            with pytest.raises(IllegalAction) as error:
                state.apply(action)
            assert error.value.reason and "not allowed now" not in error.value.reason
            assert snapshot(state, state.players) == before
            refused += 1
    assert refused > 100
