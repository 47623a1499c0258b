"""The table-meld turn: draw, meld, lay off, discard; one small function per phase.

A game subclasses :class:`TableMeldState`, overrides the rule hooks of
:class:`~cardtable.engine.tablemelds.hooks.Hooks` and implements the three
scoring hooks (:meth:`settle_hand`, :meth:`match_winners`, :meth:`next_dealer`).
Turn order, the legal-move cache, apply, records and resampling are the shared
:class:`~cardtable.engine.state.GameState`'s; a game that changes a phase
overrides its ``_legal_<phase>``/``_apply_<phase>`` (the base dispatches to them).

Obligations: a card that must be used this turn (the top discard under a
"must use" rule, the deepest card of a Rummy 500 pickup) is kept in
``must_place``; until it is on the table the only legal melds and lay-offs
are those that place it, and there is no discard.  The draw that creates an
obligation is legal only when the card can be used, so a turn never sticks.
"""

from __future__ import annotations

import operator
import random
from functools import lru_cache
from typing import Any

from ..api import JSON, Action, Event, IllegalAction
from ..cards import JOKER, format_cards, str_card
from ..melds import MeldRules, make_meld
from ..state import GameState, Held
from .coming_out import opening_with
from .hooks import Hooks
from .opening import opening_actions
from .phase import Phase
from .play_checks import PLAY_MOVES, may_discard, placement_problem, play_problem
from .reasons import why_illegal
from .redeal import redeal
from .table import TableMeld, extend, lay, swap_cards, swap_joker

_DRAW_STOCK, _DRAW_DISCARD, _DEAL = Action("draw_stock"), Action("draw_discard"), Action("deal")
LayOffs = tuple[tuple[tuple[int, Action], ...], frozenset[int]]
"""The table's lay-offs, (card, move) in the order of the moves, and the cards they take."""
_DISCARDS = tuple(Action("discard", card=c) for c in range(JOKER + 1))
"""One action object per discard: moves are values, and a position lists a dozen of them."""


@lru_cache(maxsize=8192)  # a candidate meld is listed at many positions while it is held
def _meld_action(cards: tuple[int, ...]) -> Action:
    return Action("meld", cards=cards)


@lru_cache(maxsize=4096)  # cards x the ids of a hand's table melds
def _lay_off_action(card: int, meld: int) -> Action:
    return Action("lay_off", card=card, meld=meld)


@lru_cache(maxsize=4096)  # a table's melds with jokers, asked until they change
def _swap_cards(meld: TableMeld, rules: MeldRules) -> frozenset[int]:
    return swap_cards(meld, rules)


