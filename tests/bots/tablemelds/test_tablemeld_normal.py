"""The table-meld bots (Rummy, Rummy 500, Rommé): judgement in fixed positions, and play.

Positions are built on a real match: the hands, pile and table are set, the
rest of the deck is the stock, and the bot sees ``state.view(seat)`` with the
engine's own legal moves.  Seat 0 is the bot to act unless said otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from cardtable.bots.levels import BOT_MODULES as BOTS
from cardtable.bots.levels import bot_for
from cardtable.bots.romme import normal as romme_normal
from cardtable.bots.rummy import normal as rummy_normal
from cardtable.bots.rummy500 import normal as rummy500_normal
from cardtable.bots.tablemelds.evaluation import Evaluator, Weights
from cardtable.engine import GAMES, Action, get_game
from cardtable.engine.cards import JOKER, card, format_cards, parse
from tablemeld_positions import position

TABLE_MELD_GAMES = ("rummy", "rummy500", "romme")
CHOOSE: dict[str, Callable[[dict[str, Any]], Action]] = {
    "rummy": rummy_normal.choose, "rummy500": rummy500_normal.choose, "romme": romme_normal.choose}


def bot_move(state: Any) -> str:
    """The bot's move for the seat to act, applied; its text (``discard Kc``)."""
    action = CHOOSE[state.NAME](state.view(state.current_player()))
    assert action in state.legal_actions()
    state.apply(action)
    return str(action)


def play_turn(state: Any) -> list[str]:
    """Every move of the seat to act until its turn is over."""
    seat, moves = state.current_player(), []
    while state.current_player() == seat and not state.is_over() and len(moves) < 40:
        moves.append(bot_move(state))
        if moves[-1].startswith("discard") or state.phase.value == "hand_over":
            break
    return moves


# -- the hand's value --------------------------------------------------------------------------


def test_the_arrangement_is_exact_where_greedy_is_not() -> None:
    hold = [min(c % 13 + 1, 10) for c in range(52)] + [15]
    plan = Evaluator(Weights.flat(hold)).plan(parse("7s 7h 7d 5s 6s 8s"))
    assert plan is not None
    assert [format_cards(m) for m in plan.melds] == ["5s 6s 7s 8s"]
    assert format_cards(plan.leftover) == "7d 7h"


def test_a_forced_card_goes_down_or_the_hand_is_refused() -> None:
    hold = [min(c % 13 + 1, 10) for c in range(52)] + [15]
    evaluator = Evaluator(Weights.flat(hold))
    assert evaluator.plan(parse("9s 9h 9d Kc"), forced=card("Kc")) is None
    plan = evaluator.plan(parse("9s 9h 9d 9c Kc"), forced=card("9c"))
    assert plan is not None and any(card("9c") in m for m in plan.melds)


# -- melding, laying off and discarding -------------------------------------------------------


def test_rummy_lays_its_melds_and_throws_the_high_loner() -> None:
    # North  7h 8h 9h Th Jh  2c 2d 2s  3d 5d  Kc    (3d 5d wait for the 4d; Kc is alone)
    state = position("rummy", ["7h 8h 9h Th Jh 2c 2d 2s 3d 5d Kc",
                               "Kd 3c 6s 8s Js Qc 3h 5h 9c Tc"], pile="Qs")
    moves = play_turn(state)
    assert moves == ["meld cards=7h8h9hThJh", "meld cards=2c2d2s", "discard Kc"]


def test_rummy_lays_off_what_fits_the_table() -> None:
    state = position("rummy", ["2c 2d 2s 7c 3d Kc", "Kd 3c 6s 8s Js Qc 3h 5h 9c Tc"],
                     table=[(1, "4c 5c 6c")], pile="Qs")
    moves = play_turn(state)
    assert moves == ["meld cards=2c2d2s", "lay_off 7c meld=1", "discard Kc"]


