"""The hard Rommé computer: keeping a ready first meld hidden for a Hand-Rommé."""

from __future__ import annotations

from dataclasses import replace

from cardtable.bots.romme import hard as romme_hard
from cardtable.bots.romme import normal as romme_normal
from cardtable.engine.cards import pretty_card
from tablemeld_positions import play_turn, position

# 7c 7d 7s + Qh Kh Ah make 52: enough to come out, with seven cards left over
READY = "Qh Kh Ah 7c 7d 7s 2c 5d 9s Jc 3h 8d 4s Tc"
NOT_OUT = "2d 3d 9c 9h Kc 4h 6h 6s 8s Js Qc 5c 3s"


def test_a_ready_opening_stays_hidden_while_nobody_else_has_come_out() -> None:
    # nobody can go out before this seat comes out, so nothing is lost by waiting,
    # and going out all at once later doubles the opponent's whole hand
    state = position("romme", [READY, NOT_OUT])
    moves = play_turn(state, romme_hard.choose)
    assert len(moves) == 1 and moves[0].startswith("discard")
    assert not state.table and not state.has_melded[0]
    normal = play_turn(position("romme", [READY, NOT_OUT]), romme_normal.choose)
    assert normal[0] == "meld melds=7c7d7s/AhQhKh"


def test_an_opponent_out_with_a_big_hand_cannot_go_out_next_turn_so_it_stays_hidden() -> None:
    table = [(1, "9c 9h 9d"), (1, "4h 5h 6h")]
    state = position("romme", [READY, "2d 3d 8s Kd Ks"], table=table, melded=[1])
    assert play_turn(state, romme_hard.choose) == ["discard 8d"]


def test_the_opening_goes_down_when_an_opponent_who_came_out_is_near_out() -> None:
    table = [(1, "9c 9h 9s"), (1, "4h 5h 6h")]
    state = position("romme", [READY, "2d 3d"], table=table, melded=[1])
    assert play_turn(state, romme_hard.choose) == [
        "meld melds=7c7d7s/AhQhKh", "lay_off 3h meld=2", "discard Tc"]


def test_a_hand_that_can_go_out_at_once_goes_out() -> None:
    state = position("romme", ["Qh Kh Ah 7c 7d 7s 2c 3c 4c 9s 9d 9h 5s Jk", NOT_OUT])
    moves = play_turn(state, romme_hard.choose)
    assert moves[-1] == "discard 5s"
    assert state.phase.value == "hand_over"
    assert state.result()["hands"][-1]["rummy"]


def test_the_hint_says_why_the_opening_waits() -> None:
    view = position("romme", [READY, NOT_OUT]).view(0)
    move = romme_hard.choose(view)
    assert move.type == "discard" and move.card is not None
    text = romme_hard.hint(view, move)
    assert text == (f"discard {pretty_card(move.card)}: keep your melds hidden, go out all "
                    "at once: penalties x2")


def test_before_coming_out_a_lone_card_goes_before_an_ace_that_may_meld() -> None:
    # A-2-4-5 of diamonds wants the 3: the ace is worth its eleven points toward the
    # first meld; the 3 of hearts goes with nothing (normal throws the ace for its points)
    hand = "9c Ad 2d 4d 5d 9d 3h 7h 8h 4s 5s 9s Qs Ks"
    assert play_turn(position("romme", [hand, NOT_OUT]), romme_hard.choose) == ["discard 3h"]
    assert play_turn(position("romme", [hand, NOT_OUT]), romme_normal.choose) == ["discard Ad"]


def test_without_the_doubling_the_hint_gives_the_other_reason_to_wait() -> None:
    state = position("romme", [READY, NOT_OUT])
    state.options = replace(state.options, hand_romme_multiplier=1)
    view = state.view(0)
    move = romme_hard.choose(view)
    assert move.type == "discard" and move.card is not None
    assert romme_hard.hint(view, move) == (
        f"discard {pretty_card(move.card)}: keep your melds hidden, nobody can lay off on them")
