"""The Rummy opponent: the table-meld bot with classic Rummy's card values and options.

Everything it does is :mod:`cardtable.bots.tablemelds.normal`; this module only
reads Rummy's options (``ace``, ``ace_value``, ``lay_off_before_meld``,
``top_discard_must_be_used``, ``stock_exhausted``) into a :class:`Judgement`.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, deadwood_value
from cardtable.engine.melds import MeldRules

from ..tablemelds import normal as tablemelds_normal
from ..tablemelds.judgement import Judgement, Seen, View

ACE_RULES = {"low": MeldRules(), "high_or_low": MeldRules(ace_high=True),
             "around": MeldRules(ace_high=True, around_corner=True)}


class RummyJudgement(Judgement):
    """Classic Rummy: one pack, no jokers; cards left in hand are what a hand costs."""

    horizon = 9.0  # 110-90 over 200 duel matches against 6: Rummy hands last long

    def rules(self, seen: Seen) -> MeldRules:
        return ACE_RULES.get(seen.options.get("ace", "low"), MeldRules())

    def hold(self, card: int, seen: Seen) -> float:
        if card < JOKER and card % 13 == 0:
            return float(seen.options.get("ace_value", 1))
        return float(deadwood_value(card))

    def can_lay_off(self, seen: Seen) -> bool:
        return bool(seen.options.get("lay_off_before_meld", True)) or seen.melded[seen.seat]

    def must_use_top(self, seen: Seen) -> bool:
        return bool(seen.options.get("top_discard_must_be_used", False))

    def stock_ends_hand(self, seen: Seen) -> bool:
        return bool(seen.options.get("stock_exhausted") == "block")


JUDGEMENT = RummyJudgement()


def choose(view: View) -> Action:
    """The bot's move for the seat of ``view``."""
    return tablemelds_normal.choose(view, JUDGEMENT)
