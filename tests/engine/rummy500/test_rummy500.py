"""Rummy 500: the six test vectors of shared/rules/rummy500.md, played through the engine."""

from __future__ import annotations

import random

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import JOKER, card, parse
from cardtable.engine.games import rummy500
from cardtable.engine.games.rummy500.scoring import ACE_RULES
from cardtable.engine.melds import InvalidMeld, make_meld
from cardtable.engine.tablemelds import extend, lay
from rummy500_deals import NORTH_3, SOUTH_3, rigged, set_pile

HIGH = ACE_RULES["high_or_low"]


def act(state: rummy500.Rummy500State, text: str) -> list[str]:
    return [e.type for e in state.apply(Action.parse(text))]


def legal(state: rummy500.Rummy500State) -> set[str]:
    return {str(a) for a in state.legal_actions()}


# -- 1. values -------------------------------------------------------------------------------


@pytest.mark.parametrize(("meld", "points", "represented"), [
    ("Ah 2h 3h", 6, 6),            # the ace low in a run counts 1
    ("Qh Kh Ah", 35, 35),          # high: 15
    ("As Ad Ac", 45, 45),          # in a group: 15
    ("5d 6d Jk", 26, 18),          # the joker is the 7d: 15, or 7 as the card it stands for
])
def test_vector_1_values(meld: str, points: int, represented: int) -> None:
    assert rummy500.meld_points(parse(meld)) == points
    assert rummy500.meld_points(parse(meld), rummy500.Options(joker_value="represented")) \
        == represented


def test_vector_1_values_on_the_table() -> None:
    #   North  Ah 2h 3h  Qd Kd Ad  5c 9s 4s 8c 7d 2c Tc      the ace low: 1, the ace high: 15
    #   South  2s 3s 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s
    state = rigged(["Ah 2h 3h Qd Kd Ad 5c 9s 4s 8c 7d 2c Tc",
                    "2s 3s 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s"], "Jc", "Ks")
    act(state, "draw_stock")
    act(state, "meld cards=Ah2h3h")
    act(state, "meld cards=QdKdAd")
    assert state.view(None)["table_points"] == [6 + 35, 0]


# -- 2. end of a hand: table minus hand, lay-offs to whoever laid them -----------------------

# Three players, C (seat 2) deals, A (seat 0) plays first.
#
#   A  Ks Qs Js  7c 7d 7h  Tc
#   B  As  9c 9d 9h  4h 5h 6h
#   C  3c 4c 5c  5d  Kc Qd 8s        upcard 2d, stock from the top: Jk 3h 2s 9s
HANDS_2 = ["Ks Qs Js 7c 7d 7h Tc", "As 9c 9d 9h 4h 5h 6h", "3c 4c 5c 5d Kc Qd 8s"]


def test_vector_2_a_hand_scored() -> None:
    state = rigged(HANDS_2, "2d", "Jk 3h 2s 9s")
    act(state, "draw_stock")                     # A: the joker
    act(state, "meld cards=JsQsKs")              # meld 1
    act(state, "discard 7h")
    act(state, "draw_stock")                     # B: 3h
    act(state, "meld cards=9c9d9h")              # meld 2
    act(state, "discard As")
    act(state, "draw_stock")                     # C: 2s
    act(state, "meld cards=3c4c5c")              # meld 3
    act(state, "discard 5d")                     # pile: 2d 7h As 5d
    act(state, "draw_discard 3")                 # A takes 7h As 5d; the 7h must be used
    act(state, "meld cards=7c7d7h")              # meld 4
    act(state, "lay_off As meld=1")              # J-Q-K-A of spades: the ace is high
    act(state, "discard Tc")                     # A keeps 5d Jk
    act(state, "draw_stock")                     # B: 9s
    act(state, "meld cards=3h4h5h6h")
    assert act(state, "lay_off 9s meld=2")[-1] == "hand_over"   # B is out
    row = state.history[-1]
    assert row["winner"] == 1 and not row["blocked"]
    assert row["melded"] == [30 + 21 + 15, 27 + 18 + 9, 12]
    assert row["values"] == [5 + 15, 0, 10 + 10 + 8 + 2]
    assert row["points"] == [46, 54, -18] and state.scores == [46, 54, -18]
    assert state.table[0].laid_by == (0, 0, 0, 0)  # the ace laid off is A's


