"""Rummy: the worked examples of shared/rules/rummy.md, played through the engine."""

from __future__ import annotations

import random

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import card, format_cards, parse
from cardtable.engine.games import rummy
from cardtable.engine.melds import InvalidMeld, make_meld
from rummy_deals import rigged


def act(state: rummy.RummyState, text: str) -> None:
    state.apply(Action.parse(text))


def rules(**options: object) -> object:
    state = rummy.new_match(rummy.Options.from_dict(options), 2, random.Random(0))
    return state.meld_rules()


# -- 1. meld legality -------------------------------------------------------------------


@pytest.mark.parametrize(("cards", "ace", "ok"), [
    ("Ad 2d 3d", "low", True), ("9h Th Jh Qh", "low", True), ("Qs Ks As", "low", False),
    ("Qs Ks As", "high_or_low", True), ("Kc Ac 2c", "low", False),
    ("Kc Ac 2c", "high_or_low", False), ("Kc Ac 2c", "around", True),
    ("7c 7d 7h 7s", "low", True), ("7c 7d", "low", False),
])
def test_meld_legality(cards: str, ace: str, ok: bool) -> None:
    if ok:
        make_meld(parse(cards), rules(ace=ace))  # type: ignore[arg-type]
    else:
        with pytest.raises(InvalidMeld):
            make_meld(parse(cards), rules(ace=ace))  # type: ignore[arg-type]


# -- 2. lay-off chain ---------------------------------------------------------------------------

NORTH_LAYOFF = "8h 9h Th Jh Qh 7h 2c 3d 4c 5d"
SOUTH = "Kc Kd 6s 8s Js Qc 3h 5h 9c Tc"


def test_lay_off_chain_on_both_ends_in_one_turn() -> None:
    state = rigged([NORTH_LAYOFF, SOUTH], "6c", "Ks")
    act(state, "draw_stock")
    act(state, "meld cards=8h9hTh")
    act(state, "lay_off Jh meld=1")
    act(state, "lay_off Qh meld=1")
    act(state, "lay_off 7h meld=1")
    assert state.view(None)["table"][0]["cards"] == ["7h", "8h", "9h", "Th", "Jh", "Qh"]
    act(state, "discard Ks")
    assert state.current_player() == 1


def test_table_melds_are_not_rearranged() -> None:
    state = rigged(["2c 2d 2h 2s 3s 4s 5s As 9d Td", SOUTH], "6c", "Ks")
    act(state, "draw_stock")
    act(state, "meld cards=2c2d2h2s")
    act(state, "meld cards=3s4s5s")
    # As would fit 3s4s5s only below a 2s, and the 2s stays in its set: no lay-off at all
    assert not [a for a in state.legal_actions() if a.type == "lay_off"]
    with pytest.raises(IllegalAction, match="at most 4 cards"):
        act(state, "lay_off As meld=1")
    with pytest.raises(IllegalAction, match="does not extend this run"):
        act(state, "lay_off As meld=2")


# -- 3. discard restriction -------------------------------------------------------------------


def test_the_card_taken_from_the_pile_waits_a_turn() -> None:
    state = rigged([NORTH_LAYOFF, SOUTH], "Kh", "2s 3s")
    act(state, "draw_discard")
    with pytest.raises(IllegalAction, match="just took from the discard pile"):
        act(state, "discard Kh")
    act(state, "discard 2c")
    act(state, "draw_stock")
    act(state, "discard 2s")
    act(state, "draw_stock")
    act(state, "discard Kh")  # a later turn: allowed
    assert state.discard[-1] == card("Kh")


# -- 4. scoring ---------------------------------------------------------------------------------

# Three players, dealer seat 2: A (seat 0) plays first.
A = "2h 3h 4h 5h 8c 8d 8s"
B = "Ks 7d Ac 9s 9h 9d Jc"
C = "5c 6c 7c 5d 5s Qh Qs"


