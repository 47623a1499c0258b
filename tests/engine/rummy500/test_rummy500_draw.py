"""Rummy 500: the draw (top discard, deep pickups, must-use options), going out, an empty stock."""

from __future__ import annotations

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import card, parse
from cardtable.engine.games import rummy500
from cardtable.engine.games.rummy500.scoring import ACE_RULES
from cardtable.engine.tablemelds import lay
from rummy500_deals import NORTH_3, SOUTH_3, rigged, set_pile

HIGH = ACE_RULES["high_or_low"]


def act(state: rummy500.Rummy500State, text: str) -> list[str]:
    return [e.type for e in state.apply(Action.parse(text))]


def legal(state: rummy500.Rummy500State) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def pickup_state(**options: object) -> rummy500.Rummy500State:
    """North to draw; pile (bottom to top) 4c 9d 5s Jh 2d; South has laid 6d 7d 8d and
    Jd Js Jk (seat 1 melds put there directly).

        North  9s 9h  Kc Qd 8h 6c 2s 3h Td 7c 4d Ad Kh
    """
    state = rigged([NORTH_3, SOUTH_3], "Ts", "3s", options=dict(options))
    set_pile(state, "4c 9d 5s Jh 2d")
    state.table = [lay(1, 1, parse("6d 7d 8d"), HIGH), lay(2, 1, parse("Jd Js Jk"), HIGH)]
    return state


# -- the top discard ------------------------------------------------------------------------


def test_the_top_discard_is_free_but_stays_a_turn() -> None:
    state = pickup_state()
    assert {"draw_discard", "draw_discard 2", "draw_discard 4"} <= legal(state)
    act(state, "draw_discard")
    assert state.must_place == [] and state.view(0)["taken"] == "2d"
    with pytest.raises(IllegalAction, match="just took from the discard pile"):
        act(state, "discard 2d")
    act(state, "discard Kc")


def test_number_one_names_the_top_discard() -> None:
    state = pickup_state()
    state.apply(Action("draw_discard", number=1))
    assert state.hands[0][-1] == card("2d")


def test_bicycle_the_top_discard_must_be_used() -> None:
    state = pickup_state(preset="bicycle")
    state.table = state.table[:1]  # no jokers in this preset: only the diamonds run
    # 2d fits nothing; 9d melds or goes on 6d-7d-8d; Jh fits nothing now
    assert legal(state) == {"draw_stock", "draw_discard 4"}
    set_pile(state, "4c 9d 5s Jh 9c")
    assert "draw_discard" in legal(state)  # 9c 9s 9h
    act(state, "draw_discard")
    assert state.must_place == [card("9c")]
    assert not [a for a in state.legal_actions() if a.type == "discard"]


# -- deep pickups ------------------------------------------------------------------------------


def test_a_deep_card_may_be_laid_off() -> None:
    state = pickup_state()
    # Jh (two cards) goes on the jacks; 9d (four) on the diamonds or into 9s 9h 9d
    act(state, "draw_discard 2")
    assert legal(state) == {"lay_off Jh meld=2"}
    act(state, "lay_off Jh meld=2")
    # only a top discard taken alone waits a turn: the 2d of a pickup may go straight back
    assert state.table[1].laid_by[-1] == 0 and "discard 2d" in legal(state)


def test_new_meld_only() -> None:
    state = pickup_state(pickup_use="new_meld")
    assert "draw_discard 2" not in legal(state)  # the Jh could only be laid off
    with pytest.raises(IllegalAction, match="could not put Jh into a new meld"):
        act(state, "draw_discard 2")
    act(state, "draw_discard 4")
    assert legal(state) == {"meld cards=9d9h9s"}
    with pytest.raises(IllegalAction, match="must go into a new meld"):
        act(state, "lay_off 9d meld=1")
    default = pickup_state()
    act(default, "draw_discard 4")
    assert legal(default) == {"meld cards=9d9h9s", "lay_off 9d meld=1"}


# -- going out -------------------------------------------------------------------------------------

#   North  4s 5s 6s  9c 9d 9h 9s  2h 3h 4h  Qc Qd Qh       draws the 7s
GOER = "4s 5s 6s 9c 9d 9h 9s 2h 3h 4h Qc Qd Qh"
OTHER = "Kc Kd 2d 8s Js Qs 3c 5c 6d 7c 8h Th Ad"


