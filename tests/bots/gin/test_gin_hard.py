"""Scenario tests for the hard Gin Rummy player, its hints, and matches against the
normal one.

Each scenario sets a table by hand and asks the hard player (seat 0) for its move;
hands are drawn as pictures (one row per suit, one column per rank).
"""

from __future__ import annotations

import copy
import random

import pytest

from cardtable.bots.gin import hard, normal
from cardtable.bots.gin.hard_eval import outs
from cardtable.bots.gin.hard_read import feeds, read
from cardtable.engine import get_game
from cardtable.engine.api import Action
from cardtable.engine.cards import format_cards, parse
from cardtable.engine.games import gin
from cardtable.engine.games.gin import Phase
from spades_deals import drawn  # the card pictures (the parser is not Spades' own)


def table(me: list[int], pile: str, phase: Phase = Phase.DRAW, *, his: str = "",
          picked: str = "", stock: int | None = None, options: gin.Options | None = None,
          knock_limit: int = 10) -> gin.GinState:
    """Seat 0 (the hard player) to act holding ``me``; ``pile`` bottom to top; seat 1
    holds ``his`` and ``picked`` (which he took from the pile) and unseen cards; the
    stock has ``stock`` cards (default: all that are left)."""
    state = gin.new_match(options or gin.Options(), rng=random.Random(0))
    pile_cards, his_cards, picked_cards = parse(pile), parse(his), parse(picked)
    used = [*me, *pile_cards, *his_cards, *picked_cards]
    assert len(set(used)) == len(used), "a card is used twice"
    assert len(me) == (11 if phase is Phase.DISCARD else 10), "10 cards, 11 after the draw"
    rest = [c for c in range(52) if c not in used]
    random.Random(1).shuffle(rest)
    fill = 10 - len(his_cards) - len(picked_cards)
    state.hands = [list(me), his_cards + picked_cards + rest[:fill]]
    state.stock = rest[fill:] if stock is None else rest[fill:fill + stock]
    state.face_down = rest[fill + len(state.stock):]
    state.discard = pile_cards
    state.phase, state.to_act = phase, 0
    state.taken = None
    state.picked = [set(), set(picked_cards)]
    state.stock_only = state.must_knock = False
    state.knock_limit = knock_limit
    state._legal = None  # the legal moves are cached; the fields above changed them
    return state


def hard_move(state: gin.GinState) -> str:
    view = state.view(0)
    action = hard.choose(view)
    assert action.to_json() in view["legal"]
    return str(action)


# A hand with two melds and a pair of sevens:
SEVENS = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . . . 7 . 9 . . . K
  d . . . . . . 7 . . . . . .
  h . . 3 4 5 . . . . . . . .
  s . . . . . . . . . . J Q K
""")  # 3h4h5h and JsQsKs melded; 7c 7d 9c Kc loose: deadwood 33


def test_takes_a_discard_that_completes_a_meld() -> None:
    assert hard_move(table(SEVENS, "2d 7h")) == "draw_discard"
    assert hard_move(table(SEVENS, "6h")) == "draw_discard"


def test_draws_from_the_stock_when_the_discard_does_not_help() -> None:
    assert hard_move(table(SEVENS, "7h Qd")) == "draw_stock"


def test_first_upcard_that_melds_is_taken() -> None:
    assert hard_move(table(SEVENS, "7s", Phase.FIRST_UPCARD)) == "take_upcard"
    assert hard_move(table(SEVENS, "Qd", Phase.FIRST_UPCARD)) == "pass"


# Eleven cards: two melds, and two unmatched kings after the draw.
TWO_KINGS = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A 2 3 . . . . . . . . . .
  d . . . . . . . . . . . . K
  h . . . . . . . . . . . . K
  s . . . 4 5 6 7 . . . . . .
""") + parse("2d 4h")  # Ac2c3c and 4s5s6s7s melded; 2d 4h Kd Kh loose


def test_does_not_feed_the_suit_he_collects() -> None:
    # He picked up the Jh and Qh: the Kh would meld for him, the Kd hardly.
    state = table(TWO_KINGS, "8c 9d", Phase.DISCARD, picked="Jh Qh", stock=20)
    assert hard_move(state) == "discard Kd"
    reading = read(state.view(0))
    assert feeds(reading, parse("Kh")[0]) > 0.9 > 0.2 > feeds(reading, parse("Kd")[0])


def test_throws_the_king_he_cannot_use_when_the_other_feeds_him() -> None:
    # The mirror image: now the diamonds are his, and the Kh is the safe one.
    state = table(TWO_KINGS, "8c 9h", Phase.DISCARD, picked="Jd Qd", stock=20)
    assert hard_move(state) == "discard Kh"


# Eleven cards: two runs; a connector with both ends live, a dead eight, and low cards.
CONNECTOR = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A 2 3 . . . . 8 . . . . .
  d . 2 . . . . . . . . . . .
  h . . . . . . . . 9 T . . .
  s A . 3 4 5 . . . . . . . .
