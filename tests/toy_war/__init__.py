"""War (toy): the smallest game that uses the whole engine contract.

It lives in ``tests/`` to prove that a game needs nothing outside its own module:
importing this module registers it (``DESCRIPTOR`` below), and from then on the
conformance suite, the leak test, the server's tables and ``cardtable arena`` play
it unchanged.  docs/adding-a-game.md walks through it.

Rules
-----
Two players.  The pack is the tens, courts and aces (20 cards; ``pack="full"``:
all 52), ranked ace high; suits do not matter.

1. The first dealer is drawn at random.  Each player is dealt ``hand_size`` cards;
   the rest is the stock, face down.
2. A turn: draw the top card of the stock (while there is one), then play a card
   face up.  The non-dealer leads the first trick; the other player follows.
3. The higher card takes the trick; equal ranks go to the non-dealer (``ties``:
   ``"leader"`` gives them to the trick's leader).  The trick's taker leads next.
4. The hand ends when both hands are empty.  Each trick taken is a point.
5. The match ends after a hand in which someone reached ``target`` with the scores
   not level (or, with ``deals``, after that many hands: the higher score wins,
   equal scores are a drawn match).  The next dealer deals the next hand; the deal
   alternates.

Moves: ``draw_stock``, ``play <card>``, ``deal``.

>>> import random
>>> state = WarState.start(None, 2, random.Random(3))
>>> state.phase.value, len(state.hands[0]), len(state.stock)
('draw', 3, 14)
>>> [str(a) for a in state.legal_actions()]
['draw_stock']
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from cardtable.engine import Action, Descriptor, Event, GameState, register
from cardtable.engine.api import JSON, option
from cardtable.engine.api import Options as BaseOptions
from cardtable.engine.api import Phase as BasePhase
from cardtable.engine.cards import format_cards, make, rank, str_card
from cardtable.engine.state import Held, take_guesses

NAME = "toy_war"
TITLE = "War (toy)"
SHORT_PACK = tuple(sorted(make(r, s) for s in range(4) for r in (0, 9, 10, 11, 12)))
FULL_PACK = tuple(range(52))

_DRAW, _DEAL = Action("draw_stock"), Action("deal")
_PLAY = [Action("play", card=c) for c in range(52)]


def strength(card: int) -> int:
    """Ace high: a two is 0, a king 11, an ace 12."""
    return (rank(card) + 12) % 13


@dataclass(frozen=True)
class WarOptions(BaseOptions):
    """The defaults are the ``standard`` preset."""

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {
        "standard": {},
        "quick": {"hand_size": 1, "target": 5},
        "full_pack": {"pack": "full", "target": 30},
    }
    PRESET_TITLES: ClassVar[dict[str, str]] = {
        "standard": "Standard", "quick": "Quick", "full_pack": "Full pack"}
    PRESET_NOTES: ClassVar[dict[str, str]] = {
        "standard": "Three cards each from a short pack of tens, courts and aces; game to 10.",
        "quick": "One card each; game to 5.",
        "full_pack": "All 52 cards; game to 30.",
    }
    DEFAULT_PRESET: ClassVar[str] = "standard"
    EXPRESS: ClassVar[dict[str, Any]] = {"deals": 1}

    target: int = option(10, range=(1, 1000), doc="points that win the match")
    deals: int = option(0, range=(0, 100),
                        doc="a fixed number of hands ends the match instead (0: play to target)")
    hand_size: int = option(3, range=(1, 5), doc="cards in each hand")
    pack: str = option("short", choices=("short", "full"),
                       doc="short: tens, courts and aces (20 cards); full: 52 cards")
    ties: str = option("non_dealer", choices=("non_dealer", "leader"),
                       doc="who takes a trick of two equal ranks")


class WarState(GameState):
    """A match of War (toy): the rules only; the base does the rest."""

    NAME = NAME
    OPTIONS = WarOptions
    options: WarOptions

    class Phase(BasePhase):
        DRAW = "draw"  # the seat to act takes the top of the stock
        PLAY = "play"  # ... then plays a card face up
        HAND_OVER = "hand_over"  # the next dealer deals
        MATCH_OVER = "match_over"

    # -- the match and the deal ------------------------------------------------------

    def setup(self) -> None:
        self.scores = [0, 0]
        self.history: list[dict[str, JSON]] = []  # one row per hand: the scorecard
        self.hand_number = 0
        self.last: dict[str, JSON] | None = None  # the hand just scored, until the next deal
        self.final: dict[str, JSON] | None = None
        self.dealer = self._chance.below(2)
        self._deal()

    def _pack(self) -> tuple[int, ...]:
        return SHORT_PACK if self.options.pack == "short" else FULL_PACK

    def _deal(self) -> None:
        deck = self._chance.deck(self._pack())
        size = self.options.hand_size
        first = 1 - self.dealer
        self.hand_number += 1
        self.hands: list[list[int]] = [[], []]
        for i in range(2 * size):
            self.hands[(first + i) % 2].append(deck[i])
        self.stock = deck[2 * size:]  # pop() takes the top
        self.trick: list[tuple[int, int]] = []  # (seat, card), the leader first
        self.last_trick: list[tuple[int, int]] = []
        self.won: list[list[int]] = [[], []]  # cards taken this hand, face up
        self.to_act: int | None = first
        self.phase = self.Phase.DRAW

    # -- phase: draw ------------------------------------------------------------------

    def _legal_draw(self) -> list[Action]:
        return [_DRAW]

    def _apply_draw(self, action: Action) -> list[Event]:
        seat = self._seat()
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.phase = self.Phase.PLAY
        # The card is named only to the drawer (``private``); the others see a draw.
        return [Event("draw_stock", seat, {"stock": len(self.stock)}, {"card": str_card(card)})]

    # -- phase: play ------------------------------------------------------------------

    def _legal_play(self) -> list[Action]:
        return [_PLAY[c] for c in sorted(self.hands[self._seat()])]

    def _apply_play(self, action: Action) -> list[Event]:
        seat, card = self._seat(), action.card
        assert card is not None
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        events = [Event("play", seat, {"card": str_card(card)})]
        if len(self.trick) == 1:
            self._next_turn(1 - seat)
            return events
        taker = self._taker()
        self.won[taker] += [c for _, c in self.trick]
        self.last_trick, self.trick = self.trick, []
        events.append(Event("trick", taker, {"cards": format_cards(c for _, c in self.last_trick)}))
        if self.hands[taker]:
            self._next_turn(taker)
            return events
        return events + self._end_hand()

    def _taker(self) -> int:
        (leader, led), (follower, followed) = self.trick
        if strength(followed) != strength(led):
            return follower if strength(followed) > strength(led) else leader
        return 1 - self.dealer if self.options.ties == "non_dealer" else leader

    def _next_turn(self, seat: int) -> None:
        self.to_act = seat
        self.phase = self.Phase.DRAW if self.stock else self.Phase.PLAY

    # -- phase: hand over -------------------------------------------------------------

    def _legal_hand_over(self) -> list[Action]:
        return [_DEAL]

    def _apply_hand_over(self, action: Action) -> list[Event]:
        self.dealer = self._seat()
        self.last = None
        self._deal()
        return [Event("deal", self.dealer, {"hand": self.hand_number})]

    # -- scoring ----------------------------------------------------------------------

    def _end_hand(self) -> list[Event]:
        tricks = [len(w) // 2 for w in self.won]
        for seat in (0, 1):
            self.scores[seat] += tricks[seat]
        row: dict[str, JSON] = {"hand": self.hand_number, "dealer": self.dealer,
                                "tricks": tricks, "winner": _higher(tricks),
                                "totals": list(self.scores)}
        self.history.append(row)
        self.last = row
        events = [Event("hand_over", None, row)]
        if self._match_is_over():
            self.final = {"winner": _higher(self.scores), "scores": list(self.scores)}
            self.to_act, self.phase = None, self.Phase.MATCH_OVER
            return [*events, Event("match_over", None, self.final)]
        self.to_act, self.phase = 1 - self.dealer, self.Phase.HAND_OVER
        return events

    def _match_is_over(self) -> bool:
        if self.options.deals:
            return len(self.history) >= self.options.deals
        return max(self.scores) >= self.options.target and self.scores[0] != self.scores[1]

    def result(self) -> dict[str, JSON]:
        """The winner (``None``: a drawn match), the scores, and a row per hand."""
        final = self.final or {"winner": None}
        return {"over": self.is_over(), **final, "scores": list(self.scores),
                "hands": list(self.history)}

    # -- what each seat may see -----------------------------------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        hands: list[dict[str, JSON]] = []
        for s, hand in enumerate(self.hands):
            entry: dict[str, JSON] = {"count": len(hand)}
            if s == seat:
                entry["cards"] = format_cards(sorted(hand)).split()
            hands.append(entry)
        return {
            "game": NAME, "seat": seat, "phase": self.phase.value, "to_act": self.to_act,
            "dealer": self.dealer, "hand": self.hand_number, "hands": hands,
            "stock": len(self.stock),
            "trick": [{"seat": s, "card": str_card(c)} for s, c in self.trick],
            "last_trick": [{"seat": s, "card": str_card(c)} for s, c in self.last_trick],
            "tricks": [len(w) // 2 for w in self.won], "scores": list(self.scores),
            "target": self.options.target, "history": list(self.history), "last": self.last,
            "result": self.final, "options": self.options.to_dict(),
            "legal": self.legal_for(seat),
        }

    def zones(self) -> dict[str, Any]:
        unused = sorted(set(FULL_PACK) - set(self._pack()))
        return {"hands": [list(h) for h in self.hands], "stock": list(self.stock),
                "public": [c for _, c in self.trick] + self.won[0] + self.won[1],
                "removed": unused, "revealed": False, "deal": self.hand_number}

    def redeal_hidden(self, seat: int, rng: random.Random, held: Held) -> None:
        # ``seat`` has seen its own hand and every card played; the other hand and the
        # stock are one unknown heap to it.  A guess at his hand goes there first.
        other = 1 - seat
        unseen = self.hands[other] + self.stock
        count = len(self.hands[other])
        guessed = take_guesses(unseen, held, {other: count}).get(other, [])
        rng.shuffle(unseen)
        fill = count - len(guessed)
        self.hands[other], self.stock = guessed + unseen[:fill], unseen[fill:]

    def why_illegal(self, action: Action) -> str:
        if action.type not in ("draw_stock", "play", "deal"):
            return f"{action.type!r} is not a move in {TITLE}"
        if action.type == "play" and self.phase is self.Phase.PLAY:
            return "you do not hold that card"
        if action.type == "play" and self.phase is self.Phase.DRAW:
            return "draw from the stock first"
        return super().why_illegal(action)


def _higher(points: list[int]) -> int | None:
    """The seat with more points, or ``None`` when they are level."""
    return None if points[0] == points[1] else int(points[1] > points[0])


# A turn is a draw and a play: the draw leaves the seat on its turn, but a seat that
# takes a trick and leads the next one starts a new turn (a new clock).
DESCRIPTOR = register(Descriptor(WarState, title=TITLE, players=(2,), bot="toy_war.bot",
                                 order=900, board=False, stock_draw="draw_stock",
                                 turn_goes_on_after=frozenset({"draw_stock"}), timeout="bot",
                                 rules="""
    Two players. Each turn: draw the top card of the stock, then play a card face up.
    The higher card takes the trick (equal ranks: the non-dealer), and its taker leads
    next; each trick is a point.
"""))
