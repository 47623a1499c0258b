"""The phases of a Spades hand, in the order they come."""

from __future__ import annotations

from ... import api


class Phase(api.Phase):
    DRAW = "draw"  # two players: keep or reject the top card of the stock
    BLIND_NIL = "blind_nil"  # before looking at his cards: bid blind nil, or look
    BID = "bid"  # bid 0 (nil) .. hand size
    EXCHANGE = "exchange"  # after a blind nil: bidder passes 2 to partner, partner returns 2
    PLAY = "play"  # play a card to the trick
    HAND_OVER = "hand_over"  # the next dealer deals
    MATCH_OVER = "match_over"


__all__ = ["Phase"]
