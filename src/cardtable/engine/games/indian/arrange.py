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
  across calls: a bot's hands share most states.
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

from collections.abc import Iterator, Sequence
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
    """The memoised search for one joker-group rule (the only rule it depends on)."""

    def __init__(self, joker_group: str):
        self.joker_group = joker_group
        self.memo: dict[tuple[tuple[int, ...], int, int, int, int, bool], _Found] = {}

    def solve(self, naturals: tuple[int, ...], jokers: int, pure: int, seqs: int, four: int,
              strict: bool) -> _Found:
        """Least count of ``naturals`` with ``jokers``, still needing ``pure`` pure runs,
        ``seqs`` sequences and (``four``) a sequence of four; ``strict``: nothing loose."""
        key = (naturals, jokers, pure, seqs, four, strict)
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) > 50_000:  # bounds memory; hands in play share few states
                self.memo.clear()
            found = (self._finish(jokers, pure, seqs, four) if not naturals
                     else self._branch(naturals, jokers, pure, seqs, four, strict))
            self.memo[key] = found
        return found

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
                strict: bool) -> _Found:
        card, rest = naturals[0], naturals[1:]
        best: _Found = (_INF, ())
        if not strict:
            cost, groups = self.solve(rest, jokers, pure, seqs, four, strict)
            best = (cost + VALUES[card % 13], groups)
        for group, length in _groups(card, rest, jokers, four):
            if group.kind == "set":
                need = (pure, seqs, four)
            else:
                need = (0 if group.kind == "pure" else pure, max(seqs - 1, 0),
                        0 if length >= 4 else four)
            cost, groups = self.solve(_without(rest, group.naturals[1:]), jokers - group.jokers,
                                      *need, strict)
            if cost < best[0]:
                best = (cost, (group, *groups))
                if cost == 0:
                    break
        return best


def _without(cards: tuple[int, ...], used: Sequence[int]) -> tuple[int, ...]:
    left = list(cards)
    for c in used:
        left.remove(c)
    return tuple(left)


def _groups(card: int, rest: tuple[int, ...], jokers: int,
            four: int) -> Iterator[tuple[Group, int]]:
    """Every group holding ``card`` (the lowest natural) and naturals of ``rest``; its length."""
    suit, rank = divmod(card, 13)
    others = [s * 13 + rank for s in range(suit + 1, 4) if s * 13 + rank in rest]
    for size in range(1, len(others) + 1):  # a set of 2-4 naturals, jokers up to three cards
        need = max(0, 2 - size)
        if need <= jokers:
            for chosen in combinations(others, size):
                yield Group("set", (card, *chosen), need), 1 + size + need
    held = 0
    for c in rest:
        if c // 13 == suit:
            held |= 1 << (c % 13)
    held |= (held & 1) << 13  # an ace also sits above the king
    for at in ((0, 13) if rank == 0 else (rank,)):
        for used, gaps, length in _run_shapes(at, held & ~(1 << at), min(jokers, 13), four):
            naturals = (card, *(suit * 13 + q % 13 for q in used))
            yield Group("impure" if gaps else "pure", naturals, gaps), length


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


def _splits(cards: Sequence[int], wild: int | None) -> Iterator[tuple[tuple[int, ...], int,
                                                                        tuple[int, ...]]]:
    """Each way of reading the wild cards: (naturals, jokers, the wild cards read as jokers)."""
    printed = sum(c >= JOKER for c in cards)
    plain = tuple(sorted(c for c in cards if c < JOKER and c % 13 != wild))
    wilds = sorted(c for c in cards if c < JOKER and c % 13 == wild)
    kinds = sorted(set(wilds))
    for keep in product(*(range(wilds.count(c) + 1) for c in kinds)):
        natural = [c for c, k in zip(kinds, keep, strict=True) for _ in range(k)]
        stand_in = [c for c, k in zip(kinds, keep, strict=True)
                    for _ in range(wilds.count(c) - k)]
        yield tuple(sorted(plain + tuple(natural))), printed + len(stand_in), tuple(stand_in)


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
        cost, groups = search.solve(naturals, jokers, 1, 2, four, False)
        if cost < _INF and (best is None or cost < best.points):
            best = Solution(groups, stand_ins, cost, True)
    if best is not None:
        return best
    everything = sum(card_value(c, wild) for c in cards)
    for naturals, jokers, stand_ins in _splits(cards, wild):
        cost, groups = search.solve(naturals, jokers, 0, 0, 0, False)
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
    return min(search.solve(naturals, jokers, 1, 2, int(rules.four_card_life), False)[0]
               for naturals, jokers, _ in _splits(cards, wild))


@lru_cache(maxsize=4096)
def show(cards: tuple[int, ...], wild: int | None, rules: Rules) -> Solution | None:
    """A valid declaration of these (sorted) cards: every card grouped, with the lives."""
    search = _SEARCHES[rules.joker_group]
    for naturals, jokers, stand_ins in _splits(cards, wild) if _pure_run_held(cards) else ():
        cost, groups = search.solve(naturals, jokers, 1, 2, int(rules.four_card_life), True)
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