@pytest.mark.parametrize(("preset", "a_scores"), [("pagat", 206), ("standard", 0)])
def test_going_rummy_scores_the_others_hands(preset: str, a_scores: int) -> None:
    options = {"preset": preset, "melds_per_turn": "any"}
    state = rigged([A, B, C], "Jh", "Kd", dealer=2, options=options)
    act(state, "draw_stock")
    act(state, "meld cards=2h3h4h5h")
    act(state, "meld cards=8c8d8s")
    act(state, "discard Kd")  # out with the discard, in one turn: rummy
    row = state.history[-1]
    assert row["winner"] == 0 and row["rummy"]
    assert row["values"] == [0, 10 + 7 + 1 + 9 + 9 + 9 + 10, 5 + 6 + 7 + 5 + 5 + 10 + 10]
    if preset == "pagat":  # winner takes the others' hands, doubled
        assert state.scores == [a_scores, 0, 0]
    else:  # penalty: each loser adds his own hand
        assert state.scores == [0, 55, 48]


def test_scoring_example_three_players() -> None:
    # A is out; B holds Ks 7d Ac (18), C holds 5h 5c (10): A scores 28, doubled for rummy.
    for rummy_hand, expected in [(False, 28), (True, 56)]:
        state = rummy.new_match(rummy.Options.preset("pagat"), 3, random.Random(1))
        state.hands = [[], parse("Ks 7d Ac"), parse("5h 5c")]
        state.laid_earlier[0] = not rummy_hand
        state._end_hand(0)
        assert state.scores == [expected, 0, 0]
        assert state.history[-1]["values"] == [0, 18, 10]


# -- 5. going out -------------------------------------------------------------------------------

GOER = "4s 5s 6s 9c 9d 9h 9s"
OTHER = "Kc Kd 2d 8s Js Qc 3h"


def test_going_out_by_melding_everything() -> None:
    state = rigged([GOER, OTHER], "6c", "7s", options={"two_player_cards": 7})
    act(state, "draw_stock")
    act(state, "meld cards=9c9d9h9s")
    act(state, "meld cards=4s5s6s7s")
    assert state.phase is rummy.Phase.HAND_OVER and state.history[-1]["winner"] == 0


def test_the_discard_rule_keeps_a_card_to_discard() -> None:
    state = rigged([GOER, OTHER], "6c", "7s",
                   options={"two_player_cards": 7, "final_discard": True})
    act(state, "draw_stock")
    act(state, "meld cards=9c9d9h9s")
    with pytest.raises(IllegalAction, match="keep a card to discard"):
        act(state, "meld cards=4s5s6s7s")
    act(state, "meld cards=4s5s6s")
    act(state, "discard 7s")
    assert state.history[-1]["winner"] == 0


# -- 6. stock exhaustion -------------------------------------------------------------------------


def _draw_and_throw_until_the_stock_is_empty(state: rummy.RummyState) -> None:
    while state.stock:
        act(state, "draw_stock")
        drawn = state.hands[state.current_player() or 0][-1]
        state.apply(Action("discard", card=drawn))


def test_the_pile_turned_over_keeps_its_order() -> None:
    state = rigged([NORTH_LAYOFF, SOUTH], "3c", options={"preset": "pagat"})
    _draw_and_throw_until_the_stock_is_empty(state)
    pile = list(state.discard)
    assert pile[0] == card("3c")
    act(state, "draw_stock")  # declines the top discard: the pile is turned over
    seat = state.current_player() or 0
    assert state.hands[seat][-1] == pile[0]  # the old bottom card is the new top
    assert state.stock[::-1] == pile[1:] and state.discard == []


def test_standard_shuffles_once_then_the_hand_is_blocked() -> None:
    state = rummy.new_match(rummy.Options(), 2, random.Random(3))
    _draw_and_throw_until_the_stock_is_empty(state)
    act(state, "draw_stock")
    assert state.recycles == 1
    state.apply(Action("discard", card=state.hands[state.current_player() or 0][-1]))
    _draw_and_throw_until_the_stock_is_empty(state)
    row = state.history[-1]
    assert row["blocked"] and row["points"] == [0, 0] and state.scores == [0, 0]


