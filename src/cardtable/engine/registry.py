"""The game registry: one :class:`Descriptor` per game, and the questions asked of it.

Everything the server, the bots and the browser need to know about a game by
name is here, answered by the game's own package (``DESCRIPTOR`` in its
``__init__``): no layer outside a game's package and its board compares game
names.  The built-in games are found in :mod:`cardtable.engine.games`; any
other (a test's toy game, a plug-in) joins with :func:`register`.

>>> gin = get_game("gin")
>>> gin.name, gin.title, gin.players, gin.bot
('gin', 'Gin Rummy', (2,), 'cardtable.bots.gin.normal')
>>> gin.same_turn("draw_stock"), get_game("spades").same_turn("play")
(True, False)
>>> get_game("spades").teams(4), get_game("spades").teams(3)
([[0, 2], [1, 3]], [[0], [1], [2]])
>>> "spades" in GAMES, list(GAMES)[:2]
(True, ['gin', 'rummy'])
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from .api import JSON, Options, Rng
from .state import GameState
from .stats import Stats

TimeoutPolicy = Literal["draw_then_discard", "bot"]


@dataclass(frozen=True)
class Descriptor:
    """What a game is, for everything outside its own package."""

    state: type[GameState]
    """The game's state class (``state.NAME`` is the game's name, ``state.OPTIONS`` its
    options with their presets)."""
    title: str
    """The name players know it by: "Gin Rummy"."""
    players: tuple[int, ...]
    """Seat counts a match may have, the usual one first."""
    bot: str
    """The module of its computer player (``choose(view) -> Action``): the ``normal``
    level, and ``easy`` with slips."""
    order: int = 100
    """Place in menus (the lobby, the home page, ``GAMES``)."""
    partnerships: int | None = None
    """Seat count at which partners sit opposite (Spades: 4); ``None``: never."""
    seat_notes: tuple[tuple[int, str], ...] = ()
    """A word for a seat count, where the game's players name it: ((4, "partners"), ...)."""
    board: bool = True
    """The browser has a board for it (``web/games/<name>/board.js``)."""
    terminal: bool = False
    """``cardtable play`` can draw it."""
    turn_goes_on_after: frozenset[str] | None = None
    """The moves after which a seat still to act is on the same turn (one clock):
    ``None``, every move but a deal (a rummy turn: draw, melds, discard); an empty set,
    none (a trick-taker: every bid and card is a turn of its own)."""
    stock_draw: str | None = "draw_stock"
    """The move that takes the top of the stock (what a timed-out turn draws)."""
    timeout: TimeoutPolicy = "draw_then_discard"
    """What a timed-out turn plays: draw from the stock and throw the least useful
    card, or the computer's own move."""
    drop_after_misses: int | None = None
    """The missed turn in a row that is played as a ``drop`` (Indian Rummy: 3)."""
    hard_bot: str | None = None
    """The module of its strong computer player (``choose(view) -> Action`` and
    ``hint(view, action) -> str``): the ``hard`` level, the hints, and the policy the
    ``expert`` level searches with.  ``None``: :attr:`bot` plays those too."""
    stats: Stats | None = None
    """The figures a player's profile shows for this game (:mod:`.stats`)."""
    rules: str = ""
    """The rules in brief, for players (the how-to page): a few paragraphs separated by
    blank lines; a paragraph of lines that start with ``- `` is a list. Indentation
    common to the lines is ignored (:attr:`rules_text`)."""

    # -- names ------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.state.NAME

    @property
    def options(self) -> type[Options]:
        return self.state.OPTIONS

    @property
    def presets(self) -> list[str]:
        return list(self.state.OPTIONS.PRESETS)

    @property
    def rules_text(self) -> str:
        """:attr:`rules` without its source indentation or surrounding blank lines.

        >>> Descriptor(GameState, "X", (2,), "bot", rules='''
        ...     First.
        ...
        ...     - a
        ...     - b
        ... ''').rules_text.splitlines()
        ['First.', '', '- a', '- b']
        """
        return inspect.cleandoc(self.rules)

    # The attributes a game module used to export, for callers of ``get_game(name)``.
    NAME = name
    Options = options

    @property
    def Phase(self) -> Any:
        return self.state.Phase

    @property
    def PLAYERS(self) -> tuple[int, ...]:
        return self.players

    # -- matches ----------------------------------------------------------------------

    def new_match(self, options: Any = None, players: int | None = None,
                  rng: Rng | None = None) -> GameState:
        """A new match; ``rng`` is ``secrets.SystemRandom()`` live, seeded in tests."""
        players = self.players[0] if players is None else players
        if players not in self.players:
            raise ValueError(f"{self.name} is played by {_counts(self.players)} players")
        if rng is None:
            raise ValueError("new_match needs an rng: secrets.SystemRandom() live, "
                             "random.Random(seed) in tests")
        return self.state.start(options, players, rng)

    def replay(self, record: Mapping[str, JSON], rng: Rng | None = None) -> GameState:
        """The exact state of ``record``; later chance outcomes come from ``rng``
        (default :func:`~cardtable.engine.api.live_rng`), so a rebuilt match deals on."""
        if record.get("game") != self.name:
            raise ValueError(f"not a {self.name} record")
        if record.get("players", self.players[0]) not in self.players:
            raise ValueError(f"a {self.name} record needs {_counts(self.players)} players")
        return self.state.from_record({"players": self.players[0], **record}, rng)

    # -- the questions the server and the bots ask -------------------------------------

    def teams(self, players: int) -> list[list[int]]:
        """The sides of a match: partners together, else one seat each."""
        if players == self.partnerships:
            half = players // 2
            return [[s, s + half] for s in range(half)]
        return [[s] for s in range(players)]

    def same_turn(self, last_kind: str) -> bool:
        """Whether a seat still to act after its own move of ``last_kind`` is on the same
        turn (:attr:`turn_goes_on_after`)."""
        if self.turn_goes_on_after is None:
            return last_kind != "deal"
        return last_kind in self.turn_goes_on_after

    def only_dealing(self, state: GameState) -> bool:
        """Whether dealing the next hand is the only move (a hand just ended)."""
        return {a.type for a in state.legal_actions()} == {"deal"}

    def is_stock_draw(self, action: Mapping[str, JSON]) -> bool:
        """Whether ``action`` (JSON) takes the top card of the stock."""
        return self.stock_draw is not None and action.get("type") == self.stock_draw


