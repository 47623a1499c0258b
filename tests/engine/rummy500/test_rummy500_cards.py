"""Rummy 500: the cards for each table size, options and presets, jokers, aces, the view."""

from __future__ import annotations

import random

import pytest

from cardtable.engine import Action
from cardtable.engine.cards import JOKER, card, format_cards, parse
from cardtable.engine.games import rummy500
from cardtable.engine.games.rummy500.scoring import ACE_RULES, table_points
from cardtable.engine.tablemelds import extend, lay
from rummy500_deals import rigged

HIGH, AROUND = ACE_RULES["high_or_low"], ACE_RULES["around"]


# -- cards and deal ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "options", "cards", "jokers", "dealt"), [
    (2, {}, 54, 2, 13), (2, {"two_player_cards": 10}, 54, 2, 10), (3, {}, 54, 2, 7),
    (4, {}, 54, 2, 7), (5, {}, 108, 4, 7), (8, {}, 108, 4, 7),
    (4, {"jokers": False}, 52, 0, 7), (6, {"preset": "bicycle"}, 104, 0, 7),
])
def test_the_pack_and_the_deal(players: int, options: dict[str, object], cards: int,
                               jokers: int, dealt: int) -> None:
    state = rummy500.new_match(rummy500.Options.from_dict(options), players, random.Random(2))
    zones = state.zones()
    assert zones["packs"] == (2 if players >= 5 else 1) and zones["jokers"] == jokers
    assert len(state.full_deck()) == cards
    assert [len(h) for h in state.hands] == [dealt] * players
    assert len(state.discard) == 1 and len(state.stock) == cards - players * dealt - 1
    assert state.current_player() == (state.dealer + 1) % players


def test_presets() -> None:
    assert rummy500.Options() == rummy500.Options.preset("pagat")
    bicycle = rummy500.Options.preset("bicycle")
    assert not bicycle.jokers and bicycle.top_discard_must_be_used and bicycle.target == 500
    with pytest.raises(ValueError, match="unknown option"):
        rummy500.Options.from_dict({"wild_twos": True})
    with pytest.raises(ValueError, match="pickup_use"):
        rummy500.Options.from_dict({"pickup_use": "anything"})
    with pytest.raises(ValueError, match="2 to 8"):
        rummy500.new_match(rummy500.Options(), 9, random.Random(0))


# -- jokers: the card a joker stands for is fixed when it is laid ----------------------------


@pytest.mark.parametrize(("cards", "stands_for", "fifteen", "represented"), [
    ("5d 6d Jk", "5d 6d 7d", 26, 18),   # at an end: the high end when the run can go up
    ("Qh Kh Jk", "Qh Kh Ah", 35, 35),   # Q-K-A: the joker is the ace
    ("Kh Ah Jk", "Qh Kh Ah", 40, 35),   # nothing above an ace: the low end
    ("Jk 2h 3h", "2h 3h 4h", 20, 9),    # 2-3-4, not A-2-3
    ("5d Jk 7d", "5d 6d 7d", 27, 18),   # in a gap: no choice
    ("7c 7h Jk", "7c 7h 7d", 29, 21),   # in a group: a seven
])
def test_joker_identity_and_value(cards: str, stands_for: str, fifteen: int,
                                  represented: int) -> None:
    meld = lay(1, 0, parse(cards), HIGH)
    assert format_cards(meld.stands_for) == stands_for
    assert rummy500.meld_points(parse(cards)) == fifteen
    assert rummy500.meld_points(parse(cards), rummy500.Options(joker_value="represented")) \
        == represented


def test_a_joker_laid_off_goes_high_unless_the_run_ends_in_an_ace() -> None:
    assert format_cards(extend(lay(1, 0, parse("5d 6d 7d"), HIGH), JOKER, 1, HIGH).stands_for) \
        == "5d 6d 7d 8d"
    assert format_cards(extend(lay(1, 0, parse("Qd Kd Ad"), HIGH), JOKER, 1, HIGH).stands_for) \
        == "Jd Qd Kd Ad"


