"""Express tables: ``Options.EXPRESS`` makes every preset of every game a match of one hand,
and the ``deals`` option of Gin, Rummy 500 and Spades ends a match after that many deals."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardtable.engine import GAMES, Action, get_game
from cardtable.engine.games import gin, rummy500, spades
from cardtable.engine.games.gin.settlement import final_settlement, match_over
from gin_deals import rigged

# The events that close a hand (Indian Rummy calls it a deal).
HAND_END = {"hand_over", "deal_over"}
# Rummy 500 and Spades play another hand when the top score is tied, at the target or
# after the fixed deals alike; every other game ends on the last deal, tie or not.
TIES_PLAY_ON = {"rummy500", "spades"}
CASES = [(name, preset, players) for name in GAMES for preset in get_game(name).Options.PRESETS
         for players in get_game(name).PLAYERS]
DEALS_GAMES = ("gin", "rummy500", "spades")


def play_out(state: Any, seed: int, max_actions: int = 100_000) -> int:
    """Random legal moves to the end; the number of hands played.  Checks that the match
    ends in the same move as a hand's scoring (nothing is played after the last hand)."""
    rng = random.Random(seed)
    hands = 0
    for _ in range(max_actions):
        events = state.apply(rng.choice(state.legal_actions()))
        types = [e.type for e in events]
        hands += sum(t in HAND_END for t in types)
        if state.is_over():
            assert "match_over" in types and HAND_END & set(types)
            assert state.legal_actions() == [] and state.current_player() is None
            return hands
        assert "match_over" not in types
    raise AssertionError("the match did not end")


def tops(name: str, result: dict[str, Any]) -> list[list[int]]:
    """The running scores (per seat, Spades per side) after each hand."""
    key = "scores" if name == "spades" else "totals"
    return [row[key] for row in result["hands"]]


def check_hands(name: str, state: Any, deals: int, hands: int) -> None:
    """``deals`` hands, and more only while the top score is tied (Rummy 500, Spades)."""
    assert hands >= deals
    if name not in TIES_PLAY_ON:
        assert hands == deals
        return
    rows = tops(name, state.result())
    assert len(rows) == hands
    for row in rows[deals - 1:-1]:  # every hand past the fixed deals was a tie-break
        assert row.count(max(row)) > 1
    last = rows[-1]
    assert last.count(max(last)) == 1
    winner = state.result()["winner"] if name == "spades" else state.result()["winners"][0]
    assert last[winner] == max(last)


@pytest.mark.parametrize(("name", "preset", "players"), CASES)
def test_express_is_one_hand_in_every_preset(name: str, preset: str, players: int) -> None:
    game = get_game(name)
    express = game.Options.EXPRESS
    assert express, f"{name} has no express overrides"
    options = game.Options.from_dict({"preset": preset, **express})
    for key, value in express.items():
        assert getattr(options, key) == value
    state = game.new_match(options, players=players, rng=random.Random(players))
    hands = play_out(state, seed=players)
    check_hands(name, state, 1, hands)
    assert state.result()["over"]
    # a record of an express match replays to the same finished match
    again = game.replay(state.record())
    assert again.is_over() and again.result() == state.result()


def test_express_spelling() -> None:
    from cardtable.engine.api import Options

    assert Options.EXPRESS == {}
    built_in = [name for name in GAMES if get_game(name).state.__module__.startswith("cardtable.")]
    spelled = {name: get_game(name).Options.EXPRESS for name in built_in}
    assert spelled == {"gin": {"deals": 1}, "rummy": {"deals": 1}, "rummy500": {"deals": 1},
                       "romme": {"end": "deals", "deals": 1}, "indian": {"format": "points"},
                       "spades": {"deals": 1}}


@pytest.mark.parametrize("name", DEALS_GAMES)
def test_deals_option_is_described_and_off_by_default(name: str) -> None:
    game = get_game(name)
    spec = next(s for s in game.Options.describe() if s["name"] == "deals")
    assert (spec["default"], spec["range"]) == (0, (0, 100))
    assert "0: play to target" in spec["doc"]
    for preset in game.Options.PRESETS:
        assert game.Options.preset(preset).deals == 0
    with pytest.raises(ValueError, match="'deals'"):
        game.Options.from_dict({"deals": 101})


