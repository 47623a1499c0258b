"""A simple Rummy opponent: melds and lays off at once, keeps cards that work together.

It reads only ``view`` (``state.view(seat)``) and picks one of ``view["legal"]``:

* draw the top discard only when it completes a meld with the hand or fits a
  meld on the table; otherwise draw from the stock;
* lay the biggest meld it can (for a first-meld minimum: the opening with the
  most cards), again and again, then lay off every card that fits;
* discard the card that helps least: high count, no partner of its rank, no
  neighbour of its suit; never a card that fits a table meld (a gift) unless
  it must.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, deadwood_value, parse
from cardtable.engine.melds import MeldRules
from cardtable.engine.tablemelds import TableMeld, candidate_melds, fits

View = dict[str, Any]

_ACE_RULES = {"low": MeldRules(), "high_or_low": MeldRules(ace_high=True),
              "around": MeldRules(ace_high=True, around_corner=True)}


def choose(view: View) -> Action:
    """The bot's move for the seat of ``view``."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if len(legal) == 1:
        return legal[0]
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    hand = parse(" ".join(view["hands"][view["seat"]]["cards"]))
    rules = _ACE_RULES.get(view.get("options", {}).get("ace", "low"), MeldRules())
    table = [_table_meld(m) for m in view.get("table", [])]
    if "draw_stock" in by_type or "draw_discard" in by_type:
        return _draw(view, hand, table, rules, by_type)
    if "meld" in by_type:
        return max(by_type["meld"], key=lambda a: (_size(a), -_rank_sum(a)))
    if "lay_off" in by_type:
        return by_type["lay_off"][0]
    if "swap_joker" in by_type and "discard" not in by_type:
        return by_type["swap_joker"][0]
    return _discard(hand, table, rules, by_type.get("discard") or legal)


def _table_meld(data: dict[str, Any]) -> TableMeld:
    cards = tuple(parse(" ".join(data["cards"])))
    stands = tuple(parse(" ".join(data["stands_for"])))
    return TableMeld(data["id"], data["owner"], data["kind"], cards, stands,
                     tuple(data["laid_by"]))


def _size(action: Action) -> int:
    return len(action.cards) + sum(len(m) for m in action.melds)


def _rank_sum(action: Action) -> int:
    return sum(c % 13 for c in action.cards)


def _draw(view: View, hand: list[int], table: list[TableMeld], rules: MeldRules,
          by_type: dict[str, list[Action]]) -> Action:
    pile = view.get("discard") or []
    if "draw_discard" in by_type and pile:
        top = parse(pile[-1])[0]
        melds_with_it = any(top in m for m in candidate_melds([*hand, top], rules))
        if melds_with_it or any(fits(m, top, rules) for m in table):
            plain = [a for a in by_type["draw_discard"] if a.number is None]
            if plain:
                return plain[0]
    if "draw_stock" in by_type:
        return by_type["draw_stock"][0]
    return by_type["draw_discard"][0]


def usefulness(card: int, hand: Sequence[int]) -> int:
    """How much a card works with the rest of the hand: partners of its rank, suit neighbours.

    >>> usefulness(parse("7h")[0], parse("7h 7c 8h Ks"))
    2
    """
    if card >= JOKER:
        return 10
    score = 0
    for other in hand:
        if other == card or other >= JOKER:
            continue
        same_rank = other % 13 == card % 13
        near_in_suit = other // 13 == card // 13 and abs(other % 13 - card % 13) <= 2
        score += same_rank or near_in_suit
    return score


def _discard(hand: list[int], table: list[TableMeld], rules: MeldRules,
             options: list[Action]) -> Action:
    def cost(action: Action) -> tuple[int, int, int]:
        c = action.card if action.card is not None else -1
        gift = any(fits(m, c, rules) for m in table) if c >= 0 else False
        value = deadwood_value(c) if c >= 0 else 0
        return (int(gift), usefulness(c, hand) if c >= 0 else 0, -value)

    return min(options, key=cost)
