"""The hard Gin player's reasons in words a player reads at the table (the hints).

Each reason is short (about 80 characters at most) and names cards as players write
them: "throw K♦: high and unmatched; keeps 7♥ 8♥ for the run; 12 deadwood".

>>> from cardtable.engine.cards import parse
>>> meld_with(parse("4c 6c 9d 5c"), parse("5c")[0])
'4♣ 5♣ 6♣'
"""

from __future__ import annotations

from collections.abc import Sequence

from cardtable.bots.gin.hard_read import Reading, meld_partners
from cardtable.engine.cards import pretty_card, pretty_cards
from cardtable.engine.games.gin.showdown import SOLVER, value


def meld_with(cards: Sequence[int], card: int) -> str:
    """The meld ``card`` joins in the best arrangement of ``cards`` ("" if none)."""
    for meld in SOLVER.best_melding(cards).melds:
        if card in meld:
            return pretty_cards(sorted(meld, key=lambda c: (c % 13, c // 13)))
    return ""


def _live(r: Reading, card: int) -> bool:
    return card in r.p_opp and r.p_opp[card] < 0.9


def best_start(r: Reading, cards: Sequence[int]) -> tuple[str, int] | None:
    """The unmelded pair of ``cards`` with the most live cards to finish it: its words
    ("7♥ 8♥ for the run") and that count."""
    loose = sorted(SOLVER.best_melding(cards).deadwood, key=lambda c: (c // 13, c % 13))
    best: tuple[int, int, str] | None = None
    for i, a in enumerate(loose):
        for b in loose[i + 1:]:
            if a % 13 == b % 13:
                finish = [s * 13 + a % 13 for s in range(4) if s * 13 + a % 13 not in (a, b)]
                kind = "set"
            elif a // 13 == b // 13 and 0 < b - a <= 2:
                low, high = a % 13, b % 13
                ranks = [low + 1] if high - low == 2 else [low - 1, high + 1]
                finish = [a // 13 * 13 + x for x in ranks if 0 <= x <= 12]
                kind = "run"
            else:
                continue
            count = sum(_live(r, c) for c in finish)
            if count and (best is None or (count, -value(a) - value(b)) > best[:2]):
                best = (count, -value(a) - value(b), f"{pretty_cards([a, b])} for the {kind}")
    return None if best is None else (best[2], best[0])


def describe_discard(r: Reading, card: int, kept: Sequence[int], danger: float) -> str:
    """Why throwing ``card`` (keeping ``kept``) is good."""
    melding = SOLVER.best_melding(kept)
    parts = [f"throw {pretty_card(card)}"]
    if not any((_live(r, a) or a in kept) and (_live(r, b) or b in kept)
               for a, b, _ in meld_partners(card)):
        why = "dead, its meld chances are gone"
    elif danger < 0.05 and r.opp_picked | r.declined and value(card) >= 5:
        why = "safe, he cannot use it"
    elif value(card) >= 8:
        why = "high and unmatched"
    else:
        why = "least useful card"
    start = best_start(r, kept)
    text = f"{parts[0]}: {why}"
    if start is not None:
        text += f"; keeps {start[0]}"
    text += f"; {melding.points} deadwood"
    return text if len(text) <= 80 else f"{parts[0]}: {why}; {melding.points} deadwood"


def describe_take(card: int, kept: Sequence[int], thrown: int, before: int) -> str:
    """Why taking ``card`` from the pile (and throwing ``thrown``) is good."""
    meld = meld_with(kept, card)
    after = SOLVER.deadwood(kept)
    if meld:
        return f"take {pretty_card(card)}: it makes {meld}"
    return (f"take {pretty_card(card)}: deadwood {before} → {after} "
            f"(throw {pretty_card(thrown)})")


__all__ = ["best_start", "describe_discard", "describe_take", "meld_with"]
