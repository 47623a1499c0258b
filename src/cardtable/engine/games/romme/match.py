"""A Rommé match: the shared table-meld turn with German Rommé's hooks, deal and scoring."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ...api import JSON, Action, Event
from ...cards import deck, parse
from ...melds import Meld, MeldRules, make_meld
from ...tablemelds import Phase, TableMeld, TableMeldState, candidate_melds, extension_cards
from .options import Options
from .values import joker_problem, melding_points, penalty

NAME = "romme"

NEVER_REUSED = 10**6
"""The discard pile becomes the stock as often as needed; the turn guard ends a deadlock."""


class RommeState(TableMeldState):
    """German Rommé: two packs and jokers, a 40-point first meld, penalties in hand."""

    NAME = NAME
    OPTIONS = Options
    options: Options

    def setup(self) -> None:
        self.eliminated: list[int] = []  # seats out of an elimination match, in order
        self.out_now: list[int] = []  # eliminated by the last hand
        super().setup()

    # -- cards and the deal ---------------------------------------------------------

    def full_deck(self) -> list[int]:
        return deck(packs=2, jokers=self.options.jokers)

    def deal_size(self) -> int:
        if self.options.short_hands_5_6 and len(self.live_seats()) >= 5:
            return 11
        return self.options.hand_size

    def live_seats(self, after: int | None = None) -> list[int]:
        """Seats still in the match, clockwise from the left of ``after`` (default: dealer),
        ``after`` itself last."""
        start = self.dealer if after is None else after
        seats = [(start + k) % self.players for k in range(1, self.players + 1)]
        return [s for s in seats if s not in self.eliminated]

    def _deal(self) -> None:
        # The base resets the hand and deals every seat from a freshly shuffled (and
        # recorded) deck; Rommé deals that same deck order again to the seats still in
        # the match, the dealer's extra card in place of an upcard.
        super()._deal()
        order = parse(self._chance.outcomes[-1])
        live, size = self.live_seats(), self.deal_size()
        dealt = len(live) * size
        self.hands = [[] for _ in range(self.players)]
        for i in range(dealt):
            self.hands[live[i % len(live)]].append(order[i])
        if self.options.deal == "dealer_extra":
            # the dealer opens without drawing: he may come out, then discards
            self.hands[self.dealer].append(order[dealt])
            self.discard = []
            self.to_act, self.phase = self.dealer, Phase.PLAY
        else:
            self.discard = [order[dealt]]
            self.to_act, self.phase = live[0], Phase.DRAW
        self.stock = order[:dealt:-1]  # reversed: pop() takes the card after the last dealt

    def next_dealer(self, winner: int | None) -> int:
        return self.live_seats()[0]

    # -- meld rules and values ------------------------------------------------------------

    def meld_rules(self) -> MeldRules:
        return _AROUND_THE_CORNER if self.options.king_ace_two else _ACE_HIGH

    def max_jokers_per_listed_meld(self) -> int:
        # two jokers in one listed meld (7h Jk Jk) is legal by default; three is never wise
        return 1 if self.options.joker_limit == "one_per_meld" else 2

    def meld_problem(self, meld: Meld | TableMeld) -> str | None:
        return joker_problem(self.options.joker_limit, meld)

    def listed_melds(self, hand: Sequence[int]) -> list[tuple[int, ...]]:
        rules, limit = self.meld_rules(), self.options.joker_limit
        found = candidate_melds(hand, rules, self.max_jokers_per_listed_meld())
        if limit == "none":  # candidates are melds, and the rule asks nothing of them
            return found
        return [m for m in found if _allowed(m, rules, limit)]

    def extension_cards(self, meld: TableMeld) -> frozenset[int]:
        return _extension_cards(meld, self.meld_rules(), self.options.joker_limit)

    def card_value(self, card: int) -> int:
        return penalty([card], self.options.joker_penalty, self.options.ace_penalty)

    def meld_value(self, stands_for: Sequence[int]) -> int:
        return melding_points(stands_for)

    # -- the turn ---------------------------------------------------------------------------

    def opening_minimum(self, seat: int) -> int:
        return self.options.first_meld

    def may_lay_off(self, seat: int) -> bool:
        return self.has_melded[seat]

    def may_swap_jokers(self, seat: int) -> bool:
        return self.has_melded[seat]

    def must_use_top_discard(self) -> bool:
        return self.options.top_discard_must_be_used

    def final_discard_required(self) -> bool:
        return self.options.final_discard

    def stock_policy(self) -> str:
        # the top discard stays out of a renewed stock: with no card under it there is
        # nothing to renew, and the hand ends as if the stock could not be renewed
        if self.options.stock_exhausted == "end_hand" or (not self.stock
                                                          and len(self.discard) < 2):
            return "end_hand"
        return "shuffle"

    def stock_reuses(self) -> int:
        return NEVER_REUSED

    def _renew_stock(self) -> Event:
        """Every discard but the top one, shuffled (and recorded), is the new stock."""
        self.recycles += 1
        top = self.discard.pop()
        self.stock, self.discard = self._chance.deck(self.discard), [top]
        return Event("renew_stock", None, {"stock": len(self.stock), "shuffled": True})

    def _apply_discard(self, seat: int, action: Action) -> list[Event]:
        events = super()._apply_discard(seat, action)
        if self.phase is Phase.DRAW:  # play passes over eliminated seats
            self.to_act = self.live_seats(after=seat)[0]
        return events

    # -- scoring ------------------------------------------------------------------------------

    def settle_hand(self, winner: int | None, rummy: bool) -> dict[str, JSON]:
        o = self.options
        values = [penalty(h, o.joker_penalty, o.ace_penalty) for h in self.hands]
        multiplier = o.hand_romme_multiplier if rummy else 1
        live = self.live_seats()
        owed = [0] * self.players
        for seat in live:
            if seat == winner:
                continue
            owed[seat] = values[seat]
            if not self.has_melded[seat]:
                owed[seat] = {"hand": values[seat], "fixed_100": 100,
                              "double": 2 * values[seat]}[o.never_out]
            owed[seat] *= multiplier
        points = list(owed)
        if winner is not None and o.winner_scores == "sum":
            points[winner] = -sum(owed)  # plus points, entered on a penalty scorecard
        for seat, delta in enumerate(points):
            self.scores[seat] += delta
        self.out_now = []
        if o.end == "elimination":
            self.out_now = [s for s in live if self.scores[s] >= o.eliminate_at]
            self.eliminated += self.out_now
        return {"values": values, "came_out": list(self.has_melded), "hand_romme": rummy,
                "multiplier": multiplier, "points": points, "eliminated": list(self.eliminated)}

    def match_winners(self) -> list[int] | None:
        o = self.options
        if o.end == "elimination":
            live = self.live_seats()
            if len(live) > 1:
                return None
            if live:
                return live
            # the last players went out together: the lowest of them wins
            best = min(self.scores[s] for s in self.out_now)
            return sorted(s for s in self.out_now if self.scores[s] == best)
        if o.end == "limit" and max(self.scores) <= o.target:
            return None
        if o.end == "deals" and len(self.history) < (o.deals or self.players):
            return None
        best = min(self.scores)
        return [seat for seat, score in enumerate(self.scores) if score == best]

    # -- views ------------------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        out = super().view(seat)
        out["eliminated"] = list(self.eliminated)
        return out

    def result(self) -> dict[str, JSON]:
        return {**super().result(), "eliminated": list(self.eliminated)}


_ACE_HIGH = MeldRules(ace_high=True)
_AROUND_THE_CORNER = MeldRules(ace_high=True, around_corner=True)


@lru_cache(maxsize=8192)  # the candidate melds of the hands a match meets
def _allowed(cards: tuple[int, ...], rules: MeldRules, limit: str) -> bool:
    """Whether a candidate meld keeps the ``joker_limit``: Rommé's ``meld_problem``."""
    return joker_problem(limit, make_meld(cards, rules)) is None


@lru_cache(maxsize=4096)  # a table's melds, asked at every position until they change
def _extension_cards(meld: TableMeld, rules: MeldRules, limit: str) -> frozenset[int]:
    return extension_cards(meld, rules, lambda longer: joker_problem(limit, longer))


__all__ = ["NAME", "Phase", "RommeState"]
