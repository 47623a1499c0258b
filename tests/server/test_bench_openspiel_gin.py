"""``bench/openspiel_gin.py``: OpenSpiel's simple Gin bot seated in our engine's matches.

Real pyspiel and our real engine throughout; hands are rigged through a replayed deck.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from cardtable.engine.api import Action  # noqa: E402 (skipped above without pyspiel)
from cardtable.engine.cards import format_cards, parse  # noqa: E402
from cardtable.engine.games import gin  # noqa: E402
from cardtable.engine.games.gin import GinState, Phase  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """bench/openspiel_gin.py loaded by its path alone, as the arena's plug-in loader does."""
    spec = importlib.util.spec_from_file_location("cardtable_bench_openspiel_gin",
                                                  BENCH_DIR / "openspiel_gin.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def rigged(bench: ModuleType, non_dealer: str, dealer_hand: str, upcard: str,
           stock: str = "") -> GinState:
    """A new match (OpenSpiel's rules) whose first deal is these cards; seat 0 deals."""
    first, second, up, top = parse(non_dealer), parse(dealer_hand), parse(upcard), parse(stock)
    rest = [c for c in range(52) if c not in {*first, *second, *up, *top}]
    deck = [c for pair in zip(first, second, strict=True) for c in pair] + up + top + rest
    record: dict[str, Any] = {"game": "gin", "options": bench.openspiel_options().to_dict(),
                              "players": 2, "chance": [0, format_cards(deck)], "actions": []}
    state = gin.replay(record, random.Random(0))
    assert state.dealer == 0 and sorted(state.hands[1]) == sorted(first)
    return state


def test_every_card_round_trips_and_keeps_its_name(bench: ModuleType) -> None:
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    theirs = {bench.to_openspiel(card) for card in range(52)}
    assert theirs == set(range(52))
    for card in range(52):
        assert bench.from_openspiel(bench.to_openspiel(card)) == card
        assert utils.card_string(bench.to_openspiel(card)) == format_cards([card])


def test_the_options_are_openspiels_rules(bench: ModuleType) -> None:
    options = bench.openspiel_options()
    assert (options.gin_bonus, options.undercut_bonus, options.big_gin_bonus) == (25, 25, 0)
    assert not options.undercut_on_tie and options.fiftieth_card
    assert bench.rule_differences(options) == []
    assert bench.rule_differences(gin.Options()) != []  # big gin 31, ties undercut...
    flags = bench.arena_flags()
    assert flags[:2] == ["--set", "gin_bonus=25"] and "undercut_on_tie=false" in flags


