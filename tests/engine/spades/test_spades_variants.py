"""Two players (the draw), three players (cutthroat), and the options and presets."""

from __future__ import annotations

import dataclasses
import random

import pytest

from cardtable.engine.api import Action
from cardtable.engine.cards import format_cards, parse
from cardtable.engine.games import spades
from cardtable.engine.games.spades import Options, Phase
from spades_deals import play, rigged, stacked

# -- two players --------------------------------------------------------------------------


def test_two_players_draw_keep_or_reject_until_each_holds_thirteen() -> None:
    s = stacked("As 2c Kh 3d", dealer=1)
    assert (s.phase, s.current_player()) == (Phase.DRAW, 0)  # non-dealer draws first
    assert [str(a) for a in s.legal_actions()] == ["keep", "reject"]
    assert s.view(0)["offered"] == "As"  # the top card, to the drawer only
    assert "offered" not in s.view(1) and "offered" not in s.view(None)
    events = s.apply(Action("keep"))
    assert s.hands[0] == parse("As") and s.dead[0] == parse("2c")
    assert events[0].view(0)["card"] == "As" and events[0].view(0)["dead"] == "2c"
    assert "card" not in events[0].view(1)
    assert s.view(0)["dead"] == ["2c"] and s.view(1)["dead"] == []
    assert s.view(1)["offered"] == "Kh"
    play(s, "reject")  # Kh is dead; the next card, 3d, must be kept
    assert s.hands[1] == parse("3d") and s.dead[1] == parse("Kh")
    assert s.view(None)["stock"] == 48
    while s.phase is Phase.DRAW:
        play(s, "keep")
    assert [len(h) for h in s.hands] == [13, 13] and [len(d) for d in s.dead] == [13, 13]
    assert (s.phase, s.current_player()) == (Phase.BID, 0)
    assert "cards" not in s.view(0)["hands"][1]
    play(s, "bid 5", "bid 4")
    assert (s.phase, s.current_player()) == (Phase.PLAY, 0)  # non-dealer leads


def test_two_players_never_get_blind_nil_and_score_alone() -> None:
    s = stacked("", dealer=0, options={"blind_nil_margin": 0})
    while s.phase is Phase.DRAW:
        play(s, "reject")
    assert s.phase is Phase.BID and all(s.looked)
    play(s, "bid 0", "bid 3")
    while s.phase is Phase.PLAY:
        s.apply(s.legal_actions()[0])
    row = s.history[-1]
    assert [side["seats"] for side in row["sides"]] == [[0], [1]]
    for side, seat in zip(row["sides"], (0, 1), strict=True):
        expected = spades.score_player(row["bids"][seat], row["tricks"][seat], 0, Options())
        assert (side["points"], side["bags_after"]) == expected


# -- three players ------------------------------------------------------------------------

_ALL_BUT_2C = [c for c in range(52) if c != parse("2c")[0]]
THREE = [_ALL_BUT_2C[:17], _ALL_BUT_2C[17:34], _ALL_BUT_2C[34:]]


def test_three_players_without_the_two_of_clubs_seventeen_each() -> None:
    s = rigged(THREE, dealer=2)
    assert s.view(None)["removed"] == ["2c"]
    assert [len(h) for h in s.hands] == [17, 17, 17] and s.current_player() == 0
    assert [a.number for a in s.legal_actions()] == list(range(18))
    assert s.view(0)["partner"] is None and s.view(0)["sides"] == [[0], [1], [2]]
    play(s, "bid 6", "bid 5", "bid 0")
    assert (s.phase, s.current_player()) == (Phase.PLAY, 0)
    while s.phase is Phase.PLAY:
        s.apply(s.legal_actions()[0])
    assert sum(s.tricks_won) == 17 and len(s.scores) == 3


@pytest.mark.parametrize(("choice", "removed"), [("two_of_diamonds", "2d"),
                                                 ("two_of_hearts", "2h")])
