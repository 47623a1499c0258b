"""Player statistics of a finished match (engine/stats.py and each game's stats module):
exact figures for a scripted Gin result, and for every game, seeded bot matches whose
figures agree with their results."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from cardtable.bots.levels import bot_for
from cardtable.engine import GAMES, get_game
from cardtable.engine.games.gin.stats import STATS as GIN


def test_gin_figures_of_a_scripted_match() -> None:
    hands = [
        {"kind": "gin", "knocker_seat": 0, "winner": 0, "knocker": {"points": 0}},
        {"kind": "knock", "knocker_seat": 1, "winner": 1, "knocker": {"points": 7}},
        {"kind": "undercut", "knocker_seat": 1, "winner": 0, "knocker": {"points": 9}},
        {"kind": "void", "knocker_seat": None, "winner": None},
    ]
    state = SimpleNamespace(players=2, result=lambda: {"hands": hands})
    ann, bob = GIN.count(state)
    assert ann == {"hands": 4, "hands_won": 2, "gins": 1, "undercuts": 1}
    assert bob == {"hands": 4, "hands_won": 1, "knocks": 2, "knock_deadwood": 16}
    assert GIN.summary(bob) == [("Hands won", 25.0, True), ("Gins", 0.0, False),
                                ("Knocks", 2.0, False), ("Undercuts", 0.0, False),
                                ("Average deadwood at a knock", 8.0, False)]
    assert GIN.summary({})[-1] == ("Average deadwood at a knock", None, False)


def finished(game: str, players: int, options: dict[str, Any], seed: int) -> Any:
    descriptor = get_game(game)
    state = descriptor.new_match(descriptor.options.from_dict(options), players=players,
                                 rng=random.Random(seed))
    bot = bot_for(game)
    while not state.is_over():
        state.apply(bot(state.view(state.current_player())))
    return state


@pytest.mark.parametrize(("game", "players", "options"), [
    ("gin", 2, {"target": 100}), ("rummy", 3, {}), ("rummy500", 2, {}), ("romme", 3, {}),
    ("indian", 3, {"preset": "pool101"}), ("spades", 4, {"target": 300}),
])
def test_every_game_counts_figures_that_agree_with_its_result(
        game: str, players: int, options: dict[str, Any]) -> None:
    stats = get_game(game).stats
    assert stats is not None and game in GAMES
    state = finished(game, players, options, seed=11)
    sums = stats.count(state)
    hands = len(state.result()["hands"])
    assert len(sums) == players
    for mine in sums:
        played = mine.get("hands", mine.get("deals", 0))
        assert 0 < played <= hands
        assert mine.get("hands_won", mine.get("deals_won", 0)) <= played
        for label, value, percent in stats.summary(mine):
            assert value is None or value >= 0, label
            assert not percent or value is None or value <= 100, label
    if game == "spades":
        for mine in sums:
            assert mine.get("nils", 0) == mine.get("nils_made", 0) + mine.get("nils_set", 0)
    if game in ("rummy", "rummy500", "romme"):
        for mine in sums:
            assert mine.get("first_melds", 0) <= mine["hands"]
            assert mine.get("first_meld_turns", 0) >= mine.get("first_melds", 0)
