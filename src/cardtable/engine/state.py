"""The one base of every game's state: turn order, legal moves, apply, chance, records.

OpenSpiel's split is the model: :meth:`GameState.apply` is ``ApplyAction`` (it
checks the move, then runs it so that a failure leaves the state unchanged) and
:meth:`GameState.do_apply` is ``DoApplyAction`` (the rule of the phase being
played).  A game supplies only its rules:

=========================  ===============================================
a game writes              what it is
=========================  ===============================================
``NAME``, ``OPTIONS``      its registry name and frozen options dataclass
``Phase``                  its explicit phase enum (``MATCH_OVER`` ends it)
``setup()``                the match-long fields, the first dealer, a deal
``_legal_<phase>()``       one small function per phase: its legal moves
``_apply_<phase>(a)``      one small function per phase: the move's rule
``view``/``zones``         what a seat may see; where every card is
``result``                 the final settlement
``redeal_hidden``          for ``resample``: the cards ``seat`` cannot see
=========================  ===============================================

and may override ``canonical`` (one name per move), ``is_legal`` and
``why_illegal``.  The phase tables are built per class from those method names
(``__init_subclass__``), so a subclass that overrides ``_legal_draw`` is
dispatched to its own function without re-owning ``legal_actions``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Self

from . import rollback
from .api import JSON, Action, Chance, Event, IllegalAction, Options, Rng, live_rng
from .api import Phase as PhaseEnum
from .cards import str_card

Held = Mapping[int, Sequence[int]]
"""A guess at hidden cards, for :meth:`GameState.resample`: seat -> cards it holds."""

LegalFn = Callable[[Any], list[Action]]
RuleFn = Callable[[Any, Action], list[Event]]


def take_guesses(unseen: list[int], held: Held, hidden: Mapping[int, int]) -> dict[int, list[int]]:
    """For a redeal: takes the cards ``held`` guesses for each seat out of ``unseen`` (the
    cards the searching seat cannot see; a copy each, with two packs) and returns them
    by seat.  ``hidden``: how many unseen cards each other seat holds."""
    taken: dict[int, list[int]] = {}
    for seat, cards in held.items():
        if seat not in hidden:
            raise ValueError(f"seat {seat} holds no card the searching seat cannot see")
        if len(cards) > hidden[seat]:
            raise ValueError(f"seat {seat} hides {hidden[seat]} cards, not {len(cards)}")
        for card in cards:
            if card not in unseen:
                raise ValueError(f"{str_card(card)} is not among the cards the searching "
                                 f"seat cannot see")
            unseen.remove(card)
        taken[seat] = list(cards)
    return taken


class GameState:
    """A whole match; mutate only through :meth:`apply`."""

    NAME: ClassVar[str]
    OPTIONS: ClassVar[type[Options]] = Options
    Phase: ClassVar[type[PhaseEnum]]
    SORT_LEGAL: ClassVar[bool] = False
    """Whether ``_legal_<phase>`` may return moves unsorted or twice (the base sorts
    them once, for a stable menu); games that build sorted lists leave it off."""

    _LEGAL_BY_PHASE: ClassVar[dict[PhaseEnum, LegalFn]]
    _APPLY_BY_PHASE: ClassVar[dict[PhaseEnum, RuleFn]]
    _RULES_DIRECT: ClassVar[bool] = True
    """Whether ``apply_unchecked`` may run the phase's rule itself (the class keeps the
    base's ``do_apply``), saving a call per move."""

    options: Any
    players: int
    phase: PhaseEnum
    to_act: int | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        phases = cls.__dict__.get("Phase") or getattr(cls, "Phase", None)
        if phases is None:
            return
        legal: dict[PhaseEnum, LegalFn] = {}
        rules: dict[PhaseEnum, RuleFn] = {}
        for phase in phases:
            found = getattr(cls, f"_legal_{phase.value}", None)
            if found is None:
                raise TypeError(f"{cls.__name__} has no _legal_{phase.value} for its phase "
                                f"{phase.value!r}")
            legal[phase] = found
            rule = getattr(cls, f"_apply_{phase.value}", None)
            if rule is not None:
                rules[phase] = rule
        cls._LEGAL_BY_PHASE, cls._APPLY_BY_PHASE = legal, rules
        cls._RULES_DIRECT = cls.do_apply is GameState.do_apply

    def __init__(self, options: Any, players: int, chance: Chance):
        self.options = options
        self.players = players
        self._chance = chance
        self._actions: list[Action] = []
        self._legal: list[Action] | None = None
        self._legal_ids: set[int] | None = None
        self.setup()

    # -- what each game writes ------------------------------------------------------

    def setup(self) -> None:
        """The match-long fields, the first dealer (drawn through ``self._chance``), the
        first deal."""
        raise NotImplementedError

    def view(self, seat: int | None) -> dict[str, JSON]:
        """Everything ``seat`` may know (``None``: a spectator), plus its legal moves."""
        raise NotImplementedError

    def zones(self) -> dict[str, Any]:
        """Server/test-only: where every card is (hands, stock, face_down, public)."""
        raise NotImplementedError

    def result(self) -> dict[str, JSON]:
        raise NotImplementedError

    def redeal_hidden(self, seat: int, rng: random.Random, held: Held) -> None:
        """On a fresh copy (:meth:`resample`): deal anew the cards ``seat`` cannot see, the
        cards of ``held`` to the seats it names (:func:`take_guesses` checks them)."""
        raise NotImplementedError

    def canonical(self, action: Action) -> Action:
        """One name per move (cards of a meld in one order, say); the identity by default."""
        return action

    def why_illegal(self, action: Action) -> str:
        """Why ``action`` is not legal now, in plain words."""
        if self.is_over():
            return "the match is over"
        return f"{action} is not allowed now ({self.phase.value.replace('_', ' ')})"

    # -- creation ----------------------------------------------------------------------

    @classmethod
    def start(cls, options: Any, players: int, rng: Rng) -> Self:
        """A new match on ``rng`` (``secrets.SystemRandom()`` live, seeded in tests)."""
        return cls(options if options is not None else cls.OPTIONS(), players, Chance(rng))

    @classmethod
    def from_record(cls, record: Mapping[str, JSON], rng: Rng | None = None) -> Self:
        """The exact state of ``record()``; later chance outcomes come from ``rng``
        (default :func:`~cardtable.engine.api.live_rng`), so a rebuilt match deals on."""
        state = cls(cls.OPTIONS.from_dict(record["options"]), int(record["players"]),
                    Chance(rng or live_rng(), replay=record["chance"]))
        for data in record["actions"]:
            state.apply(Action.from_json(data))
        return state

    # -- the contract ------------------------------------------------------------------

    def current_player(self) -> int | None:
        return self.to_act

    def is_over(self) -> bool:
        # The phase is a str enum: comparing the str is cheaper than reading ``.value``.
        return self.phase == "match_over"

    def legal_actions(self) -> list[Action]:
        """The moves of the seat to act, sorted; computed once per position."""
        legal = self._legal
        if legal is None:
            legal = self._LEGAL_BY_PHASE[self.phase](self)
            if self.SORT_LEGAL:
                # A key computed once per move: ``sorted(set(legal))`` alone would call
                # ``Action.__lt__`` (two ``sort_key`` calls) for each of n log n comparisons.
                legal = sorted(set(legal), key=Action.sort_key)
            self._legal = legal
            self._legal_ids = None  # built by a checked apply; playouts never need it
        return legal[:]

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` (in canonical form) is one of the legal moves."""
        legal = self._legal
        if legal is None:
            self.legal_actions()
            legal = self._legal
            assert legal is not None
        ids = self._legal_ids
        if ids is None:
            ids = self._legal_ids = set(map(id, legal))
        # Callers usually hand back one of the legal objects: identity before equality.
        return id(action) in ids or action in legal

    def check(self, action: Action) -> Action:
        """The checked path: ``action`` in canonical form, or ``IllegalAction`` with a reason."""
        action = self.canonical(action)
        if not self.is_legal(action):
            raise IllegalAction(self.why_illegal(action))
        return action

    def apply(self, action: Action) -> list[Event]:
        """Play ``action`` for the seat to act; the state is unchanged if it raises."""
        return self.apply_unchecked(self.check(action))

    def apply_unchecked(self, action: Action) -> list[Event]:
        """Play a move taken from :meth:`legal_actions` as it is (playouts and search):
        no legality check; a failing rule still leaves the state as it was."""
        rule = self._APPLY_BY_PHASE[self.phase] if self._RULES_DIRECT else type(self).do_apply
        # The guard of every move: a rule that raises leaves the state as it was.
        actions = self._actions
        played, drawn = len(actions), len(self._chance.outcomes)
        self._legal = None
        actions.append(action)
        try:
            return rule(self, action)
        except BaseException:
            rollback.roll_back(self, played, drawn)
            raise

    def do_apply(self, action: Action) -> list[Event]:
        """The rule of the current phase for a legal ``action`` (under the rollback guard
        of :meth:`apply_unchecked`)."""
        return self._APPLY_BY_PHASE[self.phase](self, action)

    def legal_for(self, seat: int | None) -> list[JSON]:
        """The legal moves as a view shows them: to the seat to act, and to no one else."""
        if seat is None or seat != self.to_act:
            return []
        return [a.to_json() for a in self.legal_actions()]

    def _legal_match_over(self) -> list[Action]:
        return []

    def _seat(self) -> int:
        assert self.to_act is not None, "no seat is to act"
        return self.to_act

    # -- records and search ------------------------------------------------------------

    def record(self) -> dict[str, JSON]:
        """Server-only: options, players, chance outcomes (deck orders) and actions."""
        return {"game": self.NAME, "options": self.options.to_dict(), "players": self.players,
                "chance": list(self._chance.outcomes),
                "actions": [a.to_json() for a in self._actions]}

    def chance_outcomes(self) -> list[JSON]:
        """Server-only: every chance outcome drawn so far (the server logs the new ones)."""
        return list(self._chance.outcomes)

    def resample(self, seat: int, rng: random.Random, held: Held | None = None) -> Self:
        """A full state consistent with ``view(seat)``: the whole state copied (so no
        list is shared with this one), then the cards ``seat`` cannot see dealt anew.

        ``held`` (seat -> cards) is a guess at what other seats hold among the cards
        ``seat`` cannot see: those cards go to those hands and the rest are dealt at
        random, so a search can deal worlds that fit how the others played (a player
        keeps what melds).  A card ``seat`` can see, or more cards than a hand hides,
        raise ``ValueError``.  Without it every hidden card is dealt uniformly."""
        twin = object.__new__(type(self))
        twin.__dict__.update(rollback.copy_fields(self))
        twin._chance = Chance(rng)
        twin._legal, twin._legal_ids = None, None
        twin.redeal_hidden(seat, rng, held or {})
        rollback.mark_origin(twin)
        return twin
