"""Every registered game, every preset and number of players, through the shared suite."""

from __future__ import annotations

import importlib
import json
import random
from typing import Any

import pytest

from cardtable.engine import GAMES, Action, get_game
from cardtable.engine.api import live_rng
from cardtable.engine.state import Held
from conformance import eager_policy, play_match, random_policy, snapshot

# Rummy 500 seats 6 and 7 as it seats 5 and 8 (two packs, seven cards each): the costly
# eager and option playouts skip them; the random playouts still seat every count.
# Rommé (110 cards) deals and plays 3 as it does 2 and 4, and 5 as 6 (11 cards with
# short_hands_5_6): its costly playouts seat 2, 4 and 6.
FEWER_SEATS: dict[str, tuple[int, ...]] = {"rummy500": (2, 3, 4, 5, 8), "romme": (2, 4, 6)}


def seats(name: str) -> tuple[int, ...]:
    return FEWER_SEATS.get(name, get_game(name).PLAYERS)


CASES = [(name, preset, players) for name in GAMES for preset in get_game(name).Options.PRESETS
         for players in seats(name)]
SEATINGS = [(name, players) for name in GAMES for players in get_game(name).PLAYERS]
OPTION_SEATINGS = [(name, players) for name in GAMES for players in seats(name)]
# Random play can drift below zero for ever in Spades (bids are rarely made):
# the mercy rule ends such a match, with every check still made on the way.
# Random Rummy players rarely go out, and a blocked hand scores nothing by
# default: letting the lowest hand win a blocked hand ends such matches too.
# Rommé plays a round of deals by default and eliminates at 101: one deal, and
# elimination at 30 (the variant run), keep its many seatings and options quick.
QUICK: dict[str, dict[str, object]] = {"spades": {"mercy": 200},
                                       "rummy": {"blocked_hand": "lowest_wins"},
                                       "romme": {"deals": 1, "eliminate_at": 30}}


def short(name: str, **options: object) -> object:
    return get_game(name).Options.from_dict({**QUICK.get(name, {}), **options})


# Three seeds for each game's default preset at its smallest table, one elsewhere:
# every preset and seating is played, and the suite stays a few minutes long.
EAGER = [(name, preset, players, seed) for name, preset, players in CASES
         for seed in ((1, 2, 3) if preset == get_game(name).Options.DEFAULT_PRESET
                      and players == seats(name)[0] else (1,))]


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
@pytest.mark.parametrize(("name", "preset", "players", "seed"), EAGER)
def test_eager_playouts(name: str, preset: str, players: int, seed: int) -> None:
    # a lower target keeps the suite quick; every other knob is the preset's
    options = short(name, preset=preset, target=60)
    stats = play_match(name, options, seed, eager_policy, players=players)
    assert stats["result"]["over"] and stats["illegal_probes"] > 0 and stats["faults"] > 0


@pytest.mark.parametrize(("name", "players"), SEATINGS)
def test_random_playout_to_a_short_target(name: str, players: int) -> None:
    stats = play_match(name, short(name, target=25), 7, random_policy, players=players)
    assert stats["result"]["over"]


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
@pytest.mark.parametrize(("name", "players"), OPTION_SEATINGS)
def test_every_option_variant_plays(name: str, players: int) -> None:
    game = get_game(name)
    for spec in game.Options.describe():
        for value in spec["choices"] or []:
            if value != spec["default"]:
                options = short(name, **{spec["name"]: value, "target": 30})
                try:
                    game.new_match(options, players=players, rng=random.Random(0))
                except ValueError as error:  # refused up front, naming the option
                    assert spec["name"] in str(error)
                    continue
                play_match(name, options, 3, eager_policy, players=players)


@pytest.mark.parametrize("players", [4, 3])
@pytest.mark.parametrize("seed", [1, 2])
def test_spades_blind_nil_at_every_deal(players: int, seed: int) -> None:
    # Margin 0: every seat decides blind nil or look before seeing a card, and
    # partners exchange after each blind nil; no view may show the unseen hand.
    options = short("spades", blind_nil_margin=0, target=150)
    stats = play_match("spades", options, seed, random_policy, players=players)
    assert stats["result"]["over"]


@pytest.mark.parametrize("players", [4, 3, 2])
def test_spades_number_knobs(players: int) -> None:
    # The numeric options, which the choices loop above does not reach.
    options = short("spades", minimum_team_bid=4, nil_value=50, blind_nil_value=100,
                    blind_nil_margin=50, bag_limit=5, bag_penalty=50, target=100)
    stats = play_match("spades", options, 4, eager_policy, players=players)
    assert stats["result"]["over"]


@pytest.mark.parametrize("name", GAMES)
def test_the_descriptor_answers_for_its_game(name: str) -> None:
    game = get_game(name)
    assert game.name == name and game.title and game.players
    options = game.Options
    assert options() == options.preset(options.DEFAULT_PRESET)
    for preset in options.PRESETS:  # the express overrides fit every preset
        assert options.from_dict({"preset": preset, **options.EXPRESS})
    for players in game.players:
        teams = game.teams(players)
        assert sorted(s for team in teams for s in team) == list(range(players))
    assert callable(importlib.import_module(game.bot).choose)
    assert not game.same_turn("deal")
    if game.stock_draw is not None:
        assert game.is_stock_draw({"type": game.stock_draw})
    assert not game.is_stock_draw({"type": "deal"})


