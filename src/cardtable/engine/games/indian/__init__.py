"""Indian 13-card Rummy (points, pool 101/201/61, deals), with a ``pagat`` preset.

Rules (``shared/rules/indian_rummy.md``; choices left open are in ``docs/rules/indian.md``)
------------------------------------------------------------------------------------------
2-6 players, each for himself; two packs and two printed jokers (106 cards).
Count: ace and court cards 10, pips at face value, every joker 0.

1. Deal: a recorded toss picks the first player; 13 cards each.  The next
   card is the wild joker card (public, out of play): every card of its rank
   is wild; a printed joker there makes the aces wild (``no_extra_wild``:
   only printed jokers).  Printed jokers are always wild.  The next card
   starts the open deck, the rest is the closed deck.
2. Turn: draw from the closed or the open deck (a joker a player discarded
   may not be taken: ``joker_pickup``), then discard, or declare with a
   finish card.  Before drawing a player may drop instead: first drop (no
   draw yet this deal) or middle drop.  A drop leaves the deal; it goes on
   for the others; the last one left wins it.  An empty closed deck is
   renewed from the open deck but its top card, shuffled.
3. Groups: a pure sequence (3+ of a suit in order, no card standing in; a
   wild card as itself is natural), an impure sequence (jokers stand in),
   a set (3-4 of a rank, suits all different).  A-2-3 and Q-K-A are
   sequences, K-A-2 is not.  A group of printed jokers only: ``joker_group``.
4. Show: the engine arranges the 13 cards left; every card grouped, 2+
   sequences, 1+ pure (``four_card_life``: one of 4+ cards) is a valid
   show: the declarer wins the deal with 0.  Otherwise a wrong show: the
   declarer pays ``wrong_show`` and leaves; the deal goes on for the others
   (``wrong_show_ends_deal``: it ends, the others pay nothing).
5. Losers are arranged for their lowest count: with the lives only loose
   cards count, else all 13; capped at ``full_count``.
6. Formats: ``points`` one deal, the winner collects the others' points;
   ``pool`` deals until a single player is under ``target``; ``deals`` a
   fixed number of deals, lowest total wins (a tie plays extra deals).

Options (``Options()`` is ``points``)
-------------------------------------
====================  ===========  =========  =========  =========  =====  =============
option                points       pool101    pool201    pool61     deals  pagat
====================  ===========  =========  =========  =========  =====  =============
format                points       pool       pool       pool       deals  points
target (pool)         101          101        201        61
deals                 2                                             2
decks                 2 (1: 2 p.; 3: 5-6 p.)
printed_joker_cut     aces_wild                                            no_extra_wild
drop                  20/40                   25/50      15/30      none   10/40
full_count            80 (60)
wrong_show            80 (60)                            60
wrong_show_ends_deal  False
four_card_life        False
joker_pickup          forbidden                                            allowed
direction             clockwise                                            anticlockwise
big_sets              False
joker_group           sequence (set, invalid)
discard_taken         True                                                 False
round_to_5            False                                                True
first_turn_show       full                                                 half
====================  ===========  =========  =========  =========  =====  =============

Moves: ``draw_stock``, ``draw_discard``, ``drop``, ``discard <card>``,
``declare <card>`` (the card put in the finish slot) and ``deal``.

>>> import random
>>> state = new_match(Options(), players=3, rng=random.Random(1))
>>> state.phase.value, len(state.hands[state.to_act]), state.legal_actions()
('draw', 13, [Action('draw_discard'), Action('draw_stock'), Action('drop')])
"""

from collections.abc import Mapping

from ...api import JSON, Rng
from ...registry import Descriptor, register
from .arrange import Rules, card_value, finish_cards, valid_show
from .layout import arrangement
from .match import NAME, Phase, Seat
from .options import Options
from .scoring import hand_points
from .state import IndianState
from .stats import STATS

RULES = """
    Two to six players, two packs with two printed jokers; everyone gets 13 cards. One
    card is turned face up: every card of its rank is a wild joker for this deal, and the
    printed jokers are always wild.

    Sort your cards into sequences (3 or more in a row in one suit; A-2-3 and Q-K-A, not
    K-A-2) and sets (3 or 4 cards of one rank in different suits). Jokers may fill in; a
    pure sequence has no joker standing in for a card.

    - Each turn: draw from the closed deck or take the top card of the open deck, then
      discard one card.
    - To win, declare (show): put your 14th card in the finish slot and show the other 13
      all in groups, with at least two sequences, at least one of them pure. A wrong show
      costs 80 points.
    - Instead of playing a deal out you may drop: 20 points before your first draw, 40
      later.
    - At a valid show the others count the cards outside their groups (all 13 unless they
      have two sequences, one of them pure), at most 80: aces and court cards 10, number
      cards their value, jokers 0.

    Points rummy is one deal, and the winner collects everyone's points; in pool rummy
    deal follows deal, a total of 101 (or 201, or 61) puts a player out, and the last one
    left wins.
"""

DESCRIPTOR = register(Descriptor(IndianState, title="Indian Rummy", players=(2, 3, 4, 5, 6),
                        stats=STATS,
                        bot="cardtable.bots.indian.normal",
                        hard_bot="cardtable.bots.indian.hard", order=5,
                        drop_after_misses=3, rules=RULES))
PLAYERS = DESCRIPTOR.players


def new_match(options: Options | None = None, players: int = 2,
              rng: Rng | None = None) -> IndianState:
    """A match in the chosen format; the first player is decided by a (recorded) toss."""
    match = DESCRIPTOR.new_match(options, players, rng)
    assert isinstance(match, IndianState)
    return match


def replay(record: Mapping[str, JSON], rng: Rng | None = None) -> IndianState:
    """The exact state of ``record()``; later deals come from ``rng``."""
    match = DESCRIPTOR.replay(record, rng)
    assert isinstance(match, IndianState)
    return match


__all__ = [
    "DESCRIPTOR",
    "NAME",
    "PLAYERS",
    "IndianState",
    "Options",
    "Phase",
    "Rules",
    "Seat",
    "arrangement",
    "card_value",
    "finish_cards",
    "hand_points",
    "new_match",
    "replay",
    "valid_show",
]
