"""Rummy 500 (500 Rum), with the ``pagat`` and ``bicycle`` presets.

Rules (``shared/rules/rummy500.md``; choices left open are in ``docs/rules/rummy500.md``)
----------------------------------------------------------------------------------------
2-8 players, each for himself.  2-4 players use one pack and two jokers (54
cards), 5-8 two packs and four jokers (108); ``jokers: False`` leaves them out.

1. Deal: the first dealer is drawn at random, then the deal passes left.  13
   cards each to 2 players (or 10), 7 each to 3-8; the next card starts the
   discard pile, which lies fanned (every view shows all of it); the rest is
   the stock.  The dealer's left plays first.
2. Draw one of: the top stock card (``draw_stock``); the top discard alone
   (``draw_discard``: free to keep; ``top_discard_must_be_used``: it must go
   on the table this turn); or a deeper discard with every card above it
   (``draw_discard`` with ``number`` = how many cards): the deepest must go on
   the table this turn, in a new meld or a lay-off (``pickup_use:
   new_meld``: a new meld only).  A draw is offered only when that is
   possible.  The top discard taken alone may not be discarded that turn.
3. Meld and lay off any number of times, on anyone's meld; each card scores
   for the player who placed it.  Groups are 3-4 of a rank in different
   suits (no duplicate card with two packs); runs are 3+ of a suit, the ace
   low (A-2-3) or high (Q-K-A), never both (``ace: around`` allows K-A-2);
   nothing extends past an end ace.  Jokers are wild; a joker's card is fixed
   when it is laid (a run joker takes the high end when the run can go
   higher, else the low end) and never moves.
4. Discard one card; going out empties the hand by a meld, a lay-off or the
   discard (``final_discard``: only by a discard).
5. Empty stock (``end_hand``): the next player may take from the discard
   pile or ``pass``; when he passes or cannot take any discard, the hand
   ends with nobody out.  ``shuffle``: the pile becomes a new stock.
6. Scoring: each player scores the cards he placed on the table minus the
   cards left in his hand (ace 15, but 1 at the low end of a run; joker 15;
   court cards 10; pips face value; in hand aces and jokers count 15), plus
   ``going_out_bonus`` for going out.  After a hand in which someone reaches
   ``target`` (or, with ``deals``, after that many hands), the highest total
   wins; a tie for highest plays another hand.
7. ``calling_rummy``: a discard another player can use may be called, taken
   and played at once for his own credit (phase ``call``; see ``calls``).

Options (``Options()`` is ``pagat``)
------------------------------------
========================  ===============  ==============  =======================
option                    pagat            bicycle         alternatives
========================  ===============  ==============  =======================
two_player_cards          13               13              10
jokers                    True (2/pack)    False
joker_value               15               15              represented
low_ace_value             1                1               15
ace                       high_or_low      high_or_low     around
pickup_use                meld_or_lay_off  meld_or_lay_off new_meld
top_discard_must_be_used  False            True
final_discard             False            False           True
stock_exhausted           end_hand         end_hand        shuffle
calling_rummy             False            False           True
going_out_bonus           0                0               10
target                    500              500             1-10000
deals                     0 (to target)    0               1-100
========================  ===============  ==============  =======================

Moves: ``draw_stock``, ``draw_discard`` (``number``: cards taken, 2 or
more; none for the top card alone), ``meld`` (``cards``), ``lay_off``
(``card``, ``meld`` id), ``discard`` (``card``), ``pass`` (empty stock: take
nothing, the hand ends; or decline a call), ``call`` and ``deal``.

>>> import random
>>> state = new_match(Options(), players=3, rng=random.Random(1))
>>> len(state.hands[0]), len(state.full_deck()), state.legal_actions()
(7, 54, [Action('draw_discard'), Action('draw_stock')])
"""

from ...registry import Descriptor, register
from ...tablemelds.stats import STATS
from .match import NAME, Phase, Rummy500State
from .options import Options
from .scoring import hand_count, meld_points

RULES = """
    Two to eight players: one pack with two jokers for up to four players, two packs with
    four jokers for more. Two players get 13 cards each, three or more get 7. The discard
    pile is spread out so that every card in it can be seen.

    Melds are sets of 3 or 4 cards of one rank and runs of 3 or more in one suit (the ace
    is low, A-2-3, or high, Q-K-A, but not both). A joker stands for any card.

    - Each turn: draw the top card of the stock, or take from the discard pile: the top
      card, or any deeper card together with every card above it. When you take more than
      the top card, the deepest one must be used at once, in a meld or on a meld on the
      table.
    - Then lay down melds and add cards to any meld on the table, yours or anyone's, as you
      like, and discard one card.
    - The hand ends when a player has no cards left, or when the stock is empty and the
      next player will not take from the discard pile.
    - Every card you laid on the table scores for you and every card left in your hand
      counts against you: aces 15 (1 at the low end of a run), court cards 10, number
      cards their value, jokers 15.

    The first player to reach 500 wins.
"""

DESCRIPTOR = register(Descriptor(Rummy500State, title="Rummy 500", players=(2, 3, 4, 5, 6, 7, 8),
                        stats=STATS,
                        bot="cardtable.bots.rummy500.normal",
                        hard_bot="cardtable.bots.rummy500.hard", order=3, rules=RULES))
PLAYERS = DESCRIPTOR.players
new_match = DESCRIPTOR.new_match
replay = DESCRIPTOR.replay

__all__ = ["DESCRIPTOR", "NAME", "PLAYERS", "Options", "Phase", "Rummy500State", "hand_count",
           "meld_points", "new_match", "replay"]
