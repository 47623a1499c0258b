"""The ``hard`` Rummy computer: :mod:`cardtable.bots.tablemelds.hard` with Rummy's judgement.

Classic Rummy is a race to go out, paid with the cards left in hand, so the
shared hard play is what it adds: discards judged by what they give the
opponent (twice the normal weight: +0.5 a hand over 2,000 hands, within the
noise; the same weight 1.0 gained nothing) and shedding when he is near out.
"""

from __future__ import annotations

from cardtable.engine.api import Action

from ..tablemelds import hard as tablemelds_hard
from ..tablemelds.hard_hint import hint as explain
from ..tablemelds.judgement import View
from .normal import JUDGEMENT

TUNING = tablemelds_hard.HardTuning(danger_weight=2.0)


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    return tablemelds_hard.choose(view, JUDGEMENT, TUNING)


def hint(view: View, action: Action) -> str:
    """Why ``action`` is good for the seat of ``view``, in a line."""
    return explain(view, action, JUDGEMENT)
