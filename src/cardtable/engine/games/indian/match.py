"""An Indian Rummy match: one explicit phase at a time, one small function per phase.

Why its own state class and not :class:`~cardtable.engine.tablemelds.TableMeldState`:
nothing is ever laid on the table here.  The turn is draw-then-discard as
in Gin, players leave a deal (drop, wrong show) while it goes on for the
others, and the end of a deal is an auto-arranged show.  What is shared is
the contract's machinery: :class:`~cardtable.engine.api.Chance` for every
shuffle, the :class:`~cardtable.engine.api.Action` codec, and the meld rules
of :mod:`cardtable.engine.melds` with a wild rank, which read and order the
groups players see (:mod:`.layout`) and check the exact search (:mod:`.arrange`)
in the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum

from ... import api
from ...api import JSON, Action, Event
from ...cards import JOKER, str_card
from ...state import GameState
from . import arrange
from .layout import DealOutcome
from .options import Options
from .scoring import Standing, hand_points

NAME = "indian"
HAND_SIZE = 13

_DRAW_STOCK, _DRAW_DISCARD, _DROP, _DEAL = (
    Action("draw_stock"), Action("draw_discard"), Action("drop"), Action("deal"))


class Phase(api.Phase):
    DRAW = "draw"  # draw from the closed or the open deck, or drop
    DISCARD = "discard"  # holding 14: discard, or declare with a finish card
    DEAL_OVER = "deal_over"  # the next dealer deals
    MATCH_OVER = "match_over"


class Seat(StrEnum):
    """Where a seat stands in the current deal."""

    PLAYING = "playing"
    DROPPED = "dropped"
    WRONG_SHOW = "wrong_show"
    DECLARED = "declared"  # made the valid show
    OUT = "out"  # pool: eliminated, not dealt in


class IndianRules(GameState):
    """The phases and rules of a match; :class:`~.state.IndianState` adds what each seat
    may know (:mod:`.views`), which reads this class."""

    NAME = NAME
    OPTIONS = Options
    SORT_LEGAL = True
    Phase = Phase
    options: Options

    def setup(self) -> None:
        self.options.check_players(self.players)
        self.standing = Standing(self.options, self.players)
        self.history: list[dict[str, JSON]] = []
        self.deal_number = 0
        self.final: dict[str, JSON] | None = None
        self.last: Mapping[str, JSON] | None = None  # the last deal's outcome, hands revealed
        # the toss: the seat it picks plays first, so the dealer sits before it
        self.dealer = self.step(self._chance.below(self.players), -1)
        self._deal()

    # -- seats and dealing ---------------------------------------------------------

    def step(self, seat: int, by: int = 1) -> int:
        """The seat ``by`` places on in the direction of play."""
        sign = 1 if self.options.direction == "clockwise" else -1
        return (seat + by * sign) % self.players

    def next_in(self, seat: int, allowed: Callable[[int], bool]) -> int:
        for k in range(1, self.players + 1):
            nxt = self.step(seat, k)
            if allowed(nxt):
                return nxt
        raise AssertionError("no seat qualifies")

    def full_deck(self) -> list[int]:
        packs = self.options.decks
        return [c for _ in range(packs) for c in range(52)] + [JOKER] * packs

    def _deal(self) -> None:
        deck = self._chance.deck(self.full_deck())
        self.deal_number += 1
        n = self.players
        self.status = [Seat.OUT if out else Seat.PLAYING for out in self.standing.out]
        first = self.next_in(self.dealer, self.playing)
        dealt = [s for s in (self.step(first, k) for k in range(n)) if self.playing(s)]
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(HAND_SIZE * len(dealt)):
            self.hands[dealt[i % len(dealt)]].append(deck[i])
        at = HAND_SIZE * len(dealt)
        self.cut = deck[at]  # the wild joker card, face up under the closed deck
        self.open = [deck[at + 1]]
        self.closed = deck[:at + 1:-1]  # reversed: pop() takes the card after the open card
        self.initial_open = True  # the open deck's bottom card is the dealt one, not a discard
        if self.cut >= JOKER:
            self.wild: int | None = 0 if self.options.printed_joker_cut == "aces_wild" else None
        else:
            self.wild = self.cut % 13
        self.picked: list[list[int]] = [[] for _ in range(n)]  # taken from the open deck, held
        self.draws = [0] * n
        self.penalty: list[int | None] = [None] * n
        self.finish: dict[int, int] = {}  # seat -> its face-down finish card
        self.dealt = dealt
        self.revealed = False
        self.taken: int | None = None
        self.to_act: int | None = first
        self.phase = Phase.DRAW

    def playing(self, seat: int) -> bool:
        return self.status[seat] is Seat.PLAYING

    def is_joker(self, card: int) -> bool:
        return card >= JOKER or card % 13 == self.wild

    # -- refusals ------------------------------------------------------------------------

    def why_illegal(self, action: Action) -> str:
        if self.phase is Phase.MATCH_OVER:
            return "the match is over"
        kind = action.type
        if kind not in ("draw_stock", "draw_discard", "drop", "discard", "declare", "deal"):
            return f"there is no move called {kind!r} in indian rummy"
        if self.phase is Phase.DEAL_OVER:
            return "the deal is over: the next dealer deals"
        if self.phase is Phase.DRAW:
            if kind == "draw_discard":
                return ("a joker a player discarded may not be taken from the open deck"
                        if self.open else "the open deck is empty")
            if kind == "drop":
                return "dropping is not allowed in this format"
            if kind == "deal":
                return "the deal is still being played"
            return "draw a card first: from the closed deck or the open deck"
        if kind in ("discard", "declare") and action.card is not None:
            if action.card not in self.hands[self._seat()]:
                return f"you do not hold {str_card(action.card)}"
            return "the card just taken from the open deck may not be discarded this turn"
        if kind == "drop":
            return "a drop is made before drawing"
        return "you hold 14 cards: discard one, or declare with a finish card"

    # -- phase: draw ----------------------------------------------------------------------

    def _legal_draw(self) -> list[Action]:
        moves = [_DRAW_STOCK]  # an empty closed deck is renewed from the open deck first
        if self.open and self.may_take(self.open[-1]):
            moves.append(_DRAW_DISCARD)
        if self.options.drops is not None:
            moves.append(_DROP)
        return moves

    def may_take(self, card: int) -> bool:
        if self.options.joker_pickup == "allowed" or not self.is_joker(card):
            return True
        return self.initial_open and len(self.open) == 1  # the dealt open card may be taken

    def _apply_draw(self, action: Action) -> list[Event]:
        seat = self._seat()
        if action.type == "drop":
            return self._drop(seat)
        events: list[Event] = []
        self.draws[seat] += 1
        self.phase = Phase.DISCARD
        if action.type == "draw_stock":
            if not self.closed:
                events.append(self._renew_closed())
            card = self.closed.pop()
            self.hands[seat].append(card)
            events.append(Event("draw_stock", seat, {"closed": len(self.closed)},
                                {"card": str_card(card)}))
            return events
        card = self.open.pop()
        if not self.open:
            self.initial_open = False
        self.hands[seat].append(card)
        self.picked[seat].append(card)
        self.taken = card
        return [Event("draw_discard", seat, {"card": str_card(card)})]

    def _renew_closed(self) -> Event:
        """The open deck but its top card, shuffled (a recorded chance outcome), is the new
        closed deck."""
        self.closed = self._chance.deck(self.open[:-1])
        self.open = self.open[-1:]
        self.initial_open = False
        return Event("renew_closed", None, {"closed": len(self.closed)})

    def _drop(self, seat: int) -> list[Event]:
        drops = self.options.drops
        assert drops is not None
        middle = self.draws[seat] > 0
        self.penalty[seat] = drops[middle]
        self.status[seat] = Seat.DROPPED
        event = Event("drop", seat, {"points": drops[middle],
                                     "kind": "middle" if middle else "first"})
        return [event, *self._next_turn(seat)]

    def _next_turn(self, seat: int) -> list[Event]:
        """The turn passes on, unless one player is left in the deal: he wins it."""
        left = [s for s in self.dealt if self.playing(s)]
        if len(left) == 1:
            return self._end_deal(left[0], shown=False)
        self.to_act = self.next_in(seat, self.playing)
        self.phase = Phase.DRAW
        self.taken = None
        return []

    # -- phase: discard -------------------------------------------------------------------

    def _legal_discard(self) -> list[Action]:
        hand = self.hands[self._seat()]
        moves = [Action("declare", card=c) for c in set(hand)]
        for c in set(hand):
            if self.options.discard_taken or c != self.taken or hand.count(c) > 1:
                moves.append(Action("discard", card=c))
        return moves

    def _apply_discard(self, action: Action) -> list[Event]:
        seat = self._seat()
        card = action.card
        assert card is not None
        self.hands[seat].remove(card)
        if card in self.picked[seat]:
            self.picked[seat].remove(card)
        if action.type == "declare":
            return self._declare(seat, card)
        self.open.append(card)
        return [Event("discard", seat, {"card": str_card(card)}), *self._next_turn(seat)]

    def _declare(self, seat: int, card: int) -> list[Event]:
        self.finish[seat] = card
        if arrange.valid_show(self.hands[seat], self.wild, self.options.rules):
            self.status[seat] = Seat.DECLARED
            return [Event("declare", seat, {"valid": True}), *self._end_deal(seat, shown=True)]
        self.status[seat] = Seat.WRONG_SHOW
        self.penalty[seat] = self.options.wrong_show
        events = [Event("declare", seat, {"valid": False, "points": self.options.wrong_show})]
        if self.options.wrong_show_ends_deal:
            return events + self._end_deal(None, shown=False)
        return events + self._next_turn(seat)

    # -- the end of a deal ----------------------------------------------------------------

    def _end_deal(self, winner: int | None, shown: bool) -> list[Event]:
        o = self.options
        half = shown and winner is not None and o.first_turn_show == "half" \
            and self.draws[winner] == 1
        points: list[int | None] = list(self.penalty)
        for seat in self.dealt:
            if seat == winner:
                points[seat] = 0
            elif not self.playing(seat):
                continue  # dropped or a wrong show: its penalty
            elif o.wrong_show_ends_deal and winner is None:
                points[seat] = 0  # only the wrong show pays
            else:
                points[seat] = hand_points(self.hands[seat], self.wild, o, half)
        row: dict[str, JSON] = {
            "deal": self.deal_number, "dealer": self.dealer, "winner": winner, "shown": shown,
            "half_rate": half, "status": [s.value for s in self.status], "points": points,
        }
        row.update(self.standing.settle(points, winner))
        row["scores"] = self.standing.scores()
        self.history.append(row)
        self.revealed = True
        # the scorecard row names no card: the next deal may hide a card of the same name
        self.last = DealOutcome({**row, "wild": str_card(self.cut)},
                                tuple(tuple(h) if s in self.dealt else None
                                      for s, h in enumerate(self.hands)),
                                tuple(self.finish.get(s) for s in range(self.players)),
                                self.wild, o.rules, winner)
        events = [Event("deal_over", None, self.last)]
        winners = self.standing.winners(self.dealt)
        if winners is not None:
            self.final = {"winners": winners, "scores": self.standing.scores(),
                          "totals": list(self.standing.totals)}
            self.to_act, self.phase = None, Phase.MATCH_OVER
            events.append(Event("match_over", None, self.final))
        else:
            self.to_act = self.next_in(self.dealer, lambda s: not self.standing.out[s])
            self.phase = Phase.DEAL_OVER
        self.taken = None
        return events

    def _legal_deal_over(self) -> list[Action]:
        return [_DEAL]

    def _apply_deal_over(self, action: Action) -> list[Event]:
        self.dealer = self._seat()
        self.last = None
        self._deal()
        return [Event("deal", self.dealer, {"deal": self.deal_number, "wild": str_card(self.cut),
                                            "open": str_card(self.open[-1])})]

    def result(self) -> dict[str, JSON]:
        """Winners, scores and totals, and the per-deal scorecard (``hands``, as every game
        names its rows)."""
        return {"over": self.is_over(), **(self.final or {}), "scores": self.standing.scores(),
                "hands": list(self.history)}


__all__ = ["HAND_SIZE", "NAME", "IndianRules", "Phase", "Seat"]
