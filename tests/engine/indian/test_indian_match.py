"""Indian Rummy: fixed deals played through the engine (test vectors 2, 3, 4 and 6 among
them), drops, wrong shows, the open deck's rules, views and records."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import JOKER
from cardtable.engine.games import indian
from cardtable.engine.games.indian import IndianState, Options, Phase
from indian_deals import LOSER_A, LOSER_B, OTHER, THIRD, WINNER, WRONG, act, rigged

# -- vector 6: a points deal, A 23, B 80, E middle drop 40 -> the winner collects 143 ----------

# The cut card is the 7c: sevens are wild (the hands: indian_deals).
DROPPER_E = "Ac Ad 3d 4d 6c Tc Th Ts Jh Js Ad 6d 6h"
ROUNDS = "Ah Td 3s Js 5d 4c 6d 2s"  # closed deck: two rounds of draws, then the winner's 2s


def vector_six() -> IndianState:
    state = rigged([WINNER, LOSER_A, LOSER_B, DROPPER_E], "7c", "9d", ROUNDS)
    # round 1: everyone draws from the closed deck and throws the card back
    act(state, "draw_stock", "discard Ah", "draw_stock", "discard Td",
        "draw_stock", "discard 3s", "draw_stock", "discard Js")
    # round 2: E has drawn before, so his drop is a middle drop
    act(state, "draw_stock", "discard 5d", "draw_stock", "discard 4c",
        "draw_stock", "discard 6d", "drop")
    return state


def test_vector_6_the_winner_collects_every_losers_points() -> None:
    state = vector_six()
    assert state.status[3] == "dropped" and state.penalty[3] == 40
    act(state, "draw_stock")  # the 2s
    assert "8c" in state.view(0)["me"]["finish_cards"]
    act(state, "declare 8c")
    assert state.is_over()
    row = state.history[-1]
    assert row["winner"] == 0 and row["points"] == [0, 23, 80, 40]
    assert row["collected"] == 143
    assert state.result()["scores"] == [143, -23, -80, -40]
    assert state.result()["winners"] == [0]
    # after the show every hand is revealed with its arrangement
    last = state.view(1)["last"]
    assert last["hands"][0]["finish"] == "8c" and last["hands"][0]["count"] == 0
    assert sorted(last["hands"][1]["loose"]) == sorted(["Kd", "9c", "4s"])
    assert last["hands"][2]["lives"] is False


def test_a_middle_drop_needs_a_draw_before_and_a_first_drop_costs_20() -> None:
    state = rigged([WINNER, LOSER_A, LOSER_B, DROPPER_E], "7c", "9d", ROUNDS)
    act(state, "draw_stock", "discard Ah", "drop")  # seat 1 has not drawn: a first drop
    assert state.penalty[1] == 20 and state.view(None)["hands"][1]["status"] == "dropped"
    assert state.to_act == 2  # the deal goes on for the others
    with pytest.raises(IllegalAction, match="before drawing"):
        act(state, "draw_stock", "drop")


# -- vector 2: a wrong show, and the deal goes on (the hands: indian_deals) -------------------


def test_vector_2_a_wrong_show_costs_80_and_the_deal_goes_on() -> None:
    state = rigged([WRONG, OTHER, THIRD], "7h", "9h", "2h 4c")
    assert state.wild == 6
    act(state, "draw_stock")
    assert state.view(0)["me"]["finish_cards"] == []  # the table would warn before this show
    events = state.apply(Action.parse("declare 8d"))
    assert events[0].type == "declare" and events[0].data == {"valid": False, "points": 80}
    assert state.status[0] == "wrong_show" and state.to_act == 1
    # the finish card is face down: nobody but the declarer may see it
    assert "finish" not in state.view(1)["hands"][0] and "8d" not in json.dumps(state.view(1))
    assert state.view(0)["hands"][0]["finish"] == "8d"
    act(state, "drop")  # seat 1 drops: seat 2 is left alone and wins the deal
    row = state.history[-1]
    assert row["winner"] == 2 and row["points"] == [80, 20, 0] and not row["shown"]
    assert state.result()["scores"] == [-80, -20, 100]


def test_a_wrong_show_may_end_the_deal_instead() -> None:
    state = rigged([WRONG, OTHER, THIRD], "7h", "9h", "2h 4c",
                   options={"wrong_show_ends_deal": True, "format": "pool"})
    act(state, "draw_stock", "declare 8d")
    row = state.history[-1]
    assert row["winner"] is None and row["points"] == [80, 0, 0]
    # seat 2 dealt (seat 0 played first): the deal passes to seat 0, who deals next
    assert state.phase is Phase.DEAL_OVER and state.dealer == 2 and state.to_act == 0


# -- the open deck -----------------------------------------------------------------------------

def test_a_discarded_joker_may_not_be_taken_from_the_open_deck() -> None:
    # sevens wild; seat 0 throws the wild 7d, seat 1 may not pick it up
    state = rigged([WRONG, OTHER, THIRD], "7h", "9h", "7d 4c")
    act(state, "draw_stock", "discard 7d")
    assert Action("draw_discard") not in state.legal_actions()
    with pytest.raises(IllegalAction, match="joker"):
        act(state, "draw_discard")
    allowed = rigged([WRONG, OTHER, THIRD], "7h", "9h", "7d 4c",
                     options={"joker_pickup": "allowed"})
    act(allowed, "draw_stock", "discard 7d", "draw_discard")
    assert allowed.view(None)["hands"][1]["picked"] == ["7d"]


def test_the_dealt_open_card_may_be_taken_even_if_it_is_a_joker() -> None:
    state = rigged([WRONG, OTHER, THIRD], "7h", "Jk", "2h")
    assert state.view(0)["open"] == {"top": "Jk", "count": 1, "takeable": True}
    act(state, "draw_discard")
    assert state.hands[0].count(JOKER) == 2


def test_pagat_forbids_discarding_the_card_just_taken() -> None:
    state = rigged([WRONG, OTHER, THIRD], "7h", "9h", "2h", options={"preset": "pagat"})
    act(state, "draw_discard")
    assert Action.parse("discard 9h") not in state.legal_actions()
    assert Action.parse("declare 9h") in state.legal_actions()  # the finish slot takes any card
    with pytest.raises(IllegalAction, match="just taken"):
        act(state, "discard 9h")


def test_an_empty_closed_deck_is_renewed_from_the_open_deck_but_its_top() -> None:
    state = indian.new_match(Options(drop="none"), 2, random.Random(3))
    renewed = False
    while not renewed:
        top_before = state.open[-1] if state.open else None
        empty = not state.closed
        events = state.apply(Action("draw_stock"))
        if empty:
            renewed = True
            assert events[0].type == "renew_closed"
            assert state.open == [top_before]
        seat = state.current_player()
        drawn = state.hands[seat][-1]
        state.apply(Action("discard", card=drawn))  # nobody ever declares
    again = indian.replay(json.loads(json.dumps(state.record())))
    assert again.view(0) == state.view(0) and again.closed == state.closed


# -- views, records, resampling ----------------------------------------------------------------

def test_a_view_shows_the_own_arrangement_and_hides_everything_else() -> None:
    state = vector_six()
    view = state.view(0)
    me = view["me"]
    assert [g["kind"] for g in me["groups"]][:2] == ["pure", "pure"]
    assert me["lives"] and me["points"] == 12 and me["loose"] == ["2c", "8c", "2d"]
    assert view["wild"] == {"card": "7c", "rank": "7"}
    assert "cards" not in view["hands"][1] and view["hands"][1]["count"] == 13
    spectator = state.view(None)
    assert spectator["me"] is None and all("cards" not in h for h in spectator["hands"])
    assert spectator["legal"] == [] and view["legal"]


def test_record_replay_and_resample() -> None:
    state = vector_six()
    again = indian.replay(json.loads(json.dumps(state.record())))
    assert again.view(0) == state.view(0)
    twin = state.resample(0, random.Random(9))
    assert twin.view(0) == state.view(0) and twin.legal_actions() == state.legal_actions()
    act(twin, "draw_stock")  # the twin plays on from its own closed deck
    assert len(twin.hands[0]) == 14


def test_illegal_moves_say_why_and_change_nothing() -> None:
    state = vector_six()
    before = json.dumps([state.view(s) for s in range(4)])
    for text, reason in [("discard 2s", "draw a card first"), ("deal", "still being played"),
                         ("declare 8c", "draw a card first"), ("meld", "no move called")]:
        with pytest.raises(IllegalAction, match=reason):
            act(state, text)
    act(state, "draw_stock")
    with pytest.raises(IllegalAction, match="do not hold"):
        act(state, "discard 9d")
    assert json.dumps([state.view(s) for s in range(4)]) != before


# -- the finished deal's revealed hands: arranged when first read -------------------------------


def test_a_finished_deals_hands_are_arranged_when_read_as_they_were_at_its_end() -> None:
    state = rigged([WINNER, LOSER_A, LOSER_B, DROPPER_E], "7c", "9d", ROUNDS,
                   options={"preset": "pool101"})
    act(state, "draw_stock", "discard Ah", "draw_stock", "discard Td",
        "draw_stock", "discard 3s", "draw_stock", "discard Js",
        "draw_stock", "discard 5d", "draw_stock", "discard 4c",
        "draw_stock", "discard 6d", "drop", "draw_stock")
    events = state.apply(Action.parse("declare 8c"))
    hands_at_end = [list(h) for h in state.hands]
    (over,) = [e for e in events if e.type == "deal_over"]
    assert state.phase == Phase.DEAL_OVER
    # Nothing arranged yet: a bot's playout that ends this deal never pays for the search.
    assert "revealed" not in vars(over.data)
    twin = state.resample(1, random.Random(5))
    assert twin.last is state.last  # frozen: every copy shares it
    act(state, "deal")  # the next deal reuses the hands' lists
    assert state.last is None and state.hands != hands_at_end
    sent = json.loads(json.dumps(over.view(None)))
    rules = state.options.rules
    expected = [indian.layout.arrangement(h, 6, rules, declared=seat == 0)
                for seat, h in enumerate(hands_at_end)]
    for seat, entry in enumerate(expected):
        entry["finish"] = "8c" if seat == 0 else None
    assert sent["hands"] == json.loads(json.dumps(expected))
    assert sent["winner"] == 0 and sent["wild"] == "7c" and sent["points"] == [0, 23, 80, 40]
    assert list(over.data) == [*state.history[-1], "wild", "hands"]
    assert twin.view(2)["last"] == dict(over.data)  # the view sends a plain dict
