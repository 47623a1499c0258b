"""The Indian Rummy computer player: pure sequence first, jokers kept, shows at once.

It reads only ``view`` (``state.view(seat)``) and picks one of ``view["legal"]``;
the same view always gives the same move.  Hands are judged by
:func:`cardtable.bots.indian.normal_eval.shape`, built on the engine's exact arranger.

* **Show** as soon as ``me.finish_cards`` names a finish card: the engine
  checked that show, so the bot never makes a wrong one (it never declares
  otherwise).
* **Draw** from the open deck only when the card is a joker, makes a show
  possible, or joins a group of the arranger's best grouping of hand + card
  and the hand is clearly better once a loose card is thrown; else the
  closed deck.
* **Discard** the card whose removal leaves the best hand (the lowest count
  under the life rules, with cards towards the pure sequence valued above
  everything else).  Jokers and wild cards are never thrown unless nothing
  else may be.  Among equal choices: not a card next to (or of the rank of)
  what the next player took from the open deck, then the highest card, then
  an isolated one.
* **Drop** a hopeless hand: a first drop when the dealt hand has no jokers,
  no pure-sequence prospect and a high count; a middle drop late in a deal
  when the hand is still far from its lives, would pay far more than the
  middle drop, and the others look close (many turns gone, cards taken from
  the open deck).  Never a drop that would put the player out of a pool.

>>> choose({"seat": 0, "phase": "deal_over", "legal": [{"type": "deal"}]})
Action('deal')

The easy level (``cardtable.bots.levels``) never throws a :func:`precious` card by a slip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from cardtable.engine.api import Action
from cardtable.engine.cards import RANKS, card
from cardtable.engine.games.indian import Rules, arrange, card_value

from .normal_eval import Shape, is_joker, links, shape, shape_without

T = TypeVar("T", bound="Table")

View = dict[str, Any]

TAKE_MARGIN = 2.0
"""How much better the hand must get to take the open card: taking shows the others what
the bot collects, and a closed card may be better."""
FEED_SLACK = 1.0
"""Discards whose scores differ by at most this are "equal" for not feeding the next player."""
# The drop thresholds come from bot-against-bot deals (points, 2 and 4 players): the
# average result of hands by their shape score, set against the drop's sure cost.
FIRST_DROP_SCORE = {2: 85.0, 3: 65.0, 4: 52.0}
"""A dealt hand without jokers scoring this much (by players in the deal; 4 or more)
loses more on average than a first drop of 20; the threshold moves with the drop's
cost.  Two players: such hands lose barely more than the drop (-25 to -32 from 60 up),
so only the worst drop; four: from 50 up they lose 40 to 60."""
FIRST_DROP_SLOPE = 0.8
"""Score points per point of first-drop cost above (below) 20."""
MIDDLE_DROP_MARGIN = 20
"""A middle drop is made only when the hand would pay this much more than the drop..."""
MIDDLE_DROP_NEED = 2
"""...and still needs this many cards for its lives (one card away often still shows)."""
LATE_SPAN = 8
"""Rounds of turns after which a deal counts as late for the hand's score."""
LATE_ROUNDS = 3
"""Rounds of turns after which the others may be close to a show; cards they took from
the open deck say so earlier."""


def choose(view: View) -> Action:
    """The bot's move for the seat of ``view``."""
    return decide(view, Judgement(Table.read, wants_drop, wants_open, choose_discard))


@dataclass(frozen=True)
class Judgement(Generic[T]):
    """A player's judging functions: how it reads a view, and its calls on a drop, on the
    open card and on the discard; :func:`decide` puts them in order."""

    read: Callable[[View], T]
    wants_drop: Callable[[T], bool]
    wants_open: Callable[[T], bool]
    choose_discard: Callable[[T, list[int]], int]