def test_rummy_draws_the_discard_that_completes_a_meld_not_an_unrelated_card() -> None:
    hands = ["8h 9h Th 2c 2d 5s 6c Kc Qd 4s", "Kd 3c 6s 8s Js Qc 3h 5h 9c Tc"]
    assert bot_move(position("rummy", hands, pile="Ks 2s", draw=True)) == "draw_discard"
    assert bot_move(position("rummy", hands, pile="2s 7d", draw=True)) == "draw_stock"


def test_no_discard_feeds_a_table_meld_it_cannot_lay_off_on() -> None:
    # Rommé, North not yet out (4d 5d 6d is 15 points): he may not lay off his 9h on
    # South's 6h 7h 8h, and he does not give it to South either.
    hand = "Kc Kd 4d 5d 6d 9h 8c 2s 2h 3c"
    south = "4c 5c 6c 7c 8d 9d Td Jd Qd Kh"
    assert bot_move(position("romme", [hand, south])) == "discard 9h"  # the higher loner
    fed = position("romme", [hand, south], table=[(1, "6h 7h 8h")], melded=[1])
    assert bot_move(fed) == "discard 8c"


def test_cards_an_opponent_took_from_the_pile_are_not_fed() -> None:
    # North holds two loners, Kc and 9d; South took the Kh from the pile.
    hands = ["2c 2d 2s 5h 6h 7h Kc 9d", "Kh Qh 3c 4c 8s 9s Ts"]
    assert play_turn(position("rummy", hands))[-1] == "discard Kc"
    assert play_turn(position("rummy", hands, picked=["", "Kh"]))[-1] == "discard 9d"


def test_a_pair_whose_cards_are_all_in_the_pile_is_broken_first() -> None:
    # North melds 2c 2d 2s and keeps two pairs: 8c 8d and 5c 5d.  Normally the eights go
    # (they cost more); with 5h and 5s in the discard pile the fives can never be a set.
    hands = ["2c 2d 2s 8c 8d 5c 5d", "Kd 3c 6s 8s Js Qc 3h"]
    assert play_turn(position("rummy", hands, pile="Jd"))[-1] in ("discard 8c", "discard 8d")
    assert play_turn(position("rummy", hands, pile="5h 5s Jd"))[-1] in ("discard 5c",
                                                                          "discard 5d")


# -- jokers -------------------------------------------------------------------------------------


def test_a_joker_is_not_spent_on_a_meld_that_does_not_need_it() -> None:
    state = position("romme", ["5h 6h 7h Jk 9c Kd 2s 8d", "4c 5c 6c 7c 8d 9d Td Jd Qd Kh"],
                     table=[(0, "Qs Qh Qd"), (0, "Ac Ad Ah")], melded=[0])
    moves = play_turn(state)
    assert moves[0] == "meld cards=5h6h7h"
    assert all("Jk" not in m for m in moves)
    assert JOKER in state.hands[0]


def test_a_joker_goes_where_it_is_needed_to_come_out() -> None:
    # 7c 7d 7s is 21; Qh Kh and a joker (as the ace) 31: only together 40 or more.
    state = position("romme", ["7c 7d 7s Qh Kh Jk 3d 8s 2c 5h Td 4s", "4c 5c 6c 8d 9d"])
    moves = play_turn(state)
    assert moves[0] == "meld melds=7c7d7s/QhKhJk"


def test_a_joker_is_never_discarded_unless_nothing_else_may_go() -> None:
    # South has come out and holds one card: a joker kept costs its penalty soon, but it
    # has nowhere to go (the only meld is a full set) and the king may go instead.
    state = position("romme", ["Jk Kc", "4c"], table=[(1, "Kh Kd Ks Kc")], melded=[0, 1])
    assert bot_move(state) == "discard Kc"


