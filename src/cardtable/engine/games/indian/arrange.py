"""The exact arranger: a hand's lowest count under the life rules, and a valid show.

Why a search and not the Gin solver: two packs put duplicate cards in a
hand, printed jokers and a wild rank stand in for any card, and the life
rules ("at least two sequences, one of them pure") couple the groups.  The
search below is exact and small:

* The lowest natural card left is either loose (it counts; forbidden in a
  show) or in a group that contains it: a set (2-4 distinct suits of its
  rank, jokers up to three cards) or a run through it (every choice of
  naturals of its suit in a window of at most 13 ranks, each missing rank
  a joker; Q-K-A is a run, K-A-2 is not).  A lone card with two jokers is
  always read as a run: a run does all a set does and also counts as a life.
* The state is (naturals left, jokers left, lives still needed), memoised
  across calls: a bot's hands share most states.  Options are followed only as
  far as they could still beat the best so far (a budget), and a card no group
  can hold with the jokers left is counted loose and left out of the search:
  neither changes an answer, groups included (tests/engine/indian/test_indian_search.py
  compares with the plain search).
* A wild-rank card is either natural or a joker.  Each way of splitting a
  hand's wild cards is searched (rarely more than four); a wild card left
  loose is never better than the same card read as a joker, so the search
  itself needs no notion of wildness and its memo serves every wild rank.
* Jokers left over cost nothing, and in a show they always fit: a hand with
  two sequences has an impure one to extend, or a second pure one.

``count`` gives a hand's count; ``solve`` also the groups (``layout`` turns
them into what players see); ``valid_show`` says whether 13 cards make a
valid declaration; ``finish_cards`` lists the cards of a 14-card hand whose
laying aside leaves a valid show.  Every entry point is cached by hand, in
bounded caches: a server plays for months, and whatever a cache holds is walked
by every full pass of the garbage collector.  The sizes keep what a decision
asks again (its hits come from the same hand, turn after turn): in bot-against-bot
deals, caches 8 to 16 times larger took twice the memory and saved no time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from typing import NamedTuple

from ...cards import JOKER

VALUES = (10, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
"""Count per rank, ace .. king: aces and court cards 10, pips at face value; jokers 0."""

_INF = 1 << 20


@dataclass(frozen=True)
class Rules:
    """What the arranger needs of the options (:func:`rules` gives shared instances)."""

    joker_group: str = "sequence"  # a group of printed jokers only: "sequence", "set", "invalid"
    four_card_life: bool = False  # one of the sequences must hold 4+ cards
    big_sets: bool = False  # extra jokers may make a set of 5+ (only where leftovers go)


@lru_cache(maxsize=64)
def rules(joker_group: str = "sequence", four_card_life: bool = False,
          big_sets: bool = False) -> Rules:
    """The one shared :class:`Rules` of these values: the caches below key on it, and one
    instance per value (not one per state or decision) keeps them small."""
    return Rules(joker_group, four_card_life, big_sets)


class Group(NamedTuple):
    """A group the search formed: its kind, its naturals, how many jokers it takes."""

    kind: str  # "pure", "impure" (a run with jokers) or "set"
    naturals: tuple[int, ...]
    jokers: int


_Found = tuple[int, tuple[Group, ...]]


def card_value(card: int, wild: int | None) -> int:
    """A card's count: jokers and wild-rank cards 0."""
    if card >= JOKER or card % 13 == wild:
        return 0
    return VALUES[card % 13]


