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
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

import pytest

from cardtable.engine import Action, Event, GameState, IllegalAction, get_game
from cardtable.engine.api import Phase as BasePhase
from cardtable.engine.rollback import copy_fields, structural_copy
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


# -- the base's fast paths (issue 13): copies, the legal-move cache, the rule table ----------


@dataclass(frozen=True)
class FrozenPair:
    low: int
    high: int


@dataclass
class Counter:
    count: list[int]


class Kind(StrEnum):
    RUN = "run"


class Held(NamedTuple):
    cards: list[int]


def test_structural_copy_shares_frozen_values_and_copies_everything_else() -> None:
    frozen = FrozenPair(1, 2)
    value = {"melds": [frozen, frozen], "kind": [Kind.RUN], "counter": Counter([1]),
             "held": Held([3]), "pairs": [(1, 2), (3, [4])], "flags": [True, None, 1.5, "x"]}
    for _ in range(2):  # the second time, every type is already known
        twin = structural_copy(value)
        assert twin == value
        assert twin["melds"] is not value["melds"] and twin["melds"][0] is frozen
        assert twin["kind"][0] is Kind.RUN
        twin["counter"].count.append(2)  # not a frozen dataclass: copied deeply
        twin["held"].cards.append(4)  # a named tuple is not a plain tuple: copied deeply
        twin["pairs"][1][1].append(5)  # a list inside a tuple inside a list
        twin["flags"].append(0)
        assert value == {"melds": [frozen, frozen], "kind": [Kind.RUN],
                         "counter": Counter([1]), "held": Held([3]),
                         "pairs": [(1, 2), (3, [4])], "flags": [True, None, 1.5, "x"]}


def test_copy_fields_copies_the_actions_and_leaves_out_what_belongs_to_one_state() -> None:
    state, _ = new_state("rummy", 8)
    play_to(state, random.Random(1), lambda s: len(s.record()["actions"]) >= 6)
    state.legal_actions()
    fields = copy_fields(state)
    assert not {"_chance", "_legal", "_legal_ids", "_origin"} & set(fields)
    assert fields["_actions"] == state._actions and fields["_actions"] is not state._actions
    assert fields["hands"] == state.hands and fields["hands"][0] is not state.hands[0]


def test_a_checked_apply_takes_an_equal_action_and_refuses_an_illegal_one() -> None:
    state, players = new_state("spades", 2)
    legal = state.legal_actions()
    before = snapshot(state, players)
    with pytest.raises(IllegalAction):
        state.apply(Action("play", card=0) if legal[0].type != "play" else Action("deal"))
    assert snapshot(state, players) == before
    state.apply(Action.from_json(legal[-1].to_json()))  # equal to a legal move, not it
    assert state.record()["actions"][-1] == legal[-1].to_json()


class Tally(GameState):
    """A tiny game for the base alone: add 1, 2 or 3 until the total reaches 10."""

    NAME = "tally_for_the_base"
    SORT_LEGAL = True
    applied: list[str]

    class Phase(BasePhase):
        ADD = "add"
        MATCH_OVER = "match_over"

    def setup(self) -> None:
        self.total, self.to_act, self.phase, self.applied = 0, 0, self.Phase.ADD, []

    def _legal_add(self) -> list[Action]:
        # unsorted and twice over: the base sorts them once and keeps one of each
        return [Action("add", number=n) for n in (3, 1, 2, 1, 3) if self.total + n <= 10]

    def _apply_add(self, action: Action) -> list[Event]:
        assert action.number is not None
        self.total += action.number
        if self.total == 10:
            self.to_act, self.phase = None, self.Phase.MATCH_OVER
        return [Event("add", 0, {"total": self.total})]


class LoggedTally(Tally):
    """Overrides ``do_apply``: the base must call it rather than the phase table."""

    def do_apply(self, action: Action) -> list[Event]:
        self.applied.append(str(action))
        return super().do_apply(action)


def test_sorted_legal_moves_are_sorted_once_without_repeats() -> None:
    state = Tally.start(None, 1, random.Random(1))
    assert state.legal_actions() == sorted({Action("add", number=n) for n in (1, 2, 3)})
    assert state.legal_actions() is not state.legal_actions()  # the cache is not handed out


@pytest.mark.parametrize("apply", ["apply", "apply_unchecked"])
def test_an_overridden_do_apply_is_the_rule_that_runs(apply: str) -> None:
    state = LoggedTally.start(None, 1, random.Random(1))
    while not state.is_over():
        getattr(state, apply)(state.legal_actions()[-1])
    assert state.applied == ["add 3", "add 3", "add 3", "add 1"]
    assert Tally.start(None, 1, random.Random(1)).applied == []
