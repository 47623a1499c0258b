"""The ``hard`` computer of the table-meld Rummy family (Rummy, Rummy 500, Rommé).

It is the ``normal`` bot (:mod:`cardtable.bots.tablemelds.normal`: every choice
judged by the best arrangement of the hand it leaves) with what a strong
player adds, all read from the seat's view alone and rebuilt on every call:

* **a model of each opponent's hand** (:class:`Opponents`): the cards he took
  from the discard pile are in his hand, so are, with a chance his hand size
  gives, the cards nobody has seen; a discard is *dangerous* by the melds it
  would complete for him (a pair he is likely to hold, a run he picked up the
  neighbours of, a table meld he may lay it off on) and *safe* when every card
  it could meld with is already seen (dead);
* **going out before the opponents**: when an opponent is down to a few cards
  (and may go out), every meld and lay-off goes down at once and the discard
  sheds the card that would cost most if the hand ended now;
* **holding melds** (where the game's :class:`HardTuning` says so): a meld
  that would only give the opponent lay-offs stays in hand while the hand is
  young, and goes down when the penalty of being caught with it grows (an
  opponent with few cards, a short stock) or the hand can go out;
* the game's own weights, tuned per game in its thin module
  (``rummy.hard``, ``rummy500.hard``, ``romme.hard``); draws and calls are the
  normal bot's, weighed with those.

Each decision costs what the normal bot's does plus a few hundred card look-ups
for the opponent model (median about 0.5 ms, the 99th percentile under 10 ms).

``hint(view, action, judgement)`` says in a line why a move is good
(:mod:`cardtable.bots.tablemelds.hard_hint`).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER

from . import normal
from .evaluation import Plan
from .judgement import Judgement, Seen, View
from .normal import PLACEMENTS, _Turn


@dataclass(frozen=True)
class HardTuning:
    """What the hard player adds to its game's judgement (points of the hand-value scale)."""

    danger_weight: float = 1.0  # how much a discard's use to an opponent costs
    hold_melds: bool = False  # keep a meld in hand while laying it only feeds lay-offs
    hold_until: int = 5  # ... until an opponent is down to this many cards
    endgame_cards: int = 2  # an opponent this close to out: lay everything, shed high
    come_out_first: bool = False  # Rommé: only a player who has come out lays off, goes out


class Opponents:
    """What the seat can infer about the other hands from its view.

    ``holds(c)``: the expected copies of card ``c`` in opponent ``seat``'s hand: the
    cards he picked up from the pile for sure, any unseen card with the chance his
    share of the unseen cards gives."""

    def __init__(self, seen: Seen, live: tuple[float, ...]):
        self.seen = seen
        self.live = live  # copies of each card nobody has seen (from the weights)
        unseen = max(1.0, sum(live))
        self.share: dict[int, float] = {}
        for opp in seen.opponents():
            hidden = max(0, seen.counts[opp] - len(seen.picked[opp]))
            self.share[opp] = min(1.0, hidden / unseen)

    def holds(self, seat: int, card: int) -> float:
        sure = self.seen.picked[seat].count(card)
        return sure + self.live[card] * self.share[seat]

    def feeds(self, seat: int, card: int) -> float:
        """The chance that ``card`` completes a meld with two cards ``seat`` likely holds
        (a set of its rank, a run around it), plus half the chance of one partner."""
        rank, suit = card % 13, card // 13
        same = [self.holds(seat, s * 13 + rank) for s in range(4) if s != suit]
        pair_of_rank = sum(same[i] * same[j] for i in range(3) for j in range(i + 1, 3))

        def at(pos: int) -> float:
            if not 0 <= pos <= 13:
                return 0.0
            return self.holds(seat, suit * 13 + pos % 13)

        positions = [rank] + ([13] if rank == 0 else [])
        runs = 0.0
        singles = sum(same)
        for pos in positions:
            lo2, lo1, hi1, hi2 = at(pos - 2), at(pos - 1), at(pos + 1), at(pos + 2)
            runs += lo2 * lo1 + lo1 * hi1 + hi1 * hi2
            singles += lo1 + hi1 + 0.5 * (lo2 + hi2)
        return min(1.0, pair_of_rank + runs + 0.15 * singles)