def first_hand_over(name: str, seed: int) -> Any:
    """A match at the end of its first hand (dealing the next is the only move), in the
    first preset (the default first) whose matches are longer than a hand."""
    game = get_game(name)
    presets = sorted(game.Options.PRESETS, key=lambda p: p != game.Options.DEFAULT_PRESET)
    for preset in presets:
        state = game.new_match(game.Options.preset(preset), rng=random.Random(seed))
        rng = random.Random(seed)
        assert not game.only_dealing(state)
        while not game.only_dealing(state) and not state.is_over():
            state.apply(eager_policy(state, rng))
        if not state.is_over():
            return state
    raise AssertionError(f"no preset of {name} plays a second hand")


@pytest.mark.parametrize("name", GAMES)
def test_a_rebuilt_match_deals_on_from_a_live_rng(name: str) -> None:
    game = get_game(name)
    state = first_hand_over(name, 11)
    players = state.record()["players"]
    rebuilt = game.replay(json.loads(json.dumps(state.record())), rng=live_rng())
    assert snapshot(rebuilt, players) == snapshot(state, players)
    rebuilt.apply(Action("deal"))  # a deal the record does not hold: from the live rng
    assert len(rebuilt.chance_outcomes()) > len(state.chance_outcomes())
    again = game.replay(json.loads(json.dumps(rebuilt.record())))
    assert snapshot(again, players) == snapshot(rebuilt, players)


@pytest.mark.parametrize("name", GAMES)
def test_the_computer_plays_a_whole_express_match(name: str) -> None:
    """The descriptor's bot module, in every seat, from its views only."""
    game = get_game(name)
    choose = importlib.import_module(game.bot).choose
    state = game.new_match(game.Options.from_dict(game.Options.EXPRESS), rng=random.Random(5))
    for _ in range(10_000):
        if state.is_over():
            break
        state.apply(choose(state.view(state.current_player())))
    assert state.is_over() and state.result()["hands"]


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


def test_the_suite_catches_a_peek_before_the_blind_nil_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.engine.cards import format_cards
    from cardtable.engine.games.spades import SpadesState

    honest = SpadesState.view

    def peeking(self: SpadesState, seat: int | None) -> dict:  # type: ignore[type-arg]
        out = honest(self, seat)
        if seat is not None:
            out["debug"] = format_cards(min(c, 52) for c in self.hands[seat])
        return out

    monkeypatch.setattr(SpadesState, "view", peeking)
    with pytest.raises(AssertionError, match="sees"):
        play_match("spades", short("spades", blind_nil_margin=0), 1, eager_policy)


def test_the_suite_catches_a_partner_peek(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.engine.cards import format_cards
    from cardtable.engine.games.spades import SpadesState

    honest = SpadesState.view

    def peeking(self: SpadesState, seat: int | None) -> dict:  # type: ignore[type-arg]
        out = honest(self, seat)
        if seat is not None:
            out["debug"] = format_cards(min(c, 52) for c in self.hands[(seat + 2) % 4][:1])
        return out

    monkeypatch.setattr(SpadesState, "view", peeking)
    with pytest.raises(AssertionError, match="sees"):
        play_match("spades", short("spades", blind_nil=False), 1, eager_policy)


def test_the_suite_catches_a_leaky_toy_view(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.engine.cards import format_cards
    from toy_war import WarState

    honest = WarState.view

    def peeking(self: WarState, seat: int | None) -> dict[str, Any]:
        out = honest(self, seat)
        out["debug"] = format_cards(self.hands[1][:1])  # seat 1's first card
        return out

    monkeypatch.setattr(WarState, "view", peeking)
    with pytest.raises(AssertionError, match="sees"):
        play_match("toy_war", short("toy_war"), 1, eager_policy)


def test_the_suite_catches_a_move_that_is_not_rolled_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.engine import rollback

    monkeypatch.setattr(rollback, "roll_back", lambda state, actions, outcomes: None)
    with pytest.raises(AssertionError, match="changed the state"):
        play_match("toy_war", short("toy_war"), 1, eager_policy)


def test_the_suite_catches_a_resample_that_redeals_the_seats_own_hand(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from toy_war import WarState

    def careless(self: WarState, seat: int, rng: random.Random, held: Held) -> None:
        heap = self.hands[0] + self.hands[1] + self.stock
        rng.shuffle(heap)
        sizes = [len(h) for h in self.hands]
        self.hands = [heap[:sizes[0]], heap[sizes[0]:sum(sizes)]]
        self.stock = heap[sum(sizes):]

    monkeypatch.setattr(WarState, "redeal_hidden", careless)
    with pytest.raises(AssertionError):
        play_match("toy_war", short("toy_war", target=60), 1, eager_policy)