""")  # Ac2c3c and 3s4s5s; 8c 9h Th 2d As loose


def test_keeps_a_live_connector_over_a_dead_single() -> None:
    # The normal player throws its highest loose card, the ten; the 8c is dead (both
    # other eights and its neighbours are gone) while 8h and Jh would finish 9h Th.
    pile = "7c 8d 9c 8s"
    assert str(normal.choose(table(CONNECTOR, pile, Phase.DISCARD).view(0))) == "discard Th"
    assert hard_move(table(CONNECTOR, pile, Phase.DISCARD)) == "discard 8c"


# Eleven cards that knock with 8: three melds, the 9d and 8s loose.
KNOCKABLE = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . . . 7 8 9 . . . K
  d . . . . . . . . 9 . . . K
  h . . . . . . . . . . J Q K
  s . . . . . . . 8 . . . . K
""")  # 7c8c9c JhQhKh KcKdKs; throw the 9d, knock with the 8s


def test_knocks_early_with_little_deadwood() -> None:
    state = table(KNOCKABLE, "Td", Phase.DISCARD, stock=29)
    assert hard_move(state).startswith("knock")


def test_holds_back_a_late_knock_against_a_collector() -> None:
    # He has picked up two sets and the stock is nearly gone: he very likely holds
    # less than 8 (he does: the three aces and a six) and would undercut.
    state = table(KNOCKABLE, "Td 9s", Phase.DISCARD, picked="2c 2d 2s 3d 3h 3s",
                  his="Ah Ad As 6d", stock=5)
    assert hard_move(state) == "discard 9d"


# Eleven cards: three runs and an ace, with a loose four.
NEAR_GIN = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . 5 6 7 . . . . . .
  d . . . . . 6 7 8 . . . . .
  h . . . . . . . . . T J Q .
  s A . . 4 . . . . . . . . .
