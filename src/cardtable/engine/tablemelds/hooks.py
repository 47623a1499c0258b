"""The rules a table-meld game may change: a base class of small overridable hooks.

:class:`~cardtable.engine.tablemelds.state.TableMeldState` plays the turn
(draw, meld, lay off, discard), the stock and the views; a game subclasses it
and overrides the hooks below, the way python-chess variants override a few
methods of ``Board``.  Every hook has the classic-Rummy default.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from .. import api
from ..cards import JOKER, deadwood_value
from ..melds import Meld, MeldRules, make_meld
from .candidates import candidate_melds
from .table import TableMeld, extension_cards

STOCK_POLICIES = ("turn_over", "shuffle", "end_hand")
"""What happens when a player must draw and the stock is empty."""


class Hooks:
    """Defaults: one pack, no jokers, ace low, no first-meld minimum, top discard only."""

    NAME: ClassVar[str] = "table_melds"
    MAX_TURNS_PER_HAND: ClassVar[int] = 600
    """Deadlock guard: a hand this long (players who never finish) ends as blocked."""

    # The position the hooks, the first-meld rule (``opening``) and the reasons
    # (``reasons``) read; :class:`~cardtable.engine.tablemelds.state.TableMeldState`
    # keeps it.  Declared here so those modules need not import the state.
    players: int
    phase: api.Phase
    to_act: int | None
    hands: list[list[int]]
    discard: list[int]
    table: list[TableMeld]
    has_melded: list[bool]
    must_place: list[int]
    taken: int | None
    melds_this_turn: int

    # -- cards ------------------------------------------------------------------

    def full_deck(self) -> list[int]:
        """The cards dealt from (two packs, jokers: override)."""
        return list(range(52))

    def deal_size(self) -> int:
        """Cards dealt to each player."""
        return 10 if self.players == 2 else 7

    def meld_rules(self) -> MeldRules:
        """Where the ace may sit and the sizes of melds."""
        return MeldRules()

    def max_jokers_per_listed_meld(self) -> int:
        """How many jokers a meld offered in ``legal_actions`` may hold (keeps the list small)."""
        return 1

    def meld_problem(self, meld: Meld | TableMeld) -> str | None:
        """Why ``meld`` may not lie on the table under a house rule (``None``: it may).

        Asked of every new meld and of every meld as a lay-off would leave it,
        and of the melds ``legal_actions`` lists, so one rule (Rommé's joker
        limits, say) restricts all three alike.  ``meld.cards`` of a run are
        in sequence order, jokers where they stand.
        """
        return None

    def card_value(self, card: int) -> int:
        """A card's count in hand at the end of a hand."""
        return deadwood_value(card) if card < JOKER else 15

    def meld_value(self, stands_for: Sequence[int]) -> int:
        """A meld's worth for a first-meld minimum (jokers count as what they stand for)."""
        return sum(deadwood_value(c) for c in stands_for)

    # -- the turn -----------------------------------------------------------------

    def melds_per_turn(self) -> int | None:
        """How many new melds a player may lay in one turn (``None``: any number)."""
        return None

    def may_lay_off(self, seat: int) -> bool:
        """Whether ``seat`` may lay off now (Rommé, house rules: only after coming out)."""
        return True

    def may_swap_jokers(self, seat: int) -> bool:
        """Whether ``seat`` may exchange a natural card for a melded joker now."""
        return False

    def opening_minimum(self, seat: int) -> int:
        """Points the first melds of ``seat`` must total, all laid in one action (0: none)."""
        return 0

    def pickup_depth(self) -> int:
        """How many cards may be taken from the discard pile at once (Rummy 500: all)."""
        return 1

    def must_use_top_discard(self) -> bool:
        """Whether a single top discard taken must be melded or laid off in the same turn."""
        return False

    def must_use_deep_pickup(self) -> bool:
        """Whether the deepest card of a multi-card pickup must be used in the same turn."""
        return True

    def final_discard_required(self) -> bool:
        """Whether a player can go out only by discarding his last card."""
        return False

    def stock_policy(self) -> str:
        """One of :data:`STOCK_POLICIES` for this stock exhaustion."""
        return "turn_over"

    def stock_reuses(self) -> int:
        """How many times the discard pile may become the stock in one hand."""
        return 1

    # -- asked of the position: the state answers (it plays a move on a twin) ------------

    def joker_can_return(self, swap: api.Action) -> bool:
        """Whether the joker ``swap`` frees can go back on the table this turn."""
        raise NotImplementedError

    def kept_card_can_go(self, move: api.Action) -> bool:
        """Whether, after the placement ``move``, the one card left in hand can still be
        laid off (it was just taken from the pile, so it may not be discarded)."""
        raise NotImplementedError

    # -- derived from the hooks (a game overrides these only to cache them) -----------

    def listed_melds(self, hand: Sequence[int]) -> list[tuple[int, ...]]:
        """The candidate melds of ``hand`` that ``legal_actions`` offers (no ``meld_problem``)."""
        rules = self.meld_rules()
        found = candidate_melds(hand, rules, self.max_jokers_per_listed_meld())
        if type(self).meld_problem is Hooks.meld_problem:  # no house rule to ask
            return found
        return [m for m in found if self.meld_problem(meld_of(m, rules)) is None]

    def extension_cards(self, meld: TableMeld) -> frozenset[int]:
        """The cards that may be laid off on ``meld`` (:meth:`may_extend`), all at once."""
        if type(self).meld_problem is Hooks.meld_problem:
            return _plain_extension_cards(meld, self.meld_rules())
        return extension_cards(meld, self.meld_rules(), self.meld_problem)

    def may_extend(self, meld: TableMeld, card: int) -> bool:
        """Whether ``card`` may be laid off on ``meld``: it fits, and the result is allowed."""
        return card in self.extension_cards(meld)


@lru_cache(maxsize=4096)  # a table's melds, asked at every position until they change
def _plain_extension_cards(meld: TableMeld, rules: MeldRules) -> frozenset[int]:
    return extension_cards(meld, rules)


@lru_cache(maxsize=8192)  # candidate melds recur: a hand's melds, and its pickups'
def meld_of(cards: tuple[int, ...], rules: MeldRules) -> Meld:
    """:func:`~cardtable.engine.melds.make_meld` of a listed meld (a sorted tuple), shared."""
    return make_meld(cards, rules)
