"""A bot's resampled copy shares no mutable field with the live match.

``resample`` copies the whole state by construction and then redeals the hidden
cards; a search then plays on the copy.  Every list, dict and set of the copy (and
of the plain objects it holds) is mutated here, and the live match must not see it.
"""

from __future__ import annotations

import enum
import random
from typing import Any

import pytest

from cardtable.engine import GAMES, get_game
from cardtable.engine.api import Action, Chance

MARK = -999  # a value no game field holds
NOT_STATE = ("_chance",)  # the copy's own rng, never shared by design


def comparable(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """A plain value equal for equal states: objects become their fields."""
    if id(value) in seen:
        return "<cycle>"
    inner = seen | {id(value)}
    if isinstance(value, dict):
        return {k: comparable(v, inner) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [comparable(v, inner) for v in value]
    if isinstance(value, set):
        return sorted(value, key=repr)
    if _mutable_object(value):
        return {k: comparable(v, inner) for k, v in vars(value).items()}
    return value


def mutate_everything(value: Any, seen: set[int]) -> int:
    """Change every mutable container reachable from ``value``; how many were changed."""
    if id(value) in seen:
        return 0
    seen.add(id(value))
    changed = 0
    if isinstance(value, dict):
        for v in list(value.values()):
            changed += mutate_everything(v, seen)
        value[MARK] = MARK
        return changed + 1
    if isinstance(value, list):
        for v in list(value):
            changed += mutate_everything(v, seen)
        value.append(MARK)
        return changed + 1
    if isinstance(value, set):
        value.add(MARK)
        return 1
    if isinstance(value, tuple):
        return sum(mutate_everything(v, seen) for v in value)
    if _mutable_object(value):
        return sum(mutate_everything(v, seen) for v in vars(value).values())
    return 0


def _mutable_object(value: Any) -> bool:
    frozen = getattr(getattr(type(value), "__dataclass_params__", None), "frozen", False)
    return (hasattr(value, "__dict__") and not frozen and not isinstance(value, type)
            and not isinstance(value, enum.Enum | Action | Chance))


def fields(state: Any) -> dict[str, Any]:
    return {k: comparable(v) for k, v in vars(state).items() if k not in NOT_STATE}


def positions(name: str) -> list[Any]:
    """Three states of the first seeded random match whose first hand lasts 4 moves or more:
    after two moves, a move before the hand ends, and at its end (a scorecard to copy)."""
    game = get_game(name)
    for seed in range(100):
        state = game.new_match(players=game.PLAYERS[0], rng=random.Random(seed))
        rng = random.Random(seed)
        records = []
        for _ in range(3000):
            legal = state.legal_actions()
            events = state.apply(legal[rng.randrange(len(legal))])
            records.append(state.record())
            if any(e.type in ("hand_over", "deal_over") for e in events):
                break
        if len(records) >= 4:
            return [game.replay(records[i], random.Random(seed)) for i in (1, -2, -1)]
    raise AssertionError(f"{name}: no random first hand lasted 4 moves")


@pytest.mark.parametrize("name", GAMES)
def test_mutating_a_resampled_copy_leaves_the_match_alone(name: str) -> None:
    checked = 0
    for state in positions(name):
        for seat in range(state.players):
            before = fields(state)
            twin = state.resample(seat, random.Random(seat))
            assert mutate_everything({k: v for k, v in vars(twin).items()
                                      if k not in NOT_STATE}, set()) > 3
            assert fields(state) == before, f"{name}: seat {seat}'s copy shares a field"
            checked += 1
    assert checked == 3 * get_game(name).PLAYERS[0]
