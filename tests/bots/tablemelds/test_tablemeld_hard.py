"""The hard computer of the Rummy family (Rummy, Rummy 500, Rommé): positions and play.

Positions are built on a real match (the hands, pile and table set, the rest of the
deck is the stock); the bot sees ``state.view(seat)`` with the engine's legal moves.
Seat 0 is the bot to act.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardtable.bots.romme import hard as romme_hard
from cardtable.bots.rummy import hard as rummy_hard
from cardtable.bots.rummy import normal as rummy_normal
from cardtable.bots.rummy500 import hard as rummy500_hard
from cardtable.bots.tablemelds.hard import Opponents
from cardtable.bots.tablemelds.judgement import Seen
from cardtable.engine import Action, get_game
from cardtable.engine.cards import card
from tablemeld_positions import play_turn, position

HARD: dict[str, Any] = {"rummy": rummy_hard, "rummy500": rummy500_hard, "romme": romme_hard}


# -- the opponent model ------------------------------------------------------------------


def test_cards_picked_up_are_held_for_sure_unseen_ones_by_share() -> None:
    state = position("rummy", ["2c 2d 2s 5h 6h 7h Kc", "Qh Jh 3c 4c 8s 9s Ts"],
                     picked=["", "Qh"])
    seen = Seen.of(state.view(0))
    model = Opponents(seen, rummy_normal.JUDGEMENT.weights(seen).live)
    assert model.holds(1, card("Qh")) == 1.0
    assert 0.0 < model.holds(1, card("Kd")) < 0.5  # 6 hidden cards among ~44 unseen
    assert model.holds(1, card("2h")) == model.holds(1, card("Kd"))
    # the Kh goes with the Qh he took: it feeds him far more than a Kd would
    assert model.feeds(1, card("Kh")) > 2 * model.feeds(1, card("Kd"))


def test_a_card_whose_partners_are_all_seen_is_dead_and_safe() -> None:
    # every other 9 and the 7d 8d Td Jd are in the pile: nothing can meld with the 9d
    state = position("rummy", ["2c 2d 2s 5h 6h 7h Kc 9d", "Qh Jh 3c 4c 8s Ts As Ah 6c 5c"],
                     pile="9c 9h 9s 8d Td 7d Jd")
    seen = Seen.of(state.view(0))
    model = Opponents(seen, rummy_normal.JUDGEMENT.weights(seen).live)
    assert model.feeds(1, card("9d")) == 0.0
    assert model.feeds(1, card("Kc")) > 0.3


# -- discards ------------------------------------------------------------------------------


def test_hard_throws_the_dead_nine_where_normal_throws_the_live_king() -> None:
    # North: 2c 2d 2s  5h 6h 7h  and two loners, Kc (10) and 9d (9, dead: see above).
    # South holds ten unknown cards: the Kc likely makes a set or run for him.
    hands = ["2c 2d 2s 5h 6h 7h Kc 9d", "Qh Jh 3c 4c 8s Ts As Ah 6c 5c"]
    pile = "9c 9h 9s 8d Td 7d Jd"
    normal = play_turn(position("rummy", hands, pile=pile), rummy_normal.choose)
    hard = play_turn(position("rummy", hands, pile=pile), rummy_hard.choose)
    assert normal[-1] == "discard Kc"
    assert hard[-1] == "discard 9d"


def test_with_the_opponent_about_to_go_out_the_high_card_goes() -> None:
    # North keeps Jd Qd (a run waiting for a ten or king) and a 3c; South has one card
    # left: the hand may end before North plays again, so the Qd (10) goes, not the 3c.
    state = position("rummy", ["2c 2d 2s 5h 6h 7h Jd Qd 3c", "8s"],
                     table=[(1, "9c Tc Jc")], melded=[1])
    assert play_turn(state, rummy_hard.choose)[-1] in ("discard Qd", "discard Jd")


def test_melds_go_down_at_once_when_the_opponent_is_near_out() -> None:
    state = position("rummy500", ["7c 7d 7h 9s Ts Js 4d Kh", "2c 3c"],
                     table=[(1, "Qc Kc Ac")], melded=[1])
    moves = play_turn(state, rummy500_hard.choose)
    assert sorted(m for m in moves if m.startswith("meld")) == [
        "meld cards=7c7d7h", "meld cards=9sTsJs"]


# -- Rommé: the race out ---------------------------------------------------------------------


def test_romme_races_once_out_while_the_opponent_is_not() -> None:
    hands = ["5c 6c 7c 9d 9h Kc Jk", "2c 3c 8d 8h Qs Qh 4s 5s 6d 7h As Ad 3h"]
    table = [(0, "Qd Kd Ad"), (0, "Th Jh Qh")]
    racing = Seen.of(position("romme", hands, table=table, melded=[0]).view(0))
    both_out = Seen.of(position("romme", hands, table=table, melded=[0, 1]).view(0))
    judge = romme_hard.JUDGEMENT
    assert judge.urgency(racing) >= judge.race
    assert judge.urgency(both_out) < judge.race


# -- hints ---------------------------------------------------------------------------------


def test_hint_for_taking_a_discard_names_the_meld_it_makes() -> None:
    state = position("rummy", ["4c 6c 9h Th 2d 2s Kd Qs 8h 3h", "Kc 3c 6s 8s Js Qc 3d 5h 9c Tc"],
                     pile="Jd 5c", draw=True)
    view = state.view(0)
    action = rummy_hard.choose(view)
    assert action == Action("draw_discard")
    assert rummy_hard.hint(view, action) == "take 5♣: it makes 4♣ 5♣ 6♣"


@pytest.mark.parametrize("name", sorted(HARD))
def test_every_move_of_a_hand_has_a_short_hint_with_suit_symbols(name: str) -> None:
    module = HARD[name]
    game = get_game(name)
    state = game.new_match(game.Options(), 2, random.Random(3))
    texts: list[str] = []
    while not state.view(0)["history"]:
        view = state.view(state.current_player())
        action = module.choose(view)
        text = module.hint(view, action)
        assert text and len(text) <= 80
        texts.append(text)
        state.apply(action)
    assert any(ch in t for t in texts for ch in "♣♦♥♠")


# -- whole hands ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(HARD))
def test_hard_plays_legal_and_the_same_view_gets_the_same_move(name: str) -> None:
    module = HARD[name]
    game = get_game(name)
    for seed in range(2):
        state = game.new_match(game.Options(), 2, random.Random(seed))
        while not state.view(0)["history"]:
            view = state.view(state.current_player())
            action = module.choose(view)
            assert action in state.legal_actions()
            assert module.choose(view) == action
            state.apply(action)


def test_rummy500_holds_a_meld_that_only_feeds_lay_offs_while_the_hand_is_young() -> None:
    # North could lay 7c 7d 7h; South took the 7s from the pile: laid now, the set takes
    # his 7s for his score.  With the 7s dead in the pile it goes down at once.
    hands = ["7c 7d 7h 2s 5d 9h Qc Kd", "3c 4c 8s 9s Ts 2h 3h 4d 5c 7s"]
    held = play_turn(position("rummy500", hands, pile="Jc", picked=["", "7s"]),
                     rummy500_hard.choose)
    assert not any(m.startswith("meld") for m in held)
    hands[1] = hands[1].replace("7s", "6c")
    laid = play_turn(position("rummy500", hands, pile="Jc 7s"), rummy500_hard.choose)
    assert laid[0] == "meld cards=7c7d7h"
