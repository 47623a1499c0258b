"""What the hard Gin player reads from its view: the cards it cannot see, how likely
the opponent holds each, how much a discard would feed him, and his likely deadwood.

Everything comes from ``view`` (``state.view(seat)``), rebuilt at every decision:

* **unseen** cards: not in our hand, not in the discard pile, not among the cards the
  opponent picked up (those are known to be his);
* **declined** cards: every card in the discard pile is one the opponent threw or let
  pass (a card we threw that he wanted he would have taken), so he held no two cards
  that meld with it at that time;
* his **picks** (the view's ``picked``) meld with cards he holds, so the unseen cards
  next to them are likelier in his hand.

>>> from cardtable.engine.cards import parse
>>> r = read({"seat": 0, "phase": "draw", "dealer": 1, "stock": 20, "knock_limit": 10,
...           "hands": [{"cards": "Ac 2c 3c 4d 5d 6d 7h 8h 9h Ks".split()},
...                     {"count": 10, "picked": ["Qh"]}],
...           "discard": ["5s", "Js"], "upcard": "5s", "options": {}})
>>> len(r.unseen), r.opp_hidden, sorted(r.opp_picked) == parse("Qh")
(39, 9, True)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.cards import parse
from cardtable.engine.games.gin.showdown import SOLVER, defend, value

View = dict[str, Any]

FULL_STOCK = 31
"""Cards in the stock right after the deal."""

PICK_BOOST = 1.7
"""How much likelier an unseen card is in the opponent's hand when it sits next to (same
rank, or one or two ranks away in its suit) a card he picked up: picks meld."""

DECLINE_DAMP = 0.85
"""How much less likely, per declined card of the same rank or one rank away in its suit."""

EXTRA_MOST = 15
"""A guessed hand is the best ten of ten plus this many cards at most (half his stock
draws, and at most half the spare unseen cards).  A cautious reading on purpose: past
the first turns it rates his hand better than an average player's, so knocks are made
early or on a clear margin (measured: a fairer reading knocked more and won less)."""

STALE_PAIR = 0.3
"""What is left of a two-card meld start he would have used on a card he declined (he
may have drawn into it since)."""


@dataclass
class Reading:
    """One decision's knowledge; ``p_opp`` maps each unseen card to the chance he holds it."""

    seat: int
    hand: list[int]
    pile: list[int]
    opp_picked: frozenset[int]
    declined: frozenset[int]
    unseen: list[int]
    opp_hidden: int
    stock: int
    knock_limit: int
    options: dict[str, Any]
    p_opp: dict[int, float] = field(default_factory=dict)

    @property
    def floor(self) -> int:
        return int(self.options.get("stock_floor", 2))

    @property
    def stage(self) -> float:
        """0 right after the deal, 1 when the stock reaches the floor."""
        span = max(1, FULL_STOCK - self.floor)
        return min(1.0, max(0.0, 1 - (self.stock - self.floor) / span))

    def holds(self, card: int) -> float:
        """Chance the opponent holds ``card``: 1 for his picks, 0 for what is seen."""
        if card in self.opp_picked:
            return 1.0
        return self.p_opp.get(card, 0.0)


def read(view: View) -> Reading:
    """The knowledge of ``view``'s seat about the hand in play."""
    seat = view["seat"]
    hands = view["hands"]
    hand = parse(" ".join(hands[seat].get("cards", [])))
    opp = hands[1 - seat]
    opp_picked = frozenset(parse(" ".join(opp.get("picked", []))))
    pile = parse(" ".join(view.get("discard", [])))
    declined = set(pile)
    if view.get("phase") == "first_upcard" and view.get("dealer") != seat and pile:
        declined.discard(pile[0])  # the dealer has not been offered the upcard yet
    seen = set(hand) | set(pile) | opp_picked
    unseen = [c for c in range(52) if c not in seen]
    opp_hidden = max(0, int(opp.get("count", 10)) - len(opp_picked))
    reading = Reading(seat, hand, pile, opp_picked, frozenset(declined), unseen, opp_hidden,
                      int(view.get("stock", 0)), int(view.get("knock_limit", 10)),
                      dict(view.get("options") or {}))
    reading.p_opp = _opponent_odds(reading)
    return reading


def _near(card: int) -> list[int]:
    """Cards that can share a meld with ``card`` as its closest partners."""
    rank, suit = card % 13, card // 13
    out = [s * 13 + rank for s in range(4) if s != suit]
    out += [suit * 13 + r for r in (rank - 2, rank - 1, rank + 1, rank + 2) if 0 <= r <= 12]
    return out


def _opponent_odds(r: Reading) -> dict[int, float]:
    if not r.unseen or not r.opp_hidden:
        return dict.fromkeys(r.unseen, 0.0)
    weight = dict.fromkeys(r.unseen, 1.0)
    for picked in r.opp_picked:
        for c in _near(picked):
            if c in weight:
                weight[c] *= PICK_BOOST
    for thrown in r.declined:
        rank, suit = thrown % 13, thrown // 13
        close = [s * 13 + rank for s in range(4) if s != suit]
        close += [suit * 13 + x for x in (rank - 1, rank + 1) if 0 <= x <= 12]
        for c in close:
            if c in weight:
                weight[c] *= DECLINE_DAMP
    scale = r.opp_hidden / sum(weight.values())
    return {c: min(0.95, w * scale) for c, w in weight.items()}


