"""The players API: who this browser is (``/api/me``) and a player's public profile
(``/api/players/{player_id}``): his name, matches played and won per game, his latest
matches with everyone who sat at them."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from ...engine import GAMES, get_game
from ...store.players import MatchRecord, PlayerRecord
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
    seats: list[SeatSummary]


class Profile(BaseModel):
    player_id: str
    name: str
    username: str | None  # None: a guest
    since: str  # ISO 8601, UTC
    you: bool  # the profile of the browser asking
    counts: list[GameCount]
    recent: list[MatchSummary]


def _title(game: str) -> str:
    return get_game(game).title if game in GAMES else game


def _summary(match: MatchRecord) -> MatchSummary:
    assert match.ended_at is not None
    return MatchSummary(
        match_id=match.match_id, code=match.code, game=match.game, title=_title(match.game),
        ended_at=match.ended_at.isoformat(), ended=match.ended,
        seats=[SeatSummary(seat=s.seat, name=s.name, kind=s.kind, player_id=s.player_id,
                           score=s.score, won=s.won) for s in match.seats])


async def _profile(request: Request, player: PlayerRecord, you: bool) -> Profile:
    players = registry_of(request).store.players
    counts = await players.counts(player.player_id)
    recent = await players.recent_matches(player.player_id, RECENT)
    return Profile(player_id=player.player_id, name=player.name, username=player.username,
                   since=player.created_at.isoformat(), you=you,
                   counts=[GameCount(game=c.game, title=_title(c.game), played=c.played,
                                     won=c.won) for c in counts],
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
