"""The ``hard`` Indian Rummy computer player.

It reads only ``view`` (``state.view(seat)``), keeps nothing between calls, and
the same view always gives the same move.  Hands are judged by
:mod:`cardtable.bots.indian.hard_eval`: the normal player's standing, with
two-card draws counted by the copies still out and the cards a show still needs.

* **Show** as soon as ``me.finish_cards`` names a finish card (the engine
  checked that show: never a wrong one).
* **Draw** the open card when it is a joker, or when hand + card with its best
  discard stands clearly better than the hand now; else the closed deck.
* **Discard** the card whose removal leaves the best standing; jokers and wild
  cards only when nothing else may go.  A card the next player collects (next
  to or of the rank of what he took from the open deck) costs
  :data:`FEED_COST`; one next to what he just threw is a little safer.
* **Drop**: see :func:`wants_drop`.

>>> choose({"seat": 0, "phase": "deal_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

from typing import Any

from cardtable.engine.api import Action
from cardtable.engine.cards import card, pretty_card, pretty_cards
from cardtable.engine.games.indian import arrange

from . import hard_eval as ev
from .normal import Judgement, Table, decide, feeds
from .normal import wants_drop as normal_drop

View = dict[str, Any]

TAKE_MARGIN = 2.0
"""How much better the hand must stand to take the open card rather than a closed one."""
FIRST_DROP_PURE_NEED = 2
"""A first drop only for a hand that still lacks two cards of every pure sequence."""
MIDDLE_DROP_ROUNDS = 5
"""A middle drop only this many rounds in (or once an opponent collects from the open deck)..."""
MIDDLE_DROP_NEED = 3
"""...and only for a hand still this many cards from its lives."""
FEED_COST = 4.0
"""What feeding the next player costs, in score points."""


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    return decide(view, Judgement(Hand.read, wants_drop, wants_open, choose_discard))


class Hand(Table):
    """The normal player's reading of a view, plus the copies of each card not seen."""

    unseen: list[int]

    @classmethod
    def read(cls, view: View) -> Hand:
        table = super().read(view)
        assert isinstance(table, Hand)
        seen = list(table.hand)
        cut = (view.get("wild") or {}).get("card")
        if cut:
            seen.append(card(cut))
        if table.top is not None:
            seen.append(table.top)
        for s, h in enumerate(view["hands"]):
            if s != table.seat:
                seen += [card(x) for x in h.get("picked", [])]
        decks = int(view.get("options", {}).get("decks", 2))
        table.unseen = ev.unseen_copies(decks, seen)
        return table

    def stand(self, cards: list[int]) -> ev.Standing:
        return ev.standing(tuple(sorted(cards)), self.wild, self.rules, self.late, self.unseen)

    def stand_without(self, cards: list[int], c: int) -> ev.Standing:
        return ev.standing_without(tuple(sorted(cards)), c, self.wild, self.rules, self.late,
                                   self.unseen)


# -- drawing --------------------------------------------------------------------------------------

def wants_open(table: Hand) -> bool:
    """Take the open card: a joker, or a card whose best discard leaves the hand clearly
    better than it stands now."""
    top = table.top
    if top is None:
        return False
    if table.joker(top):
        return True
    held = [*table.hand, top]
    solution = arrange.solve(tuple(sorted(held)), table.wild, table.rules)
    if not any(top in g.naturals for g in solution.groups):
        return False  # a card that only pairs: a closed card does as much as often
    pool = [c for c in table.candidates(held, held) if c != top]
    if not pool:
        return False
    after = min(table.stand_without(held, c).score for c in pool)
    return after < table.stand(table.hand).score - TAKE_MARGIN


# -- dropping -------------------------------------------------------------------------------------

