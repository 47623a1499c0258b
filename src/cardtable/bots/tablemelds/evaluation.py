"""What a hand is worth to a table-meld bot: its best arrangement into melds.

The bots of the Rummy family (:mod:`cardtable.bots.tablemelds.normal`) judge every choice by one
number, :meth:`Evaluator.value` of the hand that choice leaves.  The value
counts, for one seat and the situation it is in (:class:`Weights`):

* a natural card in a meld, or one that can be laid off on a table meld:
  ``credit`` (the points it earns on the table: Rummy 500 only, else 0);
* a natural card left over: ``-hold`` (what it costs if the hand ends with
  it), softened by its chance to join a meld later (a pair, two cards of a
  run; ``live`` counts the copies of the missing card not yet seen);
* a joker: worth ``credit + reserve`` while held and ``credit`` once in a
  meld, so a joker goes into a meld only when the natural cards it lets
  meld are worth more than ``reserve``.  Late in a hand ``reserve`` turns
  negative: a joker left in hand then costs its penalty.

The arrangement is exact: a depth-first search over the candidate melds of
the engine (:func:`candidates`, the same list as the engine's), deciding
each natural card in increasing order (in a meld whose lowest natural card
it is, laid off, or left over), pruned by an upper bound.  Hands of 7 to 15
cards take well under a millisecond; results are memoised per evaluator.

>>> from cardtable.engine.cards import parse, format_cards
>>> w = Weights.flat(hold=[min(c % 13 + 1, 10) for c in range(52)] + [15], reserve=5.0)
>>> plan = Evaluator(w).plan(parse("5h 6h 7h Jk 9c 9d Kc"))
>>> [format_cards(m) for m in plan.melds], format_cards(plan.leftover)
(['9c 9d Jk', '5h 6h 7h'], 'Kc')
>>> plan = Evaluator(w).plan(parse("5h 6h 7h Jk 2c 2d Kc"))  # a pair of twos is not worth a joker
>>> [format_cards(m) for m in plan.melds], format_cards(plan.leftover)
(['5h 6h 7h'], '2c Kc 2d Jk')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from cardtable.engine.cards import JOKER
from cardtable.engine.melds import MeldRules
from cardtable.engine.tablemelds import candidate_melds

ACE_LOW = MeldRules()
CARDS = JOKER + 1  # per-card tables: the 52 naturals and the joker
MAX_SEARCHED_RUN = 5
MAX_CHANCE = 0.6  # a leftover card is never counted as surely melded


@dataclass(frozen=True)
class Weights:
    """How one seat values cards right now (each tuple has an entry per card 0..52)."""

    rules: MeldRules
    hold: tuple[float, ...]  # lost if the card is still in hand when the hand ends
    credit: tuple[float, ...]  # earned by placing the card on the table (Rummy 500)
    reserve: float  # a joker kept in hand over one placed (negative late in a hand)
    live: tuple[float, ...]  # copies of each card still to come
    draw_chance: float  # chance that one given live card reaches this seat in time
    layable: tuple[int, ...] = (0,) * CARDS  # copies of a card that fit a table meld now
    layoff_factor: float = 1.0  # a lay-off possible only later (before coming out) counts less
    max_jokers: int = 1  # jokers per meld considered
    low_ace_credit: float | None = None  # an ace at the low end of a run (Rummy 500: 1)

    @classmethod
    def flat(cls, hold: Sequence[float], reserve: float = 5.0,
             rules: MeldRules = ACE_LOW) -> Weights:
        """Weights for examples: penalty scoring, four unseen copies of every card."""
        return cls(rules, tuple(hold), (0.0,) * CARDS, reserve, (1.0,) * CARDS, 0.1)


@dataclass(frozen=True)
class Plan:
    """A best arrangement: melds to lay, cards to lay off, the rest, and the hand's value."""

    melds: tuple[tuple[int, ...], ...]
    layoffs: tuple[int, ...]
    leftover: tuple[int, ...]
    value: float


_Part = tuple[float, tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]
"""One group's solution: gain, melds, lay-offs, leftover."""


