"""The ``hard`` Rommé computer: :mod:`cardtable.bots.tablemeld_hard` with Rommé's judgement.

What it adds to the normal Rommé player (:mod:`cardtable.bots.romme_bot`):

* **the race out**: a player who has not come out when the hand ends pays his
  whole hand (about 100 points against about 10 otherwise), so once this seat
  is out and an opponent is not, going out fast is worth more than building:
  the hand is played as if it were about to end (jokers go into melds, high
  cards go first) to a degree ``race`` (0.3: of 0.3, 0.6 and 1.0 the best
  in duels of 400 hands, and by little);
* the shared hard play: safe discards from a model of the opponent's hand,
  shedding when an opponent who has come out is down to a few cards.
"""

from __future__ import annotations

from cardtable.engine.api import Action

from . import tablemeld_hard
from .romme_bot import RommeJudgement
from .tablemeld_hard_hint import hint as explain
from .tablemeld_judgement import Seen, View


class HardRommeJudgement(RommeJudgement):
    """Rommé's judgement, with the race out when an opponent has not come out."""

    race = 0.3  # the urgency of a hand this seat is out in and an opponent is not

    def urgency(self, seen: Seen) -> float:
        urgent = super().urgency(seen)
        if seen.melded[seen.seat] and any(not seen.melded[o] for o in seen.opponents()):
            urgent = max(urgent, self.race)
        return urgent


JUDGEMENT = HardRommeJudgement()
TUNING = tablemeld_hard.HardTuning(come_out_first=True)


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    return tablemeld_hard.choose(view, JUDGEMENT, TUNING)


def hint(view: View, action: Action) -> str:
    """Why ``action`` is good for the seat of ``view``, in a line."""
    return explain(view, action, JUDGEMENT)
