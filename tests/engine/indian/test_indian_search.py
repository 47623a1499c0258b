"""Indian Rummy: the arranger's fast search (budgets, cards no group can hold left out,
cached readings) gives exactly the answers of the plain search it replaced.

The reference below is that plain search: every state answered exactly, its answer
the first option (the lowest card loose, then each group holding it, in the order of
:func:`arrange._card_options`) with the least count.  Not only the counts must agree
but the groups too: they are what players see after a deal.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from cardtable.engine.cards import JOKER
from cardtable.engine.games.indian import arrange
from cardtable.engine.games.indian.arrange import _INF, VALUES, Group, Rules, Solution

HANDS = 2500
DECK = list(range(52)) * 2 + [JOKER, JOKER]


class PlainSearch:
    """The exhaustive search: no budget, nothing left out, one answer per state."""

    def __init__(self, joker_group: str):
        self.joker_group = joker_group
        self.memo: dict[tuple[tuple[int, ...], int, int, int, int, bool],
                        tuple[int, tuple[Group, ...]]] = {}

    def solve(self, naturals: tuple[int, ...], jokers: int, pure: int, seqs: int, four: int,
              strict: bool) -> tuple[int, tuple[Group, ...]]:
        key = (naturals, jokers, pure, seqs, four, strict)
        if key not in self.memo:
            self.memo[key] = (self._finish(jokers, pure, seqs, four) if not naturals
                              else self._branch(naturals, jokers, pure, seqs, four, strict))
        return self.memo[key]

    def _finish(self, jokers: int, pure: int, seqs: int,
                four: int) -> tuple[int, tuple[Group, ...]]:
        if pure:
            return _INF, ()
        if not seqs and not four:
            return 0, ()
        if self.joker_group != "sequence":
            return _INF, ()
        sizes = [3] * max(seqs, 1)
        sizes[0] += four
        if sum(sizes) > jokers:
            return _INF, ()
        return 0, tuple(Group("impure", (), n) for n in sizes)

    def _branch(self, naturals: tuple[int, ...], jokers: int, pure: int, seqs: int, four: int,
                strict: bool) -> tuple[int, tuple[Group, ...]]:
        card, rest = naturals[0], naturals[1:]
        best: tuple[int, tuple[Group, ...]] = (_INF, ())
        if not strict:
            cost, groups = self.solve(rest, jokers, pure, seqs, four, strict)
            best = (cost + VALUES[card % 13], groups)
        for kind, tail, used, length in plain_options(card, rest, jokers, four):
            if kind == "set":
                need = (pure, seqs, four)
            else:
                need = (0 if kind == "pure" else pure, max(seqs - 1, 0),
                        0 if length >= 4 else four)
            left = list(rest)
            for c in tail:
                left.remove(c)
            cost, groups = self.solve(tuple(left), jokers - used, *need, strict)
            if cost < best[0]:
                best = (cost, (Group(kind, (card, *tail), used), *groups))
        return best


def plain_options(card: int, rest: tuple[int, ...], jokers: int,
                  four: int) -> list[tuple[str, tuple[int, ...], int, int]]:
    suit, rank = divmod(card, 13)
    others = tuple(s * 13 + rank for s in range(suit + 1, 4) if s * 13 + rank in rest)
    held = 0
    for c in rest:
        if c // 13 == suit:
            held |= 1 << (c % 13)
    return arrange._card_options(card, others, held, min(jokers, 13), four)


def plain_solve(cards: tuple[int, ...], wild: int | None, rules: Rules) -> Solution:
    search = PlainSearch(rules.joker_group)
    four = int(rules.four_card_life)
    best: Solution | None = None
    for naturals, jokers, stand_ins in arrange._splits(cards, wild):
        cost, groups = search.solve(naturals, jokers, 1, 2, four, False)
        if cost < _INF and (best is None or cost < best.points):
            best = Solution(groups, stand_ins, cost, True)
    if best is not None:
        return best
    for naturals, jokers, stand_ins in arrange._splits(cards, wild):
        cost, groups = search.solve(naturals, jokers, 0, 0, 0, False)
        if best is None or cost < best.points:
            best = Solution(groups, stand_ins, cost, False)
    assert best is not None
    return best._replace(points=sum(arrange.card_value(c, wild) for c in cards))


def plain_show(cards: tuple[int, ...], wild: int | None, rules: Rules) -> Solution | None:
    search = PlainSearch(rules.joker_group)
    for naturals, jokers, stand_ins in arrange._splits(cards, wild):
        cost, groups = search.solve(naturals, jokers, 1, 2, int(rules.four_card_life), True)
        if cost == 0:
            return Solution(groups, stand_ins, 0, True)
    return None


def random_cases(seed: int, n: int) -> Iterator[tuple[tuple[int, ...], int | None, Rules]]:
    rng = random.Random(seed)
    for _ in range(n):
        size = rng.choice((13, 13, 13, 14, 10, 7))
        hand = tuple(sorted(rng.sample(DECK, size)))
        wild = rng.choice((None, *range(13)))
        rules = arrange.rules(rng.choice(("sequence", "set", "invalid")), rng.random() < 0.3,
                              rng.random() < 0.3)
        yield hand, wild, rules


def fresh_caches() -> None:
    for cached in (arrange.solve, arrange.show, arrange._lives_count):
        cached.cache_clear()
    for search in arrange._SEARCHES.values():
        search.memo.clear()


@pytest.mark.parametrize("seed", [1, 2])
def test_the_fast_search_answers_as_the_plain_search(seed: int) -> None:
    fresh_caches()
    for hand, wild, rules in random_cases(seed, HANDS):
        expected = plain_solve(hand, wild, rules)
        assert arrange.solve(hand, wild, rules) == expected, (hand, wild, rules)
        assert arrange.count(hand, wild, rules) == (
            expected.points if expected.lives else sum(arrange.card_value(c, wild)
                                                        for c in hand))
        assert arrange.show(hand, wild, rules) == plain_show(hand, wild, rules), (hand, wild)


def test_hands_rich_in_jokers_and_pairs_answer_as_the_plain_search() -> None:
    """Few ranks and many jokers: the states where budgets and left-out cards matter most."""
    fresh_caches()
    rng = random.Random(7)
    for _ in range(600):
        ranks = rng.sample(range(13), rng.randint(3, 6))
        pool = [s * 13 + r for r in ranks for s in range(4)] * 2 + [JOKER] * rng.randint(0, 3)
        hand = tuple(sorted(rng.sample(pool, 13)))
        wild = rng.choice((None, *ranks))
        rules = arrange.rules(rng.choice(("sequence", "set")), rng.random() < 0.5)
        assert arrange.solve(hand, wild, rules) == plain_solve(hand, wild, rules), (hand, wild)
        assert arrange.show(hand, wild, rules) == plain_show(hand, wild, rules), (hand, wild)


def test_a_card_no_group_can_hold_is_left_out_of_the_search() -> None:
    paired = (0, 1, 21, 34)  # an ace and a two of one suit; two nines of two others
    assert arrange._live_cards(paired, 1) == (paired, 0)
    lone = (0, 1, 8)  # an ace, a two and a nine of one suit: the nine is alone
    assert arrange._live_cards(lone, 1) == ((0, 1), VALUES[8])
    assert arrange._live_cards(lone, 2) == (lone, 0)  # two jokers make a run of any card
    assert arrange._live_cards((11, 12, 0), 0) == ((11, 12, 0), 0)  # Q-K-A: a pure run
    assert arrange._live_cards((0, 1, 12), 0) == ((), 10 + 2 + 10)  # K-A-2 is not
