"""Rummy 500, option ``calling_rummy``: a usable discard may be claimed out of turn."""

from __future__ import annotations

import json

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import card, parse
from cardtable.engine.games import rummy500
from rummy500_deals import rigged


def act(state: rummy500.Rummy500State, text: str) -> list[str]:
    return [e.type for e in state.apply(Action.parse(text))]


def legal(state: rummy500.Rummy500State) -> set[str]:
    return {str(a) for a in state.legal_actions()}


# Three players, C (seat 2) deals, A (seat 0) plays first.
#
#   A  5h 6h 7h  8h  Kc Qd 2s      melds 5h 6h 7h, then throws the 8h away
#   B  8d 3s 4d Tc Jc 2d Qs        could lay the 8h off
#   C  8c 8s  9h Kh 3c 4c 6s       could lay it off, or meld 8c 8h 8s
#                                  upcard 5c, stock from the top: Jd 9s 7c
HANDS = ["5h 6h 7h 8h Kc Qd 2s", "8d 3s 4d Tc Jc 2d Qs", "8c 8s 9h Kh 3c 4c 6s"]


def after_the_throw(before_discard: str = "", **options: object) -> rummy500.Rummy500State:
    """A has melded 5h 6h 7h and discarded the 8h (``before_discard``: a hook for the test)."""
    state = rigged(HANDS, "5c", "Jd 9s 7c", options={"calling_rummy": True, **options})
    act(state, "draw_stock")
    act(state, "meld cards=5h6h7h")
    if before_discard == "C holds 8c 8s":
        state.hands[2] = parse("8c 8s")
    elif before_discard == "stock and pile gone":
        state.stock, state.discard = [], []
    act(state, "discard 8h")
    return state


def test_the_players_who_can_use_it_are_asked_in_turn() -> None:
    state = after_the_throw()
    assert state.phase is rummy500.Phase.CALL and state.current_player() == 1
    assert legal(state) == {"call", "pass"}
    view = state.view(None)
    assert view["phase"] == "call" and view["call"] == {"card": "8h", "discarder": 0,
                                                        "caller": None}
    assert view["discard"] == ["5c", "8h"]
    with pytest.raises(IllegalAction, match="8h was just discarded"):
        act(state, "draw_stock")
    assert act(state, "pass") == ["pass"]
    assert state.phase is rummy500.Phase.CALL and state.current_player() == 2


def test_the_caller_plays_it_at_once_for_his_own_credit() -> None:
    state = after_the_throw()
    act(state, "pass")
    assert act(state, "call") == ["call"]
    assert state.phase is rummy500.Phase.PLAY and state.current_player() == 2
    assert state.discard == [card("5c")] and state.view(2)["must_place"] == ["8h"]
    assert legal(state) == {"lay_off 8h meld=1", "meld cards=8c8h8s"}  # no discard, no draw
    act(state, "lay_off 8h meld=1")
    # play goes on from the discarder's left: B draws as usual
    assert state.phase is rummy500.Phase.DRAW and state.current_player() == 1
    assert state.view(None)["call"] is None
    assert state.view(None)["table_points"] == [5 + 6 + 7, 0, 8]
    assert len(state.hands[2]) == 7 and state.table[0].laid_by == (0, 0, 0, 2)


def test_the_next_player_may_call_and_still_take_his_turn() -> None:
    state = after_the_throw()
    act(state, "call")
    assert legal(state) == {"lay_off 8h meld=1"}  # B has a single eight
    act(state, "lay_off 8h meld=1")
    assert state.phase is rummy500.Phase.DRAW and state.current_player() == 1
    assert len(state.hands[1]) == 7


def test_when_everyone_passes_the_next_player_draws() -> None:
    state = after_the_throw()
    act(state, "pass")
    act(state, "pass")
    assert state.phase is rummy500.Phase.DRAW and state.current_player() == 1
    assert state.discard[-1] == card("8h")  # B may still take it the ordinary way
    assert "draw_discard" in legal(state)


def test_everyone_is_asked_but_only_a_player_who_can_use_it_may_call() -> None:
    # Asking only the players who could use 2s would tell the table about their hands:
    # both are asked, and neither may call a card he cannot place.
    state = rigged(HANDS, "5c", "Jd 9s 7c", options={"calling_rummy": True})
    act(state, "draw_stock")
    act(state, "meld cards=5h6h7h")
    act(state, "discard 2s")
    for seat in (1, 2):
        assert state.phase is rummy500.Phase.CALL and state.current_player() == seat
        assert legal(state) == {"pass"}
        with pytest.raises(IllegalAction):
            state.apply(Action("call"))
        act(state, "pass")
    assert state.phase is rummy500.Phase.DRAW and state.current_player() == 1


def test_a_caller_who_places_his_last_cards_is_out() -> None:
    state = after_the_throw("C holds 8c 8s")
    act(state, "pass")
    act(state, "call")
    assert act(state, "meld cards=8c8h8s")[-1] == "hand_over"
    assert state.history[-1]["winner"] == 2 and state.view(None)["call"] is None


def test_with_a_final_discard_a_caller_may_not_empty_his_hand() -> None:
    state = after_the_throw("C holds 8c 8s", final_discard=True)
    act(state, "pass")
    act(state, "call")
    assert legal(state) == {"lay_off 8h meld=1"}


def test_the_hand_ends_if_a_call_took_the_last_card_of_an_empty_stock() -> None:
    state = after_the_throw("stock and pile gone")
    act(state, "pass")
    act(state, "call")
    assert act(state, "lay_off 8h meld=1") == ["lay_off", "stock_out", "hand_over"]


def test_calling_is_refused_without_the_option_or_an_open_call() -> None:
    state = rigged(HANDS, "5c", "Jd 9s 7c")
    with pytest.raises(IllegalAction, match="not played at this table"):
        act(state, "call")
    state = rigged(HANDS, "5c", "Jd 9s 7c", options={"calling_rummy": True})
    with pytest.raises(IllegalAction, match="no discard you can call"):
        act(state, "call")


def test_calls_replay_exactly() -> None:
    state = after_the_throw()
    act(state, "pass")
    act(state, "call")
    act(state, "lay_off 8h meld=1")
    record = json.loads(json.dumps(state.record()))
    again = rummy500.replay(record)
    assert [again.view(s) for s in (0, 1, 2, None)] == [state.view(s) for s in (0, 1, 2, None)]
