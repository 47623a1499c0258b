"""What a table-meld game values, and the seat's view parsed: the bots' judgement.

A :class:`Judgement` holds what differs between Rummy, Rummy 500 and Rommé:
card values in hand (``hold``) and on the table (``credit``), the meld rules,
packs and jokers, when lay-offs are allowed, when to go out, and a few
weights of the decisions.  The defaults are plain Rummy (one pack, no jokers,
ace low); each game's bot module subclasses it.  :meth:`Judgement.weights`
turns the seat's situation (:class:`Seen`) into the
:class:`~cardtable.bots.tablemelds.evaluation.Weights` its hands are valued with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardtable.engine.cards import JOKER, deadwood_value, parse
from cardtable.engine.melds import MeldRules
from cardtable.engine.tablemelds import TableMeld, extension_cards
from cardtable.engine.tablemelds.table import MeldProblem

from .evaluation import CARDS, Evaluator, Plan, Weights

View = dict[str, Any]


def cards_of(texts: list[str] | None) -> list[int]:
    return parse(" ".join(texts or []))


def table_meld(data: dict[str, Any]) -> TableMeld:
    return TableMeld(data["id"], data["owner"], data["kind"], tuple(cards_of(data["cards"])),
                     tuple(cards_of(data["stands_for"])), tuple(data["laid_by"]))


@dataclass
class Seen:
    """The view of the seat to act, parsed once."""

    view: View
    seat: int
    players: int
    hand: list[int]
    table: list[TableMeld]
    pile: list[int]
    picked: list[list[int]]
    counts: list[int]
    melded: list[bool]
    stock: int
    first_meld: int
    must_place: list[int]
    taken: int | None
    options: dict[str, Any]

    @classmethod
    def of(cls, view: View) -> Seen:
        hands = view["hands"]
        seat = view["seat"]
        taken = view.get("taken")
        return cls(view, seat, len(hands), cards_of(hands[seat].get("cards")),
                   [table_meld(m) for m in view.get("table", [])], cards_of(view.get("discard")),
                   [cards_of(h.get("picked")) for h in hands], [h["count"] for h in hands],
                   [bool(h.get("melded")) for h in hands], view.get("stock", 0),
                   view.get("first_meld") or 0, cards_of(view.get("must_place")),
                   None if taken is None else parse(taken)[0], view.get("options") or {})

    def opponents(self) -> list[int]:
        """The other seats still in the match, in the order they play after this one."""
        out = set(self.view.get("eliminated") or ())  # Rommé's elimination match
        seats = [(self.seat + k) % self.players for k in range(1, self.players)]
        return [s for s in seats if s not in out] or seats


VALUES_KEPT = 64
"""Option sets whose card values :meth:`Judgement.values` keeps (one judgement serves
every table of its game for the life of the server)."""


class Judgement:
    """What one game values; the defaults are plain Rummy (one pack, no jokers, ace low).

    The numbers are points of the hand-value scale of :mod:`~cardtable.bots.tablemelds.evaluation`.
    """

    take_margin = 1.0  # a discard-pile pickup must beat the stock by this much
    deep_margin = 6.0  # more for a pickup of several cards (they are public, and bulky)
    out_bonus = 25.0  # going out this turn: the hand ends with others holding cards
    joker_reserve = 8.0  # a joker kept for a better meld, early in a hand
    horizon = 6.0  # turns a seat expects to play yet, early in a hand
    danger_weight = 1.0  # how much feeding an opponent costs
    pile_live = False  # Rummy 500: a card deep in the pile can still be picked up

    def __init__(self) -> None:
        self._values: dict[Any, tuple[tuple[float, ...], tuple[float, ...]]] = {}

    def rules(self, seen: Seen) -> MeldRules:
        return MeldRules()

    def packs(self, seen: Seen) -> int:
        return 1

    def jokers(self, seen: Seen) -> int:
        return 0

    def hold(self, card: int, seen: Seen) -> float:
        """What ``card`` costs if it is still in hand when the hand ends."""
        return float(deadwood_value(card)) if card < JOKER else 15.0

    def credit(self, card: int, seen: Seen) -> float:
        """What placing ``card`` on the table earns (Rummy 500), beyond not holding it."""
        return 0.0

    def can_lay_off(self, seen: Seen) -> bool:
        return True

    def stock_ends_hand(self, seen: Seen) -> bool:
        return False

    def must_use_top(self, seen: Seen) -> bool:
        return False

    def may_go_out(self, seen: Seen, plan: Plan) -> bool:
        """Whether to go out now that the hand can be emptied (``plan``)."""
        return True

    def can_empty(self, seen: Seen, plan: Plan, evaluator: Evaluator) -> bool:
        """Whether the rules let the seat lay all of ``plan``'s melds now (Rommé: only
        together with its first meld's minimum)."""
        return True

    def bonus(self, seen: Seen, plan: Plan, evaluator: Evaluator) -> float:
        """Anything else a hand is worth (Rommé: progress toward the first meld)."""
        return 0.0

    # -- the weights of a seat, from these ----------------------------------------

    def urgency(self, seen: Seen) -> float:
        """0 early in a hand .. 1 when it may end any moment."""
        closest = min(seen.counts[s] for s in seen.opponents())
        urgent = min(1.0, max(0.0, (7 - closest) / 6))
        if self.stock_ends_hand(seen):
            urgent = max(urgent, 1 - seen.stock / (3 * seen.players))
        return max(0.0, min(1.0, urgent))

    def values(self, seen: Seen) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """``hold`` and ``credit`` of every card: they depend on the options alone."""
        key = (seen.players, *sorted((k, repr(v)) for k, v in seen.options.items()))
        found = self._values.get(key)
        if found is None:
            if len(self._values) >= VALUES_KEPT:  # options are the players' choice: bounded
                del self._values[next(iter(self._values))]  # the oldest
            found = self._values[key] = (tuple(self.hold(c, seen) for c in range(CARDS)),
                                         tuple(self.credit(c, seen) for c in range(CARDS)))
        return found

    def weights(self, seen: Seen) -> Weights:
        rules = self.rules(seen)
        hold, credit = self.values(seen)
        urgent = self.urgency(seen)
        reserve = self.joker_reserve * (1 - urgent) - (hold[JOKER] + self.joker_reserve) * urgent
        live = self.live_cards(seen)
        unseen = max(1.0, sum(live))
        ahead = self.horizon
        if self.stock_ends_hand(seen):
            ahead = min(ahead, seen.stock / seen.players)
        turns_left = 1 + ahead * (1 - urgent)
        layable = self.layable(seen, rules)
        return Weights(rules, hold, credit, reserve, tuple(live),
                       min(0.5, turns_left / unseen), layable,
                       1.0 if self.can_lay_off(seen) else 0.6)

    def live_cards(self, seen: Seen) -> list[float]:
        """Copies of each card not seen anywhere (hands, table, pile, opponents' pickups)."""
        packs = self.packs(seen)
        live = [float(packs)] * JOKER + [float(self.jokers(seen))]
        for c in seen.hand + [c for m in seen.table for c in m.cards]:
            live[c] -= 1
        for seat in seen.opponents():  # what they took from the pile, they hold
            for c in seen.picked[seat]:
                live[c] -= 1
        for c in seen.pile:
            live[c] -= 0.5 if self.pile_live else 1
        return [max(0.0, x) for x in live]

    def meld_problem(self, seen: Seen) -> MeldProblem | None:
        """The game's house rule on melds (its state's ``meld_problem``), if it has one."""
        return None

    def layable(self, seen: Seen, rules: MeldRules) -> tuple[int, ...]:
        """How many copies of each card could be laid off on the table as it is."""
        counts = [0] * CARDS
        problem = self.meld_problem(seen)
        for meld in seen.table:
            for c in extension_cards(meld, rules, problem):
                counts[c] += 1
        return tuple(counts)
