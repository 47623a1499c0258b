"""Players and the matches they finished: a guest's lasting identity, his history, his counts.

A guest is a row of ``players``; his browser holds a secret in a cookie whose SHA-256 is
a row of ``sessions``. Registering gives the same row a username and a password hash
(server/accounts.py), so his history stays his; an account may be signed in on several
browsers, a session each. A finished match is a row of ``matches`` and one row per seat in
``match_seats`` (with the game and end time copied, for index scans). Recording a match is
idempotent: its id is the table's and the version that started it, and a second recording
of the same match changes nothing (a table reloaded after a crash records it again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from cardtable.names import name_key, name_keys, name_look
from cardtable.store.engine import Writer
from cardtable.store.models import match_seats, matches, player_stats, players, sessions
from cardtable.store.ratings import gone_last, rate_match


def utcnow() -> datetime:
    return datetime.now(UTC)


DELETED_NAME = "Deleted player"
SESSION_DAYS = 400  # a session unused this long has expired (as its cookie has)


class UsernameTaken(Exception):
    """Another player has that username (in any case)."""


@dataclass
class PlayerRecord:
    player_id: str  # public: in profile addresses
    name: str
    created_at: datetime
    seen_at: datetime
    username: str | None = None  # None: a guest

    @property
    def registered(self) -> bool:
        return self.username is not None


@dataclass
class MatchSeat:
    seat: int
    name: str
    kind: str  # "human" | "bot"
    player_id: str | None  # None for a computer, or a seat taken before identities
    score: int | None
    won: bool
    stats: dict[str, int] | None = None  # the game's figures of his match (engine/stats.py)


@dataclass
class MatchRecord:
    match_id: str  # "<table_id>:<start version>"
    table_id: str
    code: str
    game: str
    players: int
    options: dict[str, Any]
    ended: str | None  # "agreed", or None when played to its end
    result: dict[str, Any] | None
    seats: list[MatchSeat] = field(default_factory=list)
    ended_at: datetime | None = None  # set when recorded
    rated: bool = False  # it counts in the ratings: its sides (player ids) and ranks (1 best)
    rating_sides: list[list[str]] = field(default_factory=list)
    rating_ranks: list[int] = field(default_factory=list)


@dataclass
class GameCounts:
    game: str
    played: int
    won: int


class Players:
    """The players' side of the store (``store.players``)."""

    def __init__(self, engine: AsyncEngine, writer: Writer) -> None:
        self.engine, self._writer = engine, writer

    async def create(self, player_id: str, token_hash: str, name: str) -> PlayerRecord:
        """A new guest, signed in by the session ``token_hash``."""
        now = utcnow()
        async with self._writer.begin() as conn:
            await conn.execute(insert(players).values(
                player_id=player_id, name=name, created_at=now, seen_at=now))
            await conn.execute(insert(sessions).values(
                token_hash=token_hash, player_id=player_id, created_at=now, seen_at=now))
        return PlayerRecord(player_id, name, now, now)

    async def by_token(self, token_hash: str) -> PlayerRecord | None:
        """The player the session ``token_hash`` signs in, if any (a session unused for
        :data:`SESSION_DAYS` has expired)."""
        fresh = utcnow() - timedelta(days=SESSION_DAYS)
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(players).join(
                sessions, sessions.c.player_id == players.c.player_id).where(
                sessions.c.token_hash == token_hash, sessions.c.seen_at >= fresh))).first()
        return None if row is None else _player(row)

    async def by_username(self, username: str) -> tuple[PlayerRecord, str] | None:
        """The account of ``username`` (any case) and its password hash."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(players).where(
                players.c.username_key == username.casefold()))).first()
        return None if row is None else (_player(row), str(row.password_hash))

    async def username_like(self, name: str) -> str | None:
        """The username of an account that ``name`` cannot be told apart from (the same
        whatever the case, or a homoglyph of it: cardtable/names.py), if any."""
        keys = name_keys(name)
        async with self.engine.connect() as conn:
            found = await conn.scalar(select(players.c.username).where(or_(
                players.c.username_skeleton.in_(keys), players.c.username_look.in_(keys)))
                .order_by(players.c.registered_at).limit(1))
        return None if found is None else str(found)

    async def password_hash(self, player_id: str) -> str | None:
        async with self.engine.connect() as conn:
            found = await conn.scalar(select(players.c.password_hash).where(
                players.c.player_id == player_id))
        return None if found is None else str(found)

    async def register(self, player_id: str, username: str, password_hash: str) -> None:
        """The guest ``player_id`` becomes an account; UsernameTaken if anyone has it."""
        try:
            async with self._writer.begin() as conn:
                await conn.execute(update(players).where(players.c.player_id == player_id)
                                   .values(username=username, name=username,
                                           username_key=username.casefold(),
                                           **_username_keys(username),
                                           password_hash=password_hash,
                                           registered_at=utcnow()))
        except IntegrityError:
            raise UsernameTaken(username) from None

    async def create_account(self, player_id: str, token_hash: str, username: str,
                             password_hash: str) -> PlayerRecord:
        """A new player who is an account from the start (a browser that registers before
        it ever sat down), signed in by the session ``token_hash``: one transaction, so
        UsernameTaken leaves nothing behind."""
        now = utcnow()
        try:
            async with self._writer.begin() as conn:
                await conn.execute(insert(players).values(
                    player_id=player_id, name=username, created_at=now, seen_at=now,
                    username=username, username_key=username.casefold(),
                    **_username_keys(username),
                    password_hash=password_hash, registered_at=now))
                await conn.execute(insert(sessions).values(
                    token_hash=token_hash, player_id=player_id, created_at=now, seen_at=now))
        except IntegrityError:
            raise UsernameTaken(username) from None
        return PlayerRecord(player_id, username, now, now, username)

    async def set_password(self, player_id: str, password_hash: str) -> None:
        async with self._writer.begin() as conn:
            await conn.execute(update(players).where(players.c.player_id == player_id)
                               .values(password_hash=password_hash))

    async def start_session(self, player_id: str, token_hash: str,
                            replacing: str | None = None) -> None:
        """Sign a browser in as ``player_id`` with a new session, ending ``replacing`` (the
        browser's session before: a session is rotated at every sign-in)."""
        async with self._writer.begin() as conn:
            if replacing is not None:
                await conn.execute(delete(sessions).where(sessions.c.token_hash == replacing))
            now = utcnow()
            await conn.execute(insert(sessions).values(
                token_hash=token_hash, player_id=player_id, created_at=now, seen_at=now))

    async def end_sessions(self, player_id: str, keep: str | None = None) -> None:
        """Sign ``player_id`` out everywhere (but the session ``keep``)."""
        query = delete(sessions).where(sessions.c.player_id == player_id)
        if keep is not None:
            query = query.where(sessions.c.token_hash != keep)
        async with self._writer.begin() as conn:
            await conn.execute(query)

    async def end_session(self, token_hash: str) -> None:
        async with self._writer.begin() as conn:
            await conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    async def delete(self, player_id: str) -> None:
        """Delete a player and his personal data: his row and sessions, and his name in the
        matches he played (the matches stay, for the other players' history)."""
        async with self._writer.begin() as conn:
            await conn.execute(update(match_seats).where(match_seats.c.player_id == player_id)
                               .values(name=DELETED_NAME, player_id=None))
            await conn.execute(delete(sessions).where(sessions.c.player_id == player_id))
            await conn.execute(delete(players).where(players.c.player_id == player_id))

    async def get(self, player_id: str) -> PlayerRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(players).where(
                players.c.player_id == player_id))).first()
        return None if row is None else _player(row)

    async def seen(self, player_id: str, name: str | None = None,
                   session: str | None = None) -> None:
        """He came back (with ``name``: he goes by that name now; with ``session``: that
        session was used, and lives on for :data:`SESSION_DAYS` more)."""
        now = utcnow()
        values: dict[str, Any] = {"seen_at": now}
        if name is not None:
            values["name"] = name
        async with self._writer.begin() as conn:
            await conn.execute(update(players).where(players.c.player_id == player_id)
                               .values(values))
            if session is not None:
                await conn.execute(update(sessions).where(sessions.c.token_hash == session)
                                   .values(seen_at=now))

    async def record_match(self, match: MatchRecord) -> bool:
        """Store a finished match; False (and nothing changed) if it is stored already."""
        ended_at = match.ended_at or utcnow()
        async with self._writer.begin() as conn:
            if await conn.scalar(select(matches.c.match_id).where(
                    matches.c.match_id == match.match_id)) is not None:
                return False
            known = set((await conn.scalars(select(players.c.player_id).where(
                players.c.player_id.in_({s.player_id for s in match.seats if s.player_id}))
            )).all())
            # Who deleted his account since he sat down: no name of his is kept, and in a
            # rated match he is a leaver, ranked last, so that the others' result counts.
            gone = {s.player_id for s in match.seats if s.player_id and s.player_id not in known}
            ranks = gone_last(match.rating_sides, match.rating_ranks, gone) \
                if match.rated else None
            try:
                await conn.execute(insert(matches).values(
                    match_id=match.match_id, table_id=match.table_id, code=match.code,
                    game=match.game, players=match.players, options=match.options,
                    ended=match.ended, result=match.result, ended_at=ended_at,
                    rated=ranks is not None))
            except IntegrityError:
                return False  # recorded meanwhile by another process
            await conn.execute(insert(match_seats), [
                {"match_id": match.match_id, "seat": s.seat,
                 "name": DELETED_NAME if s.player_id in gone else s.name, "kind": s.kind,
                 "player_id": s.player_id if s.player_id in known else None,
                 "score": s.score, "won": s.won and not (match.rated and s.player_id in gone),
                 "stats": s.stats, "game": match.game,
                 "ended_at": ended_at, "agreed": match.ended is not None}
                for s in match.seats])
            for seat in match.seats:
                if seat.stats and seat.player_id in known:
                    await _add_stats(conn, str(seat.player_id), match.game, seat.stats)
            if ranks is not None:
                await rate_match(conn, match.game, match.match_id, match.rating_sides,
                                 ranks, ended_at, gone)
        match.ended_at = ended_at
        return True

    async def recent_matches(self, player_id: str, limit: int = 20) -> list[MatchRecord]:
        """His latest finished matches, newest first, with every seat of each."""
        async with self.engine.connect() as conn:
            ids = (await conn.scalars(
                select(match_seats.c.match_id).where(match_seats.c.player_id == player_id)
                .order_by(match_seats.c.ended_at.desc(), match_seats.c.match_id.desc())
                .limit(limit))).all()
            if not ids:
                return []
            rows = (await conn.execute(select(matches).where(
                matches.c.match_id.in_(ids)))).all()
            seat_rows = (await conn.execute(select(match_seats).where(
                match_seats.c.match_id.in_(ids)).order_by(match_seats.c.seat))).all()
        seats: dict[str, list[MatchSeat]] = {}
        for row in seat_rows:
            seats.setdefault(row.match_id, []).append(MatchSeat(
                row.seat, row.name, row.kind, row.player_id, row.score, row.won))
        found = {row.match_id: MatchRecord(
            row.match_id, row.table_id, row.code, row.game, row.players, row.options,
            row.ended, row.result, seats.get(row.match_id, []), row.ended_at,
            bool(row.rated)) for row in rows}
        return [found[i] for i in ids if i in found]

    async def stats(self, player_id: str) -> dict[str, dict[str, int]]:
        """His figures per game, summed over his finished matches."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(player_stats).where(
                player_stats.c.player_id == player_id))).all()
        return {row.game: dict(row.sums) for row in rows}

    async def counts(self, player_id: str) -> list[GameCounts]:
        """Matches played and won per game; a match ended by agreement counts in neither."""
        won = func.sum(case((match_seats.c.won, 1), else_=0))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(match_seats.c.game, func.count(), won)
                .where(match_seats.c.player_id == player_id, match_seats.c.agreed.is_(False))
                .group_by(match_seats.c.game).order_by(match_seats.c.game))).all()
        return [GameCounts(game, int(played), int(wins or 0)) for game, played, wins in rows]


async def _add_stats(conn: AsyncConnection, player_id: str, game: str,
                     stats: dict[str, int]) -> None:
    """Add one match's figures to his sums (inside the transaction recording the match)."""
    where = (player_stats.c.player_id == player_id, player_stats.c.game == game)
    sums = await conn.scalar(select(player_stats.c.sums).where(*where).with_for_update())
    if sums is None:
        await conn.execute(insert(player_stats).values(player_id=player_id, game=game,
                                                       sums=dict(stats)))
        return
    added = dict(sums)
    for key, value in stats.items():
        added[key] = added.get(key, 0) + value
    await conn.execute(update(player_stats).where(*where).values(sums=added))


def _username_keys(username: str) -> dict[str, str]:
    """The confusable keys an account's username is found by (Players.username_like)."""
    return {"username_skeleton": name_key(username), "username_look": name_look(username)}


def _player(row: Any) -> PlayerRecord:
    return PlayerRecord(row.player_id, row.name, row.created_at, row.seen_at, row.username)
