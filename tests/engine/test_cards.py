import random

import pytest

from cardtable.engine import cards
from cardtable.engine.cards import JOKER, card, deck, format_cards, parse, shuffle, str_card


def test_codec_round_trips_every_card() -> None:
    for c in range(53):
        assert card(str_card(c)) == c
    assert [str_card(c) for c in parse("As Td 7h Jk")] == ["As", "Td", "7h", "Jk"]


def test_input_accepts_ten_and_any_case() -> None:
    assert parse("10d td TD 10D") == [card("Td")] * 4
    assert parse("aS,kH  jk") == [card("As"), card("Kh"), JOKER]


@pytest.mark.parametrize("bad", ["1x", "Zs", "11h", "", "A", "Ahh"])
def test_parse_names_the_bad_token(bad: str) -> None:
    text = f"As {bad} 2s" if bad else "As  ,"
    if not bad:
        assert parse(text) == [card("As")]
        return
    with pytest.raises(ValueError, match=repr(bad)):
        parse(text)


def test_decks() -> None:
    assert sorted(deck()) == list(range(52))
    two = deck(packs=2, jokers=6)
    assert len(two) == 110 and two.count(JOKER) == 6 and two.count(card("As")) == 2
    three = deck(packs=3, jokers=3)  # Indian rummy for 5-6 players
    assert len(three) == 159 and three.count(card("7h")) == 3
    with pytest.raises(ValueError, match="packs"):
        deck(packs=4)
    with pytest.raises(ValueError, match="jokers"):
        deck(jokers=7)


def test_shuffle_uses_only_the_injected_rng() -> None:
    a = shuffle(deck(), random.Random(3))
    b = shuffle(deck(), random.Random(3))
    assert a == b and sorted(a) == list(range(52)) and a != deck()


def test_values_and_sort_keys() -> None:
    assert [cards.deadwood_value(c) for c in parse("As 9c Td Jh Ks Jk")] == [1, 9, 10, 10, 10, 0]
    hand = parse("Ks 2c Jk 2s Ac")
    assert format_cards(sorted(hand, key=cards.sort_key_suit)) == "Ac 2c 2s Ks Jk"
    assert format_cards(sorted(hand, key=cards.sort_key_rank)) == "Ac 2c 2s Ks Jk"
