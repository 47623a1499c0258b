"""The pack and the play of the cards: suits, ranks, trick winners, legal plays.

Aces are high; spades, and the two jokers when they are played, are trumps.
A joker belongs to the spade suit for every rule: following suit, breaking
spades, "holds only spades".  The two jokers are two cards with their own names:
the Little Joker ``Jk`` (:data:`LITTLE_JOKER`, the codec's joker) and the Big Joker
``Bj`` (:data:`BIG_JOKER`).

>>> from cardtable.engine.cards import parse
>>> trick_winner([(0, card("Kh")), (1, card("Ah")), (2, card("2s")), (3, card("3h"))])
2
>>> [str_card(c) for c in playable(parse("Ah 3s"), None, first_trick=False, broken=False,
...                                 options=Options(), opening=None)]
['Ah']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from ...cards import BIG_JOKER, JOKER, card, str_card
from .options import Options

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
LITTLE_JOKER = JOKER

_REMOVED_FOR_JOKERS = {"remove_2c_2d": ("2c", "2d"), "remove_2h_2d": ("2h", "2d")}
_THREE_PLAYER_CARD = {"two_of_clubs": "2c", "two_of_diamonds": "2d", "two_of_hearts": "2h"}
_THREE_PLAYER_FALLBACK = ("2c", "2d", "2h")


# Tables of the hot paths (a trick's winner, a hand's legal plays): one index, no call.
SUIT_OF: tuple[int, ...] = tuple(SPADES if c >= JOKER else c // 13 for c in range(BIG_JOKER + 1))
POWER_OF: tuple[int, ...] = tuple(13 + c - JOKER if c >= JOKER else (c % 13 - 1) % 13
                                  for c in range(BIG_JOKER + 1))
NAME_OF: tuple[str, ...] = tuple(str_card(c) for c in range(BIG_JOKER + 1))
FIRST_SPADE = 39  # the As: every card from it on (the jokers too) is a spade
SUIT_BOUNDS = ((0, 13), (13, 26), (26, FIRST_SPADE), (FIRST_SPADE, BIG_JOKER + 1))
"""The cards of a suit are one stretch of ints (the jokers, spades, come after the As..Ks),
so a sorted hand holds each suit as one slice: ``SUIT_BOUNDS[suit]`` is its (low, high)."""


def suit_of(c: int) -> int:
    """Suit 0..3; both jokers are spades."""
    return SPADES if c >= JOKER else c // 13


def power(c: int) -> int:
    """Rank within the suit: 2 is 0 .. ace 12, Little Joker 13, Big Joker 14."""
    if c >= JOKER:
        return 13 + (c - JOKER)
    return (c % 13 - 1) % 13


def is_spade(c: int) -> bool:
    return suit_of(c) == SPADES


def pack(options: Options, players: int) -> tuple[list[int], list[int], int]:
    """(cards to shuffle, cards taken out face up, jokers) for a deal: :func:`dealt_pack`
    in lists of one's own."""
    cards, removed, jokers = dealt_pack(options, players)
    return list(cards), list(removed), jokers


@lru_cache(maxsize=64)  # one entry per options and player count: a few at a time
def dealt_pack(options: Options, players: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(cards to shuffle, cards taken out face up, jokers) for a deal, worked out once per
    options and player count (every deal asks).

    Jokers replace two deuces.  Three players need 51 cards: the chosen card
    goes, or, when the jokers already took it out, the next of 2c 2d 2h still
    in; ``deal_out`` shuffles all 52 and the last card lies out face down.
    """
    cards = list(range(52))
    removed: list[int] = []
    jokers = 0
    if options.jokers != "none":
        removed = [card(name) for name in _REMOVED_FOR_JOKERS[options.jokers]]
        jokers = 2
    if players == 3 and options.three_player_removes != "deal_out":
        for name in (_THREE_PLAYER_CARD[options.three_player_removes], *_THREE_PLAYER_FALLBACK):
            if card(name) not in removed:
                removed.append(card(name))
                break
    cards = [c for c in cards if c not in removed] + [JOKER] * jokers
    return tuple(cards), tuple(removed), jokers


def name_big_joker(order: list[int]) -> list[int]:
    """The shuffled order with its first joker made the Big Joker (a fair coin, for free).

    The pack is shuffled with two alike jokers, so a deck order is recorded as it always
    was (``Jk`` twice) and an older record replays the same deal."""
    out = list(order)
    if JOKER in out:
        out[out.index(JOKER)] = BIG_JOKER
    return out


def trick_winner(plays: Sequence[tuple[int, int]]) -> int:
    """The seat that wins a trick of (seat, card) plays, the first play being the lead."""
    # The best play so far is of the suit led or a spade, so a card beats it by being
    # higher in its suit, or a spade over a card of the suit led (one pass, no key tuples).
    winner, best = plays[0]
    best_suit = SUIT_OF[best]
    for seat, c in plays:
        suit = SUIT_OF[c]
        if suit == best_suit:
            if POWER_OF[c] > POWER_OF[best]:
                winner, best = seat, c
        elif suit == SPADES:
            winner, best, best_suit = seat, c, SPADES
    return winner


def opening_card(hands: Iterable[Sequence[int]]) -> int | None:
    """The lowest club in play (the 2c, or the 3c when the 2c is out), or ``None``."""
    clubs = [c for hand in hands for c in hand if suit_of(c) == CLUBS]
    return min(clubs, key=power) if clubs else None


def _no_spades(hand: Sequence[int]) -> list[int]:
    others = [c for c in hand if not is_spade(c)]
    return others or list(hand)


def playable(hand: Sequence[int], led: int | None, *, first_trick: bool, broken: bool,
             options: Options, opening: int | None) -> list[int]:
    """The cards of ``hand`` that may be played to a trick whose led suit is ``led``.

    ``led`` is ``None`` for a lead; ``opening`` is the card that must open the
    hand (``two_of_clubs``), ``None`` otherwise.
    """
    if led is None:
        return _leads(hand, first_trick, broken, options, opening)
    follow = [c for c in hand if suit_of(c) == led]
    if first_trick and options.first_trick == "lowest_club" and led == CLUBS and follow:
        return [min(follow, key=power)]
    if follow:
        return follow
    if first_trick and options.first_trick != "any":
        return _no_spades(hand)
    return list(hand)


def _leads(hand: Sequence[int], first_trick: bool, broken: bool, options: Options,
           opening: int | None) -> list[int]:
    if first_trick:
        if opening is not None and opening in hand:
            return [opening]
        clubs = [c for c in hand if suit_of(c) == CLUBS]
        if options.first_trick == "lowest_club" and clubs:
            return [min(clubs, key=power)]
        if options.first_lead == "left_of_dealer_no_spade" or options.first_trick != "any":
            return _no_spades(hand)
    if options.spade_breaking and not broken:
        return _no_spades(hand)
    return list(hand)


def display_key(c: int) -> tuple[int, int]:
    """Sort a hand by suit (clubs, diamonds, hearts, spades), low to high, jokers last."""
    return suit_of(c), power(c)


__all__ = ["BIG_JOKER", "CLUBS", "DIAMONDS", "FIRST_SPADE", "HEARTS", "LITTLE_JOKER", "NAME_OF",
           "POWER_OF", "SPADES", "SUIT_BOUNDS", "SUIT_OF", "dealt_pack", "display_key",
           "is_spade", "name_big_joker", "opening_card", "pack", "playable", "power", "str_card",
           "suit_of", "trick_winner"]
