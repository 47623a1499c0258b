"""A computer player for the table-meld Rummy family: Rummy, Rummy 500, Rommé.

``choose(view, judgement)`` reads only the seat's view (``state.view(seat)``)
and returns one of ``view["legal"]``.  What differs between the games (card
values, option names, when to go out) is a :class:`Judgement`
(:mod:`cardtable.bots.tablemelds.judgement`); each game's bot module
(``rummy.normal``, ``rummy500.normal``, ``romme.normal``) is a small subclass of it.
Every choice is judged by the value of the hand it leaves
(:mod:`cardtable.bots.tablemelds.evaluation`: the best arrangement into melds, what
leftover cards cost, what a joker in hand is worth).

A turn, step by step (one action per call):

* **draw**: the top discard (or, in Rummy 500, a deeper pickup) when the
  hand after it and the best discard is worth clearly more than the hand
  now plus what a stock card brings on average; else the stock;
* **obligations** first (a card that must be placed this turn);
* **first meld** (Rommé's 40): the opening of the best arrangement, as soon
  as the rules accept it;
* **going out** when the hand can be emptied this turn (all jokers may be
  used for that), unless the judgement says wait (Rummy 500 when behind);
* **joker exchange** when the freed joker makes the hand worth more;
* the melds and lay-offs of the best arrangement; a joker stays in hand
  while keeping it is worth more than what it would meld;
* **discard** the card whose loss costs least, counting the danger of
  feeding an opponent: a card that fits a table meld or goes with cards an
  opponent took from the discard pile.  Never a joker unless forced.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, parse

from .evaluation import CARDS, Evaluator, Plan, neighbours
from .judgement import Judgement, Seen, View

__all__ = ["Judgement", "Seen", "View", "choose", "overlooks"]

PLACEMENTS = ("meld", "lay_off", "swap_joker")
MAX_EVALUATED_HAND = 21  # deeper Rummy 500 pickups are not weighed (a search too long)


DEFAULT = Judgement()


def choose(view: View, judgement: Judgement = DEFAULT) -> Action:
    """The bot's move for the seat of ``view``."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if len(legal) == 1:
        return legal[0]
    return _Turn(view, legal, judgement).decide()


