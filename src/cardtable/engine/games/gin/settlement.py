"""The end of a Gin Rummy match: when it is over, who won, and the final settlement."""

from __future__ import annotations

from ...api import JSON
from .options import Options


def match_over(points: list[int], boxes: list[int], hands: int, hand_winner: int | None,
               scores: list[int], options: Options) -> tuple[bool, int | None]:
    """(is the match over, its winner) after ``hands`` hands, the last won by ``hand_winner``.

    To the target only the hand's winner can have reached it (``scores``: the
    running scores).  After a fixed number of ``deals`` (void hands count) the
    higher total of hand points plus boxes wins; equal totals are a drawn
    match (winner ``None``).

    >>> match_over([20, 20], [2, 1], 3, None, [20, 20], Options(deals=3))
    (True, 0)
    >>> match_over([0, 0], [0, 0], 1, None, [0, 0], Options(deals=1))
    (True, None)
    >>> match_over([120, 0], [1, 0], 1, 0, [120, 0], Options(deals=2))
    (False, None)
    """
    o = options
    if not o.deals:
        return hand_winner is not None and scores[hand_winner] >= o.target, hand_winner
    if hands < o.deals:
        return False, None
    totals = [p + b * o.box_bonus for p, b in zip(points, boxes, strict=True)]
    return True, None if totals[0] == totals[1] else totals.index(max(totals))


def final_settlement(points: list[int], boxes: list[int], winner: int | None,
                     options: Options) -> dict[str, JSON]:
    """The match's end: game bonus, boxes and shutout, from hand points and boxes won.

    ``winner`` is ``None`` for a drawn match (equal totals after a fixed
    number of deals): nobody gets the game bonus and there is no shutout.

    >>> final_settlement([104, 60], [4, 3], 0, Options.preset("pagat"))["totals"]
    [284, 120]
    >>> drawn = final_settlement([0, 0], [0, 0], None, Options(deals=1))
    >>> drawn["winner"], drawn["draw"], drawn["totals"], drawn["margin"]
    (None, True, [0, 0], 0)
    """
    o = options
    # Boxes count once, whether credited hand by hand (box_timing) or now.
    box = [b * o.box_bonus for b in boxes]
    if winner is None:
        totals = [p + b for p, b in zip(points, box, strict=True)]
        return {"winner": None, "draw": True, "shutout": False, "points": list(points),
                "boxes": list(boxes), "box_points": box, "game_bonus": 0,
                "totals": totals, "margin": 0}
    loser = 1 - winner
    shutout = points[loser] == 0
    game_bonus = o.game_bonus * (2 if shutout and o.shutout == "double_game_bonus" else 1)
    won = points[winner] * (2 if shutout and o.shutout == "double_hand_points" else 1)
    totals = [0, 0]
    totals[winner] = won + game_bonus + box[winner]
    if shutout and o.shutout == "double_total":
        totals[winner] *= 2
    totals[loser] = points[loser] + box[loser]
    return {"winner": winner, "draw": False, "shutout": shutout, "points": list(points),
            "boxes": list(boxes), "box_points": box, "game_bonus": game_bonus,
            "totals": totals, "margin": totals[winner] - totals[loser]}


__all__ = ["final_settlement", "match_over"]
