"""Who may bid what: minimum contracts, Suicide, and when Blind Nil is on offer.

Bids are numbers, 0 meaning Nil.  With partners, a side's contract is the sum
of its non-nil bids; the rules that bind the two bids together (a minimum
team bid, Suicide's "exactly one nil") are checked on the pair, and the
first partner to bid may only choose a number his partner can still
complete.

>>> pair_allowed(0, 3, Options(minimum_team_bid=4)), pair_allowed(0, 4, Options(suicide=True))
(False, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from .options import Options


def pair_allowed(first: int, second: int, options: Options) -> bool:
    """Whether two partners' bids stand together (0 = nil)."""
    if options.suicide and (first == 0) == (second == 0):
        return False
    return first + second >= options.minimum_team_bid


def bid_allowed(bid: int, partner_bid: int | None, most: int, options: Options,
                partnership: bool) -> bool:
    """Whether ``bid`` is legal, given the partner's bid (``None``: yet to bid).

    Without a partner a lone player may bid nil, or a number that reaches the
    minimum.
    """
    if not 0 <= bid <= most:
        return False
    if not partnership:
        return bid == 0 or bid >= options.minimum_team_bid
    if partner_bid is not None:
        return pair_allowed(bid, partner_bid, options)
    return any(pair_allowed(bid, other, options) for other in range(most + 1))


def trails_enough(side: int, scores: Sequence[int], options: Options) -> bool:
    """Whether a side is far enough behind the best other score for a blind nil."""
    if options.blind_nil_margin == 0:
        return True
    best_other = max(s for i, s in enumerate(scores) if i != side)
    return scores[side] <= best_other - options.blind_nil_margin


__all__ = ["bid_allowed", "pair_allowed", "trails_enough"]
