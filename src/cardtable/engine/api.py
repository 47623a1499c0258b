"""The engine contract: actions, events, options and chance (games register in
:mod:`cardtable.engine.registry`; their states share :mod:`cardtable.engine.state`).

Every game speaks one action vocabulary: an :class:`Action` is a small value
with a JSON codec (what the browser, the server log and bots exchange) and a
short text codec (what people type), both of which round-trip.

>>> a = Action.from_json({"type": "discard", "card": "10d"})
>>> a, a.to_json(), str(a)
(Action('discard Td'), {'type': 'discard', 'card': 'Td'}, 'discard Td')
>>> Action.parse("knock 7h melds=As2s3s/4d5d6d").to_json()
{'type': 'knock', 'card': '7h', 'melds': [['As', '2s', '3s'], ['4d', '5d', '6d']]}
>>> all(Action.parse(str(x)) == x for x in [a, Action("bid", number=0), Action("pass")])
True
>>> Action.from_json({"type": "discard", "card": "7h", "colour": 1})
Traceback (most recent call last):
...
ValueError: unknown action field 'colour'
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol, Self, TypeVar

from . import cards as _cards

JSON = Any
"""A JSON-safe value (dicts, lists, str, int, bool, None)."""


class IllegalAction(ValueError):
    """An action the rules do not allow now; ``reason`` says why in plain words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Action:
    """One move: ``type`` plus the few arguments a move can carry.

    ``card``: the card discarded, taken or knocked with; ``number``: a bid or
    count; ``meld``: the id of a table meld; ``cards``: a group of cards;
    ``melds``: an arrangement of melds (a knocker's spread).
    """

    type: str
    card: int | None = None
    number: int | None = None
    meld: int | None = None
    cards: tuple[int, ...] = ()
    melds: tuple[tuple[int, ...], ...] = ()

    def sort_key(self) -> tuple[Any, ...]:
        return (
            self.type,
            -1 if self.card is None else self.card,
            -1 if self.number is None else self.number,
            -1 if self.meld is None else self.meld,
            self.cards,
            self.melds,
        )

    def __lt__(self, other: Action) -> bool:
        return self.sort_key() < other.sort_key()

    # -- JSON codec ------------------------------------------------------------

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": self.type}
        if self.card is not None:
            out["card"] = _cards.str_card(self.card)
        if self.number is not None:
            out["number"] = self.number
        if self.meld is not None:
            out["meld"] = self.meld
        if self.cards:
            out["cards"] = [_cards.str_card(c) for c in self.cards]
        if self.melds:
            out["melds"] = [[_cards.str_card(c) for c in m] for m in self.melds]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Action:
        """Decode and type-check an action; ``ValueError`` names the bad field."""
        if not isinstance(data, Mapping):
            raise ValueError("an action must be a JSON object")
        unknown = set(data) - {"type", "card", "number", "meld", "cards", "melds"}
        if unknown:
            raise ValueError(f"unknown action field {sorted(unknown)[0]!r}")
        kind = data.get("type")
        if not isinstance(kind, str) or not kind or len(kind) > 32:
            raise ValueError("an action needs a 'type' string")
        card = data.get("card")
        number = data.get("number")
        meld = data.get("meld")
        for name, value in (("number", number), ("meld", meld)):
            if value is not None and (type(value) is not int or abs(value) > 10**6):
                raise ValueError(f"action field {name!r} must be an integer")
        if card is not None and not isinstance(card, str):
            raise ValueError("action field 'card' must be a card like '7h'")
        return cls(
            kind,
            card=None if card is None else _cards.card(card),
            number=number,
            meld=meld,
            cards=_card_list(data.get("cards", []), "cards"),
            melds=tuple(_card_list(m, "melds") for m in _list(data.get("melds", []), "melds")),
        )

    # -- text codec ------------------------------------------------------------

    def __str__(self) -> str:
        parts = [self.type]
        if self.card is not None:
            parts.append(_cards.str_card(self.card))
        if self.number is not None:
            parts.append(str(self.number))
        if self.meld is not None:
            parts.append(f"meld={self.meld}")
        if self.cards:
            parts.append("cards=" + "".join(map(_cards.str_card, self.cards)))
        if self.melds:
            parts.append("melds=" + "/".join("".join(map(_cards.str_card, m)) for m in self.melds))
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Inverse of ``str(action)``: ``"discard 7h"``, ``"bid 4"``, ``"knock 7h melds=..."``."""
        tokens = text.split()
        if not tokens:
            raise ValueError("empty action")
        fields: dict[str, Any] = {}
        for token in tokens[1:]:
            key, _, value = token.partition("=")
            if not _:
                if token.lstrip("-").isdigit():
                    fields["number"] = int(token)
                else:
                    fields["card"] = _cards.card(token)
            elif key == "meld":
                fields["meld"] = int(value)
            elif key == "cards":
                fields["cards"] = tuple(_packed_cards(value))
            elif key == "melds":
                fields["melds"] = tuple(tuple(_packed_cards(m)) for m in value.split("/"))
            else:
                raise ValueError(f"unknown action field {key!r}")
        return cls(tokens[0], **fields)


def _list(value: JSON, name: str) -> list[JSON]:
    if not isinstance(value, list) or len(value) > 64:
        raise ValueError(f"action field {name!r} must be a list")
    return value


def _card_list(value: JSON, name: str) -> tuple[int, ...]:
    items = _list(value, name)
    if not all(isinstance(c, str) for c in items):
        raise ValueError(f"action field {name!r} must list cards like '7h'")
    return tuple(_cards.card(c) for c in items)


def _packed_cards(text: str) -> list[int]:
    """``"As2s10d"`` -> cards (ranks are one character, or ``10``)."""
    out, i = [], 0
    while i < len(text):
        size = 3 if text.startswith("10", i) else 2
        out.append(_cards.card(text[i : i + size]))
        i += size
    return out


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for logs and animation.

    ``data`` is public; ``private`` is known only to ``seat`` (the card a
    player drew from the stock, say).  :meth:`view` is the redaction point.
    """

    type: str
    seat: int | None = None
    data: Mapping[str, JSON] = field(default_factory=dict)
    private: Mapping[str, JSON] = field(default_factory=dict)

    def view(self, seat: int | None) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": self.type, "seat": self.seat, **self.data}
        if seat is not None and seat == self.seat:
            out.update(self.private)
        return out


