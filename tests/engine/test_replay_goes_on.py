"""A match rebuilt from its record goes on: later hands are dealt from a live rng.

For every game the match is rebuilt at each point around a hand boundary (before
the move that ends the hand, between it and the deal, after the deal), must equal
the live match there, then plays on for at least three more hands with its deals
drawn from ``secrets.SystemRandom()`` and recorded, and its record replays again.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from cardtable.engine import get_game
from conformance import eager_policy
from test_rollback import CASES, HAND_ENDS, snapshot


def deal_number(state: Any) -> int:
    return int(state.zones()["deal"])


def boundary_records(name: str, seed: int) -> list[tuple[dict[str, Any], str]]:
    """(record, snapshot) at each point around the end of the first two hands."""
    options, players = CASES[name]
    game = get_game(name)
    state = game.new_match(game.Options.from_dict(options), players=players,
                           rng=random.Random(seed))
    rng = random.Random(seed)
    points: list[tuple[dict[str, Any], str]] = []
    previous: tuple[dict[str, Any], str] | None = None
    while deal_number(state) <= 2:
        here = (json.loads(json.dumps(state.record())), snapshot(state, players))
        over = state.view(None)["phase"] in HAND_ENDS
        if over:  # between the end of the hand and the next deal: and the move before
            points += [p for p in (previous, here) if p is not None and p not in points]
        dealt = deal_number(state)
        state.apply(eager_policy(state, rng))
        assert not state.is_over(), "the match must last beyond the test"
        if over and deal_number(state) > dealt:  # just after the deal
            points.append((json.loads(json.dumps(state.record())), snapshot(state, players)))
        previous = here
    assert len(points) >= 6
    return points


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_rebuilt_match_deals_on(name: str) -> None:
    game = get_game(name)
    _, players = CASES[name]
    for index, (record, seen) in enumerate(boundary_records(name, 11)):
        rebuilt = game.replay(record)
        assert snapshot(rebuilt, players) == seen
        start = deal_number(rebuilt)
        rng = random.Random(index)
        while deal_number(rebuilt) < start + 3:
            rebuilt.apply(eager_policy(rebuilt, rng))
            assert not rebuilt.is_over()
        later = rebuilt.record()
        assert len(later["chance"]) >= len(record["chance"]) + 3  # the new deals are recorded
        assert later["chance"][:len(record["chance"])] == record["chance"]
        again = game.replay(json.loads(json.dumps(later)))
        assert snapshot(again, players) == snapshot(rebuilt, players)


def test_later_deals_come_from_the_given_rng() -> None:
    gin = get_game("gin")
    points = boundary_records("gin", 2)
    record, _ = next((r, s) for r, s in points if json.loads(s)[0][2]["phase"] == "hand_over")
    one = gin.replay(record, random.Random(1))
    two = gin.replay(record, random.Random(1))
    three = gin.replay(record, random.Random(2))
    for state in (one, two, three):
        state.apply(state.legal_actions()[0])
    assert one.record() == two.record() != three.record()