class _Search:
    """The memoised search for one joker-group rule (the only rule it depends on).

    Each state's answer is the first of its options (loose, then the groups in
    :func:`_options` order) with the least count.  The search is branch and bound
    with a budget: an option is only followed as far as it could still be strictly
    better than the best so far, which cannot change which option is first with the
    least count.  A state searched in vain leaves a lower bound in the memo (its
    groups ``None``); a state answered leaves its exact answer.
    """

    def __init__(self, joker_group: str):
        self.joker_group = joker_group
        self.memo: dict[tuple[tuple[int, ...], int, int, int, int, bool],
                        tuple[int, tuple[Group, ...] | None]] = {}

    def solve(self, naturals: tuple[int, ...], jokers: int, pure: int, seqs: int, four: int,
              strict: bool, budget: int = _INF) -> _Found:
        """Least count of ``naturals`` with ``jokers``, still needing ``pure`` pure runs,
        ``seqs`` sequences and (``four``) a sequence of four; ``strict``: nothing loose.

        ``(_INF, ())`` when there is none below ``budget`` (by default: none at all).
        """
        cost, groups = self._bounded(naturals, jokers, pure, seqs, four, strict, budget)
        return (cost, groups) if groups is not None else (_INF, ())

    def _bounded(self, naturals: tuple[int, ...], jokers: int, pure: int, seqs: int,
                 four: int, strict: bool, budget: int) -> tuple[int, tuple[Group, ...] | None]:
        """The exact answer if its count is below ``budget``, else ``(budget, None)``."""
        key = (naturals, jokers, pure, seqs, four, strict)
        found = self.memo.get(key)
        if found is not None:
            if found[0] >= budget:  # exact or a bound: nothing below the budget
                return budget, None
            if found[1] is not None:
                return found
        if budget <= 0 or (pure and not _pure_run_held(naturals)):
            return budget, None
        groups: tuple[Group, ...] | None
        if not naturals:
            cost, groups = self._finish(jokers, pure, seqs, four)
        else:
            live, dead, bound = _survey(naturals, jokers)
            if (dead or bound) if strict else dead + bound >= budget:
                cost, groups = budget, None
            elif not dead:
                cost, groups = self._branch(naturals, jokers, pure, seqs, four, strict, budget)
            else:
                cost, groups = self._bounded(live, jokers, pure, seqs, four, strict,
                                             budget - dead)
                cost += dead
        if cost >= budget:
            cost, groups = budget, None
        if len(self.memo) > 50_000:  # bounds memory; hands in play share few states
            self.memo.clear()
        self.memo[key] = cost, groups
        return cost, groups

    def _finish(self, jokers: int, pure: int, seqs: int, four: int) -> _Found:
        """No naturals left: only groups of jokers may still give the lives needed."""
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
                strict: bool, budget: int) -> tuple[int, tuple[Group, ...] | None]:
        card, rest = naturals[0], naturals[1:]
        best_cost, best_groups = budget, None
        for kind, tail, used_jokers, length in _options(card, rest, jokers, four):
            if best_cost <= 0:
                break
            if kind == "set":
                need = (pure, seqs, four)
            else:
                need = (0 if kind == "pure" else pure, max(seqs - 1, 0),
                        0 if length >= 4 else four)
            cost, groups = self._bounded(_without(rest, tail), jokers - used_jokers, *need,
                                         strict, best_cost)
            if groups is not None:
                best_cost, best_groups = cost, (Group(kind, (card, *tail), used_jokers), *groups)
        if not strict:
            # The card loose comes first in the order, so it wins a tie: it is tried last
            # (the groups usually give it a tight budget) against one point more.
            value = VALUES[card % 13]
            limit = best_cost + 1 if best_groups is not None else budget
            if value < limit:
                cost, groups = self._bounded(rest, jokers, pure, seqs, four, False,
                                             limit - value)
                if groups is not None:
                    best_cost, best_groups = cost + value, groups
        return best_cost, best_groups


def _without(cards: tuple[int, ...], used: Sequence[int]) -> tuple[int, ...]:
    left = list(cards)
    for c in used:
        left.remove(c)
    return tuple(left)


def _live_cards(naturals: tuple[int, ...], jokers: int) -> tuple[tuple[int, ...], int]:
    """The naturals some group could hold, and the count of the others (see :func:`_survey`)."""
    live, dead, _ = _survey(naturals, jokers)
    return live, dead


