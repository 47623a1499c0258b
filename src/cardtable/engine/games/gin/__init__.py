"""Gin Rummy, with the ``standard``, ``pagat`` and ``oklahoma`` presets.

Rules (``shared/rules/gin_rummy.md``; choices left open are in ``docs/rules/gin.md``)
-------------------------------------------------------------------------------------
Two players, one pack, no jokers; ace low only (A-2-3 is a run, Q-K-A is not).
Deadwood counts ace 1, pips at face value, court cards 10.

1. Deal: the first dealer is drawn at random; 10 cards each, one at a time,
   non-dealer first; the 21st card is the upcard, the other 31 the stock.
2. First upcard: non-dealer may take it or pass, then dealer; if both pass,
   non-dealer's first draw is from the stock.  Taking it counts as the draw.
3. Turn: draw the top of the stock or of the discard pile, then discard; a
   card just taken from the discard pile may not be discarded (nor knocked
   with) in the same turn.
4. Knock: with 11 cards, discard face down leaving at most the knock limit of
   deadwood (Oklahoma: the first upcard's value, an ace meaning gin only or
   1).  No deadwood is gin; all 11 melded is big gin (no discard).
5. Showdown (automatic, optimal for both): the defender lays off on the
   knocker's melds unless it is gin; knocker scores D - K, or the defender
   undercuts with K - D + undercut bonus; gin scores D + gin bonus.  An
   Oklahoma hand with a spade upcard scores double.
6. A hand is void (same dealer) when a discard leaves the stock at the floor
   (2), unless the 50th-card option lets the opponent take that discard to
   knock.
7. The match ends when a player's points reach the target (or, with
   ``deals``, after that many hands, void ones included: the higher total of
   hand points plus boxes wins, equal totals are a drawn match with no game
   bonus); the winner adds the game bonus, each player a box bonus per hand
   won; a shutout doubles what ``shutout`` says.

Options (``Options()`` is ``standard``)
----------------------------------------
=================  ===================  ====================  ==================
option             standard             pagat                 oklahoma
=================  ===================  ====================  ==================
gin_bonus          25                   20                    25
big_gin_bonus      31 (0 = off)         0                     31
undercut_bonus     25                   10                    25
undercut_on_tie    True                 True                  True
knock_limit        10                   10                    upcard (oklahoma)
oklahoma_ace       gin_only             one                   gin_only
spade_doubles      True (oklahoma only) True                  True
double_boxes       False                False                 False
target             100                  100                   150
deals              0 (play to target)   0                     0
game_bonus         100                  100                   100
box_bonus          25                   20                    25
box_timing         end                  end                   end
shutout            double_hand_points   double_game_bonus     double_hand_points
next_dealer        alternate            winner                alternate
first_upcard       True                 True                  True
stock_floor        2                    2                     2
fiftieth_card      False                False                 False
=================  ===================  ====================  ==================

Moves: ``take_upcard``, ``pass``, ``draw_stock``, ``draw_discard``,
``discard <card>``, ``knock <card>`` and ``gin <card>`` (optionally with
``melds``: the knocker's own spread), ``big_gin``, and ``deal`` (the next
dealer starts the next hand).

>>> from cardtable.engine.cards import parse
>>> deadwood(parse("7s 7h 7d 5s 6s 8s"))
14
>>> s = settle(parse("4h 5h 6h 9c 9d 9s Kc Kd Kh As"),
...            parse("2c 3c 4c Qs Qd Qc 3h 7h 9h 8s"), Options.preset("pagat"))
>>> s.kind, s.scorer, s.points, s.defender_points
('knock', 'knocker', 7, 8)
"""

from collections.abc import Mapping

from ...api import JSON, Rng
from ...registry import Descriptor, register
from .match import NAME, GinState, Phase
from .options import Options
from .showdown import Layoff, Settlement, best_melding, deadwood, defend, settle
from .stats import STATS

RULES = """
    Two players, one pack, 10 cards each. Build melds, sets of 3 or 4 cards of one rank
    and runs of 3 or more in one suit (the ace is low: A-2-3, never Q-K-A), and keep the
    cards outside them, your deadwood, low. Deadwood counts aces 1, number cards their
    value and court cards 10.

    - The first upcard is offered to the non-dealer, then to the dealer; if both pass,
      the non-dealer draws from the stock.
    - Each turn: draw the top card of the stock or of the discard pile, then discard one
      card. A card just taken from the discard pile may not go back in the same turn.
    - Knock when your deadwood after the discard is within the knock limit (10 in the
      standard game): both hands are shown, the defender lays off what he can on your
      melds, and you score the difference between the deadwoods.
    - If the defender's deadwood is as low as yours or lower, he undercuts you and scores
      the difference plus the undercut bonus.
    - Gin, no deadwood at all, scores the defender's whole deadwood plus the gin bonus,
      and nothing may be laid off on it; big gin melds all 11 cards.
    - When only two cards are left in the stock and nobody has knocked, the hand is void
      and the same dealer deals again.

    The match goes to the target (100 in the standard game). The winner adds the game
    bonus, and each player a box bonus for every hand he won.
"""

DESCRIPTOR = register(Descriptor(GinState, title="Gin Rummy", players=(2,),
                        stats=STATS,
                        bot="cardtable.bots.gin.normal",
                        hard_bot="cardtable.bots.gin.hard", order=1,
                        terminal=True, rules=RULES))
PLAYERS = DESCRIPTOR.players


def new_match(options: Options | None = None, players: int = 2,
              rng: Rng | None = None) -> GinState:
    """A match to the target (or a number of deals); the first dealer is drawn at random."""
    match = DESCRIPTOR.new_match(options, players, rng)
    assert isinstance(match, GinState)
    return match


def replay(record: Mapping[str, JSON], rng: Rng | None = None) -> GinState:
    """The exact state of ``record()``; later deals come from ``rng``."""
    match = DESCRIPTOR.replay(record, rng)
    assert isinstance(match, GinState)
    return match


__all__ = [
    "DESCRIPTOR",
    "NAME",
    "PLAYERS",
    "GinState",
    "Layoff",
    "Options",
    "Phase",
    "Settlement",
    "best_melding",
    "deadwood",
    "defend",
    "new_match",
    "replay",
    "settle",
]
