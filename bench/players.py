"""Leaderboards and profiles at scale: 100,000 players, 1,000,000 stored matches.

Run ``python bench/players.py [--players 100000] [--matches 1000000] [--db sqlite|postgresql|
both] [--requests 200]``.  For each database it makes a fresh one (SQLite: a file in a
temporary directory; PostgreSQL: a database created on ``--postgres`` and dropped
afterwards), migrates it with ``Store.open`` (so the indexes are the migrations' own, made
before the data), then loads generated data in bulk, in batches of ``--batch`` rows, one
transaction each (SQLite: an ``executemany`` of the INSERT, the values encoded as
SQLAlchemy encodes them, on a loading connection of its own with ``synchronous=OFF`` and a
big page cache; PostgreSQL: ``COPY`` through asyncpg):

* ``--players`` players, each with an activity drawn from a log-normal law (sigma 1.5): most
  play a few matches, the busiest thousands;
* ``--matches`` matches of two seats (``2 × --matches`` rows of ``match_seats``), one after
  the other over the last year, the game drawn from the six (gin the most played), the two
  players drawn by activity, the winner by a hidden skill; 3% ended by agreement, 85% of the
  others rated;
* a ``ratings`` row for every (player, game) with a rated match, ``matches`` its rated
  matches, ``display`` rising with them as the real ratings do (``mu - 3 sigma``);
* ``rating_history``: the last 50 rated matches of each rated (player, game), at most
  ``--history`` rows in all (the busiest first lose their oldest ones).

PostgreSQL then gets ``VACUUM ANALYZE`` (what autovacuum does soon after a load; the store
never runs it itself); SQLite gets nothing (the store never runs ``ANALYZE``: its plans
are made without statistics, as on a real server).  Then, on a fresh ``Store.open`` of the
same database, after a warm-up, ``--requests`` calls of each, one at a time, timed with
``time.perf_counter`` (median, p95, p99 in ms):

* **leaderboard**: ``store.ratings.board(game)`` (the top 100 of a random game);
* **rank**: ``store.ratings.rank(player, game)`` of a random established rating;
* **counts**, **recent 20**, **ratings**: ``players.counts``, ``players.recent_matches(…, 20)``,
  ``ratings.of_player`` of a random player, and counts and recent of one of the 1,000
  busiest players;
* **profile**: everything ``GET /api/players/{id}`` asks the store (``players.get``,
  ``counts``, ``recent_matches(…, 20)``, ``of_player`` and ``rank`` per rated game), for a
  random player and for one of the 1,000 busiest.

The statements those methods send are caught (a ``before_cursor_execute`` hook) and
explained (SQLite ``EXPLAIN QUERY PLAN``, PostgreSQL ``EXPLAIN``) with the parameters they
were sent with: the plans are printed, with whether each reads ``match_seats`` and
``ratings`` through an index or scans them whole.  Unless ``--no-http``, a real
``cardtable serve`` is started on the same database and ``GET /api/leaderboard/{game}`` and
``GET /api/players/{id}`` are timed the same way (one request at a time, from this process).
Unless ``--no-proposed``, an index on ``ratings (game, display, matches)`` is added (the
rank's count then reads the index alone) and the board, rank and profiles timed again.
Unless ``--no-drop``, the three indexes of those queries (and that one) are then dropped and
``--requests / 20`` calls timed again, to show what the indexes are worth.

Figures of record: docs/benchmarks.md ("Players: leaderboards and profiles at scale").
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from sqlalchemy import JSON, event, text
from sqlalchemy import Table as SATable
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cardtable.server.routes.players import RECENT
from cardtable.store import Store, sqlite_url
from cardtable.store.models import (
    UTCDateTime,
    match_seats,
    matches,
    players,
    rating_history,
    ratings,
)
from cardtable.store.ratings import ESTABLISHED
from local_postgres import fresh_postgres

GAMES = ("gin", "rummy", "rummy500", "romme", "indian", "spades")
GAME_WEIGHTS = (30, 20, 12, 10, 10, 18)  # gin the most played
ACTIVITY_SIGMA = 1.5  # log-normal spread of how much players play
AGREED, RATED = 0.03, 0.85  # matches ended by agreement; rated among the others
HISTORY_PER_RATING = 50
BUSIEST = 1000  # the "busiest players" are drawn from this many
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
BIG_TABLES = ("match_seats", "matches", "ratings", "rating_history", "players")
DROPPED = ("ix_match_seats_player_recent", "ix_match_seats_player_game", "ix_ratings_board")


# -- the generated world --------------------------------------------------------------------


def token(rng: random.Random, nbytes: int) -> str:
    """What ``secrets.token_urlsafe(nbytes)`` looks like, from a seeded generator."""
    return base64.urlsafe_b64encode(rng.randbytes(nbytes)).rstrip(b"=").decode()


@dataclass
class World:
    """Players and what the matches made of them; filled while the matches are generated."""

    ids: list[str]
    skill: list[float]
    seats: list[int]  # match_seats rows per player
    rated: dict[int, int] = field(default_factory=dict)  # player * 6 + game -> rated matches
    last: dict[int, deque[tuple[str, datetime]]] = field(default_factory=dict)

    def busiest(self, n: int) -> list[str]:
        order = sorted(range(len(self.ids)), key=lambda p: -self.seats[p])
        return [self.ids[p] for p in order[:n]]


def rating_at(skill: float, n: int) -> tuple[float, float]:
    """(mu, sigma) after ``n`` rated matches: sigma shrinks, mu moves towards the skill."""
    sigma = max(0.8, (25 / 3) / math.sqrt(1 + n / 3))
    mu = 25 + 5 * skill * (1 - math.exp(-n / 20))
    return mu, sigma


def player_rows(n: int, rng: random.Random, now: datetime) -> tuple[World, list[tuple]]:
    ids: list[str] = []
    taken: set[str] = set()
    while len(ids) < n:
        pid = token(rng, 12)
        if pid not in taken:
            taken.add(pid)
            ids.append(pid)
    rows = []
    for i, pid in enumerate(ids):
        created = now - timedelta(days=400 * rng.random())
        rows.append((pid, f"Player {i}", created, now, None, None, None, None))
    world = World(ids, [rng.gauss(0, 1) for _ in ids], [0] * n)
    return world, rows


def match_batches(world: World, count: int, batch: int, rng: random.Random,
                  now: datetime) -> Iterator[tuple[list[tuple], list[tuple]]]:
    """Rows of ``matches`` and ``match_seats``, ``batch`` matches at a time, oldest first;
    counts the rated matches and keeps the last ones of every (player, game) in ``world``."""
    n = len(world.ids)
    activity = list(accumulate(math.exp(rng.gauss(0, ACTIVITY_SIGMA)) for _ in range(n)))
    game_weights = list(accumulate(GAME_WEIGHTS))
    start, step = now - timedelta(days=365), timedelta(days=365) / max(count, 1)
    rated, last = world.rated, world.last
    done = 0
    while done < count:
        size = min(batch, count - done)
        picks = rng.choices(range(n), cum_weights=activity, k=2 * size)
        games = rng.choices(range(len(GAMES)), cum_weights=game_weights, k=size)
        match_rows, seat_rows = [], []
        for i in range(size):
            a, b = picks[2 * i], picks[2 * i + 1]
            while b == a:
                b = rng.choices(range(n), cum_weights=activity)[0]
            g = games[i]
            game = GAMES[g]
            ended_at = start + step * (done + i) + timedelta(seconds=rng.random())
            table_id = "t_" + token(rng, 9)
            match_id = f"{table_id}:{rng.randrange(1, 400)}"
            code = token(rng, 4)[:6].upper()
            world.seats[a] += 1
            world.seats[b] += 1
            if rng.random() < AGREED:
                ended, is_rated, result = "agreed", False, None
                scores: list[int | None] = [None, None]
                won = [False, False]
            else:
                a_wins = rng.random() < 1 / (1 + math.exp(world.skill[b] - world.skill[a]))
                loser = rng.randrange(0, 100)
                scores = [100 + rng.randrange(0, 40), loser] if a_wins \
                    else [loser, 100 + rng.randrange(0, 40)]
                won = [a_wins, not a_wins]
                ended, is_rated = None, rng.random() < RATED
                result = {"scores": scores, "winners": [0 if a_wins else 1]}
            match_rows.append((match_id, table_id, code, game, 2, {"target": 100}, ended,
                               is_rated, result, ended_at))
            for seat, p in enumerate((a, b)):
                seat_rows.append((match_id, seat, world.ids[p], f"Player {p}", "human",
                                  scores[seat], won[seat], game, ended_at, False))
                if is_rated:
                    key = p * len(GAMES) + g
                    rated[key] = rated.get(key, 0) + 1
                    kept = last.get(key)
                    if kept is None:
                        kept = last[key] = deque(maxlen=HISTORY_PER_RATING)
                    kept.append((match_id, ended_at))
        done += size
        yield match_rows, seat_rows


def rating_rows(world: World, now: datetime) -> list[tuple]:
    rows = []
    for key, n in world.rated.items():
        p, g = divmod(key, len(GAMES))
        mu, sigma = rating_at(world.skill[p], n)
        at = world.last[key][-1][1] if key in world.last else now
        rows.append((world.ids[p], GAMES[g], mu, sigma, mu - 3 * sigma, n, at))
    return rows


def history_rows(world: World, cap: int) -> Iterator[tuple]:
    """The kept last rated matches of every rating, at most ``cap`` rows: a rating keeps
    ``k`` of them, ``k`` the largest that fits (the busiest lose their oldest first)."""
    lengths = sorted(len(kept) for kept in world.last.values())
    keep, total = HISTORY_PER_RATING, sum(lengths)
    if total > cap:  # the largest k with sum(min(len, k)) <= cap
        lo, hi = 0, HISTORY_PER_RATING
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if sum(min(x, mid) for x in lengths) <= cap:
                lo = mid
            else:
                hi = mid - 1
        keep = lo
    for key, kept in world.last.items():
        p, g = divmod(key, len(GAMES))
        n = world.rated[key]
        entries = list(kept)[-keep:] if keep else []
        for j, (match_id, at) in enumerate(entries):
            mu, sigma = rating_at(world.skill[p], n - len(entries) + j + 1)
            yield (world.ids[p], GAMES[g], match_id, mu - 3 * sigma, at)


# -- loading ---------------------------------------------------------------------------------


def columns(table: SATable) -> list[str]:
    """The columns the generated rows fill, in order (``match_seats.stats`` stays NULL, as
    ``record_match`` leaves it)."""
    return [c.name for c in table.columns if (table.name, c.name) != ("match_seats", "stats")]


def sqlite_time(value: datetime) -> str:
    """A UTC time as the store keeps it in SQLite (``UTCDateTime``: naive UTC, microseconds)."""
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


class Loader:
    """Bulk inserts into one database, each call one transaction: COPY on PostgreSQL (JSON
    sent as its text); on SQLite an ``executemany`` of the plain INSERT with the values
    encoded as SQLAlchemy encodes them (checked against its own bind processors), on a
    connection of its own with ``synchronous=OFF`` and 512 MiB of page cache."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith("postgresql")
        self.engine: AsyncEngine = create_async_engine(url)
        self.checked: set[str] = set()
        if not self.postgres:
            @event.listens_for(self.engine.sync_engine, "connect")
            def _pragmas(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA synchronous=OFF")
                cursor.execute("PRAGMA cache_size=-524288")
                cursor.close()

    def encode(self, table: SATable, rows: Sequence[tuple]) -> Sequence[tuple]:
        """The rows as the driver takes them: JSON as text (None: JSON null, as SQLAlchemy
        writes it), and on SQLite times as text."""
        names = columns(table)
        kinds = [("json" if isinstance(table.c[n].type, JSON) else
                  "time" if isinstance(table.c[n].type, UTCDateTime) and not self.postgres
                  else "") for n in names]
        if not any(kinds):
            return rows
        codec = {"json": json.dumps, "time": sqlite_time}
        steps = [(i, codec[k]) for i, k in enumerate(kinds) if k]
        out = []
        for row in rows:
            values = list(row)
            for i, encode in steps:
                if values[i] is not None or kinds[i] == "json":
                    values[i] = encode(values[i])
            out.append(tuple(values))
        if table.name not in self.checked:  # the same text as SQLAlchemy's, or stop here
            self.checked.add(table.name)
            for (i, _), value, encoded in ((s, rows[0][s[0]], out[0][s[0]]) for s in steps):
                dialect = self.engine.dialect
                process = table.c[names[i]].type.dialect_impl(dialect).bind_processor(dialect)
                expected = process(value) if process else value
                if value is not None and expected != encoded:
                    raise RuntimeError(f"{table.name}.{names[i]}: {encoded!r} is not "
                                       f"SQLAlchemy's {expected!r}")
        return out

    async def insert(self, *parts: tuple[SATable, Sequence[tuple]]) -> None:
        """Insert the rows of each (table, rows) in one transaction."""
        async with self.engine.begin() as conn:
            raw = await conn.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            for table, rows in parts:
                if not rows:
                    continue
                names, encoded = columns(table), self.encode(table, rows)
                if self.postgres:
                    await driver.copy_records_to_table(table.name, records=encoded,
                                                       columns=names)
                else:
                    marks = ", ".join("?" * len(names))
                    await driver.executemany(
                        f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({marks})",
                        encoded)

    async def finish(self) -> None:
        async with self.engine.connect() as conn:
            if self.postgres:
                await conn.commit()
                raw = await conn.get_raw_connection()
                pg = raw.driver_connection
                assert pg is not None
                for name in BIG_TABLES:
                    await pg.execute(f"VACUUM ANALYZE {name}")
            else:
                await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        await self.engine.dispose()


def progress_bar(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                    transient=True)


async def generate(url: str, args: argparse.Namespace, console: Console,
                   label: str) -> tuple[World, dict[str, float]]:
    """Fill the database at ``url`` (migrated, empty); returns the world and the seconds
    each part took."""
    rng = random.Random(args.seed)
    now = datetime(2026, 5, 1, tzinfo=UTC)
    loader = Loader(url)
    took: dict[str, float] = {}
    with progress_bar(console) as progress:
        began = time.perf_counter()
        world, rows = player_rows(args.players, rng, now)
        task = progress.add_task(f"{label}: players", total=len(rows))
        for i in range(0, len(rows), args.batch):
            await loader.insert((players, rows[i:i + args.batch]))
            progress.advance(task, len(rows[i:i + args.batch]))
        took["players"] = time.perf_counter() - began

        began = time.perf_counter()
        task = progress.add_task(f"{label}: matches", total=args.matches)
        # The next batch is made in a thread while the database stores this one.
        loop = asyncio.get_running_loop()
        batches = match_batches(world, args.matches, args.batch // 2, rng, now)
        coming = loop.run_in_executor(None, next, batches, None)
        while (batch := await coming) is not None:
            coming = loop.run_in_executor(None, next, batches, None)
            match_rows, seat_rows = batch
            await loader.insert((matches, match_rows), (match_seats, seat_rows))
            progress.advance(task, len(match_rows))
        took["matches"] = time.perf_counter() - began

        began = time.perf_counter()
        rows = rating_rows(world, now)
        task = progress.add_task(f"{label}: ratings", total=len(rows))
        for i in range(0, len(rows), args.batch):
            await loader.insert((ratings, rows[i:i + args.batch]))
            progress.advance(task, len(rows[i:i + args.batch]))
        took["ratings"] = time.perf_counter() - began

        began = time.perf_counter()
        history = list(history_rows(world, args.history))
        task = progress.add_task(f"{label}: rating history", total=len(history))
        for i in range(0, len(history), args.batch):
            await loader.insert((rating_history, history[i:i + args.batch]))
            progress.advance(task, len(history[i:i + args.batch]))
        took["history"] = time.perf_counter() - began

        began = time.perf_counter()
        task = progress.add_task(f"{label}: VACUUM ANALYZE / checkpoint", total=None)
        await loader.finish()
        progress.update(task, total=1, completed=1)
        took["finish"] = time.perf_counter() - began
    took["history rows"] = len(history)
    took["rating rows"] = len(rows)
    return world, took


# -- timing ----------------------------------------------------------------------------------


@dataclass
class Figure:
    database: str
    name: str
    samples: list[float]  # ms

    def quantile(self, q: float) -> float:
        if len(self.samples) < 2:
            return self.samples[0]
        cuts = statistics.quantiles(self.samples, n=100, method="inclusive")
        return cuts[round(q * 100) - 1]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


async def timed(name: str, database: str, requests: int, call: Callable[[], Awaitable[Any]],
                progress: Progress, warmup: int = 5) -> Figure:
    task = progress.add_task(f"{database}: {name}", total=requests)
    for _ in range(warmup):
        await call()
    samples = []
    for _ in range(requests):
        began = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - began) * 1000)
        progress.advance(task)
    progress.remove_task(task)
    return Figure(database, name, samples)


