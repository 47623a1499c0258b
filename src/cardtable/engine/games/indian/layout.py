"""An arrangement as players see it: real cards in groups, in order, with their kinds.

The search (:mod:`.arrange`) returns groups with anonymous jokers; here the
hand's jokers (printed, and wild cards read as jokers) are dealt into those
groups, left-over jokers are put where they fit (an impure sequence, a set
with room, a second pure sequence, or a group of their own), and each group
is ordered and named by :func:`cardtable.engine.melds.best_meld`, which also
says what every card stands for.

>>> from cardtable.engine.cards import parse
>>> a = arrangement(parse("3h 4h 5h 9s Ts 7d Qs Kc Kd Kh 2c 2d Jk"), 6, Rules())
>>> [(g["kind"], " ".join(g["cards"])) for g in a["groups"]]
[('pure', '3h 4h 5h'), ('impure', '9s Ts 7d Qs'), ('set', '2c 2d Jk'), ('set', 'Kc Kd Kh')]
>>> a["loose"], a["count"], a["lives"]
([], 0, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from ...api import JSON
from ...cards import JOKER, format_cards, str_card
from ...melds import InvalidMeld, MeldRules, best_meld
from .arrange import Rules, Solution, card_value, show, solve

_KIND_ORDER = {"pure": 0, "impure": 1, "set": 2}  # how groups are listed
_LEFTOVER_ORDER = {"impure": 0, "set": 1, "pure": 2}  # where spare jokers go first


def arrangement(cards: Sequence[int], wild: int | None, rules: Rules,
                declared: bool = False) -> dict[str, JSON]:
    """The lowest-count arrangement of ``cards`` (``declared``: the valid show, if any).

    ``count`` is what the hand counts under the life rules (no cap);
    ``lives``: the groups hold two sequences, one pure (and the 4-card life).
    """
    hand = tuple(sorted(cards))
    found = show(hand, wild, rules) if declared else None
    solution = found or solve(hand, wild, rules)
    groups, loose = _deal_jokers(hand, solution, wild, rules)
    described = sorted((_describe(g, wild, rules) for g in groups),
                       key=lambda g: _KIND_ORDER[str(g["kind"])])
    return {
        "groups": described,
        "loose": format_cards(sorted(loose)).split(),
        "count": solution.points,
        "lives": solution.lives,
    }


@dataclass(frozen=True, eq=False)
class DealOutcome(Mapping[str, JSON]):
    """A finished deal as everyone sees it: the scorecard ``row`` and, under ``"hands"``,
    every hand dealt in with its arrangement (the declarer's: his show) and finish card.

    The arrangements are made when first read, then kept: each is a search, and most
    finished deals are never looked at (a bot's playouts end thousands of them).  It is
    frozen, so every copy of the state shares it (``resample``, the rollback guard).
    """

    row: Mapping[str, JSON]
    cards: tuple[tuple[int, ...] | None, ...]  # per seat; None: not dealt in
    finish: tuple[int | None, ...]  # per seat: the card laid in the finish slot
    wild: int | None
    rules: Rules
    declarer: int | None  # the winner: his hand is read as a show where it is one

    @cached_property
    def revealed(self) -> list[JSON]:
        shown: list[JSON] = []
        for seat, hand in enumerate(self.cards):
            if hand is None:
                shown.append(None)
                continue
            entry = arrangement(hand, self.wild, self.rules, declared=seat == self.declarer)
            finish = self.finish[seat]
            entry["finish"] = None if finish is None else str_card(finish)
            shown.append(entry)
        return shown

    def __getitem__(self, key: str) -> JSON:
        return self.revealed if key == "hands" else self.row[key]

    def __iter__(self) -> Iterator[str]:
        yield from self.row
        yield "hands"

    def __len__(self) -> int:
        return len(self.row) + 1


def _deal_jokers(hand: tuple[int, ...], solution: Solution, wild: int | None,
                 rules: Rules) -> tuple[list[list[int]], list[int]]:
    jokers = [c for c in hand if c >= JOKER] + list(solution.stand_ins)
    loose = [c for c in hand if c < JOKER]
    for c in solution.stand_ins:
        loose.remove(c)
    groups: list[list[int]] = []
    for group in solution.groups:
        for c in group.naturals:
            loose.remove(c)
        groups.append([*group.naturals, *jokers[:group.jokers]])
        del jokers[:group.jokers]
    if jokers:
        loose += _place_leftovers(groups, [g.kind for g in solution.groups], jokers, rules)
    return groups, loose


def _place_leftovers(groups: list[list[int]], kinds: list[str], jokers: list[int],
                     rules: Rules) -> list[int]:
    """Jokers nobody needed: into groups where they keep every group valid; the rest loose."""
    max_set = 13 if rules.big_sets else 4
    pure = [i for i, k in enumerate(kinds) if k == "pure"]
    room = {i: 13 - len(g) for i, g in enumerate(groups) if kinds[i] == "impure"}
    room |= {i: max_set - len(g) for i, g in enumerate(groups) if kinds[i] == "set"}
    room |= {i: 13 - len(groups[i]) for i in pure[1:]}  # the first pure run stays pure
    for i, space in sorted(room.items(), key=lambda item: _LEFTOVER_ORDER[kinds[item[0]]]):
        take = min(space, len(jokers))
        groups[i] += jokers[:take]
        del jokers[:take]
    if len(jokers) >= 3 and rules.joker_group != "invalid":
        groups.append(jokers[:])
        jokers.clear()
    return jokers


def _describe(cards: list[int], wild: int | None, rules: Rules) -> dict[str, JSON]:
    kind, laid, stands_for = _reading(tuple(cards), wild, rules)
    return {"kind": kind, "cards": list(laid), "stands_for": list(stands_for)}


@lru_cache(maxsize=4096)
def _reading(cards: tuple[int, ...], wild: int | None,
             rules: Rules) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """A group's kind, its cards as laid and what they stand for (cached: the same groups
    come back deal after deal, and :func:`best_meld` tries every reading)."""
    meld_rules = MeldRules(ace_high=True, max_set=13 if rules.big_sets else 4,
                           wild_rank=wild)
    try:
        meld = best_meld(cards, meld_rules)
    except InvalidMeld:  # printed jokers only
        named = tuple(format_cards(cards).split())
        return "impure" if rules.joker_group == "sequence" else "set", named, named
    kind = "pure" if meld.pure else "impure" if meld.kind == "run" else "set"
    return (kind, tuple(format_cards(meld.cards).split()),
            tuple(format_cards(meld.stands_for).split()))


def hand_total(cards: Sequence[int], wild: int | None) -> int:
    """Every card counted (the count of a hand without its lives)."""
    return sum(card_value(c, wild) for c in cards)


def describe_groups(groups: Sequence[Sequence[int]], wild: int | None,
                    rules: Rules) -> list[dict[str, Any]]:
    """Each group of real cards as the view shows it (for tests and tools)."""
    return [_describe(list(g), wild, rules) for g in groups]