class Evaluator:
    """Best arrangements of hands under one :class:`Weights` (memoised)."""

    def __init__(self, weights: Weights):
        self.w = weights
        self.gain = [weights.credit[c] + weights.hold[c] for c in range(CARDS)]
        self._memo: dict[tuple[tuple[int, ...], int | None], Plan | None] = {}
        self._groups: dict[tuple[tuple[int, ...], int, int | None], dict[int, _Part]] = {}
        self._partials: dict[tuple[int, ...], float] = {}
        self._neighbours = neighbours(weights.rules)

    def value(self, hand: Sequence[int], forced: int | None = None) -> float:
        """The worth of ``hand`` (``-inf`` if ``forced`` cannot be placed from it)."""
        plan = self.plan(hand, forced)
        return float("-inf") if plan is None else plan.value

    def plan(self, hand: Sequence[int], forced: int | None = None) -> Plan | None:
        """The best arrangement; ``forced``: a card that must go on the table this turn."""
        key = (tuple(sorted(hand)), forced)
        if key not in self._memo:
            if forced == JOKER:
                self._memo[key] = self._place_joker(key[0])
            else:
                self._memo[key] = self._search(key[0], forced)
        return self._memo[key]

    def meld_gain(self, meld: Sequence[int]) -> float:
        """What laying ``meld`` (from hand) adds over keeping its cards as leftovers."""
        w = self.w
        naturals = [c for c in meld if c < JOKER]
        gain = sum(self.gain[c] for c in naturals) - (len(meld) - len(naturals)) * w.reserve
        if w.low_ace_credit is not None and len({c % 13 for c in naturals}) > 1:
            for c in naturals:
                if c % 13 == 0 and c + 1 in naturals:  # A-2-...: the ace plays low
                    gain -= w.credit[c] - w.low_ace_credit
        return gain

    def _place_joker(self, hand: tuple[int, ...]) -> Plan | None:
        """The best arrangement that puts one joker on the table (a joker freed by an
        exchange): in a meld of the hand, or laid off, whatever it would rather do."""
        rest = list(hand)
        rest.remove(JOKER)
        options: list[tuple[float, tuple[int, ...] | None, Plan]] = []
        after = self.plan(rest) if self.w.layable[JOKER] else None
        if after is not None:
            options.append((after.value + self.w.credit[JOKER], None, after))
        for group in candidates(hand, self.w.rules, 1):
            if JOKER in group:
                left = list(hand)
                for c in group:
                    left.remove(c)
                after = self.plan(left)
                if after is not None:
                    credit = sum(self.w.credit[c] for c in group)
                    options.append((after.value + credit, group, after))
        if not options:
            return None
        value, meld, after = max(options, key=lambda o: o[0])
        if meld is None:
            return Plan(after.melds, (*after.layoffs, JOKER), after.leftover, value)
        return Plan((meld, *after.melds), after.layoffs, after.leftover, value)

    # -- the search ----------------------------------------------------------------

    def _search(self, hand: tuple[int, ...], forced: int | None) -> Plan | None:
        """Split the hand into groups of cards that share a candidate meld, solve each group
        for every number of jokers it may use, then share the jokers out (a knapsack)."""
        w = self.w
        jokers = hand.count(JOKER)
        # A run of six or more covers what two shorter runs cover: leave it out of the search.
        melds = [m for m in candidates(hand, w.rules, min(jokers, w.max_jokers))
                 if len(m) <= MAX_SEARCHED_RUN]
        lay = w.layoff_factor > 0
        parent = {c: c for c in hand if c < JOKER}

        def root(c: int) -> int:
            while parent[c] != c:
                parent[c] = parent[parent[c]]
                c = parent[c]
            return c

        coverable = {c for c in parent if lay and w.layable[c]}
        for meld in melds:
            naturals = [c for c in meld if c < JOKER]
            coverable.update(naturals)
            for c in naturals[1:]:
                parent[root(c)] = root(naturals[0])
        groups: dict[int, list[int]] = {}
        for c in hand:
            if c in coverable:
                groups.setdefault(root(c), []).append(c)
        idle = tuple(c for c in hand if c < JOKER and c not in coverable)
        if forced is not None and forced < JOKER and forced in idle:
            return None
        # per group: the best (gain, melds, lay-offs, leftover) using at most u jokers
        solved = []
        for cards in groups.values():
            cards.sort()
            key = (tuple(cards), jokers, forced if forced in cards else None)
            if key not in self._groups:  # a group untouched by a change of hand is solved
                self._groups[key] = self._solve_group(cards, melds, jokers, key[2])
            solved.append(self._groups[key])
        if any(not table for table in solved):
            return None
        # share the jokers: best total gain using u jokers in all
        total: dict[int, tuple[float, list[_Part]]] = {0: (0.0, [])}
        for table in solved:
            merged: dict[int, tuple[float, list[_Part]]] = {}
            for used, (g, parts) in total.items():
                for extra, part in table.items():
                    if used + extra <= jokers:
                        cand = (g + part[0], [*parts, part])
                        if used + extra not in merged or cand[0] > merged[used + extra][0]:
                            merged[used + extra] = cand
            total = merged
        best: tuple[float, list[_Part], int] | None = None
        for used, (g, parts) in total.items():
            # late in a hand a joker costs more held than laid off anywhere
            dumped = jokers - used if w.reserve < 0 and w.layable[JOKER] else 0
            g -= dumped * w.reserve
            if best is None or g > best[0]:
                best = (g, parts, dumped)
        if best is None:
            return None
        g, parts, dumped = best
        used = sum(m.count(JOKER) for part in parts for m in part[1])
        melds_out = tuple(m for part in parts for m in part[1])
        layoffs = tuple(c for part in parts for c in part[2]) + (JOKER,) * dumped
        leftover = idle + tuple(c for part in parts for c in part[3])
        leftover = tuple(sorted(leftover + (JOKER,) * (jokers - used - dumped)))
        base = sum(-w.hold[c] if c < JOKER else w.credit[c] + w.reserve for c in hand)
        return Plan(melds_out, layoffs, leftover, base + g + self.partials(leftover))

    def _solve_group(self, cards: list[int], melds: Sequence[tuple[int, ...]], jokers: int,
                     forced: int | None) -> dict[int, _Part]:
        """The best arrangement of one group for each number of jokers it may use.

        Each card, in increasing order, goes in a meld whose lowest natural card it is,
        is laid off, or stays in hand (all its copies).  What is left to decide depends
        only on the position, the copies left of the cards above, the jokers left and
        whether the forced card is down: that is memoised (dynamic programming)."""
        w, gain = self.w, self.gain
        count = [0] * CARDS
        for c in cards:
            count[c] += 1
        distinct = sorted(set(cards))
        members = set(distinct)
        by_low: dict[int, list[tuple[tuple[int, ...], tuple[int, ...], int, float]]] = {}
        for meld in melds:
            naturals = tuple(c for c in meld if c < JOKER)
            if naturals[0] in members:
                by_low.setdefault(naturals[0], []).append(
                    (meld, naturals, len(meld) - len(naturals), self.meld_gain(meld)))
        lay_left = [w.layable[c] if w.layoff_factor > 0 else 0 for c in range(CARDS)]
        lay_gain = [g * w.layoff_factor for g in gain]
        # The copies left of every card, as one number (base 3: at most two packs), say
        # where the search stands: with the jokers left, the key of the memo.
        digit = {c: 3 ** j for j, c in enumerate(distinct)}
        steps = {c: [(meld, naturals, wild, meld_gain, sum(digit[x] for x in naturals))
                     for meld, naturals, wild, meld_gain in by_low.get(c, ())]
                 for c in distinct}
        memo: dict[tuple[int, int, bool, int], tuple[float, Any]] = {}
        end = len(distinct)
        # a path is a linked list of steps: ("meld", meld) | ("lay", card) | ("left", card, k)

        def solve(i: int, spare: int, placed: bool, code: int) -> tuple[float, Any]:
            while i < end and not count[distinct[i]]:
                i += 1
            if i == end:
                return 0.0, None
            c = distinct[i]
            key = (code, spare, placed, lay_left[c])
            if key in memo:
                return memo[key]
            best: tuple[float, Any] = (float("-inf"), None)
            for meld, naturals, wild, meld_gain, used in steps[c]:
                if wild > spare or not all(count[x] for x in naturals):
                    continue
                for x in naturals:
                    count[x] -= 1
                g, path = solve(i, spare - wild, placed or forced in naturals, code - used)
                for x in naturals:
                    count[x] += 1
                if g + meld_gain > best[0]:
                    best = (g + meld_gain, (("meld", meld), path))
            if lay_left[c]:
                count[c] -= 1
                lay_left[c] -= 1
                g, path = solve(i, spare, placed or c == forced, code - digit[c])
                lay_left[c] += 1
                count[c] += 1
                if g + lay_gain[c] > best[0]:
                    best = (g + lay_gain[c], (("lay", c), path))
            if c != forced or placed:
                k = count[c]  # every remaining copy stays in hand (no symmetric branches)
                count[c] = 0
                g, path = solve(i + 1, spare, placed, code - k * digit[c])
                count[c] = k
                if g > best[0]:
                    best = (g, (("left", c, k), path))
            memo[key] = best
            return best

        found: dict[int, _Part] = {}
        for budget in range(jokers + 1):
            g, path = solve(0, budget, False, sum(digit[c] for c in cards))
            if g == float("-inf"):
                continue
            chosen: list[tuple[int, ...]] = []
            laid: list[int] = []
            left: list[int] = []
            while path is not None:
                step, path = path
                if step[0] == "meld":
                    chosen.append(step[1])
                elif step[0] == "lay":
                    laid.append(step[1])
                else:
                    left.extend([step[1]] * step[2])
            used = sum(m.count(JOKER) for m in chosen)
            if used not in found or g > found[used][0]:
                found[used] = (g, tuple(chosen), tuple(laid), tuple(left))
        return found

    # -- leftover cards that may still meld -------------------------------------------

    def partials(self, leftover: Sequence[int]) -> float:
        """Expected worth of leftover cards that are one card short of a meld: each card
        with a partner (same rank, or one or two ranks away in its suit) may still meld,
        the more likely the more copies of the missing cards (or jokers) are to come."""
        key = tuple(sorted(leftover))
        total = self._partials.get(key)
        if total is not None:
            return total
        w, table = self.w, self._neighbours
        live, wild = w.live, w.live[JOKER]
        have = {c for c in key if c < JOKER}
        suits: dict[int, int] = {}  # rank -> bit mask of the suits held
        for c in have:
            suits[c % 13] = suits.get(c % 13, 0) | 1 << (c // 13)
        total = 0.0
        for c in key:
            if c >= JOKER:
                continue
            rank, suit = c % 13, c // 13
            outs = 0.0
            held = suits[rank]
            if held & ~(1 << suit):  # a partner of its rank: a third suit makes a set
                outs += sum(live[s * 13 + rank] for s in range(4) if not held >> s & 1)
            for partner, needs in table[c]:
                if partner in have:
                    outs += sum(live[n] for n in needs)
            if outs:
                chance = 1 - (1 - w.draw_chance) ** (outs + wild / 2)  # a joker: if spare
                total += min(MAX_CHANCE, chance) * self.gain[c]
        self._partials[key] = total
        return total


@lru_cache(maxsize=64)  # per rules: the options' few combinations
def neighbours(rules: MeldRules) -> list[list[tuple[int, tuple[int, ...]]]]:
    """Per card: (a card one or two ranks away in its suit, the cards that would make a run of
    the two).  Position 13 is a high ace."""
    top = 13 if rules.ace_high else 12

    def card_at(suit: int, pos: int) -> int | None:
        if rules.around_corner or 0 <= pos <= top:
            return suit * 13 + pos % 13
        return None

    table: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(CARDS)]
    for c in range(JOKER):
        suit = c // 13
        for pos in ([0, 13] if c % 13 == 0 and rules.ace_high else [c % 13]):
            for step in (1, 2, -1, -2):
                partner = card_at(suit, pos + step)
                if partner is None or partner == c:
                    continue
                low = min(pos, pos + step)
                wanted = [low + 1] if abs(step) == 2 else [low - 1, low + 2]
                needs = tuple(n for n in (card_at(suit, p) for p in wanted) if n is not None)
                table[c].append((partner, needs))
    return table


