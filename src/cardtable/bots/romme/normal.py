"""The Rommé opponent: the table-meld bot that builds toward its first meld.

German Rommé has two packs and six jokers, a first meld of 40 points (laid
in one move) before a player may lay off or exchange jokers, and penalties
for cards left in hand (ace 11, joker 20 or more).  The
:class:`RommeJudgement` adds to the generic bot
(:mod:`cardtable.bots.tablemelds.evaluation`, :mod:`cardtable.bots.tablemelds.normal`):

* building toward the first meld: until it has come out, a hand whose melds
  reach the minimum (counted as the rules count them: an ace 11, or 1 before
  a 2; a joker as the card it stands for) is worth a bonus, and melds short
  of it a part of that, so draws and discards aim at reaching it; the
  opening is laid as soon as the rules accept one;
* lay-offs only count fully once it has come out;
* joker exchange (after coming out) when the freed joker then melds cards
  worth more than the card given for it: the generic bot weighs it;
* the danger that the hand ends: only opponents who have come out can go
  out (short of a whole hand at once), so they set the urgency.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

from functools import partial

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, deadwood_value
from cardtable.engine.games.romme.values import joker_problem, melding_points
from cardtable.engine.melds import InvalidMeld, MeldRules, make_meld
from cardtable.engine.tablemelds.table import MeldProblem

from ..tablemelds import normal as tablemelds_normal
from ..tablemelds.evaluation import Evaluator, Plan
from ..tablemelds.judgement import Judgement, Seen, View


class RommeJudgement(Judgement):
    """Rommé: two packs, six jokers, a 40-point first meld, penalties in hand."""

    # Duels of 300 bot-against-bot matches (each deal played twice, seats swapped) found
    # no difference between these and twice as large values: the rules decide the play.
    joker_reserve = 4.0
    opening_bonus = 12.0  # a hand that can come out now (it sheds cards from then on)
    progress_bonus = 5.0  # ... and a part of it for melds short of the minimum

    def rules(self, seen: Seen) -> MeldRules:
        return MeldRules(ace_high=True, around_corner=bool(seen.options.get("king_ace_two")))

    def packs(self, seen: Seen) -> int:
        return 2

    def jokers(self, seen: Seen) -> int:
        return int(seen.options.get("jokers", 6))

    def hold(self, card: int, seen: Seen) -> float:
        if card >= JOKER:
            return float(seen.options.get("joker_penalty", 20))
        if card % 13 == 0:
            return float(seen.options.get("ace_penalty", 11))
        return float(deadwood_value(card))

    def can_lay_off(self, seen: Seen) -> bool:
        return seen.melded[seen.seat]

    def meld_problem(self, seen: Seen) -> MeldProblem | None:
        limit = str(seen.options.get("joker_limit", "none"))
        return None if limit == "none" else partial(joker_problem, limit)

    def stock_ends_hand(self, seen: Seen) -> bool:
        return bool(seen.options.get("stock_exhausted") == "end_hand")

    def must_use_top(self, seen: Seen) -> bool:
        return bool(seen.options.get("top_discard_must_be_used", False))

    def urgency(self, seen: Seen) -> float:
        # Only a player who has come out can go out (short of a Hand-Rommé).
        out = [seen.counts[s] for s in seen.opponents() if seen.melded[s]]
        closest = min(out, default=13)
        urgent = min(1.0, max(0.0, (7 - closest) / 6))
        if self.stock_ends_hand(seen):
            urgent = max(urgent, 1 - seen.stock / (3 * seen.players))
        return urgent

    def can_empty(self, seen: Seen, plan: Plan, evaluator: Evaluator) -> bool:
        # not out yet: the whole hand goes down only if its melds make the first meld
        return _opening_points(plan, evaluator) >= seen.first_meld

    def bonus(self, seen: Seen, plan: Plan, evaluator: Evaluator) -> float:
        """Progress toward the first meld, while it is still to be laid."""
        needed = seen.first_meld
        if not needed:
            return 0.0
        total = _opening_points(plan, evaluator)
        if total >= needed:
            return self.opening_bonus
        return self.progress_bonus * total / needed


def _opening_points(plan: Plan, evaluator: Evaluator) -> int:
    """What the melds of ``plan`` count toward a first meld (jokers as what they stand for)."""
    total = 0
    for meld in plan.melds:
        try:
            total += melding_points(make_meld(meld, evaluator.w.rules).stands_for)
        except InvalidMeld:
            continue
    return total


JUDGEMENT = RommeJudgement()


def choose(view: View) -> Action:
    """The bot's move for the seat of ``view``."""
    return tablemelds_normal.choose(view, JUDGEMENT)


def overlooks(view: View, best: Action, legal: list[Action]) -> list[Action]:
    """An easy computer's missed pickups and unseen melds
    (:func:`cardtable.bots.tablemelds.normal.overlooks`)."""
    return tablemelds_normal.overlooks(view, best, legal, choose)
