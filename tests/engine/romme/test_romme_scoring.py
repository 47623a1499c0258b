"""Rommé scoring options and the end of the match: fixed deals, a limit, elimination."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.engine import Action
from cardtable.engine.cards import parse
from cardtable.engine.games import romme
from romme_deals import act, rigged


def settled(hands: list[str], came_out: list[bool], winner: int | None = 0,
            hand_romme: bool = False, **options: object) -> dict[str, object]:
    """The scorecard row of a hand that ends with these hands (winner's first: empty)."""
    state = romme.new_match(romme.Options.from_dict(options), len(hands), random.Random(1))
    state.hands = [parse(h) for h in hands]
    state.has_melded = list(came_out)
    if winner is not None:
        state.laid_earlier[winner] = not hand_romme
    state._end_hand(winner)
    return state.history[-1]


# -- penalties -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "points"), [
    ({}, [0, 40, 12]),
    ({"ace_penalty": 15}, [0, 44, 12]),
    ({"joker_penalty": 25}, [0, 45, 12]),
    ({"joker_penalty": 30}, [0, 50, 12]),
    ({"preset": "dskv_online"}, [0, 45, 12]),
    ({"winner_scores": "sum"}, [-52, 40, 12]),
])
def test_penalty_values(options: dict[str, object], points: list[int]) -> None:
    row = settled(["", "Jk Ac 9h", "Ks 2d"], [True, True, True], **options)
    assert row["points"] == points


@pytest.mark.parametrize(("never_out", "hand_romme", "points"), [
    ("hand", False, [0, 40, 12]),
    ("fixed_100", False, [0, 100, 12]),
    ("double", False, [0, 80, 12]),
    ("fixed_100", True, [0, 200, 24]),  # Hand-Rommé doubles every penalty
])
def test_a_loser_who_never_came_out(never_out: str, hand_romme: bool,
                                    points: list[int]) -> None:
    row = settled(["", "Jk Ac 9h", "Ks 2d"], [True, False, True], hand_romme=hand_romme,
                  never_out=never_out)
    assert row["points"] == points and row["came_out"] == [True, False, True]


def test_hand_romme_multiplier_off() -> None:
    row = settled(["", "Jk Ac 9h", "Ks 2d"], [True, True, True], hand_romme=True,
                  hand_romme_multiplier=1)
    assert row["hand_romme"] and row["points"] == [0, 40, 12]


def test_a_blocked_hand_everyone_counts() -> None:
    row = settled(["7c", "Jk Ac 9h", "Ks 2d"], [True, True, False], winner=None)
    assert row["blocked"] and row["points"] == [7, 40, 12]


# -- the end of the match --------------------------------------------------------------------------


def play_out(state: romme.RommeState, seed: int = 0) -> None:
    """Meld and lay off whenever possible, else a random move: hands end quickly."""
    rng = random.Random(seed)
    while not state.is_over():
        legal = state.legal_actions()
        eager = [a for a in legal if a.type in ("meld", "lay_off", "swap_joker")]
        state.apply(rng.choice(eager or legal))


@pytest.mark.parametrize(("players", "deals", "expected"), [(2, 0, 2), (3, 0, 3), (2, 3, 3)])
def test_a_fixed_number_of_deals(players: int, deals: int, expected: int) -> None:
    state = romme.new_match(romme.Options(deals=deals), players, random.Random(players))
    first = state.dealer
    play_out(state)
    dealers = [row["dealer"] for row in state.history]
    assert dealers == [(first + k) % players for k in range(expected)]  # each deals in turn
    result = state.result()
    assert result["winners"] == [s for s in range(players) if state.scores[s] == min(state.scores)]


# seat 0 (dealer)  Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc | 2d    out in his opening turn
# seat 1           Jk Ah 9h | 5s 6s 7s 8s | Kd Kh | 2h 3h 4d 6d    = 101
# seat 2           Ks 2s 3s 4s 5d 7d 8d 9d Td Jd Qd Ad 3d          = 92
OUT_AT_ONCE = ["Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d",
               "Jk Ah 9h 5s 6s 7s 8s Kd Kh 2h 3h 4d 6d",
               "Ks 2s 3s 4s 5d 7d 8d 9d Td Jd Qd Ad 3d"]
CLUBS = "meld melds=Ac2c3c4c5c6c7c8c9cTcJcQcKc"


@pytest.mark.parametrize(("target", "over"), [(150, True), (500, False)])
def test_a_limit_ends_the_match_when_a_total_passes_it(target: int, over: bool) -> None:
    state = rigged(OUT_AT_ONCE, options={"end": "limit", "target": target})
    act(state, CLUBS, "discard 2d")  # Hand-Rommé: 202 and 184
    assert state.is_over() is over
    if over:
        assert state.result()["winners"] == [0]
    else:
        assert state.current_player() == 1 and state.legal_actions() == [Action("deal")]


def test_elimination_skips_the_seat_in_the_deal_and_the_turn() -> None:
    options = {"end": "elimination", "hand_romme_multiplier": 1}
    state = rigged(OUT_AT_ONCE, options=options, more_deals=1)
    state.scores = [0, 100, 0]
    act(state, CLUBS, "discard 2d")  # seat 1: 100 + 101; seat 2: 92
    assert state.eliminated == [1] and state.view(None)["eliminated"] == [1]
    assert not state.is_over() and state.current_player() == 2  # seat 1 cannot deal
    act(state, "deal")
    assert [len(h) for h in state.hands] == [13, 0, 14]
    assert state.current_player() == 2
    state.apply(Action("discard", card=state.hands[2][0]))
    assert state.current_player() == 0
    act(state, "draw_stock")
    state.apply(Action("discard", card=state.hands[0][-1]))
    assert state.current_player() == 2  # past seat 1
    state._end_hand(0)  # seat 0 goes out; seat 2's 92 + its hand passes 101
    assert state.is_over() and state.result()["winners"] == [0]
    assert state.result()["eliminated"] == [1, 2]


def test_when_the_last_players_go_out_together_the_lowest_wins() -> None:
    row = settled(["Kc", "2c"], [True, True], winner=None, end="elimination")
    assert row["eliminated"] == []  # not yet: 10 and 2
    state = romme.new_match(romme.Options(end="elimination"), 2, random.Random(1))
    state.scores = [95, 99]
    state.hands = [parse("Kc"), parse("2c")]
    state._end_hand(None)  # a blocked hand: 105 and 101
    assert state.is_over() and state.result()["winners"] == [1]


# -- records ---------------------------------------------------------------------------------------


def test_replay_rebuilds_the_match() -> None:
    state = romme.new_match(romme.Options(end="elimination", eliminate_at=60), 4,
                            random.Random(9))
    play_out(state, seed=9)
    record = json.loads(json.dumps(state.record()))
    again = romme.replay(record)
    assert again.view(None) == state.view(None) and again.result() == state.result()
    with pytest.raises(ValueError):
        romme.replay({**record, "game": "rummy"})