def meld_partners(card: int) -> list[tuple[int, int, int | None]]:
    """Each pair of cards that makes a meld with ``card``, with the card that would have
    made a meld with the same pair in place of ``card`` (or ``None``): ``(a, b, other)``."""
    rank, suit = card % 13, card // 13
    same = [s * 13 + rank for s in range(4) if s != suit]
    out: list[tuple[int, int, int | None]] = []
    for i in range(3):
        for j in range(i + 1, 3):
            out.append((same[i], same[j], same[3 - i - j]))
    base = suit * 13
    if rank >= 2:
        out.append((base + rank - 2, base + rank - 1, base + rank - 3 if rank >= 3 else None))
    if 1 <= rank <= 11:
        out.append((base + rank - 1, base + rank + 1, None))
    if rank <= 10:
        out.append((base + rank + 1, base + rank + 2, base + rank + 3 if rank <= 9 else None))
    return out


def feeds(r: Reading, card: int) -> float:
    """Chance the opponent can meld ``card`` if we throw it (he holds a pair for it)."""
    miss = 1.0
    for a, b, other in meld_partners(card):
        chance = r.holds(a) * r.holds(b)
        if chance and other is not None and other in r.declined:
            chance *= STALE_PAIR
        miss *= 1 - chance
    return 1 - miss


def _seed(r: Reading) -> int:
    """A seed fixed by what the seat sees, so the same view gives the same move."""
    bits = 0
    for c in r.hand:
        bits |= 1 << c
    for i, c in enumerate(r.pile):
        bits ^= (c + 1) << (52 + i % 8 * 6)
    return bits ^ r.stock


def likely_hands(r: Reading, count: int) -> list[list[int]]:
    """``count`` guesses at the opponent's hand: his picks, and unseen cards drawn by their
    odds, with as many extra as he has drawn from the stock, the worst thrown again (he
    has kept the best of what he saw)."""
    rng = random.Random(_seed(r))
    extra = max(0, min(EXTRA_MOST, (FULL_STOCK - r.stock) // 2,
                       (len(r.unseen) - r.opp_hidden) // 2))
    return [kept_hand(r, rng, extra) for _ in range(count)]


def kept_hand(r: Reading, rng: random.Random, extra: int, *,
              picks_stay: bool = False) -> list[int]:
    """A guess at the opponent's hand: his picks and ``extra`` more unseen cards than he
    hides, drawn by their odds, then the worst card thrown again ``extra`` times (never
    one of his picks if ``picks_stay``)."""
    need = r.opp_hidden + extra
    keyed = [(c, r.p_opp.get(c, 0.0) + 0.02) for c in r.unseen]
    # Weighted sampling without replacement (a random key per card, the largest win).
    order = sorted(keyed, key=lambda cw: rng.random() ** (1 / cw[1]), reverse=True)
    held = [*r.opp_picked, *(c for c, _ in order[:need])]
    for _ in range(extra):
        if picks_stay:
            after = SOLVER.deadwood_after_each_discard(held)
            held.remove(min((left, -value(c), c) for c, left in after.items()
                            if c not in r.opp_picked)[2])
        else:
            held.remove(_worst(held))
    return held


WORLD_EXTRA_SHARE, WORLD_EXTRA_MOST = 0.75, 5
"""The expert's worlds (:func:`world_guess`): the opponent kept the best of his ten and
this share of his stock draws, at most this many.  Chosen on hard v hard play
(``python bench/gin_worlds.py --matches 60``): his deadwood at our turn averages 38 / 22 /
12 / 8 / 6 as the stock runs down (stock 25-31 / 20-24 / 15-19 / 10-14 / 2-9), in these
worlds 45 / 27 / 14 / 8 / 4, in uniformly dealt ones 55 / 53 / 50 / 45 / 35."""


def world_guess(r: Reading, rng: random.Random) -> list[int]:
    """The opponent's hidden cards in one of the expert's worlds: a real opponent kept
    what melds, so a hand dealt uniformly from the unseen cards (deadwood near 40 when
    his is near 10) makes every knock look safe."""
    if not r.opp_hidden:
        return []
    draws = max(0, (FULL_STOCK - r.stock) // 2)
    extra = max(0, min(round(WORLD_EXTRA_SHARE * draws), WORLD_EXTRA_MOST,
                       len(r.unseen) - r.opp_hidden))
    return [c for c in kept_hand(r, rng, extra, picks_stay=True) if c not in r.opp_picked]


def _worst(cards: list[int]) -> int:
    """The card to throw from ``cards`` to keep the least deadwood."""
    try:
        return SOLVER.best_discard(cards)[1]
    except ValueError:  # all in sets of four: any card will do
        return max(cards, key=value)


def knock_outcomes(r: Reading, kept: Sequence[int], guesses: Iterable[list[int]]) -> list[int]:
    """What knocking with ``kept`` (our ten cards) scores against each guessed hand:
    positive for us, negative when he undercuts."""
    melding = SOLVER.best_melding(kept)
    mine = melding.points
    gin_bonus = int(r.options.get("gin_bonus", 25))
    undercut = int(r.options.get("undercut_bonus", 25))
    tie_undercuts = bool(r.options.get("undercut_on_tie", True))
    out = []
    for guess in guesses:
        if mine == 0:
            out.append(SOLVER.deadwood(guess) + gin_bonus)
            continue
        his = defend(guess, melding.melds)[0].points
        if mine < his:
            out.append(his - mine)
        elif mine == his and not tie_undercuts:
            out.append(0)
        else:
            out.append(-(mine - his + undercut))
    return out


def deadwood_after_best(cards: Sequence[int], keep: int | None = None) -> tuple[int, int]:
    """(least deadwood, card to throw) of an eleven-card hand, never throwing ``keep``."""
    after = SOLVER.deadwood_after_each_discard(cards)
    return min((left, -value(c), c) for c, left in after.items() if c != keep)[0::2]


__all__ = ["Reading", "deadwood_after_best", "feeds", "kept_hand", "knock_outcomes",
           "likely_hands", "meld_partners", "read", "world_guess"]
