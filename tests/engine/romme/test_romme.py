"""German Rommé: the six test vectors of shared/rules/romme.md, played through the engine.

Deals are fixed (tests/romme_deals.py): the dealer is seat 0, holds 14 cards and
opens the hand without drawing; seat 1 plays next.
"""

from __future__ import annotations

import random

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import JOKER, parse
from cardtable.engine.games import romme
from cardtable.engine.melds import InvalidMeld, make_meld
from romme_deals import act, legal_text, meld_id, rigged

JUNK = "2d 4c 9s Tc 5h 3s 8d Jc"


def value(state: romme.RommeState, cards: str) -> int:
    return state.meld_value(make_meld(parse(cards), state.meld_rules()).stands_for)


def meld_action(*groups: str) -> Action:
    return Action("meld", melds=tuple(sorted(tuple(sorted(parse(g))) for g in groups)))


# -- 1. coming out needs 40 melding points --------------------------------------------------

# seat 0 (dealer)  Qh Kh Ah | 7c 7d 7s | 2d 4c 9s Tc 5h 3s 8d Jc
# seat 1           5c 6d 8s Js Qc 3h 6h 9d Kc Kd 2s 4d Th
OPENER = f"Qh Kh Ah 7c 7d 7s {JUNK}"
QUIET = "5c 6d 8s Js Qc 3h 6h 9d Kc Kd 2s 4d Th"


def test_vector_1_first_meld_of_40() -> None:
    state = rigged([OPENER, QUIET])
    assert state.phase.value == "play" and not legal_text(state, "draw_stock")  # no draw
    assert state.view(0)["first_meld"] == 40
    assert value(state, "Qh Kh Ah") == 31 and value(state, "7c 7d 7s") == 21
    with pytest.raises(IllegalAction, match="your first meld is 31 points; 40 are needed"):
        act(state, "meld melds=QhKhAh")
    with pytest.raises(IllegalAction, match="together in one move"):
        act(state, "meld cards=QhKhAh")
    assert meld_action("Qh Kh Ah") not in state.legal_actions()
    assert meld_action("Qh Kh Ah", "7c 7d 7s") in state.legal_actions()
    act(state, "meld melds=QhKhAh/7c7d7s")  # 31 + 21 = 52
    assert len(state.table) == 2 and state.has_melded[0] and state.view(0)["first_meld"] == 0
    act(state, "discard 2d")  # the dealer's discard starts the pile
    assert state.current_player() == 1 and state.discard == parse("2d")


# -- 2. jokers count as the card they stand for; an ace low counts 1 ------------------------

# seat 0 (dealer)  Qs As Jk | 4h 4c 4d | 2c 6h 8s 9h Tc 3s 7c 5d
QS_JK_AS = "Qs As Jk 4h 4c 4d 2c 6h 8s 9h Tc 3s 7c 5d"


def test_vector_2_melding_values() -> None:
    state = rigged([QS_JK_AS, QUIET])
    assert value(state, "Ad Jk 3d 4d") == 1 + 2 + 3 + 4
    assert value(state, "Jd Jk Kd") == 30
    assert value(state, "Qs Jk As") == 10 + 10 + 11
    assert value(state, "Ac Ad Ah") == 33  # a set of aces: 11 each
    worth = {" ".join(c["cards"]): c["value"] for c in state.view(0)["candidates"]}
    assert worth["As Qs Jk"] == 31 and worth["4c 4d 4h"] == 12


@pytest.mark.parametrize(("first_meld", "alone"), [(30, True), (40, False)])
def test_vector_2_qs_jk_as_comes_out_under_30_only(first_meld: int, alone: bool) -> None:
    state = rigged([QS_JK_AS, QUIET], options={"first_meld": first_meld})
    assert (meld_action("Qs Jk As") in state.legal_actions()) is alone
    if alone:
        act(state, "meld melds=QsJkAs")
    else:
        with pytest.raises(IllegalAction, match="31 points; 40 are needed"):
            act(state, "meld melds=QsJkAs")
        act(state, "meld melds=QsJkAs/4h4c4d")  # 31 + 12 = 43
    assert state.has_melded[0]


def test_the_candidate_view_counts_jokers_as_what_they_replace() -> None:
    # seat 0 (dealer)  Ad 3d 4d | Jd Kd | Jk | 5c 7s 9c 2h 6s 8h Ts Qc
    state = rigged(["Ad 3d 4d Jd Kd Jk 5c 7s 9c 2h 6s 8h Ts Qc", QUIET])
    worth = {" ".join(c["cards"]): c["value"] for c in state.view(0)["candidates"]}
    assert worth["Ad 3d 4d Jk"] == 10 and worth["Jd Kd Jk"] == 30


# -- 3. illegal melds -------------------------------------------------------------------------


