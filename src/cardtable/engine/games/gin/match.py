"""A Gin Rummy match: one explicit phase at a time, one small function per phase."""

from __future__ import annotations

import random
from typing import Any

from ... import api
from ...api import JSON, Action, Event, IllegalAction
from ...cards import format_cards, str_card
from ...state import GameState, Held, take_guesses
from .options import Options
from .settlement import final_settlement, match_over
from .showdown import SOLVER, Settlement, settle, value

NAME = "gin"
HAND_SIZE = 10
_SHOWDOWNS = frozenset({"knock", "gin", "big_gin"})


_DISCARD = [Action("discard", card=c) for c in range(52)]
_KNOCK = [Action("knock", card=c) for c in range(52)]
_GIN = [Action("gin", card=c) for c in range(52)]
_BIG_GIN, _DEAL, _PASS = Action("big_gin"), Action("deal"), Action("pass")
_TAKE_UPCARD, _DRAW_STOCK, _DRAW_DISCARD = (
    Action("take_upcard"), Action("draw_stock"), Action("draw_discard"))


class Phase(api.Phase):
    FIRST_UPCARD = "first_upcard"  # take the first upcard or pass
    DRAW = "draw"  # draw from the stock or the discard pile
    DISCARD = "discard"  # holding 11: discard, knock, gin or big gin
    FINAL_DISCARD = "final_discard"  # 50th-card rule: take the last discard to knock, or pass
    HAND_OVER = "hand_over"  # the next dealer deals
    MATCH_OVER = "match_over"


