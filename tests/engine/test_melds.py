import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.engine.cards import JOKER, format_cards, parse
from cardtable.engine.melds import InvalidMeld, MeldRules, Solver, make_meld
from conftest import brute_force_deadwood

GIN = Solver()
hands = st.lists(st.integers(0, 51), min_size=0, max_size=11, unique=True)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("3h 4h 5h", "run"), ("Ah 2h 3h", "run"), ("7c 7d 7s", "set"), ("7c 7d 7s 7h", "set"),
     ("9d Td Jd Qd Kd", "run")],
)
def test_valid_melds(text: str, kind: str) -> None:
    assert make_meld(parse(text)).kind == kind


@pytest.mark.parametrize(
    ("text", "reason"),
    [("Qs Ks As", "a run needs three cards of one suit in sequence"),
     ("Ks As 2s", "a run needs three cards of one suit in sequence"),
     ("3h 4h 6h", "a run needs three cards of one suit in sequence"),
     ("3h 4h", "at least 3 cards"),
     ("7c 7c 7d", "different suits"),
     ("Jk Jk Jk", "natural card")],
)
def test_invalid_melds_say_why(text: str, reason: str) -> None:
    with pytest.raises(InvalidMeld, match=reason):
        make_meld(parse(text))


def test_ace_options() -> None:
    high = MeldRules(ace_high=True)
    around = MeldRules(around_corner=True)
    assert make_meld(parse("Qs Ks As"), high).stands_for == tuple(parse("Qs Ks As"))
    with pytest.raises(InvalidMeld):
        make_meld(parse("Ks As 2s"), high)
    assert format_cards(make_meld(parse("2s Ks As"), around).cards) == "Ks As 2s"


def test_jokers_stand_for_named_cards() -> None:
    meld = make_meld(parse("5d Jk 7d"))
    assert format_cards(meld.cards) == "5d Jk 7d" and format_cards(meld.stands_for) == "5d 6d 7d"
    up = make_meld(parse("5d 6d Jk"))
    assert format_cards(up.stands_for) == "5d 6d 7d"  # a joker at the end extends upwards
    top = make_meld(parse("Qd Kd Jk"))
    assert format_cards(top.stands_for) == "Jd Qd Kd"  # ... unless the king is on top
    group = make_meld(parse("8c Jk 8s"))
    assert group.kind == "set" and format_cards(group.stands_for) == "8c 8s 8d"
    assert JOKER in group.cards


def test_greedy_is_wrong_and_the_solver_is_not() -> None:
    # 7s 7h 7d | 5s 6s 8s: the set first leaves 5+6+8 = 19; the run 5-8 leaves 7+7 = 14.
    melding = GIN.best_melding(parse("7s 7h 7d 5s 6s 8s"))
    assert melding.points == 14
    assert [format_cards(m) for m in melding.melds] == ["5s 6s 7s 8s"]


@settings(max_examples=400, deadline=None)
@given(hands)
def test_solver_matches_brute_force(hand: list[int]) -> None:
    assert GIN.deadwood(hand) == brute_force_deadwood(hand)
    melding = GIN.best_melding(hand)
    assert melding.points == GIN.deadwood(hand)
    assert sorted([c for m in melding.melds for c in m] + list(melding.deadwood)) == sorted(hand)
    for meld in melding.melds:
        make_meld(meld)  # every meld is legal
    assert sum(min(c % 13 + 1, 10) for c in melding.deadwood) == melding.points


@settings(max_examples=150, deadline=None)
@given(hands, st.sampled_from([MeldRules(ace_high=True), MeldRules(around_corner=True)]))
def test_ace_option_solvers_match_brute_force(hand: list[int], rules: MeldRules) -> None:
    solver = Solver(rules)
    expected = brute_force_deadwood(hand, ace_high=True, around=rules.around_corner)
    assert solver.deadwood(hand) == expected
    for meld in solver.best_melding(hand).melds:
        make_meld(meld, rules)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=11, max_size=11, unique=True))
def test_best_discard_without_eleven_solves(hand: list[int]) -> None:
    each = {c: GIN.deadwood([x for x in hand if x != c]) for c in hand}
    points, card = GIN.best_discard(hand)
    assert points == min(each.values()) == each[card]
    assert GIN.deadwood_after_each_discard(hand) == each


def test_meld_rich_hands() -> None:
    rng = random.Random(9)
    for _ in range(200):
        suit = rng.randrange(4)
        hand = sorted({suit * 13 + r for r in rng.sample(range(13), 7)}
                      | set(rng.sample(range(52), 4)))[:10]
        assert GIN.deadwood(hand) == brute_force_deadwood(hand)