class HardTurn(_Turn):
    """One decision of the hard player: the normal bot's, with the additions above."""

    def __init__(self, view: View, legal: list[Action], judgement: Judgement,
                 tuning: HardTuning):
        super().__init__(view, legal, judgement)
        self.tuning = tuning
        self.opponents = Opponents(self.seen, self.weights.live)

    # -- the end is near -------------------------------------------------------------

    def closest(self) -> int:
        """Cards held by the opponent nearest to going out (only those who may go out)."""
        s = self.seen
        able = [s.counts[o] for o in s.opponents() if self.may_go_out(o)]
        return min(able, default=99)

    def may_go_out(self, seat: int) -> bool:
        """Whether ``seat`` could empty his hand soon (Rommé: only once he has come out)."""
        return bool(self.seen.melded[seat]) or not self.tuning.come_out_first

    def endgame(self) -> bool:
        return self.closest() <= self.tuning.endgame_cards

    # -- play ---------------------------------------------------------------------------

    def next_meld(self, plan: Plan) -> Action | None:
        action = super().next_meld(plan)
        if action is None or not self.tuning.hold_melds or self.endgame():
            return action
        if self.closest() <= self.tuning.hold_until or self.short_stock():
            return action
        if self.helps_opponent(action):
            return None  # keep it hidden: laid now it only gives lay-offs
        return action

    def short_stock(self) -> bool:
        s = self.seen
        return self.judge.stock_ends_hand(s) and s.stock <= 3 * s.players

    def helps_opponent(self, action: Action) -> bool:
        """Whether the meld ``action`` lays has room for an opponent's lay-off he likely
        holds (a fourth of a set, a card at either end of a run)."""
        cards = [c for c in action.cards if c < JOKER]
        if not cards:
            return False
        ranks = {c % 13 for c in cards}
        ends: list[int] = []
        if len(ranks) == 1:
            suits = {c // 13 for c in cards}
            ends = [s * 13 + cards[0] % 13 for s in range(4) if s not in suits]
        else:
            suit = cards[0] // 13
            lo, hi = min(c % 13 for c in cards), max(c % 13 for c in cards)
            ends = [suit * 13 + r for r in (lo - 1, hi + 1) if 0 <= r <= 12]
        return any(self.opponents.holds(o, c) >= 0.3 for o in self.seen.opponents()
                   for c in ends)

    def danger(self, card: int) -> float:
        """How much ``card`` would help an opponent: a lay-off he may make on the table,
        and the melds it completes with cards he likely holds (picked up or unseen)."""
        s, w = self.seen, self.weights
        if card >= JOKER:
            return 0.0
        risk = 0.0
        for k, opp in enumerate(s.opponents()):
            reach = 1.0 if k == 0 else (0.5 if self.judge.pile_live else 0.2)
            lay = 1.0 if w.layable[card] and self.may_lay_off(opp) else 0.0
            risk += reach * max(lay, self.opponents.feeds(opp, card))
        worth = 4.0 + 0.5 * w.hold[card] + w.credit[card]
        return self.tuning.danger_weight * min(risk, 1.5) * worth

    def may_lay_off(self, seat: int) -> bool:
        return bool(self.seen.melded[seat]) or not self.tuning.come_out_first

    def discard(self) -> Action:
        if not self.endgame():
            return super().discard()
        # the hand may end before our next turn: shed what would cost most, keep melds
        options = [a for a in self.by_type.get("discard") or self.legal if a.card is not None]
        naturals = [a for a in options if a.card is not None and a.card < JOKER]
        plan = self.ev.plan(self.seen.hand)
        assert plan is not None
        spare = set(plan.leftover)
        loose = [a for a in (naturals or options) if a.card in spare] or naturals or options
        # a card he can lay off at once lets him out: never, while anything else may go
        loose = [a for a in loose if not self.lets_out(a.card)] or loose

        def cost(a: Action) -> float:
            assert a.card is not None
            return self.weights.hold[a.card] - 0.5 * self.danger(a.card)

        return max(loose, key=cost) if loose else super().discard()

    def lets_out(self, card: int | None) -> bool:
        """Whether ``card`` fits a table meld that a near-out opponent may lay off on."""
        if card is None or card >= JOKER or not self.weights.layable[card]:
            return False
        return any(self.may_lay_off(o) for o in self.seen.opponents())


def choose(view: View, judgement: Judgement, tuning: HardTuning,
           turn: type[HardTurn] | None = None) -> Action:
    """The hard player's move for the seat of ``view`` (``turn``: a game's own decision
    of a turn that places or discards, the shared one by default)."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if len(legal) == 1:
        return legal[0]
    if not any(a.type in (*PLACEMENTS, "discard") for a in legal):
        return normal.choose(view, judgement)  # draws and calls: as the normal bot
    return (turn or HardTurn)(view, legal, judgement, tuning).decide()
