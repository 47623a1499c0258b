"""The expert's search (``cardtable.bots.search``): legal in every game, never touches the
match it searches, falls back to its policy when out of time, and finds a move its
policy would never make when the worlds say it pays."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardtable.bots import levels
from cardtable.bots.search import Sampler, choose_expert
from cardtable.bots.standing import low_wins, standing
from cardtable.engine import Action, get_game
from cardtable.engine.state import Held

GAMES = [("gin", 2, {}), ("spades", 4, {}), ("rummy", 2, {"deals": 1}),
         ("rummy500", 2, {"target": 100}), ("romme", 2, {"deals": 1}), ("indian", 2, {})]


def sampler_of(state: Any, seat: int) -> Sampler:
    """The worlds of ``seat``'s search, as the arena and the server deal them."""
    def sampler(rng: random.Random, held: Held | None = None) -> Any:
        return state.resample(seat, rng, held)
    return sampler


def advance(game: str, players: int, options: dict[str, Any], seed: int, moves: int) -> Any:
    engine = get_game(game)
    state = engine.new_match(engine.Options.from_dict(options), players, random.Random(seed))
    bot = levels.bot_for(game)
    for _ in range(moves):
        if state.is_over():
            break
        state.apply(bot(state.view(state.current_player())))
    return state


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_the_expert_plays_legal_moves_and_leaves_the_match_alone(
        game: str, players: int, options: dict[str, Any]) -> None:
    for seed in range(2):
        state = advance(game, players, options, seed, 5 + 7 * seed)
        if state.is_over():
            continue
        seat = state.current_player()
        before = state.record()
        view = state.view(seat)
        move = levels.choose(game, "expert", view, random.Random(seed),
                             sampler=sampler_of(state, seat), budget=0.05)
        assert move.to_json() in view["legal"]
        assert state.record() == before and state.view(seat) == view


def test_without_time_or_a_sampler_the_expert_plays_the_policys_move() -> None:
    state = advance("gin", 2, {}, 3, 4)
    seat = state.current_player()
    view = state.view(seat)
    hard = levels.hard_for("gin")(view)
    assert choose_expert("gin", view, sampler_of(state, seat), random.Random(1),
                         levels.hard_for("gin"), budget=0.0) == hard
    assert levels.choose("gin", "expert", view, random.Random(1)) == hard


def a_knock_position() -> tuple[Any, int]:
    """A Gin position where the seat to act may knock (seeded play with the normal bot
    told never to knock, until a knock is on offer)."""
    for seed in range(200):
        engine = get_game("gin")
        state = engine.new_match(rng=random.Random(seed))
        bot = levels.bot_for("gin")
        for _ in range(60):
            if state.is_over() or engine.only_dealing(state):
                break
            seat = state.current_player()
            view = state.view(seat)
            kinds = {a["type"] for a in view["legal"]}
            if "knock" in kinds and view["melding"]["points"] <= 4:
                return state, seat
            state.apply(never_knocks(view) if "knock" in kinds else bot(view))
    raise AssertionError("no knock position in 200 deals")


def never_knocks(view: dict[str, Any]) -> Action:
    """The normal bot, but a knock or gin is never its move: it discards instead."""
    only = {**view, "legal": [a for a in view["legal"] if a["type"] not in {"knock", "gin"}]}
    return levels.bot_for("gin")(only)


def test_the_search_finds_the_knock_its_policy_never_makes() -> None:
    state, seat = a_knock_position()
    view = state.view(seat)
    assert never_knocks(view).type == "discard"
    move = choose_expert("gin", view, sampler_of(state, seat), random.Random(7),
                         never_knocks, budget=1.0)
    # Knocking with 4 or less wins points in most worlds; a hand nobody ends scores nothing.
    assert move.type in {"knock", "gin"}, move