def decide(view: View, judge: Judgement[T]) -> Action:
    """The turn's skeleton every Indian player shares: a lone move is made; before the
    draw, drop or take the open card or draw; after it, show when the engine offers a
    valid show, else discard."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if len(legal) == 1:
        return legal[0]
    kinds = {a.type for a in legal}
    table = judge.read(view)
    if "draw_stock" in kinds:
        if "drop" in kinds and judge.wants_drop(table):
            return Action("drop")
        if "draw_discard" in kinds and judge.wants_open(table):
            return Action("draw_discard")
        return Action("draw_stock")
    declares = [a for a in legal if a.type == "declare"]
    finish = [c for c in table.finish if Action("declare", card=c) in declares]
    if finish:  # the engine vouches for these: a valid show, never a wrong one
        return Action("declare", card=max(finish, key=lambda c: (not table.joker(c),
                                                                   table.value(c), c)))
    discards = [a.card for a in legal if a.type == "discard" and a.card is not None]
    if not discards:
        raise ValueError(f"no move the player understands among {sorted(kinds)}")
    return Action("discard", card=judge.choose_discard(table, discards))


@dataclass
class Table:
    """What the bot reads from a view."""

    seat: int
    hand: list[int]
    wild: int | None
    rules: Rules
    top: int | None
    finish: list[int]
    view: View
    late: float = 0.0  # how far the deal has gone, 0 to 1 (in steps, for the caches)

    @classmethod
    def read(cls, view: View) -> Table:
        seat = view["seat"]
        o = view.get("options", {})
        rank = view["wild"]["rank"]
        me = view.get("me") or {}
        top = view["open"]["top"]
        table = cls(seat=seat, hand=[card(c) for c in view["hands"][seat]["cards"]],
                    wild=None if rank is None else RANKS.index(rank),
                    rules=arrange.rules(str(o.get("joker_group", "sequence")),
                                        bool(o.get("four_card_life", False)),
                                        bool(o.get("big_sets", False))),
                    top=None if top is None else card(top),
                    finish=[card(c) for c in me.get("finish_cards", [])], view=view)
        table.late = min(1.0, round(table.rounds() / LATE_SPAN * 4) / 4)
        return table

    def joker(self, c: int) -> bool:
        return is_joker(c, self.wild)

    def value(self, c: int) -> int:
        return card_value(c, self.wild)

    def shape(self, cards: list[int]) -> Shape:
        return shape(tuple(sorted(cards)), self.wild, self.rules, self.late)

    def after(self, cards: list[int], c: int) -> Shape:
        """The standing of ``cards`` once ``c`` is thrown."""
        return shape_without(tuple(sorted(cards)), c, self.wild, self.rules, self.late)

    def candidates(self, cards: list[int], allowed: list[int]) -> list[int]:
        """The discards worth scoring: never a joker unless nothing else is allowed; with the
        lives, only loose cards (throwing a grouped card never lowers the count); without,
        not a card of a pure run (the pure sequence comes first)."""
        pool = [c for c in allowed if not self.joker(c)] or sorted(allowed)
        solution = arrange.solve(tuple(sorted(cards)), self.wild, self.rules)
        if solution.lives:
            keep = [c for c in pool if c in self.shape(cards).loose]
        else:
            pure = {c for g in solution.groups if g.kind == "pure" for c in g.naturals}
            keep = [c for c in pool if c not in pure]
        return keep or pool

    def next_player(self) -> int | None:
        """The next seat still playing this deal, in the direction of play."""
        hands, n = self.view["hands"], len(self.view["hands"])
        step = 1 if self.view.get("direction", "clockwise") == "clockwise" else -1
        for k in range(1, n):
            seat = (self.seat + step * k) % n
            if hands[seat]["status"] == "playing":
                return seat
        return None

    def rounds(self) -> float:
        """About how many rounds of turns the deal has gone (from the closed deck)."""
        v = self.view
        in_deal = sum(h["status"] != "out" for h in v["hands"]) or 1
        decks = int(v.get("options", {}).get("decks", 2))
        dealt_closed = 53 * decks - 13 * in_deal - 2
        drawn = max(0, dealt_closed - v["closed"]) + sum(len(h["picked"]) for h in v["hands"])
        if v["closed"] > dealt_closed:  # the closed deck was renewed: very late
            drawn = dealt_closed
        return float(drawn) / in_deal


# -- drawing --------------------------------------------------------------------------------------

def wants_open(table: Table) -> bool:
    """Take the open card: a show with it, a joker, or a card that joins a group and makes
    the hand clearly better (the engine's arranger on hand + card decides)."""
    top = table.top
    if top is None:
        return False
    if table.joker(top):
        return True
    held = [*table.hand, top]
    solution = arrange.solve(tuple(sorted(held)), table.wild, table.rules)
    whole = table.shape(held)
    if whole.lives and len(whole.loose) <= 1:
        # a show: the loose card (or a card of a group of four or more) goes in the finish
        # slot; the engine's finish cards, not this, decide the declaration
        return True
    if not any(top in g.naturals for g in solution.groups):
        return False
    # the discards scored are the loose ones (no new search each): an upper bound of the
    # best hand, so a doubtful card is left for the closed deck
    loose = [c for c in set(whole.loose) if c != top and not table.joker(c)]
    if not loose:
        return False
    after = min(table.after(held, c).score for c in loose)
    return after < table.shape(table.hand).score - TAKE_MARGIN


# -- dropping -------------------------------------------------------------------------------------

def wants_drop(table: Table) -> bool:
    """Drop a hopeless hand (never one that would put the player out of a pool)."""
    v = table.view
    drops = v.get("drop")
    if not drops:
        return False
    mine = v["hands"][table.seat]
    cost = drops["middle"] if mine["drawn"] else drops["first"]
    fmt = v.get("format") or {}
    if fmt.get("kind") == "pool" and fmt.get("target") is not None \
            and fmt["totals"][table.seat] + cost >= fmt["target"]:
        return False
    hand = tuple(sorted(table.hand))
    now = table.shape(table.hand)
    if now.lives:
        return False
    pays = min(now.counted, int(v.get("options", {}).get("full_count", 80)))
    if not mine["drawn"]:
        return first_drop(hand, table, cost)
    return middle_drop(table, now, pays, cost)


def first_drop(hand: tuple[int, ...], table: Table, cost: int) -> bool:
    """No jokers and a high score (far from a pure sequence, a high count): the drop is
    cheaper than what such hands lose on average."""
    if any(table.joker(c) for c in hand):
        return False
    in_deal = sum(h["status"] == "playing" for h in table.view["hands"])
    threshold = FIRST_DROP_SCORE[min(max(in_deal, 2), 4)] + FIRST_DROP_SLOPE * (cost - 20)
    return table.shape(table.hand).score >= threshold


def middle_drop(table: Table, now: Shape, pays: int, cost: int) -> bool:
    """Far from the lives, paying far more than the drop, and the others look close."""
    if pays < cost + MIDDLE_DROP_MARGIN or now.need < MIDDLE_DROP_NEED:
        return False
    others = [h for s, h in enumerate(table.view["hands"])
              if s != table.seat and h["status"] == "playing"]
    collecting = max((len(h["picked"]) for h in others), default=0)
    return table.rounds() >= LATE_ROUNDS or collecting >= 2


# -- discarding -----------------------------------------------------------------------------------

def feeds(c: int, picked: list[int], wild: int | None) -> bool:
    """Whether ``c`` helps a player who took ``picked``: same rank, or same suit two ranks away."""
    for p in picked:
        if is_joker(p, wild):
            continue
        if p % 13 == c % 13:
            return True
        if p // 13 == c // 13:
            d = abs(p % 13 - c % 13)
            if d <= 2 or d >= 11:  # the ace also sits above the king
                return True
    return False


def choose_discard(table: Table, legal: list[int]) -> int:
    """The discard leaving the best hand; jokers only when nothing else may go."""
    pool = table.candidates(table.hand, sorted(set(legal)))
    scores = {c: table.after(table.hand, c).score for c in pool}
    best = min(scores.values())
    near = [c for c in pool if scores[c] <= best + FEED_SLACK]
    nxt = table.next_player()
    picked = [] if nxt is None else [card(x) for x in table.view["hands"][nxt]["picked"]]
    loose = list(table.shape(table.hand).loose)
    linked = links(loose, table.wild)
    isolated = {c for c in loose if c not in linked}

    def key(c: int) -> tuple[bool, float, int, bool, int]:
        return (feeds(c, picked, table.wild), scores[c], -table.value(c),
                c not in isolated, c)

    return min(near, key=key)


def precious(view: View, c: int) -> bool:
    """A card the easy level never throws by a slip: a printed joker or a card of the
    wild rank.

    >>> precious({"wild": {"card": "7s", "rank": "7"}}, card("7h")), precious({}, card("7h"))
    (True, False)
    """
    rank = (view.get("wild") or {}).get("rank")
    wild = RANKS.index(rank) if isinstance(rank, str) and rank in RANKS else None
    return is_joker(c, wild)


__all__ = ["choose", "choose_discard", "feeds", "precious", "wants_drop", "wants_open"]