async def profile(store: Store, player_id: str) -> int:
    """What ``GET /api/players/{id}`` asks the store (routes/players.py ``_profile``)."""
    player = await store.players.get(player_id)
    assert player is not None
    counts = await store.players.counts(player_id)
    recent = await store.players.recent_matches(player_id, RECENT)
    ranks = [await store.ratings.rank(player_id, r.game)
             for r in await store.ratings.of_player(player_id)]
    return len(counts) + len(recent) + len(ranks)


class Picker:
    """Random inputs for the calls, from a seeded generator."""

    def __init__(self, world: World, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ids = world.ids
        self.busy = world.busiest(BUSIEST)
        self.established = [(world.ids[k // len(GAMES)], GAMES[k % len(GAMES)])
                            for k, n in world.rated.items() if n >= ESTABLISHED]

    def player(self) -> str:
        return self.rng.choice(self.ids)

    def busy_player(self) -> str:
        return self.rng.choice(self.busy)

    def game(self) -> str:
        return self.rng.choice(GAMES)

    def rating(self) -> tuple[str, str]:
        return self.rng.choice(self.established)


async def store_figures(store: Store, database: str, world: World, requests: int,
                        seed: int, console: Console) -> list[Figure]:
    pick = Picker(world, seed)
    ratings_, players_ = store.ratings, store.players

    async def rank() -> None:
        await ratings_.rank(*pick.rating())

    plan: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        ("leaderboard (board)", lambda: ratings_.board(pick.game())),
        ("rank", rank),
        ("counts, random player", lambda: players_.counts(pick.player())),
        ("counts, busiest players", lambda: players_.counts(pick.busy_player())),
        ("recent 20, random player", lambda: players_.recent_matches(pick.player(), RECENT)),
        ("recent 20, busiest players",
         lambda: players_.recent_matches(pick.busy_player(), RECENT)),
        ("ratings (of_player)", lambda: ratings_.of_player(pick.player())),
        ("profile, random player", lambda: profile(store, pick.player())),
        ("profile, busiest players", lambda: profile(store, pick.busy_player())),
    ]
    out = []
    with progress_bar(console) as progress:
        for name, call in plan:
            out.append(await timed(name, database, requests, call, progress))
    return out


async def http_figures(url: str, data_dir: Path, database: str, world: World, requests: int,
                       seed: int, console: Console) -> list[Figure]:
    """``GET /api/leaderboard/{game}`` and ``GET /api/players/{id}`` of a real server."""
    import httpx

    from server import server_process

    pick = Picker(world, seed)
    out = []
    with server_process(data_dir, url if url.startswith("postgresql") else None) as (base, _):
        async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=60) as client:

            async def get(path: str) -> None:
                (await client.get(path)).raise_for_status()

            plan: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
                ("HTTP GET /api/leaderboard/{game}",
                 lambda: get(f"/api/leaderboard/{pick.game()}")),
                ("HTTP GET /api/players/{id}, random",
                 lambda: get(f"/api/players/{pick.player()}")),
                ("HTTP GET /api/players/{id}, busiest",
                 lambda: get(f"/api/players/{pick.busy_player()}")),
            ]
            with progress_bar(console) as progress:
                for name, call in plan:
                    out.append(await timed(name, database, requests, call, progress))
    return out


