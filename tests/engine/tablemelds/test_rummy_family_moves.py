"""The Rummy family's fast move lists against their definitions, written the slow way.

``legal_actions`` of Rummy, Rummy 500 and Rommé is built from cached, bitmask and
precomputed pieces (candidate melds per suit mask, the cards that extend or free a
joker of each table meld, openings by count vectors); each test here rebuilds one
piece from the rule it stands for and compares them on random hands and tables.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from cardtable.engine import get_game
from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER
from cardtable.engine.games.romme.values import joker_problem
from cardtable.engine.melds import InvalidMeld, MeldRules
from cardtable.engine.tablemelds import (
    TableMeld,
    TableMeldState,
    candidate_melds,
    extend,
    extension_cards,
    fits,
    lay,
    opening_actions,
    run_windows,
    swap_cards,
    swap_joker,
)
from cardtable.engine.tablemelds.opening import MAX_OPENING_MELDS, MAX_OPENINGS

RULES = [MeldRules(), MeldRules(ace_high=True), MeldRules(ace_high=True, around_corner=True)]
TWO_PACKS = [*range(52), *range(52), *[JOKER] * 6]


def _listed_by_definition(hand: list[int], rules: MeldRules,
                          max_jokers: int) -> list[tuple[int, ...]]:
    """Every set (naturals of one rank, distinct suits, jokers making up the size) and
    every run window with jokers in its gaps and, within the limit, for held cards."""
    naturals = set(c for c in hand if c < JOKER)
    jokers = min(sum(c >= JOKER for c in hand), max_jokers)
    found = set()
    for rank in range(13):
        held = [s * 13 + rank for s in range(4) if s * 13 + rank in naturals]
        for size in range(1, len(held) + 1):
            for group in combinations(held, size):
                for wild in range(jokers + 1):
                    if rules.min_set <= size + wild <= rules.max_set:
                        found.add((*group, *[JOKER] * wild))
    for low, length in run_windows(rules):
        for suit in range(4):
            window = [suit * 13 + (low + i) % 13 for i in range(length)]
            gaps = {c for c in window if c not in naturals}
            for wild in range(len(gaps), min(jokers, length - 1) + 1):
                for as_jokers in combinations(window, wild):
                    if gaps <= set(as_jokers):
                        kept = sorted(c for c in window if c not in as_jokers)
                        found.add((*kept, *[JOKER] * wild))
    return sorted(found)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("max_jokers", [1, 2])
def test_candidate_melds_are_the_listed_melds_by_definition(rules: MeldRules,
                                                            max_jokers: int) -> None:
    rng = random.Random(max_jokers * 10 + RULES.index(rules))
    for _ in range(300):
        hand = rng.sample(TWO_PACKS, rng.choice([7, 10, 14, 20]))
        assert candidate_melds(hand, rules, max_jokers) == \
            _listed_by_definition(hand, rules, max_jokers), hand


def _table_melds(rng: random.Random, rules: MeldRules, count: int) -> list[TableMeld]:
    """Random legal table melds, some with jokers, some laid off on until full."""
    found: list[TableMeld] = []
    while len(found) < count:
        hand = rng.sample(TWO_PACKS, 14)
        for cards in candidate_melds(hand, rules, 2):
            if rng.random() < 0.05:
                meld = lay(len(found) + 1, 0, cards, rules)
                for card in rng.sample(TWO_PACKS, 40):  # lay-offs, a full set sometimes
                    if fits(meld, card, rules):
                        meld = extend(meld, card, 1, rules)
                found.append(meld)
    return found


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("limit", ["none", "one_per_meld", "not_more_than_naturals",
                                   "not_adjacent"])
def test_extension_cards_are_every_card_that_fits(rules: MeldRules, limit: str) -> None:
    rng = random.Random(RULES.index(rules))

    def problem(meld: TableMeld) -> str | None:
        return joker_problem(limit, meld)
    for meld in _table_melds(rng, rules, 150):
        for house_rule in (None, problem):
            everything = {c for c in range(JOKER + 1) if fits(meld, c, rules, house_rule)}
            assert extension_cards(meld, rules, house_rule) == everything, meld


@pytest.mark.parametrize("rules", RULES)
def test_swap_cards_are_every_card_that_frees_a_joker(rules: MeldRules) -> None:
    rng = random.Random(7 + RULES.index(rules))
    tried = 0
    for meld in _table_melds(rng, rules, 200):
        accepted = set()
        for card in range(JOKER + 1):
            try:
                swap_joker(meld, card, 1, rules)
            except InvalidMeld:
                continue
            accepted.add(card)
        assert swap_cards(meld, rules) == accepted, meld
        tried += JOKER in meld.cards
    assert tried > 20


def _openings_by_search(state: TableMeldState, hand: list[int]) -> list[Action]:
    """The first moves as a depth-first search over candidate melds, hands as Counters."""
    seat = state.to_act
    assert seat is not None
    minimum = state.opening_minimum(seat)
    rules = state.meld_rules()
    candidates = state.listed_melds(hand)
    values = [state.meld_value(lay(0, 0, m, rules).stands_for) for m in candidates]
    found: list[Action] = []

    def search(start: int, chosen: list[tuple[int, ...]], left: Counter[int],
               total: int) -> None:
        if total >= minimum and chosen:
            found.append(Action("meld", melds=tuple(chosen)))
        if len(chosen) == MAX_OPENING_MELDS:
            return
        for i in range(start, len(candidates)):
            if len(found) >= MAX_OPENINGS:
                return
            need = Counter(candidates[i])
            if all(left[c] >= n for c, n in need.items()):
                search(i + 1, [*chosen, candidates[i]], left - need, total + values[i])

    search(0, [], Counter(hand), 0)
    return found


@pytest.mark.parametrize("first_meld", [30, 40, 50])
def test_openings_are_those_of_the_plain_search(first_meld: int) -> None:
    romme = get_game("romme")
    state = romme.new_match(romme.options.from_dict({"first_meld": first_meld}), players=3,
                            rng=random.Random(first_meld))
    assert isinstance(state, TableMeldState)
    rng = random.Random(first_meld)
    capped = 0
    for _ in range(150):
        hand = rng.sample(TWO_PACKS, rng.choice([13, 14, 18, 22]))
        fast = opening_actions(state, hand)
        assert fast == _openings_by_search(state, hand), hand
        capped += len(fast) == MAX_OPENINGS
    assert capped  # big hands reach the cap: the cut-off is where the search's was
