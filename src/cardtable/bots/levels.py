"""Computer levels: how strongly a computer seat plays.

``choose(game, level, view, rng)`` returns one of ``view["legal"]`` for the seat of
``view`` (``state.view(seat)``):

* ``"normal"``: the game's own bot (its descriptor's ``bot`` module), exactly as it
  plays alone.
* ``"easy"``: the same bot, but about one decision in three (:data:`EASY_SLIP`) where
  a choice of the same kind exists it makes another one at random:

  - a **discard** (every rummy game): another legal discard, never a card the bot
    module calls ``precious`` (by default a printed joker; Indian Rummy adds its wild
    cards) unless the bot threw one itself;
  - any other move its bot module's ``slips(view, best, others)`` allows (Spades:
    another card to play, except while the seat bid nil; a bid at most one away from
    the bot's, never nil unless the bot bid nil).

  Everything else is the bot's: draws and pickups, melds and lay-offs, knocks, gin,
  shows (declare), drops, calls, blind nil, card passing, dealing.  So an easy
  computer never makes a move a sensible player would not (no random Indian drop, no
  knock, declaration or show the bot did not choose); it only plays looser cards.

A bot module has ``choose(view) -> Action``, and may have the two easy-level hooks:

* ``precious(view, card) -> bool``: a card no slip throws;
* ``slips(view, best, others) -> list[Action]``: of ``others`` (the legal moves of
  ``best``'s kind but ``best``), those an easy computer may make instead.

Unknown games and levels are a ``ValueError``.  Bot modules load lazily.

>>> import random
>>> choose("gin", "easy", {"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]},
...        random.Random(1))
Action('deal')
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

from cardtable.engine import descriptors, get_game
from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER

View = dict[str, Any]
Bot = Callable[[View], Action]

LEVELS = ("easy", "normal")
"""The computer levels, weakest first."""

EASY_SLIP = 0.35
"""How often an easy computer swaps the bot's discard, card or bid for a looser one."""


class _BotModules(Mapping[str, str]):
    """Each registered game's computer player (its descriptor's ``bot``), always
    current: a game registered later is in it at once."""

    def _modules(self) -> dict[str, str]:
        return {d.name: d.bot for d in descriptors()}

    def __getitem__(self, game: str) -> str:
        return self._modules()[game]

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules())

    def __len__(self) -> int:
        return len(self._modules())

    def __repr__(self) -> str:
        return repr(self._modules())


BOT_MODULES: Mapping[str, str] = _BotModules()
"""Each game's computer player: a module with ``choose(view) -> Action``."""


def bot_module(game: str) -> ModuleType:
    """``game``'s bot module, imported on first use (bots are heavy)."""
    return importlib.import_module(get_game(game).bot)


def bot_for(game: str) -> Bot:
    """The ``choose(view)`` of ``game``'s bot."""
    choose_move: Bot = bot_module(game).choose
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
    module = bot_module(game)
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    others = [a for a in legal if a.type == best.type and a != best]
    if best.type == "discard":
        precious: Callable[[View, int], bool] = getattr(module, "precious", printed_joker)
        thrown = best.card is not None and precious(view, best.card)
        return [a for a in others if a.card is None or thrown or not precious(view, a.card)]
    slips: Callable[[View, Action, list[Action]], list[Action]] | None = getattr(
        module, "slips", None)
    return [] if slips is None else slips(view, best, others)


def printed_joker(view: View, card: int) -> bool:
    """The card no slip throws where a bot module says nothing else: a joker."""
    return card >= JOKER


__all__ = ["BOT_MODULES", "EASY_SLIP", "LEVELS", "alternatives", "bot_for", "bot_module",
           "choose", "printed_joker"]
