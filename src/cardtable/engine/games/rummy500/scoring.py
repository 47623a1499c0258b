"""What cards are worth in Rummy 500: on the table (to whoever placed them) and in hand.

Every card placed on the table scores for the player who placed it (a
lay-off on someone else's meld scores for the one who laid it off); every
card left in hand when the hand ends counts against its holder.

* 2-10 at face value, J Q K 10, ace 15, joker 15;
* an ace at the low end of a run (A-2-3...) scores 1 (``low_ace_value``);
  a high ace (Q-K-A), an ace in a group or round the corner (K-A-2) 15;
* a melded joker scores 15, or (``joker_value: represented``) what the card
  it stands for would score in its place;
* in hand, aces and jokers count 15, whatever they might have been.

The worked values of the rules file:

>>> from cardtable.engine.cards import parse
>>> [meld_points(parse(m)) for m in ("Ah 2h 3h", "Qh Kh Ah", "As Ad Ac", "5d 6d Jk")]
[6, 35, 45, 26]
>>> meld_points(parse("5d 6d Jk"), Options(joker_value="represented"))
18
>>> hand_count(parse("5d Jk As"))
35
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...cards import JOKER, deadwood_value
from ...melds import MeldRules
from ...tablemelds import TableMeld, lay
from .options import Options

ACE_RULES = {
    "high_or_low": MeldRules(ace_high=True),
    "around": MeldRules(ace_high=True, around_corner=True),
}
"""Where an ace may sit in a run, by the ``ace`` option."""


def card_count(card: int) -> int:
    """A card's count in hand: ace and joker 15, court cards 10, pips at face value."""
    if card >= JOKER or card % 13 == 0:
        return 15
    return deadwood_value(card)


def hand_count(cards: Iterable[int]) -> int:
    """What the cards left in a hand count against their holder."""
    return sum(card_count(c) for c in cards)


def placed_value(kind: str, cards: Sequence[int], stands_for: Sequence[int], at: int,
                 options: Options) -> int:
    """What the card at position ``at`` of a meld scores for the player who placed it.

    ``cards``/``stands_for`` are as a :class:`~cardtable.engine.tablemelds.TableMeld`
    holds them: a run low end first, so an ace at position 0 of a run is a low ace
    (round the corner, K-A-2, a king sits below it and it counts high).
    """
    if cards[at] >= JOKER and options.joker_value == "15":
        return 15
    card = stands_for[at]
    if card % 13 == 0:
        return options.low_ace_value if kind == "run" and at == 0 else 15
    return deadwood_value(card)


def meld_worth(kind: str, cards: Sequence[int], stands_for: Sequence[int],
               options: Options) -> int:
    """What a whole meld scores, as if one player had placed all of it."""
    return sum(placed_value(kind, cards, stands_for, i, options) for i in range(len(cards)))


def meld_points(cards: Sequence[int], options: Options | None = None) -> int:
    """What ``cards`` score when laid as one meld (its jokers placed as the engine places them)."""
    options = options or Options()
    meld = lay(0, 0, cards, ACE_RULES[options.ace])
    return meld_worth(meld.kind, meld.cards, meld.stands_for, options)


def table_points(table: Iterable[TableMeld], players: int, options: Options) -> list[int]:
    """Each seat's points on the table: every card credited to the seat that placed it."""
    points = [0] * players
    for meld in table:
        for at, seat in enumerate(meld.laid_by):
            points[seat] += placed_value(meld.kind, meld.cards, meld.stands_for, at, options)
    return points
