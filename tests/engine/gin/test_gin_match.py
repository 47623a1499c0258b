"""Scenario tests of a Gin Rummy match, phase by phase, on fixed deals."""

from __future__ import annotations

import copy
import json

import pytest

from cardtable.engine.api import Action, IllegalAction
from cardtable.engine.cards import card, parse
from cardtable.engine.games import gin
from cardtable.engine.games.gin import Phase
from cardtable.engine.games.gin.match import final_settlement
from gin_deals import rigged

# Seat 0 deals; seat 1 (non-dealer) acts first.
#   non-dealer (1)  As 2s 3s | 4h 5h 6h | 7c 7d 7s | Kd      deadwood 10, can knock on a draw
#   dealer     (0)  Kc Qc Jc 9d 9h 8s 6c 5d 3c 2d             nothing melded
#   upcard 8c; stock top 2h, then Qh
NON_DEALER = "As 2s 3s 4h 5h 6h 7c 7d 7s Kd"
DEALER = "Kc Qc Jc 9d 9h 8s 6c 5d 3c 2d"


def play(state: gin.GinState, *moves: str) -> None:
    for move in moves:
        state.apply(Action.parse(move))


def snapshot(state: gin.GinState) -> str:
    return json.dumps([state.view(0), state.view(1), state.view(None), state.record()],
                      sort_keys=True)


def assert_refused(state: gin.GinState, move: str, reason: str) -> None:
    before = snapshot(state)
    with pytest.raises(IllegalAction, match=reason):
        state.apply(Action.parse(move))
    assert snapshot(state) == before


def test_first_upcard_pass_pass_then_stock_only() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh")
    assert (s.phase, s.current_player()) == (Phase.FIRST_UPCARD, 1)
    assert [str(a) for a in s.legal_actions()] == ["pass", "take_upcard"]
    assert_refused(s, "draw_stock", "first take the upcard or pass")
    play(s, "pass")
    assert (s.phase, s.current_player()) == (Phase.FIRST_UPCARD, 0)
    play(s, "pass")
    assert (s.phase, s.current_player()) == (Phase.DRAW, 1)
    assert [str(a) for a in s.legal_actions()] == ["draw_stock"]
    assert_refused(s, "draw_discard", "both passed the upcard")
    play(s, "draw_stock")
    assert s.hands[1][-1] == card("2h")


def test_taking_the_upcard_is_the_draw_and_it_may_not_be_thrown_back() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh")
    play(s, "take_upcard")
    assert s.phase is Phase.DISCARD and card("8c") in s.hands[1]
    assert_refused(s, "discard 8c", "may not discard the card you just took")
    assert_refused(s, "draw_stock", "you have drawn already")
    assert_refused(s, "discard 9h", "you do not hold 9h")
    play(s, "discard Kd")
    assert (s.phase, s.current_player(), s.discard[-1]) == (Phase.DRAW, 0, card("Kd"))
    # the opponent sees which card was picked up
    assert s.view(0)["hands"][1]["picked"] == ["8c"]


def test_discard_before_draw_and_knock_limits_are_refused_with_reasons() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh")
    play(s, "pass", "pass")
    assert_refused(s, "discard Kd", "you must draw before you discard")
    play(s, "draw_stock", "discard 2h")  # keeps Kd: deadwood 10
    play(s, "draw_stock")  # dealer draws Qh: deadwood far above 10
    assert_refused(s, "knock Qh", r"deadwood \d+ is above the knock limit 10")
    assert_refused(s, "gin Qh", "gin needs no deadwood")
    assert_refused(s, "big_gin", "big gin needs all 11 cards melded")
    assert_refused(s, "fly", "'fly' is not a move in gin rummy")


def test_knock_showdown_scores_and_next_hand() -> None:
    # Non-dealer draws 2h (completes nothing), knocks with Kd: K = 2 (2h).
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh", more_deals=1)
    play(s, "pass", "pass", "draw_stock")
    knocks = [str(a) for a in s.legal_actions() if a.type == "knock"]
    assert knocks == ["knock Kd", "knock 2h"]  # leaving 2h (2) or Kd (10)
    play(s, "knock Kd")
    assert s.phase is Phase.HAND_OVER
    row = s.history[-1]
    # dealer: Kc Qc Jc run, 9d 9h 8s 6c 5d 3c 2d -> 2d and 3c? no run; layoffs: none fit
    assert (row["kind"], row["knocker_seat"], row["winner"]) == ("knock", 1, 1)
    assert s.points == [0, row["points"]] and s.boxes == [0, 1]
    assert s.view(0)["hands"][1]["cards"]  # the showdown reveals both hands
    assert s.current_player() == 1  # standard: the deal alternates
    play(s, "deal")
    assert (s.hand_number, s.dealer, s.phase) == (2, 1, Phase.FIRST_UPCARD)
    assert "cards" not in s.view(0)["hands"][1]


