"""Indian Rummy: presets and options, the pool and deals formats, pagat's differences."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardtable.engine import Action
from cardtable.engine.cards import JOKER
from cardtable.engine.games import indian
from cardtable.engine.games.indian import IndianState, Options, Phase
from cardtable.engine.games.indian.scoring import EXTRA_DEALS, Standing
from indian_deals import LOSER_A, WINNER, act, rigged


def test_presets_and_option_checks() -> None:
    assert Options() == Options.preset("points")
    assert Options.preset("pool201").drops == (25, 50)
    pool61 = Options.preset("pool61")
    assert (pool61.target, pool61.drops, pool61.wrong_show) == (61, (15, 30), 60)
    assert Options.preset("deals").drops is None
    assert Options.preset("pagat").direction == "anticlockwise"
    with pytest.raises(ValueError, match="drop"):
        Options.from_dict({"drop": "30/60"})
    with pytest.raises(ValueError, match="decks"):
        indian.new_match(Options(decks=1), 3, random.Random(0))
    with pytest.raises(ValueError, match="decks"):
        indian.new_match(Options(decks=3), 4, random.Random(0))


def play_randomly(state: IndianState, rng: random.Random, limit: int = 20_000) -> None:
    full = Counter(state.full_deck())
    for _ in range(limit):
        zones = state.zones()
        held = [c for h in zones["hands"] for c in h]
        assert Counter(held + zones["stock"] + zones["face_down"] + zones["public"]) == full
        if state.is_over():
            return
        legal = state.legal_actions()
        quiet = [a for a in legal if a.type not in ("drop", "declare")]
        state.apply(rng.choice(quiet if quiet and rng.random() < 0.97 else legal))
    raise AssertionError("the match did not end")


@pytest.mark.parametrize(("decks", "players"), [(1, 2), (3, 5), (3, 6)])
def test_one_and_three_packs(decks: int, players: int) -> None:
    # the conformance suite's pack model stops at two packs: the cards are counted here
    state = indian.new_match(Options(decks=decks, format="pool", target=120), players,
                             random.Random(decks * 10 + players))
    assert len(state.full_deck()) == 53 * decks
    assert state.full_deck().count(JOKER) == decks
    play_randomly(state, random.Random(1))


def test_pool_knocks_players_out_until_one_is_left() -> None:
    # pool 61, three players: seat 0 drops at once in every deal (15 each time)
    state = indian.new_match(Options.preset("pool61"), 3, random.Random(4))
    rng = random.Random(2)
    while not state.standing.out[0]:
        if state.to_act == 0 and state.phase is Phase.DRAW:
            act(state, "drop")
        else:
            legal = state.legal_actions()
            state.apply(next((a for a in legal if a.type == "deal"),
                             rng.choice([a for a in legal if a.type != "drop"] or legal)))
    assert state.standing.totals[0] >= 61
    view = state.view(1)
    assert view["format"]["eliminated"][0] is True
    while not state.is_over():
        assert state.to_act != 0  # an eliminated player neither deals nor plays
        if state.phase is Phase.DRAW:
            assert state.status[0] == "out" and state.hands[0] == []
        state.apply(rng.choice(state.legal_actions()))
    winners = state.result()["winners"]
    assert len(winners) == 1 and not state.standing.out[winners[0]]


def test_the_pool_winner_is_the_last_player_under_the_target() -> None:
    standing = Standing(Options.preset("pool101"), 3)
    standing.settle([0, 60, 101], 0)
    assert standing.out == [False, False, True] and standing.winners([0, 1, 2]) is None
    standing.settle([45, 0, None], 1)
    assert standing.winners([0, 1]) is None
    standing.settle([0, 80, None], 0)
    assert standing.winners([0, 1]) == [0]


def test_deals_lowest_total_wins_and_a_tie_plays_another_deal() -> None:
    standing = Standing(Options.preset("deals"), 2)
    standing.settle([0, 30], 0)
    assert standing.winners([0, 1]) is None
    standing.settle([30, 0], 1)
    assert standing.winners([0, 1]) is None  # 30 each after two deals: one more
    standing.settle([12, 0], 1)
    assert standing.winners([0, 1]) == [1]
    tied = Standing(Options.preset("deals"), 2)
    for _ in range(2 + EXTRA_DEALS):
        tied.settle([0, 0], None)
    assert tied.winners([0, 1]) == [0, 1]  # the tie-breaks ran out: both share the win


def test_a_deals_match_plays_its_deals() -> None:
    state = indian.new_match(Options.preset("deals"), 3, random.Random(8))
    assert Action("drop") not in state.legal_actions()
    play_randomly(state, random.Random(3))
    assert state.standing.deals_played >= 2
    totals = state.result()["totals"]
    assert state.result()["winners"] == [s for s, t in enumerate(totals) if t == min(totals)]


def test_pagat_plays_anticlockwise_and_pays_a_first_turn_show_at_half_rate() -> None:
    # pagat: a show on one's first draw is paid at half rate; counts round to the nearest 5.
    # seat 0: 3h 4h 5h 6h | Tc Jc Qc | Kc Kd Kh | 2c 2d + 2s drawn | 8c to the finish slot
    # seat 1: Kc 4d 9s 9h 7h Jk 8c 2d 6s 5c 4s 2h 3c: no pure sequence, 62 -> 60 -> half 30
    state = rigged([WINNER, "Kc 4d 9s 9h 7h Jk 8c 2d 6s 5c 4s 2h 3c"], "7c", "9d", "2s",
                   options={"preset": "pagat"})
    act(state, "draw_stock", "declare 8c")
    row = state.history[-1]
    assert row["half_rate"] and row["points"] == [0, 30]
    three = rigged([WINNER, LOSER_A, "Ac Ad 3d 4d 6c Tc Th Ts Jh Js Ad 6d 6h"], "7c", "9d",
                   "5d", options={"preset": "pagat"})
    act(three, "draw_stock", "discard 5d")
    assert three.to_act == 2  # anticlockwise: from seat 0 to seat 2


def test_a_printed_joker_cut_makes_aces_wild_online_and_nothing_in_pagat() -> None:
    hand = "2c 3c 4c 6d Ah 8d Qs Qh Qd 9c 9d 9s Kc"
    other = "Ac 3d 5c 7d 9h Jd Ks 2h 4d 6s 8s Th Jh"
    online = rigged([hand, other], "Jk", "5h", "9h")
    assert online.view(0)["wild"] == {"card": "Jk", "rank": "A"}
    act(online, "draw_stock", "declare Kc")  # Ah stands for the 7d
    assert online.history[-1]["winner"] == 0
    pagat = rigged([hand, other], "Jk", "5h", "9h", options={"printed_joker_cut":
                                                             "no_extra_wild"})
    assert pagat.view(0)["wild"]["rank"] is None
    act(pagat, "draw_stock", "declare Kc")
    assert pagat.status[0] == "wrong_show" and pagat.history[-1]["winner"] == 1