def test_standing_turns_penalties_round() -> None:
    assert low_wins({"game": "indian", "options": {"format": "pool"}})
    assert not low_wins({"game": "indian", "options": {"format": "points"}})
    assert low_wins({"game": "rummy", "options": {"scoring": "penalty"}})
    assert not low_wins({"game": "rummy", "options": {"scoring": "winner_takes"}})
    assert standing({"game": "rummy500", "seat": 0, "scores": [120, 80, 150]}) == -30
    assert standing({"game": "spades", "seat": 1, "sides": [[0], [1], [2]],
                     "scores": [50, 90, 60]}) == 30


# -- short rollouts judged by the game's estimate ----------------------------------------


def test_a_rollout_with_an_estimate_stops_at_the_horizon() -> None:
    from cardtable.bots.gin import hard
    from cardtable.bots.search import _Search

    state = advance("gin", 2, {}, 5, 6)
    seat = state.current_player()
    moves: list[int] = []

    def counting(view: dict[str, Any]) -> Action:
        moves.append(1)
        return hard.choose(view)

    def search(estimate: Any, world: int) -> int:
        moves.clear()
        value = _Search("gin", seat, sampler_of(state, seat), counting,
                        lambda: 0.0, 1.0, estimate, horizon=4).value(
            hard.choose(state.view(seat)), world)
        assert value is not None
        return len(moves)

    # The horizon, then at most one more move to reach the start of a turn (or less, in
    # a world where the hand ends sooner).
    short = [search(hard.estimate, world) for world in range(6)]
    assert max(short) <= 5 and 4 in short
    full = [search(None, world) for world in range(6)]  # no estimate: hands played out
    assert sum(full) > 3 * sum(short)


def test_the_gin_estimate_favours_the_lower_deadwood_and_only_judges_a_turns_start() -> None:
    from cardtable.bots.gin import hard

    state = advance("gin", 2, {}, 8, 10)
    while state.view(0)["phase"] != "draw":
        state.apply(hard.choose(state.view(state.current_player())))
    mine = hard.estimate(state.view, 0)
    theirs = hard.estimate(state.view, 1)
    assert mine is not None and theirs is not None and abs(mine + theirs) < 1e-9
    dead = [state.view(s)["melding"]["points"] for s in (0, 1)]
    if dead[0] != dead[1]:
        assert (mine > 0) == (dead[0] < dead[1]), (dead, mine)
    state.apply(hard.choose(state.view(state.current_player())))  # a draw: mid-turn
    assert hard.estimate(state.view, 0) is None


def test_with_short_rollouts_the_search_still_finds_the_knock() -> None:
    from cardtable.bots.gin import hard

    state, seat = a_knock_position()
    view = state.view(seat)
    move = choose_expert("gin", view, sampler_of(state, seat), random.Random(7),
                         never_knocks, budget=1.0, estimate=hard.estimate)
    assert move.type in {"knock", "gin"}, move


def test_a_trusted_kind_stays_the_policys_call() -> None:
    state, seat = a_knock_position()
    view = state.view(seat)
    move = choose_expert("gin", view, sampler_of(state, seat), random.Random(7),
                         never_knocks, budget=0.3, trusted=frozenset({"knock"}))
    assert move.type == "discard", move  # the knock that pays is not the search's to make
    hard = levels.hard_for("gin")
    assert "knock" in levels.hard_module("gin").TRUSTED_KINDS
    if hard(view).type == "knock":  # and the policy's own knock stands without a search
        assert choose_expert("gin", view, sampler_of(state, seat),
                             random.Random(7), hard, budget=0.3,
                             trusted=frozenset({"knock"})).type == "knock"


def test_a_policy_lost_in_a_narrowed_view_does_not_stop_the_ranking() -> None:
    from cardtable.bots.search import ranked

    state = advance("gin", 2, {}, 3, 4)
    view = state.view(state.current_player())
    legal = [Action.from_json(a) for a in view["legal"]]
    hard = levels.hard_for("gin")

    def fussy(seen: dict[str, Any]) -> Action:
        if len(seen["legal"]) < len(view["legal"]):
            raise AssertionError("a view with fewer moves than it expects")
        return hard(seen)

    chosen = ranked(view, legal, hard(view), fussy)
    assert chosen[0] == hard(view) and set(chosen) <= set(legal)
    assert {a.type for a in chosen} == {a.type for a in legal}  # one of every kind still


