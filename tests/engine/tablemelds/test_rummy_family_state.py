"""The Rummy family (Rummy, Rummy 500, Rommé) on the shared state base: a resampled copy
shares nothing with its original, and the family's modules import one another without a
cycle."""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path
from typing import Any

import pytest

from cardtable.engine import get_game
from cardtable.engine.tablemelds import TableMeldState

ENGINE = Path(__file__).parents[3] / "src" / "cardtable" / "engine"
FAMILY = ["tablemelds", "melds.py", "games/rummy", "games/rummy500", "games/romme"]

# Options that give each game's extra fields something to hold: Rummy 500's open call,
# Rommé's eliminated seats.
MATCHES = [("rummy", {}), ("rummy500", {"calling_rummy": True}),
           ("romme", {"end": "elimination", "eliminate_at": 60})]


def _played(game: str, options: dict[str, Any], seed: int, moves: int) -> TableMeldState:
    """A match ``moves`` random moves in (or over), with melds, pickups and past hands."""
    descriptor = get_game(game)
    state = descriptor.new_match(descriptor.options.from_dict(options), players=3,
                                 rng=random.Random(seed))
    chooser = random.Random(seed)
    for _ in range(moves):
        if state.is_over():
            break
        legal = state.legal_actions()
        state.apply(legal[chooser.randrange(len(legal))])
    assert isinstance(state, TableMeldState)
    return state


def _mutate(value: Any) -> None:
    """Change ``value`` in place everywhere it can change: lists, dicts and sets, all the
    way down (frozen values cannot change, so a copy may share them)."""
    if isinstance(value, list):
        for item in value:
            _mutate(item)
        value.append("mutated")
    elif isinstance(value, dict):
        for item in value.values():
            _mutate(item)
        value["mutated"] = True
    elif isinstance(value, set):
        value.add("mutated")


def _fields(state: TableMeldState) -> dict[str, Any]:
    # the chance draws from a live rng and belongs to one state only
    return {k: v for k, v in vars(state).items() if k != "_chance"}


@pytest.mark.parametrize(("game", "options"), MATCHES)
@pytest.mark.parametrize("moves", [0, 40, 400])
def test_a_resampled_copy_shares_nothing_with_its_original(
        game: str, options: dict[str, Any], moves: int) -> None:
    state = _played(game, options, seed=moves + 7, moves=moves)
    seat = state.current_player()
    seat = 0 if seat is None else seat
    state.legal_actions()  # the cache is part of the state compared
    before = copy.deepcopy(_fields(state))
    twin = state.resample(seat, random.Random(5))
    assert twin.view(seat) == state.view(seat)
    for value in vars(twin).values():
        _mutate(value)
    assert _fields(state) == before


def test_the_cards_others_took_from_the_pile_stay_with_them() -> None:
    state = _played("rummy500", {}, seed=3, moves=300)
    seat = 0
    picked = {s: list(p) for s, p in enumerate(state.picked) if p and s != seat}
    assert picked, "the seeded match should have a pickup still held"
    for n in range(10):
        twin = state.resample(seat, random.Random(n))
        assert all(set(cards) <= set(twin.hands[s]) for s, cards in picked.items())
        assert sorted(twin.hands[seat]) == sorted(state.hands[seat])
        assert [len(h) for h in twin.hands] == [len(h) for h in state.hands]
        assert sorted(twin.stock + [c for h in twin.hands for c in h]) == \
            sorted(state.stock + [c for h in state.hands for c in h])


def _imports(path: Path) -> set[str]:
    """The engine modules ``path`` imports, wherever the import stands (a cycle through a
    function's or ``TYPE_CHECKING``'s import is still a cycle)."""
    module = ".".join(path.relative_to(ENGINE.parents[1]).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else \
                base if node.level else node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name.removesuffix(".__init__") for name in found}


def _module_files() -> dict[str, Path]:
    files = {}
    for path in ENGINE.rglob("*.py"):
        name = ".".join(path.relative_to(ENGINE.parents[1]).with_suffix("").parts)
        files[name.removesuffix(".__init__")] = path
    return files


def test_the_family_has_no_import_cycle() -> None:
    files = _module_files()
    graph = {name: {m for m in _imports(path) if m in files} for name, path in files.items()}
    ours = {name for name, path in files.items()
            if any(str(path.relative_to(ENGINE)).startswith(part) for part in FAMILY)}
    assert len(ours) > 15

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            name = todo.pop()
            for nxt in graph[name] - seen:
                if nxt == goal:
                    return True
                seen.add(nxt)
                todo.append(nxt)
        return False

    # A package's __init__ gathers its modules, so "package -> module" edges are expected;
    # a cycle is a module that reaches itself through the others.
    cycles = sorted(name for name in ours if name in files and any(
        reaches(nxt, name) for nxt in graph[name] if not name.startswith(f"{nxt}.")))
    assert not cycles, f"import cycles through {cycles}"
