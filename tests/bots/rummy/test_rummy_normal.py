"""The Rummy bot (the table-meld bot with Rummy's judgement): legal moves, finished games,
and a rigged deal.  Judgement in more positions: ``test_tablemeld_normal.py``."""

from __future__ import annotations

import random

import pytest

from cardtable.bots.rummy.normal import choose
from cardtable.engine import Action
from cardtable.engine.cards import format_cards
from cardtable.engine.games import rummy
from rummy_deals import rigged


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
def test_a_hundred_seeded_bot_games_finish_without_an_illegal_move() -> None:
    presets = ["standard", "pagat"]
    for seed in range(100):
        players = 2 + seed % 5
        options = rummy.Options.from_dict({"preset": presets[seed % 2], "deals": 1,
                                           "ace": ["low", "high_or_low", "around"][seed % 3],
                                           "final_discard": seed % 7 == 0})
        state = rummy.new_match(options, players, random.Random(seed))
        for _ in range(5000):
            if state.is_over():
                break
            seat = state.current_player()
            view = state.view(seat)
            action = choose(view)
            assert action in state.legal_actions()
            state.apply(action)  # raises IllegalAction on an illegal move
        assert state.is_over(), f"seed {seed} did not finish"


def test_the_bot_melds_lays_off_and_keeps_what_works() -> None:
    state = rigged(["8h 9h Th Jh 2c 2d 2s Kc Qd 5s", "Kd 3c 6s 8s Js Qc 3h 5h 9c Tc"],
                   "6d", "7h")
    state.apply(choose(state.view(0)))  # 6d goes with nothing: draws the 7h from the stock
    assert state.hands[0][-1] == Action.parse("discard 7h").card
    while state.current_player() == 0 and state.phase is rummy.Phase.PLAY:
        state.apply(choose(state.view(0)))
    kinds = sorted(m.kind for m in state.table)
    assert kinds == ["run", "set"] and len(state.table[0].cards) + len(state.table[1].cards) == 8
    assert format_cards(state.discard[-1:]) in ("Kc", "Qd")  # high and alone