def test_a_joker_may_stand_for_a_card_the_player_holds() -> None:
    # North keeps the Qd for a group of queens later: Jd Jk Kd, the joker as the Qd
    #   North  Jd Qd Kd Jk 2s 5c 9h        upcard 3c, stock: 7s
    state = rigged(["Jd Qd Kd Jk 2s 5c 9h", "4h 6h 8s Tc 2d 4s 6c", "Ac 3h 5s 7d 9c Js Kc"],
                   "3c", "7s")
    state.apply(Action("draw_stock"))
    stand_in = Action.parse("meld cards=JdJkKd")
    assert state.canonical(stand_in) in state.legal_actions()
    assert "Jd Kd Jk" in [" ".join(c["cards"]) for c in state.view(0)["candidates"]]
    state.apply(stand_in)
    assert format_cards(state.table[0].stands_for) == "Jd Qd Kd"
    assert card("Qd") in state.hands[0]


def test_a_joker_left_in_hand_counts_15_whatever_the_option() -> None:
    assert rummy500.hand_count(parse("Jk As 2c Kd")) == 15 + 15 + 2 + 10


# -- aces ------------------------------------------------------------------------------------------


def test_low_ace_value_15() -> None:
    options = rummy500.Options(low_ace_value=15)
    assert rummy500.meld_points(parse("Ah 2h 3h"), options) == 20
    assert rummy500.meld_points(parse("Ah 2h 3h")) == 6


def test_round_the_corner() -> None:
    options = rummy500.Options(ace="around")
    assert rummy500.meld_points(parse("Kh Ah 2h"), options) == 10 + 15 + 2
    with pytest.raises(ValueError):
        rummy500.meld_points(parse("Kh Ah 2h"))
    # an A-2-3 with a king laid off below it is a corner run: its ace counts 15 from then on
    run = extend(lay(1, 0, parse("Ah 2h 3h"), AROUND), card("Kh"), 1, AROUND)
    assert format_cards(run.cards) == "Kh Ah 2h 3h"
    assert table_points([run], 2, options) == [15 + 2 + 3, 10]


def test_round_the_corner_in_play() -> None:
    state = rigged(["Kh Ah 2h 5c 9s 4s 8c 7d 2c Tc 3s 6s Jc",
                    "2s 3h 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s"], "Jd", "Ks",
                   options={"ace": "around"})
    state.apply(Action("draw_stock"))
    assert Action("meld", cards=tuple(sorted(parse("Kh Ah 2h")))) in state.legal_actions()


# -- the view ---------------------------------------------------------------------------------


def test_the_view_shows_the_whole_pile_points_and_candidate_scores() -> None:
    state = rigged(["Ah 2h 3h Qd Kd Ad 5c 9s 4s 8c 7d 2c Tc",
                    "2s 3s 6h 7h 8h 9h Th 3d 4d 6d 8d Td 5s"], "Jc", "Ks Qs")
    state.apply(Action("draw_stock"))
    candidates = {" ".join(c["cards"]): c["value"] for c in state.view(0)["candidates"]}
    assert candidates["Ah 2h 3h"] == 6 and candidates["Ad Qd Kd"] == 35
    state.apply(Action.parse("meld cards=Ah2h3h"))
    state.apply(Action.parse("discard Ks"))
    state.apply(Action("draw_stock"))
    state.apply(Action.parse("discard Qs"))
    view = state.view(None)
    assert view["discard"] == ["Jc", "Ks", "Qs"]  # fanned: every card in it
    assert view["table_points"] == [6, 0] and view["call"] is None
    assert "cards" not in view["hands"][0] and view["hands"][0]["count"] == 10
    # North could take the Qs alone; Ks-Qs or Jc-Ks-Qs only to use the Ks or the Jc, and
    # neither goes anywhere
    assert state.view(0)["legal"] == [{"type": "draw_discard"}, {"type": "draw_stock"}]