def _counts(players: Sequence[int]) -> str:
    low, high = min(players), max(players)
    return str(low) if low == high else f"{low} to {high}"


_REGISTRY: dict[str, Descriptor] = {}
_BUILTIN_LOADED = False


def register(descriptor: Descriptor) -> Descriptor:
    """Add a game (registering the same descriptor again is harmless)."""
    name = descriptor.name
    known = _REGISTRY.get(name)
    if known is not None and known != descriptor:
        raise ValueError(f"a different game is already registered as {name!r}")
    if not name or not name.isidentifier():
        raise ValueError(f"a game's name must be an identifier, not {name!r}")
    _REGISTRY[name] = descriptor
    return descriptor


def _load_builtin() -> None:
    global _BUILTIN_LOADED
    if _BUILTIN_LOADED:
        return
    _BUILTIN_LOADED = True
    from . import games

    for module in pkgutil.iter_modules(games.__path__):
        package = importlib.import_module(f"{games.__name__}.{module.name}")
        descriptor = getattr(package, "DESCRIPTOR", None)
        if isinstance(descriptor, Descriptor):
            register(descriptor)


def descriptors() -> list[Descriptor]:
    """Every registered game, in menu order."""
    _load_builtin()
    return sorted(_REGISTRY.values(), key=lambda d: (d.order, d.name))


def get_game(name: str) -> Descriptor:
    """The game registered as ``name`` (``ValueError`` for an unknown one)."""
    _load_builtin()
    found = _REGISTRY.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return found


class _Names(Sequence[str]):
    """The registered games' names in menu order, always current (a game registered
    later, such as a test's toy game, is in it at once)."""

    def _names(self) -> list[str]:
        return [d.name for d in descriptors()]

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        _load_builtin()
        return name in _REGISTRY

    def __repr__(self) -> str:
        return repr(tuple(self._names()))


GAMES: Sequence[str] = _Names()
"""Registered game names, in menu order."""
