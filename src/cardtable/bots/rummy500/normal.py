"""The Rummy 500 opponent: the table-meld bot valuing points on the table.

In Rummy 500 every card a player places scores for him and every card left in
his hand counts against him, so the :class:`Rummy500Judgement` gives placed
cards a ``credit`` (ace 15 but 1 at the low end of a run, joker 15) on top of
the ``hold`` cost of keeping them (ace and joker 15).  The rest is what the
rules allow and the generic bot (:mod:`cardtable.bots.tablemelds.normal`) weighs:

* deep pickups: the pile lies fanned; taking a deeper card (and every card
  above it) is weighed like any draw, the deepest card having to go down now,
  so it is taken when what it melds is worth more than the cards that come
  with it (and a margin: a big pickup is public and bulky);
* the pile is live: a card discarded can be dug out later by anyone, so the
  danger of feeding reaches every opponent, not only the next;
* going out when ahead: going out ends the hand, and a hand that takes
  someone past the target ends the match; when that would hand the match to
  an opponent (scores, table points and a guess at the cards he holds say
  so) and nobody is close to going out, it keeps a card and plays on;
* calling Rummy (an option): a discard it can place for points is called.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

from dataclasses import replace

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, deadwood_value
from cardtable.engine.melds import MeldRules

from ..tablemelds import normal as tablemelds_normal
from ..tablemelds.evaluation import Plan, Weights
from ..tablemelds.judgement import Judgement, Seen, View

ACE_RULES = {"high_or_low": MeldRules(ace_high=True),
             "around": MeldRules(ace_high=True, around_corner=True)}
AVERAGE_CARD = 8.0  # what an unseen card in an opponent's hand is guessed to count


def count(card: int) -> float:
    """A card's count in hand: ace and joker 15, court cards 10, pips at face value."""
    return 15.0 if card >= JOKER or card % 13 == 0 else float(deadwood_value(card))


class Rummy500Judgement(Judgement):
    """Rummy 500: points for what you lay down, against what you hold."""

    pile_live = True

    def rules(self, seen: Seen) -> MeldRules:
        return ACE_RULES.get(seen.options.get("ace", "high_or_low"), MeldRules(ace_high=True))

    def packs(self, seen: Seen) -> int:
        return 2 if seen.players >= 5 else 1

    def jokers(self, seen: Seen) -> int:
        return 2 * self.packs(seen) if seen.options.get("jokers", True) else 0

    def hold(self, card: int, seen: Seen) -> float:
        return count(card)

    def credit(self, card: int, seen: Seen) -> float:
        if card >= JOKER and seen.options.get("joker_value", "15") != "15":
            return 10.0  # it scores the card it stands for: about a court card
        return count(card)

    def weights(self, seen: Seen) -> Weights:
        w = super().weights(seen)
        low = float(seen.options.get("low_ace_value", 1))
        return replace(w, low_ace_credit=low)

    def stock_ends_hand(self, seen: Seen) -> bool:
        return bool(seen.options.get("stock_exhausted", "end_hand") == "end_hand")

    def must_use_top(self, seen: Seen) -> bool:
        return bool(seen.options.get("top_discard_must_be_used", False))

    def may_go_out(self, seen: Seen, plan: Plan) -> bool:
        """Go out, unless that ends the match with an opponent ahead while waiting is safe.

        Going out ends the hand, and a hand that takes someone past the target ends
        the match: when the bot would lose it so, it keeps a card and plays on for
        points, as long as nobody is close to going out and the stock lasts.
        """
        others = seen.opponents()
        if min(seen.counts[s] for s in others) <= 2 or seen.stock <= 2 * seen.players:
            return True  # someone may go out soon, or the stock ends the hand: bank it now
        target = int(seen.options.get("target", 500))
        on_table = seen.view.get("table_points") or [0] * seen.players
        scores = seen.view.get("scores") or [0] * seen.players
        mine = scores[seen.seat] + on_table[seen.seat] + sum(self.credit(c, seen)
                                                             for c in seen.hand)
        theirs = max(scores[s] + on_table[s] - AVERAGE_CARD * seen.counts[s] for s in others)
        match_ends = max(mine, theirs) >= target
        return not (match_ends and bool(theirs > mine))


JUDGEMENT = Rummy500Judgement()


def choose(view: View) -> Action:
    """The bot's move for the seat of ``view``."""
    return tablemelds_normal.choose(view, JUDGEMENT)


def overlooks(view: View, best: Action, legal: list[Action]) -> list[Action]:
    """An easy computer's missed pickups and unseen melds
    (:func:`cardtable.bots.tablemelds.normal.overlooks`)."""
    return tablemelds_normal.overlooks(view, best, legal, choose)