def _meld_all_but_the_spades(state: rummy500.Rummy500State) -> None:
    act(state, "draw_stock")
    for meld in ("9c9d9h9s", "2h3h4h", "QcQdQh"):
        act(state, f"meld cards={meld}")


def test_going_out_without_a_discard() -> None:
    state = rigged([GOER, OTHER], "5d", "7s")
    _meld_all_but_the_spades(state)
    assert act(state, "meld cards=4s5s6s7s")[-1] == "hand_over"
    assert state.history[-1]["winner"] == 0


def test_going_out_only_by_a_discard() -> None:
    state = rigged([GOER, OTHER], "5d", "7s", options={"final_discard": True})
    _meld_all_but_the_spades(state)
    assert "meld cards=4s5s6s7s" not in legal(state)
    with pytest.raises(IllegalAction, match="keep a card to discard"):
        act(state, "meld cards=4s5s6s7s")
    act(state, "meld cards=4s5s6s")
    assert act(state, "discard 7s")[-1] == "hand_over"
    assert state.history[-1]["winner"] == 0


# -- an empty stock ------------------------------------------------------------------------------

#   North  Ah 2h 3h  Qd Kd Ad  5c 9s 4s 8c 7d 2c Tc       the stock is down to its last card, Ks
#   South  2s 3s 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s
NORTH_S = "Ah 2h 3h Qd Kd Ad 5c 9s 4s 8c 7d 2c Tc"
SOUTH_S = "2s 3s 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s"


def last_stock_card(**options: object) -> rummy500.Rummy500State:
    """North draws the last stock card (Ks) and discards it: the pile is Jc Ks
    (and would be shuffled into Ks Jc)."""
    state = rigged([NORTH_S, SOUTH_S], "Jc", "Ks", options=dict(options), more=["Ks Jc"])
    state.stock = state.stock[-1:]  # the rest are played out (a scenario, not a real deck)
    act(state, "draw_stock")
    act(state, "meld cards=Ah2h3h")
    act(state, "discard Ks")
    return state


def test_play_goes_on_from_the_pile_and_pass_ends_the_hand() -> None:
    state = last_stock_card()
    assert state.stock == [] and state.current_player() == 1
    assert "draw_stock" not in legal(state) and {"draw_discard", "pass"} <= legal(state)
    with pytest.raises(IllegalAction, match="stock is empty"):
        act(state, "draw_stock")
    act(state, "draw_discard")                       # South takes the Ks and plays on
    act(state, "meld cards=6h7h8h9hTh")
    act(state, "discard 2s")
    assert legal(state) >= {"draw_discard", "pass"}  # North may take the 2s, or stop
    assert act(state, "pass") == ["pass", "hand_over"]
    row = state.history[-1]
    assert row["blocked"] and row["winner"] is None
    # North: A-2-3 (6) less Qd Kd Ad 5c 9s 4s 8c 7d 2c Tc (80);
    # South: the hearts run (40) less Ks 3s 3d 4d 6d 8d Td 5s (49)
    assert row["points"] == [6 - 80, 40 - 49]


def test_pass_is_refused_while_the_stock_lasts() -> None:
    state = rigged([NORTH_S, SOUTH_S], "Jc", "Ks")
    with pytest.raises(IllegalAction, match="only when the stock is empty"):
        act(state, "pass")


def test_the_hand_ends_when_nobody_can_take_a_discard() -> None:
    # Bicycle: every card taken from the pile must be used, and South can use neither
    # the Ks nor the Jc, so the hand ends as North's discard lands.
    state = rigged([NORTH_S, SOUTH_S], "Jc", "Ks", options={"preset": "bicycle"})
    state.stock = state.stock[-1:]
    act(state, "draw_stock")
    act(state, "meld cards=Ah2h3h")
    events = act(state, "discard Ks")
    assert events == ["discard", "stock_out", "hand_over"]
    assert state.history[-1]["blocked"]


def test_the_pile_may_be_reshuffled_into_a_stock() -> None:
    state = last_stock_card(stock_exhausted="shuffle")
    assert "draw_stock" in legal(state) and "pass" not in legal(state)
    assert act(state, "draw_stock") == ["renew_stock", "draw_stock"]
    assert state.recycles == 1 and state.discard == [] and state.stock == [card("Ks")]
    assert state.hands[1][-1] == card("Jc")
