"""The melds a hand can lay: the finite, sorted list ``legal_actions`` offers.

Without jokers the list is exact: every set (3 or 4 cards of one rank in
different suits, every choice of suits) and every run (every stretch of 3+
held consecutive cards of one suit the ace rules allow).  A 14-card hand has
at most a few dozen of them, so listing them all is cheap and lets a player
(or a bot) choose, say, 4h5h6h rather than 4h5h6h7h.

With jokers the list is bounded by ``max_jokers`` (jokers per listed meld):
each set of naturals plus up to that many jokers, and each run window with at
most that many of its places filled by jokers: its gaps, and then any of its
held cards, since a joker may stand for a card the player keeps for another
meld (holding Jd Qd Kd and a joker, ``Jd Jk Kd`` keeps the Qd).  Two copies of
a card (two packs) give the same meld once.

>>> from cardtable.engine.cards import parse, format_cards
>>> [format_cards(m) for m in candidate_melds(parse("4h 5h 6h 7h 9c"))]
['4h 5h 6h', '4h 5h 6h 7h', '5h 6h 7h']
>>> len(candidate_melds(parse("7c 7d 7h 7s")))  # four sets of three, one of four
5
>>> "Jd Kd Jk" in [format_cards(m) for m in candidate_melds(parse("Jd Qd Kd Jk"))]
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations

from ..cards import JOKER
from ..melds import MeldRules
from .table import ACE_LOW


def run_windows(rules: MeldRules) -> list[tuple[int, int]]:
    """Every run the ace rules allow, as (low position, length); position 13 is a high ace."""
    windows = []
    for length in range(rules.min_run, 14):
        if rules.around_corner:
            starts: Iterable[int] = range(13) if length < 13 else range(1)
        else:
            starts = range((13 if rules.ace_high else 12) - length + 2)
        windows += [(start, length) for start in starts]
    return windows


def candidate_melds(hand: Sequence[int], rules: MeldRules = ACE_LOW,
                    max_jokers: int = 1) -> list[tuple[int, ...]]:
    """Every meld listed for ``hand`` (see the module doc), each as sorted cards, sorted."""
    naturals = jokers = 0
    for c in hand:
        if c < JOKER:
            naturals |= 1 << c
        else:
            jokers += 1
    return list(_listed(naturals, min(jokers, max_jokers), rules))


# The list depends only on which naturals are held (two copies of a card give the same
# melds), how many jokers may be used, and the rules: a hand is a 52-bit mask.  The whole
# list is cached per hand (a position asks for it several times: moves, views, a pickup's
# use), and the runs per suit, which change only in the suit a card came or went.


@lru_cache(maxsize=4096)
def _listed(naturals: int, jokers: int, rules: MeldRules) -> tuple[tuple[int, ...], ...]:
    found: list[tuple[int, ...]] = []
    s0, s1, s2, s3 = suits = (naturals & 0x1FFF, naturals >> 13 & 0x1FFF,
                              naturals >> 26 & 0x1FFF, naturals >> 39)
    # a run holds at least min_run - jokers naturals of its suit (and one at least)
    run_naturals = max(1, rules.min_run - jokers)
    for suit, in_suit in enumerate(suits):
        if in_suit.bit_count() >= run_naturals:
            found += _suit_runs(suit, in_suit, jokers, rules)
    ranks = _ranks_in(max(1, rules.min_set - jokers), s0, s1, s2, s3)
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        rank = low.bit_length() - 1
        found += _rank_sets(rank, _rank_suits(naturals >> rank), jokers, rules)
    if not found:
        return ()
    # one natural and two jokers is a set and a run: the only melds listed twice
    return tuple(sorted(set(found) if jokers > 1 else found))


def _ranks_in(least: int, s0: int, s1: int, s2: int, s3: int) -> int:
    """The 13-bit mask of the ranks held in at least ``least`` of the suit masks."""
    if least <= 1:
        return s0 | s1 | s2 | s3
    if least == 2:
        return (s0 & (s1 | s2 | s3)) | (s1 & (s2 | s3)) | (s2 & s3)
    if least == 3:
        return (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)
    return s0 & s1 & s2 & s3 if least == 4 else 0


def _rank_suits(shifted: int) -> int:
    """The 4-bit suit mask of the rank at bit 0 of ``shifted`` (a hand mask >> rank)."""
    return (shifted & 1) | (shifted >> 12 & 2) | (shifted >> 24 & 4) | (shifted >> 36 & 8)


@lru_cache(maxsize=1024)  # 13 ranks x 16 suit masks x a few joker counts and rules
def _rank_sets(rank: int, suits: int, jokers: int,
               rules: MeldRules) -> tuple[tuple[int, ...], ...]:
    """The sets of ``rank`` from the suits held (bit s: suit s), jokers filling up."""
    cards = [s * 13 + rank for s in range(4) if suits >> s & 1]
    found = []
    for size in range(1, min(len(cards), rules.max_set) + 1):
        for group in combinations(cards, size):
            for wild in range(jokers + 1):
                if rules.min_set <= size + wild <= rules.max_set:
                    found.append((*group, *[JOKER] * wild))
    return tuple(found)


@lru_cache(maxsize=16384)  # 4 suits x 8192 rank masks: the masks a game meets recur
def _suit_runs(suit: int, in_suit: int, jokers: int,
               rules: MeldRules) -> tuple[tuple[int, ...], ...]:
    """The runs of one suit from its 13-bit rank mask (see :func:`_rank_runs`)."""
    base = 13 * suit
    return tuple(tuple(r if r == JOKER else base + r for r in run)
                 for run in _rank_runs(in_suit, jokers, rules))


@lru_cache(maxsize=8192)
def _rank_runs(in_suit: int, jokers: int, rules: MeldRules) -> tuple[tuple[int, ...], ...]:
    """The runs of the ranks in ``in_suit`` (as ranks, jokers as JOKER), ``jokers``
    filling gaps or standing for held cards: the same for every suit."""
    found: set[tuple[int, ...]] = set()
    for mask, length in _window_masks(rules):
        gaps = (mask & ~in_suit).bit_count()
        if gaps <= jokers and gaps < length:
            present = mask & in_suit
            cards = [r for r in range(13) if present >> r & 1]
            found.add((*cards, *[JOKER] * gaps))
            if gaps < jokers:
                _stand_ins(cards, jokers - gaps, gaps, found)
    return tuple(found)


def _stand_ins(cards: list[int], spare: int, gaps: int, found: set[tuple[int, ...]]) -> None:
    """The run ``cards`` (plus ``gaps`` jokers) with up to ``spare`` more jokers standing
    for held cards, which the hand keeps; at least one natural stays in the meld."""
    for replaced in range(1, min(spare, len(cards) - 1) + 1):
        jokers = (JOKER,) * (gaps + replaced)
        for kept in combinations(cards, len(cards) - replaced):
            found.add((*kept, *jokers))


@lru_cache(maxsize=64)  # per rules: the options' few combinations
def _window_masks(rules: MeldRules) -> list[tuple[int, int]]:
    """Each run window as (13-bit rank mask, length): a bit test per window and suit."""
    return [(sum(1 << (low + i) % 13 for i in range(length)), length)
            for low, length in run_windows(rules)]