@lru_cache(maxsize=512)
def candidates(hand: tuple[int, ...], rules: MeldRules,
               max_jokers: int) -> tuple[tuple[int, ...], ...]:
    """The melds ``hand`` can make with at most ``max_jokers`` jokers each: the engine's
    :func:`~cardtable.engine.tablemelds.candidate_melds`, computed run by run (a run
    window stops growing once it has more gaps than jokers)."""
    if rules.wild_rank is not None:  # wild ranks (Indian rummy): the engine's own list
        return tuple(candidate_melds(hand, rules, max_jokers))
    naturals = sorted({c for c in hand if c < JOKER})
    jokers = min(hand.count(JOKER), max_jokers)
    found: set[tuple[int, ...]] = set()
    by_rank: dict[int, list[int]] = {}
    for c in naturals:
        by_rank.setdefault(c % 13, []).append(c)
    for cards in by_rank.values():
        for size in range(1, min(len(cards), rules.max_set) + 1):
            for group in combinations(cards, size):
                for wild in range(jokers + 1):
                    if rules.min_set <= size + wild <= rules.max_set:
                        found.add((*group, *[JOKER] * wild))
    held = set(naturals)
    top = 13 if rules.ace_high else 12
    for suit in range(4):
        if not any(c // 13 == suit for c in naturals):
            continue
        for start in range(13 if rules.around_corner else top - rules.min_run + 2):
            present: list[int] = []
            gaps = 0
            for length in range(1, 14):
                pos = start + length - 1
                if not rules.around_corner and pos > top:
                    break
                card = suit * 13 + pos % 13
                if card in held:
                    present.append(card)
                else:
                    gaps += 1
                    if gaps > jokers:
                        break
                if length >= rules.min_run and present:
                    found.add((*sorted(present), *[JOKER] * gaps))
    return tuple(sorted(found))  # tuples of ints: the garbage collector stops tracking them