def wants_drop(table: Hand) -> bool:
    """Drop only a hand the normal player would drop that is also far from its pure
    sequence (first drop) or far from its lives with the others looking close (middle
    drop): a drop loses the deal for sure, and in bot-against-bot deals hands the normal
    player drops still win often enough to be played on."""
    if not normal_drop(table):
        return False
    need = ev.lives_need(tuple(sorted(table.hand)), table.wild, table.rules)
    mine = table.view["hands"][table.seat]
    if not mine["drawn"]:
        return need[0] >= FIRST_DROP_PURE_NEED
    others = [h for s, h in enumerate(table.view["hands"])
              if s != table.seat and h["status"] == "playing"]
    collecting = max((len(h["picked"]) for h in others), default=0)
    late = table.rounds() >= MIDDLE_DROP_ROUNDS or collecting >= 2
    return late and sum(need) >= MIDDLE_DROP_NEED


# -- discarding -----------------------------------------------------------------------------------

def choose_discard(table: Hand, legal: list[int]) -> int:
    """The discard leaving the best standing, feeding the next player counted as a cost."""
    pool = table.candidates(table.hand, sorted(set(legal)))
    nxt = table.next_player()
    picked = [] if nxt is None else [card(x) for x in table.view["hands"][nxt]["picked"]]

    def key(c: int) -> tuple[float, int, int]:
        score = table.stand_without(table.hand, c).score
        if feeds(c, picked, table.wild):
            score += FEED_COST
        return (score, -table.value(c), c)

    return min(pool, key=key)


# -- hints --------------------------------------------------------------------------------------

def hint(view: View, action: Action) -> str:
    """A short reason a player can read for ``action`` in the seat of ``view``."""
    if action.type == "deal":
        return "deal the next hand"
    table = Hand.read(view)
    if action.type == "declare" and action.card is not None:
        if action.card in table.finish:
            return f"show: every card is grouped; {pretty_card(action.card)} in the finish slot"
        return "careful: this show is wrong and costs the penalty"
    if action.type == "drop":
        cost = (view.get("drop") or {}).get("middle" if view["hands"][table.seat]["drawn"]
                                             else "first", 0)
        points = (view.get("me") or {}).get("points", 0)
        return f"drop for {cost}: {points} points in hand and no pure sequence near"
    if action.type == "draw_discard" and table.top is not None:
        return _take_reason(table, table.top)
    if action.type == "draw_stock":
        if table.top is None:
            return "draw a closed card: the open deck is empty"
        if table.joker(table.top) and not view["open"].get("takeable", True):
            return f"draw a closed card: a thrown {pretty_card(table.top)} may not be taken"
        return f"draw a closed card: {pretty_card(table.top)} joins none of your groups"
    if action.type == "discard" and action.card is not None:
        return _throw_reason(table, action.card)
    return str(action)


def _take_reason(table: Hand, top: int) -> str:
    if table.joker(top):
        return f"take {pretty_card(top)}: a joker fills any group"
    held = tuple(sorted([*table.hand, top]))
    for g in arrange.solve(held, table.wild, table.rules).groups:
        if top in g.naturals:
            joker = " + joker" * g.jokers
            return f"take {pretty_card(top)}: it makes {pretty_cards(sorted(g.naturals))}{joker}"
    return f"take {pretty_card(top)}"


def _throw_reason(table: Hand, c: int) -> str:
    after = table.stand_without(table.hand, c)
    left = [x for x in after.loose if not table.joker(x)]
    state = (f"{after.counted} count, {len(left)} loose" if after.lives
             else f"{round(after.away)} cards from the lives")
    if table.joker(c):
        return f"throw {pretty_card(c)}: nothing else may go; {state}"
    whole = table.stand(table.hand)
    if c not in whole.loose:
        return f"throw {pretty_card(c)}: the group it leaves helps least; {state}"
    kind = "high loose card" if table.value(c) >= 8 else "loose card"
    return f"throw {pretty_card(c)}: {kind}, nothing near it; {state}" \
        if not ev.draws(whole.loose, table.wild, table.unseen).get(c) \
        else f"throw {pretty_card(c)}: its draw is the weakest; {state}"


__all__ = ["choose", "choose_discard", "hint", "wants_drop", "wants_open"]
