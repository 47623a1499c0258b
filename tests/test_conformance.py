"""Every registered game, every preset, through the shared conformance suite."""

from __future__ import annotations

import pytest

from cardtable.engine import GAMES, get_game
from conformance import eager_policy, play_match, random_policy

CASES = [(name, preset) for name in GAMES for preset in get_game(name).Options.PRESETS]


@pytest.mark.parametrize(("name", "preset"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_eager_playouts(name: str, preset: str, seed: int) -> None:
    # a lower target keeps the suite quick; every other knob is the preset's
    options = get_game(name).Options.from_dict({"preset": preset, "target": 60})
    stats = play_match(name, options, seed, eager_policy)
    assert stats["result"]["over"] and stats["illegal_probes"] > 0


@pytest.mark.parametrize("name", GAMES)
def test_random_playout_to_a_short_target(name: str) -> None:
    options = get_game(name).Options.from_dict({"target": 25})
    stats = play_match(name, options, 7, random_policy)
    assert stats["result"]["over"]


@pytest.mark.parametrize("name", GAMES)
def test_every_option_variant_plays(name: str) -> None:
    game = get_game(name)
    for spec in game.Options.describe():
        for value in spec["choices"] or []:
            if value != spec["default"]:
                options = game.Options.from_dict({spec["name"]: value, "target": 30})
                play_match(name, options, 3, eager_policy)


def test_the_suite_catches_a_leaky_view(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.engine.games.gin import GinState

    honest = GinState.view

    def leaky(self: GinState, seat: int | None) -> dict:  # type: ignore[type-arg]
        out = honest(self, seat)
        out["debug"] = [str(c) for c in self.stock[-1:]]  # the next stock card
        from cardtable.engine.cards import format_cards
        out["debug"] = format_cards(self.stock[-1:])
        return out

    monkeypatch.setattr(GinState, "view", leaky)
    with pytest.raises(AssertionError, match="sees"):
        play_match("gin", get_game("gin").Options.from_dict({"target": 30}), 1, eager_policy)


def test_the_suite_catches_a_lost_card(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.engine.games.gin import GinState

    honest = GinState.zones

    def lossy(self: GinState) -> dict:  # type: ignore[type-arg]
        out = honest(self)
        out["stock"] = out["stock"][1:]
        return out

    monkeypatch.setattr(GinState, "zones", lossy)
    with pytest.raises(AssertionError):
        play_match("gin", get_game("gin").Options.from_dict({"target": 30}), 1, eager_policy)
