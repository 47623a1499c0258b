"""The showdown: the knocker's spread, the defender's best lay-offs, the hand score.

The defender's reply is exact: every subset of the cards he could lay off
(chains along runs included) is tried, with the rest melded at minimum
deadwood, so he breaks his own melds whenever laying off saves more.  The
knocker's spread is then chosen to maximise his score against that reply:
keeping a run short, or a card out of a meld, can deny a lay-off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...cards import JOKER, format_cards
from ...melds import GIN_VALUES, InvalidMeld, Melding, Solver, make_meld
from .options import Options

_DEFAULT_OPTIONS = Options()
SOLVER = Solver()
"""Gin's minimum-deadwood solver: ace low only, court cards 10."""


def best_melding(cards: Iterable[int]) -> Melding:
    """A minimum-deadwood arrangement: ``.melds``, ``.deadwood`` (cards), ``.points``."""
    return SOLVER.best_melding(cards)


def deadwood(cards: Iterable[int]) -> int:
    """Minimum deadwood points of ``cards``."""
    return SOLVER.deadwood(cards)


def value(card: int) -> int:
    return GIN_VALUES[card % 13]


@dataclass(frozen=True)
class Layoff:
    card: int
    meld: int  # index into the knocker's melds


@dataclass(frozen=True)
class Settlement:
    """The outcome of one showdown.

    ``points`` are what ``scorer`` wins, bonuses and Oklahoma doubling
    included; ``scorer`` is ``None`` only for a tie when ties are not
    undercuts.
    """

    kind: str  # "knock", "undercut", "gin", "big_gin"
    scorer: str | None  # "knocker", "defender" or None
    points: int
    knocker_melds: tuple[tuple[int, ...], ...]
    knocker_deadwood: tuple[int, ...]
    knocker_points: int
    defender_melds: tuple[tuple[int, ...], ...]
    defender_deadwood: tuple[int, ...]
    defender_points: int
    layoffs: tuple[Layoff, ...] = ()
    multiplier: int = 1

    @property
    def arrangement(self) -> tuple[tuple[int, ...], ...]:
        """The knocker's melds (his spread)."""
        return self.knocker_melds

    def to_json(self) -> dict[str, Any]:
        def melds(ms: Sequence[Sequence[int]]) -> list[str]:
            return [format_cards(m) for m in ms]

        return {
            "kind": self.kind,
            "scorer": self.scorer,
            "points": self.points,
            "multiplier": self.multiplier,
            "knocker": {"melds": melds(self.knocker_melds),
                        "deadwood": format_cards(self.knocker_deadwood),
                        "points": self.knocker_points},
            "defender": {"melds": melds(self.defender_melds),
                         "deadwood": format_cards(self.defender_deadwood),
                         "points": self.defender_points},
            "layoffs": [{"card": format_cards([x.card]), "meld": x.meld} for x in self.layoffs],
        }


# -- the defender's reply --------------------------------------------------------

_End = tuple[str, int, int, int]  # ("set", rank, size, 0) or ("run", suit, low, high)