def test_knock_legality_lists_every_discard_that_leaves_the_limit() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "Ad Qh")
    play(s, "pass", "pass", "draw_stock")  # draws Ad: deadwood after discarding Kd is 1
    kinds = sorted(str(a) for a in s.legal_actions() if a.type in ("knock", "gin"))
    assert kinds == ["knock Ad", "knock Kd"]


@pytest.mark.parametrize(("rule", "next_dealer"), [("alternate", 1), ("winner", 1), ("loser", 0)])
def test_next_dealer_rules(rule: str, next_dealer: int) -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh", options={"next_dealer": rule})
    play(s, "pass", "pass", "draw_stock", "knock Kd")
    assert s.current_player() == next_dealer


def stock_runs_out(s: gin.GinState) -> None:
    """Both players draw from the stock and throw the drawn card back until it ends."""
    while s.phase in (Phase.FIRST_UPCARD, Phase.DRAW, Phase.DISCARD):
        if s.phase is Phase.FIRST_UPCARD:
            play(s, "pass")
        elif s.phase is Phase.DRAW:
            play(s, "draw_stock")
        else:
            drawn = s.hands[s.current_player() or 0][-1]
            s.apply(Action("discard", card=drawn))


def test_void_hand_at_two_stock_cards_same_dealer() -> None:
    # dealer's hand cannot reach a knock by throwing back what he draws
    s = rigged(NON_DEALER, DEALER, "8c", "Qh Jh Th 9s 8d", more_deals=1)
    stock_runs_out(s)
    assert len(s.stock) == 2 and s.history[-1]["kind"] == "void"
    assert s.points == [0, 0] and s.boxes == [0, 0]
    assert (s.phase, s.current_player()) == (Phase.HAND_OVER, 0)  # same dealer redeals
    play(s, "deal")
    assert s.dealer == 0 and s.hand_number == 2


# For the 50th-card rule the dealer holds
#   Kc Kh Ks | 9c 9d 9h | 5c 5d 2c 3d        deadwood 15
# and the non-dealer's last stock card (the 29th drawn, leaving 2) is thrown back.
NEAR_KNOCK = "Kc Kh Ks 9c 9d 9h 5c 5d 2c 3d"


def stock_ending_with(last: str) -> str:
    used = set(parse(f"{NON_DEALER} {NEAR_KNOCK} 8c {last}"))
    filler = [c for c in range(52) if c not in used][:28]
    return " ".join(str(Action("x", card=c)).split()[1] for c in filler) + " " + last


def test_fiftieth_card_taken_to_knock() -> None:
    s = rigged(NON_DEALER, NEAR_KNOCK, "8c", stock_ending_with("5s"),
               options={"fiftieth_card": True})
    stock_runs_out(s)
    # 5s makes 5c 5d 5s: the dealer may take it, but only to knock
    assert (s.phase, s.current_player(), len(s.stock)) == (Phase.FINAL_DISCARD, 0, 2)
    assert [str(a) for a in s.legal_actions()] == ["draw_discard", "pass"]
    declined = copy.deepcopy(s)
    play(declined, "pass")
    assert declined.history[-1]["kind"] == "void" and declined.current_player() == 0
    play(s, "draw_discard")
    assert {a.type for a in s.legal_actions()} == {"knock"}
    assert_refused(s, "discard 2c", "you took the last discard, so you must knock")
    play(s, "knock 3d")
    assert s.history[-1]["kind"] in ("knock", "undercut") and s.history[-1]["knocker_seat"] == 0


def test_fiftieth_card_that_does_not_help_voids_the_hand() -> None:
    s = rigged(NON_DEALER, NEAR_KNOCK, "8c", stock_ending_with("Qh"),
               options={"fiftieth_card": True})
    stock_runs_out(s)
    assert s.phase is Phase.HAND_OVER and s.history[-1]["kind"] == "void"


def test_without_the_option_the_floor_voids_the_hand() -> None:
    s = rigged(NON_DEALER, NEAR_KNOCK, "8c", stock_ending_with("5s"))
    stock_runs_out(s)
    assert s.phase is Phase.HAND_OVER and s.history[-1]["kind"] == "void"


def test_oklahoma_limit_and_spade_doubling() -> None:
    okla = {"preset": "oklahoma"}
    s = rigged(NON_DEALER, DEALER, "4s", "2h Qh", options=okla)
    assert (s.knock_limit, s.multiplier) == (4, 2)
    play(s, "pass", "pass", "draw_stock")
    assert [str(a) for a in s.legal_actions() if a.type == "knock"] == ["knock Kd"]
    play(s, "knock Kd")
    row = s.history[-1]
    assert row["multiplier"] == 2 and row["points"] % 2 == 0 and s.boxes[1] == 1
    ace = rigged(NON_DEALER, DEALER, "Ah", options=okla)
    assert (ace.knock_limit, ace.multiplier) == (0, 1)
    ace_one = rigged(NON_DEALER, DEALER, "Ah", options={**okla, "oklahoma_ace": "one"})
    assert ace_one.knock_limit == 1
    king = rigged(NON_DEALER, DEALER, "Kh", options=okla)
    assert king.knock_limit == 10
    boxes = rigged(NON_DEALER, DEALER, "4s", "2h Qh", options={**okla, "double_boxes": True})
    play(boxes, "pass", "pass", "draw_stock", "knock Kd")
    assert boxes.boxes[1] == 2


