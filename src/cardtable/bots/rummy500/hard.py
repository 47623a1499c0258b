"""The ``hard`` Rummy 500 computer: :mod:`cardtable.bots.tablemelds.hard`, Rummy 500's judgement.

What it adds to the normal Rummy 500 player (:mod:`cardtable.bots.rummy500.normal`):

* **the pile is worth taking**: every card placed scores, so a pickup (the top
  card or a deep one, with every card above it) is taken on a smaller margin
  over the stock than the normal player asks (duels of 400 hands against it:
  +3 points a hand; a larger margin lost 5);
* **melds held back**: a meld that would only give the opponent lay-offs he
  likely holds (every card laid on it scores for him) stays in hand while the
  hand is young, and goes down when he is near out, the stock is short, or it
  takes this seat out;
* the shared hard play: safe discards from a model of the opponent's hand
  (his deep pickups tell what he collects), shedding when he is near out.
"""

from __future__ import annotations

from cardtable.engine.api import Action

from ..tablemelds import hard as tablemelds_hard
from ..tablemelds.hard_hint import hint as explain
from ..tablemelds.judgement import View
from .normal import Rummy500Judgement


class HardRummy500Judgement(Rummy500Judgement):
    """Rummy 500's judgement, keener on the discard pile."""

    take_margin = -1.0
    deep_margin = -4.0


JUDGEMENT = HardRummy500Judgement()
TUNING = tablemelds_hard.HardTuning(hold_melds=True)


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    return tablemelds_hard.choose(view, JUDGEMENT, TUNING)


def hint(view: View, action: Action) -> str:
    """Why ``action`` is good for the seat of ``view``, in a line."""
    return explain(view, action, JUDGEMENT)
