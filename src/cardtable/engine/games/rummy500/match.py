"""A Rummy 500 match: the shared table-meld turn with Rummy 500's draw, stock and scoring.

What differs from the base turn, and where:

* the draw (:meth:`Rummy500State._legal_draw`): any depth of the discard
  pile, the deepest card to be used this turn; with the stock empty, no stock
  draw but ``pass`` (the hand ends) unless the pile is reshuffled;
* the discard (:meth:`Rummy500State._apply_discard`): an empty stock does not
  end the hand there; the next player either takes from the pile or ends it;
  under ``calling_rummy`` the discard may first be claimed (:mod:`.calls`);
* scoring (:mod:`.scoring`): table points minus hand, to 500, highest wins.

The shared base dispatches each phase to this class's own ``_legal_<phase>`` and
``_apply_<phase>``, so only the phases that differ are written here; the
default path (no call, stock not empty) is the base's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...api import JSON, Action, Event
from ...cards import JOKER, deck, format_cards, parse, str_card
from ...melds import MeldRules, make_meld
from ...tablemelds import Phase, TableMeldState
from .calls import Call, why_not_call
from .options import Options
from .scoring import ACE_RULES, card_count, hand_count, meld_worth, table_points

NAME = "rummy500"

_DRAW_STOCK, _DRAW_DISCARD, _PASS = Action("draw_stock"), Action("draw_discard"), Action("pass")
_CALL = Action("call")


class Rummy500State(TableMeldState):
    """Rummy 500: 2-8 players, jokers, deep pickups, points for what you lay down."""

    NAME = NAME
    OPTIONS = Options
    options: Options

    # -- hooks ----------------------------------------------------------------------

    def full_deck(self) -> list[int]:
        packs = 2 if self.players >= 5 else 1
        return deck(packs, 2 * packs if self.options.jokers else 0)

    def deal_size(self) -> int:
        return self.options.two_player_cards if self.players == 2 else 7

    def meld_rules(self) -> MeldRules:
        return ACE_RULES[self.options.ace]

    def max_jokers_per_listed_meld(self) -> int:
        # Two: with two jokers a player may lay 7h Jk Jk; more go on by lay-off.
        return 2

    def card_value(self, card: int) -> int:
        return card_count(card)

    def pickup_depth(self) -> int:
        return len(self.full_deck())  # the whole pile, however deep

    def must_use_top_discard(self) -> bool:
        return self.options.top_discard_must_be_used

    def final_discard_required(self) -> bool:
        return self.options.final_discard

    def stock_policy(self) -> str:
        return "shuffle" if self.options.stock_exhausted == "shuffle" else "end_hand"

    # -- the match's extra state --------------------------------------------------------

    def _deal(self) -> None:
        self.call: Call | None = None  # a discard others may claim (calling_rummy)
        super()._deal()

    def _new_turn(self) -> None:
        super()._new_turn()
        self.meld_only = False  # the card that must be used may not be laid off

    # -- the checks -------------------------------------------------------------------

    def canonical(self, action: Action) -> Action:
        """One name per move: ``draw_discard 1`` is the top discard, meld cards in one order."""
        if action.type == "draw_discard" and action.number == 1:
            return _DRAW_DISCARD
        return super().canonical(action)

    def why_illegal(self, action: Action) -> str:
        seat = self.to_act
        if self.phase is Phase.CALL or action.type == "call":
            return why_not_call(self.call if self.phase is Phase.CALL else None,
                                self.options.calling_rummy)
        if action.type == "pass":
            if self.phase is Phase.DRAW:
                return "draw: you may pass (ending the hand) only when the stock is empty"
            return "there is nothing to pass on now"
        if self.phase is Phase.DRAW and seat is not None:
            if action.type == "draw_stock" and not self.stock:
                return "the stock is empty: take from the discard pile, or pass to end the hand"
            depth = action.number or 1
            if action.type == "draw_discard" and not 1 <= depth <= len(self.discard):
                return f"take 1 to {len(self.discard)} cards from the discard pile"
            if action.type == "draw_discard":
                where = "into a new meld" if self.options.pickup_use == "new_meld" \
                    else "on the table"
                return (f"you could not put {format_cards(self.discard[-depth:][:1])} {where} "
                        "this turn")
        return super().why_illegal(action)

    def play_problem(self, action: Action) -> str | None:
        """The shared checks, and ``pickup_use: new_meld``: the card a pickup obliges him
        to use goes into a new meld (see :meth:`_legal_play`)."""
        if action.type == "lay_off" and self.meld_only and action.card in self.must_place:
            return f"{format_cards(self.must_place)} must go into a new meld, not a lay-off"
        return super().play_problem(action)

    # -- the draw ----------------------------------------------------------------------

    def _legal_draw(self) -> list[Action]:
        seat = self._seat()
        hand = self.hands[seat]
        moves = []  # sorted: the pickups by depth, then the stock or a pass
        meld_only = self.options.pickup_use == "new_meld"
        layable = self._layable()
        for depth in range(1, len(self.discard) + 1):
            taken = self.discard[-depth:]
            if depth == 1 and not self.must_use_top_discard():
                moves.append(_DRAW_DISCARD)
            elif self._usable(taken[0], [*hand, *taken], meld_only, taken[0] if depth == 1
                              else None, layable):
                moves.append(_DRAW_DISCARD if depth == 1 else Action("draw_discard", number=depth))
        if self.stock or (self.stock_policy() == "shuffle" and self.discard):
            moves.append(_DRAW_STOCK)  # an empty stock is reshuffled from the pile first
        elif moves:
            moves.append(_PASS)  # the stock is out: he may decline, which ends the hand
        return moves

    def _apply_draw(self, action: Action) -> list[Event]:
        if action.type == "pass":
            return [Event("pass", self._seat(), {}), *self._end_hand(None)]
        events = super()._apply_draw(action)
        if action.type == "draw_discard":
            self.meld_only = self.options.pickup_use == "new_meld" and bool(self.must_place)
        return events

    def usable(self, card: int, pool: Sequence[int], *, meld_only: bool = False,
               taken: int | None = None) -> bool:
        """Whether ``card`` can go on the table from ``pool`` (the hand with it) this turn.

        In a new meld, or laid off unless ``meld_only``; and what is left
        must still let the turn end (``taken``: a card that may not be
        discarded this turn, though its twin from the other pack may).
        """
        return self._usable(card, pool, meld_only, taken, self._layable())

    def _layable(self) -> frozenset[int]:
        """Every card that may be laid off on the table now (one set for all pickups)."""
        return self._table_lay_offs()[1]

    def _usable(self, card: int, pool: Sequence[int], meld_only: bool, taken: int | None,
                layable: frozenset[int]) -> bool:
        def finishes(placed: Sequence[int]) -> bool:
            # ``placed`` comes from ``pool``; two cards left always leave a discard (one
            # is not ``taken``, or both are copies of it and a twin may go)
            left = len(pool) - len(placed)
            if left != 1:
                return left > 1 or not self.final_discard_required()
            kept = Counter(pool) - Counter(placed)
            return any(c != taken or n > 1 for c, n in kept.items())

        if not meld_only and card in layable and finishes([card]):
            return True
        # Only cards of its rank or suit, and jokers, can meld with it: a short list
        # even when a deep pickup has filled the hand.
        near = [c for c in pool if card >= JOKER or c >= JOKER
                or c % 13 == card % 13 or c // 13 == card // 13]
        return any(card in meld and finishes(meld) for meld in self.listed_melds(near))

    def _legal_play(self) -> list[Action]:
        moves = super()._legal_play()
        if self.meld_only and self.must_place:
            return [a for a in moves if a.type != "lay_off"]
        return moves

    def _apply_play(self, action: Action) -> list[Event]:
        events = super()._apply_play(action)
        call = self.call
        if call is not None and call.caller is not None and not self.must_place:
            self.call = None  # the called card is down: the discarder's left plays on
            if self.phase is Phase.PLAY:
                events += self.next_turn(call.discarder)
        return events

    # -- calling Rummy ------------------------------------------------------------------

    def _legal_call(self) -> list[Action]:
        call = self.call
        assert call is not None
        hand = self.hands[self._seat()]
        return [_CALL, _PASS] if self.usable(call.card, [*hand, call.card]) else [_PASS]

    def _apply_call(self, action: Action) -> list[Event]:
        call, seat = self.call, self._seat()
        assert call is not None
        if action.type == "pass":
            events = [Event("pass", seat, {"card": str_card(call.card)})]
            self.call = call.passed()
            if self.call is None:
                return events + self.next_turn(call.discarder)
            self.to_act = self.call.asked
            return events
        taken = self.discard.pop()
        assert taken == call.card
        self.hands[seat].append(taken)
        self.picked[seat].append(taken)  # everyone saw it taken: it is no secret while held
        self.call = call.called()
        self.to_act, self.phase = seat, Phase.PLAY
        self._new_turn()
        self.must_place = [taken]
        return [Event("call", seat, {"card": str_card(taken)})]

    # -- the discard and the next turn ---------------------------------------------------

    def _apply_discard(self, seat: int, action: Action) -> list[Event]:
        assert action.card is not None
        self._remove(seat, (action.card,))
        self.discard.append(action.card)
        events = [Event("discard", seat, {"card": format_cards([action.card])})]
        if not self.hands[seat]:
            return events + self._end_hand(seat)
        self.laid_earlier[seat] = self.laid_earlier[seat] or self.laid_this_turn
        self.turns += 1
        if self.turns >= self.MAX_TURNS_PER_HAND:
            return events + self._end_hand(None)
        if self.options.calling_rummy:
            self.call = Call.offer(action.card, seat, self.players)
            self.to_act, self.phase = self.call.asked, Phase.CALL
            self._new_turn()
            return events
        return events + self.next_turn(seat)

    def next_turn(self, after: int) -> list[Event]:
        """The player after ``after`` draws; with no draw left to him the hand ends."""
        self.call = None
        self.to_act, self.phase = (after + 1) % self.players, Phase.DRAW
        self._new_turn()
        if self.stock or self._legal_draw():
            return []
        return [Event("stock_out", self.to_act, {}), *self._end_hand(None)]

    # -- scoring ----------------------------------------------------------------------

    def settle_hand(self, winner: int | None, rummy: bool) -> dict[str, JSON]:
        o = self.options
        melded = table_points(self.table, self.players, o)
        values = [hand_count(h) for h in self.hands]
        bonus = [o.going_out_bonus if seat == winner else 0 for seat in range(self.players)]
        points = [m - v + b for m, v, b in zip(melded, values, bonus, strict=True)]
        for seat, delta in enumerate(points):
            self.scores[seat] += delta
        return {"melded": melded, "values": values, "bonus": bonus, "points": points}

    def match_winners(self) -> list[int] | None:
        """The highest total once one reaches the target (or after ``deals`` deals);
        a tie for highest plays on, one more hand at a time."""
        o = self.options
        best = max(self.scores)
        done = len(self.history) >= o.deals if o.deals else best >= o.target
        if not done or self.scores.count(best) > 1:
            return None
        return [self.scores.index(best)]

    # -- views ------------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        out = super().view(seat)
        out["table_points"] = table_points(self.table, self.players, self.options)
        out["call"] = None if self.call is None else self.call.to_json()
        return out

    def _candidate_view(self) -> list[JSON]:
        # The base values a meld as a first-meld minimum would; here it is its score.
        found = super()._candidate_view()
        for entry in found:
            meld = make_meld(parse(" ".join(entry["cards"])), self.meld_rules())
            entry["value"] = meld_worth(meld.kind, meld.cards, meld.stands_for, self.options)
        return found


__all__ = ["NAME", "Phase", "Rummy500State"]
