"""A simple Gin Rummy opponent: melds greedily and knocks at the first chance.

It reads only ``view`` (``state.view(seat)``) and picks one of ``view["legal"]``:

* take the upcard / discard-pile top only when the card joins a meld and the
  hand's deadwood drops once the best other card is thrown; otherwise draw
  from the stock (or pass the first upcard);
* big gin, then gin, then knock as soon as one is legal, knocking with the
  card that leaves the least deadwood;
* otherwise discard the highest unmatched card;
* under the 50th-card rule take the last discard only when it allows a knock.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from cardtable.engine.api import Action
from cardtable.engine.cards import deadwood_value, parse
from cardtable.engine.games.gin import best_melding, deadwood
from cardtable.engine.games.gin.showdown import SOLVER

View = dict[str, Any]


def choose(view: View, rng: random.Random | None = None) -> Action:
    """The bot's move for the seat of ``view``; ``rng`` only breaks exact ties."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if len(legal) == 1:
        return legal[0]
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    hand = parse(" ".join(view["hands"][view["seat"]]["cards"]))
    if "take_upcard" in by_type or "draw_discard" in by_type:
        return _draw(view, hand, by_type)
    return _discard(view, hand, by_type, rng)


def _pile_top(view: View) -> int | None:
    pile = view.get("discard") or []
    return parse(pile[-1])[0] if pile else None


def _least_after_discard(cards: Sequence[int], keep: int | None) -> int:
    """Least deadwood after throwing one card other than ``keep``."""
    after = SOLVER.deadwood_after_each_discard(cards)
    return min(left for thrown, left in after.items() if thrown != keep)


def wants(hand: Sequence[int], card: int) -> bool:
    """Whether taking ``card`` puts it into a meld and lowers the hand's deadwood.

    If the card is deadwood in every best arrangement of hand + card, the
    minimum is simply the hand's own deadwood plus its value; anything less
    means it melds.  Taking a low card merely to throw a high one is not a
    meld, so it does not count.
    """
    held = [*hand, card]
    melds_in = deadwood(held) < deadwood(hand) + deadwood_value(card)
    return melds_in and _least_after_discard(held, keep=card) < deadwood(hand)


def _draw(view: View, hand: list[int], by_type: dict[str, list[Action]]) -> Action:
    top = _pile_top(view)
    if view.get("phase") == "final_discard":
        # The engine offers this take only when it allows a knock; checking
        # again keeps the bot safe if that ever changes.
        take = top is not None and _least_after_discard([*hand, top], keep=top) <= view[
            "knock_limit"]
    else:
        take = top is not None and wants(hand, top)
    for kind in ("take_upcard", "draw_discard") if take else ("draw_stock", "pass"):
        if kind in by_type:
            return by_type[kind][0]
    # Only the pile is left (an empty stock); take it rather than stall.
    return next(iter(by_type.values()))[0]


def _discard(
    view: View, hand: list[int], by_type: dict[str, list[Action]], rng: random.Random | None
) -> Action:
    if "big_gin" in by_type:
        return by_type["big_gin"][0]
    after = {c: deadwood([x for x in hand if x != c]) for c in hand}

    def least_left(a: Action) -> tuple[int, int]:
        return after[_card(a)], -deadwood_value(_card(a))

    for kind in ("gin", "knock"):
        if kind in by_type:
            return _pick(by_type[kind], key=least_left, rng=rng)
    discards = by_type.get("discard", [])
    if not discards:
        raise ValueError(f"no move the bot understands among {sorted(by_type)}")
    unmatched = set(best_melding(hand).deadwood)
    pool = [a for a in discards if _card(a) in unmatched] or discards
    return _pick(pool, key=lambda a: (-deadwood_value(_card(a)), after[_card(a)]), rng=rng)


def _card(action: Action) -> int:
    assert action.card is not None, f"{action} carries no card"
    return action.card


def _pick(actions: list[Action], key: Callable[[Action], tuple[int, int]],
          rng: random.Random | None) -> Action:
    """The action with the smallest ``key``; ties go to ``rng``, else to the higher card."""
    best = min(key(a) for a in actions)
    tied = [a for a in actions if key(a) == best]
    if rng is not None and len(tied) > 1:
        return rng.choice(tied)
    return max(tied, key=lambda a: (_card(a) % 13, _card(a) // 13))


__all__ = ["choose", "wants"]