# -- options -------------------------------------------------------------------


def option(default: Any, *, range: tuple[int, int] | None = None,
           choices: Sequence[Any] | None = None, doc: str = "") -> Any:
    """A validated option field: an int ``range`` (inclusive) or a set of ``choices``."""
    return field(default=default, metadata={"range": range, "choices": choices, "doc": doc})


_O = TypeVar("_O", bound="Options")


@dataclass(frozen=True)
class Options:
    """Base of every game's frozen options dataclass.

    Subclasses set ``PRESETS`` (name -> overrides of the field defaults) and
    ``DEFAULT_PRESET``; ``Options()`` must equal ``preset(DEFAULT_PRESET)``.
    ``PRESET_TITLES`` and ``PRESET_NOTES`` give every preset a name players
    understand and a one-line explanation (menus and the how-to page show them;
    tests/engine/test_option_docs.py holds every game to it).
    ``EXPRESS`` holds the overrides that make any preset an "express" match of
    one hand (``from_dict({"preset": p, **EXPRESS})``); ``{}`` means the game
    has none.
    """

    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    DEFAULT_PRESET: ClassVar[str] = "standard"
    PRESET_TITLES: ClassVar[Mapping[str, str]] = {}
    PRESET_NOTES: ClassVar[Mapping[str, str]] = {}
    EXPRESS: ClassVar[dict[str, Any]] = {}

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check_option(type(self).__name__, f, getattr(self, f.name))

    @classmethod
    def preset(cls, name: str) -> Self:
        if name not in cls.PRESETS:
            raise ValueError(f"unknown preset {name!r}; presets: {', '.join(cls.PRESETS)}")
        return cls(**cls.PRESETS[name])

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """A preset (key ``"preset"``, default the default preset) plus overrides."""
        if not isinstance(data, Mapping):
            raise ValueError("options must be a JSON object")
        data = dict(data)
        name = data.pop("preset", cls.DEFAULT_PRESET)
        if not isinstance(name, str):
            raise ValueError("option 'preset' must be a preset name")
        known = {f.name for f in dataclasses.fields(cls)}
        for key in data:
            if key not in known:
                raise ValueError(f"unknown option {key!r}; options: {', '.join(sorted(known))}")
        return dataclasses.replace(cls.preset(name), **data)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        """Each option with its default, allowed values and doc (for UIs and --help)."""
        return [
            {"name": f.name, "default": f.default, "range": f.metadata.get("range"),
             "choices": f.metadata.get("choices"), "doc": f.metadata.get("doc", "")}
            for f in dataclasses.fields(cls)
        ]

    @classmethod
    def describe_presets(cls) -> list[dict[str, Any]]:
        """Each preset with its title, note and the options it sets over the defaults
        (for UIs; an untitled preset is called by its name).

        >>> class Demo(Options):
        ...     PRESETS = {"standard": {}, "quick": {"x": 1}}
        ...     PRESET_NOTES = {"standard": "The usual game.", "quick": "One round."}
        >>> [(p["name"], p["title"], p["sets"]) for p in Demo.describe_presets()]
        [('standard', 'standard', {}), ('quick', 'quick', {'x': 1})]
        """
        return [
            {"name": name, "title": cls.PRESET_TITLES.get(name, name),
             "note": cls.PRESET_NOTES.get(name, ""), "sets": dict(values)}
            for name, values in cls.PRESETS.items()
        ]


