"""A Rummy match: the shared table-meld turn with classic Rummy's hooks and scoring."""

from __future__ import annotations

from ...api import JSON
from ...cards import JOKER, deadwood_value
from ...melds import MeldRules
from ...tablemelds import Phase, TableMeldState
from .options import Options

NAME = "rummy"

_ACE_RULES = {
    "low": MeldRules(),
    "high_or_low": MeldRules(ace_high=True),
    "around": MeldRules(ace_high=True, around_corner=True),
}


def hand_value(cards: list[int], options: Options) -> int:
    """What cards left in hand count: ace 1 (or 15), pips at face value, court cards 10.

    >>> from cardtable.engine.cards import parse
    >>> hand_value(parse("Ks 7d Ac"), Options())
    18
    """
    return sum(options.ace_value if c % 13 == 0 and c < JOKER else deadwood_value(c)
               for c in cards)


class RummyState(TableMeldState):
    """Classic Rummy: one pack, no jokers; the options pick the house rules."""

    NAME = NAME
    OPTIONS = Options
    options: Options

    # -- hooks ----------------------------------------------------------------------

    def deal_size(self) -> int:
        if self.players == 2:
            return self.options.two_player_cards
        return 7 if self.players <= 4 else 6

    def meld_rules(self) -> MeldRules:
        return _ACE_RULES[self.options.ace]

    def card_value(self, card: int) -> int:
        return hand_value([card], self.options)

    def melds_per_turn(self) -> int | None:
        return 1 if self.options.melds_per_turn == "one" else None

    def may_lay_off(self, seat: int) -> bool:
        return self.options.lay_off_before_meld or self.has_melded[seat]

    def must_use_top_discard(self) -> bool:
        return self.options.top_discard_must_be_used

    def final_discard_required(self) -> bool:
        return self.options.final_discard

    def stock_policy(self) -> str:
        return {"block": "end_hand"}.get(self.options.stock_exhausted,
                                          self.options.stock_exhausted)

    def stock_reuses(self) -> int:
        return self.options.stock_reuses

    # -- scoring ----------------------------------------------------------------------

    def settle_hand(self, winner: int | None, rummy: bool) -> dict[str, JSON]:
        o = self.options
        values = [hand_value(h, o) for h in self.hands]
        multiplier = o.rummy_multiplier if rummy else 1
        scorer = winner
        if winner is None and o.blocked_hand == "lowest_wins":
            low = min(values)
            if values.count(low) == 1:
                scorer = values.index(low)
        deltas = [0] * self.players
        if scorer is not None:
            owed = [(v - values[scorer]) * multiplier for v in values]
            if o.scoring == "winner_takes":
                deltas[scorer] = sum(owed)
            else:
                deltas = owed
        for seat, delta in enumerate(deltas):
            self.scores[seat] += delta
        return {"values": values, "multiplier": multiplier, "scorer": scorer, "points": deltas}

    def match_winners(self) -> list[int] | None:
        o = self.options
        done = len(self.history) >= o.deals if o.deals else max(self.scores) >= o.target
        if not done:
            return None
        best = max(self.scores) if o.scoring == "winner_takes" else min(self.scores)
        return [seat for seat, score in enumerate(self.scores) if score == best]

    def next_dealer(self, winner: int | None) -> int:
        if self.players == 2 and self.options.next_dealer == "winner" and winner is not None:
            return winner
        return (self.dealer + 1) % self.players


__all__ = ["NAME", "Phase", "RummyState", "hand_value"]