def test_vector_2_going_out_bonus() -> None:
    state = rigged(HANDS_2, "2d", "Jk 3h 2s 9s", options={"going_out_bonus": 10})
    for move in ["draw_stock", "meld cards=JsQsKs", "discard 7h", "draw_stock",
                 "meld cards=9c9d9h", "discard As", "draw_stock", "meld cards=3c4c5c",
                 "discard 5d", "draw_discard 3", "meld cards=7c7d7h", "lay_off As meld=1",
                 "discard Tc", "draw_stock", "meld cards=3h4h5h6h", "lay_off 9s meld=2"]:
        act(state, move)
    assert state.scores == [46, 64, -18]


# -- 3. the pickup: the deepest card taken must be used this turn ------------------------------

#   North  9s 9h  Kc Qd 8h 6c 2s 3h Td 7c 4d Ad Kh     pile (bottom to top) 4c 9d 5s Jh 2d


def pickup_state() -> rummy500.Rummy500State:
    state = rigged([NORTH_3, SOUTH_3], "Ts", "3s")
    set_pile(state, "4c 9d 5s Jh 2d")
    return state


def test_vector_3_the_pickup_offers_only_usable_depths() -> None:
    state = pickup_state()
    # the 2d alone is free; the 9d (4 cards) makes 9s 9h 9d; 4c, 5s and Jh fit nothing
    assert legal(state) == {"draw_stock", "draw_discard", "draw_discard 4"}
    with pytest.raises(IllegalAction, match="could not put 4c on the table"):
        act(state, "draw_discard 5")


def test_vector_3_the_deepest_card_must_be_melded() -> None:
    state = pickup_state()
    act(state, "draw_discard 4")
    assert state.discard == [card("4c")]
    assert sorted(state.picked[0]) == sorted(parse("9d 5s Jh 2d"))
    assert state.view(0)["must_place"] == ["9d"]
    assert legal(state) == {"meld cards=9d9h9s"}  # no discard, nothing else first
    with pytest.raises(IllegalAction, match="must first use 9d"):
        act(state, "discard 2d")
    act(state, "meld cards=9h9s9d")
    assert "discard 2d" in legal(state)  # the other picked cards are ordinary cards now


# -- 4. illegal melds and lay-offs ----------------------------------------------------------


def test_vector_4_illegal_melds() -> None:
    with pytest.raises(InvalidMeld):
        make_meld(parse("Kh Ah 2h"), HIGH)  # no round the corner by default
    with pytest.raises(InvalidMeld, match="different suits"):
        make_meld(parse("7h 7h 7s"), HIGH)  # two packs: a suit repeated
    with pytest.raises(InvalidMeld, match="does not extend"):
        extend(lay(1, 0, parse("Ah 2h 3h"), HIGH), card("Kh"), 1, HIGH)  # its ace is low
    with pytest.raises(InvalidMeld, match="does not extend"):
        extend(lay(1, 0, parse("Qh Kh Ah"), HIGH), card("2h"), 1, HIGH)  # nothing past an ace


def test_vector_4_the_engine_refuses_them() -> None:
    # Five players, two packs; West (seat 0) plays first and lays A-2-3 and Q-K-A of hearts.
    #   West   Ah 2h 3h  Qh Kh Ah  9c
    #   North  7h 7h 7s  Kh 2h  Ks 2s      draws the As: K-A-2 of spades is no run
    #   (seats 2-4 hold nothing that matters)   upcard Js, stock: Kd As
    hands = ["Ah 2h 3h Qh Kh Ah 9c", "7h 7h 7s Kh 2h Ks 2s", "Jc Jd 4s 5s 8c 6d Tc",
             "3c 4c 5c 6c Qd Qs 9s", "2c 3d 4d 5d 8s Ts Td"]
    state = rigged(hands, "Js", "Kd As")
    act(state, "draw_stock")
    act(state, "meld cards=Ah2h3h")
    act(state, "meld cards=QhKhAh")
    act(state, "discard 9c")
    act(state, "draw_stock")  # North: As
    moves = state.legal_actions()
    assert not [a for a in moves if a.type in ("meld", "lay_off")]
    with pytest.raises(IllegalAction, match="different suits"):
        act(state, "meld cards=7h7h7s")
    with pytest.raises(IllegalAction, match="one suit in sequence"):
        act(state, "meld cards=KsAs2s")
    with pytest.raises(IllegalAction, match="does not extend"):
        act(state, "lay_off Kh meld=1")  # its ace is low: nothing below it
    with pytest.raises(IllegalAction, match="does not extend"):
        act(state, "lay_off 2h meld=2")  # its ace is high: nothing above it