class TableMeldState(Hooks, GameState):
    """The whole match; mutate only through :meth:`apply`."""

    Phase = Phase
    SORT_LEGAL = False  # each phase lists its moves sorted, and each once
    options: Any

    def setup(self) -> None:
        self.scores = [0] * self.players
        self.history: list[dict[str, JSON]] = []
        self.hand_number = 0
        self.final: dict[str, JSON] | None = None
        self.last: dict[str, JSON] | None = None
        self.dealer = self._chance.below(self.players)
        self._deal()

    # -- scoring hooks (each game) ------------------------------------------------

    def settle_hand(self, winner: int | None, rummy: bool) -> dict[str, JSON]:
        """Add this hand's points to ``scores``; return the scorecard row's details.

        ``winner`` went out (``None``: the hand was blocked); ``rummy``: he
        went out in one turn having laid nothing earlier in the hand.
        """
        raise NotImplementedError

    def match_winners(self) -> list[int] | None:
        """The match's winners once it is over, else ``None``."""
        raise NotImplementedError

    def next_dealer(self, winner: int | None) -> int:
        return (self.dealer + 1) % self.players

    # -- dealing --------------------------------------------------------------------

    def _deal(self) -> None:
        deck = self._chance.deck(self.full_deck())
        n, size = self.players, self.deal_size()
        first = (self.dealer + 1) % n
        self.hand_number += 1
        self.hands = [[] for _ in range(n)]
        for i in range(n * size):
            self.hands[(first + i) % n].append(deck[i])
        self.discard = [deck[n * size]]
        self.stock = deck[:n * size:-1]  # reversed: pop() takes the card after the upcard
        self.table = []
        self._meld_memo: dict[int, tuple[TableMeld, tuple[frozenset[int], frozenset[int]]]] = {}
        self._lay_off_memo: tuple[tuple[TableMeld, ...], LayOffs] = ((), ((), frozenset()))
        self.picked: list[list[int]] = [[] for _ in range(n)]  # taken from the pile, still held
        self.has_melded = [False] * n
        self.laid_earlier = [False] * n  # placed a card in an earlier turn (no "rummy")
        self.recycles = self.turns = 0
        self.to_act = first
        self.phase = Phase.DRAW
        self.revealed = False
        self._new_turn()

    def _new_turn(self) -> None:
        self.melds_this_turn = 0
        self.laid_this_turn = False
        self.taken: int | None = None  # may not be discarded this turn
        self.must_place = []

    # -- the checks -----------------------------------------------------------------------

    def canonical(self, action: Action) -> Action:
        """Meld cards in one order, so ``7h 5h 6h`` names the same move as ``5h 6h 7h``."""
        if action.type != "meld":
            return action
        return Action("meld", card=action.card, number=action.number, meld=action.meld,
                      cards=tuple(sorted(action.cards)),
                      melds=tuple(sorted(tuple(sorted(m)) for m in action.melds)))

    def check(self, action: Action) -> Action:
        """A play-phase move is judged from its content (:meth:`play_problem`), not by the
        bounded menu ``legal_actions`` lists; the other phases list every legal move."""
        if self.phase is not Phase.PLAY or action.type not in PLAY_MOVES:
            return super().check(action)
        action = self.canonical(action)
        problem = self.play_problem(action)
        if problem is not None:
            raise IllegalAction(problem)
        return action

    def play_problem(self, action: Action) -> str | None:
        """Why a play-phase move is not legal now (``None``: it is): see ``play_checks``."""
        return play_problem(self, action)

    def why_illegal(self, action: Action) -> str:
        if self.phase is Phase.PLAY and action.type in PLAY_MOVES:
            return self.play_problem(self.canonical(action)) or f"{action} is not allowed now"
        return why_illegal(self, action)

    # -- phase: draw ---------------------------------------------------------------------

    def _legal_draw(self) -> list[Action]:
        hand = self.hands[self._seat()]
        moves = []  # sorted: the pickups by depth, then the stock
        for depth in range(1, min(self.pickup_depth(), len(self.discard)) + 1):
            taken = self.discard[-depth:]
            deepest = taken[0]
            must = self.must_use_top_discard() if depth == 1 else self.must_use_deep_pickup()
            if not must or self._can_place(deepest, [*hand, *taken]):
                moves.append(_DRAW_DISCARD if depth == 1 else Action("draw_discard", number=depth))
        moves.append(_DRAW_STOCK)  # an empty stock is renewed first (the hand ended otherwise)
        return moves

    def _apply_draw(self, action: Action) -> list[Event]:
        seat = self._seat()
        events: list[Event] = []
        self.phase = Phase.PLAY
        if action.type == "draw_stock":
            if not self.stock:
                events.append(self._renew_stock())
            card = self.stock.pop()
            self.hands[seat].append(card)
            events.append(Event("draw_stock", seat, {"stock": len(self.stock)},
                                {"card": str_card(card)}))
            return events
        depth = action.number or 1
        taken = self.discard[-depth:]
        del self.discard[-depth:]
        self.hands[seat] += taken
        self.picked[seat] += taken
        if depth == 1:
            self.taken = taken[0]
        must = self.must_use_top_discard() if depth == 1 else self.must_use_deep_pickup()
        self.must_place = [taken[0]] if must else []
        return [Event("draw_discard", seat, {"cards": format_cards(taken).split()})]

    def _renew_stock(self) -> Event:
        """The discard pile becomes the stock: turned over (bottom card on top) or shuffled."""
        self.recycles += 1
        if self.stock_policy() == "shuffle":
            self.stock = self._chance.deck(self.discard)
        else:
            self.stock = self.discard[:]  # pop() takes the end: the old bottom card is drawn first
            self.stock.reverse()
        self.discard = []
        return Event("renew_stock", None, {"stock": len(self.stock),
                                           "shuffled": self.stock_policy() == "shuffle"})

    def _can_place(self, card: int, hand: list[int]) -> bool:
        """Whether ``card`` can go on the table this turn from ``hand`` (before any play)."""
        seat = self._seat()
        keep = 1 if self.final_discard_required() else 0
        if self.opening_minimum(seat) and not self.has_melded[seat]:
            return opening_with(self, hand, card, keep) is not None
        for meld in self.listed_melds(hand):
            if card in meld and len(hand) - len(meld) >= keep:
                return True
        return self.may_lay_off(seat) and len(hand) - 1 >= keep and \
            card in self._table_lay_offs()[1]

    # -- phase: play ------------------------------------------------------------------------

    def _legal_play(self) -> list[Action]:
        # Built in the order of Action.sort_key (discard < lay_off < meld < swap_joker,
        # then card and meld id), so the base need not sort: see SORT_LEGAL.
        seat = self._seat()
        hand = self.hands[seat]
        moves: list[Action] = []
        if not self.must_place:
            taken = self.taken
            moves += [_DISCARDS[c] for c in sorted(set(hand)) if may_discard(c, hand, taken)]
        if self.may_lay_off(seat) and self.table:
            moves += self._legal_lay_offs(hand)
        limit = self.melds_per_turn()
        if limit is None or self.melds_this_turn < limit:
            if self.opening_minimum(seat) and not self.has_melded[seat]:
                moves += self._legal_openings(hand)
            else:
                melds = map(_meld_action, self.listed_melds(hand))
                moves += [a for a in melds if self._placement_ok(a, a.cards)]
        if self.may_swap_jokers(seat):
            moves += self._legal_swaps(hand)
        return moves

    def _legal_openings(self, hand: list[int]) -> list[Action]:
        found = [a for a in opening_actions(self, hand)
                 if self._placement_ok(a, [c for m in a.melds for c in m])]
        if self.must_place and not found:
            # the card owed goes down only in an opening the menu leaves out (the draw was
            # legal because one exists: ``_can_place``): offer it, so the turn goes on
            keep = 1 if self.final_discard_required() else 0
            witness = opening_with(self, hand, self.must_place[0], keep)
            found = [] if witness is None else [witness]
        return found

    def _legal_lay_offs(self, hand: list[int]) -> list[Action]:
        held = set(hand)
        return [action for card, action in self._table_lay_offs()[0]
                if card in held and self._placement_ok(action, (card,))]

    def _table_lay_offs(self) -> LayOffs:
        """Every lay-off the table takes, as (card, move) sorted by card and meld, and
        the cards among them; kept while the table lies unchanged (a turn or more)."""
        table, known = self._lay_off_memo
        if len(table) == len(self.table) and all(map(operator.is_, table, self.table)):
            return known
        pairs = sorted((card, meld.id) for meld in self.table
                       for card in self._meld_cards(meld)[0])
        known = (tuple((card, _lay_off_action(card, meld)) for card, meld in pairs),
                 frozenset(card for card, _ in pairs))
        self._lay_off_memo = tuple(self.table), known
        return known

    def _meld_cards(self, meld: TableMeld) -> tuple[frozenset[int], frozenset[int]]:
        """The cards that may be laid off on ``meld`` (:meth:`extension_cards`) and those
        that would free one of its jokers, kept while the meld lies unchanged: every
        position of a turn asks them of every meld on the table."""
        known = self._meld_memo.get(meld.id)
        if known is not None and known[0] is meld:
            return known[1]
        cards = self.extension_cards(meld), _swap_cards(meld, self.meld_rules())
        self._meld_memo[meld.id] = meld, cards
        return cards

    def _legal_swaps(self, hand: list[int]) -> list[Action]:
        """Joker exchanges, one at a time, each only when the freed joker can go back on
        the table this turn: it may never stay in hand, and a turn must never stick."""
        if self.must_place:
            return []
        held = set(hand)
        swaps = sorted((card, meld.id) for meld in self.table
                       for card in self._meld_cards(meld)[1] & held)
        moves = [Action("swap_joker", card=card, meld=meld) for card, meld in swaps]
        return [swap for swap in moves if self.joker_can_return(swap)]

    def _twin_after(self, move: Action) -> TableMeldState:
        """A twin with its own hands, table and obligations, with the placement ``move``
        played on it (one that leaves a card in hand, so nothing else changes): what could
        follow that move, asked without touching this state."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.hands = [list(h) for h in self.hands]
        twin.picked = [list(p) for p in self.picked]
        twin.has_melded = list(self.has_melded)
        twin.table, twin.must_place = list(self.table), list(self.must_place)
        twin._meld_memo = dict(self._meld_memo)
        twin._apply_play(move)
        return twin

    def joker_can_return(self, swap: Action) -> bool:
        twin = self._twin_after(swap)
        takers = [m for m in twin.table if JOKER in twin._meld_cards(m)[0]]
        if type(twin)._legal_play is TableMeldState._legal_play and twin.may_lay_off(
                twin._seat()) and takers and twin._placement_ok(
                _lay_off_action(JOKER, takers[0].id), (JOKER,)):
            return True  # the shared turn lists that lay-off: no need to list them all
        return bool(twin._legal_play())  # no discard while the joker is owed: a placement

    def kept_card_can_go(self, move: Action) -> bool:
        seat = self._seat()
        twin = self._twin_after(move)
        kept = twin.hands[seat]
        return len(kept) == 1 and twin.may_lay_off(seat) and \
            kept[0] in twin._table_lay_offs()[1]

    def _placement_ok(self, move: Action, cards: tuple[int, ...] | list[int]) -> bool:
        """Whether the placement ``move`` (laying ``cards``) leaves a way to finish the turn,
        and meets any obligation (:func:`~.play_checks.placement_problem`)."""
        if not self.must_place and len(self.hands[self._seat()]) - len(cards) > 1:
            return True  # the common case, asked of every listed meld: no call
        return placement_problem(self, move, cards) is None

    def _apply_play(self, action: Action) -> list[Event]:
        seat = self._seat()
        if action.type == "discard":
            return self._apply_discard(seat, action)
        rules = self.meld_rules()
        if action.type == "meld":
            groups = action.melds or (action.cards,)
            laid = []
            for group in groups:
                meld = lay(self._next_meld_id(), seat, group, rules)
                self.table.append(meld)
                laid.append(meld.to_json())
                self._remove(seat, group)
            self.melds_this_turn += 1
            self.has_melded[seat] = True
            event = Event("meld", seat, {"melds": laid})
        else:
            assert action.card is not None and action.meld is not None
            at = next(i for i, m in enumerate(self.table) if m.id == action.meld)
            if action.type == "lay_off":
                self.table[at] = extend(self.table[at], action.card, seat, rules)
            else:  # swap_joker: the freed joker comes to hand and must be played again
                self.table[at] = swap_joker(self.table[at], action.card, seat, rules)
                self.hands[seat].append(JOKER)
                self.must_place.append(JOKER)
            self._remove(seat, (action.card,))
            event = Event(action.type, seat, {"card": str_card(action.card),
                                              "meld": self.table[at].to_json()})
        self.laid_this_turn = True
        if not self.hands[seat]:
            return [event, *self._end_hand(seat)]
        return [event]

    def _next_meld_id(self) -> int:
        return 1 + max((m.id for m in self.table), default=0)

    def _remove(self, seat: int, cards: tuple[int, ...] | list[int]) -> None:
        for c in cards:
            self.hands[seat].remove(c)
            if c in self.picked[seat]:
                self.picked[seat].remove(c)
            if c in self.must_place:
                self.must_place.remove(c)

    def _apply_discard(self, seat: int, action: Action) -> list[Event]:
        assert action.card is not None
        self._remove(seat, (action.card,))
        self.discard.append(action.card)
        events = [Event("discard", seat, {"card": str_card(action.card)})]
        if not self.hands[seat]:
            return events + self._end_hand(seat)
        self.laid_earlier[seat] = self.laid_earlier[seat] or self.laid_this_turn
        self.turns += 1
        stock_done = not self.stock and (self.stock_policy() == "end_hand"
                                         or self.recycles >= self.stock_reuses())
        if stock_done or self.turns >= self.MAX_TURNS_PER_HAND:
            return events + self._end_hand(None)
        self.to_act, self.phase = (seat + 1) % self.players, Phase.DRAW
        self._new_turn()
        return events

    # -- the end of a hand ---------------------------------------------------------------------

    def _end_hand(self, winner: int | None) -> list[Event]:
        rummy = winner is not None and not self.laid_earlier[winner]
        row: dict[str, JSON] = {"hand": self.hand_number, "dealer": self.dealer,
                                "winner": winner, "blocked": winner is None,
                                "rummy": rummy, "left": [format_cards(h).split()
                                                         for h in self.hands]}
        row.update(self.settle_hand(winner, rummy))
        row["totals"] = list(self.scores)
        self.history.append(row)
        self.last = row
        self.revealed = True
        events = [Event("hand_over", None, row)]
        winners = self.match_winners()
        if winners is not None:
            self.final = {"winners": winners, "totals": list(self.scores)}
            self.to_act, self.phase = None, Phase.MATCH_OVER
            events.append(Event("match_over", None, self.final))
        else:
            self.to_act, self.phase = self.next_dealer(winner), Phase.HAND_OVER
        return events

    def _legal_hand_over(self) -> list[Action]:
        return [_DEAL]

    def _apply_hand_over(self, action: Action) -> list[Event]:
        self.dealer = self._seat()
        self.last = None
        self._deal()
        upcard = str_card(self.discard[-1]) if self.discard else None  # Rommé: none
        return [Event("deal", self.dealer, {"hand": self.hand_number, "upcard": upcard})]

    def _legal_call(self) -> list[Action]:
        # Only a game that lets players claim a discard out of turn (Rummy 500's calling
        # Rummy) ever enters this phase, and it brings its own moves.
        return []

    def result(self) -> dict[str, JSON]:
        return {"over": self.is_over(), **(self.final or {}), "scores": list(self.scores),
                "hands": [{k: v for k, v in row.items() if k != "left"} for row in self.history]}

    # -- views, and the redeal of a resample ---------------------------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        """Everything ``seat`` may know (``None``: a spectator), plus its legal moves."""
        hands: list[dict[str, JSON]] = []
        for s, hand in enumerate(self.hands):
            entry: dict[str, JSON] = {"count": len(hand), "melded": self.has_melded[s],
                                      "picked": format_cards(sorted(self.picked[s])).split()}
            if s == seat or self.revealed:
                entry["cards"] = format_cards(sorted(hand)).split()
            hands.append(entry)
        return {
            "game": self.NAME, "seat": seat, "phase": self.phase.value, "to_act": self.to_act,
            "dealer": self.dealer, "hand": self.hand_number, "players": self.players,
            "hands": hands, "stock": len(self.stock),
            "discard": format_cards(self.discard).split(),
            "table": [m.to_json() for m in self.table],
            "taken": None if self.taken is None else str_card(self.taken),
            "must_place": format_cards(self.must_place).split(),
            "melds_this_turn": self.melds_this_turn, "recycles": self.recycles,
            "scores": list(self.scores), "history": [
                {k: v for k, v in row.items() if k != "left"} for row in self.history],
            "last": self.last, "result": self.final, "options": self.options.to_dict(),
            "first_meld": self._first_meld(seat),
            "candidates": self._candidate_view() if seat == self.to_act else [],
            "legal": self.legal_for(seat),
        }

    def _first_meld(self, seat: int | None) -> int:
        """Points ``seat``'s first melds must still reach (0: none, or it has melded)."""
        return 0 if seat is None or self.has_melded[seat] else self.opening_minimum(seat)

    def _candidate_view(self) -> list[JSON]:
        """The melds the seat to act could lay from its hand, with their worth.

        A client stages a first meld group by group and shows the running
        total from these values, so no card values are written in the browser.
        """
        if self.phase is not Phase.PLAY:
            return []
        rules = self.meld_rules()
        found: list[JSON] = []
        for cards in self.listed_melds(self.hands[self._seat()]):
            meld = make_meld(cards, rules)
            found.append({"cards": format_cards(cards).split(), "kind": meld.kind,
                          "stands_for": format_cards(meld.stands_for).split(),
                          "value": self.meld_value(meld.stands_for)})
        return found

    def zones(self) -> dict[str, Any]:
        """Server/test-only: where every card is, for conservation and leak checks."""
        on_table = [c for m in self.table for c in m.cards]
        return {"hands": [list(h) for h in self.hands], "stock": list(self.stock),
                "face_down": [], "public": list(self.discard) + on_table,
                "revealed": self.revealed, "deal": self.hand_number,
                "jokers": sum(c >= JOKER for c in self.full_deck()),
                "packs": self.full_deck().count(0)}

    def redeal_hidden(self, seat: int, rng: random.Random, held: Held) -> None:
        """The stock and the cards of the others' hands ``seat`` has not seen, shuffled
        and dealt anew (a guess in ``held`` to its seat first); cards others picked up from
        the discard pile stay with them."""
        self.hands, self.stock = redeal(self.hands, self.picked, self.stock, seat,
                                        self.revealed, rng, held)
