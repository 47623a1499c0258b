"""How good a 13-card Indian Rummy hand is, for :mod:`cardtable.bots.indian.normal`.

The engine's exact arranger (:mod:`cardtable.engine.games.indian.arrange`)
says what a hand counts *now*; a player also needs to know how far it is
from a show.  The count alone cannot tell: without the lives (two
sequences, one pure) every card counts, so early in a deal "lowest count"
would mean "throw the highest card", which breaks the very pairs that grow
into the pure sequence.  :func:`shape` therefore scores a hand as

    loose cards' value (cards in a two-card draw count part)
    + PURE_COST per card still missing from a pure sequence
    + SEQ_COST per card still missing from the second sequence
    + late in a deal without the lives, part of the grouped cards' value

where the groups and loose cards come from the arranger (with the lives
when it finds them, else its lowest grouping), and the missing cards from
the hand's per-suit "seeds": a run (none missing), two cards of a suit at
most two ranks apart (one missing), a single card (two missing).  Jokers
cannot complete the pure sequence, but they fill the second one.  A pure
card counts more than a second-sequence card: the pure sequence comes first.

The weights were compared in bot-against-bot deals (1,000 two-player deals a
variant): halving or doubling any of them moves the result by less than the
noise, so they stay at values that read as the rules of thumb they encode.

>>> from cardtable.engine.cards import parse
>>> from cardtable.engine.games.indian import Rules
>>> live = shape(tuple(sorted(parse("3h 4h 5h 9s Ts Jk Qs Kc Kd Kh 2c 2d 7c"))), None, Rules())
>>> live.lives, live.counted, live.need  # 2c 2d 7c loose
(True, 11, 0)
>>> dead = shape(tuple(sorted(parse("3h 5h 9s Ts Qc Kc Kd Kh 2c 2d 7c Qs 4d"))), None, Rules())
>>> dead.lives, dead.need  # 4h is missing from the pure run, 9s Ts need one card
(False, 2)
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from cardtable.engine.cards import JOKER
from cardtable.engine.games.indian import Rules, arrange, card_value

PURE_COST = 16.0
"""Per card missing from the pure sequence: above any loose card, so no loose card is
kept at the price of a pure-sequence prospect."""
SEQ_COST = 8.0
"""Per card missing from the second sequence (a joker fills it)."""
LINK_DISCOUNT = 0.45
"""A loose card in a two-card draw (pure-sequence pair or set pair) counts this much less:
it is one card away from a group."""
SET_LINK_DISCOUNT = 0.3
"""A set pair is worth less than a sequence pair: it never gives a life."""
LATE_RISK = 0.25
"""Late in a deal (``late`` 1), without the lives, this share of the cards the groups
protect counts too: at somebody's show every card of such a hand counts."""


class Shape(NamedTuple):
    """A hand's standing: ``score`` (lower is better) and what it is made of."""

    score: float
    lives: bool  # the arranger finds the lives (two sequences, one pure)
    counted: int  # what the hand counts now (uncapped), as the engine scores it
    need: int  # cards still missing for the lives (an estimate; 0 with the lives)
    loose: tuple[int, ...]  # cards outside the arranger's groups (jokers never)


def is_joker(card: int, wild: int | None) -> bool:
    return card >= JOKER or card % 13 == wild


