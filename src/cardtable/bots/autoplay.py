"""The automatic move the server plays when a person's turn timer runs out.

``timeout_move(game, view, bot, consecutive_misses)`` returns one of ``view["legal"]``
for the seat of ``view`` (whose time is up); ``bot`` is the game's computer player
(``choose(view) -> Action``), asked only where its judgement is wanted.  What a game's
timed-out turn plays is its descriptor's ``timeout`` (``cardtable.engine.registry``):

``"draw_then_discard"`` (the rummy games), by what the seat must decide:

* **draw**: the top card of the stock (the descriptor's ``stock_draw``), never the
  discard pile, never a deep pickup.  Where the stock is not on offer the seat
  declines: Gin's first upcard and 50th card are passed, Rummy 500's empty stock is
  a ``pass`` (which ends the hand).  Only if nothing but a pickup is legal, the top
  card.
* **discard**: the card its bot would discard.  A bot that would rather meld, lay
  off, exchange a joker, knock, go gin or show is asked again with only the discards
  legal, so the hand stays as it was and the bot's own evaluation picks the card.
* **anything else**: the most passive move: ``pass`` (Rummy 500's call of a
  discard is never made); otherwise (a ``deal``, a card still owed to the table, a
  knock after the 50th card) the bot's choice, the only sensible moves left.
* **drops**: where the descriptor's ``drop_after_misses`` is set (Indian Rummy: 3;
  its rules make the 3rd consecutive miss a middle drop), that miss in a row and the
  later ones drop, when a drop is legal.

``"bot"`` (Spades): the bot's bid or card (and its choice at every other decision).

>>> timeout_move("gin", {"legal": [{"type": "pass"}, {"type": "take_upcard"}]},
...              bot=lambda view: Action("take_upcard"))
Action('pass')
>>> is_stock_draw("rummy500", {"type": "draw_stock"})
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardtable.engine import get_game
from cardtable.engine.api import Action

View = dict[str, Any]
Bot = Callable[[View], Action]

DRAWS = frozenset({"draw_stock", "draw_discard", "take_upcard"})
"""Moves that take a card at the start of a turn (Gin's first upcard included)."""


def is_stock_draw(game: str, action: dict[str, Any]) -> bool:
    """Whether ``action`` (JSON) takes the top card of the stock (Indian: closed deck)."""
    return get_game(game).is_stock_draw(action)


def timeout_move(game: str, view: View, bot: Bot, consecutive_misses: int = 1) -> Action:
    """The move played for the seat of ``view`` when its turn timer runs out;
    ``consecutive_misses`` counts this miss (1 for the first in a row)."""
    descriptor = get_game(game)
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if descriptor.timeout == "bot":
        return _checked(bot(view), legal)
    kinds = {a.type for a in legal}
    drop_after = descriptor.drop_after_misses
    if drop_after is not None and consecutive_misses >= drop_after and "drop" in kinds:
        return Action("drop")
    if kinds & DRAWS:
        return _draw(legal, descriptor.stock_draw)
    discards = [a for a in legal if a.type == "discard"]
    if discards:
        # The bots read their choices from ``legal`` only (and are tested to), so a view
        # offering nothing but discards makes them pick the card they value least.
        only = {**view, "legal": [a.to_json() for a in discards]}
        return _checked(bot(only), discards)
    if "pass" in kinds:
        return Action("pass")
    return _checked(bot(view), legal)


def _draw(legal: list[Action], stock_draw: str | None) -> Action:
    """The stock; else decline; else (nothing but pickups) the top card, never deeper."""
    for wanted in (stock_draw, "pass"):
        for action in legal:
            if action.type == wanted:
                return action
    pickups = [a for a in legal if a.type in DRAWS]
    return min(pickups, key=lambda a: a.number or 1)


def _checked(choice: Action, legal: list[Action]) -> Action:
    """``choice`` if legal; a bot's mistake must not stall a timed-out table, so the first
    legal move (in the engine's sorted order) stands in."""
    return choice if choice in legal else legal[0]


__all__ = ["DRAWS", "is_stock_draw", "timeout_move"]