def test_vector_4_nothing_above_a_high_ace_with_one_pack() -> None:
    state = rigged(["Qh Kh Ah 5c 9s 4s 8c 7d 2c Tc 3s 6s Jc",
                    "2s 3h 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s"], "Jd", "Ks 2h")
    act(state, "draw_stock")
    act(state, "meld cards=QhKhAh")
    act(state, "discard Ks")
    act(state, "draw_stock")  # South: 2h
    assert not [a for a in state.legal_actions() if a.type == "lay_off"]
    with pytest.raises(IllegalAction, match="does not extend"):
        act(state, "lay_off 2h meld=1")


# -- 5. the end of the match ------------------------------------------------------------------


def _hand_ends(scores: list[int]) -> rummy500.Rummy500State:
    """A +35 (Q-K-A of hearts, out), B +50 (5555 and T-J-Q of clubs), from ``scores``."""
    state = rummy500.new_match(rummy500.Options(), 2, random.Random(5))
    state.scores = list(scores)
    state.table = [lay(1, 0, parse("Qh Kh Ah"), HIGH), lay(2, 1, parse("5c 5d 5h 5s"), HIGH),
                   lay(3, 1, parse("Tc Jc Qc"), HIGH)]
    state.hands = [[], []]
    state._end_hand(0)
    return state


def test_vector_5_highest_total_wins() -> None:
    state = _hand_ends([480, 470])
    assert state.history[-1]["points"] == [35, 50]
    assert state.scores == [515, 520]
    assert state.is_over() and state.result()["winners"] == [1]


def test_vector_5_a_tie_for_highest_plays_on() -> None:
    state = _hand_ends([480, 465])
    assert state.scores == [515, 515]
    assert not state.is_over() and state.phase is rummy500.Phase.HAND_OVER
    assert legal(state) == {"deal"}


def test_vector_5_below_the_target_plays_on() -> None:
    state = _hand_ends([0, 0])
    assert not state.is_over()


# -- 6. two packs: a group holds each suit once ---------------------------------------------


def test_vector_6_a_group_of_four_is_full() -> None:
    group = lay(1, 0, parse("8c 8d 8h 8s"), HIGH)
    for fifth in (card("8c"), JOKER):
        with pytest.raises(InvalidMeld, match="at most 4"):
            extend(group, fifth, 1, HIGH)


def test_vector_6_in_a_five_player_game() -> None:
    # North lays 8c 8d 8h 8s; East holds the other pack's 8c and a joker: neither goes on.
    hands = ["8c 8d 8h 8s 2c 3d Kh", "8c Jk 4h 9s Td Qc 6d", "Ac 2d 3s 5h 7c 9h Js",
             "Ad 2h 4c 6s 7d Th Qs", "As 3c 4d 5s 6h 9c Jh"]
    state = rigged(hands, "Kc", "Kd")
    act(state, "draw_stock")
    act(state, "meld cards=8c8d8h8s")
    act(state, "discard Kd")
    act(state, "draw_stock")
    assert not [a for a in state.legal_actions() if a.type == "lay_off"]
    with pytest.raises(IllegalAction, match="at most 4"):
        act(state, "lay_off 8c meld=1")
    with pytest.raises(IllegalAction, match="at most 4"):
        act(state, "lay_off Jk meld=1")