class _Turn:
    """One decision: the parsed view, its legal moves and an evaluator for its hands."""

    def __init__(self, view: View, legal: list[Action], judgement: Judgement):
        self.seen = Seen.of(view)
        self.judge = judgement
        self.legal = legal
        self.by_type: dict[str, list[Action]] = {}
        for action in legal:
            self.by_type.setdefault(action.type, []).append(action)
        self.weights = judgement.weights(self.seen)
        self.ev = Evaluator(self.weights)

    def decide(self) -> Action:
        if "call" in self.by_type:
            return self.call()
        if "draw_stock" in self.by_type or "draw_discard" in self.by_type:
            return self.draw()
        if any(t in self.by_type for t in (*PLACEMENTS, "discard")):
            return self.play()
        return self.legal[0]

    # -- valuing hands -------------------------------------------------------------

    def worth(self, hand: list[int], forced: int | None = None, *,
              playing: bool = True) -> float:
        """The value of ``hand`` plus the judgement's bonus; ``playing``: cards may still be
        laid this turn, so a hand with at most one card left over goes out."""
        plan = self.ev.plan(hand, forced)
        if plan is None:
            return float("-inf")
        value = plan.value + self.judge.bonus(self.seen, plan, self.ev)
        if playing and self._goes_out(plan):
            value += self.judge.out_bonus
        return value

    def _goes_out(self, plan: Plan) -> bool:
        """Whether laying ``plan`` leaves at most one card, to discard: out this turn."""
        return len(plan.leftover) <= 1 and self.judge.can_empty(self.seen, plan, self.ev)

    def after_discard(self, hand: list[int], forced: int | None, keep: int | None) -> float:
        """The value of ``hand`` after this turn: out, or its best discard made (not
        ``keep``, never a joker)."""
        plan = self.ev.plan(hand, forced)
        if plan is None:
            return float("-inf")
        if self._goes_out(plan):
            return self.worth(hand, forced)
        drops = [c for c in set(plan.leftover) if c < JOKER and c != keep and c != forced]
        if not drops:
            return self.worth(hand, forced, playing=False) - 5.0  # a meld must be broken
        # weigh exactly only the few cards that cost most to hold and help least
        left = set(plan.leftover)
        drops.sort(key=lambda c: 8.0 * self._has_partner(c, left) - self.weights.hold[c])
        return (plan.value + self.judge.bonus(self.seen, plan, self.ev)
                + max(self.saving(plan, c) for c in drops[:3]))

    def _has_partner(self, card: int, cards: set[int]) -> bool:
        """Whether ``cards`` hold a card of ``card``'s rank or one or two away in its suit."""
        return any(c != card and c < JOKER and (
            c % 13 == card % 13 or (c // 13 == card // 13 and abs(c % 13 - card % 13) <= 2))
            for c in cards)

    def saving(self, plan: Plan, card: int) -> float:
        """What discarding ``card``, left over in ``plan``, adds to the hand's value (the
        arrangement of the rest stays best: only the leftover changes)."""
        rest = list(plan.leftover)
        rest.remove(card)
        return (self.weights.hold[card] + self.ev.partials(rest)
                - self.ev.partials(plan.leftover))

    def after_place(self, action: Action) -> float:
        """The value of the hand after ``action`` (a meld, lay-off or joker exchange)."""
        hand = list(self.seen.hand)
        forced = None
        placed = list(action.cards) + [c for m in action.melds for c in m]
        if action.card is not None:
            placed.append(action.card)
        for c in placed:
            hand.remove(c)
        if action.type == "swap_joker":
            hand.append(JOKER)
            forced = JOKER
        elif set(self.seen.must_place) - set(placed):
            forced = self.seen.must_place[0]
        credit = sum(self.weights.credit[c] for c in placed)
        if not hand:
            return credit + self.judge.out_bonus
        return credit + self.worth(hand, forced)

    # -- draw -------------------------------------------------------------------------

    def draw(self) -> Action:
        """The stock, or a pickup worth more than what a stock card brings on average."""
        s, judge = self.seen, self.judge
        now = self.worth(s.hand, playing=False)
        pickups = []
        for action in self.by_type.get("draw_discard", []):
            depth = action.number or 1
            if len(s.hand) + depth > MAX_EVALUATED_HAND:
                continue  # taking most of a long pile: not worth the time to weigh it
            taken = s.pile[-depth:]
            must = judge.must_use_top(s) if depth == 1 else True
            value = self.after_discard(s.hand + taken, taken[0] if must else None,
                                       taken[0] if depth == 1 else None)
            pickups.append((value - (judge.take_margin if depth == 1 else judge.deep_margin),
                            action))
        best = max(pickups, key=lambda p: p[0], default=None)
        stock = self.by_type.get("draw_stock")
        if stock:
            if best is None or best[0] <= now or best[0] <= self.stock_value(now):
                return stock[0]
            return best[1]
        passing = self.by_type.get("pass")  # Rummy 500, empty stock: passing ends the hand
        if passing and (best is None or best[0] <= now):
            return passing[0]
        return best[1] if best else self.legal[0]

    def call(self) -> Action:
        """Rummy 500's "calling Rummy": claim the discard when placing it improves the hand."""
        offer = (self.seen.view.get("call") or {}).get("card")
        passing = self.by_type.get("pass")
        if offer is None or not passing:
            return self.by_type["call"][0]
        card = parse(offer)[0]
        hand = self.seen.hand
        taken = self.worth([*hand, card], card, playing=False)
        return self.by_type["call"][0] if taken > self.worth(hand, playing=False) else passing[0]

    def stock_value(self, now: float) -> float:
        """The expected value of the hand after an unknown stock card and a discard.

        A card that would meld with the hand (or lay off) is weighed in full; any other
        card is kept only if it is cheaper than the worst card held."""
        s, w = self.seen, self.weights
        plan = self.ev.plan(s.hand)
        total = sum(w.live)
        if plan is None or total <= 0:
            return now
        left = list(plan.leftover)
        partials = self.ev.partials(left)
        drop = max((self.saving(plan, c) for c in set(left) if c < JOKER), default=0.0)
        meldable = self._meldable(s.hand)
        expected = 0.0
        for u in range(CARDS):
            if not w.live[u]:
                continue
            if u == JOKER or u in meldable:
                gain = self.after_discard([*s.hand, u], None, None) - now
            else:
                gain = drop - w.hold[u] + self.ev.partials([*left, u]) - partials
            expected += w.live[u] * max(0.0, gain)
        return now + expected / total

    def _meldable(self, hand: list[int]) -> set[int]:
        """Cards that would make a meld with two cards of ``hand``, or lay off."""
        found = {c for c in range(JOKER) if self.weights.layable[c]}
        suits: dict[int, set[int]] = {}
        for c in hand:
            if c < JOKER:
                suits.setdefault(c % 13, set()).add(c // 13)
        for rank, held in suits.items():
            if len(held) >= 2:
                found.update(s * 13 + rank for s in range(4) if s not in held)
        have = set(hand)
        table = neighbours(self.weights.rules)
        for c in have - {JOKER}:
            for partner, needs in table[c]:
                if partner in have:
                    found.update(needs)
        return found

    # -- play ---------------------------------------------------------------------------

    def play(self) -> Action:
        s = self.seen
        placements = [a for a in self.legal if a.type in PLACEMENTS]
        if s.must_place and placements:  # a card owed to the table goes down first
            return max(placements, key=self.after_place)
        openings = [a for a in self.by_type.get("meld", []) if a.melds]
        if s.first_meld and openings:
            return self.opening(openings)
        plan = self.ev.plan(s.hand)
        assert plan is not None
        for step in (self.going_out, self.joker_swap, self.next_meld, self.next_layoff):
            action = step(plan)
            if action is not None:
                return action
        return self.discard()

    def opening(self, openings: list[Action]) -> Action:
        """The first melds: those of the best arrangement when the rules take them."""
        plan = self.ev.plan(self.seen.hand)
        assert plan is not None
        planned = Counter(tuple(sorted(m)) for m in plan.melds)

        def in_plan(action: Action) -> bool:
            return not Counter(tuple(sorted(m)) for m in action.melds) - planned

        ours = [a for a in openings if in_plan(a)]
        if ours:
            return max(ours, key=lambda a: (_size(a), -_jokers(a)))
        # reachable only another way: the opening leaving the best hand
        openings = sorted(openings, key=lambda a: -_size(a))[:40]
        return max(openings, key=self.after_place)

    def going_out(self, plan: Plan) -> Action | None:
        """A step toward emptying the hand this turn, jokers and all, when that is wanted."""
        weights = self.weights
        jokers = self.seen.hand.count(JOKER)
        if sum(c < JOKER for c in plan.leftover) > 1 + 2 * jokers:
            return None  # even every joker in hand could not meld all that is left
        # Covering a card now outweighs anything else, jokers are spent freely (two to a
        # meld), and only lay-offs allowed this turn count.
        out_weights = replace(weights, credit=tuple(c + 100.0 for c in weights.credit),
                              reserve=-50.0, max_jokers=2,
                              layoff_factor=1.0 if weights.layoff_factor == 1.0 else 0.0)
        out = Evaluator(out_weights).plan(self.seen.hand)
        if out is None or len(out.leftover) > 1:
            return None
        if not self.judge.may_go_out(self.seen, out):
            return None
        step = self._planned_step(out)
        if step is not None:
            return step
        # the last placement may be refused (a final discard is required): keep one card
        for action in self.legal:
            if action.type in PLACEMENTS and self._left_after(action) == 1:
                return action
        return None

    def joker_swap(self, plan: Plan) -> Action | None:
        """Take a joker from the table when the meld it then makes is worth the card given."""
        swaps = self.by_type.get("swap_joker", [])
        if not swaps:
            return None
        now = self.worth(self.seen.hand)
        best = max(swaps, key=self.after_place)
        return best if self.after_place(best) > now + 1.0 else None

    def next_meld(self, plan: Plan) -> Action | None:
        """The biggest meld of the best arrangement that the rules offer now."""
        melds = [a for a in self.by_type.get("meld", []) if a.cards and not a.melds]
        planned = {tuple(sorted(m)) for m in plan.melds}
        ours = [a for a in melds if tuple(sorted(a.cards)) in planned and self._keeps_going(a)]
        return max(ours, key=lambda a: (_size(a), -_jokers(a)), default=None)

    def next_layoff(self, plan: Plan) -> Action | None:
        """A lay-off of a card the best arrangement has no meld for."""
        wanted = set(plan.layoffs)
        for action in self.by_type.get("lay_off", []):
            if action.card in wanted and self._keeps_going(action):
                return action
        return None

    def _planned_step(self, plan: Plan) -> Action | None:
        planned = {tuple(sorted(m)) for m in plan.melds}
        for action in self.by_type.get("meld", []):
            if action.cards and tuple(sorted(action.cards)) in planned:
                return action
        wanted = set(plan.layoffs)
        return next((a for a in self.by_type.get("lay_off", []) if a.card in wanted), None)

    def _left_after(self, action: Action) -> int:
        """Cards in hand after ``action`` (a joker exchange gives one card, takes one)."""
        return len(self.seen.hand) - _size(action) - (action.type == "lay_off")

    def _keeps_going(self, action: Action) -> bool:
        """Whether ``action`` may be played outside a going-out plan (never empties the hand
        when the judgement holds back)."""
        if self._left_after(action) > 1:
            return True
        out = self.ev.plan(self.seen.hand)
        return out is None or self.judge.may_go_out(self.seen, out)

    # -- discard ---------------------------------------------------------------------------

    def discard(self) -> Action:
        options = self.by_type.get("discard") or self.legal
        naturals = [a for a in options if a.card is not None and a.card < JOKER]
        options = naturals or options  # a joker only when nothing else may go
        hand = self.seen.hand
        plan = self.ev.plan(hand)
        assert plan is not None
        spare = set(plan.leftover)
        loose = [a for a in options if a.card in spare]

        def score(action: Action) -> float:
            assert action.card is not None
            if len(hand) == 1:
                return self.judge.out_bonus
            if action.card in spare:  # the arrangement stands: only the leftover changes
                return self.saving(plan, action.card) - self.danger(action.card)
            rest = list(hand)
            rest.remove(action.card)
            return (self.worth(rest, playing=False) - self.worth(hand, playing=False)
                    - self.danger(action.card))

        return max(loose or options, key=score)

    def danger(self, card: int) -> float:
        """How much ``card`` would help an opponent: fits a table meld, or goes with cards
        he took from the discard pile.  The next player can take it at once; in Rummy 500
        the others can still dig for it."""
        s, judge = self.seen, self.judge
        risk = 1.0 if card < JOKER and self.weights.layable[card] else 0.0
        for k, opp in enumerate(s.opponents()):
            reach = 1.0 if k == 0 else (0.5 if judge.pile_live else 0.0)
            for p in s.picked[opp]:
                if p >= JOKER or card >= JOKER:
                    continue
                same_rank = p % 13 == card % 13 and p // 13 != card // 13
                gap = abs(p % 13 - card % 13) if p // 13 == card // 13 else 99
                risk += reach * (0.8 if same_rank else 0.6 if gap == 1 else 0.35 if gap == 2
                                 else 0.0)
        worth = 4.0 + 0.5 * self.weights.hold[card] + self.weights.credit[card]
        return judge.danger_weight * min(risk, 2.0) * worth


def _size(action: Action) -> int:
    return len(action.cards) + sum(len(m) for m in action.melds)


def _jokers(action: Action) -> int:
    return sum(c >= JOKER for c in action.cards) + sum(c >= JOKER for m in action.melds
                                                         for c in m)


PICKUPS = frozenset({"draw_discard"})
PLACINGS = frozenset({"meld", "lay_off"})


def overlooks(view: View, best: Action, legal: list[Action],
              choose_move: Callable[[View], Action]) -> list[Action]:
    """What an easy computer plays when it overlooks ``best`` (the bot's move), as a
    learner does: a pickup from the pile missed (it draws from the stock instead), a
    meld or lay-off not seen (it goes on to the discard its bot would make with nothing
    else on offer).  Empty for every other move."""
    if best.type in PICKUPS:
        return [a for a in legal if a.type == "draw_stock"]
    if best.type in PLACINGS:
        discards = [a for a in legal if a.type == "discard"]
        if discards:
            return [choose_move({**view, "legal": [a.to_json() for a in discards]})]
    return []
