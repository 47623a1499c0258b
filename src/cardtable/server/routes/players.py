"""The players API: who this browser is (``/api/me``) and a player's public profile
(``/api/players/{player_id}``): his name, matches played and won per game, his latest
matches with everyone who sat at them."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from ...engine import GAMES, get_game
from ...store import Store
from ...store.players import MatchRecord, PlayerRecord
from ...store.ratings import ESTABLISHED
from ..players import current_player
from .shared import registry_of

RECENT = 20  # matches a profile lists

router = APIRouter()


class GameCount(BaseModel):
    game: str
    title: str
    played: int
    won: int


class SeatSummary(BaseModel):
    seat: int
    name: str
    kind: str
    player_id: str | None
    score: int | None
    won: bool


class MatchSummary(BaseModel):
    match_id: str
    code: str
    game: str
    title: str
    ended_at: str  # ISO 8601, UTC
    ended: str | None  # "agreed": ended by agreement, unscored
    rated: bool
    seats: list[SeatSummary]


class GameRating(BaseModel):
    game: str
    title: str
    rating: float  # mu - 3 sigma (docs/players.md)
    matches: int  # rated matches played
    provisional: bool  # fewer than ESTABLISHED rated matches
    rank: int | None  # on the game's leaderboard (None while provisional)


class RatingPoint(BaseModel):
    at: str  # ISO 8601, UTC
    rating: float


class BoardEntry(BaseModel):
    rank: int
    player_id: str
    name: str  # an account's username
    rating: float
    matches: int
    registered: bool  # shown with the registered player's mark


class Leaderboard(BaseModel):
    game: str
    title: str
    established: int  # rated matches before a player is listed
    rows: list[BoardEntry]
    you: GameRating | None  # the asking browser's own standing in this game


class Figure(BaseModel):
    label: str
    value: float | None  # None: nothing to average yet
    percent: bool


class GameStats(BaseModel):
    game: str
    title: str
    figures: list[Figure]


class Profile(BaseModel):
    player_id: str
    name: str
    username: str | None  # None: a guest
    since: str  # ISO 8601, UTC
    you: bool  # the profile of the browser asking
    counts: list[GameCount]
    ratings: list[GameRating]
    stats: list[GameStats]
    recent: list[MatchSummary]


def _title(game: str) -> str:
    return get_game(game).title if game in GAMES else game


def _summary(match: MatchRecord) -> MatchSummary:
    assert match.ended_at is not None
    return MatchSummary(
        match_id=match.match_id, code=match.code, game=match.game, title=_title(match.game),
        ended_at=match.ended_at.isoformat(), ended=match.ended, rated=match.rated,
        seats=[SeatSummary(seat=s.seat, name=s.name, kind=s.kind, player_id=s.player_id,
                           score=s.score, won=s.won) for s in match.seats])


def _stats(sums: dict[str, dict[str, int]]) -> list[GameStats]:
    out = []
    for game in sorted(sums, key=lambda g: GAMES.index(g) if g in GAMES else 99):
        stats = get_game(game).stats if game in GAMES else None
        if stats is not None:
            out.append(GameStats(game=game, title=_title(game), figures=[
                Figure(label=label, value=value, percent=percent)
                for label, value, percent in stats.summary(sums[game])]))
    return out


async def _ratings(store: Store, player_id: str, game: str | None = None) -> list[GameRating]:
    found = [r for r in await store.ratings.of_player(player_id) if game in (None, r.game)]
    return [GameRating(game=r.game, title=_title(r.game), rating=round(r.display, 2),
                       matches=r.matches, provisional=r.provisional,
                       rank=await store.ratings.rank(player_id, r.game)) for r in found]


async def _profile(request: Request, player: PlayerRecord, you: bool) -> Profile:
    store = registry_of(request).store
    players = store.players
    counts = await players.counts(player.player_id)
    recent = await players.recent_matches(player.player_id, RECENT)
    # An account is shown by its username, not by the last name typed at a seat.
    return Profile(player_id=player.player_id, name=player.username or player.name,
                   username=player.username,
                   since=player.created_at.isoformat(), you=you,
                   counts=[GameCount(game=c.game, title=_title(c.game), played=c.played,
                                     won=c.won) for c in counts],
                   ratings=await _ratings(store, player.player_id),
                   stats=_stats(await players.stats(player.player_id)),
                   recent=[_summary(m) for m in recent])


@router.get("/api/me")
async def me(request: Request) -> Profile | None:
    """This browser's player; null until it has sat down at a table (or with a cookie that
    is no player's)."""
    player = await current_player(request, registry_of(request).store)
    return None if player is None else await _profile(request, player, you=True)


@router.get("/api/players/{player_id}")
async def profile(player_id: str, request: Request) -> Profile:
    store = registry_of(request).store
    player = await store.players.get(player_id) if len(player_id) <= 32 else None
    if player is None:
        raise HTTPException(404, "no player has that id")
    asking = await current_player(request, store)
    return await _profile(request, player, you=asking is not None
                          and asking.player_id == player.player_id)


@router.get("/api/players/{player_id}/ratings/{game}")
async def rating_history(player_id: str, game: str, request: Request) -> list[RatingPoint]:
    """His rating in ``game`` after each of his rated matches, oldest first."""
    store = registry_of(request).store
    if len(player_id) > 32 or await store.players.get(player_id) is None:
        raise HTTPException(404, "no player has that id")
    return [RatingPoint(at=at.isoformat(), rating=round(value, 2))
            for at, value in await store.ratings.history(player_id, game[:32])]


@router.get("/api/leaderboard/{game}")
async def leaderboard(game: str, request: Request) -> Leaderboard:
    """The game's top established players, and where the asking browser stands."""
    if game not in GAMES:
        raise HTTPException(404, "no such game")
    store = registry_of(request).store
    asking = await current_player(request, store)
    mine = await _ratings(store, asking.player_id, game) if asking is not None else []
    return Leaderboard(
        game=game, title=_title(game), established=ESTABLISHED,
        rows=[BoardEntry(rank=r.rank, player_id=r.player_id, name=r.name,
                         rating=round(r.rating, 2), matches=r.matches,
                         registered=r.username is not None)
              for r in await store.ratings.board(game)],
        you=mine[0] if mine else None)