""")  # three runs; As 4s loose: throw the 4s and keep 1 deadwood


def test_waits_for_gin_early_with_one_deadwood_and_many_outs() -> None:
    assert len(outs([c for c in NEAR_GIN if c != parse("4s")[0]])) >= 6
    assert hard_move(table(NEAR_GIN, "Td", Phase.DISCARD, stock=28)) == "discard 4s"


def test_goes_gin_and_big_gin() -> None:
    ginny = NEAR_GIN[:-2] + parse("9d Ah")  # 5c6c7c 6d7d8d9d ThJhQh and the Ah
    assert hard_move(table(ginny, "Td", Phase.DISCARD)) == "gin Ah"
    big = NEAR_GIN[:-2] + parse("9d Kh")
    assert hard_move(table(big, "Td", Phase.DISCARD)) == "big_gin"


def test_takes_the_last_discard_to_knock_under_the_fiftieth_card_rule() -> None:
    # Without the 9d: eight deadwood; the last discard, the 2h, lets the 8s go for a
    # knock with 2.  Passing would leave the hand void.
    options = gin.Options(fiftieth_card=True)
    mine = [c for c in KNOCKABLE if c != parse("9d")[0]]
    unseen = parse("Qc Jd Qd 5h 7h Js Qs 4d 6s 2c 9h Ad")  # his ten and the stock
    pile = format_cards([c for c in range(52) if c not in [*mine, *unseen, parse("2h")[0]]])
    pile += " 2h"  # the hand played out, the 2h thrown last
    state = table(mine, pile, Phase.FINAL_DISCARD, options=options, stock=2)
    assert {a["type"] for a in state.view(0)["legal"]} == {"draw_discard", "pass"}
    assert hard_move(state) == "draw_discard"


def test_oklahoma_low_limit_throws_toward_the_limit() -> None:
    # A three upcard: knocking needs 3 or less, so nine-and-eight must both go in time.
    state = table(KNOCKABLE, "Td", Phase.DISCARD, stock=25, knock_limit=3,
                  options=gin.Options(oklahoma=True))
    view = state.view(0)
    assert not any(a["type"] == "knock" for a in view["legal"])
    assert hard_move(state) == "discard 9d"


def test_the_same_view_gives_the_same_move() -> None:
    state = table(TWO_KINGS, "8c 9d", Phase.DISCARD, picked="Jh Qh", stock=20)
    view = state.view(0)
    first = hard.choose(view)
    assert hard.choose(copy.deepcopy(view)) == first == hard.choose(view)


# -- hints ---------------------------------------------------------------------------


def test_hint_names_the_meld_a_taken_card_makes() -> None:
    state = table(SEVENS, "2d 6h")
    view = state.view(0)
    action = hard.choose(view)
    assert hard.hint(view, action) == "take 6♥: it makes 3♥ 4♥ 5♥ 6♥"


def test_hint_for_a_discard_says_what_is_kept_and_the_deadwood() -> None:
    state = table(CONNECTOR, "7c 8d 9c 8s", Phase.DISCARD)
    view = state.view(0)
    text = hard.hint(view, hard.choose(view))
    assert text.startswith("throw 8♣: dead")
    assert "9♥ 10♥ for the run" in text and text.endswith("; 22 deadwood")
    assert len(text) <= 80


def test_hints_for_knock_gin_and_drawing_are_short_and_plain() -> None:
    cases = [table(KNOCKABLE, "Td", Phase.DISCARD, stock=29),
             table(NEAR_GIN[:-2] + parse("9d Ah"), "Td", Phase.DISCARD),
             table(SEVENS, "7h Qd"), table(SEVENS, "Qd", Phase.FIRST_UPCARD)]
    texts = []
    for state in cases:
        view = state.view(0)
        texts.append(hard.hint(view, hard.choose(view)))
    assert texts[0].startswith("knock with 8 deadwood")
    assert texts[1] == "gin: every card melded"
    assert texts[2] == "draw: Q♦ does not help; 33 deadwood"
    assert texts[3].startswith("pass: Q♦")
    assert all(0 < len(t) <= 80 for t in texts)


def test_hint_for_another_move_describes_it() -> None:
    view = table(SEVENS, "7h Qd").view(0)
    assert hard.hint(view, Action("draw_discard")) == "draw discard"


# -- whole matches --------------------------------------------------------------------


def play(options: gin.Options, seed: int, hard_seat: int) -> gin.GinState:
    """A match of the hard player against the normal one; every move must be legal."""
    state = gin.new_match(options, rng=random.Random(seed))
    while not state.is_over():
        seat = state.to_act
        view = state.view(seat)
        bot = hard.choose if seat == hard_seat else normal.choose
        action = bot(view)
        assert action.to_json() in view["legal"], (format_cards(state.hands[seat]), action)
        if seat == hard_seat:
            assert 0 < len(hard.hint(view, action)) <= 80
        state.apply(action)
    return state


def test_a_one_hand_match_plays_through() -> None:
    play(gin.Options.from_dict({"deals": 1}), seed=3, hard_seat=0)


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {"preset": "pagat"}, {"preset": "oklahoma"}, {"fiftieth_card": True},
    {"undercut_on_tie": False, "big_gin_bonus": 0}, {"preset": "oklahoma", "oklahoma_ace": "one"},
])
def test_every_option_plays_through(options: dict[str, object]) -> None:
    for seed in range(2):
        play(gin.Options.from_dict(options), seed=seed, hard_seat=seed % 2)


def test_a_card_taken_to_knock_is_followed_by_the_knock() -> None:
    # Three sets and 2h waiting, A♣ on the pile: the take "then knock" must knock, or a
    # second waiting player and this one trade aces and deuces from the pile for ever.
    me = parse("4s 4d 4c 5d 5c 5h 7c 7d 7h 2h")
    state = table(me, "8s 8h Ac", his="3h 6h As", picked="2d", stock=22)
    move = hard_move(state)
    if move == "draw_discard":
        state.apply(Action("draw_discard"))
        assert hard_move(state).startswith("knock"), "took the card to knock, then did not"
    else:
        assert move == "draw_stock"


def test_two_hard_players_finish_the_match_that_once_never_ended() -> None:
    # Seed 28: both waited with low deadwood, each took the other's ace or deuce "to
    # knock" and then did not knock, and the stock never shrank.
    state = gin.new_match(gin.Options(), rng=random.Random(28))
    for _ in range(3000):
        if state.is_over():
            break
        state.apply(hard.choose(state.view(state.current_player())))
    assert state.is_over()


@pytest.mark.slow
def test_beats_the_normal_player() -> None:
    # Seeded and deterministic: the same 40 matches every time, seats swapped per deal.
    won = sum(play(gin.Options(), seed=i // 2, hard_seat=i % 2).result()["winner"] == i % 2
              for i in range(40))
    assert won >= 25


def test_the_experts_worlds_give_the_opponent_a_hand_he_could_have_kept() -> None:
    from cardtable.bots.gin.hard_read import read, world_guess
    from cardtable.engine.games.gin.showdown import SOLVER

    kept, dealt = [], []
    for seed in range(40):
        state = get_game("gin").new_match(rng=random.Random(seed))
        while not (state.is_over() or get_game("gin").only_dealing(state)):
            view = state.view(state.current_player())
            if view["phase"] == "draw" and view["stock"] <= 20:
                break  # well into the hand: he has drawn a handful of cards
            state.apply(hard.choose(view))
        else:
            continue
        seat = view["seat"]
        reading = read(view)
        rng = random.Random(seed)
        guess = world_guess(reading, rng)
        assert len(guess) == reading.opp_hidden and set(guess) <= set(reading.unseen)
        world = state.resample(seat, rng, {1 - seat: guess})
        assert world.view(seat) == view
        assert reading.opp_picked <= set(world.hands[1 - seat])
        kept.append(SOLVER.deadwood(world.hands[1 - seat]))
        dealt.append(SOLVER.deadwood(state.resample(seat, rng).hands[1 - seat]))
    assert len(kept) >= 10
    # a hand kept from his draws melds; ten unseen cards dealt at random mostly do not
    assert sum(kept) / len(kept) < 0.6 * sum(dealt) / len(dealt)