def test_a_joker_is_taken_back_from_the_table_when_it_makes_a_meld() -> None:
    # The rules file's example: South's Jd Jk Kd; North, out, holds Qd and 9s 9h.
    state = position("romme", ["Qd 9s 9h 4c 2d", "5c 6c 7c 8d 9d"],
                     table=[(1, "Jd Jk Kd"), (0, "As Ac Ad")], melded=[0, 1])
    moves = play_turn(state)
    assert moves[0] == "swap_joker Qd meld=1"
    assert moves[1] == "meld cards=9h9sJk"


# -- the first meld (Rommé) ---------------------------------------------------------------------


def test_the_opening_is_laid_as_soon_as_it_reaches_the_minimum() -> None:
    state = position("romme", ["Qh Kh Ah 7c 7d 3s 8c 2d 5h Td 4s Jc 9d", "4c 5c 6c 8d 9c"],
                     pile="7s", draw=True)
    assert bot_move(state) == "draw_discard"  # 31 + 21: enough to come out
    assert bot_move(state) == "meld melds=7c7d7s/AhQhKh"


def test_short_of_the_minimum_the_melds_stay_in_hand() -> None:
    # Q-K-A is 31 points: not enough alone, so the turn is a discard.
    state = position("romme", ["Qh Kh Ah 3s 8c 2d 5h Td 4s Jc 9d 6c 6d Js", "4c 5c 6s 8d 9c"])
    assert state.view(0)["first_meld"] == 40
    moves = play_turn(state)
    assert len(moves) == 1 and moves[0].startswith("discard")
    assert not any(c in format_cards(state.discard) for c in ("Qh", "Kh", "Ah"))


# -- Rummy 500: pickups, points, going out ---------------------------------------------------


NORTH = "9s 9h Kc Qd 8h 6c 2s 3h Td 7c 4d Ad Kh"
SOUTH = "Ac 2h 3c 5h 6s 7s 8c 8s Tc Jc Qc Qs Ks"


def test_rummy500_digs_for_a_card_that_melds_when_the_haul_is_worth_it() -> None:
    # The rules file's pile: 4c 9d 5s Jh 2d; North holds 9s 9h.
    state = position("rummy500", [NORTH, SOUTH], pile="4c 9d 5s Jh 2d", draw=True)
    assert bot_move(state) == "draw_discard 4"
    assert bot_move(state) == "meld cards=9d9h9s"


def test_rummy500_does_not_dig_for_a_small_meld_under_a_heap_of_high_cards() -> None:
    # 2d melds with 2s 2h (6 points), but it comes with Jh and Qc that go with nothing.
    north = "2s 2h 9c 6c 8h 3h Td 7c 4d Ac 5s 6s Ks"
    south = "Ad 3c 5h 6h 7s 8c 8s Tc Jc Kc Qh 4s 3s"
    state = position("rummy500", [north, south], pile="2d Jh Qc", draw=True)
    assert bot_move(state) == "draw_stock"


def test_rummy500_sheds_the_card_that_costs_most_in_hand() -> None:
    state = position("rummy500", ["5d 6d 7d As 4c 9h", SOUTH], pile="2c")
    moves = play_turn(state)
    assert moves == ["meld cards=5d6d7d", "discard As"]  # an ace held costs 15


def test_rummy500_goes_out_when_ahead() -> None:
    state = position("rummy500", ["5d 6d 7d 8d 9c", SOUTH], table=[(0, "Kc Kd Kh")],
                     melded=[0], pile="2c")
    moves = play_turn(state)
    assert moves[-1] in ("discard 9c", "meld cards=5d6d7d8d")
    assert state.phase.value in ("hand_over", "match_over")
    assert state.history[-1]["winner"] == 0


