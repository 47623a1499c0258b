"""Indian Rummy: the arranger (exact, cross-checked by brute force) and the rules file's
test vectors 1-5 and 7 at the level of one hand (vector 6 is a deal: test_indian_match)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.engine.cards import JOKER, format_cards, parse
from cardtable.engine.games.indian import (
    Options,
    Rules,
    arrangement,
    card_value,
    finish_cards,
    hand_points,
    valid_show,
)
from cardtable.engine.games.indian.arrange import count, show, solve
from cardtable.engine.melds import InvalidMeld, MeldRules, best_meld, make_meld

SEVENS = 6  # the wild rank index when the cut card is a seven
RULES = Rules()


def kinds(text: str, wild: int | None, rules: Rules = RULES) -> list[tuple[str, str]]:
    return [(g["kind"], " ".join(g["cards"]))
            for g in arrangement(parse(text), wild, rules)["groups"]]


# -- the rules file's test vectors ----------------------------------------------------------


def test_vector_1_a_valid_show_with_a_wild_seven_and_a_printed_joker() -> None:
    # wild = 7 (the cut card is a seven)
    #   3h 4h 5h        pure sequence
    #   9s Ts 7d Qs     impure sequence: the 7d stands for the Js
    #   Kc Kd Kh        set
    #   2c 2d Jk        set: the printed joker stands for a third two
    hand = "3h 4h 5h 9s Ts 7d Qs Kc Kd Kh 2c 2d Jk"
    assert valid_show(parse(hand), SEVENS, RULES)
    a = arrangement(parse(hand), SEVENS, RULES, declared=True)
    assert a["count"] == 0 and a["lives"] and a["loose"] == []
    impure = next(g for g in a["groups"] if g["kind"] == "impure")
    assert impure["cards"] == ["9s", "Ts", "7d", "Qs"]
    assert impure["stands_for"] == ["9s", "Ts", "Js", "Qs"]
    assert sorted(len(g["cards"]) for g in a["groups"]) == [3, 3, 3, 4]


def test_vector_2_two_impure_sequences_and_two_sets_are_a_wrong_show() -> None:
    #   4h Jk 6h      impure (the joker is the 5h)
    #   9s 7c Js      impure (the wild 7c is the Ts)
    #   Kc Kd Kh      set
    #   2c 2d 2s 2h   set            -> every card grouped, but no pure sequence
    hand = parse("4h Jk 6h 9s 7c Js Kc Kd Kh 2c 2d 2s 2h")
    assert not valid_show(hand, SEVENS, RULES)
    a = arrangement(hand, SEVENS, RULES)
    assert a["lives"] is False and a["count"] == 4 + 6 + 9 + 10 + 30 + 8  # everything counts


def test_vector_3_a_loser_with_both_lives_counts_only_loose_cards() -> None:
    #   3h 4h 5h       pure       8s 9s 7d   impure (7d = Ts)
    #   Qc Qd Qh Qs    set        Kd 9c 4s   loose: 10 + 9 + 4 = 23
    hand = parse("3h 4h 5h 8s 9s 7d Qc Qd Qh Qs Kd 9c 4s")
    a = arrangement(hand, SEVENS, RULES)
    assert a["lives"] and sorted(a["loose"]) == sorted(["Kd", "9c", "4s"])
    assert hand_points(hand, SEVENS, Options()) == 23


def test_vector_4_losers_without_a_pure_sequence_count_everything_capped_at_80() -> None:
    # B: Kc Kd 9s 9h Qh Jd 8c 8d 6s 5c 5s 2h 3c    no pure sequence: 95 -> 80
    b = parse("Kc Kd 9s 9h Qh Jd 8c 8d 6s 5c 5s 2h 3c")
    assert count(b, SEVENS, RULES) == 95
    assert hand_points(b, SEVENS, Options()) == 80
    # C: Kc 4d 9s 9h 7h Jk 8c 2d 6s 5c 4s 2h 3c    the two jokers (7h, Jk) count 0: 62
    c = parse("Kc 4d 9s 9h 7h Jk 8c 2d 6s 5c 4s 2h 3c")
    assert hand_points(c, SEVENS, Options()) == 62
    assert hand_points(c, SEVENS, Options.preset("pagat")) == 60  # rounded to the nearest 5


def test_vector_5_one_pure_sequence_and_sets_without_a_second_sequence_count_all() -> None:
    #   3h 4h 5h | Qc Qd Qs | 9c 9d 9h | 2s 6c 8d Kc
    #   12 + 30 + 27 + 2 + 6 + 8 + 10 = 95 -> 80
    hand = parse("3h 4h 5h Qc Qd Qs 9c 9d 9h 2s 6c 8d Kc")
    assert count(hand, SEVENS, RULES) == 95
    assert hand_points(hand, SEVENS, Options()) == 80


def test_vector_7_ace_high_and_low_never_around_and_aces_wild_under_a_printed_joker() -> None:
    high = MeldRules(ace_high=True)
    assert make_meld(parse("Qh Kh Ah"), high).pure
    assert make_meld(parse("Ah 2h 3h"), high).pure
    with pytest.raises(InvalidMeld):
        make_meld(parse("Kh Ah 2h"), high)
    # The cut card is a printed joker: aces are wild (O), so Ah stands for the 7d.
    #   2c 3c 4c | 6d Ah 8d | Qs Qh Qd | 9c 9d 9s 9h
    hand = parse("2c 3c 4c 6d Ah 8d Qs Qh Qd 9c 9d 9s 9h")
    state_wild = 0  # aces
    assert valid_show(hand, state_wild, RULES)
    assert not valid_show(hand, None, RULES)  # pagat: a printed joker cut adds no wild
    assert kinds("Kh Ah 2h 5c 6c 7c 8s 8d 8c Tc Td Ts 3d", None)[0] == ("pure", "5c 6c 7c")
    assert not valid_show(parse("Kh Ah 2h 5c 6c 7c 8s 8d 8c Tc Td Ts 3d"), None, RULES)


# -- the wild rank in melds.py ------------------------------------------------------------------


def test_a_wild_card_as_itself_is_natural() -> None:
    sevens = MeldRules(ace_high=True, wild_rank=SEVENS)
    assert make_meld(parse("6s 7s 8s"), sevens).pure  # wild 7 -> 6s7s8s is pure
    standing_in = make_meld(parse("6s 7d 8s"), sevens)
    assert not standing_in.pure and format_cards(standing_in.stands_for) == "6s 7s 8s"
    assert make_meld(parse("9c 9d 7h"), sevens).kind == "set"
    # three wild cards read as one natural and two stand-ins: an impure sequence
    assert make_meld(parse("7c 7d 7h"), sevens).kind == "run"
    with pytest.raises(InvalidMeld):
        make_meld(parse("Jk Jk Jk"), sevens)  # printed jokers only: the game's option decides


def test_groups_of_printed_jokers_follow_the_option() -> None:
    # 3h 4h 5h | Jk Jk Jk: the jokers are the second sequence only if such a group counts
    # as one.  (In a 13-card hand it rarely matters: a spare natural and two jokers are an
    # impure sequence anyway.)
    hand = parse("3h 4h 5h Jk Jk Jk")
    assert valid_show(hand, None, Rules(joker_group="sequence"))
    assert not valid_show(hand, None, Rules(joker_group="set"))
    assert not valid_show(hand, None, Rules(joker_group="invalid"))
    groups = arrangement(hand, None, Rules(joker_group="sequence"), declared=True)["groups"]
    assert [(g["kind"], g["cards"]) for g in groups] == [
        ("pure", ["3h", "4h", "5h"]), ("impure", ["Jk", "Jk", "Jk"])]
    # with a spare natural the option does not matter
    full = parse("3h 4h 5h Kd Kh Ks 2s 2c 2d 9d Jk Jk Jk")
    assert all(valid_show(full, None, Rules(joker_group=g))
               for g in ("sequence", "set", "invalid"))


def test_a_four_card_life_when_the_option_asks_for_one() -> None:
    four = Rules(four_card_life=True)
    plain = parse("3h 4h 5h 8c 9c Tc Kd Kh Ks Qs Qc Qd Qh")
    assert valid_show(plain, None, RULES) and not valid_show(plain, None, four)
    longer = parse("3h 4h 5h 6h 9c Tc Jc Kd Kh Ks 2s 2c 2d")
    assert valid_show(longer, None, four)
    padded = parse("3h 4h 5h 8c 9c Jk Kd Kh Ks 2s 2c 2d Jk")
    assert valid_show(padded, None, four)  # a spare joker makes 8c 9c Jk Jk four long


def test_finish_cards_name_every_card_that_leaves_a_valid_show() -> None:
    # 14 cards: 3h 4h 5h 6h | 9c Tc Jc | Kd Kh Ks | 2s 2c 2d | Qd
    hand = parse("3h 4h 5h 6h 9c Tc Jc Kd Kh Ks 2s 2c 2d Qd")
    assert format_cards(finish_cards(hand, None, RULES)) == "Qd"
    with_joker = parse("3h 4h 5h 6h 9c Tc Jc Kd Kh Ks 2s 2c Jk Qd")
    assert "Qd" in format_cards(finish_cards(with_joker, None, RULES))


def test_duplicate_cards_never_share_a_group() -> None:
    # two packs: 5h 5h 5d is no set, 5h 6h 7h 5h 6h 7h is two pure sequences
    assert count(parse("5h 5h 5d"), None, RULES) == 15
    assert valid_show(parse("5h 6h 7h 5h 6h 7h 9c 9d 9s Kc Kd Kh Ks"), None, RULES)


def test_the_arrangement_puts_spare_jokers_where_they_keep_groups_valid() -> None:
    a = arrangement(parse("3h 4h 5h 8c 9c Tc Kd Kh Ks 2s 2c Jk Jk"), None, RULES)
    assert a["count"] == 0 and a["loose"] == []
    assert sum(len(g["cards"]) for g in a["groups"]) == 13


# -- the exact solver against brute force ---------------------------------------------------------


def _kind(group: tuple[int, ...], wild: int | None, rules: Rules) -> str | None:
    """What a group is under the rules (None: not a group), read by melds.best_meld."""
    meld_rules = MeldRules(ace_high=True, wild_rank=wild, max_set=13 if rules.big_sets else 4)
    try:
        meld = best_meld(group, meld_rules)
    except InvalidMeld:
        if len(group) >= 3 and all(c >= JOKER for c in group):
            return {"sequence": "impure", "set": "set", "invalid": None}[rules.joker_group]
        return None
    return "pure" if meld.pure else "impure" if meld.kind == "run" else "set"


@cache
def _brute(cards: tuple[int, ...], wild: int | None, rules: Rules) -> tuple[int, bool]:
    """(least count, a valid show exists) over every partition into groups and loose cards."""
    kind = cache(lambda g: _kind(g, wild, rules))
    best, shows = 10**9, False

    def walk(left: tuple[int, ...], loose: list[int], groups: list[tuple[str, int]]) -> None:
        nonlocal best, shows
        if not left:
            seqs = [n for k, n in groups if k != "set"]
            lives = (any(k == "pure" for k, _ in groups) and len(seqs) >= 2
                     and (not rules.four_card_life or max(seqs) >= 4))
            counted = loose if lives else list(cards)
            best = min(best, sum(card_value(c, wild) for c in counted))
            shows = shows or (lives and not loose)
            return
        first, rest = left[0], left[1:]
        walk(rest, [*loose, first], groups)
        for size in range(2, len(rest) + 1):
            for picked in set(itertools.combinations(rest, size)):
                group = tuple(sorted((first, *picked)))
                k = kind(group)
                if k is not None:
                    remaining = list(rest)
                    for c in picked:
                        remaining.remove(c)
                    walk(tuple(remaining), loose, [*groups, (k, len(group))])

    walk(cards, [], [])
    return best, shows


# a small corner of the deck, so that groups are frequent: clubs and hearts, A 2 3 4 5 Q K
_SMALL = [s * 13 + r for s in (0, 2) for r in (0, 1, 2, 3, 4, 11, 12)] + [JOKER]
small_hands = st.lists(st.sampled_from(_SMALL), min_size=3, max_size=8).filter(
    lambda h: all(h.count(c) <= 2 for c in set(h)))
wilds = st.sampled_from([None, 0, 1, 4, 12, 6])
rule_sets = st.builds(Rules, joker_group=st.sampled_from(["sequence", "set", "invalid"]),
                      four_card_life=st.booleans(), big_sets=st.booleans())


@settings(max_examples=250, deadline=None)
@given(small_hands, wilds, rule_sets)
def test_the_solver_agrees_with_brute_force(hand: list[int], wild: int | None,
                                            rules: Rules) -> None:
    cards = tuple(sorted(hand))
    expected, shows = _brute(cards, wild, rules)
    solution = solve(cards, wild, rules)
    assert count(cards, wild, rules) == solution.points == expected, format_cards(cards)
    assert (show(cards, wild, rules) is not None) == shows, format_cards(cards)
    a = arrangement(cards, wild, rules)
    laid = [c for g in a["groups"] for c in parse(" ".join(g["cards"]))] + parse(
        " ".join(a["loose"]))
    assert sorted(laid) == sorted(cards)  # every card exactly once
    for g in a["groups"]:
        assert _kind(tuple(sorted(parse(" ".join(g["cards"])))), wild, rules) is not None
    if solution.lives:
        assert sum(card_value(c, wild) for c in parse(" ".join(a["loose"]))) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_SMALL), min_size=9, max_size=9).filter(
    lambda h: all(h.count(c) <= 2 for c in set(h))), wilds)
def test_nine_card_hands_agree_with_brute_force(hand: list[int], wild: int | None) -> None:
    cards = tuple(sorted(hand))
    assert count(cards, wild, RULES) == _brute(cards, wild, RULES)[0]
    assert (show(cards, wild, RULES) is not None) == _brute(cards, wild, RULES)[1]


def _deck() -> list[int]:
    return [c for _ in range(2) for c in range(52)] + [JOKER, JOKER]


def test_full_hands_are_fast_enough_for_bots() -> None:
    # Not a timing test: a few hundred 13- and 14-card hands just have to finish.
    import random

    rng = random.Random(5)
    deck = _deck()
    for _ in range(300):
        rng.shuffle(deck)
        wild = rng.choice([None, *range(13)])
        points = count(deck[:13], wild, RULES)
        assert 0 <= points <= sum(card_value(c, wild) for c in deck[:13])
        for c in finish_cards(deck[:14], wild, RULES):
            rest: Sequence[int] = list(deck[:14])
            assert isinstance(rest, list)
            rest.remove(c)
            assert valid_show(rest, wild, RULES)