def test_vector_3_illegal_melds() -> None:
    state = rigged([OPENER, QUIET])
    rules = state.meld_rules()
    with pytest.raises(InvalidMeld):
        make_meld(parse("Kc Ac 2c"), rules)
    with pytest.raises(InvalidMeld, match="different suits"):
        make_meld(parse("9c 9c 9h"), rules)
    with pytest.raises(InvalidMeld, match="natural card"):
        make_meld(parse("Jk Jk Jk"), rules)
    around = rigged([OPENER, QUIET], options={"king_ace_two": True}).meld_rules()
    assert make_meld(parse("Kc Ac 2c"), around).kind == "run"


def test_vector_3_illegal_melds_are_refused_at_the_table() -> None:
    # seat 0 (dealer)  9c 9c 9h | Jk Jk Jk | Kc Ac 2c | Qh Qd Qs | 5h 7d
    state = rigged(["9c 9c 9h Jk Jk Jk Kc Ac 2c Qh Qd Qs 5h 7d", QUIET])
    for melds, reason in [("9c9c9h/QhQdQs", "different suits"),
                          ("JkJkJk/QhQdQs", "natural card"),
                          ("KcAc2c/QhQdQs", "in sequence")]:
        with pytest.raises(IllegalAction, match=reason):
            act(state, f"meld melds={melds}")
    melds = [m for a in state.legal_actions() for m in a.melds]
    assert tuple(sorted(parse("Kc Ac 2c"))) not in melds
    assert all(m.count(JOKER) < len(m) for m in melds)
    assert all(len({c for c in m if c < JOKER}) == sum(c < JOKER for c in m) for m in melds
               if len({c % 13 for c in m if c < JOKER}) == 1)  # no set holds a card twice


def test_king_ace_two_option_lists_the_corner_run() -> None:
    state = rigged(["9c 9c 9h Jk Jk Jk Kc Ac 2c Qh Qd Qs 5h 7d", QUIET],
                   options={"king_ace_two": True})
    assert value(state, "Kc Ac 2c") == 10 + 1 + 2  # the ace plays low, before the 2
    act(state, "meld melds=KcAc2c/QhQdQs")  # 13 + 30 = 43
    assert state.table[0].kind == "run"


# -- 4. joker exchange ----------------------------------------------------------------------------

# seat 0 (dealer)  Jd Jk Kd | 7c 7d 7s | 2c 4h 6s 8h 3d 5s 9c Ac
# seat 1           Tc Jc Qc Kc | Qd | 9s 9h | 2d 4s 6h 8c 3h 5d
SWAP_DEALER = "Jd Jk Kd 7c 7d 7s 2c 4h 6s 8h 3d 5s 9c Ac"
SWAP_TAKER = "Tc Jc Qc Kc Qd 9s 9h 2d 4s 6h 8c 3h 5d"


def test_vector_4_joker_exchange() -> None:
    state = rigged([SWAP_DEALER, SWAP_TAKER], stock="2h")
    act(state, "meld melds=JdJkKd/7c7d7s", "discard 8h", "draw_stock")
    run = meld_id(state, "Jd Jk Kd")
    assert not legal_text(state, "swap_joker")  # not out yet
    with pytest.raises(IllegalAction, match="exchange jokers"):
        act(state, f"swap_joker Qd meld={run}")
    act(state, "meld melds=TcJcQcKc")  # out with 40; the same turn goes on
    assert legal_text(state, "swap_joker") == [f"swap_joker Qd meld={run}"]
    act(state, f"swap_joker Qd meld={run}")
    assert [m.cards for m in state.table if m.id == run] == [tuple(parse("Jd Qd Kd"))]
    assert state.must_place == [JOKER] and JOKER in state.hands[1]
    assert not legal_text(state, "discard")
    with pytest.raises(IllegalAction, match="first use Jk"):
        act(state, "discard 2d")
    placements = legal_text(state, "meld") + legal_text(state, "lay_off")
    assert placements and all("Jk" in p for p in placements)
    assert "meld cards=9h9sJk" in placements
    act(state, "meld cards=9s9hJk")
    assert state.must_place == [] and "discard 2d" in legal_text(state, "discard")


# seat 0 (dealer)  Jd Qd Kd Jk | 7c 7d 7s | 2d 4c 9s Tc 5h 3s 8d
def test_a_joker_may_stand_for_a_card_the_player_holds() -> None:
    state = rigged([f"Jd Qd Kd Jk 7c 7d 7s {JUNK[:-3]}", QUIET])
    assert meld_action("Jd Jk Kd", "7c 7d 7s") in state.legal_actions()  # 30 + 21
    act(state, "meld melds=JdJkKd/7c7d7s")
    run = next(m for m in state.table if JOKER in m.cards)
    assert run.stands_for == tuple(parse("Jd Qd Kd")) and parse("Qd")[0] in state.hands[0]


