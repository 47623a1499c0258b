"""Every cache of the engine and the bots is bounded: a server plays for months.

Whatever a cache holds is memory for good and objects for every full pass of the
garbage collector (docs/benchmarks.md, "Long uptime").
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from typing import Any

import cardtable.bots
import cardtable.engine
from cardtable.bots.rummy.normal import JUDGEMENT as RUMMY
from cardtable.bots.tablemelds.judgement import VALUES_KEPT, Seen
from cardtable.engine import get_game
from cardtable.engine.games.indian import arrange
from cardtable.engine.games.spades import match as spades_match


def cached_functions() -> list[tuple[str, Any]]:
    """Every ``functools`` cache at module level in cardtable.engine and cardtable.bots."""
    found = []
    for package in (cardtable.engine, cardtable.bots):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if callable(getattr(value, "cache_parameters", None)) \
                        and getattr(value, "__module__", None) == info.name:
                    found.append((f"{info.name}.{name}", value))
    return found


def test_every_functools_cache_has_a_size() -> None:
    caches = cached_functions()
    names = {name for name, _ in caches}
    assert "cardtable.engine.games.indian.arrange.solve" in names  # the walk finds them
    unbounded = [name for name, f in caches if f.cache_parameters()["maxsize"] is None]
    assert unbounded == []


def test_indian_caches_stay_within_bounds() -> None:
    rng = random.Random(5)
    deck = list(range(52)) * 2 + [52, 52]
    memo_bound = 50_001  # arrange._Search clears its memo past 50,000 states
    for _ in range(1500):
        hand = tuple(sorted(rng.sample(deck, 13)))
        wild = rng.randrange(13)
        arrange.solve(hand, wild, arrange.rules())
        arrange.valid_show(hand, wild, arrange.rules())
    for search in arrange._SEARCHES.values():
        assert len(search.memo) <= memo_bound
    for f in (arrange.solve, arrange.show, arrange._lives_count, arrange._run_shapes):
        info = f.cache_info()
        assert info.maxsize is not None and info.currsize <= info.maxsize


def test_one_shared_rules_object_per_value() -> None:
    indian = get_game("indian")
    a = indian.Options().rules
    b = indian.Options.from_dict({"target": 201}).rules
    assert a is b is arrange.rules("sequence", False, False)
    assert indian.Options.from_dict({"four_card_life": True}).rules is not a


def test_judgement_values_keep_a_bounded_number_of_option_sets() -> None:
    rummy = get_game("rummy")
    state = rummy.new_match(rummy.Options(), players=2, rng=random.Random(1))
    view = state.view(state.current_player())
    for target in range(100, 100 + 3 * VALUES_KEPT):  # every table's own target
        seen = Seen.of({**view, "options": {**view["options"], "target": target}})
        RUMMY.values(seen)
    assert len(RUMMY._values) <= VALUES_KEPT


def test_spades_pass_actions_are_shared_and_bounded() -> None:
    first = spades_match._pass_cards((3, 17))
    assert spades_match._pass_cards((3, 17)) is first
    assert spades_match._pass_cards.cache_info().maxsize is not None
