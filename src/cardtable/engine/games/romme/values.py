"""What Rommé cards are worth: melding points (coming out), penalties in hand, joker limits.

>>> from cardtable.engine.cards import parse
>>> from cardtable.engine.melds import MeldRules, make_meld
>>> high = MeldRules(ace_high=True)
>>> [melding_points(make_meld(parse(m), high).stands_for)
...  for m in ("Ad Jk 3d 4d", "Jd Jk Kd", "Qs Jk As", "Ac Ad Ah")]
[10, 30, 31, 33]
>>> penalty(parse("Jk Ac 9h"), joker=20, ace=11)
40
>>> joker_problem("one_per_meld", make_meld(parse("7h Jk Jk")))
'at most one joker in a meld'
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from ...cards import JOKER, deadwood_value
from ...melds import Meld
from ...tablemelds import TableMeld


def melding_points(stands_for: Sequence[int]) -> int:
    """A meld's worth for coming out, each joker counted as the card it stands for.

    Pips at face value, court cards 10, an ace 11, but 1 where it plays low:
    directly before the 2 of a run (A-2-3, and K-A-2 where that is allowed).
    """
    total = 0
    for i, c in enumerate(stands_for):
        if c % 13 == 0:
            low = i + 1 < len(stands_for) and stands_for[i + 1] % 13 == 1
            total += 1 if low else 11
        else:
            total += deadwood_value(c)
    return total


def penalty(cards: Iterable[int], joker: int, ace: int) -> int:
    """What cards left in hand cost: pips at face value, court cards 10, ace and joker as set."""
    return sum(joker if c >= JOKER else ace if c % 13 == 0 else deadwood_value(c) for c in cards)


def joker_problem(limit: str, meld: Meld | TableMeld) -> str | None:
    """Why ``meld`` breaks the joker ``limit`` option (``None``: it does not).

    Every meld already needs a natural card (``make_meld`` checks that).
    """
    jokers = sum(c >= JOKER for c in meld.cards)
    if limit == "one_per_meld" and jokers > 1:
        return "at most one joker in a meld"
    if limit == "not_more_than_naturals" and jokers > len(meld.cards) - jokers:
        return "a meld may not hold more jokers than natural cards"
    if limit == "not_adjacent" and meld.kind == "run" and any(
            a >= JOKER and b >= JOKER for a, b in itertools.pairwise(meld.cards)):
        return "two jokers may not lie side by side in a run"
    return None
