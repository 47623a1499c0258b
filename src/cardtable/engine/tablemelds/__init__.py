"""The Rummy family's shared mechanism: melds laid face up on a table.

Classic Rummy, Rummy 500, German Rommé and Indian Rummy differ in a handful
of rules around one turn (draw, meld, lay off, discard).  That turn is written
once, in :class:`TableMeldState` (on the engine's shared
:class:`~cardtable.engine.state.GameState`); a game is a subclass that
overrides a few hooks (python-chess style), and the phase functions it plays
differently, and scores the hand.

Pieces
------
``table``       :class:`TableMeld` (id, owner, cards, what each joker stands
                for, who laid each card), :func:`extend` (lay-off on a set or
                either end of a run), :func:`fits` (a lay-off a game's house
                rules allow) and :func:`extension_cards` (every card that fits),
                :func:`swap_joker` (joker exchange) and :func:`swap_cards`.
``candidates``  the melds a hand can lay, finite and sorted, for ``legal_actions``.
``opening``     a first-meld minimum: the first melds go down together; the menu
                of openings ``legal_actions`` lists (up to three melds).
``coming_out``  whether an opening places a given card: an exact search, for the
                draw under "the top discard must be used".
``hooks``       :class:`Hooks`: the overridable rules, with classic defaults, and
                the fields of the position they read.
``play_checks`` whether a meld, lay-off, joker exchange or discard is legal, read
                from the move itself (``apply`` asks it; ``legal_actions`` lists a
                bounded menu of melds for views, hints and bots).
``state``       :class:`TableMeldState`: phases, obligations, stock, views, redeal.
``reasons``     why a move of the draw or deal is refused, in a player's words.
``redeal``      the redeal of a resample: the cards a seat has not seen.

Hooks (override in a game's state class)
----------------------------------------
==========================  ===========================================================
hook                        decides
==========================  ===========================================================
full_deck, deal_size        the cards and the deal
meld_rules                  ace low / high / around the corner, meld sizes
max_jokers_per_listed_meld  bounds the melds offered when jokers are held
meld_problem(meld)          a house rule a meld breaks (joker limits): new melds,
                            lay-offs and listed melds alike
card_value, meld_value      a card's count in hand; a meld's worth for a minimum
melds_per_turn              one new meld per turn, or any number
may_lay_off(seat)           lay-offs allowed (e.g. only after one's first meld)
may_swap_jokers(seat)       joker exchange allowed (offered one at a time, and only
                            when the freed joker can go back on the table that turn)
opening_minimum(seat)       points the first melds must reach (0: none)
pickup_depth                how many discard-pile cards may be taken at once
must_use_top_discard        the single top discard must be used this turn
must_use_deep_pickup        the deepest card of a multi-card pickup must be used
final_discard_required      going out only by a discard
stock_policy, stock_reuses  an empty stock: turn the pile over, shuffle it, or end
settle_hand, match_winners  scoring (each game writes these)
next_dealer                 who deals next
==========================  ===========================================================
"""

from .candidates import candidate_melds, run_windows
from .hooks import STOCK_POLICIES, Hooks
from .opening import opening_actions, opening_problem
from .phase import Phase
from .reasons import MOVES
from .state import TableMeldState
from .table import TableMeld, extend, extension_cards, fits, lay, points, swap_cards, swap_joker

__all__ = [
    "MOVES",
    "STOCK_POLICIES",
    "Hooks",
    "Phase",
    "TableMeld",
    "TableMeldState",
    "candidate_melds",
    "extend",
    "extension_cards",
    "fits",
    "lay",
    "opening_actions",
    "opening_problem",
    "points",
    "run_windows",
    "swap_cards",
    "swap_joker",
]
