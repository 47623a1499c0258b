"""The hard Indian Rummy player: hand-made positions where the right move is clear
(shows, jokers, the pure sequence, the open deck, feeding, dead draws, drops), its
hints, and seeded matches in every format (legal moves only, never a wrong show).

Positions are fixed deals (``rigged`` from ``test_indian_match``); the hard player
is seat 0 and sees only ``state.view(0)``.
"""

from __future__ import annotations

import copy
import random

import pytest

from cardtable.bots.indian import hard_eval
from cardtable.bots.indian.hard import choose, hint
from cardtable.engine.api import Action
from cardtable.engine.cards import card, parse
from cardtable.engine.games.indian import IndianState, Options, new_match
from indian_deals import LOSER_A, LOSER_B, OTHER, THIRD, WINNER, WRONG, act, rigged

OPPONENT = "Ac 3c 5c 6d 9c Jd Ks 2h 4d 6s 8s Th Qd"  # shares no group with the hands below


def move(state: IndianState, seat: int = 0) -> str:
    return str(choose(state.view(seat)))


# -- shows ----------------------------------------------------------------------------------------

def test_declares_as_soon_as_a_show_is_valid() -> None:
    # cut 7c: the 2s completes 2c 2d 2s; the 8c goes in the finish slot
    state = rigged([WINNER, OPPONENT], "7c", "9d", "2s 4c")
    act(state, "draw_stock")
    assert move(state) == "declare 8c"


def test_never_makes_a_wrong_show() -> None:
    # sets and impure runs, no pure sequence: every declare would be wrong
    state = rigged([WRONG, OTHER, THIRD], "7h", "9h", "2h 4c")
    act(state, "draw_stock")
    assert choose(state.view(0)).type == "discard"


# -- jokers and the pure sequence ------------------------------------------------------------------

def test_never_throws_a_joker_or_a_wild_card_it_does_not_need() -> None:
    # cut 7c: 3h 4h 5h | 8c 9c Tc | 2s 2d 2c | Jk 7d spare | Kd Qs   + 4d drawn
    state = rigged(["3h 4h 5h 8c 9c Tc 2s 2d 2c Jk 7d Kd Qs", OPPONENT], "7c", "Jh", "4d 4c")
    act(state, "draw_stock")
    assert move(state) in ("discard Kd", "discard Qs")


def test_keeps_the_only_pure_sequence_draw_over_a_lower_count() -> None:
    # cut Jc: no group; Qh Kh is the only pair towards a pure sequence
    state = rigged(["2c 5c 8c 2d 5d 8d 3h 6h 9h Qh Kh 4s 9s", OPPONENT], "Jc", "Td", "9s 4c")
    act(state, "draw_stock")
    assert move(state) not in ("discard Qh", "discard Kh")


# -- the open deck --------------------------------------------------------------------------------

@pytest.mark.parametrize(("top", "expected"), [
    ("Ts", "draw_discard"),  # 8s 9s Ts: a pure run
    ("Jk", "draw_discard"),  # the dealt open card may be taken even if it is a joker
    ("Kc", "draw_stock"),  # a pair with the Kd is no group: a closed card does as much
    ("2s", "draw_stock"),  # joins nothing
])
def test_takes_the_open_card_only_when_it_makes_a_group(top: str, expected: str) -> None:
    # cut 7c: 3h 4h 5h | 8s 9s 7d (7d = Ts) | Qc Qd Qh Qs | Kd 9c 4s loose (23)
    state = rigged([LOSER_A, OPPONENT], "7c", top, "9h 4c")
    assert move(state) == expected


def test_takes_the_open_card_that_makes_a_show_and_declares() -> None:
    state = rigged([WINNER, OPPONENT], "7c", "2s", "9h 4c")
    assert move(state) == "draw_discard"
    act(state, "draw_discard")
    state.apply(choose(state.view(0)))
    assert state.status[0] == "declared"


# -- discarding -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("picked", "expected"), [("Jd", "discard Qs"), ("Js", "discard Kd")])
def test_does_not_feed_the_next_player(picked: str, expected: str) -> None:
    # aces wild, none held: 3h 4h 5h | 6c 7c 8c | 2s 2d 2c | 9d 9s | Kd Qs + 4d drawn.
    # Kd and Qs are alike; seat 1 (next) took the open card: a card next to it stays.
    bot = "3h 4h 5h 6c 7c 8c 2s 2d 2c 9d 9s Kd Qs"
    state = rigged([bot, OPPONENT], "Ac", picked, "4d 4c", first=1)
    act(state, "draw_discard", "discard 2h", "draw_stock")
    assert move(state) == expected


def test_a_draw_whose_cards_are_all_seen_is_no_draw() -> None:
    # one pack, 2 players: 9h Th want the 8h or the Jh.  With both seen (the wild card
    # and the open card) the pair is dead; with them out, it is a draw.
    live = hard_eval.unseen_copies(1, [])
    dead = hard_eval.unseen_copies(1, parse("8h Jh"))
    pair = parse("9h Th")
    assert hard_eval.run_outs(*pair, live) == 2
    assert hard_eval.run_outs(*pair, dead) == 0
    assert hard_eval.draws(pair, None, live)
    assert not hard_eval.draws(pair, None, dead)


