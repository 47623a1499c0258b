"""Scenario tests of a four-player Spades match on fixed deals: deal, bidding,
blind nil and the exchange, hand scoring, bags across hands, the end."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.engine.api import Action, IllegalAction
from cardtable.engine.cards import format_cards, parse
from cardtable.engine.games import spades
from cardtable.engine.games.spades import Phase
from spades_deals import play, rigged

# One suit to a seat.  Seat 0 leads a club; 1 and 2 cannot follow, 3 ruffs
# and then leads spades to the end: seat 3 takes all thirteen tricks.
#   seat 0  clubs     A K Q J T 9 8 7 6 5 4 3 2
#   seat 1  diamonds  A K Q J T 9 8 7 6 5 4 3 2
#   seat 2  hearts    A K Q J T 9 8 7 6 5 4 3 2
#   seat 3  spades    A K Q J T 9 8 7 6 5 4 3 2
ONE_SUIT_EACH = [" ".join(r + s for r in "AKQJT98765432") for s in "cdhs"]


def snapshot(state: spades.SpadesState) -> str:
    return json.dumps([[state.view(s) for s in (0, 1, 2, 3, None)], state.record()],
                      sort_keys=True)


def assert_refused(state: spades.SpadesState, move: str, reason: str) -> None:
    before = snapshot(state)
    with pytest.raises(IllegalAction, match=reason):
        state.apply(Action.parse(move))
    assert snapshot(state) == before


def play_out(state: spades.SpadesState) -> None:
    """Play the hand to its end, each seat playing its lowest legal card."""
    while state.phase is Phase.PLAY:
        state.apply(state.legal_actions()[0])


def test_the_deal_goes_round_from_dealers_left_and_partners_see_nothing_of_each_other() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3)
    assert (s.phase, s.current_player()) == (Phase.BID, 0)  # dealer's left bids first
    # low to high, aces high
    assert s.view(0)["hands"][0]["cards"] == format_cards(parse(ONE_SUIT_EACH[0])[::-1]).split()
    assert "cards" not in s.view(0)["hands"][2]  # partner: a count only
    assert s.view(0)["hands"][2] == {"count": 13}
    assert all("cards" not in h for h in s.view(None)["hands"])
    assert s.view(0)["partner"] == 2 and s.view(1)["sides"] == [[0, 2], [1, 3]]


def test_bidding_order_and_the_range_of_bids() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=1)
    assert s.current_player() == 2
    assert [a.number for a in s.legal_actions()] == list(range(14))
    assert_refused(s, "bid 14", "bid a number from 0")
    assert_refused(s, "play Ah", "now bid")
    assert_refused(s, "fly", "'fly' is not a move in spades")
    play(s, "bid 3", "bid 0", "bid 4")
    assert s.current_player() == 1 and s.view(0)["bids"] == [4, None, 3, 0]
    play(s, "bid 2")  # the dealer bids last, then dealer's left leads
    assert (s.phase, s.current_player()) == (Phase.PLAY, 2)
    assert s.view(None)["contracts"] == [7, 2]


def test_a_hand_is_scored_per_side() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, more_deals=1)
    play(s, "bid 0", "bid 3", "bid 2", "bid 4")
    play_out(s)
    assert s.tricks_won == [0, 0, 0, 13]
    row = s.history[-1]
    first, second = row["sides"]
    # side 0: nil made (+100), contract 2 set (-20); side 1: 7 bid, 13 taken: +76, 6 bags
    assert (first["nil_points"], first["contract_points"], first["points"]) == (100, -20, 80)
    assert (second["points"], second["bags"]) == (76, 6)
    assert s.scores == [80, 76] and s.bags == [0, 6]
    assert (s.phase, s.current_player()) == (Phase.HAND_OVER, 0)  # the deal passes left
    assert s.view(1)["last"] == row and s.view(1)["history"] == [row]
    assert [str(a) for a in s.legal_actions()] == ["deal"]
    play(s, "deal")
    assert (s.dealer, s.hand_number, s.phase, s.current_player()) == (0, 2, Phase.BID, 1)
    assert s.view(1)["last"] is None


def test_bags_carry_across_hands() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, scores=[0, 0])
    s.bags = [0, 7]
    play(s, "bid 2", "bid 3", "bid 2", "bid 2")
    play_out(s)  # side 1 bid 5 and took 13: +58, 15 bags -> -100, 5 carried
    assert s.scores == [-40, -42] and s.bags == [0, 5]


def test_the_first_side_to_the_target_wins() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, options={"target": 70})
    play(s, "bid 2", "bid 3", "bid 2", "bid 4")
    play_out(s)
    assert s.is_over() and s.current_player() is None and s.legal_actions() == []
    result = s.result()
    assert (result["winner"], result["winning_seats"], result["scores"]) == (1, [1, 3], [-40, 76])
    assert_refused(s, "deal", "the match is over")


@pytest.mark.parametrize(("scores", "winner"), [([300, 430], 1), ([300, 424], None)])
def test_both_past_the_target_the_higher_wins_and_a_tie_plays_on(
        scores: list[int], winner: int | None) -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, scores=scores, options={"blind_nil": False})
    play(s, "bid 0", "bid 3", "bid 0", "bid 4")  # side 0: two made nils, +200; side 1: +76
    play_out(s)
    assert s.scores[0] == 500 and s.scores[1] >= 500
    assert s.result()["winner"] == winner
    assert s.phase is (Phase.MATCH_OVER if winner is not None else Phase.HAND_OVER)


def test_the_mercy_rule() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, scores=[-170, 0],
               options={"mercy": 200, "blind_nil": False})
    play(s, "bid 2", "bid 3", "bid 2", "bid 4")
    play_out(s)
    assert s.scores[0] == -210 and s.result()["winner"] == 1
    s = rigged(ONE_SUIT_EACH, dealer=3, scores=[-170, 0], options={"blind_nil": False})
    play(s, "bid 2", "bid 3", "bid 2", "bid 4")
    play_out(s)
    assert not s.is_over()  # off by default


def test_minimum_team_bid() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, options={"minimum_team_bid": 4})
    play(s, "bid 1", "bid 0")
    # seat 2 must bring the side to 4: nil and 1 or 2 are out
    assert [a.number for a in s.legal_actions()] == list(range(3, 14))
    assert_refused(s, "bid 2", "your side must bid at least 4 in all")
    play(s, "bid 3")
    # seat 3's partner bid nil: seat 3 alone must reach 4
    assert [a.number for a in s.legal_actions()] == list(range(4, 14))


def test_suicide_one_partner_of_each_side_bids_nil() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, options={"suicide": True, "minimum_team_bid": 4})
    # the first partner may bid nil, or enough to carry the side alone
    assert [a.number for a in s.legal_actions()] == [0, *range(4, 14)]
    play(s, "bid 5", "bid 0")
    assert [a.number for a in s.legal_actions()] == [0]  # seat 2 must go nil
    assert_refused(s, "bid 3", "suicide: exactly one partner bids nil")
    play(s, "bid 0")
    assert [a.number for a in s.legal_actions()] == list(range(4, 14))
    with pytest.raises(ValueError, match="suicide"):
        spades.new_match(spades.Options(suicide=True), players=3, rng=random.Random(1))


# -- blind nil -------------------------------------------------------------------------------


def test_blind_nil_is_offered_only_to_a_side_trailing_by_the_margin() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, scores=[0, 100])
    assert (s.phase, s.current_player()) == (Phase.BLIND_NIL, 0)
    assert [str(a) for a in s.legal_actions()] == ["blind_nil", "look"]
    assert "cards" not in s.view(0)["hands"][0]  # no cards before the decision
    assert s.view(0)["hands"][0]["count"] == 13
    assert "cards" in s.view(1)["hands"][1]  # the leading side is not offered it
    assert s.zones()["unseen_by"] == {0: parse(ONE_SUIT_EACH[0]), 2: parse(ONE_SUIT_EACH[2])}
    assert_refused(s, "bid 3", "now bid blind nil or look at your cards")
    play(s, "look")
    assert s.phase is Phase.BID and s.view(0)["hands"][0]["cards"]
    play(s, "bid 3")
    assert (s.phase, s.current_player()) == (Phase.BID, 1)
    assert "blind_nil" not in {a.type for a in s.legal_actions()}
    for scores in ([0, 99], [100, 0], [0, 0]):
        assert rigged(ONE_SUIT_EACH, dealer=3, scores=scores).phase is Phase.BID
    assert rigged(ONE_SUIT_EACH, dealer=3, scores=[0, 100],
                  options={"blind_nil": False}).phase is Phase.BID


def test_blind_nil_then_the_exchange_shows_each_only_what_he_received() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, options={"blind_nil_margin": 0})
    play(s, "look", "bid 3")
    assert s.phase is Phase.BLIND_NIL and s.current_player() == 1
    assert "cards" not in s.view(3)["hands"][3]  # seat 3 could still go blind too
    play(s, "blind_nil")
    assert s.view(None)["bids"][1] == 0 and s.view(None)["blind"][1]
    assert s.view(1)["hands"][1]["cards"]  # he looks once he has bid
    assert s.view(3)["hands"][3]["cards"]  # one blind nil a side: his partner may look now
    play(s, "look", "bid 4")
    assert s.phase is Phase.BID and s.current_player() == 3
    play(s, "bid 5")
    # The exchange: the blind bidder passes two, face down, to his partner...
    assert (s.phase, s.current_player()) == (Phase.EXCHANGE, 1)
    assert len(s.legal_actions()) == 78  # any two of thirteen
    play(s, "pass_cards cards=KdAd")  # either order
    assert s.view(3)["exchange"] == {"received": ["Ad", "Kd"], "gave": [], "from": 1}
    # the passer remembers what he gave; nobody else sees it
    assert s.view(1)["exchange"] == {"received": [], "gave": ["Kd", "Ad"], "from": 3}
    assert "exchange" not in s.view(0)
    assert "exchange" not in s.view(None)
    # ...who returns two of his fifteen.
    assert s.current_player() == 3 and len(s.legal_actions()) == 105
    assert_refused(s, "pass_cards cards=2h3s", "you do not hold 2h")
    assert_refused(s, "pass_cards cards=2s", "pass exactly two cards")
    play(s, "pass_cards cards=2s3s")
    assert s.view(1)["exchange"] == {"received": ["2s", "3s"], "gave": ["Kd", "Ad"], "from": 3}
    assert s.view(3)["exchange"] == {"received": ["Ad", "Kd"], "gave": ["2s", "3s"], "from": 1}
    assert s.view(1)["hands"][1]["count"] == 13 and "Ad" not in s.view(1)["hands"][1]["cards"]
    assert (s.phase, s.current_player()) == (Phase.PLAY, 0)


def test_a_blind_nil_is_scored_double() -> None:
    s = rigged(ONE_SUIT_EACH, dealer=3, options={"blind_nil_margin": 0,
                                                 "blind_nil_exchange": False})
    play(s, "blind_nil", "look", "bid 1", "bid 2", "look", "bid 4")
    assert s.phase is Phase.PLAY  # no exchange at this table
    play_out(s)
    assert s.history[-1]["sides"][0]["nil_points"] == 200
