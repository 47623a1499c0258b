"""The engine contract: the action codecs, options, chance and the registry."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.engine import GAMES, Action, Event, IllegalAction, get_game
from cardtable.engine.api import Chance
from cardtable.engine.cards import deck, format_cards

card_ints = st.integers(0, 52)
actions = st.builds(
    Action,
    type=st.sampled_from(["discard", "knock", "gin", "bid", "meld", "lay_off", "draw_stock"]),
    card=st.none() | card_ints,
    number=st.none() | st.integers(-5, 13),
    meld=st.none() | st.integers(0, 40),
    cards=st.lists(card_ints, max_size=6).map(tuple),
    melds=st.lists(st.lists(card_ints, min_size=1, max_size=5).map(tuple), max_size=4).map(tuple),
)


@given(actions)
def test_action_codecs_round_trip(action: Action) -> None:
    assert Action.from_json(action.to_json()) == action
    assert Action.parse(str(action)) == action


@pytest.mark.parametrize(
    ("data", "error"),
    [([], "must be a JSON object"),
     ({}, "needs a 'type'"),
     ({"type": ""}, "needs a 'type'"),
     ({"type": "discard", "card": 7}, "'card' must be a card"),
     ({"type": "discard", "card": "7x"}, "bad card '7x'"),
     ({"type": "bid", "number": "4"}, "'number' must be an integer"),
     ({"type": "bid", "number": True}, "'number' must be an integer"),
     ({"type": "meld", "cards": "7h 8h"}, "'cards' must be a list"),
     ({"type": "meld", "cards": [7]}, "'cards' must list cards"),
     ({"type": "knock", "melds": [["7h"]] * 65}, "'melds' must be a list"),
     ({"type": "discard", "colour": "red"}, "unknown action field 'colour'")],
)
def test_malformed_actions_are_refused_by_name(data: object, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        Action.from_json(data)  # type: ignore[arg-type]


def test_legal_lists_sort_by_type_then_card() -> None:
    moves = [Action("knock", card=3), Action("discard", card=9), Action("discard", card=2),
             Action("big_gin")]
    assert [str(m) for m in sorted(moves)] == ["big_gin", "discard 3c", "discard Tc", "knock 4c"]


def test_illegal_action_is_a_value_error_with_a_reason() -> None:
    error = IllegalAction("you must draw before you discard")
    assert isinstance(error, ValueError) and error.reason == str(error)


def test_events_show_private_data_only_to_their_seat() -> None:
    event = Event("draw_stock", 1, {"stock": 20}, {"card": "7h"})
    assert event.view(1) == {"type": "draw_stock", "seat": 1, "stock": 20, "card": "7h"}
    assert "card" not in event.view(0) and "card" not in event.view(None)


def test_chance_records_and_replays() -> None:
    live = Chance(random.Random(4))
    order, pick = live.deck(deck()), live.below(2)
    again = Chance(replay=live.outcomes)
    assert again.deck(deck()) == order and again.below(2) == pick
    with pytest.raises(ValueError, match="no more chance outcomes"):
        again.below(2)
    with pytest.raises(ValueError, match="does not hold the game's cards"):
        Chance(replay=["As 2s"]).deck(deck())
    with pytest.raises(ValueError, match="out of range"):
        Chance(replay=[5]).below(2)
    with pytest.raises(ValueError, match="an rng, outcomes to replay, or both"):
        Chance()


def test_chance_goes_on_live_after_the_record() -> None:
    live = Chance(random.Random(4))
    order = live.deck(deck())
    rebuilt = Chance(random.Random(9), replay=live.outcomes)
    assert rebuilt.replaying and rebuilt.deck(deck()) == order and not rebuilt.replaying
    later = rebuilt.deck(deck())  # the next deal: from the live rng, and recorded
    assert sorted(later) == sorted(deck()) and rebuilt.outcomes[1] == format_cards(later)
    assert Chance(random.Random(1), replay=rebuilt.outcomes).deck(deck()) == order


def test_registry() -> None:
    assert "gin" in GAMES and get_game("gin").NAME == "gin"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        get_game("chess")


def test_new_match_demands_injected_randomness() -> None:
    gin = get_game("gin")
    with pytest.raises(ValueError, match="needs an rng"):
        gin.new_match(gin.Options())
    with pytest.raises(ValueError, match="2 players"):
        gin.new_match(gin.Options(), players=3, rng=random.Random(1))
