"""Sets, runs and an exact minimum-deadwood solver.

Checking a meld
---------------
:func:`make_meld` turns a group of cards into a :class:`Meld` or raises
:class:`InvalidMeld` with a reason a player understands.  A *set* is 3-4
cards of one rank in different suits; a *run* is 3+ cards of one suit in
sequence.  :class:`MeldRules` says where the ace may sit (low only, also
high, or around the corner) and jokers (:data:`cards.JOKER`) stand for any
card; a meld records the card each joker stands for.

>>> make_meld(parse("3h 4h 5h")).kind
'run'
>>> make_meld(parse("Qs Ks As"))
Traceback (most recent call last):
...
cardtable.engine.melds.InvalidMeld: a run needs three cards of one suit in sequence
>>> make_meld(parse("Qs Ks As"), MeldRules(ace_high=True)).kind
'run'
>>> format_cards(make_meld(parse("5d Jk 7d")).stands_for)
'5d 6d 7d'

Minimum deadwood
----------------
Greedy "largest meld first" is wrong (``7s7h7d 5s6s8s`` keeps 14, not 19,
by running the spades through the seven), so :class:`Solver` is exact and
fast: runs never leave their suit, so a table over all 8192 rank masks of
one suit holds the best runs of that suit; the only coupling between suits
is which sets to form, and a 10-card hand has at most three ranks with three
or more cards.  The solver tries each choice of sets and adds four table
lookups.  A second table answers "the best discard from 11 cards" in the
same pass, without 11 solves.

>>> solver = Solver()
>>> solver.deadwood(parse("7s 7h 7d 5s 6s 8s"))
14
>>> m = solver.best_melding(parse("7s 7h 7d 5s 6s 8s"))
>>> [format_cards(meld) for meld in m.melds], format_cards(m.deadwood), m.points
(['5s 6s 7s 8s'], '7d 7h', 14)
>>> points, discard = solver.best_discard(parse("As 2s 3s 4d 5d 6d 9c 9d 9h Kc Qh"))
>>> points, str_card(discard)
(10, 'Kc')

The fast solver covers one pack without jokers, which is what Gin Rummy
plays; hands with jokers or duplicate cards are for the rummy-family
modules, which bring their own search.

A wild rank
-----------
Indian rummy turns every card of one rank wild (``MeldRules.wild_rank``):
such a card may stand for any card, or be itself.  Used as itself it counts
as natural, so with sevens wild ``6s 7s 8s`` is a *pure* run (no card
stands in for another), while ``5s 6s 7d`` is a run with the 7d standing
for the 7s.  :func:`best_meld` returns the reading the Indian life rules
reward most: a pure run, then any run, then a set (with a wild rank,
:func:`make_meld` does the same).

>>> sevens = MeldRules(ace_high=True, wild_rank=6)
>>> make_meld(parse("6s 7s 8s"), sevens).pure, make_meld(parse("5s 6s 7d"), sevens).pure
(True, False)
>>> format_cards(make_meld(parse("5s 6s 7d"), sevens).stands_for)
'5s 6s 7s'
>>> make_meld(parse("9c 7h 9d"), sevens).kind
'set'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations
from typing import Any, NamedTuple

from .cards import JOKER, format_cards, parse, str_card

__all__ = [
    "GIN_VALUES",
    "InvalidMeld",
    "Meld",
    "MeldRules",
    "Melding",
    "Solver",
    "best_meld",
    "format_cards",
    "make_meld",
    "parse",
    "str_card",
]

GIN_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
"""Deadwood value per rank (ace .. king) in Gin Rummy and most rummies."""


class InvalidMeld(ValueError):
    """A group of cards that is not a legal meld; ``str()`` is the reason."""


@dataclass(frozen=True)
class MeldRules:
    """Where aces may sit in a run, and the sizes of melds.

    ``ace_high`` allows Q-K-A; ``around_corner`` also allows K-A-2 (and
    implies ``ace_high``).  An ace is always allowed low (A-2-3).
    """

    ace_high: bool = False
    around_corner: bool = False
    min_run: int = 3
    min_set: int = 3
    max_set: int = 4
    wild_rank: int | None = None
    """Naturals of this rank (0 = ace .. 12 = king) may also stand for any card."""


@dataclass(frozen=True)
class Meld:
    """A legal meld: ``cards`` as laid, ``stands_for`` the card each one plays as.

    For a run both are in sequence order; a joker's ``stands_for`` entry is
    the natural card it replaces (for a set, the lowest missing suit).
    """

    kind: str  # "set" or "run"
    cards: tuple[int, ...]
    stands_for: tuple[int, ...]

    def __str__(self) -> str:
        return format_cards(self.cards)

    @property
    def pure(self) -> bool:
        """A run in which every card stands for itself: no joker or wild card stands in."""
        return self.kind == "run" and self.cards == self.stands_for


def make_meld(cards: Sequence[int], rules: MeldRules = MeldRules()) -> Meld:
    """The meld these cards form, or :class:`InvalidMeld` with the reason."""
    if rules.wild_rank is not None:
        return best_meld(cards, rules)
    naturals = [c for c in cards if c < JOKER]
    if len(cards) < min(rules.min_set, rules.min_run):
        raise InvalidMeld(f"a meld needs at least {min(rules.min_set, rules.min_run)} cards")
    if not naturals:
        raise InvalidMeld("a meld needs at least one natural card")
    if len({c % 13 for c in naturals}) == 1 and len(cards) <= rules.max_set:
        return _make_set(cards, naturals, rules)
    if len({c // 13 for c in naturals}) == 1:
        meld = _make_run(cards, naturals, rules)
        if meld is not None:
            return meld
    raise InvalidMeld("a run needs three cards of one suit in sequence")


def _make_set(cards: Sequence[int], naturals: list[int], rules: MeldRules) -> Meld:
    if len(cards) < rules.min_set:
        raise InvalidMeld(f"a set needs {rules.min_set} cards of one rank")
    suits = [c // 13 for c in naturals]
    if len(set(suits)) != len(suits):
        raise InvalidMeld("a set needs cards of different suits")
    rank = naturals[0] % 13
    # a set of 5+ (max_set > 4, extra jokers) repeats suits once the missing ones are named
    missing = iter([s for s in range(4) if s not in suits] + list(range(4)) * 3)
    ordered = sorted(naturals, key=lambda c: c // 13) + [JOKER] * (len(cards) - len(naturals))
    stands = tuple(c if c < JOKER else next(missing) * 13 + rank for c in ordered)
    return Meld("set", tuple(ordered), stands)


def _make_run(cards: Sequence[int], naturals: list[int], rules: MeldRules) -> Meld | None:
    n = len(cards)
    if n < rules.min_run or n > 13:
        return None
    suit = naturals[0] // 13
    ranks = sorted(c % 13 for c in naturals)
    if len(set(ranks)) != len(ranks):
        return None
    for window in _run_windows(n, rules, prefer_start=ranks[0]):
        if set(ranks) <= set(window):
            jokers = len(cards) - len(naturals)
            laid = tuple(suit * 13 + r if r in ranks else JOKER for r in window)
            if sum(c == JOKER for c in laid) != jokers:
                continue
            return Meld("run", laid, tuple(suit * 13 + r for r in window))
    return None


def best_meld(cards: Sequence[int], rules: MeldRules = MeldRules()) -> Meld:
    """The reading of ``cards`` the Indian life rules reward most, or :class:`InvalidMeld`.

    Every reading of the wild cards (as themselves or standing in) and of
    the group (set or run) is tried: best is a pure run, then a run, then a
    set; among equals, the fewest wild cards standing in.  A wild card
    standing in is laid as itself, with ``stands_for`` naming the card it
    replaces.  (:func:`make_meld` without a wild rank prefers the set when a
    lone natural and jokers could be either.)

    >>> best_meld(parse("Qc Jk Jk")).kind, make_meld(parse("Qc Jk Jk")).kind
    ('run', 'set')
    """
    plain = replace(rules, wild_rank=None)
    wild = [i for i, c in enumerate(cards) if c < JOKER and c % 13 == rules.wild_rank]
    best: tuple[tuple[int, int], Meld] | None = None
    tried: set[tuple[int, ...]] = set()
    for k in range(len(wild) + 1):
        for chosen in combinations(wild, k):
            as_jokers = tuple(sorted(cards[i] for i in chosen))
            if as_jokers in tried:  # two copies of one card read the same way
                continue
            tried.add(as_jokers)
            stand_ins = [cards[i] for i in chosen] + [c for c in cards if c >= JOKER]
            masked = [JOKER if i in chosen else c for i, c in enumerate(cards)]
            for meld in _readings(masked, plain):
                rank = (0 if meld.pure else 1 if meld.kind == "run" else 2, k)
                if best is None or rank < best[0]:
                    laid = iter(stand_ins)
                    cards_laid = tuple(next(laid) if c >= JOKER else c for c in meld.cards)
                    best = rank, Meld(meld.kind, cards_laid, meld.stands_for)
    if best is None:
        make_meld(cards, plain)  # raises with the reason every card as itself fails
        raise InvalidMeld("a meld needs at least one natural card")
    return best[1]


def _readings(cards: Sequence[int], rules: MeldRules) -> list[Meld]:
    """The set and the run these cards form, where they form one (no wild rank)."""
    naturals = [c for c in cards if c < JOKER]
    if len(cards) < min(rules.min_set, rules.min_run) or not naturals:
        return []
    found = []
    if len({c % 13 for c in naturals}) == 1 and len(cards) <= rules.max_set:
        with suppress(InvalidMeld):  # two cards of one suit: no set, perhaps a run
            found.append(_make_set(cards, naturals, rules))
    if len({c // 13 for c in naturals}) == 1:
        run = _make_run(cards, naturals, rules)
        if run is not None:
            found.append(run)
    return found


def _run_windows(n: int, rules: MeldRules, prefer_start: int) -> list[list[int]]:
    """Every rank sequence of length ``n`` the rules allow, nearest to ``prefer_start`` first.

    Jokers at the end of a run therefore extend it upwards when they can.
    """
    last_start = 12 if rules.around_corner else (13 if rules.ace_high else 12) - n + 1
    starts = range(13) if rules.around_corner else range(max(last_start + 1, 0))
    ordered = sorted(starts, key=lambda s: (s > prefer_start, abs(s - prefer_start)))
    return [[(s + i) % 13 for i in range(n)] for s in ordered]


class Melding(NamedTuple):
    """A best arrangement of a hand: disjoint melds, the deadwood, its points.

    A named tuple because solvers build millions of them.
    """

    melds: tuple[tuple[int, ...], ...]
    deadwood: tuple[int, ...]
    points: int


def _all_runs(rules: MeldRules) -> list[int]:
    """Every run as a 13-bit rank mask (bit r = rank r)."""
    runs: set[int] = set()
    for length in range(rules.min_run, 14):
        for window in _run_windows(length, rules, prefer_start=0):
            runs.add(sum(1 << r for r in window))
    return sorted(runs)


class Solver:
    """Exact minimum-deadwood solver for one pack, no jokers (see module doc).

    Tables are built once per (rules, values) and shared; a hand becomes a
    52-bit mask, split into four 13-bit suit masks.
    """

    __slots__ = ("_bits", "_dead", "_drop", "_laid", "_rules", "_values")

    def __init__(self, rules: MeldRules = MeldRules(), values: Sequence[int] = GIN_VALUES):
        self._rules = rules
        self._values = tuple(values)
        self._bits = [1 << c for c in range(52)]

    def __getattr__(self, name: str) -> Any:
        """The tables, built on the first query (0.18 CPU-s a server's start-up need not
        pay): a slot not yet set lands here once, then reads as any slot does."""
        if name not in ("_dead", "_laid", "_drop"):
            raise AttributeError(name)
        self._dead, self._laid, self._drop = _tables(self._rules, self._values)
        return getattr(self, name)

    def _suit_masks(self, cards: Iterable[int]) -> tuple[int, int, int, int]:
        bits = sum(map(self._bits.__getitem__, cards))
        return bits & 0x1FFF, (bits >> 13) & 0x1FFF, (bits >> 26) & 0x1FFF, bits >> 39

    @staticmethod
    def _leftovers(s0: int, s1: int, s2: int, s3: int) -> list[tuple[int, int, int, int]]:
        """The suit masks left for runs under each way of forming sets (no sets first)."""
        ranks3 = (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)
        result = [(s0, s1, s2, s3)]
        while ranks3:
            low = ranks3 & -ranks3
            ranks3 ^= low
            in_suit = [low if m & low else 0 for m in (s0, s1, s2, s3)]
            takes = [in_suit]  # the whole set: three or four cards
            if all(in_suit):  # four of a kind: or any three of them
                takes += [[0 if i == skip else low for i in range(4)] for skip in range(4)]
            result += [
                (a ^ t[0], b ^ t[1], c ^ t[2], d ^ t[3])
                for a, b, c, d in result
                for t in takes
            ]
        return result

    # -- queries ---------------------------------------------------------------

    def deadwood(self, cards: Iterable[int]) -> int:
        """Minimum deadwood points of ``cards``."""
        s0, s1, s2, s3 = masks = self._suit_masks(cards)
        dead = self._dead
        ranks3 = (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)
        if not ranks3:
            return dead[s0] + dead[s1] + dead[s2] + dead[s3]
        if not ranks3 & (ranks3 - 1) and not ranks3 & s0 & s1 & s2 & s3:
            keep = ~ranks3
            return min(dead[s0] + dead[s1] + dead[s2] + dead[s3],
                       dead[s0 & keep] + dead[s1 & keep] + dead[s2 & keep] + dead[s3 & keep])
        return self._best_sets(masks)[0]

    def _best_sets(
        self, masks: tuple[int, int, int, int]
    ) -> tuple[int, tuple[int, int, int, int]]:
        """Least deadwood over all set choices, and the suit masks left for runs."""
        dead = self._dead
        top = 1 << 30
        top_left = masks
        for left in self._leftovers(*masks):
            points = dead[left[0]] + dead[left[1]] + dead[left[2]] + dead[left[3]]
            if points < top:
                top, top_left = points, left
        return top, top_left

    def best_melding(self, cards: Iterable[int]) -> Melding:
        """A minimum-deadwood arrangement of ``cards``: sets first, then runs by suit."""
        s0, s1, s2, s3 = masks = self._suit_masks(cards)
        laid = self._laid
        ranks3 = (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)
        if ranks3 and not ranks3 & (ranks3 - 1) and not ranks3 & s0 & s1 & s2 & s3:
            # The common case past the fast path: one rank with exactly three
            # cards. Either the set stands, or its cards serve runs.
            dead = self._dead
            t0, t1, t2, t3 = s0 & ~ranks3, s1 & ~ranks3, s2 & ~ranks3, s3 & ~ranks3
            with_set = dead[t0] + dead[t1] + dead[t2] + dead[t3]
            if with_set < dead[s0] + dead[s1] + dead[s2] + dead[s3]:
                rank = ranks3.bit_length() - 1
                group = tuple(s * 13 + rank for s, m in enumerate(masks) if m & ranks3)
                m0, d0, p0 = laid[0][t0]
                m1, d1, p1 = laid[1][t1]
                m2, d2, p2 = laid[2][t2]
                m3, d3, p3 = laid[3][t3]
                return Melding((group, *m0, *m1, *m2, *m3), d0 + d1 + d2 + d3,
                               p0 + p1 + p2 + p3)
            ranks3 = 0
        if not ranks3:
            m0, d0, p0 = laid[0][s0]
            m1, d1, p1 = laid[1][s1]
            m2, d2, p2 = laid[2][s2]
            m3, d3, p3 = laid[3][s3]
            return Melding(m0 + m1 + m2 + m3, d0 + d1 + d2 + d3, p0 + p1 + p2 + p3)
        points, left = self._best_sets(masks)
        taken = [m ^ k for m, k in zip(masks, left, strict=True)]
        set_ranks = taken[0] | taken[1] | taken[2] | taken[3]
        melds: list[tuple[int, ...]] = []
        while set_ranks:
            bit = set_ranks & -set_ranks
            set_ranks ^= bit
            rank = bit.bit_length() - 1
            melds.append(tuple(s * 13 + rank for s in range(4) if taken[s] & bit))
        deadwood: tuple[int, ...] = ()
        for s in range(4):
            suit_melds, suit_dead, _ = laid[s][left[s]]
            melds.extend(suit_melds)
            deadwood += suit_dead
        return Melding(tuple(melds), deadwood, points)

    def best_discard(self, cards: Iterable[int]) -> tuple[int, int]:
        """``(deadwood, card)``: the least deadwood after discarding one card, and that card.

        One pass over the set choices; a per-suit table gives the best card to
        drop from each suit's leftover, so no per-card solve is needed.
        """
        masks = self._suit_masks(cards)
        dead, drop = self._dead, self._drop
        top = 1 << 30
        top_card = -1
        for left in self._leftovers(*masks):
            points = dead[left[0]] + dead[left[1]] + dead[left[2]] + dead[left[3]]
            for s in range(4):
                saving, rank = drop[left[s]]
                if rank >= 0 and points - saving < top:
                    top, top_card = points - saving, s * 13 + rank
        if top_card < 0:
            raise ValueError("best_discard needs a hand with a card outside any set of four")
        return top, top_card

    def deadwood_after_each_discard(self, cards: Iterable[int]) -> dict[int, int]:
        """``{card: least deadwood after discarding card}`` for every card held."""
        hand = list(cards)
        masks = self._suit_masks(hand)
        dead = self._dead
        result = dict.fromkeys(hand, 1 << 30)
        for left in self._leftovers(*masks):
            points = dead[left[0]] + dead[left[1]] + dead[left[2]] + dead[left[3]]
            for s in range(4):
                mask = left[s]
                rest = mask
                while rest:
                    low = rest & -rest
                    rest ^= low
                    card = s * 13 + low.bit_length() - 1
                    after = points - dead[mask] + dead[mask ^ low]
                    if after < result[card]:
                        result[card] = after
        return result


def _run_order(run_mask: int) -> list[int]:
    """Ranks of a run in sequence order (a run through the king goes K, A, 2...)."""
    ranks = [r for r in range(13) if run_mask >> r & 1]
    if len(ranks) < 13 and 0 in ranks and 12 in ranks:
        # wraps: start after the gap
        gap_end = max(r for r in range(13) if not run_mask >> r & 1)
        return [(gap_end + 1 + i) % 13 for i in range(len(ranks))]
    return ranks


_Laid = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]


@lru_cache(maxsize=8)  # a few (rules, values) pairs: 1 MB each
def _tables(
    rules: MeldRules, values: tuple[int, ...]
) -> tuple[list[int], list[list[_Laid]], list[tuple[int, int]]]:
    """Per 13-bit rank mask of one suit, with the best runs laid:

    dead[m]     deadwood points left;
    laid[s][m]  (runs as card tuples, deadwood cards, points) for suit s;
    drop[m]     (points saved by the best single discard, its rank; -1 if m is empty).
    """
    runs = _all_runs(rules)
    run_value = {run: sum(values[r] for r in range(13) if run >> r & 1) for run in runs}
    runs_with = {b: [run for run in runs if run >> b & 1] for b in range(13)}
    best = [0] * 8192
    parts: list[tuple[int, ...]] = [()] * 8192
    for mask in range(1, 8192):
        low = (mask & -mask).bit_length() - 1
        rest = mask ^ (1 << low)
        top, top_parts = best[rest], parts[rest]
        for run in runs_with[low]:
            if run & mask == run:
                value = run_value[run] + best[mask ^ run]
                if value > top:
                    top, top_parts = value, (run, *parts[mask ^ run])
        best[mask], parts[mask] = top, top_parts
    dead = [sum(values[r] for r in range(13) if mask >> r & 1) - best[mask] for mask in range(8192)]
    laid: list[list[_Laid]] = []
    for s in range(4):
        table: list[_Laid] = []
        for mask in range(8192):
            covered = 0
            for run in parts[mask]:
                covered |= run
            melds = tuple(tuple(s * 13 + r for r in _run_order(run)) for run in parts[mask])
            loose = tuple(s * 13 + r for r in range(13) if (mask & ~covered) >> r & 1)
            table.append((melds, loose, dead[mask]))
        laid.append(table)
    drop: list[tuple[int, int]] = [(0, -1)] * 8192
    for mask in range(1, 8192):
        top, top_rank = -1, -1
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            r = low.bit_length() - 1
            saving = dead[mask] - dead[mask ^ low]
            if saving > top or (saving == top and r > top_rank):
                top, top_rank = saving, r
        drop[mask] = (top, top_rank)
    return dead, laid, drop
