"""Cards as small ints, with a text codec that round-trips.

A card is an ``int``: ``suit * 13 + rank`` for the 52 standard cards, where
``rank`` 0 is the ace and 12 the king and the suits are ordered clubs,
diamonds, hearts, spades (bridge order).  Every printed joker is
:data:`JOKER` (52): jokers are interchangeable, and so are the two copies of
a card in a two-pack deck, so a list of ints describes any hand exactly.

>>> card("As"), str_card(0), str_card(51)
(39, 'Ac', 'Ks')
>>> parse("As 2s 3s 10d jk")
[39, 40, 41, 22, 52]
>>> format_cards(parse("Td qH 7h"))
'Td Qh 7h'
>>> all(card(str_card(c)) == c for c in range(54))
True
>>> parse("As 1x")
Traceback (most recent call last):
...
ValueError: bad card '1x': expected a rank (A 2-9 T/10 J Q K) and a suit (c d h s), or Jk
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence
from typing import Any, Protocol

RANKS = "A23456789TJQK"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
JOKER = 52
BIG_JOKER = 53
"""Spades' Big Joker: with its jokers option the two jokers differ, ``Jk`` being the Little
one.  Every other game's jokers are all :data:`JOKER`."""

_RANK_OF_TEXT = {r: i for i, r in enumerate(RANKS)} | {"10": 9}
_SUIT_OF_TEXT = {s: i for i, s in enumerate(SUITS)}
_NAMES = [r + s for s in SUITS for r in RANKS] + ["Jk", "Bj"]
_CARD_OF_TEXT = {name.lower(): i for i, name in enumerate(_NAMES)} | {
    "10" + s: 13 * i + 9 for i, s in enumerate(SUITS)
}
# The fast paths of ``parse`` and ``format_cards`` (decks are formatted at every deal and
# parsed at every replay): one dict lookup per card, no call.
_CARD_OF_EXACT = _CARD_OF_TEXT | {name: i for i, name in enumerate(_NAMES)}
_NAME_OF_CARD = dict(enumerate(_NAMES))


def make(rank: int, suit: int) -> int:
    """The card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3)."""
    return suit * 13 + rank


def rank(c: int) -> int:
    """Rank index 0 (ace) .. 12 (king).  Meaningless for a joker."""
    return c % 13


def suit(c: int) -> int:
    """Suit index 0..3 (clubs, diamonds, hearts, spades).  Meaningless for a joker."""
    return c // 13


def is_joker(c: int) -> bool:
    return c >= JOKER


def str_card(c: int) -> str:
    """Short text of a card: ``"As"``, ``"Td"``, ``"7h"``, ``"Jk"`` (``"Bj"``: Spades' Big
    Joker)."""
    if not 0 <= c < len(_NAMES):
        raise ValueError(f"bad card value {c}")
    return _NAMES[c]


def pretty_card(c: int) -> str:
    """A card as players write it: ``"7♥"``, ``"10♦"``, ``"A♠"``, ``"Joker"``.

    >>> pretty_card(card("Td")), pretty_card(card("As")), pretty_card(JOKER)
    ('10♦', 'A♠', 'Joker')
    """
    text = str_card(c)
    if c >= JOKER:
        return "Big Joker" if text == "Bj" else "Joker"
    rank_text = "10" if text[0] == "T" else text[0]
    return rank_text + SUIT_SYMBOLS[suit(c)]


def pretty_cards(cards: Iterable[int]) -> str:
    """Cards as players write them, with spaces: ``"7♥ 8♥ 9♥"``."""
    return " ".join(pretty_card(c) for c in cards)


def card(text: str) -> int:
    """Parse one card; accepts ``"10d"`` and any letter case."""
    found = _CARD_OF_TEXT.get(text.strip().lower())
    if found is None:
        raise ValueError(
            f"bad card {text!r}: expected a rank (A 2-9 T/10 J Q K) and a suit (c d h s), or Jk"
        )
    return found


def parse(text: str) -> list[int]:
    """Parse cards separated by spaces or commas, naming the first bad token."""
    tokens = text.replace(",", " ").split()
    try:
        return [_CARD_OF_EXACT[token] for token in tokens]
    except KeyError:  # other letter cases, or a bad token that ``card`` will name
        return [card(token) for token in tokens]


def format_cards(cards: Iterable[int]) -> str:
    cards = cards if isinstance(cards, list | tuple) else list(cards)
    try:
        return " ".join([_NAME_OF_CARD[c] for c in cards])
    except KeyError:  # a card out of the table: ``str_card`` names it or says what is wrong
        return " ".join(str_card(c) for c in cards)


def deck(packs: int = 1, jokers: int = 0) -> list[int]:
    """An unshuffled deck: ``packs`` standard packs (1 to 3) and 0-6 jokers."""
    if packs not in (1, 2, 3):
        raise ValueError(f"packs must be 1, 2 or 3, not {packs}")
    if not 0 <= jokers <= 6:
        raise ValueError(f"jokers must be between 0 and 6, not {jokers}")
    return [c for _ in range(packs) for c in range(52)] + [JOKER] * jokers


class ShuffleRng(Protocol):
    """What :func:`shuffle` needs: ``random.Random`` and ``secrets.SystemRandom`` fit."""

    def shuffle(self, x: MutableSequence[Any]) -> None: ...


def shuffle(cards: Iterable[int], rng: ShuffleRng) -> list[int]:
    """A shuffled copy of ``cards``; all randomness comes from the injected ``rng``."""
    shuffled = list(cards)
    rng.shuffle(shuffled)
    return shuffled


def deadwood_value(c: int) -> int:
    """Rummy count of a card: ace 1, pips at face value, court cards 10, jokers 0."""
    if c >= JOKER:
        return 0
    r = c % 13
    return r + 1 if r < 10 else 10


def sort_key_suit(c: int) -> tuple[int, int]:
    """Sort by suit then rank (jokers last)."""
    return (4, 0) if c >= JOKER else (c // 13, c % 13)


def sort_key_rank(c: int) -> tuple[int, int]:
    """Sort by rank then suit (jokers last)."""
    return (13, 0) if c >= JOKER else (c % 13, c // 13)
