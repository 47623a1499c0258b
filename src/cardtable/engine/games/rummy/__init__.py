"""Classic Rummy, with the ``standard`` and ``pagat`` presets.

Rules (``shared/rules/rummy.md``; choices left open are in ``docs/rules/rummy.md``)
-----------------------------------------------------------------------------------
2-6 players, each for himself; one pack, no jokers; ace low only by default.
Cards count ace 1, pips at face value, court cards 10.

1. Deal: the first dealer is drawn at random; 10 cards each to 2 players, 7
   to 3-4, 6 to 5-6, one at a time from the dealer's left; the next card
   starts the discard pile, the rest is the stock.  The dealer's left plays
   first; play goes to the left.
2. Turn: draw the top of the stock or of the discard pile; meld (any number
   of new melds, or one under ``pagat``) and lay off on any meld on the
   table; discard.  A card just taken from the discard pile may not be
   discarded in the same turn.
3. A meld is a set (3-4 cards of one rank) or a run (3+ of one suit in
   sequence); a lay-off must leave a legal meld, and table melds never move.
4. Going out: the last card leaves the hand by a meld, lay-off or discard
   (``final_discard``: only by a discard).  Play stops at once.
5. Stock exhausted: the discard pile becomes the stock (shuffled, or turned
   over), at most ``stock_reuses`` times; the next time the stock runs out,
   or at once under block rummy, the hand is blocked.
6. Scoring: ``penalty`` (standard) every other player adds his hand's count
   to his own total and the lowest total wins when someone reaches the
   target; ``winner_takes`` (pagat) the player out scores the others' hands
   and the highest total wins.  Going "rummy" (out in one turn having laid
   nothing before) multiplies by ``rummy_multiplier``.

Options (``Options()`` is ``standard``)
---------------------------------------
=========================  =============  ============  ==============================
option                     standard       pagat         alternatives
=========================  =============  ============  ==============================
two_player_cards           10             10            7
melds_per_turn             any            one
ace                        low            low           high_or_low, around
ace_value                  1              1             15
final_discard              False          False         True
stock_exhausted            shuffle        turn_over     block
stock_reuses               1              10 (guard)    1-10
blocked_hand               no_score       no_score      lowest_wins
rummy_multiplier           1              2
lay_off_before_meld        True           True          False
top_discard_must_be_used   False          False         True
scoring                    penalty        winner_takes
target                     100            100           1-10000
deals                      0 (to target)  0             1-100 fixed deals
next_dealer (2 players)    alternate      alternate     winner
=========================  =============  ============  ==============================

Moves: ``draw_stock``, ``draw_discard``, ``meld`` (``cards``), ``lay_off``
(``card``, ``meld`` id), ``discard`` (``card``) and ``deal`` (the next
dealer starts the next hand).

>>> import random
>>> state = new_match(Options(), players=3, rng=random.Random(1))
>>> state.phase.value, len(state.hands[0]), state.legal_actions()
('draw', 7, [Action('draw_discard'), Action('draw_stock')])
"""

from ...registry import Descriptor, register
from ...tablemelds.stats import STATS
from .match import NAME, Phase, RummyState, hand_value
from .options import Options

RULES = """
    Two to six players, one pack, no jokers. Two players get 10 cards each, three or four
    get 7, five or six get 6; the next card starts the discard pile.

    Melds are sets of 3 or 4 cards of one rank and runs of 3 or more cards in one suit
    (the ace is low: A-2-3).

    - Each turn: draw the top card of the stock or of the discard pile; lay down melds and
      add cards to any meld on the table (laying off), as you like; then discard one card.
      A card just taken from the discard pile may not be discarded in the same turn.
    - The hand ends as soon as a player has no cards left, by melding, laying off or
      discarding.
    - The cards left in the other hands count: aces 1, number cards their value, court
      cards 10.
    - When the stock runs out, the discard pile becomes the new stock.

    In the standard game each loser adds his own cards to his total, and once a total
    reaches 100 the lowest total wins; in the traditional game the player who went out
    scores everyone else's cards, and the first to 100 wins.
"""

DESCRIPTOR = register(Descriptor(RummyState, title="Rummy", players=(2, 3, 4, 5, 6),
                        stats=STATS,
                        bot="cardtable.bots.rummy.normal",
                        hard_bot="cardtable.bots.rummy.hard", order=2, rules=RULES))
PLAYERS = DESCRIPTOR.players
new_match = DESCRIPTOR.new_match
replay = DESCRIPTOR.replay

__all__ = ["DESCRIPTOR", "NAME", "PLAYERS", "Options", "Phase", "RummyState", "hand_value",
           "new_match", "replay"]
