"""The Spades state: the rules (:mod:`.match`) and what each seat may know.

The two live apart so that the views (:mod:`.views`), the reasons for a refusal
(:mod:`.reasons`) and the search's redeal (:mod:`.search`) read the rules' class
without the rules importing them back.
"""

from __future__ import annotations

import random
from typing import Any

from ...api import JSON, Action
from ...cards import format_cards
from ...state import Held
from . import reasons, search, views
from .match import SpadesRules


class SpadesState(SpadesRules):
    """The whole match; mutate only through :meth:`apply`."""

    def view(self, seat: int | None) -> dict[str, JSON]:
        """Everything ``seat`` may know (``None``: a spectator), plus its legal moves."""
        return views.build_view(self, seat)

    def zones(self) -> dict[str, Any]:
        """Server/test-only: where every card is, named as the text codec names it."""
        return views.zones(self)

    def why_illegal(self, action: Action) -> str:
        return reasons.why_illegal(self, action)

    def redeal_hidden(self, seat: int, rng: random.Random, held: Held) -> None:
        search.redeal_hidden(self, seat, rng, held)

    def __str__(self) -> str:
        hands = " | ".join(format_cards(h) for h in self.hands)
        return f"spades hand {self.hand_number} {self.phase.value} to act {self.to_act}: {hands}"


__all__ = ["SpadesState"]