class GinState(GameState):
    """The whole match; mutate only through :meth:`apply`."""

    NAME = NAME
    OPTIONS = Options
    Phase = Phase
    options: Options

    def setup(self) -> None:
        self.points = [0, 0]  # hand points won
        self.boxes = [0, 0]
        self.history: list[dict[str, JSON]] = []  # one scorecard row per hand
        self.hand_number = 0
        self.final: dict[str, JSON] | None = None
        self.last: dict[str, JSON] | None = None  # the last hand's outcome
        self.dealer = self._chance.below(2)
        self._deal()

    # -- dealing -----------------------------------------------------------------

    def _deal(self) -> None:
        deck = self._chance.deck(range(52))
        first = 1 - self.dealer
        self.hand_number += 1
        self.hands: list[list[int]] = [[], []]
        for i in range(2 * HAND_SIZE):
            self.hands[(first + i) % 2].append(deck[i])
        self.upcard = deck[2 * HAND_SIZE]
        self.discard = [self.upcard]
        self.stock = deck[:2 * HAND_SIZE:-1]  # reversed: pop() takes the card after the upcard
        self.face_down: list[int] = []
        self.picked: list[set[int]] = [set(), set()]
        self.taken: int | None = None  # card taken from the discard pile this turn
        self.must_knock = False
        self.stock_only = False
        self.passes = 0
        self.knock_limit, self.multiplier = self._hand_terms()
        self.to_act: int | None = first
        self.phase = Phase.FIRST_UPCARD if self.options.first_upcard else Phase.DRAW
        self.revealed = False

    def _hand_terms(self) -> tuple[int, int]:
        """(knock limit, score multiplier) of this hand."""
        o = self.options
        if not o.oklahoma:
            return o.knock_limit, 1
        rank = self.upcard % 13
        limit = min(rank + 1, 10) if rank else (1 if o.oklahoma_ace == "one" else 0)
        return limit, 2 if o.spade_doubles and self.upcard // 13 == 3 else 1

    # -- the checks: a knock may carry its own spread -------------------------------------

    def is_legal(self, action: Action) -> bool:
        """A knock or gin may name the knocker's melds (``melds``): legal when the same move
        without them is, and :meth:`check` then settles that spread."""
        if not action.melds:
            return super().is_legal(action)
        return action.type in ("knock", "gin") and \
            super().is_legal(Action(action.type, card=action.card))

    def check(self, action: Action) -> Action:
        action = super().check(action)
        if action.melds:
            self._settle(action)  # refuses a spread that is no valid knock, before any change
        return action

    def why_illegal(self, action: Action) -> str:
        names = {"take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock",
                 "gin", "big_gin", "deal"}
        if action.type not in names:
            return f"{action.type!r} is not a move in gin rummy"
        if self.phase is Phase.MATCH_OVER:
            return "the match is over"
        seat = self.to_act
        assert seat is not None
        hand = self.hands[seat]
        if action.card is not None and action.card not in hand:
            return f"you do not hold {str_card(action.card)}"
        if self.phase is Phase.FIRST_UPCARD and action.type not in ("take_upcard", "pass"):
            return "first take the upcard or pass"
        if self.phase is Phase.DRAW and action.type in ("discard", "knock", "gin"):
            return "you must draw before you discard"
        if self.phase is Phase.DISCARD and action.type.startswith("draw"):
            return "you have drawn already; now discard"
        if action.card is not None and action.card == self.taken:
            return "you may not discard the card you just took from the discard pile"
        knocking = action.type in ("knock", "gin") and action.card is not None
        if self.phase is Phase.DISCARD and knocking and action.card is not None:
            left = SOLVER.deadwood(c for c in hand if c != action.card)
            if action.type == "gin" and left:
                return f"gin needs no deadwood; you would keep {left}"
            if action.type == "knock" and left > self.knock_limit:
                return f"deadwood {left} is above the knock limit {self.knock_limit}"
            if action.type == "knock" and left == 0:
                return "with no deadwood you go gin: use gin"
        if self.phase is Phase.DISCARD and self.must_knock and action.type == "discard":
            return "you took the last discard, so you must knock or go gin"
        if action.type == "big_gin" and self.phase is Phase.DISCARD:
            if not self.options.big_gin_bonus:
                return "big gin is not played at this table"
            return f"big gin needs all 11 cards melded; deadwood is {SOLVER.deadwood(hand)}"
        if action.type == "draw_discard" and self.stock_only:
            return "both passed the upcard, so the first draw is from the stock"
        if action.melds and action.type not in ("knock", "gin"):
            return "only a knock or gin may carry an arrangement of melds"
        return f"{action} is not allowed now ({self.phase.value.replace('_', ' ')})"

    def _settle(self, action: Action) -> Settlement:
        """The showdown of a knock, gin or big gin: with the knocker's own spread when the
        move names one, else the one that scores best for him."""
        seat = self._seat()
        hand = [c for c in self.hands[seat] if c != action.card]
        try:
            result = settle(hand, self.hands[1 - seat], self.options, knock_limit=self.knock_limit,
                            multiplier=self.multiplier, arrangement=action.melds or None)
        except ValueError as error:
            raise IllegalAction(str(error)) from None
        if action.type == "gin" and result.knocker_points:
            raise IllegalAction(f"gin needs no deadwood; your spread leaves "
                                f"{result.knocker_points}")
        return result

    # -- phase: first upcard -----------------------------------------------------

    def _legal_first_upcard(self) -> list[Action]:
        return [_PASS, _TAKE_UPCARD]

    def _apply_first_upcard(self, action: Action) -> list[Event]:
        seat = self._seat()
        if action.type == "take_upcard":
            return [self._take_discard(seat, "take_upcard")]
        self.passes += 1
        if self.passes == 1:
            self.to_act = 1 - seat
        else:
            self.to_act, self.phase, self.stock_only = 1 - seat, Phase.DRAW, True
        return [Event("pass", seat)]

    def _take_discard(self, seat: int, kind: str) -> Event:
        card = self.discard.pop()
        self.hands[seat].append(card)
        self.picked[seat].add(card)
        self.taken, self.phase = card, Phase.DISCARD
        return Event(kind, seat, {"card": str_card(card)})

    # -- phase: draw -------------------------------------------------------------

    def _legal_draw(self) -> list[Action]:
        moves = [_DRAW_DISCARD] if self.discard and not self.stock_only else []
        if self.stock:
            moves.append(_DRAW_STOCK)
        return moves

    def _apply_draw(self, action: Action) -> list[Event]:
        seat = self._seat()
        self.stock_only = False
        if action.type == "draw_discard":
            return [self._take_discard(seat, "draw_discard")]
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.taken, self.phase = None, Phase.DISCARD
        return [Event("draw_stock", seat, {"stock": len(self.stock)}, {"card": str_card(card)})]

    # -- phase: discard (or knock) -------------------------------------------------

    def _legal_discard(self) -> list[Action]:
        # Built in sorted order (type, then card) from shared Action objects:
        # random playouts and bots call this on every turn.
        hand = sorted(self.hands[self._seat()])
        least, _ = SOLVER.best_discard(hand)
        # 11 cards all melded include a meld of 4+ that can spare a card, so
        # big gin is only possible when some discard leaves no deadwood.
        moves = [_BIG_GIN] if self.options.big_gin_bonus and least == 0 and \
            SOLVER.deadwood(hand) == 0 else []
        if not self.must_knock:
            moves += [_DISCARD[c] for c in hand if c != self.taken]
        if least <= self.knock_limit:
            after = SOLVER.deadwood_after_each_discard(hand)
            allowed = [c for c in hand if c != self.taken and after[c] <= self.knock_limit]
            moves += [_GIN[c] for c in allowed if after[c] == 0]
            moves += [_KNOCK[c] for c in allowed if after[c] > 0]
        return moves

    def _apply_discard(self, action: Action) -> list[Event]:
        seat = self._seat()
        hand = self.hands[seat]
        if action.type in _SHOWDOWNS:
            settlement = self._settle(action)
            if action.card is not None:
                hand.remove(action.card)
                self.picked[seat].discard(action.card)
                self.face_down.append(action.card)
            return [Event(action.type, seat), *self._end_hand(seat, settlement)]
        assert action.card is not None
        hand.remove(action.card)
        self.picked[seat].discard(action.card)
        self.discard.append(action.card)
        self.taken, self.must_knock = None, False
        events = [Event("discard", seat, {"card": str_card(action.card)})]
        if len(self.stock) > self.options.stock_floor:
            self.to_act, self.phase = 1 - seat, Phase.DRAW
        elif self.options.fiftieth_card and self._can_knock_with(1 - seat, action.card):
            self.to_act, self.phase = 1 - seat, Phase.FINAL_DISCARD
        else:
            events += self._end_hand(None, None)
        return events

    def _can_knock_with(self, seat: int, card: int) -> bool:
        after = SOLVER.deadwood_after_each_discard([*self.hands[seat], card])
        return any(left <= self.knock_limit for c, left in after.items() if c != card)

    # -- phase: final discard (50th-card rule) -------------------------------------

    def _legal_final_discard(self) -> list[Action]:
        return [_DRAW_DISCARD, _PASS]

    def _apply_final_discard(self, action: Action) -> list[Event]:
        seat = self._seat()
        if action.type == "pass":
            return [Event("pass", seat), *self._end_hand(None, None)]
        self.must_knock = True
        return [self._take_discard(seat, "draw_discard")]

    # -- phase: hand over ------------------------------------------------------------

    def _legal_hand_over(self) -> list[Action]:
        return [_DEAL]

    def _apply_hand_over(self, action: Action) -> list[Event]:
        self.dealer = self._seat()
        self.last = None
        self._deal()
        return [Event("deal", self.dealer, {"hand": self.hand_number,
                                            "upcard": str_card(self.upcard)})]

    # -- scoring -----------------------------------------------------------------------

    def _end_hand(self, knocker: int | None, settlement: Settlement | None) -> list[Event]:
        row: dict[str, JSON] = {"hand": self.hand_number, "dealer": self.dealer,
                                "upcard": str_card(self.upcard), "knock_limit": self.knock_limit,
                                "multiplier": self.multiplier}
        winner: int | None = None
        if settlement is None or knocker is None:
            row.update(kind="void", winner=None, points=0, boxes=0)
            next_dealer = self.dealer
        else:
            row.update(settlement.to_json(), knocker_seat=knocker)
            if settlement.scorer is not None:
                winner = knocker if settlement.scorer == "knocker" else 1 - knocker
                boxes = 2 if self.options.double_boxes and self.multiplier == 2 else 1
                self.points[winner] += settlement.points
                self.boxes[winner] += boxes
                row["boxes"] = boxes
            row["winner"] = winner
            self.revealed = True
            next_dealer = self._next_dealer(winner)
        row["totals"] = self.scores()
        self.history.append(row)
        self.last = row
        self.to_act, self.phase = next_dealer, Phase.HAND_OVER
        events = [Event("hand_over", None, row)]
        over, match_winner = match_over(self.points, self.boxes, len(self.history), winner,
                                        self.scores(), self.options)
        if over:
            self.final = final_settlement(self.points, self.boxes, match_winner, self.options)
            self.to_act, self.phase = None, Phase.MATCH_OVER
            events.append(Event("match_over", None, self.final))
        return events

    def _next_dealer(self, winner: int | None) -> int:
        rule = self.options.next_dealer
        if rule == "alternate":
            return 1 - self.dealer
        if winner is None:
            return self.dealer
        return winner if rule == "winner" else 1 - winner

    def scores(self) -> list[int]:
        """Running scores toward the target (boxes count only when credited at once)."""
        if self.options.box_timing == "immediate":
            return [p + b * self.options.box_bonus for p, b in zip(self.points, self.boxes,
                                                                   strict=True)]
        return list(self.points)

    def result(self) -> dict[str, JSON]:
        """Final settlement (winner, totals, margin) and the per-hand scorecard."""
        return {"over": self.is_over(), **(self.final or {}), "scores": self.scores(),
                "hands": self.history}

    # -- views, records, search ---------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        """Everything ``seat`` may know (``None``: a spectator), plus its legal moves."""
        hands: list[dict[str, JSON]] = []
        for s, hand in enumerate(self.hands):
            entry: dict[str, JSON] = {"count": len(hand),
                                      "picked": format_cards(sorted(self.picked[s])).split()}
            if s == seat or self.revealed:
                entry["cards"] = format_cards(hand).split()
            hands.append(entry)
        out: dict[str, JSON] = {
            "game": NAME, "seat": seat, "phase": self.phase.value, "to_act": self.to_act,
            "dealer": self.dealer, "hand": self.hand_number, "hands": hands,
            "stock": len(self.stock), "discard": format_cards(self.discard).split(),
            "upcard": str_card(self.upcard), "taken": None if self.taken is None
            else str_card(self.taken), "knock_limit": self.knock_limit,
            "multiplier": self.multiplier, "scores": self.scores(), "points": list(self.points),
            "boxes": list(self.boxes), "target": self.options.target,
            "history": [_scorecard_row(row) for row in self.history], "last": self.last,
            "result": self.final,
            "options": self.options.to_dict(),
            "legal": self.legal_for(seat),
        }
        if seat is not None and self.hands[seat]:
            melding = SOLVER.best_melding(self.hands[seat])
            out["melding"] = {"melds": [format_cards(m).split() for m in melding.melds],
                              "deadwood": format_cards(melding.deadwood).split(),
                              "points": melding.points}
        return out

    def zones(self) -> dict[str, Any]:
        """Server/test-only: where every card is, for conservation and leak checks."""
        return {"hands": [list(h) for h in self.hands], "stock": list(self.stock),
                "face_down": list(self.face_down), "public": list(self.discard),
                "revealed": self.revealed, "deal": self.hand_number}

    def redeal_hidden(self, seat: int, rng: random.Random, held: Held) -> None:
        """The opponent's unseen cards, the stock and the face-down card dealt anew (a
        guess in ``held`` goes to his hand first); what he took from the discard pile (or
        everything, once revealed) stays in his hand."""
        other = 1 - seat
        known = set(self.hands[other]) if self.revealed else self.picked[other]
        unseen = [c for c in self.hands[other] + self.stock + self.face_down if c not in known]
        hidden_count = len(self.hands[other]) - len(known)
        guessed = take_guesses(unseen, held, {other: hidden_count}).get(other, [])
        rng.shuffle(unseen)
        fill = hidden_count - len(guessed)
        stock_count = len(self.stock)
        self.hands[other] = [c for c in self.hands[other] if c in known] + guessed + unseen[:fill]
        self.stock = unseen[fill:fill + stock_count]
        self.face_down = unseen[fill + stock_count:]

    def __str__(self) -> str:
        return (f"gin hand {self.hand_number} {self.phase.value} to act {self.to_act}: "
                f"{format_cards(self.hands[0])} | {format_cards(self.hands[1])} "
                f"| up {format_cards(self.discard[-1:])} stock {len(self.stock)}")


def _scorecard_row(row: dict[str, JSON]) -> dict[str, JSON]:
    """A finished hand as the scorecard shows it: who scored what, no cards.

    The full showdown of the latest hand is in the view's ``last`` until the
    next deal; afterwards those cards are in play again and stay out of views.
    """
    keys = ("hand", "dealer", "kind", "winner", "points", "boxes", "totals", "knocker_seat",
            "multiplier")
    out: dict[str, JSON] = {key: row[key] for key in keys if key in row}
    for side in ("knocker", "defender"):
        if isinstance(row.get(side), dict):
            out[f"{side}_deadwood"] = row[side]["points"]
    return out


__all__ = ["NAME", "GinState", "Phase", "final_settlement", "value"]