def test_block_rummy_ends_when_the_stock_runs_out_and_lowest_may_win() -> None:
    state = rigged([NORTH_LAYOFF, SOUTH], "3c",
                   options={"stock_exhausted": "block", "blocked_hand": "lowest_wins"})
    _draw_and_throw_until_the_stock_is_empty(state)
    row = state.history[-1]
    low = min(row["values"])
    assert row["blocked"] and row["scorer"] == row["values"].index(low)
    assert sorted(state.scores) == [0, max(row["values"]) - low]


# -- options that change the turn -----------------------------------------------------------------


def test_one_meld_per_turn_under_pagat() -> None:
    state = rigged([GOER, OTHER], "6c", "7s",
                   options={"preset": "pagat", "two_player_cards": 7})
    act(state, "draw_stock")
    act(state, "meld cards=9c9d9h9s")
    assert not [a for a in state.legal_actions() if a.type == "meld"]
    with pytest.raises(IllegalAction, match="only 1 new meld per turn"):
        act(state, "meld cards=4s5s6s")


def test_no_lay_off_before_ones_own_first_meld() -> None:
    state = rigged(["9c 9d 9h Kc Qd 2s 4h", "9s 3c 5d 7h Jc Js 6d"], "8d", "Kh",
                   options={"two_player_cards": 7, "lay_off_before_meld": False})
    act(state, "draw_stock")
    act(state, "meld cards=9c9d9h")
    act(state, "discard Kh")
    act(state, "draw_stock")
    assert not [a for a in state.legal_actions() if a.type == "lay_off"]
    with pytest.raises(IllegalAction, match="before you have melded"):
        act(state, "lay_off 9s meld=1")


def test_top_discard_must_be_used() -> None:
    options = {"two_player_cards": 7, "top_discard_must_be_used": True}
    useless = rigged([GOER, OTHER], "Kh", "7s", options=options)
    assert Action("draw_discard") not in useless.legal_actions()
    state = rigged([GOER, OTHER], "7s", "Kh", options=options)
    act(state, "draw_discard")
    assert not [a for a in state.legal_actions() if a.type == "discard"]
    with pytest.raises(IllegalAction, match="first use 7s"):
        act(state, "meld cards=9c9d9h")
    act(state, "meld cards=4s5s6s7s")
    act(state, "discard 9c")


def test_meld_cards_in_any_order_name_the_same_move() -> None:
    state = rigged([GOER, OTHER], "6c", "7s", options={"two_player_cards": 7})
    act(state, "draw_stock")
    state.apply(Action.from_json({"type": "meld", "cards": ["7s", "5s", "6s", "4s"]}))
    assert state.table[0].cards == tuple(parse("4s 5s 6s 7s"))
    assert format_cards(state.table[0].stands_for) == "4s 5s 6s 7s"


def test_an_invalid_meld_is_refused_with_the_reason() -> None:
    state = rigged([GOER, OTHER], "6c", "7s", options={"two_player_cards": 7})
    act(state, "draw_stock")
    with pytest.raises(IllegalAction, match="a run needs three cards of one suit in sequence"):
        act(state, "meld cards=4s5s9c")
    with pytest.raises(IllegalAction, match="you do not hold Kc"):
        act(state, "meld cards=KhKsKc")


def test_view_names_melds_by_id_and_owner() -> None:
    state = rigged([GOER, OTHER], "6c", "7s", options={"two_player_cards": 7})
    act(state, "draw_stock")
    act(state, "meld cards=9c9d9h")
    table = state.view(1)["table"]
    assert table == [{"id": 1, "owner": 0, "kind": "set", "cards": ["9c", "9d", "9h"],
                      "stands_for": ["9c", "9d", "9h"], "laid_by": [0, 0, 0]}]
    assert {"type": "lay_off", "card": "9s", "meld": 1} in state.view(0)["legal"]


def test_fixed_number_of_deals_and_penalty_winner() -> None:
    state = rummy.new_match(rummy.Options.from_dict({"deals": 1}), 2, random.Random(5))
    rng = random.Random(5)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    assert len(state.history) == 1
    low = min(state.scores)
    assert state.result()["winners"] == [s for s in range(2) if state.scores[s] == low]
