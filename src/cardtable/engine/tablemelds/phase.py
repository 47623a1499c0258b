"""The phases of a table-meld match."""

from __future__ import annotations

from .. import api


class Phase(api.Phase):
    DRAW = "draw"  # take the top stock card or from the discard pile
    PLAY = "play"  # meld, lay off, exchange jokers; then discard (or go out)
    CALL = "call"  # Rummy 500 "calling Rummy": others may claim a discard (games opt in)
    HAND_OVER = "hand_over"  # the next dealer deals
    MATCH_OVER = "match_over"
