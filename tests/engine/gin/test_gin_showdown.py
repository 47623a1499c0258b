"""The rules file's worked examples (test vectors 1-7) and the showdown's optimality."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.engine.cards import format_cards, parse
from cardtable.engine.games import gin
from cardtable.engine.games.gin.showdown import _place, candidate_melds, spreads

PAGAT = gin.Options.preset("pagat")
STANDARD = gin.Options()


def settle(knocker: str, defender: str, options: gin.Options = PAGAT,
           **kw: object) -> gin.Settlement:
    return gin.settle(parse(knocker), parse(defender), options, **kw)  # type: ignore[arg-type]


# Vector 1: K=5, D=22 -> knocker +17.
#   knocker  As 2s 3s | 4h 5h 6h | 7c 7d 7s | 5c          K = 5
#   defender Kc Kd Kh | 9c 9d 9h | 2d 2c 8c Qs            D = 22, nothing lays off
def test_vector_1_knock() -> None:
    s = settle("As 2s 3s 4h 5h 6h 7c 7d 7s 5c", "Kc Kd Kh 9c 9d 9h 2d 2c 8c Qs")
    assert (s.kind, s.scorer, s.points, s.knocker_points, s.defender_points) == (
        "knock", "knocker", 17, 5, 22)


# Vector 2: K=8, D=8 -> undercut (ties included): defender +10 (pagat), +25 (standard).
@pytest.mark.parametrize(("options", "points"), [(PAGAT, 10), (STANDARD, 25)])
def test_vector_2_tie_is_an_undercut(options: gin.Options, points: int) -> None:
    s = settle("As 2s 3s 4h 5h 6h 7c 7d 7s 8c", "Kc Kd Kh 9c 9d 9h Tc Td Th 8d", options)
    assert (s.kind, s.scorer, s.points) == ("undercut", "defender", points)


def test_tie_scores_nothing_when_ties_are_not_undercuts() -> None:
    options = gin.Options.from_dict({"preset": "pagat", "undercut_on_tie": False})
    s = settle("As 2s 3s 4h 5h 6h 7c 7d 7s 8c", "Kc Kd Kh 9c 9d 9h Tc Td Th 8d", options)
    assert (s.kind, s.scorer, s.points) == ("knock", None, 0)


# Vector 3: K=7, D=3 -> defender 4 + 10 = +14 (standard: 4 + 25 = +29).
@pytest.mark.parametrize(("options", "points"), [(PAGAT, 14), (STANDARD, 29)])
def test_vector_3_undercut(options: gin.Options, points: int) -> None:
    s = settle("As 2s 3s 4h 5h 6h 8c 8d 8s 7c", "Kc Kd Kh 9c 9d 9h Tc Td Th 3d", options)
    assert (s.kind, s.scorer, s.points) == ("undercut", "defender", points)


# Vector 4: gin with D=30 -> +50 (standard +55); big gin with B=31 -> +61.
#   defender Kc Kd Ks Kh | 9c 9d 9h | Tc Jd Qh            D = 30
GIN_DEFENDER = "Kc Kd Ks Kh 9c 9d 9h Tc Jd Qh"


@pytest.mark.parametrize(("options", "points"), [(PAGAT, 50), (STANDARD, 55)])
def test_vector_4_gin(options: gin.Options, points: int) -> None:
    s = settle("As 2s 3s 4h 5h 6h 8c 8d 8s 8h", GIN_DEFENDER, options)
    assert (s.kind, s.scorer, s.points, s.defender_points) == ("gin", "knocker", points, 30)


def test_vector_4_big_gin() -> None:
    s = settle("As 2s 3s 4h 5h 6h 7h 8c 8d 8s 8h", GIN_DEFENDER, STANDARD)
    assert (s.kind, s.scorer, s.points) == ("big_gin", "knocker", 61)
    with pytest.raises(ValueError, match="big gin is not played"):
        settle("As 2s 3s 4h 5h 6h 7h 8c 8d 8s 8h", GIN_DEFENDER, PAGAT)


def test_gin_cannot_be_laid_off_on_or_undercut() -> None:
    # the defender's 7h would extend 4h-6h, and he has no deadwood at all
    s = settle("As 2s 3s 4h 5h 6h 8c 8d 8s 8h", "Kc Kd Ks 9c 9d 9h Tc Td Th 7h", PAGAT)
    assert s.layoffs == () and (s.scorer, s.points) == ("knocker", 7 + 20)
    s = settle("As 2s 3s 4h 5h 6h 8c 8d 8s 8h", "Kc Kd Ks 9c 9d 9h Tc Td Th Js", PAGAT)
    assert (s.kind, s.scorer, s.points) == ("gin", "knocker", 10 + 20)


# Vector 5: lay-offs.
#   knocker  4h 5h 6h | 9c 9d 9s | Kc Kd Kh | As           K = 1
#   defender 2c 3c 4c | Qs Qd Qc | 3h 7h 9h 8s             raw 27
#   3h and 7h extend the hearts, 9h completes the nines  -> D = 8, knocker +7
def test_vector_5_layoffs() -> None:
    s = settle("4h 5h 6h 9c 9d 9s Kc Kd Kh As", "2c 3c 4c Qs Qd Qc 3h 7h 9h 8s")
    assert (s.kind, s.scorer, s.points, s.defender_points) == ("knock", "knocker", 7, 8)
    laid = sorted(format_cards([x.card]) for x in s.layoffs)
    assert laid == ["3h", "7h", "9h"]
    assert format_cards(s.defender_deadwood) == "8s"


# Vector 6 (meld choice, 14 not 19) is in test_melds.py.


# Vector 7: Oklahoma, upcard 4s: limit 4; K=3, D=12 -> (12 - 3) x 2 = +18; K=5 is illegal.
def test_vector_7_oklahoma() -> None:
    okla = gin.Options.preset("oklahoma")
    s = settle("As 2s 3s 4h 5h 6h 8c 8d 8s 3c", "Kc Kd Kh 9c 9d 9h Ac 2d 4c 5d", okla,
               knock_limit=4, multiplier=2)
    assert (s.knocker_points, s.defender_points, s.points) == (3, 12, 18)
    with pytest.raises(ValueError, match="deadwood 5 is above the knock limit 4"):
        settle("As 2s 3s 4h 5h 6h 8c 8d 8s 5c", "Kc Kd Kh 9c 9d 9h Ac 2d 4c 5d", okla,
               knock_limit=4, multiplier=2)


# The knocker's spread is chosen against the best reply:
#   knocker  Ah 2h 3h 4h | 9c 9d 9s | Ac 2d 3c
#   defender Kc Kd Kh | Qc Qd Qh | 5h Jc Jd 8s
# Spreading the whole run (K=6) lets 5h go off (D=28): +22.  Keeping 4h back
# (K=10) keeps 5h dead (D=33): +23, which the engine finds.
def test_knocker_spread_denies_a_layoff() -> None:
    s = settle("Ah 2h 3h 4h 9c 9d 9s Ac 2d 3c", "Kc Kd Kh Qc Qd Qh 5h Jc Jd 8s")
    assert (s.points, s.knocker_points, s.defender_points, s.layoffs) == (23, 10, 33, ())
    own = settle("Ah 2h 3h 4h 9c 9d 9s Ac 2d 3c", "Kc Kd Kh Qc Qd Qh 5h Jc Jd 8s",
                 arrangement=[parse("Ah 2h 3h 4h"), parse("9c 9d 9s")])
    assert (own.points, own.defender_points) == (22, 28)


OTHER = "Kc Kd Ks Kh 7c 7d 7h Tc Jd Qh"


def test_submitted_spread_is_checked() -> None:
    with pytest.raises(ValueError, match="a run needs three cards"):
        settle("Ah 2h 3h 4h 9c 9d 9s Ac 2d 3c", OTHER, arrangement=[parse("Ah 2h 4h")])
    with pytest.raises(ValueError, match="each at most once"):
        settle("Ah 2h 3h 4h 9c 9d 9s Ac 2d 3c", OTHER,
               arrangement=[parse("Ah 2h 3h"), parse("Ah 2h 3h")])
    with pytest.raises(ValueError, match="above the knock limit"):
        settle("Ah 2h 3h 4h 9c 9d 9s Ac 2d 3c", OTHER, arrangement=[parse("9c 9d 9s")])


def test_chained_layoffs_and_breaking_a_four_set() -> None:
    # knocker  4h 5h 6h | Kc Kd Ks | Qc Qd Qs | As        K = 1
    # defender 7c 7d 7s 7h | 8h | Jc Jd 9c 2c 3d
    # Keeping 7c 7d 7s 7h leaves 8h dead (42); breaking the four lets 7h and
    # then 8h chain onto the hearts -> D = 10 + 10 + 9 + 2 + 3 = 34.
    s = settle("4h 5h 6h Kc Kd Ks Qc Qd Qs As", "7c 7d 7s 7h 8h Jc Jd 9c 2c 3d")
    assert sorted(format_cards([x.card]) for x in s.layoffs) == ["7h", "8h"]
    assert (s.defender_points, s.points) == (34, 33)


def brute_defend(defender: list[int], melds: list[tuple[int, ...]]) -> int:
    best = gin.deadwood(defender)
    for size in range(1, len(defender) + 1):
        for chosen in combinations(defender, size):
            if _place(list(chosen), _ends_of(melds)) is not None:
                best = min(best, gin.deadwood([c for c in defender if c not in chosen]))
    return best


def _ends_of(melds: list[tuple[int, ...]]):  # type: ignore[no-untyped-def]
    from cardtable.engine.games.gin.showdown import _ends
    return _ends(melds)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9))
def test_defender_reply_is_optimal(seed: int) -> None:
    rng = random.Random(seed)
    deck = rng.sample(range(52), 52)
    knocker, defender = deck[:10], deck[10:20]
    melds = candidate_melds(knocker)
    rng.shuffle(melds)
    chosen: list[tuple[int, ...]] = []
    for meld in melds:
        if all(set(meld).isdisjoint(m) for m in chosen):
            chosen.append(meld)
    melding, layoffs = gin.defend(defender, chosen)
    assert melding.points == brute_defend(defender, chosen)
    assert sorted([x.card for x in layoffs] + [c for m in melding.melds for c in m]
                  + list(melding.deadwood)) == sorted(defender)


def test_spreads_respect_the_limit() -> None:
    hand = parse("Ah 2h 3h 4h 9c 9d 9s Ac 2d 3c")
    found = spreads(hand, 10)
    assert found and all(
        sum(min(c % 13 + 1, 10) for c in hand if all(c not in m for m in sp)) <= 10
        for sp in found)


def test_settle_rejects_bad_hands() -> None:
    with pytest.raises(ValueError, match="distinct cards"):
        settle("As As 3s 4h 5h 6h 8c 8d 8s 3c", GIN_DEFENDER)
    with pytest.raises(ValueError, match="10 cards"):
        settle("As 2s 3s", GIN_DEFENDER)
