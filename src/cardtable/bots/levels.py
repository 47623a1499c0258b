"""Computer levels: how strongly a computer seat plays.

``choose(game, level, view, rng)`` returns one of ``view["legal"]`` for the seat of
``view`` (``state.view(seat)``):

* ``"normal"``: the game's own bot (:data:`BOT_MODULES`), exactly as it plays alone.
* ``"easy"``: the same bot, but about one decision in three (:data:`EASY_SLIP`) where
  a choice of the same kind exists it makes another one at random:

  - a **discard** (every rummy game): another legal discard, never a joker (nor, in
    Indian Rummy, a wild card) unless the bot threw one itself;
  - a **card to play** (Spades): another legal card, except while the seat bid nil
    (a random card would throw the nil away);
  - a **bid** (Spades): a legal bid at most one away from the bot's, never nil unless
    the bot bid nil.

  Everything else is the bot's: draws and pickups, melds and lay-offs, knocks, gin,
  shows (declare), drops, calls, blind nil, card passing, dealing.  So an easy
  computer never makes a move a sensible player would not (no random Indian drop, no
  knock, declaration or show the bot did not choose); it only plays looser cards.

Unknown games and levels are a ``ValueError``.  Bot modules load lazily.

>>> import random
>>> choose("gin", "easy", {"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]},
...        random.Random(1))
Action('deal')
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, RANKS

View = dict[str, Any]
Bot = Callable[[View], Action]

LEVELS = ("easy", "normal")
"""The computer levels, weakest first."""

BOT_MODULES = {"gin": "cardtable.bots.gin_simple", "rummy": "cardtable.bots.rummy_bot",
               "rummy500": "cardtable.bots.rummy500_bot", "romme": "cardtable.bots.romme_bot",
               "spades": "cardtable.bots.spades_bot", "indian": "cardtable.bots.indian_bot"}
"""Each game's computer player: a module with ``choose(view) -> Action``."""

EASY_SLIP = 0.35
"""How often an easy computer swaps the bot's discard, card or bid for a looser one."""


def bot_for(game: str) -> Bot:
    """The ``choose(view)`` of ``game``'s bot, imported on first use (bots are heavy)."""
    if game not in BOT_MODULES:
        raise ValueError(f"no computer player for {game!r}")
    choose_move: Bot = importlib.import_module(BOT_MODULES[game]).choose
    return choose_move


def choose(game: str, level: str, view: View, rng: random.Random) -> Action:
    """The move of a computer of ``level`` for the seat of ``view``; ``rng`` decides the
    easy level's slips (a seeded ``rng`` gives the same moves again)."""
    if level not in LEVELS:
        raise ValueError(f"unknown computer level {level!r}; levels: {', '.join(LEVELS)}")
    bot = bot_for(game)
    best = bot(view)
    if level == "normal":
        return best
    # Draw every time, slip or not, so that one decision's options do not shift the
    # random sequence of the ones after it.
    slip = rng.random() < EASY_SLIP
    others = alternatives(game, view, best)
    if not slip or not others:
        return best
    return rng.choice(others)


def alternatives(game: str, view: View, best: Action) -> list[Action]:
    """The legal moves an easy computer may make instead of the bot's ``best`` (never
    ``best`` itself); empty where the bot's choice stands."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    same = [a for a in legal if a.type == best.type and a != best]
    if best.type == "discard":
        return [a for a in same if a.card is None or not _precious(game, view, a.card)
                or _precious(game, view, best.card)]
    if game == "spades" and best.type == "play":
        bids = view.get("bids") or []
        seat = view.get("seat")
        nil = isinstance(seat, int) and seat < len(bids) and bids[seat] == 0
        return [] if nil else same
    if game == "spades" and best.type == "bid" and best.number is not None:
        near = [a for a in same if a.number is not None and abs(a.number - best.number) <= 1]
        return [a for a in near if a.number != 0 or best.number == 0]
    return []


def _precious(game: str, view: View, card: int | None) -> bool:
    """A joker: the printed one, or in Indian Rummy a card of the wild rank."""
    if card is None:
        return False
    if card >= JOKER:
        return True
    if game != "indian":
        return False
    rank = (view.get("wild") or {}).get("rank")
    return isinstance(rank, str) and rank in RANKS and card % 13 == RANKS.index(rank)


__all__ = ["BOT_MODULES", "EASY_SLIP", "LEVELS", "alternatives", "bot_for", "choose"]
