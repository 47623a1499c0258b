"""How good a ten-card Gin hand is for the hard player: its deadwood now, and the
deadwood it can expect after one more draw from the stock.

``Evaluator(reading).score(hand)`` is in deadwood points (lower is better): the
deadwood less ``HORIZON * (1 - weight)`` times what the next draw is expected to save,
the next card being one of the unseen cards, each as likely as it is to be in the stock
(not in the opponent's hand).  The expectation is what makes flexible hands worth
keeping: a two-way connector (7♥ 8♥) has two outs, a lone king none, and a card whose
meld chances are gone (its neighbours in the pile or in his picks) is just its points.

The weight on today's deadwood (against the future) grows as the stock runs down and
as the opponent picks up cards: the shorter the hand is likely to last, the more the
present counts.

Only the draws that can meld with the hand (its *outs*) need the solver; any other card
either replaces the hand's highest deadwood card or is thrown back, which a table of
the unseen cards' values answers at once.

>>> from cardtable.engine.cards import parse
>>> from cardtable.bots.gin.hard_read import read
>>> view = {"seat": 0, "phase": "discard", "stock": 25, "knock_limit": 10,
...         "hands": [{"cards": []}, {"count": 10, "picked": []}], "discard": ["2c"]}
>>> ev = Evaluator(read(view))
>>> ev.expected(parse("7h 8h Kc Kd 3s 4c 9d Tc Qs Js")) < ev.expected(
...     parse("7h 9h Kc Kd 3s 4c 9d Tc Qs Js"))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.bots.gin.hard_read import Reading
from cardtable.engine.games.gin.showdown import SOLVER, value

_FULL = 0x1FFF
CACHE_SIZE = 1 << 16
"""Entries each cache holds at most (ten-card hands; hand and draw pairs)."""
_VALUES = [value(c) for c in range(52)]

WEIGHT_BASE = 0.3
"""Weight of today's deadwood (against next turn's expected) right after the deal..."""
WEIGHT_STAGE = 0.5
"""...plus this much by the time the stock reaches the floor..."""
WEIGHT_PICK = 0.1
"""...plus this much per card the opponent picked up (he is building fast)."""
HORIZON = 2.0
"""How many draws' worth of the next draw's expected saving a hand is credited with
(more draws follow, but each may find the hand already improved)."""


def _masks(cards: Sequence[int]) -> list[int]:
    masks = [0, 0, 0, 0]
    for c in cards:
        masks[c // 13] |= 1 << (c % 13)
    return masks


def outs(cards: Sequence[int]) -> list[int]:
    """Cards that would make a meld with two of ``cards`` (or extend one of their melds).

    >>> from cardtable.engine.cards import parse, format_cards
    >>> format_cards(sorted(outs(parse("7h 8h 4c 4d"))))
    '4h 6h 9h 4s'
    """
    s = _masks(cards)
    pairs = (s[0] & s[1]) | (s[0] & s[2]) | (s[0] & s[3]) | (s[1] & s[2]) | (s[1] & s[3]) | \
        (s[2] & s[3])
    found = []
    for suit in range(4):
        m = s[suit]
        runs = ((m >> 1) & (m >> 2)) | ((m << 1) & (m >> 1)) | ((m << 1) & (m << 2))
        want = (runs | pairs) & ~m & _FULL
        while want:
            low = want & -want
            want ^= low
            found.append(suit * 13 + low.bit_length() - 1)
    return found


_SHAPES: dict[int, tuple[int, int, tuple[int, ...]]] = {}
_SAVINGS: dict[tuple[int, int], int] = {}


def _remember(cache: dict[Any, Any], key: Any, found: Any) -> None:
    if len(cache) >= CACHE_SIZE:
        cache.clear()  # a crude bound: a fresh start costs a few decisions' work
    cache[key] = found


def _shape(key: int, hand: Sequence[int]) -> tuple[int, int, tuple[int, ...]]:
    """A ten-card hand on its own (``key`` its 52-bit mask): its deadwood, its highest
    deadwood card's value, and its outs."""
    found = _SHAPES.get(key)
    if found is None:
        melding = SOLVER.best_melding(hand)
        high = max((_VALUES[c] for c in melding.deadwood), default=0)
        found = (melding.points, high, tuple(outs(hand)))
        _remember(_SHAPES, key, found)
    return found


def _saving(key: int, hand: Sequence[int], card: int, now: int, high: int) -> int:
    """What drawing ``card`` (an out of ``hand``) saves beyond replacing the hand's
    highest deadwood card: zero or less."""
    found = _SAVINGS.get((key, card))
    if found is None:
        plain = now - max(0, high - _VALUES[card])
        exact, _ = SOLVER.best_discard([*hand, card])
        found = min(0, exact - plain)
        _remember(_SAVINGS, (key, card), found)
    return found


class Evaluator:
    """Scores ten-card hands against one reading of the table."""

    def __init__(self, reading: Reading, weight: float | None = None):
        self.reading = reading
        draw = {c: max(0.0, 1.0 - reading.p_opp.get(c, 0.0)) for c in reading.unseen}
        total = sum(draw.values()) or 1.0
        self.draw = {c: w / total for c, w in draw.items()}
        # below[h]: expected points saved when the next card (if it melds with nothing)
        # replaces a deadwood card worth h: the chance-weighted max(0, h - its value).
        by_value = [0.0] * 11
        for c, w in self.draw.items():
            by_value[_VALUES[c]] += w
        self.below = [sum(by_value[v] * (h - v) for v in range(1, h)) for h in range(11)]
        if weight is None:
            picks = len(reading.opp_picked)
            weight = min(0.9, WEIGHT_BASE + WEIGHT_STAGE * reading.stage + WEIGHT_PICK * picks)
        self.weight = weight

    def measure(self, hand: Sequence[int]) -> tuple[int, float]:
        """(deadwood now, expected deadwood after one more draw and the best discard)."""
        key = 0
        for c in hand:
            key |= 1 << c
        now, high, hand_outs = _shape(key, hand)
        expected = now - self.below[high]
        draw = self.draw
        for card in hand_outs:
            chance = draw.get(card)
            if chance:
                expected += chance * _saving(key, hand, card, now, high)
        return now, expected

    def expected(self, hand: Sequence[int]) -> float:
        return self.measure(hand)[1]

    def score(self, hand: Sequence[int]) -> float:
        """Lower is better: today's deadwood and tomorrow's, weighed by the stage."""
        now, expected = self.measure(hand)
        return now - HORIZON * (1 - self.weight) * (now - expected)


__all__ = ["CACHE_SIZE", "Evaluator", "outs"]
