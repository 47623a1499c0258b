"""How good a 13-card Indian Rummy hand is for the ``hard`` player: the normal
player's standing (:mod:`cardtable.bots.indian.normal_eval`) made aware of which cards
are still out there, and of how many cards the hand is from a show.

The normal player discounts every two-card draw (7♥ 8♥, 7♥ 7♣) alike.  Here a
draw counts by its **outs**: the copies of the cards that complete it which
the seat has not seen (its own hand, the wild joker card, the open deck's top
card, the cards others took from the open deck).  A draw whose outs are all
gone is no draw at all, and an open-ended pair (two ends, up to four copies)
beats a gap (one card, two copies).

It also counts **cards away**: a show needs every card grouped, so a hand of
many loose low cards is further from it than one of a few high ones, which
is what the count alone would say.  Each loose card no draw holds counts
:data:`AWAY_COST`, one in a draw half of it.

Scores are lower-is-better, like :func:`cardtable.bots.indian.normal_eval.shape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from cardtable.engine.cards import JOKER
from cardtable.engine.games.indian import Rules, arrange, card_value

from .normal_eval import LATE_RISK, PURE_COST, SEQ_COST, is_joker, lives_need, loose_cards

AWAY_COST = 3.0
"""Per loose card no draw holds (half of it per card in a draw): cards still to find."""
RUN_LINK = 0.5
"""Share of a loose card's value a sequence draw with all its outs takes off."""
SET_LINK = 0.3
"""The same for a set pair: it never gives a life."""
FULL_OUTS = 4
"""Outs at which a draw counts in full (two ends of two copies each)."""
VALUE_WEIGHT = 1.0
"""Weight of the loose cards' count beside the cards away."""


class Standing(NamedTuple):
    """A hand's standing for the hard player (``score``: lower is better)."""

    score: float
    lives: bool  # two sequences, one pure, among the arranger's groups
    counted: int  # what the hand would pay now (uncapped)
    loose: tuple[int, ...]  # naturals outside the arranger's groups
    away: float  # about how many cards the hand is from a show


Unseen = Sequence[int]
"""Per card 0..52: the copies the seat has not seen (52: printed jokers)."""


def unseen_copies(decks: int, seen: Sequence[int]) -> list[int]:
    """How many copies of each card the seat has not seen, given every card it saw."""
    left = [decks] * 53
    for c in seen:
        if left[c] > 0:
            left[c] -= 1
    return left


def run_outs(a: int, b: int, unseen: Unseen) -> int:
    """Copies still out that make a pure sequence of ``a`` and ``b`` (one suit, ranks at
    most two apart; the ace also above the king, never K-A-2)."""
    suit = a // 13
    lo, hi = sorted((_position(a, b), _position(b, a)))
    if hi - lo == 2:
        return unseen[suit * 13 + (lo + 1) % 13]
    outs = 0
    for p in (lo - 1, hi + 1):
        if 0 <= p <= 13:
            outs += unseen[suit * 13 + p % 13]
    return outs


def _position(c: int, other: int) -> int:
    """The rank position of ``c`` next to ``other``: an ace sits above a queen or a king."""
    r = c % 13
    return 13 if r == 0 and other % 13 >= 11 else r


def set_outs(a: int, b: int, unseen: Unseen) -> int:
    """Copies still out of the pair's rank in the two suits it lacks."""
    rank = a % 13
    return sum(unseen[s * 13 + rank] for s in range(4) if s not in (a // 13, b // 13))


def draws(loose: Sequence[int], wild: int | None, unseen: Unseen) -> dict[int, float]:
    """Per loose natural, the best share of its value a live two-card draw takes off."""
    off: dict[int, float] = {}
    naturals = [c for c in loose if not is_joker(c, wild)]
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if a == b:
                continue
            if a % 13 == b % 13:
                share = SET_LINK * min(1.0, set_outs(a, b, unseen) / FULL_OUTS)
            elif a // 13 == b // 13 and _close(a % 13, b % 13):
                share = RUN_LINK * min(1.0, run_outs(a, b, unseen) / FULL_OUTS)
            else:
                continue
            if share > 0.0:
                for c in (a, b):
                    if share > off.get(c, 0.0):
                        off[c] = share
    return off


def _close(r: int, s: int) -> bool:
    d = abs(r - s)
    return d <= 2 or (min(r, s) == 0 and max(r, s) >= 11)


def standing(cards: tuple[int, ...], wild: int | None, rules: Rules, late: float,
             unseen: Unseen) -> Standing:
    """The standing of a sorted 13-card hand (see the module docstring)."""
    solution = arrange.solve(cards, wild, rules)
    loose = tuple(loose_cards(cards, solution))
    return _judge(cards, loose, solution.lives, solution.points, wild, rules, late, unseen)


def standing_without(cards: tuple[int, ...], card: int, wild: int | None, rules: Rules,
                     late: float, unseen: Unseen) -> Standing:
    """The standing of a sorted hand less ``card``; a loose card's removal keeps the hand's
    best grouping (see :func:`cardtable.bots.indian.normal_eval.shape_without`), so no new
    search."""
    rest = list(cards)
    rest.remove(card)
    solution = arrange.solve(cards, wild, rules)
    loose = loose_cards(cards, solution)
    if card not in loose:
        return standing(tuple(rest), wild, rules, late, unseen)
    loose.remove(card)
    return _judge(tuple(rest), tuple(loose), solution.lives,
                  solution.points - card_value(card, wild) if solution.lives
                  else sum(card_value(c, wild) for c in rest), wild, rules, late, unseen)


def _judge(cards: tuple[int, ...], loose: tuple[int, ...], lives: bool, count: int,
           wild: int | None, rules: Rules, late: float, unseen: Unseen) -> Standing:
    off = draws(loose, wild, unseen)
    value = 0.0
    away = 0.0
    for c in loose:
        share = off.get(c, 0.0)
        value += card_value(c, wild) * (1.0 - share)
        away += 0.5 if share > 0.0 else 1.0
    score = VALUE_WEIGHT * value + AWAY_COST * away
    if lives:
        return Standing(score, True, count, loose, away)
    pure, second = lives_need(cards, wild, rules)
    score += PURE_COST * pure + SEQ_COST * second
    protected = sum(card_value(c, wild) for c in cards if c < JOKER) - \
        sum(card_value(c, wild) for c in loose)
    score += LATE_RISK * late * protected
    return Standing(score, False, count, loose, away + pure + second)


__all__ = ["AWAY_COST", "Standing", "draws", "lives_need", "run_outs", "set_outs", "standing",
           "standing_without", "unseen_copies"]
