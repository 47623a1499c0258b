"""Computer levels (``cardtable.bots.levels``): seeded matches of every game with easy and
normal seats, and the easy level's slips in fixed positions."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from cardtable.bots import levels
from cardtable.bots.levels import LEVELS, alternatives, bot_for, choose
from cardtable.engine import GAMES, Action, descriptors, get_game
from cardtable.engine.cards import JOKER, RANKS

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("gin", 2, {"target": 50}),
    ("rummy", 3, {"deals": 2}),
    ("rummy500", 2, {"target": 150}),
    ("romme", 3, {"deals": 1}),
    ("indian", 3, {"preset": "pool101"}),
    ("indian", 2, {}),
    ("spades", 4, {"target": 150}),
    ("spades", 3, {"target": 150}),
]
SEEDS = range(3)
SLIPPING = {"discard", "play", "bid"}  # the only kinds of move an easy computer changes


def is_joker(game: str, view: dict[str, Any], card: int | None) -> bool:
    if card is None:
        return False
    wild = (view.get("wild") or {}).get("rank") if game == "indian" else None
    return card >= JOKER or (wild is not None and card % 13 == RANKS.index(wild))


def check_easy(game: str, view: dict[str, Any], easy: Action, best: Action) -> None:
    """An easy move is the bot's, or a looser one of the same kind, or (Rummy 500, Rommé)
    a chance overlooked: the stock for a pickup, the discard for an unseen meld; never a
    rash one."""
    if easy.type != best.type:
        assert game in {"rummy500", "romme"}, (easy, best)
        assert (best.type, easy.type) in {("draw_discard", "draw_stock"), ("meld", "discard"),
                                          ("lay_off", "discard")}, (easy, best)
        return
    if easy.type not in SLIPPING:
        assert easy == best  # no random drop, knock, declare, meld, pickup, blind nil ...
    if easy.type == "bid":
        assert easy.number is not None and best.number is not None
        assert abs(easy.number - best.number) <= 1
        assert easy.number != 0 or best.number == 0  # nil only the bot's own
    if easy.type == "discard" and easy != best:
        assert not is_joker(game, view, easy.card)


def play(game: str, players: int, options: dict[str, Any], seed: int,
         seen: Counter[str]) -> list[Action]:
    """One match: even seats easy, odd seats normal, every move checked; the moves made."""
    engine = get_game(game)
    bot = bot_for(game)
    state = engine.new_match(engine.Options.from_dict(options), players=players,
                             rng=random.Random(seed))
    rng = random.Random(1000 + seed)
    moves = []
    for _ in range(20000):
        if state.is_over():
            break
        seat = state.current_player()
        assert seat is not None
        view = state.view(seat)
        best = bot(view)
        if seat % 2 == 0:
            action = choose(game, "easy", view, rng)
            check_easy(game, view, action, best)
            seen["easy"] += 1
            seen["slip"] += action != best
        else:
            action = choose(game, "normal", view, rng)
            assert action == best  # normal is the game's bot as is
        assert action in state.legal_actions(), (game, seed, action)
        state.apply(action)
        moves.append(action)
    assert state.is_over(), f"{game} {players} {options} seed {seed} did not finish"
    return moves


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS,
                         ids=[f"{g}-{n}-{i}" for i, (g, n, _) in enumerate(CONFIGS)])
def test_easy_and_normal_computers_play_legal_moves_and_finish(
        game: str, players: int, options: dict[str, Any]) -> None:
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        play(game, players, options, seed, seen)
    assert seen["slip"] > 0, seen  # easy differs from the bot sometimes ...
    assert seen["slip"] < 0.35 * seen["easy"], seen  # ... but not at every move


def test_a_seeded_easy_computer_plays_the_same_match_again() -> None:
    first = play("gin", 2, {"target": 30}, 5, Counter())
    assert play("gin", 2, {"target": 30}, 5, Counter()) == first


def test_levels_and_their_errors() -> None:
    assert LEVELS == ("easy", "normal", "hard", "expert")
    assert set(levels.BOT_MODULES) == set(GAMES)  # a computer for every game
    view = {"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]}
    with pytest.raises(ValueError, match="level"):
        choose("gin", "grandmaster", view, random.Random(0))
    for level in LEVELS:  # a lone legal move is every level's move
        assert choose("gin", level, view, random.Random(0)) == Action("deal")
    for descriptor in descriptors():  # every game names a hard player that loads
        assert callable(levels.hard_for(descriptor.name))
    with pytest.raises(ValueError):
        choose("okey", "easy", view, random.Random(0))
    with pytest.raises(ValueError):
        bot_for("chess")


def gin_discard_view() -> dict[str, Any]:
    engine = get_game("gin")
    state = engine.new_match(engine.Options(), players=2, rng=random.Random(4))
    bot = bot_for("gin")
    while True:
        seat = state.current_player()
        assert seat is not None
        view = state.view(seat)
        if all(a["type"] == "discard" for a in view["legal"]) and len(view["legal"]) > 5:
            return view
        state.apply(bot(view))


def test_easy_slips_about_a_third_of_the_time_to_another_legal_discard() -> None:
    view = gin_discard_view()
    best = bot_for("gin")(view)
    rng = random.Random(11)
    moves = [choose("gin", "easy", view, rng) for _ in range(400)]
    slips = [m for m in moves if m != best]
    assert 0.25 < len(slips) / len(moves) < 0.45
    assert all(m.type == "discard" and m.to_json() in view["legal"] for m in slips)
    assert len(set(slips)) > 2  # any other card, not one fixed second choice
    assert all(choose("gin", "normal", view, rng) == best for _ in range(20))


def bids(*numbers: int) -> list[dict[str, Any]]:
    return [{"type": "bid", "number": n} for n in numbers]


def test_spades_bids_stay_within_one_of_the_bots_and_nil_is_never_a_slip() -> None:
    view = {"seat": 1, "bids": [2, None, None, None], "legal": bids(*range(14))}
    assert alternatives("spades", view, Action("bid", number=4)) == [
        Action("bid", number=3), Action("bid", number=5)]
    assert alternatives("spades", view, Action("bid", number=1)) == [Action("bid", number=2)]
    assert alternatives("spades", view, Action("bid", number=0)) == [Action("bid", number=1)]
    narrow = {**view, "legal": bids(4, 5, 6)}  # a minimum side bid leaves fewer
    assert alternatives("spades", narrow, Action("bid", number=4)) == [Action("bid", number=5)]


def test_spades_cards_slip_except_for_a_nil_bidder() -> None:
    legal = [{"type": "play", "card": c} for c in ("2h", "9h", "Ah")]
    view = {"seat": 0, "bids": [3, 2, 4, 1], "legal": legal}
    assert alternatives("spades", view, Action.parse("play 2h")) == [
        Action.parse("play 9h"), Action.parse("play Ah")]
    nil = {**view, "bids": [0, 2, 4, 1]}
    assert alternatives("spades", nil, Action.parse("play 2h")) == []


def test_jokers_and_wild_cards_are_never_thrown_by_a_slip() -> None:
    legal = [{"type": "discard", "card": c} for c in ("Jk", "5h", "7c", "Kd")]
    romme = {"seat": 0, "legal": legal}
    assert Action.parse("discard Jk") not in alternatives("romme", romme, Action.parse(
        "discard Kd"))
    indian = {"seat": 0, "wild": {"card": "7s", "rank": "7"}, "legal": legal}
    assert alternatives("indian", indian, Action.parse("discard Kd")) == [
        Action.parse("discard 5h")]
    # the bot threw a joker itself (nothing else may go): other cards are no worse
    assert len(alternatives("indian", indian, Action.parse("discard Jk"))) == 3


@pytest.mark.parametrize(("game", "best", "legal"), [
    ("indian", "drop", [{"type": "draw_stock"}, {"type": "draw_discard"}, {"type": "drop"}]),
    ("indian", "draw_stock", [{"type": "draw_stock"}, {"type": "draw_discard"},
                              {"type": "drop"}]),
    ("indian", "declare 5h", [{"type": "declare", "card": "5h"},
                              {"type": "declare", "card": "7c"},
                              {"type": "discard", "card": "5h"}]),
    ("gin", "knock 9c", [{"type": "knock", "card": "9c"}, {"type": "knock", "card": "8c"},
                         {"type": "discard", "card": "9c"}]),
    ("spades", "blind_nil", [{"type": "blind_nil"}, {"type": "look"}]),
])
def test_no_slip_where_a_random_move_would_be_rash(game: str, best: str,
                                                   legal: list[dict[str, Any]]) -> None:
    assert alternatives(game, {"seat": 0, "legal": legal}, Action.parse(best)) == []


def test_an_easy_rummy500_computer_may_miss_a_pickup_but_never_digs_deeper() -> None:
    legal = [{"type": "draw_discard"}, {"type": "draw_discard", "number": 5},
             {"type": "draw_stock"}]
    assert alternatives("rummy500", {"seat": 0, "legal": legal},
                        Action("draw_discard")) == [Action("draw_stock")]


def test_bot_modules_and_slips_come_from_each_games_own_modules() -> None:
    assert dict(levels.BOT_MODULES) == {game.name: game.bot for game in descriptors()}
    for game in descriptors():
        module = levels.bot_module(game.name)
        assert bot_for(game.name) is module.choose
        # A bot module without a ``slips`` hook never slips but on discards.
        if not hasattr(module, "slips"):
            legal = [{"type": "play", "card": c} for c in ("2h", "9h")]
            assert alternatives(game.name, {"seat": 0, "legal": legal},
                                Action.parse("play 2h")) == []
