"""The automatic move of a timed-out turn (``cardtable.bots.autoplay``): seeded matches in
which one seat only ever times out, and fixed positions."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from cardtable.bots.autoplay import DRAWS, is_stock_draw, timeout_move
from cardtable.bots.levels import bot_for
from cardtable.engine import Action, descriptors, get_game
from cardtable.engine.cards import parse
from gin_deals import rigged as gin_rigged
from rummy_deals import rigged as rummy_rigged

# (game, players, options): short matches (few deals, low targets) keep the file quick;
# the variants reach the odd decision points (50th card, calls, empty stocks, pools).
CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("gin", 2, {"target": 50}),
    ("gin", 2, {"target": 30, "fiftieth_card": True, "stock_floor": 0}),
    ("rummy", 2, {"deals": 2}),
    ("rummy", 4, {"deals": 2, "final_discard": True, "stock_exhausted": "block"}),
    ("rummy500", 2, {"target": 150}),
    ("rummy500", 3, {"target": 150, "calling_rummy": True, "final_discard": True}),
    ("romme", 2, {"deals": 2}),
    ("romme", 4, {"deals": 1, "final_discard": True, "deal": "upcard"}),
    ("indian", 2, {}),
    ("indian", 4, {"preset": "pool101"}),
    ("indian", 3, {"preset": "deals"}),
    ("spades", 4, {"target": 150}),
    ("spades", 2, {"target": 150}),
]
SEEDS = range(3)
TIMED_OUT = 0  # the seat whose every turn runs out
PLACING = {"meld", "lay_off", "swap_joker", "knock", "gin", "big_gin", "declare"}


def only_discards(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "legal": [a for a in view["legal"] if a["type"] == "discard"]}


def play_timed_out(game: str, players: int, options: dict[str, Any], seed: int,
                   seen: Counter[str]) -> None:
    """One match: seat 0 only times out, the others are bots; every automatic move is
    checked against the rules of the timeout move, and the match must finish."""
    engine = get_game(game)
    bot = bot_for(game)
    state = engine.new_match(engine.Options.from_dict(options), players=players,
                             rng=random.Random(seed))
    misses, last = 0, None
    for _ in range(20000):
        if state.is_over():
            break
        seat = state.current_player()
        assert seat is not None
        view = state.view(seat)
        if seat != TIMED_OUT:
            action = bot(view)
        else:
            misses = misses + 1 if last != TIMED_OUT else misses  # a new turn: one more miss
            misses = max(misses, 1)
            action = timeout_move(game, view, bot, consecutive_misses=misses)
            check_move(game, view, bot, action, misses, seen)
            if action.type == "drop":
                misses = 0
        assert action in state.legal_actions(), (game, seed, action)
        state.apply(action)
        last = seat
    assert state.is_over(), f"{game} {players} {options} seed {seed} did not finish"


def check_move(game: str, view: dict[str, Any], bot: Any, action: Action, misses: int,
               seen: Counter[str]) -> None:
    legal = [Action.from_json(a) for a in view["legal"]]
    kinds = {a.type for a in legal}
    assert action in legal
    if game == "spades":
        assert action == bot(view)
        seen[action.type] += 1
        return
    if game == "indian" and misses >= 3 and "drop" in kinds:
        assert action == Action("drop")
        seen["drop"] += 1
        return
    if kinds & DRAWS:
        if "draw_stock" in kinds:
            assert is_stock_draw(game, action.to_json())
            seen["draw_stock"] += 1
        else:
            assert action == Action("pass"), f"declines a pickup: {view['legal']}"
            seen["decline"] += 1
        return
    if "discard" in kinds:
        assert action.type == "discard"
        # the bots honour a narrowed ``legal``: the card is the bot's own pick
        assert action == bot(only_discards(view))
        seen["discard"] += 1
        if bot(view).type in PLACING:
            seen["discard instead of " + bot(view).type] += 1
        return
    if "pass" in kinds:
        assert action == Action("pass")
        seen["pass"] += 1
        return
    assert action == bot(view)
    seen["bot " + action.type] += 1


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS,
                         ids=[f"{g}-{n}-{i}" for i, (g, n, _) in enumerate(CONFIGS)])
def test_a_seat_that_always_times_out_plays_legally_and_matches_finish(
        game: str, players: int, options: dict[str, Any]) -> None:
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        play_timed_out(game, players, options, seed, seen)
    if game == "spades":
        assert seen["bid"] and seen["play"]
    else:
        assert seen["draw_stock"] and seen["discard"], seen
    if game == "indian" and get_game(game).Options.from_dict(options).drop != "none":
        assert seen["drop"], seen  # every 3rd missed turn in a row
    if game in ("rummy", "rummy500", "romme"):
        assert seen["discard instead of meld"] or seen["discard instead of lay_off"], seen


def test_the_odd_decision_points_are_reached_and_declined() -> None:
    seen: Counter[str] = Counter()
    for game, players, options in CONFIGS:
        if game == "gin" or options.get("calling_rummy"):
            for seed in SEEDS:
                play_timed_out(game, players, options, seed, seen)
    assert seen["decline"], seen  # gin's first upcard
    assert seen["pass"], seen  # Rummy 500's call of a discard
    assert seen["discard instead of knock"], seen


# -- fixed positions ---------------------------------------------------------------------------


def refuse(view: dict[str, Any]) -> Action:
    raise AssertionError("the bot is not asked here")


@pytest.mark.parametrize("legal", [
    [{"type": "pass"}, {"type": "take_upcard"}],  # gin: the first upcard
    [{"type": "draw_discard"}, {"type": "pass"}],  # gin: the 50th card
    [{"type": "draw_discard"}, {"type": "draw_discard", "number": 3}, {"type": "pass"}],
    [{"type": "call"}, {"type": "pass"}],  # Rummy 500: calling Rummy
])
def test_pickups_and_calls_are_declined(legal: list[dict[str, Any]]) -> None:
    game = "rummy500" if any(a["type"] == "call" or a.get("number") for a in legal) else "gin"
    assert timeout_move(game, {"seat": 0, "legal": legal}, refuse) == Action("pass")


def test_the_stock_is_drawn_even_when_the_bot_would_take_the_pile() -> None:
    legal = [{"type": "draw_discard"}, {"type": "draw_discard", "number": 2},
             {"type": "draw_stock"}]
    for game in ("rummy", "rummy500", "romme", "gin"):
        move = timeout_move(game, {"seat": 0, "legal": legal}, refuse)
        assert move == Action("draw_stock")
        assert is_stock_draw(game, move.to_json())
    assert not is_stock_draw("rummy", {"type": "draw_discard"})
    assert not is_stock_draw("spades", {"type": "play", "card": "As"})


def test_with_only_pickups_left_the_top_card_is_taken_never_a_deeper_one() -> None:
    legal = [{"type": "draw_discard", "number": 4}, {"type": "draw_discard"}]
    assert timeout_move("rummy500", {"seat": 0, "legal": legal}, refuse) == Action("draw_discard")


def test_gin_the_bot_would_knock_but_the_timeout_discards_its_knocking_card() -> None:
    state = gin_rigged("As 2s 3s 4h 5h 6h 7c 8c 9c Kd", "Ac 2c 3d 5d 7d 9d Jh Qh Kh Qc",
                       "Ks", stock="2d")
    bot = bot_for("gin")
    for _ in range(3):  # both pass the upcard; the non-dealer draws the 2d from the stock
        seat = state.current_player()
        assert seat is not None
        state.apply(timeout_move("gin", state.view(seat), bot))
    seat = state.current_player()
    assert seat is not None
    view = state.view(seat)
    assert bot(view) == Action.parse("knock Kd")
    assert timeout_move("gin", view, bot) == Action.parse("discard Kd")


def test_rummy_the_bot_would_meld_but_the_timeout_draws_then_discards_a_loose_card() -> None:
    state = rummy_rigged(["8h 9h Th Jh 2c 2d 2s Kc Qd 5s", "Kd 3c 6s 8s Js Qc 3h 5h 9c Tc"],
                         "6d", "7h")
    bot = bot_for("rummy")
    assert timeout_move("rummy", state.view(0), bot) == Action("draw_stock")
    state.apply(Action("draw_stock"))
    view = state.view(0)
    assert bot(view).type == "meld"
    move = timeout_move("rummy", view, bot)
    assert move.type == "discard"
    assert move.card in parse("Kc Qd 5s")


def indian_draw_view(drops: str = "20/40") -> dict[str, Any]:
    engine = get_game("indian")
    state = engine.new_match(engine.Options.from_dict({"drop": drops}), players=3,
                             rng=random.Random(7))
    seat = state.current_player()
    assert seat is not None
    return state.view(seat)


def test_indian_the_third_missed_turn_in_a_row_is_a_drop() -> None:
    view = indian_draw_view()
    bot = bot_for("indian")
    assert {"type": "drop"} in view["legal"]
    assert timeout_move("indian", view, bot, consecutive_misses=1) == Action("draw_stock")
    assert timeout_move("indian", view, bot, consecutive_misses=2) == Action("draw_stock")
    assert timeout_move("indian", view, bot, consecutive_misses=3) == Action("drop")
    assert timeout_move("indian", view, bot, consecutive_misses=4) == Action("drop")
    # no drops at this table: the miss is a draw like the others
    no_drops = indian_draw_view("none")
    assert timeout_move("indian", no_drops, bot, consecutive_misses=3) == Action("draw_stock")
    # a miss counts only in Indian Rummy
    gin = {"seat": 0, "legal": [{"type": "draw_stock"}, {"type": "draw_discard"}]}
    assert timeout_move("gin", gin, refuse, consecutive_misses=5) == Action("draw_stock")


def test_spades_plays_the_bots_bid_and_card() -> None:
    engine = get_game("spades")
    state = engine.new_match(engine.Options(), players=4, rng=random.Random(3))
    bot = bot_for("spades")
    kinds = set()
    for _ in range(30):
        seat = state.current_player()
        assert seat is not None
        view = state.view(seat)
        move = timeout_move("spades", view, bot, consecutive_misses=3)
        assert move == bot(view)
        kinds.add(move.type)
        state.apply(move)
    assert {"bid", "play"} <= kinds


def test_a_bad_game_or_a_view_without_moves_is_refused() -> None:
    with pytest.raises(ValueError):
        timeout_move("okey", {"legal": [{"type": "deal"}]}, refuse)
    with pytest.raises(ValueError):
        is_stock_draw("okey", {"type": "draw_stock"})
    with pytest.raises(ValueError):
        timeout_move("gin", {"legal": []}, refuse)


def test_a_bot_mistake_still_gives_a_legal_move() -> None:
    view = {"seat": 0, "legal": [{"type": "discard", "card": "7h"},
                                 {"type": "discard", "card": "Kd"}]}
    assert timeout_move("gin", view, lambda v: Action.parse("discard 2c")) in (
        Action.parse("discard 7h"), Action.parse("discard Kd"))
    assert timeout_move("gin", {"legal": [{"type": "deal"}]},
                        lambda v: Action("pass")) == Action("deal")


def test_each_games_descriptor_says_what_its_timed_out_turn_plays() -> None:
    """``timeout: "bot"`` plays the bot's move; the rummy policy draws the descriptor's
    stock move (no list of game names decides it)."""
    bot_says = Action("pass")
    for game in descriptors():
        draw = game.stock_draw or "draw_stock"
        view = {"seat": 0, "legal": [{"type": draw}, {"type": "pass"}]}
        move = timeout_move(game.name, view, lambda v: bot_says)
        assert move == (bot_says if game.timeout == "bot" else Action(draw)), game.name
        assert is_stock_draw(game.name, {"type": draw}) == (game.stock_draw is not None)
