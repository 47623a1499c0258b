"""Scenario tests of the play of the cards: following suit, breaking spades,
each preset's first trick, the jokers, and what search may resample."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.engine.api import Action, IllegalAction
from cardtable.engine.cards import parse
from cardtable.engine.games import spades
from cardtable.engine.games.spades import Phase
from cardtable.engine.games.spades.search import shown_voids
from spades_deals import play, rigged

# Dealer 3, so seat 0 leads.
#   seat 0  hearts A K Q J T 9 8 | spades A K Q J T 9     (no clubs, no diamonds)
#   seat 1  clubs A..2
#   seat 2  diamonds A..2
#   seat 3  hearts 7 6 5 4 3 2 | spades 8 7 6 5 4 3 2
HEARTS_AND_SPADES = ["Ah Kh Qh Jh Th 9h 8h As Ks Qs Js Ts 9s",
                     " ".join(r + "c" for r in "AKQJT98765432"),
                     " ".join(r + "d" for r in "AKQJT98765432"),
                     "7h 6h 5h 4h 3h 2h 8s 7s 6s 5s 4s 3s 2s"]

# For the first-trick rules.  Seat 2 holds the 2c.
#   seat 0  clubs 5 8 J       diamonds A K Q J T   hearts A K Q J T
#   seat 1  no clubs          diamonds 9..2        spades A K Q J T
#   seat 2  clubs 2 4 6 7 9 T Q K                  hearts 9 8 7 6 5
#   seat 3  clubs 3 A         hearts 4 3 2         spades 9..2
CLUB_OPENING = ["5c 8c Jc Ad Kd Qd Jd Td Ah Kh Qh Jh Th",
                "9d 8d 7d 6d 5d 4d 3d 2d As Ks Qs Js Ts",
                "2c 4c 6c 7c 9c Tc Qc Kc 9h 8h 7h 6h 5h",
                "3c Ac 4h 3h 2h 9s 8s 7s 6s 5s 4s 3s 2s"]


def legal(state: spades.SpadesState) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def refused(state: spades.SpadesState, move: str, reason: str) -> None:
    before = json.dumps([state.view(s) for s in (0, 1, 2, 3, None)], sort_keys=True)
    with pytest.raises(IllegalAction, match=reason):
        state.apply(Action.parse(move))
    assert json.dumps([state.view(s) for s in (0, 1, 2, 3, None)], sort_keys=True) == before


def bid_round(state: spades.SpadesState) -> None:
    play(state, *["bid 3"] * 4)


def test_vector_8_spades_may_not_be_led_until_broken_unless_nothing_else() -> None:
    s = rigged(HEARTS_AND_SPADES, dealer=3)
    bid_round(s)
    # legal moves are sorted as cards are numbered: ace first within a suit
    assert legal(s) == [f"play {c}h" for c in "A89TJQK"]
    refused(s, "play As", "the first trick may not be led with a spade")
    play(s, "play Ah", "play 2c", "play 2d")
    refused(s, "play 2s", "you must follow hearts")
    play(s, "play 2h")
    assert s.tricks_won[0] == 1 and s.current_player() == 0
    refused(s, "play As", "spades are not broken yet")
    assert all(move.endswith("h") for move in legal(s))
    assert not s.broken


def test_a_ruff_breaks_spades() -> None:
    s = rigged(HEARTS_AND_SPADES, dealer=3)
    bid_round(s)
    tricks = [("Ah", "2h"), ("Kh", "3h"), ("Qh", "4h"), ("Jh", "5h"), ("Th", "6h"), ("9h", "7h")]
    clubs, diamonds = iter("23456789TJ"), iter("23456789TJ")
    for lead, follow in tricks:
        play(s, f"play {lead}", f"play {next(clubs)}c", f"play {next(diamonds)}d",
             f"play {follow}")
    assert not s.broken and s.tricks_won[0] == 6
    play(s, "play 8h", "play Qc", "play Qd")
    assert legal(s)[0] == "play 2s"  # seat 3 is out of hearts: may ruff (or not)
    play(s, "play 2s")
    assert s.broken and s.tricks_won[3] == 1 and s.current_player() == 3
    assert s.view(0)["spades_broken"] and s.view(0)["last_trick"]["winner"] == 3
    assert s.view(0)["last_trick"]["plays"][3] == {"seat": 3, "card": "2s"}


def test_a_leader_with_only_spades_may_lead_one_before_they_are_broken() -> None:
    one_suit_each = [" ".join(r + suit for r in "AKQJT98765432") for suit in "cdhs"]
    s = rigged(one_suit_each, dealer=2)  # seat 3, all spades, leads
    bid_round(s)
    assert s.current_player() == 3 and len(legal(s)) == 13
    play(s, "play 2s")
    assert s.broken


def test_standard_first_trick_dealer_left_leads_any_non_spade_and_anyone_may_ruff() -> None:
    s = rigged(CLUB_OPENING, dealer=3)
    bid_round(s)
    assert s.current_player() == 0
    assert legal(s) == ["play 5c", "play 8c", "play Jc", "play Ad", "play Td", "play Jd",
                        "play Qd", "play Kd", "play Ah", "play Th", "play Jh", "play Qh",
                        "play Kh"]
    play(s, "play Jc")
    assert "play As" in legal(s)  # seat 1 has no club: a spade is fine


def test_classic_first_trick_two_of_clubs_then_lowest_clubs() -> None:
    s = rigged(CLUB_OPENING, dealer=3, options={"preset": "classic"})
    bid_round(s)
    assert s.current_player() == 2 and legal(s) == ["play 2c"]  # the 2c holder leads it
    refused(s, "play Kc", "the first trick opens with 2c")
    play(s, "play 2c")
    assert legal(s) == ["play 3c"]  # lowest club
    refused(s, "play Ac", "on the first trick play your lowest club")
    play(s, "play 3c")
    assert legal(s) == ["play 5c"]
    play(s, "play 5c")
    # seat 1 has no club: a diamond or a heart, never a spade while he has another suit
    assert legal(s) == [f"play {r}d" for r in "23456789"]
    refused(s, "play As", "no spades on the first trick")
    play(s, "play 9d")
    assert s.tricks_won[0] == 1 and s.current_player() == 0
    assert "play Jc" in legal(s)  # the first trick is over: free play


def test_two_of_clubs_lead_with_free_play_after_it() -> None:
    s = rigged(CLUB_OPENING, dealer=3, options={"first_lead": "two_of_clubs"})
    bid_round(s)
    play(s, "play 2c")
    assert legal(s) == ["play Ac", "play 3c"]  # no lowest-club rule
    play(s, "play Ac", "play 5c")
    assert "play As" in legal(s)  # first_trick "any": a ruff is allowed


def test_no_spades_on_the_first_trick() -> None:
    s = rigged(CLUB_OPENING, dealer=3, options={"first_trick": "no_spades"})
    bid_round(s)
    play(s, "play Jc")
    assert all(a.endswith("d") for a in legal(s))


def test_free_spade_leading() -> None:
    s = rigged(HEARTS_AND_SPADES, dealer=3, options={"spade_breaking": False})
    bid_round(s)
    assert "play As" not in legal(s)  # the first lead is still no spade
    play(s, "play Ah", "play 2c", "play 2d", "play 2h")
    assert "play As" in legal(s)


# -- jokers -----------------------------------------------------------------------------------

# jokers: the 2c and 2d leave the pack.  Seat 3 holds both jokers.
#   seat 0  clubs 3..K, 3s     seat 1  diamonds 3..K, 2s
#   seat 2  hearts A..2        seat 3  Jk Jk As Ks .. 4s
JOKER_DEAL = [" ".join(r + "c" for r in "KQJT9876543") + " Ac 3s",
              " ".join(r + "d" for r in "KQJT9876543") + " Ad 2s",
              " ".join(r + "h" for r in "AKQJT98765432"),
              "Jk Jk As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s"]


def test_jokers_are_the_top_spades_with_names_of_their_own() -> None:
    s = rigged(JOKER_DEAL, dealer=3, options={"jokers": "remove_2c_2d"})
    assert s.view(None)["removed"] == ["2c", "2d"]
    assert s.view(3)["hands"][3]["jokers"] == ["little", "big"]
    assert s.view(3)["hands"][3]["cards"][-2:] == ["Jk", "Bj"]
    bid_round(s)
    assert "play 3s" not in legal(s)  # a joker or spade is no first lead
    play(s, "play Ac", "play 3d", "play 2h")
    assert {"play Jk", "play Bj"} <= set(legal(s)) and len(legal(s)) == 13  # one per joker
    play(s, "play Jk")  # the Little Joker
    assert s.view(0)["last_trick"]["plays"][3] == {"seat": 3, "card": "Jk", "joker": "little"}
    assert s.view(3)["hands"][3]["jokers"] == ["big"]
    assert s.tricks_won[3] == 1 and s.broken
    assert "play Jk" not in legal(s)
    play(s, "play Bj")  # the Big Joker leads and wins over the ace of spades
    assert s.view(None)["trick"] == [{"seat": 3, "card": "Bj", "joker": "big"}]
    play(s, "play 3s", "play 2s", "play 3h")
    assert s.tricks_won[3] == 2


def test_the_big_joker_beats_the_little_one() -> None:
    deal = [JOKER_DEAL[0].replace("3s", "Jk"), JOKER_DEAL[1], JOKER_DEAL[2],
            JOKER_DEAL[3].replace("Jk Jk", "Jk 3s")]
    s = rigged(deal, dealer=2, options={"jokers": "remove_2c_2d"})  # seat 3 holds the Big
    bid_round(s)
    assert s.to_act == 3 and "play Bj" in legal(s)  # only spades: he may lead one
    play(s, "play Bj", "play Jk", "play 2s", "play 3h")  # seat 0 follows with the Little
    assert s.tricks_won == [0, 0, 0, 1]


def test_a_record_from_before_the_joker_names_still_replays() -> None:
    # Records written when both jokers were called Jk: a seat holding only the Big
    # Joker played "Jk".
    deal = [JOKER_DEAL[0].replace("3s", "Jk"), JOKER_DEAL[1], JOKER_DEAL[2],
            JOKER_DEAL[3].replace("Jk Jk", "Jk 3s")]
    s = rigged(deal, dealer=2, options={"jokers": "remove_2c_2d"})
    bid_round(s)
    assert s.to_act == 3 and "play Jk" not in legal(s)
    play(s, "play Jk")  # means the Big Joker, the only joker he holds
    assert s.view(None)["trick"] == [{"seat": 3, "card": "Bj", "joker": "big"}]
    record = s.record()
    assert record["actions"][-1] == {"type": "play", "card": "Bj"}
    record["actions"][-1] = {"type": "play", "card": "Jk"}  # as the old server logged it
    assert spades.replay(record).view(None) == s.view(None)


def test_a_joker_travels_by_its_name_in_the_blind_nil_exchange() -> None:
    s = rigged(JOKER_DEAL, dealer=0, options={"jokers": "remove_2c_2d",
                                              "blind_nil_margin": 0})
    assert s.phase is Phase.BLIND_NIL and s.to_act == 1
    play(s, "look", "bid 3", "look", "bid 3", "blind_nil", "look", "bid 3")
    assert s.phase is Phase.EXCHANGE and s.to_act == 3
    assert "pass_cards cards=JkBj" in legal(s) and "pass_cards cards=BjJk" not in legal(s)
    play(s, "pass_cards cards=BjAs")  # either order; the Big Joker by its own name
    assert s.hands[3].count(53) == 0 and 53 in s.hands[1]
    assert s.view(1)["exchange"]["received"] == ["As", "Bj"]


def test_the_first_joker_dealt_is_the_big_one() -> None:
    deal = [JOKER_DEAL[0].replace("3s", "Jk"), JOKER_DEAL[1], JOKER_DEAL[2],
            JOKER_DEAL[3].replace("Jk Jk", "Jk 3s")]
    s = rigged(deal, dealer=2, options={"jokers": "remove_2c_2d"})  # seat 3 is dealt first
    assert s.view(3)["hands"][3]["jokers"] == ["big"]
    assert s.view(0)["hands"][0]["jokers"] == ["little"]
    assert "jokers" not in s.view(0)["hands"][3]


def test_the_jokers_can_replace_the_two_of_hearts() -> None:
    state = spades.new_match(spades.Options(jokers="remove_2h_2d"), rng=random.Random(3))
    assert state.removed == parse("2h 2d") and state.jokers == 2


# -- search -----------------------------------------------------------------------------------


def test_resample_keeps_what_the_seat_knows_and_the_voids_play_has_shown() -> None:
    s = rigged(HEARTS_AND_SPADES, dealer=3)
    bid_round(s)
    play(s, "play Ah", "play 2c", "play 2d", "play 2h")  # seats 1 and 2 show out of hearts
    voids = shown_voids(s)
    assert voids[1] == {2} and voids[2] == {2} and voids[3] == set()
    for seed in range(30):
        twin = s.resample(0, random.Random(seed))
        assert twin.view(0) == s.view(0)
        assert sorted(twin.hands[0]) == sorted(s.hands[0])
        assert not any(c // 13 == 2 for c in twin.hands[1] + twin.hands[2])
        assert [len(h) for h in twin.hands] == [len(h) for h in s.hands]
        assert twin.legal_actions() == s.legal_actions()


def test_a_guess_must_keep_a_shown_void() -> None:
    s = rigged(HEARTS_AND_SPADES, dealer=3)
    bid_round(s)
    play(s, "play Ah", "play 2c", "play 2d", "play 2h")  # seats 1 and 2 show out of hearts
    hidden_heart = next(c for c in s.hands[3] if c // 13 == 2)
    with pytest.raises(ValueError, match="void"):
        s.resample(0, random.Random(1), {1: [hidden_heart]})
    twin = s.resample(0, random.Random(1), {3: [hidden_heart]})  # seat 3 may hold hearts
    assert hidden_heart in twin.hands[3] and twin.view(0) == s.view(0)


def test_resample_does_not_show_an_unlooked_hand() -> None:
    s = rigged(HEARTS_AND_SPADES, dealer=3, options={"blind_nil_margin": 0})
    assert s.phase is Phase.BLIND_NIL
    hands = {tuple(sorted(s.resample(0, random.Random(seed)).hands[0])) for seed in range(5)}
    assert len(hands) == 5  # dealt anew each time: the seat has not seen its cards


def test_record_and_replay_round_trip() -> None:
    s = rigged(CLUB_OPENING, dealer=3, options={"preset": "classic"})
    bid_round(s)
    play(s, "play 2c", "play 3c")
    again = spades.replay(json.loads(json.dumps(s.record())))
    assert [again.view(seat) for seat in (0, 1, 2, 3, None)] == [
        s.view(seat) for seat in (0, 1, 2, 3, None)]
    with pytest.raises(ValueError, match="not a spades record"):
        spades.replay({"game": "gin"})