@pytest.mark.parametrize("name", DEALS_GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_two_deals_are_two_hands(name: str, seed: int) -> None:
    game = get_game(name)
    players = game.PLAYERS[0]
    # a target of 1 would end the match at once: the deals replace it
    options = game.Options.from_dict({"deals": 2, "target": 1})
    state = game.new_match(options, players=players, rng=random.Random(seed))
    check_hands(name, state, 2, play_out(state, seed))


# -- Gin: worked checks --------------------------------------------------------------

# Seat 0 deals; seat 1 (non-dealer) acts first and can knock on drawing the 2h.
NON_DEALER = "As 2s 3s 4h 5h 6h 7c 7d 7s Kd"
DEALER = "Kc Qc Jc 9d 9h 8s 6c 5d 3c 2d"


def test_gin_express_knock_wins_the_match() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh", options={"deals": 1})
    for move in ("pass", "pass", "draw_stock", "knock Kd"):
        s.apply(Action.parse(move))
    assert s.phase is gin.Phase.MATCH_OVER and s.is_over()
    r = s.result()
    # knocker's deadwood 2 (the 2h); defender lays nothing off and keeps 73
    assert r["hands"][0]["winner"] == 1 and r["winner"] == 1 and not r["draw"]
    points = r["hands"][0]["points"]
    assert r["points"] == [0, points] and r["boxes"] == [0, 1]
    # one hand: the loser has scored nothing, so it is a shutout (hand points doubled)
    assert r["shutout"] and r["totals"] == [0, 2 * points + 100 + 25]
    assert r["margin"] == r["totals"][1]


def test_gin_express_void_hand_is_a_drawn_match() -> None:
    """Nobody knocks: the stock reaches the floor, the hand is void, and the match is over."""
    s = gin.new_match(gin.Options.from_dict({"preset": "pagat", **gin.Options.EXPRESS}),
                      rng=random.Random(5))
    rng = random.Random(5)
    while not s.is_over():
        moves = [a for a in s.legal_actions() if a.type not in ("knock", "gin", "big_gin")]
        events = s.apply(rng.choice(moves))
    assert [e.type for e in events][-2:] == ["hand_over", "match_over"]
    r = s.result()
    assert [row["kind"] for row in r["hands"]] == ["void"]
    assert (r["winner"], r["draw"], r["shutout"]) == (None, True, False)
    assert (r["totals"], r["game_bonus"], r["margin"]) == ([0, 0], 0, 0)
    assert s.legal_actions() == [] and s.current_player() is None
    assert s.view(0)["result"] == s.final and s.view(None)["phase"] == "match_over"


def test_gin_void_hand_counts_as_a_deal_of_two() -> None:
    """deals=2: a void first hand is one of the two; the second decides the match."""
    s = rigged(DEALER, NON_DEALER, "8c", options={"deals": 2}, more_deals=1)
    rng = random.Random(3)
    while s.phase is not gin.Phase.HAND_OVER:
        moves = [a for a in s.legal_actions() if a.type not in ("knock", "gin", "big_gin")]
        s.apply(rng.choice(moves))
    assert [row["kind"] for row in s.history] == ["void"] and not s.is_over()
    s.apply(Action("deal"))  # the same dealer deals again
    assert s.hand_number == 2
    hands = 1 + play_out(s, seed=3)
    assert hands == 2 and s.is_over()


def test_gin_deals_winner_is_the_higher_points_plus_boxes() -> None:
    deals3 = gin.Options(deals=3)
    # hand points 20 each, but seat 0 won two boxes to seat 1's one
    assert match_over([20, 20], [2, 1], 3, None, [20, 20], deals3) == (True, 0)
    # 45 + 25 = 20 + 50: equal totals, a draw
    assert match_over([45, 20], [1, 2], 3, 0, [45, 20], deals3) == (True, None)
    assert match_over([45, 20], [1, 2], 2, 0, [45, 20], deals3) == (False, None)
    # to the target (deals 0) only the hand's winner can have reached it
    to_40 = gin.Options(target=40)
    assert match_over([45, 20], [1, 2], 2, 0, [45, 20], to_40) == (True, 0)
    assert match_over([45, 20], [1, 2], 2, 1, [45, 20], to_40) == (False, 1)
    drawn = final_settlement([45, 20], [1, 2], None, deals3)
    assert drawn["totals"] == [70, 70] and drawn["game_bonus"] == 0 and drawn["draw"]
    won = final_settlement([45, 20], [2, 1], 0, deals3)
    assert won["totals"] == [45 + 100 + 50, 20 + 25] and not won["draw"]


def test_gin_deals_replace_the_target() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh", options={"deals": 2, "target": 1})
    for move in ("pass", "pass", "draw_stock", "knock Kd"):
        s.apply(Action.parse(move))
    assert s.phase is gin.Phase.HAND_OVER and s.scores()[1] > 1


# -- Rummy 500 and Spades: ties after the fixed deals play on -------------------------


def test_rummy500_tie_after_the_deals_plays_on() -> None:
    s = rummy500.new_match(rummy500.Options(deals=1), players=3, rng=random.Random(1))
    s.history = [{}]
    s.scores = [40, 40, 10]
    assert s.match_winners() is None
    s.scores = [40, 45, 10]
    assert s.match_winners() == [1]
    s.scores = [600, 45, 10]
    s.history = []
    assert s.match_winners() is None  # the target does not end a match of fixed deals


def test_spades_deals_tie_plays_on_and_mercy_still_ends() -> None:
    o = spades.Options(deals=1)
    assert spades.match_winner([-40, 61], o, hands=1) == 1
    assert spades.match_winner([61, 61], o, hands=1) is None
    assert spades.match_winner([61, 62], o, hands=2) == 1  # a tie-break hand decided it
    assert spades.match_winner([600, 62], spades.Options(deals=2), hands=1) is None
    mercy = spades.Options(deals=3, mercy=200)
    assert spades.match_winner([-210, 62], mercy, hands=1) == 1


@pytest.mark.parametrize(("players", "seed"), [(4, 13), (3, 11)])
def test_spades_express_tie_plays_one_more_hand(players: int, seed: int) -> None:
    """Seeds whose random first hand ties the top score: a second hand decides."""
    state = spades.new_match(spades.Options.from_dict(spades.Options.EXPRESS), players=players,
                             rng=random.Random(seed))
    assert play_out(state, seed) == 2
    first, last = tops("spades", state.result())
    assert first.count(max(first)) > 1 and last[state.result()["winner"]] == max(last)
