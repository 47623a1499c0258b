"""The ``hard`` Rommé computer: :mod:`cardtable.bots.tablemelds.hard` with Rommé's judgement.

What it adds to the normal Rommé player (:mod:`cardtable.bots.romme.normal`):

* **a hidden first meld, for a Hand-Rommé**: a seat that could come out keeps
  its melds in hand while no opponent can go out soon, and goes out later all
  at once, which doubles every penalty.  An opponent who has not come out
  cannot go out (short of his own Hand-Rommé), nor, all but never, one who
  came out and holds four cards or more (``hold_min``): his cards are the
  ones he could not place, and one draw rarely places four; at three he
  often does, and the waiting hand is caught whole (``hold_min`` 3: this seat
  never came out in 22% of its hands; 4: 3%, as without waiting).  Meanwhile
  nobody lays off on its melds, which slows the opponent as much: even with
  no doubling (``hand_romme_multiplier`` 1) it wins 62% of the hands against
  the normal player instead of 49% (300 hands).  Matches won against the
  normal player, 1,000 two-player matches: 49% without waiting, 54% waiting
  only while nobody has come out, 73% with ``hold_min`` 4, 66% with 5; three
  players, 150 matches: 49% instead of 27%;
* **points toward the first meld, not penalties**: until it has come out (and
  so while it waits) a card's penalty counts a fifth and every card held 6
  (``open_scale``, ``open_cost``): high cards make the 40 points, and a hand
  that goes out at once pays nothing whatever it held; the normal player
  throws its aces and court cards first.  Of a fifth / half / none with 6 /
  5-12 / 8, a fifth and 6 did best by a little: 75% of 1,000 matches against
  73%, 64% of the hands against 62%;
* **the race out**: a player who has not come out when the hand ends pays his
  whole hand (about 100 points against about 10 otherwise), so once this seat
  is out and an opponent is not, going out fast is worth more than building:
  the hand is played as if it were about to end (jokers go into melds, high
  cards go first) to a degree ``race`` (0.3: of 0.3, 0.6 and 1.0 the best
  in duels of 400 hands, and by little; now that this seat waits for an
  opponent to come out first, a two-player hand hardly gets there: 0.6 gave
  the same 1,000 matches as 0.3);
* the shared hard play: safe discards from a model of the opponent's hand,
  shedding when an opponent who has come out is down to a few cards.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, pretty_card

from ..tablemelds import hard as tablemelds_hard
from ..tablemelds.evaluation import Evaluator, Plan, Weights
from ..tablemelds.hard_hint import hint as explain
from ..tablemelds.judgement import Seen, View
from .normal import RommeJudgement


class HardRommeJudgement(RommeJudgement):
    """Rommé's judgement: the race out when an opponent has not come out, and the
    values of the cards before this seat has."""

    race = 0.3  # the urgency of a hand this seat is out in and an opponent is not
    hold_opening = True  # keep a ready first meld hidden while no opponent can go out soon
    hold_min = 4  # ... that is: every opponent who came out holds at least this many cards
    open_scale = 0.2  # before coming out: a natural card's own points count this much
    open_cost = 6.0  # ... and every natural card held this much on top

    def weights(self, seen: Seen) -> Weights:
        w = super().weights(seen)
        if seen.melded[seen.seat] or (self.open_scale == 1.0 and not self.open_cost):
            return w
        hold = tuple(self.open_scale * h + self.open_cost if c < JOKER else h
                     for c, h in enumerate(w.hold))
        return replace(w, hold=hold)

    def urgency(self, seen: Seen) -> float:
        urgent = super().urgency(seen)
        if seen.melded[seen.seat] and any(not seen.melded[o] for o in seen.opponents()):
            urgent = max(urgent, self.race)
        return urgent


class HardRommeTurn(tablemelds_hard.HardTurn):
    """One decision of the hard Rommé player: the shared hard one, but for when and
    how it comes out."""

    judge: HardRommeJudgement

    def opening(self, openings: list[Action]) -> Action:
        out = self.out_at_once()
        if out is not None:
            # the first melds of the plan that empties the hand, not of the patient one
            planned = Counter(tuple(sorted(m)) for m in out.melds)
            ours = [a for a in openings
                    if not Counter(tuple(sorted(m)) for m in a.melds) - planned]
            if ours:
                return max(ours, key=lambda a: sum(len(m) for m in a.melds))
        elif self.hold_for_romme():
            return self.discard()
        return super().opening(openings)

    def hold_for_romme(self) -> bool:
        """Keep a ready opening hidden while no opponent can go out soon: nobody who has
        not come out can (short of his own Hand-Rommé), nor one who came out and holds
        ``hold_min`` cards or more; meanwhile nobody lays off on it, and going out later
        all at once doubles every penalty."""
        if not self.judge.hold_opening or "discard" not in self.by_type or self.short_stock():
            return False
        s = self.seen
        return all(not s.melded[o] or s.counts[o] >= self.judge.hold_min
                   for o in s.opponents())

    def out_at_once(self) -> Plan | None:
        """The plan that lays the whole hand down this turn (but a last discard), every
        joker spent on it, if there is one."""
        w = self.weights
        spent = replace(w, credit=tuple(c + 100.0 for c in w.credit), reserve=-50.0,
                        max_jokers=2, layoff_factor=1.0)
        ev = Evaluator(spent)
        plan = ev.plan(self.seen.hand)
        if plan is None or len(plan.leftover) > 1 or not self.judge.can_empty(self.seen,
                                                                              plan, ev):
            return None
        return plan


JUDGEMENT = HardRommeJudgement()
PLAIN = RommeJudgement()  # a hint counts the points a card really costs
TUNING = tablemelds_hard.HardTuning(come_out_first=True)


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    # A turn with no discard on offer places what it owes the table: the shared play.
    may_discard = any(a.get("type") == "discard" for a in view.get("legal", []))
    return tablemelds_hard.choose(view, JUDGEMENT, TUNING, HardRommeTurn if may_discard else None)


def hint(view: View, action: Action) -> str:
    """Why ``action`` is good for the seat of ``view``, in a line."""
    if action.type == "discard" and action.card is not None and _holding(view):
        times = int((view.get("options") or {}).get("hand_romme_multiplier", 2))
        why = f"go out all at once: penalties x{times}" if times > 1 else (
            "nobody can lay off on them")
        return f"discard {pretty_card(action.card)}: keep your melds hidden, {why}"
    return explain(view, action, PLAIN)


def _holding(view: View) -> bool:
    """Whether the seat could come out now but keeps its first melds in hand."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not any(a.type == "meld" and a.melds for a in legal):
        return False
    turn = HardRommeTurn(view, legal, JUDGEMENT, TUNING)
    return turn.out_at_once() is None and turn.hold_for_romme()
