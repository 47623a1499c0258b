"""Why a move is good, in a line: the hints of the Rummy family's hard player.

``hint(view, action, judgement)`` explains one of ``view["legal"]`` (usually the
hard player's own choice) in plain words a player can check against his hand:
"take 5♣: it makes 4♣ 5♣ 6♣", "discard K♠: it goes with nothing; 12 deadwood",
"meld 7♥ 8♥ 9♥: opponent is down to 2 cards".  It reads only the view, like the
bots, and values hands with the game's :class:`Judgement` (the same best
arrangement the bot plays by).

>>> hint({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]}, Action("deal"),
...      Judgement())
'deal the next hand'
"""

from __future__ import annotations

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, pretty_card, pretty_cards

from .evaluation import Evaluator, Plan
from .judgement import Judgement, Seen, View

MAX_HINT = 80


def hint(view: View, action: Action, judgement: Judgement) -> str:
    """A short reason why ``action`` is good for the seat of ``view``."""
    kind = action.type
    if kind == "deal":
        return "deal the next hand"
    if kind == "pass":
        return "pass: nothing there is worth taking"
    if kind == "call":
        return "call Rummy: that discard scores for you"
    if "hands" not in view:
        return _fit(kind.replace("_", " "))
    seen = Seen.of(view)
    ev = Evaluator(judgement.weights(seen))
    text = {"draw_stock": _draw_stock, "draw_discard": _draw_discard, "meld": _meld,
            "lay_off": _lay_off, "swap_joker": _swap_joker, "discard": _discard}.get(kind)
    return _fit(text(seen, ev, action) if text else kind.replace("_", " "))


def _fit(text: str) -> str:
    return text if len(text) <= MAX_HINT else text[:MAX_HINT - 1] + "…"


def _closest(seen: Seen) -> int:
    return min((seen.counts[o] for o in seen.opponents()), default=99)


def _left_value(ev: Evaluator, plan: Plan | None) -> int:
    """What the cards left over in ``plan`` would cost if the hand ended now."""
    if plan is None:
        return 0
    return round(sum(ev.w.hold[c] for c in plan.leftover))


def _meld_with(plan: Plan | None, card: int) -> tuple[int, ...] | None:
    if plan is None:
        return None
    return next((m for m in plan.melds if card in m), None)


def _partners(hand: list[int], card: int) -> list[int]:
    """Cards of ``hand`` that go with ``card``: its rank, or one or two away in its suit."""
    if card >= JOKER:
        return []
    return [c for c in hand if c < JOKER and c != card and (
        c % 13 == card % 13 or (c // 13 == card // 13 and abs(c % 13 - card % 13) <= 2))]


def _draw_stock(seen: Seen, ev: Evaluator, action: Action) -> str:
    if not seen.pile:
        return "draw from the stock"
    top = seen.pile[-1]
    if not _partners(seen.hand, top):
        return f"draw from the stock: {pretty_card(top)} goes with nothing you hold"
    return f"draw from the stock: {pretty_card(top)} makes no meld with your cards"


def _draw_discard(seen: Seen, ev: Evaluator, action: Action) -> str:
    depth = action.number or 1
    taken = seen.pile[-depth:]
    key = taken[0]
    plan = ev.plan([*seen.hand, *taken], key if depth > 1 else None)
    meld = _meld_with(plan, key)
    if depth > 1:
        head = f"take {depth} cards down to {pretty_card(key)}"
        return f"{head}: it makes {pretty_cards(sorted(meld))}" if meld else head
    if meld:
        return f"take {pretty_card(key)}: it makes {pretty_cards(sorted(meld))}"
    partners = _partners(seen.hand, key)
    if partners:
        return f"take {pretty_card(key)}: it goes with {pretty_cards(partners[:3])}"
    return f"take {pretty_card(key)}: it lays off on the table"


def _why_down(seen: Seen, cards: list[int], ev: Evaluator) -> str:
    """Why cards go on the table now rather than later."""
    left = len(seen.hand) - len(cards)
    if left <= 1:
        return "you go out"
    closest = _closest(seen)
    if closest <= 3:
        return f"opponent is down to {closest} card{'s' if closest != 1 else ''}"
    credit = round(sum(ev.w.credit[c] for c in cards))
    if credit:
        return f"{credit} points on the table"
    return f"{round(sum(ev.w.hold[c] for c in cards))} points out of your hand"


def _meld(seen: Seen, ev: Evaluator, action: Action) -> str:
    if action.melds:
        shown = ", ".join(pretty_cards(m) for m in action.melds)
        return f"come out with {shown}"
    return f"meld {pretty_cards(action.cards)}: {_why_down(seen, list(action.cards), ev)}"


def _lay_off(seen: Seen, ev: Evaluator, action: Action) -> str:
    assert action.card is not None
    target = next((m for m in seen.table if m.id == action.meld), None)
    where = f" on {pretty_cards(target.cards)}" if target else ""
    return f"lay off {pretty_card(action.card)}{where}: {_why_down(seen, [action.card], ev)}"


def _swap_joker(seen: Seen, ev: Evaluator, action: Action) -> str:
    given = pretty_cards(action.cards) if action.cards else (
        pretty_card(action.card) if action.card is not None else "a card")
    return f"give {given} for the joker: it melds more of your hand"


def _discard(seen: Seen, ev: Evaluator, action: Action) -> str:
    assert action.card is not None
    card = action.card
    rest = list(seen.hand)
    rest.remove(card)
    if not rest:
        return f"discard {pretty_card(card)}: you go out"
    left = _left_value(ev, ev.plan(rest))
    closest = _closest(seen)
    if closest <= 2 and ev.w.hold[card] >= 8:
        return f"discard {pretty_card(card)}: shed high cards, opponent has {closest} left"
    partners = _partners(rest, card)
    if not partners:
        return f"discard {pretty_card(card)}: it goes with nothing; {left} deadwood"
    return f"discard {pretty_card(card)}: the least useful card; {left} deadwood"
