"""Spades hand scoring and the end of the match: every worked example of the rules file."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.engine.games import spades
from cardtable.engine.games.spades import Options, match_winner, score_player, score_side

STANDARD = Options()
CLASSIC = Options.preset("classic")


def test_the_issue_example_337_with_7_bags_bids_3_plus_2_and_takes_4_plus_4() -> None:
    assert score_side((3, 2), (4, 4), 7, STANDARD) == (-47, 0)  # +53, 10 bags: -100


@pytest.mark.parametrize(("taken", "score", "bags"), [(7, 389, 9), (8, 290, 0), (9, 291, 1)])
def test_vector_1_bags_roll_over_at_ten(taken: int, score: int, bags: int) -> None:
    # Side at 337 with 7 bags bids 5: 7 -> +52; 8 -> +53 -100; 9 -> +54 -100.
    points, after = score_side((3, 2), (4, taken - 4), 7, STANDARD)
    assert (337 + points, after) == (score, bags)


def test_vector_2_set_contract() -> None:
    assert score_side((4, 3), (3, 3), 0, STANDARD) == (-70, 0)


def test_vector_3_nil_made() -> None:
    assert score_side((0, 4), (0, 5), 0, STANDARD) == (141, 1)


def test_vector_4_nil_failed_and_its_variants() -> None:
    assert score_side((0, 4), (2, 3), 0, STANDARD) == (-138, 2)
    counted = Options(failed_nil_tricks="contract")
    assert score_side((0, 4), (2, 3), 0, counted) == (-59, 1)
    assert score_side((0, 4), (2, 3), 0, Options(failed_nil_tricks="nothing")) == (-140, 0)


def test_vector_5_blind_nil_made() -> None:
    assert score_side((0, 3), (0, 3), 0, STANDARD, blind=(True, False)) == (230, 0)
    assert score_side((3, 0), (3, 0), 0, STANDARD, blind=(False, True)) == (230, 0)


def test_vector_6_both_nil_take_all_thirteen_with_nine_bags() -> None:
    points, bags = score_side((0, 0), (6, 7), 9, STANDARD)
    assert (points, bags) == (-387, 2)  # -200 nils, +13 bags, 22 bags: -200


def test_vector_7_game_end_and_ties() -> None:
    assert match_winner([480 + 50, 470 + 40], STANDARD) == 0
    assert match_winner([495 + 10, 495 + 10], STANDARD) is None  # tie at the top: play on
    assert match_winner([499, 120], STANDARD) is None
    assert match_winner([500, 120], STANDARD) == 0
    assert match_winner([510, 530, 100], STANDARD) == 1  # three players: the highest wins


def test_mercy_rule_ends_the_match_for_the_side_behind() -> None:
    mercy = Options(mercy=200)
    assert match_winner([-200, 150], mercy) == 1
    assert match_winner([-199, 150], mercy) is None
    assert match_winner([-200, 150], STANDARD) is None
    assert match_winner([-250, -210], mercy) == 1  # both sunk: the higher score wins


def test_classic_nil_and_blind_nil_values() -> None:
    assert score_side((0, 4), (0, 4), 0, CLASSIC) == (90, 0)
    assert score_side((0, 4), (1, 4), 0, CLASSIC) == (-50 + 41, 1)  # tricks count for partner
    assert score_side((0, 3), (0, 3), 0, CLASSIC, blind=(True, False)) == (130, 0)
    assert score_side((0, 3), (2, 3), 0, CLASSIC, blind=(True, False)) == (-100 + 32, 2)


def test_nil_with_both_partners_nil_and_no_contract() -> None:
    assert score_side((0, 0), (0, 0), 0, STANDARD) == (200, 0)
    assert score_side((0, 0), (0, 3), 0, CLASSIC) == (50 - 50 + 3, 3)  # all overtricks
    assert score_side((0, 0), (0, 3), 0, Options(failed_nil_tricks="nothing")) == (0, 0)


def test_bag_penalty_variants() -> None:
    fifty_per_five = Options(bag_limit=5, bag_penalty=50)
    assert score_side((3, 2), (4, 4), 2, fifty_per_five) == (50 + 3 - 50, 0)
    assert score_side((3, 2), (4, 4), 7, Options(bag_penalty=0)) == (53, 0)
    no_points = Options(bags_score=False)
    assert score_side((3, 2), (4, 4), 0, no_points) == (50, 3)
    assert score_side((3, 2), (4, 4), 7, no_points) == (-50, 0)


def test_ten_for_two_hundred() -> None:
    ten = Options(ten_for_two_hundred=True)
    assert score_side((6, 4), (6, 5), 0, ten) == (201, 1)
    assert score_side((6, 4), (5, 4), 0, ten) == (-200, 0)
    assert score_side((5, 4), (5, 4), 0, ten) == (90, 0)  # 9 is an ordinary contract
    assert score_side((6, 4), (6, 5), 0, STANDARD) == (101, 1)


def test_a_lone_player_is_a_side_of_one() -> None:
    assert score_player(4, 6, 0, STANDARD) == (42, 2)
    assert score_player(4, 3, 0, STANDARD) == (-40, 0)
    assert score_player(0, 0, 0, STANDARD) == (100, 0)
    assert score_player(0, 2, 8, STANDARD) == (-100 + 2 - 100, 0)
    assert score_player(0, 0, 0, STANDARD, blind=True) == (200, 0)
    assert score_player(0, 2, 0, CLASSIC) == (-50 + 2, 2)  # no partner: they are overtricks
    assert score_side((4,), (6,), 0, STANDARD) == score_player(4, 6, 0, STANDARD)


def test_a_side_is_one_or_two_players() -> None:
    with pytest.raises(ValueError, match="one or two players"):
        score_side((1, 2, 3), (1, 2, 3), 0, STANDARD)


def test_the_itemised_score_adds_up() -> None:
    item = spades.side_score((0, 4), (2, 3), 9, STANDARD)
    assert (item.contract, item.contract_tricks, item.contract_points) == (4, 3, -40)
    assert (item.nil_points, item.bags, item.bag_points, item.penalty) == (-100, 2, 2, -100)
    assert item.points == -238 and item.bags_after == 1
    assert item.to_json()["points"] == -238


hands = st.tuples(st.integers(0, 13), st.integers(0, 13), st.integers(0, 13), st.booleans())


@given(st.lists(hands, min_size=1, max_size=30))
def test_with_standard_scoring_the_last_digit_is_the_bag_count(
        rows: list[tuple[int, int, int, bool]]) -> None:
    # Contracts, nils and penalties move the score in tens; only bags move the units.
    score, bags = 0, 0
    for first, second, taken, blind in rows:
        tricks = (taken, 13 - taken)
        points, bags = score_side((first, second), tricks, bags, STANDARD, (blind, False))
        score += points
        assert score % 10 == bags
        assert 0 <= bags < 10