def test_outs_read_the_ace_above_the_king_and_sets_by_missing_suits() -> None:
    unseen = hard_eval.unseen_copies(2, parse("Js"))
    assert hard_eval.run_outs(card("Qs"), card("Ks"), unseen) == 1 + 2  # Js left, As
    assert hard_eval.run_outs(card("Ks"), card("As"), unseen) == 2  # Qs only
    assert hard_eval.set_outs(card("7c"), card("7d"), unseen) == 4  # 7h 7s, twice


def test_breaks_the_dead_draw_before_the_live_one() -> None:
    # 3h 4h 5h | 6c 7c 8c | 2s 2d 2c | 9d Td | Qs Ks  + Kc drawn, nothing wild.  With both
    # copies of the 8d and of the Jd in sight, 9d Td is dead: a diamond goes, not a spade.
    hand = tuple(sorted(parse("3h 4h 5h 6c 7c 8c 2s 2d 2c 9d Td Qs Ks Kc")))
    rules = Options().rules
    dead = hard_eval.unseen_copies(2, [*hand, *parse("8d 8d Jd Jd")])

    def best(unseen: list[int]) -> int:
        return min(parse("9d Td Qs Ks"), key=lambda c: hard_eval.standing_without(
            hand, c, None, rules, 0.0, unseen).score)

    assert best(dead) in parse("9d Td")


# -- dropping -------------------------------------------------------------------------------------

HOPELESS = "Ac 4c 7c Tc 2d 5d 8d Jd 3h 6h 9h Qh Ks"
"""No joker, no two cards of a suit within two ranks, no pair: 94, two cards from any
pure sequence."""


def test_first_drop_only_far_from_every_pure_sequence() -> None:
    # a printed joker cut with no extra wild: nothing in these hands is wild
    options = {"printed_joker_cut": "no_extra_wild"}
    state = rigged([HOPELESS, OPPONENT], "Jk", "Td", "9h 4c", options=options)
    assert move(state) == "drop"
    # 95 and no joker, but 5s 6s and 3c 5c are one card from a pure sequence: play on
    state = rigged([LOSER_B, OPPONENT], "Jk", "Td", "9h 4c", options=options)
    assert move(state) != "drop"


def test_no_drop_with_a_good_hand_or_without_drops() -> None:
    assert move(rigged([WINNER, OPPONENT], "7c", "9d", "2s 4c")) != "drop"
    state = rigged([LOSER_B, OPPONENT], "7c", "Td", "9h 4c", options={"preset": "deals"})
    assert move(state) != "drop"


# -- hints ----------------------------------------------------------------------------------------

def test_hints_name_the_cards_with_suit_symbols() -> None:
    state = rigged([LOSER_A, OPPONENT], "7c", "Ts", "9h 4c")
    view = state.view(0)
    text = hint(view, choose(view))
    assert text.startswith("take 10♠: it makes") and "8♠ 9♠ 10♠" in text
    state = rigged([WINNER, OPPONENT], "7c", "9d", "2s 4c")
    act(state, "draw_stock")
    view = state.view(0)
    assert hint(view, Action("declare", card=card("8c"))).startswith("show")
    assert hint(view, Action("discard", card=card("8c"))).startswith("throw 8♣")


@pytest.mark.slow
def test_hints_are_short_for_every_move_of_seeded_matches() -> None:
    for seed, preset in enumerate(Options.PRESETS):
        state = new_match(Options.preset(preset), 3, random.Random(seed))
        while not state.is_over():
            view = state.view(state.to_act)
            action = choose(view)
            assert 0 < len(hint(view, action)) <= 80
            state.apply(action)


# -- whole matches --------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(Options.PRESETS))
def test_plays_every_format_legally_and_the_same_view_gives_the_same_move(preset: str) -> None:
    for seed, players in ((1, 2), (2, 4)):
        state = new_match(Options.preset(preset), players, random.Random(seed))
        while not state.is_over():
            view = state.view(state.to_act)
            kept = copy.deepcopy(view)
            action = choose(view)
            assert view == kept and choose(view) == action
            assert action in state.legal_actions()
            state.apply(action)
            assert "wrong_show" not in [s.value for s in state.status]


@pytest.mark.slow
def test_holds_its_own_against_the_normal_player() -> None:
    # a smoke check, not the strength measurement (see the report in the module docs):
    # 60 points deals with seats swapped on each seed
    from cardtable.bots.indian import normal as indian_normal
    won = 0.0
    for i in range(60):
        state = new_match(Options(), 2, random.Random(i // 2))
        hard = i % 2
        while not state.is_over():
            seat = state.to_act
            bot = choose if seat == hard else indian_normal.choose
            state.apply(bot(state.view(seat)))
        winners = state.result()["winners"]
        won += (hard in winners) / len(winners)
    assert won >= 24
