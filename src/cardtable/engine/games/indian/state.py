"""The Indian Rummy state: the rules (:mod:`.match`) and what each seat may know
(:mod:`.views`).

The two live apart so that the views read the rules' class without the rules
importing the views back: a seat's view, the zones of the cards and a search's
redeal are what this class adds.
"""

from __future__ import annotations

import random

from ...api import JSON
from ...state import Held
from . import views
from .match import IndianRules


class IndianState(IndianRules):
    """The whole match; mutate only through :meth:`apply`."""

    def view(self, seat: int | None) -> dict[str, JSON]:
        """Everything ``seat`` may know (``None``: a spectator), plus its legal moves."""
        return views.view(self, seat)

    def zones(self) -> dict[str, JSON]:
        """Server/test-only: where every card is, for conservation and leak checks."""
        return views.zones(self)

    def redeal_hidden(self, seat: int, rng: random.Random, held: Held) -> None:
        views.redeal_hidden(self, seat, rng, held)


__all__ = ["IndianState"]
