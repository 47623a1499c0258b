"""A Spades computer player that plays the way partners expect.

It reads only ``view`` (``state.view(seat)``) and picks one of ``view["legal"]``;
the same view always gives the same move.

* Bidding: counts likely tricks (aces and guarded kings, spade honours and
  length, ruffs from voids and short suits with spare spades), trims so the
  side does not overbid what the table has left after partner's and the
  opponents' bids, and bids one more behind a partner's nil (covering wins
  tricks).  Nil only with a safe hand: no ace, no spade above the nine, at
  most three spades, a king only with three low cards (six or lower) and a
  queen or jack with two.  In Suicide the first partner takes the nil with
  a weak hand.  Blind nil only with a partner and two hundred behind.
* Exchange: a blind nil bidder passes his two most dangerous cards; his
  partner returns his two lowest non-spades.
* Play: a nil bidder ducks; a nil bidder's partner plays high ahead of him
  and overtakes him when he is winning; against an opponent's nil it plays
  under him; it never overtakes a partner's sure winner; once the side's
  contract is safe and the bags are near the limit it ducks tricks; on lead
  it returns the suit its partner led, cashes sure winners, and otherwise
  leads low from its longest plain suit.

>>> choose({"seat": 0, "phase": "hand_over", "legal": [{"type": "deal"}]})
Action('deal')

The easy level (``cardtable.bots.levels``) slips with :func:`slips`: another card to
play, or a bid one away from this bot's.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.api import Action
from cardtable.engine.cards import JOKER, card
from cardtable.engine.games.spades.tricks import (
    BIG_JOKER,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    power,
    suit_of,
    trick_winner,
)

View = dict[str, Any]
PLAIN_SUITS = (CLUBS, DIAMONDS, HEARTS)
BAG_MARGIN = 3  # "near the limit": this many bags or fewer to go
# Tricks the count of honours, length and ruffs misses (late winners in long
# plain suits, tricks handed over by others), measured in bot-against-bot play
# and shaded down: a set costs more than a bag.
LOOSE_TRICKS = {4: 0.5, 3: 1.5, 2: 1.4}
SUICIDE_NIL_BELOW = 2.5  # Suicide's first partner goes nil with fewer likely tricks


def choose(view: View, rng: random.Random | None = None) -> Action:
    """The bot's move for the seat of ``view``.

    ``rng`` is accepted like every bot's, but unused: each decision ranks the
    cards completely, so there is never a tie to break.
    """
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    if len(legal) == 1:
        return legal[0]
    kinds = {a.type for a in legal}
    if "blind_nil" in kinds:
        return Action("blind_nil") if wants_blind_nil(view) else Action("look")
    table = Table.read(view)
    if "keep" in kinds:
        return Action("keep") if keeps(table.offered) else Action("reject")
    if "bid" in kinds:
        return _closest_bid(legal, choose_bid(table))
    if "pass_cards" in kinds:
        return Action("pass_cards", cards=tuple(sorted(exchange_cards(table))))
    plays = {a.card: a for a in legal if a.card is not None}
    allowed = [c for c in table.hand if c in plays]
    chosen = choose_play(table, allowed)
    return plays[chosen]


# -- what the view says ------------------------------------------------------------------------


def _card(entry: dict[str, Any]) -> int:
    return card(entry["card"])


@dataclass
class Table:
    """The view, parsed into cards (ints; the Big Joker as 53) and who's who."""

    seat: int
    players: int
    partner: int | None
    hand: list[int]
    bids: list[int | None]
    won: list[int]
    trick: list[tuple[int, int]]
    tricks: list[tuple[int, list[tuple[int, int]], int]]
    options: dict[str, Any]
    bags: int
    hand_size: int
    unseen: set[int] = field(default_factory=set)
    offered: int = 0

    @classmethod
    def read(cls, view: View) -> Table:
        seat = view["seat"]
        own = view["hands"][seat]
        hand = [card(c) for c in own.get("cards", [])]
        tricks = [(t["leader"], [(p["seat"], _card(p)) for p in t["plays"]], t["winner"])
                  for t in view["tricks"]]
        trick = [(p["seat"], _card(p)) for p in view["trick"]]
        side = next(i for i, seats in enumerate(view["sides"]) if seat in seats)
        table = cls(seat=seat, players=view["players"], partner=view.get("partner"), hand=hand,
                    bids=list(view["bids"]), won=list(view["tricks_won"]), trick=trick,
                    tricks=tricks, options=view["options"], bags=view["bags"][side],
                    hand_size=view["hand_size"])
        pack = set(range(52))
        if view["options"]["jokers"] != "none":
            pack |= {JOKER, BIG_JOKER}
        gone = {card(c) for c in view["removed"] + view.get("dead", [])}
        played = {c for _, plays, _ in tricks for _, c in plays} | {c for _, c in trick}
        table.unseen = pack - gone - played - set(hand)
        if "offered" in view:
            table.offered = card(view["offered"])
        return table

    @property
    def opponents(self) -> list[int]:
        return [s for s in range(self.players) if s not in (self.seat, self.partner)]

    def nil_alive(self, seat: int | None) -> bool:
        return seat is not None and self.bids[seat] == 0 and self.won[seat] == 0

    def need(self) -> int:
        """Tricks the side still needs for its contract (0 when it is made or it bid none)."""
        mine = [s for s in (self.seat, self.partner) if s is not None]
        contract = sum(self.bids[s] or 0 for s in mine)
        counts_nil = self.options["failed_nil_tricks"] == "contract"
        taken = sum(self.won[s] for s in mine if self.bids[s] or counts_nil)
        return max(contract - taken, 0)

    def bags_near_limit(self) -> bool:
        mine = [s for s in (self.seat, self.partner) if s is not None]
        contract = sum(self.bids[s] or 0 for s in mine)
        over = max(sum(self.won[s] for s in mine) - contract, 0)
        return self.bags + over >= int(self.options["bag_limit"]) - BAG_MARGIN

    def voids(self) -> dict[int, set[int]]:
        """Suits each seat has shown it lacks (failing to follow)."""
        out: dict[int, set[int]] = {s: set() for s in range(self.players)}
        for plays in [p for _, p, _ in self.tricks] + [self.trick]:
            for seat, c in plays[1:]:
                if suit_of(c) != suit_of(plays[0][1]):
                    out[seat].add(suit_of(plays[0][1]))
        return out

    def still_to_play(self) -> list[int]:
        """Seats that play to this trick after this one."""
        left = self.players - len(self.trick) - 1
        return [(self.seat + i) % self.players for i in range(1, left + 1)]

    def is_boss(self, c: int) -> bool:
        """No unseen card of its suit ranks above it."""
        return not any(suit_of(u) == suit_of(c) and power(u) > power(c) for u in self.unseen)

    def can_be_beaten(self, c: int, by: Iterable[int]) -> bool:
        """Whether any of the seats ``by`` might still beat ``c``, the card now winning."""
        suit = suit_of(c)
        higher = any(suit_of(u) == suit and power(u) > power(c) for u in self.unseen)
        spades_out = any(suit_of(u) == SPADES for u in self.unseen)
        left_in_suit = sum(1 for u in self.unseen if suit_of(u) == suit)
        voids = self.voids()
        others = list(by)
        for seat in others:
            if higher and suit not in voids[seat]:
                return True
            # a plain card can be ruffed by a seat out of the suit (shown, or likely
            # when fewer cards of it are out than players yet to play)
            short = suit in voids[seat] or left_in_suit < len(others)
            if suit != SPADES and short and spades_out and SPADES not in voids[seat]:
                return True
        return False