def _survey(naturals: tuple[int, ...], jokers: int) -> tuple[tuple[int, ...], int, int]:
    """The naturals some group could hold, the count of the others, and a lower bound of
    the loose count of the first.

    A card no group can hold (no partner of its rank or near it in its suit for
    the jokers there are: with two jokers every card has a group) is loose in every
    answer, and its presence changes no other card's groups: leaving it out of the
    search changes no answer, only the search's size.

    The bound: a card no group of naturals holds is grouped only with a joker, and
    the groups with jokers are at most ``jokers``, each within one suit (a run) or
    one rank (a set), so at best the suits and ranks richest in such cards.  With two
    jokers or more, a card with no partner for one joker needs two jokers beside it
    in a run, and two such cards in one run have two gaps between them: the jokers
    group at most ``jokers`` of them and the cheapest of the others stay loose.

    Bit masks of the ranks held per suit answer for every card at once (this runs at
    nearly every state of the search).
    """
    held = [0, 0, 0, 0]
    for c in naturals:
        held[c // 13] |= _RANK_BIT[c]
    a, b, c, d = held
    in_three_suits = a & b & (c | d) | c & d & (a | b)
    no_natural_group = [0, 0, 0, 0]  # per suit: the ranks only a joker can group
    for suit, ranks in enumerate(held):
        if ranks:
            wide = ranks | (ranks & 1) << 13  # an ace also sits above the king
            starts = wide & wide >> 1 & wide >> 2  # three ranks in a row
            in_runs = starts | starts << 1 | starts << 2
            no_natural_group[suit] = ranks & ~(in_runs | in_runs >> 13 | in_three_suits)
    if not any(no_natural_group):
        return naturals, 0, 0
    if not jokers:
        live, dead = _split_dead(naturals, no_natural_group)
        return live, dead, 0
    beyond_one = _no_group_for_one_joker(held)
    live, dead = naturals, 0
    if jokers == 1 and beyond_one is not None:
        live, dead = _split_dead(naturals, beyond_one)
    total = 0
    by_suit = [0, 0, 0, 0]
    by_rank = [0] * 13
    for card in live:
        suit, rank = divmod(card, 13)
        if no_natural_group[suit] >> rank & 1:
            value = VALUES[rank]
            total += value
            by_suit[suit] += value
            by_rank[rank] += value
    classes = sorted(by_suit + by_rank, reverse=True)
    bound = max(total - sum(classes[:jokers]), 0)  # a card is in a suit and a rank
    if jokers >= 2 and beyond_one is not None:
        far = sorted(VALUES[card % 13] for card in live
                     if beyond_one[card // 13] & _RANK_BIT[card])
        if len(far) > jokers:
            bound = max(bound, sum(far[:len(far) - jokers]))
    return live, dead, bound


def _no_group_for_one_joker(held: list[int]) -> list[int] | None:
    """Per suit (``held``: the ranks held per suit), the ranks of cards one joker cannot
    group: no other suit of the rank, nothing of the suit within two ranks.  ``None``
    when there are none."""
    a, b, c, d = held
    in_two_suits = (a | b) & (c | d) | (a & b) | (c & d)
    alone = [0, 0, 0, 0]
    for suit, ranks in enumerate(held):
        if ranks:
            wide = ranks | (ranks & 1) << 13  # an ace also sits above the king
            near = wide << 1 | wide << 2 | wide >> 1 | wide >> 2
            alone[suit] = ranks & ~(near | near >> 13 & 1 | in_two_suits)
    return alone if any(alone) else None


def _split_dead(naturals: tuple[int, ...], alone: list[int]) -> tuple[tuple[int, ...], int]:
    """The naturals but those ``alone`` marks, and the count of those."""
    live: list[int] = []
    dead = 0
    for card in naturals:
        if alone[card // 13] & _RANK_BIT[card]:
            dead += VALUES[card % 13]
        else:
            live.append(card)
    return tuple(live), dead


_RANK_BIT = tuple(1 << (c % 13) for c in range(52))


_Option = tuple[str, tuple[int, ...], int, int]  # kind, the other naturals, jokers, length


def _options(card: int, rest: tuple[int, ...], jokers: int, four: int) -> list[_Option]:
    """Every group holding ``card`` (the lowest natural) and naturals of ``rest``, in the
    order the search tries them: sets by size, then runs."""
    suit, rank = divmod(card, 13)
    others = tuple(s * 13 + rank for s in range(suit + 1, 4) if s * 13 + rank in rest)
    held = 0
    top = suit * 13 + 13
    for c in rest:  # sorted, and nothing below ``card``: its suit's cards come first
        if c >= top:
            break
        held |= 1 << (c - top + 13)
    return _card_options(card, others, held, min(jokers, 13), four)


@lru_cache(maxsize=1 << 15)
def _card_options(card: int, others: tuple[int, ...], held: int, jokers: int,
                  four: int) -> list[_Option]:
    """:func:`_options` for the same-rank naturals ``others`` and the suit's ranks ``held``."""
    suit, rank = divmod(card, 13)
    found: list[_Option] = []
    for size in range(1, len(others) + 1):  # a set of 2-4 naturals, jokers up to three cards
        need = max(0, 2 - size)
        if need <= jokers:
            for chosen in combinations(others, size):
                found.append(("set", chosen, need, 1 + size + need))
    held |= (held & 1) << 13  # an ace also sits above the king
    for at in ((0, 13) if rank == 0 else (rank,)):
        for used, gaps, length in _run_shapes(at, held & ~(1 << at), jokers, four):
            tail = tuple(suit * 13 + q % 13 for q in used)
            found.append(("impure" if gaps else "pure", tail, gaps, length))
    return found


@lru_cache(maxsize=1 << 16)
def _run_shapes(at: int, positions: int, jokers: int,
                four: int) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """Runs through position ``at`` (13: the ace above the king), naturals at both ends:
    (other positions used, jokers needed, length).  ``positions``: a bit per held rank."""
    shapes = []
    for low in range(at, max(at - 12, 0) - 1, -1):
        if low != at and not positions >> low & 1:
            continue
        for high in range(at, min(low + 12, 13) + 1):
            if high != at and not positions >> high & 1:
                continue
            inside = [q for q in range(low + 1, high) if q != at]
            present = [q for q in inside if positions >> q & 1]
            missing = len(inside) - len(present)
            if missing > jokers:
                break
            ends = [q for q in {low, high} if q != at]
            span = high - low + 1
            for left_out in range(min(jokers - missing, len(present)) + 1):
                gaps = missing + left_out + max(0, 3 - span)
                if gaps > jokers:
                    break
                for skipped in combinations(present, left_out):
                    used = tuple(sorted(set(present) - set(skipped))) + tuple(ends)
                    shapes.append((used, gaps, max(span, 3)))
                    if four and span <= 3 and gaps < jokers:  # a joker makes a 4-card life
                        shapes.append((used, gaps + 1, 4))
    return tuple(shapes)


_SEARCHES = {mode: _Search(mode) for mode in ("sequence", "set", "invalid")}


_Split = tuple[tuple[int, ...], int, tuple[int, ...]]


@lru_cache(maxsize=256)
def _splits(cards: tuple[int, ...], wild: int | None) -> tuple[_Split, ...]:
    """Each way of reading the wild cards: (naturals, jokers, the wild cards read as jokers).

    Cached: a deal's end asks the count, the lives and the grouping of one hand in turn.
    """
    printed = sum(c >= JOKER for c in cards)
    plain = tuple(sorted(c for c in cards if c < JOKER and c % 13 != wild))
    wilds = sorted(c for c in cards if c < JOKER and c % 13 == wild)
    kinds = sorted(set(wilds))
    found = []
    for keep in product(*(range(wilds.count(c) + 1) for c in kinds)):
        natural = [c for c, k in zip(kinds, keep, strict=True) for _ in range(k)]
        stand_in = [c for c, k in zip(kinds, keep, strict=True)
                    for _ in range(wilds.count(c) - k)]
        found.append((tuple(sorted(plain + tuple(natural))), printed + len(stand_in),
                      tuple(stand_in)))
    return tuple(found)


def _pure_run_held(cards: Sequence[int]) -> bool:
    """Whether three naturals of a suit are consecutive: no lives without (a quick test)."""
    masks = [0, 0, 0, 0]
    for c in cards:
        if c < JOKER:
            masks[c // 13] |= 1 << (c % 13)
    for m in masks:
        m |= (m & 1) << 13
        if m & (m >> 1) & (m >> 2):
            return True
    return False


class Solution(NamedTuple):
    """The search's answer: groups (jokers anonymous), the wild cards read as jokers, count."""

    groups: tuple[Group, ...]
    stand_ins: tuple[int, ...]
    points: int  # the count: loose cards with the lives, else every card
    lives: bool  # the groups hold the lives (two sequences, one pure; four-card life)


@lru_cache(maxsize=8192)
def solve(cards: tuple[int, ...], wild: int | None, rules: Rules) -> Solution:
    """The hand's least count: only loose cards count if the lives are there, else all.

    ``cards`` sorted; the groups returned are the lowest-count grouping, with
    the lives when they can be had (else the lowest grouping without them).
    """
    search = _SEARCHES[rules.joker_group]
    four = int(rules.four_card_life)
    best: Solution | None = None
    for naturals, jokers, stand_ins in _splits(cards, wild) if _pure_run_held(cards) else ():
        cost, groups = search.solve(naturals, jokers, 1, 2, four, False,
                                    _INF if best is None else best.points)
        if cost < _INF and (best is None or cost < best.points):
            best = Solution(groups, stand_ins, cost, True)
    if best is not None:
        return best
    everything = sum(card_value(c, wild) for c in cards)
    for naturals, jokers, stand_ins in _splits(cards, wild):
        cost, groups = search.solve(naturals, jokers, 0, 0, 0, False,
                                    _INF if best is None else best.points)
        if best is None or cost < best.points:
            best = Solution(groups, stand_ins, cost, False)
    assert best is not None
    return best._replace(points=everything)


def count(cards: Sequence[int], wild: int | None, rules: Rules) -> int:
    """The hand's count under the life rules (uncapped), without the display grouping."""
    hand = tuple(sorted(cards))
    lives = _lives_count(hand, wild, rules)
    return lives if lives < _INF else sum(card_value(c, wild) for c in hand)


@lru_cache(maxsize=4096)
def _lives_count(cards: tuple[int, ...], wild: int | None, rules: Rules) -> int:
    if not _pure_run_held(cards):
        return _INF
    search = _SEARCHES[rules.joker_group]
    least = _INF
    for naturals, jokers, _ in _splits(cards, wild):
        least = min(least, search.solve(naturals, jokers, 1, 2, int(rules.four_card_life),
                                        False, least)[0])
    return least


@lru_cache(maxsize=4096)
def show(cards: tuple[int, ...], wild: int | None, rules: Rules) -> Solution | None:
    """A valid declaration of these (sorted) cards: every card grouped, with the lives."""
    search = _SEARCHES[rules.joker_group]
    for naturals, jokers, stand_ins in _splits(cards, wild) if _pure_run_held(cards) else ():
        cost, groups = search.solve(naturals, jokers, 1, 2, int(rules.four_card_life), True, 1)
        if cost == 0:
            return Solution(groups, stand_ins, 0, True)
    return None


def valid_show(cards: Sequence[int], wild: int | None, rules: Rules) -> bool:
    return show(tuple(sorted(cards)), wild, rules) is not None


def finish_cards(cards: Sequence[int], wild: int | None, rules: Rules) -> list[int]:
    """The cards of a 14-card hand that, laid in the finish slot, leave a valid show."""
    hand = sorted(cards)
    found = []
    for card in sorted(set(hand)):
        rest = list(hand)
        rest.remove(card)
        if show(tuple(rest), wild, rules) is not None:
            found.append(card)
    return found