def test_vector_7_oklahoma_through_play() -> None:
    # upcard 4s: limit 4.  The non-dealer draws 3c and knocks with Kd: K = 3.
    s = rigged(NON_DEALER, "Kc Kh Ks 9c 9d 9h Ac 2d 4c 5d", "4s", "3d Qh",
               options={"preset": "oklahoma"})
    play(s, "pass", "pass", "draw_stock", "knock Kd")
    row = s.history[-1]
    assert (row["knocker"]["points"], row["defender"]["points"], row["points"]) == (3, 12, 18)


def test_vectors_8_and_9_match_settlement() -> None:
    pagat, standard = gin.Options.preset("pagat"), gin.Options()
    p = final_settlement([104, 60], [4, 3], 0, pagat)
    assert (p["totals"], p["margin"], p["shutout"]) == ([284, 120], 164, False)
    w = final_settlement([104, 60], [4, 3], 0, standard)
    assert w["totals"] == [304, 135]
    p = final_settlement([112, 0], [3, 0], 0, pagat)
    assert (p["totals"], p["shutout"], p["game_bonus"]) == ([372, 0], True, 200)
    assert final_settlement([112, 0], [3, 0], 0, standard)["totals"] == [399, 0]
    total = gin.Options.from_dict({"shutout": "double_total"})
    assert final_settlement([112, 0], [3, 0], 0, total)["totals"] == [2 * (112 + 100 + 75), 0]


def test_express_match_ends_after_one_scored_hand() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh", options={"target": 1})
    play(s, "pass", "pass", "draw_stock", "knock Kd")
    assert s.is_over() and s.current_player() is None and s.legal_actions() == []
    result = s.result()
    # a shutout (the loser scored nothing): standard doubles the hand points
    assert result["winner"] == 1 and result["shutout"]
    assert result["totals"][1] == 2 * s.points[1] + 100 + 25
    assert_refused(s, "deal", "the match is over")


def test_immediate_boxes_count_toward_the_target() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh",
               options={"box_timing": "immediate", "target": 1000})
    play(s, "pass", "pass", "draw_stock", "knock Kd")
    assert s.scores()[1] == s.points[1] + 25


def test_custom_spread_is_used_and_a_bad_one_is_refused() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh")
    play(s, "pass", "pass", "draw_stock")
    assert_refused(s, "knock Kd melds=As2s3s/4h5h6h", "above the knock limit")
    assert_refused(s, "knock Kd melds=As2s4h", "a run needs three cards")
    play(s, "knock Kd melds=As2s3s/4h5h6h/7c7d7s")
    assert s.history[-1]["knocker"]["melds"] == ["As 2s 3s", "4h 5h 6h", "7c 7d 7s"]


def test_options_are_validated_with_names_and_ranges() -> None:
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        gin.Options.from_dict({"colour": 1})
    with pytest.raises(ValueError, match="'knock_limit' must be an integer from 0 to 10, not 11"):
        gin.Options.from_dict({"knock_limit": 11})
    with pytest.raises(ValueError, match="'next_dealer' must be one of"):
        gin.Options.from_dict({"next_dealer": "random"})
    with pytest.raises(ValueError, match="'first_upcard' must be one of True, False, not 1"):
        gin.Options.from_dict({"first_upcard": 1})
    with pytest.raises(ValueError, match="unknown preset 'fast'"):
        gin.Options.preset("fast")
    assert gin.Options() == gin.Options.preset("standard")
    assert gin.Options.from_dict({"preset": "oklahoma"}).target == 150
    assert gin.Options.from_dict({"preset": "pagat", "target": 250}).gin_bonus == 20


def test_presets_match_the_rules_file() -> None:
    std, pagat, okla = (gin.Options.preset(n) for n in ("standard", "pagat", "oklahoma"))
    assert (std.gin_bonus, std.big_gin_bonus, std.undercut_bonus, std.box_bonus) == (25, 31, 25, 25)
    assert (std.next_dealer, std.knock_limit, std.target, std.first_upcard) == (
        "alternate", 10, 100, True)
    assert (pagat.gin_bonus, pagat.undercut_bonus, pagat.big_gin_bonus, pagat.box_bonus) == (
        20, 10, 0, 20)
    assert (pagat.shutout, pagat.next_dealer) == ("double_game_bonus", "winner")
    assert (okla.oklahoma, okla.oklahoma_ace, okla.spade_doubles, okla.target) == (
        True, "gin_only", True, 150)


def test_dealing_order() -> None:
    s = rigged(NON_DEALER, DEALER, "8c", "2h Qh", dealer_seat=1)
    assert sorted(s.hands[0]) == sorted(parse(NON_DEALER))
    assert sorted(s.hands[1]) == sorted(parse(DEALER))
    assert s.current_player() == 0 and len(s.stock) == 31 and s.discard == [card("8c")]
