"""A Spades match: one explicit phase at a time, one small function per phase.

:class:`SpadesRules` holds the rules; what a seat may know (:mod:`.views`), why a
move is refused (:mod:`.reasons`) and a search's redeal (:mod:`.search`) read it,
and :class:`~.state.SpadesState` puts them together.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from itertools import combinations

from ...api import JSON, Action, Event
from ...cards import BIG_JOKER, JOKER, format_cards, str_card
from ...state import GameState
from .bidding import bid_allowed, trails_enough
from .options import Options
from .phase import Phase
from .scoring import match_winner, side_score
from .tricks import (
    FIRST_SPADE,
    NAME_OF,
    SUIT_BOUNDS,
    SUIT_OF,
    dealt_pack,
    name_big_joker,
    opening_card,
    playable,
    suit_of,
    trick_winner,
)

NAME = "spades"

# Shared action objects: legal_actions() runs on every turn of every playout.
_PLAY = [Action("play", card=c) for c in range(BIG_JOKER + 1)]
_BID = [Action("bid", number=n) for n in range(18)]
_BLIND_NIL, _LOOK, _DEAL = Action("blind_nil"), Action("look"), Action("deal")
_KEEP, _REJECT = Action("keep"), Action("reject")


def _play_event(seat: int, c: int) -> Event:
    data: dict[str, JSON] = {"card": NAME_OF[c]}
    if c >= JOKER:
        data["joker"] = "big" if c == BIG_JOKER else "little"
    return Event("play", seat, data)


# Every play of a seat is one of 54 events, built once (an Event's fields are frozen and
# its readers copy them: ``Event.view``); a play is the move of almost every turn.
_PLAY_EVENTS = [[_play_event(seat, c) for c in range(BIG_JOKER + 1)] for seat in range(4)]


@lru_cache(maxsize=256)  # per options, partner's bid (or None) and hand size: a few dozen
def _bid_menu(options: Options, partner_bid: int | None, hand_size: int,
              partnership: bool) -> tuple[Action, ...]:
    return tuple(_BID[n] for n in range(hand_size + 1)
                 if bid_allowed(n, partner_bid, hand_size, options, partnership))


@lru_cache(maxsize=2048)  # pairs of the 54 cards: 1,431 at most
def _pass_cards(pair: tuple[int, int]) -> Action:
    return Action("pass_cards", cards=pair)


class SpadesRules(GameState):
    """The phases and rules of a match; :class:`~.state.SpadesState` is the whole game.

    Seats 0..n-1 sit clockwise.  With four players seats 0+2 and 1+3 are
    partners and a *side* is a partnership (side = seat % 2); with two or
    three everyone is his own side (side = seat).
    """

    NAME = NAME
    OPTIONS = Options
    Phase = Phase
    options: Options

    def setup(self) -> None:
        players = self.players
        if self.options.suicide and players != 4:
            raise ValueError("suicide needs partners: play it with 4 players")
        self.partnership = players == 4
        self.sides: list[list[int]] = [[0, 2], [1, 3]] if self.partnership else [
            [s] for s in range(players)]
        self.hand_size = 17 if players == 3 else 13
        self.scores = [0] * len(self.sides)
        self.bags = [0] * len(self.sides)
        self.history: list[dict[str, JSON]] = []  # one scorecard row per hand
        self.hand_number = 0
        self.final: dict[str, JSON] | None = None
        self.last: dict[str, JSON] | None = None  # the last hand's outcome, until the next deal
        self.dealer = self._chance.below(players)
        self._deal()

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def partner_of(self, seat: int) -> int | None:
        return (seat + 2) % 4 if self.partnership else None

    # -- dealing -----------------------------------------------------------------

    def _deal(self) -> None:
        n = self.players
        self.hand_number += 1
        cards, removed, self.jokers = dealt_pack(self.options, n)
        self.removed = list(removed)
        order = name_big_joker(self._chance.deck(cards))
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.stock: list[int] = []
        self.dead: list[list[int]] = [[] for _ in range(n)]  # two players: rejected cards
        self.aside: list[int] = []  # three players, deal_out: the card left face down
        self.bids: list[int | None] = [None] * n
        self.blind = [False] * n
        self.looked = [True] * n
        self.exchanges: list[tuple[int, int]] = []  # (giver, receiver) still to pass
        self.received: list[list[int]] = [[] for _ in range(n)]
        self.given: list[set[int]] = [set() for _ in range(n)]  # passed to partner, unplayed
        self.tricks_won = [0] * n
        self.trick: list[tuple[int, int]] = []  # (seat, card), lead first
        self.tricks: list[tuple[int, list[tuple[int, int]], int]] = []  # (leader, plays, winner)
        self.broken = False
        self.opening: int | None = None  # the card that must open the first trick, if any
        if n == 2:
            self.stock = order[::-1]  # pop() takes the top card
            self.to_act: int | None = (self.dealer + 1) % n
            self.phase = Phase.DRAW
            return
        dealt = self.hand_size * n
        for i in range(n):  # singly from the dealer's left: seat dealer+1+i takes every n-th
            self.hands[(self.dealer + 1 + i) % n] = order[i:dealt:n]
        self.aside = order[dealt:]
        self._start_bidding()

    def canonical(self, action: Action) -> Action:
        """The two cards of a ``pass_cards`` may come in either order: sorted.

        Records written before the jokers had names of their own call either joker
        ``Jk``: a seat that holds only the big joker and plays or passes ``Jk`` means
        the big one, so those records still replay."""
        if action.type == "pass_cards":
            return Action("pass_cards", cards=tuple(sorted(map(self._joker_held, action.cards))))
        if action.type == "play" and action.card == JOKER:
            return Action("play", card=self._joker_held(JOKER))
        return action

    def _joker_held(self, card: int) -> int:
        hand = self.hands[self.to_act] if self.to_act is not None else ()
        return BIG_JOKER if card == JOKER and JOKER not in hand and BIG_JOKER in hand else card

    # -- phase: draw (two players) -----------------------------------------------

    def _legal_draw(self) -> list[Action]:
        return [_KEEP, _REJECT]

    def _apply_draw(self, action: Action) -> list[Event]:
        seat = self._seat()
        top, following = self.stock.pop(), self.stock.pop()
        kept, rejected = (top, following) if action.type == "keep" else (following, top)
        self.hands[seat].append(kept)
        self.dead[seat].append(rejected)
        events = [Event(action.type, seat, {"stock": len(self.stock)},
                        {"card": str_card(kept), "dead": str_card(rejected)})]
        if self.stock:
            self.to_act = 1 - seat
        else:
            self._start_bidding()
        return events

    # -- phase: blind nil or look ------------------------------------------------------

    def may_bid_blind(self, seat: int) -> bool:
        """Whether ``seat``, yet to bid, could still bid blind nil (so it must not see its cards).

        Never with two players (each sees his cards as he draws them); with
        partners only one blind nil per side, as the exchange pairs a blind
        bidder with a partner who has seen his own cards.
        """
        o = self.options
        if not o.blind_nil or self.players == 2 or self.bids[seat] is not None:
            return False
        if not trails_enough(self.side_of(seat), self.scores, o):
            return False
        partner = self.partner_of(seat)
        if partner is None:
            return True
        return not self.blind[partner] and bid_allowed(0, self.bids[partner], self.hand_size, o,
                                                       True)

    def _start_bidding(self) -> None:
        self.looked = [not self.may_bid_blind(s) for s in range(self.players)]
        self._bid_turn((self.dealer + 1) % self.players)

    def _bid_turn(self, seat: int) -> None:
        self.to_act = seat
        self.phase = Phase.BID if self.looked[seat] else Phase.BLIND_NIL

    def _legal_blind_nil(self) -> list[Action]:
        return [_BLIND_NIL, _LOOK]

    def _apply_blind_nil(self, action: Action) -> list[Event]:
        seat = self._seat()
        self.looked[seat] = True
        if action.type == "look":
            self.phase = Phase.BID
            return [Event("look", seat)]
        self.bids[seat], self.blind[seat] = 0, True
        partner = self.partner_of(seat)
        if partner is not None and self.options.blind_nil_exchange:
            self.exchanges += [(seat, partner), (partner, seat)]
        return [Event("bid", seat, {"number": 0, "blind": True}), *self._after_bid(seat)]

    # -- phase: bid ------------------------------------------------------------------

    def _legal_bid(self) -> list[Action]:
        seat = self._seat()
        partner = self.partner_of(seat)
        partner_bid = None if partner is None else self.bids[partner]
        return list(_bid_menu(self.options, partner_bid, self.hand_size, self.partnership))

    def _apply_bid(self, action: Action) -> list[Event]:
        seat = self._seat()
        assert action.number is not None
        self.bids[seat] = action.number
        return [Event("bid", seat, {"number": action.number, "blind": False}),
                *self._after_bid(seat)]

    def _after_bid(self, seat: int) -> list[Event]:
        # A partner's blind nil or bid can take blind nil off the table for a
        # seat still to bid: it may look at its cards at once.
        for other in range(self.players):
            if not self.looked[other] and not self.may_bid_blind(other):
                self.looked[other] = True
        following = (seat + 1) % self.players
        if self.bids[following] is None:
            self._bid_turn(following)
            return []
        if self.exchanges:
            self.to_act, self.phase = self.exchanges[0][0], Phase.EXCHANGE
            return []
        return self._start_play()

    # -- phase: exchange after a blind nil ----------------------------------------------

    def _legal_exchange(self) -> list[Action]:
        return list(map(_pass_cards, combinations(sorted(self.hands[self._seat()]), 2)))

    def _apply_exchange(self, action: Action) -> list[Event]:
        giver, receiver = self.exchanges.pop(0)
        cards = list(action.cards)
        for c in cards:
            self.hands[giver].remove(c)
        self.hands[receiver] += cards
        self.received[receiver] = cards
        for known in self.given:
            known.difference_update(cards)
        self.given[giver].update(cards)
        events = [Event("pass_cards", giver, {"to": receiver}),
                  Event("receive_cards", receiver, {"from": giver},
                        {"cards": format_cards(cards).split()})]
        if self.exchanges:
            self.to_act = self.exchanges[0][0]
            return events
        return events + self._start_play()

    # -- phase: play -----------------------------------------------------------------

    def _start_play(self) -> list[Event]:
        leader = (self.dealer + 1) % self.players
        if self.options.first_lead == "two_of_clubs":
            self.opening = opening_card(self.hands)
            if self.opening is not None:
                leader = next(s for s, h in enumerate(self.hands) if self.opening in h)
        self.to_act, self.phase = leader, Phase.PLAY
        return [Event("play_starts", leader)]

    def playable(self, seat: int) -> list[int]:
        """The cards ``seat`` may play now (its turn assumed)."""
        led = suit_of(self.trick[0][1]) if self.trick else None
        return playable(self.hands[seat], led, first_trick=not self.tricks, broken=self.broken,
                        options=self.options, opening=self.opening)

    def _legal_play(self) -> list[Action]:
        # Past the first trick's special rules the menu is a slice of the sorted hand (a
        # suit is one stretch of card ints): the suit led, or all but the spades, or all.
        seat = self.to_act
        assert seat is not None  # (not ``_seat()``: this runs on every turn of a playout)
        trick = self.trick
        if self.tricks or (trick and self.options.first_trick == "any"):
            hand = sorted(self.hands[seat])
            if trick:
                low, high = SUIT_BOUNDS[SUIT_OF[trick[0][1]]]
                follow = hand[bisect_left(hand, low):bisect_left(hand, high)]
            elif self.options.spade_breaking and not self.broken:
                follow = hand[:bisect_left(hand, FIRST_SPADE)]
            else:
                follow = hand
            return list(map(_PLAY.__getitem__, follow or hand))
        return [_PLAY[c] for c in sorted(self.playable(seat))]

    def _apply_play(self, action: Action) -> list[Event]:
        seat, played = self.to_act, action.card
        assert seat is not None and played is not None
        self.hands[seat].remove(played)
        given = self.given
        if any(given):  # only after a blind nil exchange
            for known in given:
                known.discard(played)
        trick = self.trick
        trick.append((seat, played))
        if played >= FIRST_SPADE:
            self.broken = True
        events = [_PLAY_EVENTS[seat][played]]
        if len(trick) < self.players:
            self.to_act = (seat + 1) % self.players
            return events
        winner = trick_winner(trick)
        self.tricks_won[winner] += 1
        leader = trick[0][0]
        self.tricks.append((leader, trick, winner))
        events.append(Event("trick", winner, {"cards": [NAME_OF[c] for _, c in trick],
                                              "leader": leader}))
        self.trick = []
        if self.hands[winner]:
            self.to_act = winner
            return events
        return events + self._end_hand()

    # -- phase: hand over ----------------------------------------------------------------

    def _legal_hand_over(self) -> list[Action]:
        return [_DEAL]

    def _apply_hand_over(self, action: Action) -> list[Event]:
        self.dealer = self._seat()
        self.last = None
        self._deal()
        return [Event("deal", self.dealer, {"hand": self.hand_number})]

    # -- scoring -------------------------------------------------------------------------

    def _end_hand(self) -> list[Event]:
        sides: list[dict[str, JSON]] = []
        for side, seats in enumerate(self.sides):
            bids = [self.bids[s] or 0 for s in seats]
            scored = side_score(bids, [self.tricks_won[s] for s in seats], self.bags[side],
                                self.options, [self.blind[s] for s in seats])
            self.scores[side] += scored.points
            self.bags[side] = scored.bags_after
            sides.append({"seats": list(seats), **scored.to_json(),
                          "score": self.scores[side]})
        row: dict[str, JSON] = {
            "hand": self.hand_number, "dealer": self.dealer, "bids": list(self.bids),
            "blind": list(self.blind), "tricks": list(self.tricks_won), "sides": sides,
            "scores": list(self.scores), "bags": list(self.bags)}
        self.history.append(row)
        self.last = row
        events = [Event("hand_over", None, row)]
        winner = match_winner(self.scores, self.options, len(self.history))
        if winner is None:
            self.to_act, self.phase = (self.dealer + 1) % self.players, Phase.HAND_OVER
            return events
        self.final = {"winner": winner, "winning_seats": list(self.sides[winner]),
                      "scores": list(self.scores), "bags": list(self.bags),
                      "hands": self.hand_number}
        self.to_act, self.phase = None, Phase.MATCH_OVER
        return [*events, Event("match_over", None, self.final)]

    def result(self) -> dict[str, JSON]:
        """Winner (a side, and its seats), scores and bags per side, the per-hand scorecard."""
        return {"over": self.is_over(), "winner": None, **(self.final or {}),
                "sides": [list(s) for s in self.sides], "scores": list(self.scores),
                "bags": list(self.bags), "hands": self.history}


__all__ = ["NAME", "Phase", "SpadesRules"]
