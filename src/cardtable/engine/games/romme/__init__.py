"""German Rommé (Rommé mit Auslegen), with the ``standard`` and ``dskv_online`` presets.

Rules (``shared/rules/romme.md``; choices left open are in ``docs/rules/romme.md``)
-----------------------------------------------------------------------------------
2-6 players, each for himself; two packs and 6 jokers (110 cards).  Runs go
A-2-3 ... Q-K-A (the ace at either end, never in the middle unless K-A-2 is
allowed); sets are 3-4 cards of one rank in different suits (two copies of a
card never in one set).  A joker stands for any card; a meld needs a natural.

1. Deal: the first dealer is drawn at random, then the deal passes to the
   left.  13 cards each, one at a time from the dealer's left; the dealer gets
   a 14th card and no card is turned up: he opens the hand without drawing
   (he may come out) and his discard starts the pile.  (``deal: upcard``: 13
   each, a card turned up, the dealer's left draws first.)
2. Turn: draw the top of the stock or of the discard pile; meld, lay off,
   exchange jokers; discard.  The card just taken from the pile may not be
   discarded in the same turn.
3. Coming out: until a player has come out he may neither lay off nor
   exchange jokers.  His first melds go down together, in one move, and must
   total ``first_meld`` melding points: pips at face value, court cards 10,
   an ace 11 but 1 before the 2 of a run, a joker what it stands for.
   After that (the same turn too) any number of melds, lay-offs and joker
   exchanges.
4. Joker exchange: a natural card takes a melded joker's place (a set of
   three: either missing suit; a set of four or a run: the exact card).  The
   freed joker must go back on the table in the same turn.
5. Going out: the last card leaves the hand by a meld, lay-off or discard
   (``final_discard``: only by a discard).  Out in one turn having laid
   nothing before (Hand-Rommé; the dealer's opening turn counts) multiplies
   every penalty by ``hand_romme_multiplier``.
6. Stock exhausted: the discard pile but its top card is shuffled into a new
   stock (``stock_exhausted: end_hand``: the hand ends, everyone counts).
7. Scoring: each loser adds the cards left in his hand (pips, courts 10, ace
   ``ace_penalty``, joker ``joker_penalty``); ``never_out`` for one who never
   came out; the winner 0 (``winner_scores: sum``: minus the penalties' sum).
   Lowest total wins at the ``end``.

Options (``Options()`` is ``standard``)
---------------------------------------
========================  ============  =============  ======================================
option                    standard      dskv_online    alternatives
========================  ============  =============  ======================================
jokers                    6             6              4, 2
deal                      dealer_extra  dealer_extra   upcard
hand_size                 13            13             14 (dealer 15 under dealer_extra)
short_hands_5_6           False         False          True (11 cards with 5-6 players)
first_meld                40            40             30, 50
ace_penalty               11            11             15
joker_penalty             20            25             25, 30
king_ace_two              False         False          True
joker_limit               none          none           one_per_meld, not_more_than_naturals,
                                                       not_adjacent
top_discard_must_be_used  False         False          True
hand_romme_multiplier     2             2              1
final_discard             False         False          True
stock_exhausted           shuffle       shuffle        end_hand
never_out                 hand          hand           fixed_100, double
winner_scores             zero          zero           sum
end                       deals         deals          limit, elimination
deals                     0 (a round)   0              1-100
target (end=limit)        500           500            1-10000
eliminate_at              101           101            1-10000
========================  ============  =============  ======================================

Moves: ``draw_stock``, ``draw_discard``, ``meld`` (``cards``; the first melds
together as ``melds``), ``lay_off`` (``card``, ``meld`` id), ``swap_joker``
(``card``, ``meld`` id), ``discard`` (``card``) and ``deal``.

>>> import random
>>> state = new_match(Options(), players=3, rng=random.Random(1))
>>> state.phase.value, state.current_player() == state.dealer
('play', True)
>>> sorted(len(h) for h in state.hands), state.discard
([13, 13, 14], [])
"""

from ...registry import Descriptor, register
from ...tablemelds.stats import STATS
from .match import NAME, Phase, RommeState
from .options import Options

RULES = """
    Two to six players, two packs and six jokers (110 cards). Everyone gets 13 cards; the
    dealer gets 14 and begins by discarding, without drawing.

    Melds are sets of 3 or 4 cards of one rank in different suits and runs of 3 or more
    in one suit (A-2-3 and Q-K-A, not K-A-2). A joker stands for any card, but a meld
    needs at least one real card.

    - Each turn: draw the top card of the stock or of the discard pile, lay down what you
      can, then discard one card.
    - Coming out: your first melds go down together in one turn and must be worth at least
      40 points (an ace 11, or 1 at the bottom of A-2-3; court cards 10; a joker what it
      stands for). Until then you may not add cards to other melds.
    - Once out you may add cards to any meld, and exchange a joker on the table for the
      card it stands for; the freed joker must be played again in the same turn.
    - The hand ends when a player has no cards left. The others pay for the cards in their
      hands: aces 11, court cards 10, jokers 20, number cards their value; double if he
      went out all in one turn (Hand-Rommé).

    After one round of deals, everyone dealing once, the lowest total wins.
"""

DESCRIPTOR = register(Descriptor(RommeState, title="German Rommé", players=(2, 3, 4, 5, 6),
                        stats=STATS,
                        bot="cardtable.bots.romme.normal",
                        hard_bot="cardtable.bots.romme.hard", order=4, rules=RULES))
PLAYERS = DESCRIPTOR.players
new_match = DESCRIPTOR.new_match
replay = DESCRIPTOR.replay

__all__ = ["DESCRIPTOR", "NAME", "PLAYERS", "Options", "Phase", "RommeState", "new_match",
           "replay"]