# seat 0 (dealer)  9c 9h Jk | 8c 8h 8d Jk | Kd Kh Ks | 2c 4d 6s Qh
# seat 1           Tc Jc Qc Kc | 9d 9s 8d 8s | 2h 4h 6c 3s 5d
def test_exchange_in_a_set_of_three_takes_either_missing_suit_a_set_of_four_the_card() -> None:
    state = rigged(["9c 9h Jk 8c 8h 8d Jk Kd Kh Ks 2c 4d 6s Qh",
                    "Tc Jc Qc Kc 9d 9s 8d 8s 2h 4h 6c 3s 5d"], stock="7h")
    act(state, "meld melds=9c9hJk/8c8h8dJk/KdKhKs", "discard Qh", "draw_stock",
        "meld melds=TcJcQcKc")
    three, four = meld_id(state, "9c 9h Jk"), meld_id(state, "8c 8h 8d Jk")
    assert sorted(legal_text(state, "swap_joker")) == sorted([
        f"swap_joker 9d meld={three}", f"swap_joker 9s meld={three}",
        f"swap_joker 8s meld={four}"])
    with pytest.raises(IllegalAction, match="stands for 8s, not 8d"):
        act(state, f"swap_joker 8d meld={four}")


def test_one_exchange_at_a_time() -> None:
    state = rigged(["9c 9h Jk 8c 8h 8d Jk Kd Kh Ks 2c 4d 6s Qh",
                    "Tc Jc Qc Kc 9d 9s 8d 8s 2h 4h 6c 3s 5d"], stock="7h")
    act(state, "meld melds=9c9hJk/8c8h8dJk/KdKhKs", "discard Qh", "draw_stock",
        "meld melds=TcJcQcKc")
    act(state, f"swap_joker 8s meld={meld_id(state, '8c 8h 8d Jk')}")
    assert not legal_text(state, "swap_joker")  # the freed joker goes back first
    act(state, f"lay_off Jk meld={meld_id(state, '9c 9h Jk')}")
    assert legal_text(state, "swap_joker")


# -- 5. scoring ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("hand_romme", "points"), [(False, [0, 40, 12]), (True, [0, 80, 24])])
def test_vector_5_penalties(hand_romme: bool, points: list[int]) -> None:
    # A (seat 0) is out; B holds Jk Ac 9h = 20 + 11 + 9; C holds Ks 2d = 12.
    state = romme.new_match(romme.Options(), 3, random.Random(1))
    state.hands = [[], parse("Jk Ac 9h"), parse("Ks 2d")]
    state.has_melded = [True, True, True]
    state.laid_earlier[0] = not hand_romme
    state._end_hand(0)
    row = state.history[-1]
    assert row["values"] == [0, 40, 12] and row["hand_romme"] is hand_romme
    assert row["points"] == points and state.scores == points


def test_vector_5_hand_romme_on_the_dealers_opening_turn() -> None:
    # seat 0 (dealer)  Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc | 2d
    # seat 1           Jk Ah 9h | 5s 6s 7s 8s | Kd Kh | 2h 3h 4d 6d       = 101
    # seat 2           Ks 2s 3s 4s 5d 7d 8d 9d Td Jd Qd Ad 3d               = 92
    state = rigged(["Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d",
                    "Jk Ah 9h 5s 6s 7s 8s Kd Kh 2h 3h 4d 6d",
                    "Ks 2s 3s 4s 5d 7d 8d 9d Td Jd Qd Ad 3d"])
    act(state, "meld melds=Ac2c3c4c5c6c7c8c9cTcJcQcKc", "discard 2d")
    row = state.history[-1]
    assert row["winner"] == 0 and row["hand_romme"] and row["multiplier"] == 2
    assert row["values"] == [0, 101, 92] and row["points"] == [0, 202, 184]


# -- 6. no lay-off before coming out ---------------------------------------------------------------

# seat 0 (dealer)  Jh Qh Kh | 8c 8d 8s | 2c 4d 6s 9h 3d 5s 9c Ac
# seat 1           Th | Tc Jc Qc Kc | 2d 4s 6h 8h 3h 5d 7s Qs
def test_vector_6_no_lay_off_before_coming_out() -> None:
    state = rigged(["Jh Qh Kh 8c 8d 8s 2c 4d 6s 9h 3d 5s 9c Ac",
                    "Th Tc Jc Qc Kc 2d 4s 6h 8h 3h 5d 7s Qs"], stock="2h")
    act(state, "meld melds=JhQhKh/8c8d8s", "discard 2c", "draw_stock")
    assert not legal_text(state, "lay_off")
    run = meld_id(state, "Jh Qh Kh")
    with pytest.raises(IllegalAction, match="before you have melded"):
        act(state, f"lay_off Th meld={run}")
    act(state, "meld melds=TcJcQcKc")  # coming out, then laying off, in one turn
    assert f"lay_off Th meld={run}" in legal_text(state, "lay_off")
    act(state, f"lay_off Th meld={run}")
    assert meld_id(state, "Th Jh Qh Kh") == run
