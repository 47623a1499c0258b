"""Computer levels: how strongly a computer seat plays.

``choose(game, level, view, rng, sampler)`` returns one of ``view["legal"]`` for the
seat of ``view`` (``state.view(seat)``):

* ``"normal"``: the game's own bot (its descriptor's ``bot`` module), exactly as it
  plays alone.
* ``"hard"``: the game's strong heuristic player (its descriptor's ``hard_bot``): a
  model of each opponent's hand from what he picked, passed and threw, safe discards,
  the game's own judgement calls.  It also gives the hints (:func:`hint`).
* ``"expert"``: a determinized search (:mod:`cardtable.bots.search`) that tries the
  hard player's candidate moves in worlds dealt by ``sampler`` (``state.resample(seat,
  rng)``: every card the seat cannot see dealt anew) and plays the hands out with the
  hard player; within :data:`EXPERT_BUDGET` seconds, else the hard player's move.
  Without a ``sampler`` (a caller holding only a view) it plays as ``hard``.
* ``"easy"``: the same bot, but about one decision in three (:data:`EASY_SLIP`) where
  a choice of the same kind exists it makes another one at random:

  - a **discard** (every rummy game): another legal discard, never a card the bot
    module calls ``precious`` (by default a printed joker; Indian Rummy adds its wild
    cards) unless the bot threw one itself;
  - any other move its bot module's ``slips(view, best, others)`` allows (Spades:
    another card to play, except while the seat bid nil; a bid at most one away from
    the bot's, never nil unless the bot bid nil);
  - what its bot module's ``overlooks(view, best, legal)`` says a learner plays when
    he does not see the bot's move (Rummy 500 and Rommé: a pickup from the pile
    missed for the stock, a meld or lay-off not seen for the bot's discard).

  Everything else is the bot's: knocks, gin, shows (declare), drops, calls, blind
  nil, card passing, dealing (and draws, melds and lay-offs outside Rummy 500 and
  Rommé).  So an easy computer never makes a move a sensible player would not (no
  random Indian drop, no knock, declaration or show the bot did not choose); it plays
  looser cards and misses chances.

A bot module has ``choose(view) -> Action``, and may have the easy-level hooks:

* ``precious(view, card) -> bool``: a card no slip throws;
* ``slips(view, best, others) -> list[Action]``: of ``others`` (the legal moves of
  ``best``'s kind but ``best``), those an easy computer may make instead;
* ``overlooks(view, best, legal) -> list[Action]``: moves of another kind a learner
  makes when he does not see ``best``.

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

from cardtable.bots.search import Sampler
from cardtable.engine import descriptors, get_game
from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, pretty_card, pretty_cards

View = dict[str, Any]
Bot = Callable[[View], Action]

LEVELS = ("easy", "normal", "hard", "expert")
"""The computer levels, weakest first."""

LEVEL_TITLES = {"easy": "Easy", "normal": "Normal", "hard": "Hard", "expert": "Expert"}
"""What players read for each level (menus, the seat chip)."""

EXPERT_BUDGET = 0.5
"""Seconds of thinking an expert computer spends on a decision at most (CPU time of its
thread; the search stops at the first rollout past it)."""


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


def hard_module(game: str) -> ModuleType:
    """``game``'s strong player (``hard_bot``), or its own bot where it has none."""
    descriptor = get_game(game)
    return importlib.import_module(descriptor.hard_bot or descriptor.bot)


def hard_for(game: str) -> Bot:
    """The ``choose(view)`` of ``game``'s strong player."""
    choose_move: Bot = hard_module(game).choose
    return choose_move


def choose(game: str, level: str, view: View, rng: random.Random,
           sampler: Sampler | None = None, budget: float | None = None) -> Action:
    """The move of a computer of ``level`` for the seat of ``view``; ``rng`` decides the
    easy level's slips and the expert's worlds (a seeded ``rng`` gives the same moves
    again, but for an expert cut short by its clock); ``sampler`` deals the expert's
    worlds and ``budget`` bounds its thinking (default :data:`EXPERT_BUDGET`)."""
    if level not in LEVELS:
        raise ValueError(f"unknown computer level {level!r}; levels: {', '.join(LEVELS)}")
    if level == "hard" or (level == "expert" and sampler is None):
        return hard_for(game)(view)
    if level == "expert" and sampler is not None:
        from cardtable.bots.search import HORIZON, choose_expert
        module = hard_module(game)
        return choose_expert(game, view, sampler, rng, module.choose,
                             EXPERT_BUDGET if budget is None else budget,
                             estimate=getattr(module, "estimate", None),
                             horizon=getattr(module, "HORIZON", HORIZON),
                             trusted=getattr(module, "TRUSTED_KINDS", frozenset()),
                             guesser=getattr(module, "guess_hidden", None))
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
    overlooks: Callable[[View, Action, list[Action]], list[Action]] | None = getattr(
        module, "overlooks", None)
    missed = [] if overlooks is None else [a for a in overlooks(view, best, legal) if a != best]
    if missed:
        return missed
    slips: Callable[[View, Action, list[Action]], list[Action]] | None = getattr(
        module, "slips", None)
    return [] if slips is None else slips(view, best, others)


def hint(game: str, view: View) -> tuple[Action, str]:
    """What the hard player would play for the seat of ``view``, and why, in a few words
    a player reads ("keeps 7♥ 8♥ for the run; 12 deadwood")."""
    module = hard_module(game)
    action: Action = module.choose(view)
    explain: Callable[[View, Action], str] | None = getattr(module, "hint", None)
    return action, explain(view, action) if explain is not None else describe(action)


def describe(action: Action) -> str:
    """A move in words, where a bot gives no reason of its own: "discard 7♥"."""
    words = action.type.replace("_", " ")
    if action.card is not None:
        words += f" {pretty_card(action.card)}"
    if action.cards:
        words += f" {pretty_cards(action.cards)}"
    if action.number is not None:
        words += f" {action.number}"
    return words


def printed_joker(view: View, card: int) -> bool:
    """The card no slip throws where a bot module says nothing else: a joker."""
    return card >= JOKER


__all__ = ["BOT_MODULES", "EASY_SLIP", "EXPERT_BUDGET", "LEVELS", "LEVEL_TITLES", "Sampler",
           "alternatives", "bot_for", "bot_module", "choose", "describe", "hard_for", "hard_module",
           "hint", "printed_joker"]