# -- worlds dealt from a guess, and decisions that settle early ---------------------------


def test_the_worlds_hold_what_the_guesser_guesses() -> None:
    from cardtable.bots.gin import hard

    state = advance("gin", 2, {}, 3, 30)
    seat = state.current_player()
    view = state.view(seat)
    guesses: list[list[int]] = []
    guess = hard.guess_hidden(view)

    def guesser(seen: dict[str, Any]) -> Any:
        assert seen == view  # the guess is made from the seat's view alone

        def guessing(rng: random.Random) -> Any:
            held = guess(rng)
            guesses.append(list(held[1 - seat]))
            return held
        return guessing

    dealt: list[list[int]] = []

    def sampler(rng: random.Random, held: Held | None = None) -> Any:
        world = state.resample(seat, rng, held)
        dealt.append(list(world.hands[1 - seat]))
        return world

    before = state.record()
    # a clock that moves a tick a call: a few hundred calls of thinking
    move = choose_expert("gin", view, sampler, random.Random(3), hard.choose, budget=300,
                         guesser=guesser, clock=iter(range(10**6)).__next__)
    assert move.to_json() in view["legal"] and state.record() == before
    assert guesses and len(guesses) == len(dealt)
    for guessed, hand in zip(guesses, dealt, strict=True):
        assert set(guessed) <= set(hand)


def test_a_rival_surely_worse_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.bots import search

    assert search._hopeless([-9.0, -11.0, -10.0, -10.5])
    assert not search._hopeless([-9.0, 30.0, -10.0, -10.5])
    assert not search._hopeless([-10.0, -10.0, -10.0])  # too few worlds to give a rival up
    assert search._score([9.0, 11.0, 10.0, 10.5]) > 0 >= search._score([9.0, -30.0, 10.0, 10.5])
    state = advance("gin", 2, {}, 7, 13)
    seat = state.current_player()
    view = state.view(seat)

    def worlds_used() -> tuple[Action, int]:
        worlds: list[int] = []

        def counting(rng: random.Random, held: Held | None = None) -> Any:
            worlds.append(1)
            return state.resample(seat, rng, held)

        # a clock that moves a tick a call: the same budget for both searches
        move = choose_expert("gin", view, counting, random.Random(7), levels.hard_for("gin"),
                             budget=5000, clock=iter(range(10**9)).__next__)
        return move, len(worlds)

    pruned = worlds_used()
    monkeypatch.setattr(search, "_hopeless", lambda seen: False)
    unpruned = worlds_used()
    assert pruned[0] == unpruned[0] == levels.hard_for("gin")(view)
    assert pruned[1] < unpruned[1] / 2, (pruned, unpruned)  # its time went to no rival


def test_a_guess_the_engine_refuses_leaves_the_worlds_uniform() -> None:
    from cardtable.bots.gin import hard

    state = advance("gin", 2, {}, 3, 30)
    seat = state.current_player()
    view = state.view(seat)
    mine = state.hands[seat][0]  # a card the seat holds: no world can give it to him
    asked: list[Held | None] = []

    def sampler(rng: random.Random, held: Held | None = None) -> Any:
        asked.append(held)
        return state.resample(seat, rng, held)

    move = choose_expert("gin", view, sampler, random.Random(3), hard.choose, budget=300,
                         guesser=lambda seen: lambda rng: {1 - seat: [mine]},
                         clock=iter(range(10**6)).__next__)
    assert move.to_json() in view["legal"]
    assert asked[0] == {1 - seat: [mine]}  # tried once, refused by the engine
    assert len(asked) > 1 and all(held is None for held in asked[1:])