def _check_option(owner: str, f: dataclasses.Field[Any], value: Any) -> None:
    allowed_range = f.metadata.get("range")
    choices = f.metadata.get("choices")
    if allowed_range is not None:
        low, high = allowed_range
        if type(value) is not int or not low <= value <= high:
            raise ValueError(f"option {f.name!r} must be an integer from {low} to {high}, "
                             f"not {value!r}")
    elif choices is not None and (value not in choices or type(value) is not type(choices[0])):
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"option {f.name!r} must be one of {allowed}, not {value!r}")


# -- chance --------------------------------------------------------------------


class Rng(Protocol):
    """The randomness a game needs; ``random.Random`` and ``secrets.SystemRandom`` fit."""

    def shuffle(self, x: MutableSequence[Any]) -> None: ...

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


class Chance:
    """Draws chance outcomes: recorded ones first (a replay), then from a live rng.

    Every outcome is written to :attr:`outcomes`, which ``record()`` stores,
    so a game played on ``secrets.SystemRandom()`` still replays exactly.  A
    rebuilt match goes on: once the ``replay`` outcomes are used up, later
    deals come from ``rng`` and are recorded like any others.  Without an
    ``rng`` a replay is strict and running out of outcomes is an error.

    >>> import random
    >>> live = Chance(random.Random(1)); first = live.below(1000)
    >>> again = Chance(random.Random(2), replay=live.outcomes)
    >>> again.below(1000) == first, len(again.outcomes), again.replaying
    (True, 1, False)
    """

    def __init__(self, rng: Rng | None = None, replay: Sequence[JSON] | None = None):
        if rng is None and replay is None:
            raise ValueError("Chance needs an rng, outcomes to replay, or both")
        self._rng = rng
        self._replay = list(replay) if replay is not None else []
        self.outcomes: list[JSON] = []

    def __deepcopy__(self, memo: dict[int, Any]) -> Chance:
        # The system's entropy has no state to copy: copies share it.  A seeded rng
        # is copied, so a copied state goes on exactly as the original would.
        twin = Chance.__new__(Chance)
        twin._rng = self._rng if isinstance(self._rng, random.SystemRandom) \
            else copy.deepcopy(self._rng, memo)
        twin._replay, twin.outcomes = list(self._replay), list(self.outcomes)
        return twin

    @property
    def rng(self) -> Rng | None:
        """Where outcomes come from once the recorded ones are used up."""
        return self._rng

    @property
    def replaying(self) -> bool:
        """Whether the next outcome comes from the record."""
        return len(self.outcomes) < len(self._replay)

    def _recorded(self) -> JSON:
        if not self.replaying:
            raise ValueError("the record has no more chance outcomes")
        return self._replay[len(self.outcomes)]

    def deck(self, cards: Sequence[int]) -> list[int]:
        """A shuffled copy of ``cards`` (recorded as text)."""
        if self._rng is not None and not self.replaying:
            order = _cards.shuffle(cards, self._rng)
        else:
            order = _cards.parse(self._recorded())
            if sorted(order) != sorted(cards):
                raise ValueError("a recorded deck does not hold the game's cards")
        self.outcomes.append(_cards.format_cards(order))
        return order

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        if self._rng is not None and not self.replaying:
            value = self._rng.randrange(n)
        else:
            value = self._recorded()
            if type(value) is not int or not 0 <= value < n:
                raise ValueError("a recorded chance outcome is out of range")
        self.outcomes.append(value)
        return value


def live_rng() -> Rng:
    """The rng of live play: the operating system's entropy, unpredictable and unseedable
    (``secrets.SystemRandom`` is this class; the engine imports no I/O modules)."""
    return random.SystemRandom()


# -- the protocol every game implements ----------------------------------------


class State(Protocol):
    def current_player(self) -> int | None: ...
    def legal_actions(self) -> list[Action]: ...
    def apply(self, action: Action) -> list[Event]: ...
    def view(self, seat: int | None) -> dict[str, JSON]: ...
    def is_over(self) -> bool: ...
    def result(self) -> dict[str, JSON]: ...
    def record(self) -> dict[str, JSON]: ...
    def resample(self, seat: int, rng: random.Random) -> State: ...
    def chance_outcomes(self) -> list[JSON]: ...
    def zones(self) -> dict[str, Any]:
        """Server/test-only: where every card is (hands, stock, face_down, public)."""
        ...


class Phase(StrEnum):
    """Base for each game's explicit phase enum (str-valued for views and logs)."""