def test_three_players_another_card_out(choice: str, removed: str) -> None:
    s = spades.new_match(Options(three_player_removes=choice), players=3, rng=random.Random(2))
    assert s.view(None)["removed"] == [removed]
    assert sorted(c for h in s.hands for c in h) == [c for c in range(52) if c != parse(
        removed)[0]]


def test_three_players_with_a_card_dealt_out_face_down() -> None:
    s = spades.new_match(Options(three_player_removes="deal_out"), players=3,
                         rng=random.Random(5))
    assert s.removed == [] and len(s.aside) == 1
    assert s.zones()["face_down"] == s.aside
    hidden = format_cards(s.aside)
    assert all(hidden not in str(s.view(seat)) for seat in (0, 1, 2, None))


def test_three_players_with_jokers_take_out_a_third_deuce() -> None:
    s = spades.new_match(Options(jokers="remove_2c_2d"), players=3, rng=random.Random(2))
    assert s.view(None)["removed"] == ["2c", "2d", "2h"]
    assert [len(h) for h in s.hands] == [17, 17, 17]


def test_three_player_blind_nil_has_no_exchange_and_trails_the_leader() -> None:
    s = rigged(THREE, dealer=2, scores=[0, 100, 40])
    assert s.phase is Phase.BLIND_NIL and s.current_player() == 0
    # seat 0 trails the leader by 100; seat 2, 60 behind, may not go blind
    assert not s.looked[0] and s.looked[1] and s.looked[2]
    play(s, "blind_nil", "bid 4", "bid 3")
    assert s.phase is Phase.PLAY  # no partner, no exchange


# -- options and presets -------------------------------------------------------------------


def test_standard_is_the_default_and_pagat() -> None:
    assert Options() == Options.preset("standard") == Options.from_dict({})
    o = Options()
    assert (o.nil_value, o.blind_nil, o.blind_nil_value, o.blind_nil_margin) == (100, True, 200,
                                                                                 100)
    assert (o.blind_nil_exchange, o.failed_nil_tricks, o.bag_limit, o.bag_penalty) == (
        True, "bags", 10, 100)
    assert (o.first_lead, o.first_trick, o.spade_breaking, o.target) == (
        "left_of_dealer_no_spade", "any", True, 500)
    assert (o.minimum_team_bid, o.ten_for_two_hundred, o.jokers, o.mercy, o.suicide) == (
        0, False, "none", 0, False)


def test_classic_preset() -> None:
    c = Options.preset("classic")
    changed = {k: v for k, v in c.to_dict().items() if Options().to_dict()[k] != v}
    assert changed == {"nil_value": 50, "blind_nil_value": 100, "failed_nil_tricks": "contract",
                       "first_lead": "two_of_clubs", "first_trick": "lowest_club"}


@pytest.mark.parametrize(("data", "error"), [
    ({"nil_value": -1}, "'nil_value' must be an integer from 0 to 1000"),
    ({"failed_nil_tricks": "partner"}, "'failed_nil_tricks' must be one of"),
    ({"jokers": True}, "'jokers' must be one of"),
    ({"blind_nil": "yes"}, "'blind_nil' must be one of True, False"),
    ({"minimum_team_bid": 14}, "'minimum_team_bid' must be an integer from 0 to 13"),
    ({"bag_limit": 0}, "'bag_limit' must be an integer from 1 to 100"),
    ({"trumps": "hearts"}, "unknown option 'trumps'"),
    ({"preset": "bridge"}, "unknown preset 'bridge'"),
])
def test_bad_options_are_refused_by_name(data: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        Options.from_dict(data)


def test_every_option_is_described_for_the_ui() -> None:
    described = {d["name"] for d in Options.describe()}
    assert described == {f.name for f in dataclasses.fields(Options)}
    assert all(d["doc"] for d in Options.describe())


def test_players_are_four_three_or_two() -> None:
    assert spades.PLAYERS == (4, 3, 2)
    with pytest.raises(ValueError, match="4 players"):
        spades.new_match(Options(), players=5, rng=random.Random(1))
    with pytest.raises(ValueError, match="needs an rng"):
        spades.new_match(Options())