def test_matches_play_to_the_end_without_an_illegal_move(bench: ModuleType) -> None:
    options = bench.openspiel_options(target=50)
    player = bench.SimpleGinBot("gin", options)
    for i in range(4):  # play_match applies every move checked: an illegal one raises
        state = bench.play_match(player, seed=i // 2, openspiel_seat=i % 2, options=options)
        assert state.is_over()
    assert player.decisions > 100
    assert not [key for key in player.counts if key.startswith("fallback")]


def test_the_overcounted_hand_is_handled_and_counted(bench: ModuleType) -> None:
    # OpenSpiel's bot (non-dealer, seat 1) draws 7c: 3s 5s 6s 4c 5c 6c 7c 6d 3h 5h 6h.
    # Its min-deadwood says 11, so it does not knock; ours says 10 (5s 5c 5h, 6s 6c 6d 6h,
    # throw 7c), so our rules offered a knock.
    state = rigged(bench, "3s 5s 6s 4c 5c 6c 6d 3h 5h 6h", "2c 8c 9c Tc Jc 2d 8d 9d Td Jd",
                   upcard="Kd", stock="7c")
    player = bench.SimpleGinBot("gin", bench.openspiel_options())
    # Its ten cards already hold 10 deadwood (3s 3h 4c): it would take Kd to knock throwing
    # it straight back, which our rules forbid, so it passes.
    assert player.choose(state, 1) == Action("pass")
    state.apply(Action("pass"))
    state.apply(Action("pass"))  # the dealer passes too
    assert player.choose(state, 1) == Action("draw_stock")
    state.apply(Action("draw_stock"))
    assert state.phase is Phase.DISCARD and Action("knock", card=parse("7c")[0]) in \
        state.legal_actions()
    move = player.choose(state, 1)
    assert move.type == "discard" and move in state.legal_actions()
    assert player.counts["overcount"] == 1
    assert player.counts["overcount_missed_knock"] == 1


def test_a_gin_against_the_openspiel_seat_is_scored_and_counted(bench: ModuleType) -> None:
    # The dealer (seat 0, moved by hand here) holds As 2s 3s, 4c 5c 6c, 7h 8h 9h Th and gins
    # on its first draw; OpenSpiel's seat holds Jc Qc Kc, which it does not lay against gin.
    state = rigged(bench, "Jc Qc Kc 2d 4d 6d 8d 2h 4h 9c", "As 2s 3s 4c 5c 6c 7h 8h 9h Th",
                   upcard="Kd", stock="Ks Qd")
    player = bench.SimpleGinBot("gin", bench.openspiel_options())
    for _ in range(2):
        move = player.choose(state, 1)
        state.apply(move)
        if state.to_act == 0:
            break
    assert state.to_act == 0
    if state.phase is Phase.FIRST_UPCARD:  # OpenSpiel's seat passed the upcard: so do we
        state.apply(Action("pass"))
        state.apply(player.choose(state, 1))  # it must draw from the stock now
        state.apply(player.choose(state, 1))  # and discard
    state.apply(Action("draw_stock"))
    drawn = state.hands[0][-1]
    state.apply(Action("gin", card=drawn))
    assert state.history[-1]["kind"] == "gin" and state.history[-1]["winner"] == 0
    assert state.phase is Phase.HAND_OVER
    counts = player.counts
    assert counts["passed_before_gin_melds"] == 1
    assert not [key for key in counts if key.startswith("fallback")]
    # The match goes on: the OpenSpiel seat deals (or plays) the next hand.
    if state.to_act == 1:
        assert player.choose(state, 1) == Action("deal")


def test_a_knock_at_the_wall_takes_the_last_discard_then_knocks(bench: ModuleType) -> None:
    # OpenSpiel's seat deals (seat 0): 3c 4c 5c, 7d 8d 9d, 2h 3h, Ks Qs. Both sides throw
    # what they draw until the stock is at the wall; the last discard, 4h, lets it knock.
    mine, theirs, upcard = "3c 4c 5c 7d 8d 9d 2h 3h Ks Qs", "Ac 2c Jc Td Jh Qh 6s 8s Tc Kd", "Kh"
    used = set(parse(f"{mine} {theirs} {upcard} 4h"))
    filler = [c for c in range(52) if c not in used][:28]
    state = rigged(bench, theirs, mine, upcard, stock=f"{format_cards(filler)} 4h")
    player = bench.SimpleGinBot("gin", bench.openspiel_options())
    state.apply(Action("pass"))
    state.apply(player.choose(state, 0))  # Kh: it passes too
    while state.phase is Phase.DRAW:
        state.apply(Action("draw_stock"))
        state.apply(Action("discard", card=state.hands[state.to_act or 0][-1]))
    assert state.phase is Phase.FINAL_DISCARD and state.to_act == 0 and len(state.stock) == 2
    assert player.choose(state, 0) == Action("draw_discard")
    state.apply(Action("draw_discard"))
    move = player.choose(state, 0)
    assert move == Action("knock", card=parse("Ks")[0])  # its highest unmatched card
    state.apply(move)
    assert state.history[-1]["kind"] == "knock" and state.history[-1]["knocker_seat"] == 0
    assert player.counts["wall_knocks"] == 1
    assert not [key for key in player.counts if key.startswith("fallback")]


def test_taking_the_upcard_to_throw_it_back_becomes_a_stock_draw(bench: ModuleType) -> None:
    # Its ten cards hold 10 deadwood (2h 3h 5h): OpenSpiel lets it take the Jc upcard and
    # knock throwing the Jc straight back. Our rules need a draw first: it passes the upcard.
    state = rigged(bench, "3c 4c 5c 6c 7d 8d 9d 2h 3h 5h", "Ac 2c Jh Td Qh Qd 6s 8s Tc Kd",
                   upcard="Jc", stock="Ks")
    player = bench.SimpleGinBot("gin", bench.openspiel_options())
    assert player.choose(state, 1) == Action("pass")
    assert player.counts == {"upcard_thrown_back": 1}
    state.apply(Action("pass"))
    state.apply(Action("pass"))
    assert player.choose(state, 1) == Action("draw_stock")
    state.apply(Action("draw_stock"))
    assert player.choose(state, 1) == Action("knock", card=parse("Ks")[0])
