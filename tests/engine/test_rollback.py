"""``apply`` is all-or-nothing: whatever it raises, the state is as it was.

Each game's rule is made to fail in the middle of a move (after it has
changed some of the state), at an ordinary turn and at the move that deals
the next hand; the state must then equal one that never saw the move, and
the same move must still play normally once the fault is gone.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from cardtable.engine import get_game
from cardtable.engine.rollback import structural_copy
from conformance import eager_policy

CASES = {  # game: (options, players) of a match of many hands, however they go
    "gin": ({"deals": 20}, 2),
    "rummy": ({"deals": 20}, 3),
    "rummy500": ({"deals": 20}, 3),
    "romme": ({"deals": 12}, 3),
    "indian": ({"preset": "deals", "deals": 6}, 3),
    "spades": ({"deals": 20, "mercy": 0}, 4),
}
HAND_ENDS = ("hand_over", "deal_over")


class Injected(RuntimeError):
    """The fault a test puts inside ``apply``."""


def snapshot(state: Any, players: int) -> str:
    views = [state.view(s) for s in [*range(players), None]]
    return json.dumps([views, state.record(), state.current_player(),
                       [a.to_json() for a in state.legal_actions()]], sort_keys=True)


def new_state(name: str, seed: int) -> tuple[Any, int]:
    options, players = CASES[name]
    game = get_game(name)
    return game.new_match(game.Options.from_dict(options), players=players,
                          rng=random.Random(seed)), players


@contextmanager
def failing(state: Any, after: str | None = None) -> Iterator[None]:
    """Make the state raise once its rule has set ``after`` (default: any field but the
    legal-move cache, which apply clears before the rule runs)."""
    cls = type(state)
    original = cls.__setattr__

    def trap(self: Any, key: str, value: Any) -> None:
        original(self, key, value)
        if self is state and (key == after or (after is None and not key.startswith("_"))):
            raise Injected(f"fault after setting {key}")

    cls.__setattr__ = trap  # type: ignore[method-assign]
    try:
        yield
    finally:
        cls.__setattr__ = original  # type: ignore[method-assign]


def play_to(state: Any, rng: random.Random, stop: Any) -> None:
    for _ in range(20_000):
        if stop(state):
            return
        state.apply(eager_policy(state, rng))
    raise AssertionError("never got there")


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fault_inside_apply_changes_nothing(name: str) -> None:
    state, players = new_state(name, 3)
    rng = random.Random(5)
    play_to(state, rng, lambda s: len(s.record()["actions"]) >= 5)
    for _ in range(2):  # an ordinary move, then the deal of the next hand
        before = snapshot(state, players)
        move = eager_policy(state, random.Random(1))
        with failing(state), pytest.raises(Injected):
            state.apply(move)
        assert snapshot(state, players) == before
        state.apply(move)  # the fault is gone: the move plays as usual
        play_to(state, rng, lambda s: s.view(None)["phase"] in HAND_ENDS)
    before = snapshot(state, players)
    # the deal draws a chance outcome before failing: it is not kept either
    with failing(state, "hands"), pytest.raises(Injected):
        state.apply(state.legal_actions()[0])
    assert snapshot(state, players) == before
    state.apply(state.legal_actions()[0])
    assert state.view(None)["phase"] not in HAND_ENDS


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_resampled_copy_rolls_back_too(name: str) -> None:
    state, players = new_state(name, 4)
    play_to(state, random.Random(6), lambda s: len(s.record()["actions"]) >= 7)
    seat = state.current_player()
    twin = state.resample(seat, random.Random(2))
    twin.apply(twin.legal_actions()[0])
    before = snapshot(twin, players)
    move = eager_policy(twin, random.Random(3))
    with failing(twin), pytest.raises(Injected):
        twin.apply(move)
    assert snapshot(twin, players) == before
    twin.apply(move)


def test_structural_copy_shares_nothing_mutable() -> None:
    value = {"hands": [[1, 2], [3]], "seen": {4}, "rows": [{"a": [1]}], "pair": ([5], 6)}
    twin = structural_copy(value)
    assert twin == value
    twin["hands"][0].append(7)
    twin["seen"].add(8)
    twin["rows"][0]["a"].append(9)
    twin["pair"][0].append(10)
    assert value == {"hands": [[1, 2], [3]], "seen": {4}, "rows": [{"a": [1]}], "pair": ([5], 6)}