def test_rummy500_plays_on_rather_than_go_out_into_a_lost_match() -> None:
    # South has 105 points on the table and four cards in hand.  North can go out; if
    # South leads 480 to 300, that ends the match with South past 500 and ahead, so
    # North plays on; if North leads, out he goes.
    def game(scores: list[int]) -> Any:
        state = position("rummy500", ["5d 6d 7d 8d 9c", "2h 3c 4s 9h"], melded=[1],
                         table=[(1, "Kc Kd Kh"), (1, "Qs Qh Qd"), (1, "Ah Ad Ac")])
        state.scores = scores
        play_turn(state)
        return state

    behind = game([300, 480])
    assert behind.current_player() == 1 and behind.phase.value == "draw"
    assert behind.hands[0]
    ahead = game([480, 300])
    assert ahead.history[-1]["winner"] == 0


# -- whole matches -----------------------------------------------------------------------------


def test_every_table_meld_game_has_its_bot_on_the_server() -> None:
    for name in TABLE_MELD_GAMES:
        assert name in GAMES
        assert BOTS[name] == f"cardtable.bots.{name}.normal"
        assert bot_for(name) is CHOOSE[name]


SHORT = {"rummy": {"deals": 1}, "rummy500": {"target": 150}, "romme": {"deals": 1}}
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "rummy": [{}, {"preset": "pagat"}, {"ace": "around", "final_discard": True},
              {"lay_off_before_meld": False, "top_discard_must_be_used": True},
              {"ace": "high_or_low", "stock_exhausted": "block", "melds_per_turn": "one"}],
    "rummy500": [{}, {"preset": "bicycle"}, {"calling_rummy": True, "pickup_use": "new_meld"},
                 {"final_discard": True, "ace": "around", "joker_value": "represented"},
                 {"stock_exhausted": "shuffle", "top_discard_must_be_used": True,
                  "two_player_cards": 10}],
    "romme": [{}, {"preset": "dskv_online"}, {"joker_limit": "one_per_meld", "first_meld": 50},
              {"final_discard": True, "king_ace_two": True, "deal": "upcard"},
              {"joker_limit": "not_adjacent", "top_discard_must_be_used": True, "jokers": 2},
              {"joker_limit": "not_more_than_naturals", "first_meld": 30,
               "stock_exhausted": "end_hand"},
              {"end": "elimination", "eliminate_at": 60, "never_out": "fixed_100"}],
}


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
@pytest.mark.parametrize("name", TABLE_MELD_GAMES)
def test_bots_finish_seeded_matches_without_an_illegal_move(name: str) -> None:
    """Every number of players, every preset and many options, with each seat's view."""
    game = get_game(name)
    variants = VARIANTS[name]
    for seed in range(30):
        players = game.PLAYERS[seed % len(game.PLAYERS)]
        options = game.Options.from_dict({**SHORT[name], **variants[seed % len(variants)]})
        state = game.new_match(options, players, random.Random(seed))
        for _ in range(20000):
            if state.is_over():
                break
            view = state.view(state.current_player())
            action = CHOOSE[name](view)
            assert action.to_json() in view["legal"], (seed, str(action))
            state.apply(action)  # raises IllegalAction on an illegal move
        assert state.is_over(), f"{name} seed {seed} did not finish"


def random_player(seed: int) -> Callable[[dict[str, Any]], Action]:
    rng = random.Random(seed)
    return lambda view: Action.from_json(rng.choice(view["legal"]))


@pytest.mark.parametrize("name", TABLE_MELD_GAMES)
def test_bots_beat_a_random_player_by_a_clear_margin(name: str) -> None:
    game = get_game(name)
    matches, won = 16, 0.0
    for seed in range(matches):
        bot_seat = seed % 2
        players = [random_player(seed), random_player(seed)]
        players[bot_seat] = CHOOSE[name]
        state = game.new_match(game.Options.from_dict(SHORT[name]), 2, random.Random(seed))
        for _ in range(20000):
            if state.is_over():
                break
            seat = state.current_player()
            state.apply(players[seat](state.view(seat)))
        winners = state.result()["winners"]
        won += (bot_seat in winners) / len(winners)
    assert won >= 0.8 * matches, f"{name}: the bot won {won} of {matches}"
