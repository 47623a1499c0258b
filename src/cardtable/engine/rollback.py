"""All-or-nothing ``apply``: a state that raised is put back as it was.

OpenSpiel splits ``ApplyAction`` (checks) from ``DoApplyAction`` (the rule);
here the checks raise before anything changes, and the rule runs under a guard
(:meth:`GameState.apply_unchecked <cardtable.engine.state.GameState.apply_unchecked>`):
whatever it raises (a bug, a failed assertion, a ``MemoryError``), :func:`roll_back`
rebuilds the state as it was before the action and the error goes on to the caller.
Nothing is copied on the happy path, so playouts pay nothing for the guarantee; the
rare failure pays a replay.

A state is rebuilt from where it began plus its actions so far, with the
chance outcomes it drew replayed and later ones from the same live rng:

* a match (``new_match``/``replay``) began at its record's start, so it is
  its own game's ``replay`` of its record cut back to before the action;
* a resampled copy (a bot's search) began at its redeal, which it keeps as
  :func:`mark_origin` left it, and replays its own actions from there.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
from collections.abc import Callable
from typing import Any

from .api import JSON, Action, Chance

_NOT_COPIED = frozenset({"_chance", "_origin", "_legal", "_legal_ids"})
_FLAT = frozenset({"_actions"})
"""Fields that are lists of immutable values by the base's contract: copied with ``list``,
without looking at each element (the actions of a long match run to thousands)."""
_ATOMS = (int, float, str, bytes, bool, type(None), enum.Enum, frozenset, Action)
_SHARED: set[type] = {int, float, str, bytes, bool, type(None), frozenset, Action}
"""Every type seen so far whose values :func:`structural_copy` shares: a container holding
only these is copied in one C-level step (``set.issuperset(map(type, ...))``), not a Python
call per element."""


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where a resampled copy began: its fields then, and how many actions it had."""

    fields: dict[str, Any]
    actions: int


def structural_copy(value: Any) -> Any:
    """A copy sharing only what cannot change: lists, dicts and sets are copied all
    the way down; frozen values are shared; anything else is deep-copied.

    >>> hands = [[1, 2], [3]]
    >>> twin = structural_copy({"hands": hands, "phase": "draw"})
    >>> twin["hands"][0].append(9); hands
    [[1, 2], [3]]
    """
    kind = type(value)
    if kind in _SHARED:
        return value
    copier = _COPIERS.get(kind)
    if copier is None:
        copier = _learn(kind)
    return copier(value)


def _copy_list(value: list[Any]) -> list[Any]:
    if _SHARED.issuperset(map(type, value)):
        return value[:]
    return [structural_copy(v) for v in value]


def _copy_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    if _SHARED.issuperset(map(type, value.values())):
        return value.copy()
    return {k: structural_copy(v) for k, v in value.items()}


def _copy_tuple(value: tuple[Any, ...]) -> tuple[Any, ...]:
    if _SHARED.issuperset(map(type, value)):
        return value  # nothing in it can change: the tuple itself is as good as a copy
    return tuple(structural_copy(v) for v in value)


def _share(value: Any) -> Any:
    return value


_COPIERS: dict[type, Callable[[Any], Any]] = {
    list: _copy_list, dict: _copy_dict, tuple: _copy_tuple, set: set}


def _learn(kind: type) -> Callable[[Any], Any]:
    """How values of ``kind`` are copied; it depends on the type alone, so it is decided
    once per type."""
    params = getattr(kind, "__dataclass_params__", None)
    if issubclass(kind, _ATOMS) or (params is not None and params.frozen):
        # frozen dataclasses (options, table melds) hold no mutable state
        _SHARED.add(kind)
        copier: Callable[[Any], Any] = _share
    else:
        copier = copy.deepcopy
    _COPIERS[kind] = copier
    return copier


def copy_fields(state: Any) -> dict[str, Any]:
    """Every field of ``state`` copied (:func:`structural_copy`), but its chance, origin
    and legal-move cache, which belong to one state only."""
    fields: dict[str, Any] = {}
    for key, value in vars(state).items():
        if key in _NOT_COPIED:
            continue
        if type(value) in _SHARED:
            fields[key] = value
        elif key in _FLAT:
            fields[key] = list(value)
        else:
            fields[key] = structural_copy(value)
    return fields


def mark_origin(state: Any) -> None:
    """Remember ``state`` as it is now (a fresh resample) for rolling back its moves."""
    state._origin = Origin(copy_fields(state), len(state._actions))


def roll_back(state: Any, actions: int, outcomes: int) -> None:
    """Put ``state`` back to its first ``actions`` actions and ``outcomes`` chance outcomes."""
    chance: Chance = state._chance
    drawn: list[JSON] = chance.outcomes[:outcomes]
    played: list[Action] = state._actions[:actions]
    origin: Origin | None = getattr(state, "_origin", None)
    if origin is None:
        record = {"game": state.NAME, "options": state.options.to_dict(),
                  "players": state.players, "chance": drawn,
                  "actions": [a.to_json() for a in played]}
        rebuilt = type(state).from_record(record, chance.rng)
    else:  # rebuilt aside, like a match, so the state is never seen half-restored
        rebuilt = object.__new__(type(state))
        rebuilt.__dict__.update(structural_copy(origin.fields))
        rebuilt._chance = Chance(chance.rng, replay=drawn)
        rebuilt._origin, rebuilt._legal, rebuilt._legal_ids = origin, None, None
        for action in played[origin.actions:]:
            rebuilt.apply(action)
    state.__dict__.clear()
    state.__dict__.update(vars(rebuilt))
    state._legal = None
    state._legal_ids = None
