"""The computer player of War (toy): it reads only the view, like every bot.

Leading, it keeps its strength and plays its lowest card; following, it takes the
trick with the cheapest card that does, or else throws its lowest.

>>> choose({"seat": 0, "legal": [{"type": "deal"}]})
Action('deal')
>>> view = {"seat": 1, "dealer": 0, "options": {"ties": "non_dealer"},
...         "trick": [{"seat": 0, "card": "Qs"}],
...         "legal": [{"type": "play", "card": c} for c in ("Tc", "Qh", "Ad")]}
>>> choose(view)  # a tie goes to the non-dealer: seat 1 takes it with the queen
Action('play Qh')
"""

from __future__ import annotations

from typing import Any

from cardtable.engine import Action
from cardtable.engine.cards import card
from toy_war import strength


def choose(view: dict[str, Any]) -> Action:
    """The bot's move for the seat of ``view``."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    plays = {a.card: a for a in legal if a.type == "play" and a.card is not None}
    if not plays:
        return legal[0]  # a draw or a deal: the only move there is
    cheapest_first = sorted(plays, key=lambda c: (strength(c), c))
    if not view["trick"]:
        return plays[cheapest_first[0]]
    led = strength(card(view["trick"][0]["card"]))
    ties_win = view["options"]["ties"] == "non_dealer" and view["seat"] != view["dealer"]
    takers = [c for c in cheapest_first if strength(c) > led or (ties_win and strength(c) == led)]
    return plays[(takers or cheapest_first)[0]]
