"""The hard Gin Rummy player: reads the opponent, throws safe cards, knocks on judgement.

It reads only ``view`` (``state.view(seat)``), keeps nothing between calls, and plays
one of ``view["legal"]``; the same view always gives the same move.

* **Discards** (:mod:`cardtable.bots.gin.hard_eval`): the card whose loss leaves the
  best hand, scored as today's deadwood and the deadwood expected after the next
  draw (so connectors with live outs stay, dead cards go), plus a penalty for feeding
  the opponent: the chance he holds two cards that meld with it, read from his picks
  and from the cards he threw or let pass (:mod:`cardtable.bots.gin.hard_read`).
* **Draws**: the discard-pile card is taken when the hand it leaves beats what a stock
  card is expected to bring, or when it lets us knock at once and the knock is good.
* **Knocks**: gin and big gin always; a knock when its expected score is worth it,
  reckoned against guesses at his hand (his picks, likely cards, the best of as many
  stock cards as he has drawn) with his lay-offs and the undercut bonus, and worth
  more than playing on: with low deadwood, his own knock is our undercut.  With little
  deadwood early and several live gin cards it waits for gin.

``hint(view, action)`` says why in a few words ("throw K♦: keeps 7♥ 8♥ for the run;
12 deadwood").

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from cardtable.bots.gin.hard_eval import Evaluator, outs
from cardtable.bots.gin.hard_read import (
    Reading,
    deadwood_after_best,
    feeds,
    knock_outcomes,
    likely_hands,
    read,
    world_guess,
)
from cardtable.bots.gin.words import describe_discard, describe_take, meld_with
from cardtable.engine.api import Action
from cardtable.engine.cards import pretty_card
from cardtable.engine.games.gin.showdown import SOLVER, value
from cardtable.engine.state import Held

View = dict[str, Any]

FEED_COST = 4.0
"""Deadwood points a discard costs per unit of chance that the opponent melds it
(measured against the normal player: 2-4 best; 8 and up keep too many poor cards)."""

TAKE_MARGIN = 0.5
"""How much better (in deadwood points) the pile card must leave the hand than a stock
draw is expected to: taking a card also tells the opponent what we collect."""

KNOCK_AT = 2.0
"""Least expected score (points per hand) for which a knock is made rather than play on."""

TRAP_WEIGHT = 0.75
"""How much of an undercut, should he knock, playing on with low deadwood is worth: the
chance he knocks first times what it pays.  Players who knock at the first chance pay
for it (measured against the normal player: 0.5 and 1.0 both well ahead of 0)."""

TRAP_TURNS = 4
"""With fewer turns than this left to him, playing on is worth proportionally less."""

GUESSES = 24
"""Guessed opponent hands a knock is weighed against."""

GIN_WAIT_DEADWOOD = 3
"""At most this much deadwood, early in the hand, with enough live gin cards: wait for gin."""

GIN_WAIT_OUTS = 0.12
"""Least chance of drawing a gin card next turn to wait for gin."""

GIN_WAIT_STAGE = 0.5
"""Until this far into the stock (0 at the deal, 1 at the floor) waiting for gin is allowed."""

PRUNE = 12
"""Discards leaving this much more deadwood than the least are not weighed."""

WEIGHED = 7
"""Discards weighed at most (those leaving the least deadwood)."""


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    return _decide(view, explain=False)[0]


def hint(view: View, action: Action) -> str:
    """A short reason a player can read for ``action`` (normally the one :func:`choose`
    gives) in the seat of ``view``."""
    best, reason = _decide(view, explain=True)
    if action == best:
        return reason
    words = action.type.replace("_", " ")
    return f"{words} {pretty_card(action.card)}" if action.card is not None else words


def _decide(view: View, explain: bool) -> tuple[Action, str]:
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    if "deal" in by_type:
        return by_type["deal"][0], "deal the next hand"
    if len(legal) == 1 and legal[0].type not in ("knock", "gin"):
        only = legal[0]
        return only, "draw from the stock" if only.type == "draw_stock" else "the only move"
    reading = read(view)
    if by_type.keys() & {"take_upcard", "draw_discard", "draw_stock", "pass"}:
        return _draw(view, reading, by_type, explain)
    return _discard(reading, by_type, explain)


# -- drawing ----------------------------------------------------------------------


def _draw(view: View, r: Reading, by_type: dict[str, list[Action]],
          explain: bool) -> tuple[Action, str]:
    take = _first(by_type, "take_upcard", "draw_discard")
    skip = _first(by_type, "draw_stock", "pass")
    if take is None or not r.pile:
        assert skip is not None
        return skip, "draw from the stock"
    top = r.pile[-1]
    held = [*r.hand, top]
    least, throw = deadwood_after_best(held, keep=top)
    if view.get("phase") == "final_discard":
        # Taking it means knocking at once; passing leaves the hand void (0).
        expected = _knock_value(r, [c for c in held if c != throw])
        if expected > 0 or skip is None:
            return take, f"take {pretty_card(top)} and knock with {least} deadwood"
        return skip, "pass: a knock now would likely be undercut"
    if skip is None:
        return take, f"take {pretty_card(top)}: the stock is empty"
    if least <= r.knock_limit and _against_knock(r, [c for c in held if c != throw], least) is None:
        # The same judgement the knock itself will make: a take "to knock" followed by no
        # knock would have two waiting players trade low cards from the pile for ever.
        return take, f"take {pretty_card(top)}: then knock with {least} deadwood"
    ev = Evaluator(r)
    now, expected = ev.measure(r.hand)
    if top not in outs(r.hand) and least >= now:
        # It melds with nothing and lowers nothing: nothing to weigh.
        verb = "pass" if skip.type == "pass" else "draw"
        return skip, f"{verb}: {pretty_card(top)} does not help; {now} deadwood"
    # A stock card: the hand as it stands, improved by what one draw is expected to save.
    stock_value = ev.score(r.hand) - (now - expected)
    take_value, discard = _best_keep(ev, held, keep=top)
    if take_value + TAKE_MARGIN < stock_value:
        if not explain:
            return take, ""
        return take, describe_take(top, [c for c in held if c != discard], discard, now)
    if not explain:
        return skip, ""
    verb = "pass" if skip.type == "pass" else "draw"
    if meld_with(held, top):
        return skip, f"{verb}: {pretty_card(top)} melds, but a stock card is likely better"
    return skip, f"{verb}: {pretty_card(top)} does not help; {now} deadwood"


def _best_keep(ev: Evaluator, held: list[int], keep: int) -> tuple[float, int]:
    """(score, card to throw) of the best ten of ``held`` that keep ``keep``; only the
    throws leaving the least deadwood are weighed."""
    after = SOLVER.deadwood_after_each_discard(held)
    ranked = sorted((left, -value(c), c) for c, left in after.items() if c != keep)
    least = ranked[0][0]
    return min((ev.score([x for x in held if x != c]), -value(c), c)
               for left, _, c in ranked[:WEIGHED] if left <= least + PRUNE)[0::2]


# -- discarding, knocking -----------------------------------------------------------


def _discard(r: Reading, by_type: dict[str, list[Action]], explain: bool) -> tuple[Action, str]:
    if "big_gin" in by_type:
        return by_type["big_gin"][0], "big gin: all 11 cards melded"
    if "gin" in by_type:
        return min(by_type["gin"], key=lambda a: _card(a)), "gin: every card melded"
    waiting = ""
    if "knock" in by_type:
        knock, waiting = _judge_knock(r, by_type["knock"], must="discard" not in by_type)
        if knock is not None:
            return knock, waiting
    discards = by_type.get("discard", [])
    if not discards:
        raise ValueError(f"no move the hard player understands among {sorted(by_type)}")
    after = SOLVER.deadwood_after_each_discard(r.hand)
    least = min(after[_card(a)] for a in discards)
    ranked = sorted(discards, key=lambda a: (after[_card(a)], -value(_card(a)), _card(a)))
    pool = [a for a in ranked if after[_card(a)] <= least + PRUNE][:WEIGHED]
    ev = Evaluator(r)
    stage = r.stage

    def cost(action: Action) -> tuple[float, int, int]:
        card = _card(action)
        kept = [c for c in r.hand if c != card]
        danger = feeds(r, card) * FEED_COST * (0.75 + 0.5 * stage)
        return ev.score(kept) + danger, -value(card), card

    best = min(pool, key=cost)
    if not explain:
        return best, ""
    card = _card(best)
    kept = [c for c in r.hand if c != card]
    reason = describe_discard(r, card, kept, feeds(r, card))
    if not waiting:
        return best, reason
    joined = f"{waiting}; {reason}"
    return best, joined if len(joined) <= 80 else f"{waiting}; throw {pretty_card(card)}"


def _judge_knock(r: Reading, knocks: list[Action], must: bool) -> tuple[Action | None, str]:
    """The knock to make, or ``None`` and why not."""
    after = SOLVER.deadwood_after_each_discard(r.hand)
    knock = min(knocks, key=lambda a: (after[_card(a)], -value(_card(a)), _card(a)))
    kept = [c for c in r.hand if c != _card(knock)]
    left = after[_card(knock)]
    if must:
        return knock, f"knock with {left} deadwood (the last card must knock)"
    reason = _against_knock(r, kept, left)
    if reason is None:
        return knock, f"knock with {left} deadwood: he likely holds more"
    return None, reason


def _against_knock(r: Reading, kept: Sequence[int], left: int) -> str | None:
    """Why not to knock keeping ``kept`` (``left`` deadwood), or None to knock."""
    chance = _gin_chance(r, kept)
    if left <= GIN_WAIT_DEADWOOD and r.stage < GIN_WAIT_STAGE and chance >= GIN_WAIT_OUTS:
        return f"wait for gin: {left} deadwood, {round(chance * 100)}% a turn"
    expected = _knock_value(r, kept)
    if expected >= KNOCK_AT + _trap_value(r, left):
        return None
    if expected >= KNOCK_AT:
        return f"no knock at {left}: his knock may be undercut"
    return f"no knock at {left}: he may undercut"


def _trap_value(r: Reading, left: int) -> float:
    """What playing on with ``left`` deadwood is worth on top of a knock's points: if he
    knocks, any deadwood of his from ``left`` to the limit is our undercut."""
    limit = r.knock_limit
    if left > limit or limit <= 0:
        return 0.0
    bonus = int(r.options.get("undercut_bonus", 25))
    his_turns = max(0, r.stock - r.floor) / 2
    chance = (limit - left + 1) / limit
    return TRAP_WEIGHT * min(1.0, his_turns / TRAP_TURNS) * chance * (bonus + (limit - left) / 2)


def _knock_value(r: Reading, kept: Sequence[int]) -> float:
    """Expected points of knocking with ``kept`` now, against guesses at his hand."""
    scores = knock_outcomes(r, kept, likely_hands(r, GUESSES))
    return sum(scores) / len(scores)


def _gin_chance(r: Reading, kept: Sequence[int]) -> float:
    """Chance the next stock card makes gin with ``kept``."""
    draw = Evaluator(r, weight=0.0).draw
    return sum(draw.get(card, 0.0) for card in outs(kept)
               if card in draw and SOLVER.best_discard([*kept, card])[0] == 0)


# -- judging a hand in play, for the expert's short rollouts ----------------------------


TRUSTED_KINDS = frozenset({"knock"})
"""Calls the expert's search leaves to this player: a knock is judged against guessed
hands of the opponent (his picks and declines), where the search's uniformly dealt
worlds hold worse hands than his and would knock into undercuts."""


def guess_hidden(view: View) -> Callable[[random.Random], Held]:
    """How the expert deals its worlds from ``view``: the opponent holds a hand he could
    have kept from what he drew (:func:`~cardtable.bots.gin.hard_read.world_guess`), not
    ten cards dealt at random from the unseen ones."""
    reading = read(view)
    opponent = 1 - reading.seat
    return lambda rng: {opponent: world_guess(reading, rng)}

HORIZON = 8
"""Moves the expert's rollouts play before :func:`estimate` judges the hand: two turns
each."""

EDGE, READY_MINE, READY_HIS, EDGE_SCALE = 8.7, 15.2, 10.3, 20.0
"""A least-squares fit to 17,039 turns of 150 matches between two hard players (points
of the hand still to come for the player to draw, from both players' deadwood):
``EDGE * tanh((his - mine) / EDGE_SCALE)``, plus ``READY_MINE`` times how far under the
knock limit his own deadwood is (a fraction of the limit), less ``READY_HIS`` times his
opponent's.  Deadwood alone explains little of a hand (the outcome's spread is ±27
points); what the search needs is that it moves smoothly with the moves tried."""


def estimate(view_of: Callable[[int], View], seat: int) -> float | None:
    """The points the hand in play is worth to ``seat``, with both hands known (the
    expert's worlds); judged at the start of a turn only, when both hold ten cards."""
    mine = view_of(seat)
    if mine.get("phase") != "draw" or mine.get("to_act") is None:
        return None
    actor = int(mine["to_act"])
    dead = [int((mine if s == seat else view_of(s))["melding"]["points"])
            for s in (actor, 1 - actor)]
    limit = int(mine.get("knock_limit", 10))

    def ready(deadwood: int) -> float:
        return max(0, limit - deadwood) / limit if limit > 0 else 0.0

    edge = (EDGE * math.tanh((dead[1] - dead[0]) / EDGE_SCALE)
            + READY_MINE * ready(dead[0]) - READY_HIS * ready(dead[1]))
    edge *= int(mine.get("multiplier", 1) or 1)
    return edge if actor == seat else -edge


def _first(by_type: dict[str, list[Action]], *kinds: str) -> Action | None:
    for kind in kinds:
        if kind in by_type:
            return by_type[kind][0]
    return None


def _card(action: Action) -> int:
    assert action.card is not None, f"{action} carries no card"
    return action.card


__all__ = ["HORIZON", "TRUSTED_KINDS", "choose", "estimate", "hint"]