def _ends(melds: Sequence[Sequence[int]]) -> list[_End]:
    out: list[_End] = []
    for meld in melds:
        ranks = {c % 13 for c in meld}
        if len(ranks) == 1:
            out.append(("set", meld[0] % 13, len(meld), 0))
        else:
            out.append(("run", meld[0] // 13, min(ranks), max(ranks)))
    return out


def _extend(end: _End, card: int) -> _End | None:
    """The meld end after laying ``card`` off on it, or None if it does not fit."""
    kind, a, b, c = end
    if kind == "set":
        return (kind, a, b + 1, 0) if card % 13 == a and b < 4 else None
    if card // 13 != a:
        return None
    if card % 13 == b - 1:
        return (kind, a, b - 1, c)
    if card % 13 == c + 1:
        return (kind, a, b, c + 1)
    return None


def _candidates(defender: set[int], melds: Sequence[Sequence[int]]) -> list[int]:
    """Cards of the defender that could be laid off, following run chains outwards."""
    found: set[int] = set()
    for end in _ends(melds):
        kind, a, b, c = end
        if kind == "set":
            found.update(x for x in defender if x % 13 == a)
            continue
        for step, start in ((-1, b - 1), (1, c + 1)):
            rank = start
            while 0 <= rank <= 12 and a * 13 + rank in defender:
                found.add(a * 13 + rank)
                rank += step
    return sorted(found)


def _place(cards: list[int], ends: list[_End]) -> list[Layoff] | None:
    """Lay off all of ``cards`` in some order, or None if that cannot be done."""
    if not cards:
        return []
    for i, card in enumerate(cards):
        for j, end in enumerate(ends):
            grown = _extend(end, card)
            if grown is None:
                continue
            rest = _place([*cards[:i], *cards[i + 1 :]], [*ends[:j], grown, *ends[j + 1 :]])
            if rest is not None:
                return [Layoff(card, j), *rest]
    return None


def defend(
    defender: Sequence[int], knocker_melds: Sequence[Sequence[int]], layoffs_allowed: bool = True
) -> tuple[Melding, tuple[Layoff, ...]]:
    """The defender's least deadwood: his melding of what he keeps, and his lay-offs."""
    if not layoffs_allowed:
        return SOLVER.best_melding(defender), ()
    candidates = _candidates(set(defender), knocker_melds)
    ends = _ends(knocker_melds)
    best_points = SOLVER.deadwood(defender)
    best_cards: tuple[int, ...] = ()
    best_layoffs: tuple[Layoff, ...] = ()
    for subset in range(1, 1 << len(candidates)):
        chosen = [c for i, c in enumerate(candidates) if subset >> i & 1]
        kept = [c for c in defender if c not in chosen]
        points = SOLVER.deadwood(kept)
        if points >= best_points:
            continue
        placed = _place(chosen, ends)
        if placed is not None:
            best_points, best_cards, best_layoffs = points, tuple(chosen), tuple(placed)
    melding = SOLVER.best_melding([c for c in defender if c not in best_cards])
    return melding, best_layoffs


# -- the knocker's spread --------------------------------------------------------


def candidate_melds(cards: Sequence[int]) -> list[tuple[int, ...]]:
    """Every set and run that can be formed from ``cards`` (overlapping)."""
    held = set(cards)
    melds: list[tuple[int, ...]] = []
    for rank in range(13):
        same = [s * 13 + rank for s in range(4) if s * 13 + rank in held]
        if len(same) >= 3:
            melds.append(tuple(same))
        if len(same) == 4:
            melds.extend(tuple(x for x in same if x != skip) for skip in same)
    for suit in range(4):
        for low in range(13):
            high = low
            while high <= 12 and suit * 13 + high in held:
                if high - low >= 2:
                    melds.append(tuple(suit * 13 + r for r in range(low, high + 1)))
                high += 1
    unique = {tuple(sorted(m)): m for m in melds}
    return list(unique.values())


def spreads(cards: Sequence[int], limit: int) -> list[tuple[tuple[int, ...], ...]]:
    """Every arrangement of disjoint melds leaving at most ``limit`` deadwood."""
    melds = candidate_melds(cards)
    total = sum(value(c) for c in cards)
    out: list[tuple[tuple[int, ...], ...]] = []

    def walk(start: int, used: frozenset[int], chosen: list[tuple[int, ...]], left: int) -> None:
        if left <= limit:
            out.append(tuple(chosen))
        for i in range(start, len(melds)):
            meld = melds[i]
            if used.isdisjoint(meld):
                chosen.append(meld)
                walk(i + 1, used.union(meld), chosen, left - sum(value(c) for c in meld))
                chosen.pop()

    walk(0, frozenset(), [], total)
    return out


def _check_spread(cards: Sequence[int], melds: Sequence[Sequence[int]]) -> None:
    used: list[int] = [c for meld in melds for c in meld]
    if len(set(used)) != len(used) or not set(used) <= set(cards):
        raise ValueError("the spread must use cards from the knocker's hand, each at most once")
    for meld in melds:
        try:
            make_meld(meld)
        except InvalidMeld as error:
            raise ValueError(f"{format_cards(meld)}: {error}") from None


def _score(kind: str, knocker: int, defender: int, options: Options) -> tuple[str, str | None, int]:
    """(kind, scorer, points) before doubling."""
    if kind == "gin":
        return kind, "knocker", defender + options.gin_bonus
    if kind == "big_gin":
        return kind, "knocker", defender + options.big_gin_bonus
    if knocker < defender:
        return "knock", "knocker", defender - knocker
    if knocker == defender and not options.undercut_on_tie:
        return "knock", None, 0
    return "undercut", "defender", knocker - defender + options.undercut_bonus


def settle(
    knocker_cards: Sequence[int],
    defender_cards: Sequence[int],
    options: Options | None = None,
    *,
    knock_limit: int | None = None,
    multiplier: int = 1,
    arrangement: Sequence[Sequence[int]] | None = None,
) -> Settlement:
    """Score a knock: the knocker holds 10 cards after his discard, 11 for big gin.

    Without an ``arrangement`` the knocker's spread is the one that scores
    best for him against the defender's best reply.  ``knock_limit`` defaults
    to the options' limit (Oklahoma passes the upcard's); ``multiplier`` is 2
    for an Oklahoma spade hand.  ``ValueError`` if the knock is not allowed.
    """
    options = options or _DEFAULT_OPTIONS
    limit = options.knock_limit if knock_limit is None else knock_limit
    knocker, defender = list(knocker_cards), list(defender_cards)
    everything = knocker + defender
    if len(set(everything)) != len(everything) or any(c < 0 or c >= JOKER for c in everything):
        raise ValueError("the two hands must be distinct cards of one pack, without jokers")
    if len(defender) != 10 or len(knocker) not in (10, 11):
        raise ValueError("the knocker holds 10 cards (11 for big gin) and the defender 10")

    if len(knocker) == 11:
        if not options.big_gin_bonus:
            raise ValueError("big gin is not played with these options")
        own = SOLVER.best_melding(knocker)
        if own.points:
            raise ValueError(f"big gin needs all 11 cards melded; deadwood is {own.points}")
        reply = SOLVER.best_melding(defender)
        return _settlement("big_gin", own.melds, (), reply, (), options, multiplier)

    if arrangement is not None:
        _check_spread(knocker, arrangement)
        candidates = [tuple(tuple(m) for m in arrangement)]
    else:
        candidates = spreads(knocker, limit)
    best: Settlement | None = None
    for spread in candidates:
        used = {c for meld in spread for c in meld}
        loose = tuple(c for c in knocker if c not in used)
        points = sum(value(c) for c in loose)
        if points > limit:
            raise ValueError(f"deadwood {points} is above the knock limit {limit}")
        kind = "gin" if points == 0 else "knock"
        reply, layoffs = defend(defender, spread, layoffs_allowed=kind == "knock")
        result = _settlement(kind, spread, loose, reply, layoffs, options, multiplier)
        if best is None or _net(result) > _net(best):
            best = result
    if best is None:
        least = SOLVER.deadwood(knocker)
        raise ValueError(f"deadwood {least} is above the knock limit {limit}")
    return best


def _net(s: Settlement) -> int:
    return {"knocker": s.points, "defender": -s.points}.get(s.scorer or "", 0)


def _settlement(
    kind: str,
    spread: Sequence[tuple[int, ...]],
    loose: tuple[int, ...],
    reply: Melding,
    layoffs: tuple[Layoff, ...],
    options: Options,
    multiplier: int,
) -> Settlement:
    knocker_points = sum(value(c) for c in loose)
    kind, scorer, points = _score(kind, knocker_points, reply.points, options)
    return Settlement(
        kind=kind, scorer=scorer, points=points * multiplier,
        knocker_melds=tuple(spread), knocker_deadwood=loose, knocker_points=knocker_points,
        defender_melds=reply.melds, defender_deadwood=reply.deadwood,
        defender_points=reply.points, layoffs=layoffs, multiplier=multiplier,
    )