# -- query plans -----------------------------------------------------------------------------


@contextlib.contextmanager
def caught(engine: AsyncEngine) -> Iterator[list[tuple[str, Any]]]:
    """The SELECT statements (and their parameters) sent through ``engine`` meanwhile."""
    seen: list[tuple[str, Any]] = []

    def hook(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
             executemany: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(engine.sync_engine, "before_cursor_execute", hook)
    try:
        yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", hook)


@dataclass
class Plan:
    query: str  # which store method
    statement: str
    lines: list[str]

    @property
    def full_scans(self) -> list[str]:
        """The big tables read whole (not through an index range)."""
        found = set()
        for line in self.lines:
            step = line.strip().removeprefix("->").strip()
            for name in BIG_TABLES:  # SQLite: SCAN (of the table or a whole index)
                if f"{step} ".startswith(f"SCAN {name} ") or f"Seq Scan on {name} " in f"{step} ":
                    found.add(name)
        return sorted(found)

    @property
    def indexes(self) -> list[str]:
        words = " ".join(self.lines).replace("(", " ").replace(")", " ").split()
        return sorted({w for w in words if w.startswith(("ix_", "pk_", "sqlite_autoindex"))})


async def explain(store: Store, query: str, call: Callable[[], Awaitable[Any]]) -> list[Plan]:
    with caught(store.engine) as seen:
        await call()
    postgres = store.engine.dialect.name == "postgresql"
    plans = []
    async with store.engine.connect() as conn:
        for statement, parameters in seen:
            prefix = "EXPLAIN (COSTS OFF) " if postgres else "EXPLAIN QUERY PLAN "
            rows = (await conn.exec_driver_sql(prefix + statement, parameters)).all()
            if postgres:
                lines = [row[0] for row in rows]
            else:  # (id, parent, notused, detail): indent by depth
                depth: dict[int, int] = {0: -1}
                lines = []
                for node, parent, _, detail in rows:
                    depth[node] = depth.get(parent, -1) + 1
                    lines.append("  " * depth[node] + detail)
            plans.append(Plan(query, " ".join(statement.split()), lines))
    return plans


async def all_plans(store: Store, world: World, seed: int) -> list[Plan]:
    pick = Picker(world, seed)
    busy = pick.busy_player()
    plans = []
    plans += await explain(store, "recent_matches", lambda: store.players.recent_matches(
        busy, RECENT))
    plans += await explain(store, "counts", lambda: store.players.counts(busy))
    plans += await explain(store, "board", lambda: store.ratings.board("gin"))
    player, game = pick.rating()
    plans += await explain(store, "rank", lambda: store.ratings.rank(player, game))
    plans += await explain(store, "of_player", lambda: store.ratings.of_player(busy))
    return plans


def show_plans(plans: list[Plan], database: str, console: Console) -> None:
    console.rule(f"{database}: query plans")
    for plan in plans:
        scans = plan.full_scans
        verdict = (f"[red]reads {', '.join(scans)} whole[/red]" if scans
                   else "[green]no full scan[/green]")
        console.print(f"[bold]{plan.query}[/bold]: {verdict}; indexes: "
                      f"{', '.join(plan.indexes) or '-'}")
        console.print(f"  [dim]{plan.statement[:300]}[/dim]", highlight=False)
        for line in plan.lines:
            line = line if len(line) < 160 else line[:150] + " …"
            console.print(f"    {line}", markup=False, highlight=False)


# -- another index, then none ------------------------------------------------------------------


PROPOSED = "ix_bench_ratings_rank"  # (game, display, matches): rank's count from the index alone


async def ddl(url: str, *statements: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.exec_driver_sql(statement)
        if engine.dialect.name == "postgresql":  # what autovacuum would do: index-only scans
            async with engine.connect() as conn:
                raw = await conn.get_raw_connection()
                assert raw.driver_connection is not None
                await raw.driver_connection.execute("VACUUM ANALYZE ratings")
    finally:
        await engine.dispose()


async def with_index(url: str, database: str, world: World, requests: int, seed: int,
                     console: Console) -> tuple[list[Figure], list[Plan]]:
    """The rank and the profiles again with a covering index of the board added."""
    await ddl(url, f"CREATE INDEX {PROPOSED} ON ratings (game, display, matches)")
    store = await Store.open(url)
    try:
        pick = Picker(world, seed)
        player, game = pick.rating()
        plans = await explain(store, "rank", lambda: store.ratings.rank(player, game))
        plans += await explain(store, "board", lambda: store.ratings.board(game))
        plan: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("+ index: leaderboard (board)", lambda: store.ratings.board(pick.game())),
            ("+ index: rank", lambda: store.ratings.rank(*pick.rating())),
            ("+ index: profile, random player", lambda: profile(store, pick.player())),
            ("+ index: profile, busiest players", lambda: profile(store, pick.busy_player())),
        ]
        out = []
        with progress_bar(console) as progress:
            for name, call in plan:
                out.append(await timed(name, database, requests, call, progress))
        return out, plans
    finally:
        await store.close()


async def without_indexes(url: str, database: str, world: World, requests: int, seed: int,
                          console: Console) -> tuple[list[Figure], list[Plan]]:
    await ddl(url, *(f"DROP INDEX IF EXISTS {name}" for name in (*DROPPED, PROPOSED)))
    store = await Store.open(url)
    try:
        pick = Picker(world, seed)
        plans = await all_plans(store, world, seed)
        plan: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("no index: leaderboard (board)", lambda: store.ratings.board(pick.game())),
            ("no index: rank", lambda: store.ratings.rank(*pick.rating())),
            ("no index: recent 20, random player",
             lambda: store.players.recent_matches(pick.player(), RECENT)),
            ("no index: counts, random player", lambda: store.players.counts(pick.player())),
        ]
        out = []
        with progress_bar(console) as progress:
            for name, call in plan:
                out.append(await timed(name, database, requests, call, progress, warmup=1))
        return out, plans
    finally:
        await store.close()