def suit_masks(cards: tuple[int, ...]) -> list[int]:
    """A bit per held rank of each suit; bit 13 repeats the ace above the king."""
    masks = [0, 0, 0, 0]
    for c in cards:
        if c < JOKER:
            masks[c // 13] |= 1 << (c % 13)
    return [m | (m & 1) << 13 for m in masks]


@lru_cache(maxsize=1 << 14)
def _suit_seeds(mask: int) -> tuple[int, ...]:
    """Disjoint sequence seeds of one suit, as cards missing: runs 0, pairs 1, singles 2."""
    positions = [p for p in range(14) if mask >> p & 1]
    used: set[int] = set()
    seeds: list[int] = []

    def take(*ps: int) -> None:
        for p in ps:
            used.update({p, 13} if p == 0 else {p, 0} if p == 13 else {p})

    i = 0
    while i < len(positions):  # maximal runs of three or more
        j = i
        while j + 1 < len(positions) and positions[j + 1] == positions[j] + 1:
            j += 1
        block = [p for p in positions[i:j + 1] if p not in used]
        if len(block) >= 3 and block[-1] - block[0] == len(block) - 1:
            seeds.append(0)
            take(*block)
        i = j + 1
    for gap in (1, 2):  # pairs: adjacent first, then one apart
        for p in positions:
            q = p + gap
            if p not in used and q in positions and q not in used:
                seeds.append(1)
                take(p, q)
    singles = {p % 13 for p in positions if p not in used}
    seeds += [2] * len(singles)
    return tuple(sorted(seeds))


def lives_need(cards: tuple[int, ...], wild: int | None, rules: Rules) -> tuple[int, int]:
    """(cards missing from a pure sequence, cards missing from a second sequence)."""
    naturals = tuple(c for c in cards if c < JOKER)  # a wild card may stand as itself
    jokers = sum(is_joker(c, wild) for c in cards)
    seeds = sorted(s for m in suit_masks(naturals) for s in _suit_seeds(m))
    pure = seeds[0] if seeds else 3
    second = seeds[1] if len(seeds) > 1 else 3
    if jokers >= 3 and rules.joker_group == "sequence":
        second = 0  # three jokers are a sequence on their own
    # the wild cards were seeds too: read them as jokers for the second sequence
    return pure, max(0, second - jokers)


def links(loose: list[int], wild: int | None) -> dict[int, float]:
    """Per loose natural, the share of its value a two-card draw with another loose card
    takes off: a pure-sequence pair (same suit, at most two ranks apart) or a set pair."""
    off: dict[int, float] = {}
    naturals = [c for c in loose if not is_joker(c, wild)]
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if a == b:
                continue  # two copies of a card make neither a set nor a run
            if a % 13 == b % 13:
                share = SET_LINK_DISCOUNT
            elif a // 13 == b // 13 and _close(a % 13, b % 13):
                share = LINK_DISCOUNT
            else:
                continue
            for c in (a, b):
                off[c] = max(off.get(c, 0.0), share)
    return off


def _close(r: int, s: int) -> bool:
    """Ranks at most two apart, the ace also above the king (Q-A, K-A), never K-A-2 around."""
    d = abs(r - s)
    return d <= 2 or (min(r, s) == 0 and max(r, s) >= 11)


def loose_cards(cards: tuple[int, ...], solution: arrange.Solution) -> list[int]:
    """The naturals outside the solution's groups (jokers cost nothing wherever they go)."""
    left = Counter(c for c in cards if c < JOKER)
    left.subtract(solution.stand_ins)
    for group in solution.groups:
        left.subtract(group.naturals)
    return sorted(left.elements())


@lru_cache(maxsize=1 << 12)
def shape(cards: tuple[int, ...], wild: int | None, rules: Rules, late: float = 0.0) -> Shape:
    """The standing of a (sorted) hand: see the module docstring.  ``late``: how far the
    deal has gone, 0 (dealt) to 1 (others may show any time)."""
    solution = arrange.solve(cards, wild, rules)
    loose = loose_cards(cards, solution)
    return _standing(cards, tuple(loose), solution.lives, solution.points, wild, rules, late)


@lru_cache(maxsize=1 << 12)
def shape_without(cards: tuple[int, ...], card: int, wild: int | None, rules: Rules,
                  late: float = 0.0) -> Shape:
    """The standing of a (sorted) hand less ``card``, without a new search when the card is
    loose: its best grouping is then the hand's own (a better one for the smaller hand,
    plus the card left loose, would beat the hand's best), and so are its lives."""
    whole = shape(cards, wild, rules, late)
    rest = list(cards)
    rest.remove(card)
    if card not in whole.loose:
        return shape(tuple(rest), wild, rules, late)
    loose = list(whole.loose)
    loose.remove(card)
    return _standing(tuple(rest), tuple(loose), whole.lives,
                     whole.counted - card_value(card, wild), wild, rules, late)


def _standing(cards: tuple[int, ...], loose: tuple[int, ...], lives: bool, count: int,
              wild: int | None, rules: Rules, late: float) -> Shape:
    off = links(list(loose), wild)
    value = sum(card_value(c, wild) * (1.0 - off.get(c, 0.0)) for c in loose)
    if lives:
        return Shape(value, True, count, 0, loose)
    pure, second = lives_need(cards, wild, rules)
    score = value + PURE_COST * pure + SEQ_COST * second
    protected = sum(card_value(c, wild) for c in cards) - sum(card_value(c, wild) for c in loose)
    score += LATE_RISK * late * protected
    return Shape(score, False, count, max(1, pure + second), loose)
