"""Spades, for four players in partnership, three (cutthroat) or two.

Rules (``shared/rules/spades.md``; choices left open are in ``docs/rules/spades.md``)
-------------------------------------------------------------------------------------
One pack, aces high, spades always trumps (with the jokers option the Big
and Little Joker are the two top spades, and two deuces leave the pack).

1. Deal: the first dealer is drawn at random, then the deal passes to the
   left.  Four players: 13 cards each, singly from the dealer's left,
   partners opposite (seats 0+2 and 1+3).  Three: one card leaves the pack
   (the 2c by default) and each gets 17.  Two: no deal; from a face-down
   stock, non-dealer first, each in turn looks at the top card and either
   keeps it (the next card goes face down, dead) or rejects it (dead, and
   the next card is kept), until each holds 13.
2. Bidding: one round from the dealer's left; each bids 0 (Nil) to the hand
   size.  A side whose score trails the best other score by the margin may
   bid Blind Nil, decided before looking at the cards; then, with partners,
   the blind bidder passes 2 cards face down to partner, who returns 2.
3. Play: the first trick is led from the dealer's left with any non-spade
   (``classic``: the holder of the 2c leads it and everyone plays his lowest
   club).  Follow suit if you can; the highest spade wins, else the highest
   card of the suit led; the winner leads.  Spades are not led until one has
   been played, unless the leader holds only spades.
4. Scoring per side: made contract +10 per trick bid and +1 per overtrick
   (a bag); set -10 per trick bid; Nil +-nil value, Blind Nil +-blind value;
   a failed nil's tricks are bags (``classic``: they count for the partner).
   Each time the bags reach 10 the side loses 100.
5. The match ends when a side reaches the target (or, with ``deals``, after
   that many hands); the higher score wins and a tie at the top plays
   another hand (mercy option: a side at minus the mercy figure ends it too).

Options (``Options()`` is ``standard``)
----------------------------------------
====================  ==========================  ======================
option                standard                    classic
====================  ==========================  ======================
nil_value             100                         50
blind_nil             True                        True
blind_nil_value       200                         100
blind_nil_margin      100 (0 = any time)          100
blind_nil_exchange    True (2 cards each way)     True
failed_nil_tricks     bags                        contract
bag_limit             10                          10
bag_penalty           100 (0 = none)              100
bags_score            True                        True
first_lead            left_of_dealer_no_spade     two_of_clubs
first_trick           any                         lowest_club
spade_breaking        True                        True
minimum_team_bid      0 (none)                    0
ten_for_two_hundred   False                       False
jokers                none                        none
target                500                         500
deals                 0 (play to target)          0
mercy                 0 (off; 200 is usual)       0
suicide               False                       False
three_player_removes  two_of_clubs                two_of_clubs
====================  ==========================  ======================

Moves: ``keep`` / ``reject`` (two players' draw), ``blind_nil`` / ``look``,
``bid <n>`` (0 = nil), ``pass_cards cards=<c1><c2>``, ``play <card>``, and
``deal`` (the next dealer starts the next hand).

>>> score_side((5, 0), (8, 0), bags=7, options=Options())
(53, 0)
"""

from collections.abc import Mapping

from ...api import JSON, Rng
from ...registry import Descriptor, register
from .match import NAME
from .options import Options
from .phase import Phase
from .scoring import SideScore, match_winner, score_player, score_side, side_score
from .state import SpadesState
from .stats import STATS

RULES = """
    Four players in two partnerships, partners sitting opposite; 13 cards each. Spades are
    always trumps. Three players play cutthroat, each for himself with 17 cards; two
    players build their hands from the stock, keeping or rejecting card after card.

    - Bidding: everyone bids the number of tricks he expects to take; partners' bids add
      up to the side's contract. A bid of 0 is Nil, a promise to take no trick at all;
      Blind Nil is bid before looking at your cards.
    - Play: the player to the dealer's left leads. Follow suit if you can, otherwise play
      any card. The highest spade wins the trick, or else the highest card of the suit
      led; the winner leads next.
    - Spades may not be led until a spade has been played on another suit (spades are
      broken), unless you hold nothing but spades.
    - A side that makes its contract scores 10 a trick bid plus 1 for each trick over (a
      bag); a side that fails loses 10 a trick bid. Every 10 bags cost 100 points.
    - Nil scores 100 when the bidder takes no trick and loses 100 when he takes one; Blind
      Nil doubles that.

    The first side to 500 wins.
"""

DESCRIPTOR = register(Descriptor(SpadesState, title="Spades", players=(4, 3, 2),
                        stats=STATS,
                        bot="cardtable.bots.spades.normal",
                        hard_bot="cardtable.bots.spades.hard", order=6,
                        partnerships=4, rules=RULES,
                        seat_notes=((4, "partners"), (3, "cutthroat"), (2, "two-handed")),
                        turn_goes_on_after=frozenset(), stock_draw=None, timeout="bot"))
PLAYERS = DESCRIPTOR.players


def new_match(options: Options | None = None, players: int = 4,
              rng: Rng | None = None) -> SpadesState:
    """A match to the target (or a number of deals); the first dealer is drawn at random."""
    match = DESCRIPTOR.new_match(options, players, rng)
    assert isinstance(match, SpadesState)
    return match


def replay(record: Mapping[str, JSON], rng: Rng | None = None) -> SpadesState:
    """The exact state of ``record()``; later deals come from ``rng``."""
    match = DESCRIPTOR.replay(record, rng)
    assert isinstance(match, SpadesState)
    return match


__all__ = [
    "DESCRIPTOR",
    "NAME",
    "PLAYERS",
    "Options",
    "Phase",
    "SideScore",
    "SpadesState",
    "match_winner",
    "new_match",
    "replay",
    "score_player",
    "score_side",
    "side_score",
]