# -- bidding ---------------------------------------------------------------------------------


def _by_suit(hand: Sequence[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {s: [] for s in range(4)}
    for c in sorted(hand, key=power, reverse=True):
        out[suit_of(c)].append(c)
    return out


def estimate_tricks(hand: Sequence[int], jokers: bool = False) -> float:
    """Likely tricks: side-suit honours, spade honours and length, ruffs with spare spades.

    >>> from cardtable.engine.cards import parse
    >>> estimate_tricks(parse("Ac Kc 2c Ad 3d 4h 5h 6h 7h As Ks 3s 2s"))
    5.3
    """
    suits = _by_suit(hand)
    total = 0.0
    for s in PLAIN_SUITS:
        ranks = [power(c) for c in suits[s]]
        n = len(ranks)
        if 12 in ranks:  # ace; a long suit gets ruffed before it is cashed
            total += 1.0 if n <= 5 else 0.6
        if 11 in ranks and n >= 2:  # king, with a card to guard it
            total += 0.9 if 12 in ranks else 0.5
        if 10 in ranks and n >= 3 and (12 in ranks or 11 in ranks):
            total += 0.4
    spades = suits[SPADES]
    top = power(BIG_JOKER) if jokers else power(card("As"))
    held = {power(c) for c in spades}
    honours, counted = 0.0, 0
    for c in spades:  # high to low
        missing = sum(1 for rank in range(power(c) + 1, top + 1) if rank not in held)
        if missing == 0:
            honours, counted = honours + 1.0, counted + 1
        elif missing <= 2 and len(spades) >= missing + 2:  # guarded: wins once the top goes
            honours, counted = honours + 0.6, counted + 1
    length = max(len(spades) - 4, 0)  # long trumps win the late tricks
    spare = len(spades) - counted - length
    total += honours + 0.8 * length
    for s in sorted(PLAIN_SUITS, key=lambda s: len(suits[s])):  # ruffs, shortest suit first
        ruffs = {0: 2, 1: 1, 2: 1}.get(len(suits[s]), 0)
        value = {0: 1.0, 1: 0.8, 2: 0.4}.get(len(suits[s]), 0.0)
        used = min(spare, ruffs)
        total += used * value
        spare -= used
    return round(total, 2)


def nil_is_safe(hand: Sequence[int]) -> bool:
    """No ace, no spade above the nine, at most three spades, honours guarded by low cards."""
    suits = _by_suit(hand)
    spades = suits[SPADES]
    if len(spades) > 3 or any(power(c) > power(card("9s")) for c in spades):
        return False
    for s in PLAIN_SUITS:
        cards = suits[s]
        low = [c for c in cards if power(c) <= power(card("6c"))]
        for c in cards:
            rank = power(c)
            if rank == 12 or (rank == 11 and len(low) < 3) or (rank >= 9 and len(low) < 2):
                return False
    return estimate_tricks(hand) < 1.2


def choose_bid(table: Table) -> int:
    """The number the bot would like to bid (0 = nil); the legal list may move it."""
    partner_bid = None if table.partner is None else table.bids[table.partner]
    if partner_bid != 0 and nil_is_safe(table.hand):
        return 0
    jokers = table.options["jokers"] != "none"
    counted = estimate_tricks(table.hand, jokers)
    if table.options["suicide"] and partner_bid is None and counted < SUICIDE_NIL_BELOW:
        return 0  # one of us must go nil: the weaker hand takes it
    estimate = counted + LOOSE_TRICKS[table.players]
    estimate += 1.0 if partner_bid == 0 else 0.0
    bid = max(1, int(estimate + 0.5))  # halves round up
    # Trim an overbid: the side cannot take more than the opponents leave it.
    opponents_bid = sum(table.bids[s] or 0 for s in table.opponents)
    room = table.hand_size - opponents_bid - (partner_bid or 0)
    return max(1, min(bid, room))


def _closest_bid(legal: list[Action], wanted: int) -> Action:
    bids = [a for a in legal if a.type == "bid" and a.number is not None]
    return min(bids, key=lambda a: (abs((a.number or 0) - wanted), a.number))


def wants_blind_nil(view: View) -> bool:
    """Far behind (two hundred or more) with a partner who bid solidly or is yet to bid.

    Never without a partner: seventeen unseen cards and no exchange make it hopeless.
    """
    seat = view["seat"]
    partner = view.get("partner")
    if partner is None:
        return False
    side = next(i for i, seats in enumerate(view["sides"]) if seat in seats)
    scores = view["scores"]
    behind = max(s for i, s in enumerate(scores) if i != side) - scores[side]
    partner_bid = view["bids"][partner]
    return behind >= 200 and (partner_bid is None or partner_bid >= 4)


def keeps(offered: int) -> bool:
    """Two players' draw: keep spades and high cards."""
    return suit_of(offered) == SPADES or power(offered) >= power(card("Jc"))


def exchange_cards(table: Table) -> list[int]:
    """The blind nil bidder's two most dangerous cards, or the partner's two lowest plain ones."""
    if table.bids[table.seat] == 0:  # the blind nil bidder
        ranked = sorted(table.hand, key=lambda c: (suit_of(c) == SPADES, power(c)), reverse=True)
    else:
        ranked = sorted(table.hand, key=lambda c: (suit_of(c) == SPADES, power(c), suit_of(c)))
    return ranked[:2]


# -- play ------------------------------------------------------------------------------------


def _low(cards: Iterable[int]) -> int:
    """The cheapest card: a plain card before a spade, low before high."""
    return min(cards, key=lambda c: (suit_of(c) == SPADES, power(c), suit_of(c)))


def _high(cards: Iterable[int]) -> int:
    return max(cards, key=lambda c: (power(c), suit_of(c) == SPADES, suit_of(c)))


def _beats(c: int, trick: list[tuple[int, int]], seat: int) -> bool:
    return not trick or trick_winner([*trick, (seat, c)]) == seat


def choose_play(table: Table, allowed: list[int]) -> int:
    """The card to play among ``allowed``."""
    if len(allowed) == 1:
        return allowed[0]
    if not table.trick:
        return _lead(table, allowed)
    return _follow(table, allowed)


def _follow(table: Table, allowed: list[int]) -> int:
    me, trick = table.seat, table.trick
    winner = trick_winner(trick)
    winning_card = next(c for s, c in trick if s == winner)
    winners = [c for c in allowed if _beats(c, trick, me)]
    losers = [c for c in allowed if c not in winners]
    later = table.still_to_play()
    if table.nil_alive(me):  # duck under the winning card, shedding the highest that loses
        if losers:
            return _high(losers)
        # Forced over it: the last to play sheds his highest; otherwise the lowest,
        # leaving room for a later card (a covering partner's) to beat his.
        return _high(winners) if not later else _low(winners)
    partner = table.partner
    if table.nil_alive(partner):
        if winner == partner:  # overtake him, as cheaply as possible
            return _low(winners) if winners else _low(allowed)
        if partner in later:  # go high ahead of him so he can play under
            return _high(winners) if winners else _low(allowed)
    nil_opponents = [s for s in table.opponents if table.nil_alive(s)]
    if any(s == winner for s in nil_opponents) and losers:
        return _high(losers)  # leave the trick with the nil bidder
    if any(s in later for s in nil_opponents) and not table.need():
        return _low(allowed)  # keep the trick low for him to win
    if winner == partner:
        safe = not later or not table.can_be_beaten(winning_card, later)
        if safe or not winners:  # never overtake a sure winner
            return _low(losers) if losers else _low(allowed)
    if not winners:
        return _low(allowed)
    if table.need() == 0 and table.bags_near_limit():
        return _high(losers) if losers else _low(winners)
    sure = [c for c in winners if not later or not table.can_be_beaten(c, _opponents_in(
        table, later))]
    if sure:
        return _low(sure)
    if winner == partner:
        return _low(losers) if losers else _low(allowed)
    # No sure winner: the best card of the suit led has the best chance; a ruff
    # is as cheap as possible.
    ruffing = suit_of(trick[0][1]) != SPADES and all(suit_of(c) == SPADES for c in winners)
    return _low(winners) if ruffing else _high(winners)


def _opponents_in(table: Table, seats: list[int]) -> list[int]:
    return [s for s in seats if s != table.partner]


def _lead(table: Table, allowed: list[int]) -> int:
    plain = [c for c in allowed if suit_of(c) != SPADES]
    if table.nil_alive(table.seat):
        return _low(allowed)
    if table.nil_alive(table.partner):  # lead high: bosses, then the top of a suit
        bosses = [c for c in allowed if table.is_boss(c)]
        return _high(bosses) if bosses else _high(plain or allowed)
    nil_opponents = [s for s in table.opponents if table.nil_alive(s)]
    if nil_opponents:  # a low card he may have to win, in a suit he has not shown out of
        voids = table.voids()
        open_suits = [c for c in plain if not any(suit_of(c) in voids[s] for s in nil_opponents)]
        return _low(open_suits or plain or allowed)
    if table.need() == 0 and table.bags_near_limit():
        return _low(allowed)
    returned = _partner_suit(table, allowed)
    if returned is not None:
        return returned
    bosses = [c for c in plain if table.is_boss(c)]
    if bosses:
        return _high(bosses)
    spade_bosses = [c for c in allowed if suit_of(c) == SPADES and table.is_boss(c)]
    if spade_bosses:
        return _high(spade_bosses)
    return _low_from_longest(plain or allowed)


def _partner_suit(table: Table, allowed: list[int]) -> int | None:
    """Lead to partner's strength: back the plain suit he led, top card only if it is boss."""
    if table.partner is None:
        return None
    for leader, plays, _ in reversed(table.tricks):
        suit = suit_of(plays[0][1])
        if leader != table.partner or suit == SPADES:
            continue
        mine = [c for c in allowed if suit_of(c) == suit]
        if mine:
            top = _high(mine)
            return top if table.is_boss(top) else _low(mine)
    return None


def _low_from_longest(cards: list[int]) -> int:
    lengths = {s: sum(1 for c in cards if suit_of(c) == s) for s in range(4)}
    return min(cards, key=lambda c: (-lengths[suit_of(c)], power(c), suit_of(c)))


def slips(view: View, best: Action, others: list[Action]) -> list[Action]:
    """Of ``others`` (the legal moves of ``best``'s kind but ``best``), those an easy
    computer may make instead of this bot's ``best``: any other card, except while the
    seat bid nil (a random card would throw the nil away); a bid at most one away from
    the bot's, never nil unless the bot bid nil.  Nothing else slips (blind nil, card
    passing, the two-player draw are the bot's).

    >>> bids = [{"type": "bid", "number": n} for n in range(14)]
    >>> slips({"seat": 1, "bids": [2, None, None, None], "legal": bids},
    ...       Action("bid", number=4), [Action("bid", number=n) for n in (3, 5, 9)])
    [Action('bid 3'), Action('bid 5')]
    """
    if best.type == "play":
        bids = view.get("bids") or []
        seat = view.get("seat")
        nil = isinstance(seat, int) and seat < len(bids) and bids[seat] == 0
        return [] if nil else others
    if best.type == "bid" and best.number is not None:
        wanted = best.number
        near = [a for a in others if a.number is not None and abs(a.number - wanted) <= 1]
        return [a for a in near if a.number != 0 or wanted == 0]
    return []


__all__ = ["Table", "choose", "choose_bid", "choose_play", "estimate_tricks", "exchange_cards",
           "keeps", "nil_is_safe", "slips", "wants_blind_nil"]