# -- one database ------------------------------------------------------------------------------


@dataclass
class Run:
    database: str
    figures: list[Figure]
    plans: list[Plan]
    extra: list[Figure]  # with the proposed index, and without the indexes
    extra_plans: list[Plan]
    took: dict[str, float]
    size_mib: float
    world: World


@contextlib.asynccontextmanager
async def database(kind: str, postgres: str) -> AsyncIterator[tuple[str, Path]]:
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-players-") as tmp:
        if kind == "sqlite":
            yield sqlite_url(Path(tmp)), Path(tmp)
        else:
            async with fresh_postgres(postgres, prefix="cardtable_bench_players") as url:
                yield url, Path(tmp)


async def size_mib(store: Store, data_dir: Path) -> float:
    if store.engine.dialect.name == "postgresql":
        async with store.engine.connect() as conn:
            size = await conn.scalar(text("SELECT pg_database_size(current_database())"))
        return float(size or 0) / 2**20
    return sum(p.stat().st_size for p in data_dir.glob("cardtable.db*")) / 2**20


async def run_one(kind: str, args: argparse.Namespace, console: Console) -> Run:
    label = "SQLite" if kind == "sqlite" else "PostgreSQL"
    async with database(kind, args.postgres) as (url, data_dir):
        began = time.perf_counter()
        await (await Store.open(url)).close()  # the schema, indexes and all
        world, took = await generate(url, args, console, label)
        took["generation"] = time.perf_counter() - began
        console.print(f"{label}: {args.players:,} players, {args.matches:,} matches, "
                      f"{int(took['rating rows']):,} ratings, {int(took['history rows']):,} "
                      f"history rows loaded in {took['generation']:.0f} s (players "
                      f"{took['players']:.0f} s, matches {took['matches']:.0f} s, ratings "
                      f"{took['ratings']:.0f} s, history {took['history']:.0f} s, "
                      f"finish {took['finish']:.0f} s)")
        busiest = sorted(world.seats, reverse=True)
        console.print(f"  matches per player: busiest {busiest[0]:,}, 1,000th "
                      f"{busiest[min(999, len(busiest) - 1)]:,}, median "
                      f"{busiest[len(busiest) // 2]:,}; established ratings per game: "
                      + ", ".join(f"{g} {n:,}" for g, n in established(world).items()))
        store = await Store.open(url)
        try:
            await check(store, world)
            size = await size_mib(store, data_dir)
            figures = await store_figures(store, label, world, args.requests, args.seed + 1,
                                          console)
            plans = await all_plans(store, world, args.seed + 2)
        finally:
            await store.close()
        show_plans(plans, label, console)
        report([Run(label, figures, plans, [], [], took, size, world)], console)
        if args.http:
            try:
                figures += await http_figures(url, data_dir, label, world, args.requests,
                                              args.seed + 3, console)
            except Exception as error:  # the store figures stand without them
                console.print(f"[red]{label}: no HTTP figures: {error!r}[/red]")
        extra: list[Figure] = []
        extra_plans: list[Plan] = []
        if args.proposed:
            more, more_plans = await with_index(url, label, world, args.requests,
                                                args.seed + 5, console)
            extra += more
            extra_plans += more_plans
            show_plans(more_plans, f"{label} with {PROPOSED} (game, display, matches)", console)
        if args.drop:
            less, less_plans = await without_indexes(
                url, label, world, max(3, args.requests // 20), args.seed + 4, console)
            extra += less
            extra_plans += less_plans
            show_plans(less_plans, f"{label} without {', '.join(DROPPED)}", console)
        run = Run(label, figures, plans, extra, extra_plans, took, size, world)
        report([run], console)
        return run


async def check(store: Store, world: World) -> None:
    """The store reads back what was loaded (times, JSON, counts) as it reads its own rows."""
    busy = world.busiest(1)[0]
    p = world.ids.index(busy)
    key = max((k for k in world.rated if k // len(GAMES) == p), key=lambda k: world.rated[k])
    game = GAMES[key % len(GAMES)]
    kept = [at for _, at in world.last[key]]
    read = [at for at, _ in await store.ratings.history(busy, game)]
    if not read or read != kept[-len(read):]:
        raise RuntimeError(f"rating history of {busy} in {game} reads back wrong")
    recent = await store.players.recent_matches(busy, RECENT)
    newest = world.last[key][-1]
    if not recent or recent[0].options != {"target": 100} or recent[0].ended_at is None \
            or recent[0].ended_at < newest[1]:
        raise RuntimeError(f"the recent matches of {busy} read back wrong")
    counts = await store.players.counts(busy)
    if sum(c.played for c in counts) > world.seats[p] or not counts:
        raise RuntimeError(f"the counts of {busy} read back wrong")


def established(world: World) -> dict[str, int]:
    out = dict.fromkeys(GAMES, 0)
    for key, n in world.rated.items():
        if n >= ESTABLISHED:
            out[GAMES[key % len(GAMES)]] += 1
    return out


def report(runs: list[Run], console: Console) -> None:
    table = Table(title="ms per call, one at a time (median / p95 / p99)")
    for name in ("database", "call", "n", "median", "p95", "p99", "max"):
        table.add_column(name, justify="left" if name in ("database", "call") else "right")
    for run in runs:
        for f in run.figures + run.extra:
            table.add_row(f.database, f.name, f"{len(f.samples)}", f"{f.median:.2f}",
                          f"{f.quantile(0.95):.2f}", f"{f.quantile(0.99):.2f}",
                          f"{max(f.samples):.2f}")
    console.print(table)
    for run in runs:
        scans = {p.query: p.full_scans for p in run.plans if p.full_scans}
        console.print(f"{run.database}: database {run.size_mib:,.0f} MiB; full scans of big "
                      f"tables in the plans: {scans or 'none'}")


async def bench(args: argparse.Namespace) -> list[Run]:
    console = Console(width=None if sys.stdout.isatty() else 160)
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    runs = [await run_one(kind, args, console) for kind in kinds]
    if len(runs) > 1:
        console.rule("all")
        report(runs, console)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--requests", type=int, default=200,
                        help="timed calls of each kind (default: 200)")
    parser.add_argument("--history", type=int, default=1_000_000, metavar="ROWS",
                        help="rating_history rows at most (default: 1,000,000)")
    parser.add_argument("--batch", type=int, default=10_000, help="rows per insert")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES, metavar="URL",
                        help=f"a local PostgreSQL server (default: {DEFAULT_POSTGRES}); a "
                             "fresh database is made there and dropped afterwards")
    parser.add_argument("--no-http", dest="http", action="store_false",
                        help="do not time the HTTP endpoints of a real server")
    parser.add_argument("--no-proposed", dest="proposed", action="store_false",
                        help="do not time rank and profiles again with an index on ratings "
                             "(game, display, matches) added")
    parser.add_argument("--no-drop", dest="drop", action="store_false",
                        help="do not drop the indexes at the end to time the queries without")
    args = parser.parse_args(argv)
    if args.players < 2 or args.matches < 1 or args.requests < 1 or args.batch < 2:
        parser.error("--players at least 2, --matches, --requests at least 1")
    asyncio.run(bench(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
