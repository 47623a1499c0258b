"""The game registry: descriptors, registration and the questions the server asks."""

from __future__ import annotations

import random

import pytest

from cardtable.engine import GAMES, Descriptor, descriptors, get_game, register
from cardtable.engine.games.gin import GinState


def test_games_are_listed_in_menu_order() -> None:
    built_in = [d.name for d in descriptors() if d.state.__module__.startswith("cardtable.")]
    assert built_in == ["gin", "rummy", "rummy500", "romme", "indian", "spades"]
    assert list(GAMES) == [d.name for d in descriptors()]
    assert all(name in GAMES for name in built_in) and "chess" not in GAMES


def test_an_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'; games: gin, rummy"):
        get_game("chess")


def test_a_game_needs_an_identifier_for_a_name() -> None:
    class Badly(GinState):
        NAME = "gin rummy"

    with pytest.raises(ValueError, match="must be an identifier"):
        register(Descriptor(Badly, title="Gin", players=(2,), bot="cardtable.bots.gin.normal"))
    assert "gin rummy" not in GAMES


def test_registering_the_same_descriptor_again_is_harmless() -> None:
    gin = get_game("gin")
    assert register(gin) is gin


def test_new_match_checks_the_seats_and_the_rng() -> None:
    rummy500 = get_game("rummy500")
    with pytest.raises(ValueError, match="played by 2 to 8 players"):
        rummy500.new_match(players=9, rng=random.Random(1))
    with pytest.raises(ValueError, match="needs an rng"):
        rummy500.new_match(players=3)
    assert rummy500.new_match(rng=random.Random(1)).players == 2  # the usual count


def test_replay_checks_the_record() -> None:
    spades = get_game("spades")
    record = spades.new_match(rng=random.Random(2)).record()
    assert spades.replay(record).view(None) == spades.replay(record).view(None)
    with pytest.raises(ValueError, match="not a gin record"):
        get_game("gin").replay(record)
    with pytest.raises(ValueError, match="needs 2 to 4 players"):
        spades.replay({**record, "players": 5})


def test_turns_and_teams() -> None:
    rummy, spades = get_game("rummy"), get_game("spades")
    # a rummy turn is a draw, melds and a discard under one clock; a deal starts a new one
    assert rummy.same_turn("draw_stock") and rummy.same_turn("meld")
    assert not rummy.same_turn("deal")
    # in Spades every bid and card is a turn of its own
    assert not spades.same_turn("play") and not spades.same_turn("bid")
    assert spades.teams(4) == [[0, 2], [1, 3]] and rummy.teams(3) == [[0], [1], [2]]
    assert rummy.is_stock_draw({"type": "draw_stock"})
    assert not spades.is_stock_draw({"type": "draw_stock"})


def test_only_dealing_is_asked_of_the_state() -> None:
    gin = get_game("gin")
    state = gin.new_match(rng=random.Random(3))
    assert not gin.only_dealing(state)
    chooser = random.Random(4)
    for _ in range(500):  # a random hand ends: a knock, or the stock runs down
        if state.phase.value == "hand_over":
            break
        state.apply(chooser.choice(state.legal_actions()))
    assert state.phase.value == "hand_over" and gin.only_dealing(state)
