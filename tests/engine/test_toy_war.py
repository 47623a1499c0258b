"""War (toy), the game of tests/toy_war/: its rules, its descriptor and its bot.

Deals are rigged the way a record replays them: the recorded chance outcomes (the
first dealer, then each deck order) come first, so a test writes the deck it wants.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from cardtable.engine import GAMES, Action, Descriptor, IllegalAction, get_game, register
from cardtable.engine.cards import card, format_cards, parse
from toy_war import DESCRIPTOR, SHORT_PACK, TITLE, WarOptions, WarState
from toy_war.bot import choose


def rigged(dealer: int, hands: tuple[str, str], stock: str = "", **options: Any) -> WarState:
    """A first deal with these hands and this stock (top card first); the rest of the
    pack lies under it."""
    opts = WarOptions.from_dict(options)
    named = parse(f"{hands[0]} {hands[1]} {stock}")
    size = opts.hand_size
    seat0, seat1 = parse(hands[0]), parse(hands[1])
    assert len(seat0) == len(seat1) == size
    pack = SHORT_PACK if opts.pack == "short" else tuple(range(52))
    under = [c for c in pack if c not in named]
    first = [seat1, seat0] if dealer == 0 else [seat0, seat1]  # the non-dealer is dealt first
    order = [c for pair in zip(*first, strict=True) for c in pair]
    order += under[::-1] + parse(stock)[::-1]  # pop() takes the stock's top from the end
    return WarState.from_record({"options": opts.to_dict(), "players": 2,
                                 "chance": [dealer, format_cards(order)], "actions": []})


def play(state: WarState, *moves: str) -> list[str]:
    """Apply moves given as text; the event types they produced."""
    kinds: list[str] = []
    for move in moves:
        kinds += [e.type for e in state.apply(Action.parse(move))]
    return kinds


# -- the deal and a turn -----------------------------------------------------------------


def test_a_deal_gives_the_non_dealer_the_first_turn() -> None:
    state = rigged(0, ("Ac Kc Qc", "Ad Kd Qd"), "Th")
    assert state.hands == [parse("Ac Kc Qc"), parse("Ad Kd Qd")]
    assert state.stock[-1] == card("Th") and len(state.stock) == 20 - 6
    assert (state.current_player(), state.phase.value) == (1, "draw")
    assert state.legal_actions() == [Action("draw_stock")]
    zones = state.zones()
    assert len(zones["removed"]) == 52 - 20 and zones["public"] == []


def test_a_turn_is_a_draw_then_a_play() -> None:
    state = rigged(0, ("Ac Kc Qc", "Ad Kd Qd"), "Th Tc")
    events = state.apply(Action("draw_stock"))
    assert events[0].view(1)["card"] == "Th" and "card" not in events[0].view(0)
    assert "card" not in events[0].view(None)
    assert state.phase.value == "play" and state.current_player() == 1
    assert [str(a) for a in state.legal_actions()] == ["play Ad", "play Qd", "play Kd",
                                                       "play Th"]
    play(state, "play Th")
    assert state.view(None)["trick"] == [{"seat": 1, "card": "Th"}]
    assert (state.current_player(), state.phase.value) == (0, "draw")


def test_views_hide_the_other_hand_and_the_stock() -> None:
    state = rigged(1, ("Ac Kc Qc", "Ad Kd Qd"))
    mine, spectator = state.view(0), state.view(None)
    assert mine["hands"][0]["cards"] == ["Ac", "Qc", "Kc"]
    assert mine["hands"][1] == {"count": 3} and spectator["hands"][0] == {"count": 3}
    assert mine["legal"] == [{"type": "draw_stock"}] and state.view(1)["legal"] == []
    assert mine["stock"] == 14 and "Ad" not in str(mine)


# -- tricks ---------------------------------------------------------------------------------


def test_the_higher_card_takes_the_trick_and_its_taker_leads() -> None:
    state = rigged(0, ("Ac Kc Qc", "Ad Kd Qd"), "Th Tc Js Jh")
    play(state, "draw_stock", "play Th", "draw_stock")  # seat 1 leads Th; seat 0 draws Tc
    kinds = play(state, "play Qc")
    assert kinds == ["play", "trick"] and state.view(None)["tricks"] == [1, 0]
    assert state.view(None)["last_trick"] == [{"seat": 1, "card": "Th"},
                                              {"seat": 0, "card": "Qc"}]
    assert (state.current_player(), state.phase.value) == (0, "draw")  # a new turn: he leads


@pytest.mark.parametrize(("ties", "taker"), [("non_dealer", 1), ("leader", 0)])
def test_equal_ranks_go_by_the_ties_option(ties: str, taker: int) -> None:
    state = rigged(0, ("Ac Kc Qc", "Ad Kd Qd"), "Th Ts Jh Js", ties=ties)
    play(state, "draw_stock", "play Qd", "draw_stock", "play Ac")  # the dealer takes it
    play(state, "draw_stock", "play Kc", "draw_stock", "play Kd")  # ... leads a king: a tie
    assert state.view(None)["tricks"] == ([2, 0] if taker == 0 else [1, 1])
    assert state.current_player() == taker


def test_the_hand_ends_when_both_hands_are_empty_and_the_deal_alternates() -> None:
    state = rigged(0, ("Ac", "Kd"), hand_size=1)
    rng = random.Random(1)
    while not DESCRIPTOR.only_dealing(state):
        state.apply(rng.choice(state.legal_actions()))
    assert state.phase.value == "hand_over" and state.hands == [[], []] and not state.stock
    row = state.result()["hands"][0]
    assert sum(row["tricks"]) == 10 and row["totals"] == state.scores
    assert state.current_player() == 1  # the other player deals the next hand
    events = state.apply(Action("deal"))
    assert [e.type for e in events] == ["deal"] and state.dealer == 1
    assert state.view(None)["hand"] == 2 and state.current_player() == 0


@pytest.mark.parametrize("seed", range(6))
def test_the_match_ends_at_the_target_with_the_scores_apart(seed: int) -> None:
    state = WarState.start(WarOptions(target=15), 2, random.Random(seed))
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    result = state.result()
    rows = result["hands"]
    for row in rows[:-1]:  # no earlier hand finished it
        assert max(row["totals"]) < 15 or row["totals"][0] == row["totals"][1]
    assert max(result["scores"]) >= 15 and result["scores"] == rows[-1]["totals"]
    assert result["winner"] == result["scores"].index(max(result["scores"]))
    assert state.current_player() is None and state.legal_actions() == []


def test_a_fixed_number_of_deals_ends_the_match_level_or_not() -> None:
    level = 0
    for seed in range(40):
        state = WarState.start(WarOptions(deals=1), 2, random.Random(seed))
        rng = random.Random(seed)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
        result = state.result()
        assert len(result["hands"]) == 1 and sum(result["scores"]) == 10
        tied = result["scores"][0] == result["scores"][1]
        assert (result["winner"] is None) == tied  # a drawn match
        level += tied
    assert 0 < level < 40


# -- illegal moves ----------------------------------------------------------------------


@pytest.mark.parametrize(("move", "reason"), [
    ("play Ac", "draw from the stock first"),
    ("discard Ac", "'discard' is not a move in War (toy)"),
    ("deal", "not allowed now (draw)"),
])
def test_illegal_moves_say_why_and_change_nothing(move: str, reason: str) -> None:
    state = rigged(1, ("Ac Kc Qc", "Ad Kd Qd"))
    before = state.record(), state.view(0)
    with pytest.raises(IllegalAction, match=re.escape(reason)):
        state.apply(Action.parse(move))
    assert (state.record(), state.view(0)) == before


def test_a_card_not_held_cannot_be_played() -> None:
    state = rigged(1, ("Ac Kc Qc", "Ad Kd Qd"))
    play(state, "draw_stock")
    with pytest.raises(IllegalAction, match="you do not hold that card"):
        state.apply(Action("play", card=card("Ad")))


# -- resample ---------------------------------------------------------------------------


def test_resample_keeps_what_the_seat_knows_and_redeals_the_rest() -> None:
    state = rigged(0, ("Ac Kc Qc", "Ad Kd Qd"), "Th Tc")
    play(state, "draw_stock", "play Ad", "draw_stock")
    twins = [state.resample(0, random.Random(seed)) for seed in range(8)]
    for twin in twins:
        assert twin.view(0) == state.view(0)
        assert sorted(twin.hands[1] + twin.stock) == sorted(state.hands[1] + state.stock)
        twin.apply(twin.legal_actions()[0])  # the copy plays on alone
    assert state.view(0)["legal"] and len(state.hands[0]) == 4
    assert len({tuple(t.hands[1]) for t in twins}) > 1


# -- the descriptor and the bot ----------------------------------------------------------


def test_the_module_registers_its_game() -> None:
    assert "toy_war" in GAMES and get_game("toy_war") is DESCRIPTOR
    assert (DESCRIPTOR.title, DESCRIPTOR.players, DESCRIPTOR.board) == (TITLE, (2,), False)
    assert DESCRIPTOR.presets == ["standard", "quick", "full_pack"]
    assert register(DESCRIPTOR) is DESCRIPTOR  # importing twice is harmless
    with pytest.raises(ValueError, match="already registered"):
        register(Descriptor(WarState, title="Another war", players=(2,), bot="toy_war.bot"))
    assert WarOptions() == WarOptions.preset("standard")
    assert WarOptions.preset("quick").hand_size == 1


def test_the_descriptor_answers_the_servers_questions() -> None:
    assert DESCRIPTOR.same_turn("draw_stock")  # the play that follows is the same turn
    assert not DESCRIPTOR.same_turn("play")  # a trick taken and led again: a new turn
    assert not DESCRIPTOR.same_turn("deal")
    assert DESCRIPTOR.is_stock_draw({"type": "draw_stock"})
    assert not DESCRIPTOR.is_stock_draw({"type": "play", "card": "Ac"})
    assert DESCRIPTOR.teams(2) == [[0], [1]] and DESCRIPTOR.timeout == "bot"
    state = DESCRIPTOR.new_match(rng=random.Random(1))
    assert isinstance(state, WarState) and not DESCRIPTOR.only_dealing(state)
    with pytest.raises(ValueError, match="2 players"):
        DESCRIPTOR.new_match(players=3, rng=random.Random(1))
    assert DESCRIPTOR.replay(state.record()).view(None) == state.view(None)


def test_the_bot_takes_a_trick_as_cheaply_as_it_can() -> None:
    state = rigged(0, ("Ac Kc Tc", "Ad Kd Qd"), "Th Ts")
    play(state, "draw_stock", "play Qd", "draw_stock")  # seat 0 draws Ts
    assert choose(state.view(0)) == Action("play", card=card("Kc"))
    play(state, "play Kc")  # seat 0 took the trick and leads
    assert choose(state.view(0)) == Action("draw_stock")
    play(state, "draw_stock")
    assert choose(state.view(0)).card in parse("Tc Ts")  # leading: its lowest card


def test_the_bot_throws_its_lowest_card_when_it_cannot_win() -> None:
    state = rigged(0, ("Tc Jc Qc", "Ad Kd Qd"), "Th Ts")
    play(state, "draw_stock", "play Ad", "draw_stock")
    assert choose(state.view(0)).card in parse("Tc Ts")


def test_the_bot_beats_a_random_player() -> None:
    wins = 0
    for seed in range(20):
        state = WarState.start(WarOptions(), 2, random.Random(seed))
        rng = random.Random(-seed)
        while not state.is_over():
            seat = state.current_player()
            legal = state.legal_actions()
            state.apply(choose(state.view(seat)) if seat == 0 else rng.choice(legal))
        wins += state.result()["winner"] == 0
    assert wins >= 14
