"""Ratings per game with openskill's Plackett-Luce model: any number of sides, a side of
any size (Spades partnerships), ranks with ties.

A new player starts at openskill's mu 25, sigma 25/3. What players see is the
conservative estimate ``mu - 3 sigma`` (openskill's ``ordinal``): it starts at 0 and rises
as the system grows sure of him, so a lucky newcomer is not at the top. He is
*provisional* until :data:`ESTABLISHED` rated matches; the leaderboard lists only the
established. Each rated match updates its players in the transaction that records the
match, so a match rates once however often it is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from openskill.models import PlackettLuce
from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from cardtable.store.models import players, rating_history, ratings

ESTABLISHED = 10  # rated matches before a rating is no longer provisional
BOARD = 100  # players a leaderboard lists


@cache
def model() -> PlackettLuce:
    return PlackettLuce()


def display(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


@dataclass
class Rating:
    player_id: str
    game: str
    mu: float
    sigma: float
    matches: int

    @property
    def display(self) -> float:
        return display(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.matches < ESTABLISHED


def rate(before: Sequence[Sequence[Rating]], ranks: Sequence[int]) -> list[list[Rating]]:
    """New ratings of the sides ``before`` after a match that ranked them ``ranks``
    (1 best; equal ranks tie)."""
    teams = [[model().create_rating([r.mu, r.sigma], name=r.player_id) for r in side]
             for side in before]
    after = model().rate(teams, ranks=list(ranks))
    return [[Rating(old.player_id, old.game, new.mu, new.sigma, old.matches + 1)
             for old, new in zip(side, new_side, strict=True)]
            for side, new_side in zip(before, after, strict=True)]


def gone_last(sides: Sequence[Sequence[str]], ranks: Sequence[int],
              gone: Set[str]) -> list[int] | None:
    """The ranks of a rated match once the ``gone`` (accounts deleted before it was
    recorded) are taken as leavers: a side with one of them below every other; None when
    no side is left to rate.

    >>> gone_last([["ann"], ["bob"]], [2, 1], {"bob"}), gone_last([["a"]], [1], {"a"})
    ([2, 3], None)
    """
    last = max(ranks, default=0) + 1
    after = [last if gone & set(side) else rank for side, rank in zip(sides, ranks, strict=True)]
    return after if any(rank != last for rank in after) else None


async def rate_match(conn: AsyncConnection, game: str, match_id: str,
                     sides: Sequence[Sequence[str]], ranks: Sequence[int],
                     at: datetime, gone: Set[str] = frozenset()) -> None:
    """Inside the transaction recording the match: rate its players (``sides`` of player
    ids, ranked ``ranks``) and note each one's new rating in his history. The ``gone``
    (accounts deleted since they sat down) take part as newcomers, to rate the others
    against, and are written nowhere."""
    ids = sorted({p for side in sides for p in side})
    rows = (await conn.execute(select(ratings).where(
        ratings.c.game == game, ratings.c.player_id.in_(ids)).with_for_update())).all()
    known = {row.player_id: Rating(row.player_id, game, row.mu, row.sigma, row.matches)
             for row in rows}
    fresh = model().rating()
    before = [[known.get(p) or Rating(p, game, fresh.mu, fresh.sigma, 0) for p in side]
              for side in sides]
    for new in (r for side in rate(before, ranks) for r in side if r.player_id not in gone):
        values = {"mu": new.mu, "sigma": new.sigma, "display": new.display,
                  "matches": new.matches, "updated_at": at}
        if new.player_id in known:
            await conn.execute(update(ratings).where(
                ratings.c.player_id == new.player_id, ratings.c.game == game).values(values))
        else:
            await conn.execute(insert(ratings).values(player_id=new.player_id, game=game,
                                                      **values))
        await conn.execute(insert(rating_history).values(
            player_id=new.player_id, game=game, match_id=match_id, display=new.display, at=at))


@dataclass
class BoardRow:
    rank: int
    player_id: str
    name: str
    rating: float
    matches: int
    username: str | None = None  # an account's (every rated player has one)


class Ratings:
    """The ratings side of the store (``store.ratings``)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def of_player(self, player_id: str) -> list[Rating]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(ratings).where(
                ratings.c.player_id == player_id).order_by(ratings.c.game))).all()
        return [Rating(r.player_id, r.game, r.mu, r.sigma, r.matches) for r in rows]

    async def history(self, player_id: str, game: str) -> list[tuple[datetime, float]]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(rating_history.c.at, rating_history.c.display).where(
                    rating_history.c.player_id == player_id, rating_history.c.game == game)
                .order_by(rating_history.c.at, rating_history.c.match_id))).all()
        return [(r.at, r.display) for r in rows]

    async def board(self, game: str, limit: int = BOARD) -> list[BoardRow]:
        """The game's established players, best first."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                # An account is shown by its username, not the last name typed at a seat.
                select(ratings.c.player_id,
                       func.coalesce(players.c.username, players.c.name).label("name"),
                       players.c.username, ratings.c.display, ratings.c.matches)
                .join(players, players.c.player_id == ratings.c.player_id)
                .where(ratings.c.game == game, ratings.c.matches >= ESTABLISHED)
                .order_by(ratings.c.display.desc(), ratings.c.player_id)
                .limit(limit))).all()
        return [BoardRow(i, r.player_id, r.name, r.display, r.matches, r.username)
                for i, r in enumerate(rows, 1)]

    async def rank(self, player_id: str, game: str) -> int | None:
        """His place on the game's board (None while provisional or unrated)."""
        async with self.engine.connect() as conn:
            mine = (await conn.execute(select(ratings.c.display, ratings.c.matches).where(
                ratings.c.player_id == player_id, ratings.c.game == game))).first()
            if mine is None or mine.matches < ESTABLISHED:
                return None
            above = await conn.scalar(select(func.count()).select_from(ratings).where(
                ratings.c.game == game, ratings.c.matches >= ESTABLISHED,
                ratings.c.display > mine.display))
        return int(above or 0) + 1
