"""Rummy 500 through the conformance checks on the paths eager playouts rarely reach:
the stock running out (``pass``, ``stock_out``, a reshuffle) and calls."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardtable.engine import Action
from cardtable.engine.games import rummy500
from conformance import play_match


def slow_policy(state: Any, rng: random.Random) -> Action:
    """Draws from the stock and throws cards away, melding rarely, so hands run the stock
    out; answers every call at random and sometimes passes on an empty stock."""
    legal: list[Action] = state.legal_actions()
    types = {a.type for a in legal}
    if "call" in types:
        return rng.choice(legal)
    if "pass" in types and rng.random() < 0.3:
        return Action("pass")
    placing = [a for a in legal if a.type in ("meld", "lay_off")]
    if placing and (rng.random() < 0.1 or "discard" not in types):
        return rng.choice(placing)
    for kind in ("draw_stock", "discard", "deal"):
        of_kind = [a for a in legal if a.type == kind]
        if of_kind:
            return rng.choice(of_kind)
    return rng.choice(legal)


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
@pytest.mark.parametrize(("players", "options"), [
    (3, {"calling_rummy": True}),
    (2, {"calling_rummy": True, "stock_exhausted": "shuffle"}),
    (5, {"preset": "bicycle", "calling_rummy": True, "final_discard": True}),
])
def test_long_hands_keep_every_promise(players: int, options: dict[str, object]) -> None:
    opts = rummy500.Options.from_dict({**options, "target": 30})
    stats = play_match("rummy500", opts, 4, slow_policy, players=players)
    assert stats["result"]["over"]
    if opts.stock_exhausted == "end_hand":
        assert any(hand["blocked"] for hand in stats["result"]["hands"])
