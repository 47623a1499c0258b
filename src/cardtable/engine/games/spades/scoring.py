"""Hand scoring (contracts, nil, bags) and the end of the match.

A side is two partners (four players) or one player (two or three players).
A bid of 0 is Nil; ``blind`` marks the nil bids that were blind.

>>> score_side((3, 2), (4, 4), bags=7, options=Options())   # 337 with 7 bags -> 290, 0 bags
(-47, 0)
>>> score_side((0, 4), (0, 5), bags=0, options=Options())   # nil made, partner 4 took 5
(141, 1)
>>> score_player(5, 4, bags=0, options=Options())
(-50, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...api import JSON
from .options import Options

TEN_FOR_TWO_HUNDRED = 200


@dataclass(frozen=True)
class SideScore:
    """One side's hand, itemised as the scorecard shows it."""

    contract: int  # sum of the non-nil bids
    contract_tricks: int  # tricks that count toward it
    contract_points: int  # +10 per trick bid, or -10 per trick bid when set (or +-200)
    nil_points: int  # +- nil and blind nil values
    bags: int  # bags taken this hand (overtricks and failed-nil tricks, per the options)
    bag_points: int  # +1 per bag unless bags score 0
    penalty: int  # bag penalties (0 or negative)
    bags_after: int  # the side's bag count carried to the next hand

    @property
    def points(self) -> int:
        return self.contract_points + self.nil_points + self.bag_points + self.penalty

    def to_json(self) -> dict[str, JSON]:
        # The fields in their order, then the total (``asdict`` would copy recursively).
        return {"contract": self.contract, "contract_tricks": self.contract_tricks,
                "contract_points": self.contract_points, "nil_points": self.nil_points,
                "bags": self.bags, "bag_points": self.bag_points, "penalty": self.penalty,
                "bags_after": self.bags_after, "points": self.points}


def side_score(bids: Sequence[int], tricks: Sequence[int], bags: int, options: Options,
               blind: Sequence[bool] = (False, False)) -> SideScore:
    """Itemised score of one side's hand; ``bags`` is the count it carries in."""
    if len(bids) != len(tricks) or not 1 <= len(bids) <= 2:
        raise ValueError("a side has one or two players, each with a bid and tricks")
    o = options
    contract = sum(b for b in bids if b > 0)
    counted = sum(t for b, t in zip(bids, tricks, strict=True) if b > 0)
    nil_points = new_bags = 0
    for i, (bid, taken) in enumerate(zip(bids, tricks, strict=True)):
        if bid:
            continue
        value = o.blind_nil_value if i < len(blind) and blind[i] else o.nil_value
        nil_points += -value if taken else value
        if o.failed_nil_tricks == "bags":
            new_bags += taken
        elif o.failed_nil_tricks == "contract":
            counted += taken  # with no contract (both nil) these all become overtricks
    contract_points = 0
    made = counted >= contract
    if contract:
        unit = TEN_FOR_TWO_HUNDRED if o.ten_for_two_hundred and contract >= 10 else 10 * contract
        contract_points = unit if made else -unit
    if made:
        new_bags += counted - contract
    total, penalty = bags + new_bags, 0
    while total >= o.bag_limit:  # 9 bags + 13 more is two penalties, 2 carried
        total -= o.bag_limit
        penalty -= o.bag_penalty
    return SideScore(contract=contract, contract_tricks=counted, contract_points=contract_points,
                     nil_points=nil_points, bags=new_bags,
                     bag_points=new_bags if o.bags_score else 0, penalty=penalty,
                     bags_after=total)


def score_side(bids: Sequence[int], tricks: Sequence[int], bags: int, options: Options,
               blind: Sequence[bool] = (False, False)) -> tuple[int, int]:
    """(points, bags_after) of one side's hand: two partners, or one lone player."""
    scored = side_score(bids, tricks, bags, options, blind)
    return scored.points, scored.bags_after


def score_player(bid: int, tricks: int, bags: int, options: Options,
                 blind: bool = False) -> tuple[int, int]:
    """(points, bags_after) for a player without a partner (two or three players)."""
    return score_side((bid,), (tricks,), bags, options, (blind,))


def match_winner(scores: Sequence[int], options: Options, hands: int = 0) -> int | None:
    """The winning side after ``hands`` hands, or ``None`` to play another.

    The match is decided once a side reaches the target, or with ``deals``
    once that many hands are played instead (and, with the mercy rule, when a
    side falls to minus ``mercy``): the highest score wins; a tie at the top
    plays on.

    >>> match_winner([530, 510], Options()), match_winner([505, 505], Options())
    (0, None)
    >>> match_winner([-40, 61], Options(deals=1), hands=1), match_winner([530, 0], Options(deals=2))
    (1, None)
    """
    reached = hands >= options.deals if options.deals else any(
        s >= options.target for s in scores)
    decided = reached or (options.mercy > 0 and any(s <= -options.mercy for s in scores))
    if not decided:
        return None
    top = max(scores)
    leaders = [side for side, s in enumerate(scores) if s == top]
    return leaders[0] if len(leaders) == 1 else None


__all__ = ["SideScore", "match_winner", "score_player", "score_side", "side_score"]
