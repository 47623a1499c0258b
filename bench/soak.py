"""Soak test of restarts: ``kill -9`` a real `cardtable serve` again and again while every
game is played at many tables, and count what the restarts cost.

Run ``python bench/soak.py --cycles 20 --tables 4 [--database postgresql]``.  It starts
``python -m cardtable serve`` on a free port of 127.0.0.1 (SQLite in a temporary data
directory, or a fresh PostgreSQL database on ``--pg-server``, dropped afterwards) and opens
``--tables`` tables of every game (gin, rummy, rummy500, romme, indian, spades): in turn
with options that make matches last many hands or with the game's defaults, and with every
seat ours (friends) or seat 0 ours against the server's computers.  Each seat of ours is a
``cardtable.client`` connection whose game's bot chooses the moves client-side
(``bots.levels.bot_for``); when a match ends every seat votes for a rematch, so every
table always has a move to make.

Each cycle plays a random while (``--play``), stops the server (``--signal``: ``kill``
is SIGKILL, ``term`` SIGTERM, ``mixed`` alternates), reads every table's log while it is
down, starts it again on the same database and waits until every table moves again (the
clients reconnect by themselves, re-sending an unacknowledged act with its id).  It counts:

* **lost**: an action whose ``view`` ack a client received but that is not in the log
  at or before the version of that view;
* **doubled**: a (seat, command id) that is in a table's log more than once;
* **stuck**: a table with no new version ``--stuck-after`` seconds after the restart
  (every table always has a seat to act or a rematch to vote);
* **rolled back**: a version some client saw that the log does not hold;
* **diverged** (at the end, after a clean stop): a seat whose last view differs from the
  log replayed to that view's version.

An error ``retry`` (the server could not commit yet) is sent again later with the same
id, as the client does: it is not a loss.  Figures of record: docs/benchmarks.md ("Soak").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cardtable.bots.levels import bot_for
from cardtable.client import ActionRefused, Client, Connection, Frame
from cardtable.engine.api import Action
from cardtable.server.table.replay import rebuild
from cardtable.store import EventRecord, Store, TableRecord, sqlite_url
from local_postgres import fresh_postgres

# Seats, and options that make a match last many hands (every other table plays the
# game's default options instead, whose matches end sooner: rematches happen too).
GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "gin": (2, {"target": 500}),
    "rummy": (3, {"target": 500}),
    "rummy500": (2, {"target": 5000}),
    "romme": (3, {"end": "deals", "deals": 20}),
    "indian": (3, {"preset": "pool201"}),
    "spades": (4, {"target": 500}),
}
ACT_TIMEOUT = 120.0  # an act's answer, a restart included: a hang guard
RECONNECT_FOR = 300.0  # the clients keep reconnecting this long


class Server:
    """``python -m cardtable serve`` on 127.0.0.1, started again on the same port and data."""

    def __init__(self, data_dir: Path, database_url: str | None):
        with socket.create_server(("127.0.0.1", 0)) as free:  # a free port, kept across starts
            self.data_dir, self.port = data_dir, int(free.getsockname()[1])
        self.env = {**os.environ, "CARDTABLE_BOT_DELAY": "0", "CARDTABLE_JOIN_LIMIT": "1000000",
                    "CARDTABLE_CREATE_LIMIT": "1000000", "CARDTABLE_SOCKET_LIMIT": "1000000"}
        self.env.pop("DATABASE_URL", None)
        if database_url:
            self.env["DATABASE_URL"] = database_url
        self.store_url = database_url or sqlite_url(data_dir)
        self.log = data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.base_url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cardtable", "serve", "--host", "127.0.0.1", "--port",
                 str(self.port), "--data-dir", str(self.data_dir)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{self.log.read_text()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/api/games", timeout=1,
                             trust_env=False).is_success:
                    return
            time.sleep(0.05)

    def stop(self, how: str) -> bool:
        """``kill`` (SIGKILL) or ``term`` (SIGTERM, then wait); False if a SIGTERM did not
        end the server within 30 s and it had to be killed."""
        if self.process is None or self.process.poll() is not None:
            return True
        if how == "term":
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(30)
                return True
        self.process.kill()
        self.process.wait()
        return how == "kill"


# -- the tables ------------------------------------------------------------------------------


@dataclass
class Tally:
    """What one game's tables report into."""

    tables: int = 0
    actions: int = 0
    deals: int = 0
    matches: int = 0
    retries: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    unanswered: int = 0
    across: int = 0  # acts acknowledged after a reconnect: they were in flight at a stop
    lost: dict[tuple[str, int, str], str] = field(default_factory=dict)  # -> what happened
    doubled: set[tuple[str, int | None, str]] = field(default_factory=set)
    rolled_back: set[tuple[str, int]] = field(default_factory=set)
    stuck: list[str] = field(default_factory=list)
    diverged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # seat loops that ended on an error


class SoakTable:
    """A table of one game; each seat of ours is a connection playing the game's bot."""

    def __init__(self, game: str, tally: Tally, think: float, n: int):
        self.game, self.tally, self.think = game, tally, think
        # Tables take turns: long matches or the default options (rematches come sooner),
        # all seats ours or seat 0 ours against the server's computers (which must resume
        # by themselves after a restart).
        self.long, self.computers = n % 2 == 0, n % 4 >= 2
        self.conns: list[Connection] = []
        # (seat, command id) -> the version of the view that acked it (an act logged but
        # acked only when resent is acked at the table's version then), and across a stop?
        self.acks: dict[tuple[int, str], tuple[int, bool]] = {}
        self.seen = 0  # the newest version any seat received
        self.moved_at = time.monotonic()
        self.events: list[EventRecord] = []  # the log as last read

    @property
    def table_id(self) -> str:
        claim = self.conns[0].claim
        assert claim is not None
        return claim.table_id

    def on_frame(self, frame: Frame) -> None:
        if frame.t == "view" and frame.v is not None and frame.v > self.seen:
            self.seen, self.moved_at = frame.v, time.monotonic()

    async def open(self, client: Client, turn_time: int) -> None:
        players, options = GAMES[self.game]
        host = await client.create_table(
            self.game, options if self.long else {}, name="Seat 0", players=players,
            opponent="computer" if self.computers else "friend",
            settings={"turn_time": turn_time})
        claims = [host] + [await client.join(host.code, f"Seat {n}")
                           for n in range(1, 1 if self.computers else players)]
        for claim in claims:
            conn = client.connect(claim, on_frame=self.on_frame, give_up_after=RECONNECT_FOR)
            await conn.open()
            self.conns.append(conn)
        self.tally.tables += 1

    async def seat_loop(self, conn: Connection) -> None:
        """Play for ever (the caller cancels): move on our turn, vote for a rematch."""
        bot = bot_for(self.game)
        voted: tuple[int, int] | None = None
        try:
            while True:
                if conn.view.get("phase") == "match_over":
                    # Votes live in the server's memory: after a restart, vote again.
                    key = (conn.version, conn.reconnects)
                    if conn.seat not in conn.rematch_votes and key != voted:
                        voted = key
                        await conn.send_raw({"t": "rematch"})
                    await conn.recv()
                elif conn.my_turn:
                    if self.think:
                        await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
                    await self.move(conn, bot(conn.view))
                else:
                    await conn.recv()
        except Exception as error:  # (a cancel is not an Exception: it goes through)
            self.tally.failed.append(f"{self.game} {self.table_id} seat {conn.seat}: {error!r}")

    async def move(self, conn: Connection, action: Action) -> None:
        assert conn.seat is not None
        ref, version, reconnects = secrets.token_hex(6), conn.version, conn.reconnects
        while True:
            try:
                ack = await conn.act(action, id=ref, version=version, timeout=ACT_TIMEOUT)
                break
            except ActionRefused as refused:
                if refused.code == "retry":  # not saved yet: the same id again, later
                    self.tally.retries += 1
                    await asyncio.sleep(1.0)
                    continue
                self.tally.refused[refused.code] += 1
                return
            except TimeoutError:
                self.tally.unanswered += 1
                return
        assert ack.v is not None
        across = conn.reconnects != reconnects
        self.acks[(conn.seat, ref)] = (ack.v, across)
        self.tally.actions += 1
        self.tally.across += across
        if action.type == "deal":
            self.tally.deals += 1

    async def check(self, store: Store) -> None:
        """Compare the log (the server is down, or stopped) with what the seats were told."""
        self.events += await store.load_events(self.table_id, after=len(self.events))
        events, tid = self.events, self.table_id
        if [e.version for e in events] != list(range(1, len(events) + 1)):
            self.tally.failed.append(f"{self.game} {tid}: the log's versions have a gap")
        counts = Counter((e.seat, e.cmd_id) for e in events if e.cmd_id is not None)
        for (seat, ref), count in counts.items():
            if count > 1:
                self.tally.doubled.add((tid, seat, ref))
        logged = {(e.seat, e.cmd_id): e.version for e in events if e.cmd_id is not None}
        for (seat, ref), (version, across) in list(self.acks.items()):
            at = logged.get((seat, ref))
            if at is None or at > version:  # not logged, or logged after its ack's version
                self.tally.lost[(tid, seat, ref)] = (
                    f"{self.game}: acked at version {version}{' across a stop' * across}, "
                    + ("not in the log" if at is None else f"logged at version {at}"))
        if self.seen > len(events):
            self.tally.rolled_back.add((tid, self.seen))

    def compare_views(self, record: TableRecord) -> None:
        """Each seat's last view against the log replayed to that view's version."""
        for conn in self.conns:
            state = rebuild(record, self.events[:conn.version]).state
            view = {} if state is None else json.loads(json.dumps(state.view(conn.seat)))
            if view != conn.view:  # (nothing dealt yet: the client keeps an empty view)
                self.tally.diverged.append(f"{self.game} {self.table_id} seat {conn.seat} "
                                           f"at version {conn.version}")

    def describe(self) -> str:
        view = self.conns[0].view
        return (f"{self.game} {self.table_id}: version {self.seen}, phase {view.get('phase')}, "
                f"to act {view.get('to_act')}, reconnects {[c.reconnects for c in self.conns]}")


# -- the soak --------------------------------------------------------------------------------


@dataclass
class Soak:
    server: Server
    tables: list[SoakTable]
    tallies: dict[str, Tally]
    console: Console
    stuck_after: float
    kills: int = 0
    unclean: int = 0  # SIGTERMs that had to become SIGKILLs
    crashes: int = 0  # times the server had died before the soak stopped it
    downtime: list[float] = field(default_factory=list)
    resume: list[float] = field(default_factory=list)  # server up -> a table's next version

    def totals(self) -> dict[str, int]:
        tallies = self.tallies.values()
        counts = {name: sum(len(getattr(t, name.replace(" ", "_"))) for t in tallies)
                  for name in ("lost", "doubled", "stuck", "rolled back", "failed")}
        return {"actions": sum(t.actions for t in tallies),
                "deals": sum(t.deals for t in tallies), **counts}

    def status(self) -> str:
        t = self.totals()
        return (f"{t['actions']:,} acked · {t['deals']:,} deals · lost {t['lost']} · "
                f"doubled {t['doubled']} · stuck {t['stuck']} · rolled back {t['rolled back']}")

    async def check_logs(self, last: bool = False) -> None:
        """Every table's log against its acks; ``last``: its seats' views against it too."""
        store = await Store.open(self.server.store_url)
        try:
            for table in self.tables:
                await table.check(store)
                if last and (record := await store.get_table(table.table_id)) is not None:
                    table.compare_views(record)
                    table.tally.matches += sum(e.kind == "rematch" for e in table.events) + \
                        (table.conns[0].view.get("phase") == "match_over")
        finally:
            await store.close()

    async def restart(self, how: str) -> None:
        """Stop the server (``kill`` or ``term``), check the logs, start it, wait for moves."""
        down = time.monotonic()
        self.crashes += self.server.process is not None and self.server.process.poll() is not None
        if not await asyncio.to_thread(self.server.stop, how):
            self.unclean += 1
        self.kills += 1
        await self.check_logs()
        marks = {table: len(table.events) for table in self.tables}
        await asyncio.to_thread(self.server.start)
        up = time.monotonic()
        self.downtime.append(up - down)
        waiting, resumed = set(self.tables), []
        while waiting and time.monotonic() < up + self.stuck_after:
            await asyncio.sleep(0.1)
            for table in [t for t in waiting if t.seen > marks[t]]:
                resumed.append(table.moved_at - up)
                waiting.discard(table)
        self.resume += resumed
        for table in waiting:
            self.tallies[table.game].stuck.append(f"after stop {self.kills}: {table.describe()}")
        self.console.log(f"stop {self.kills} ({how}): down {up - down:.1f} s; "
                         f"{len(resumed)}/{len(self.tables)} tables moving again within "
                         f"{max(resumed, default=0):.1f} s · {self.status()}")

    async def finish(self) -> None:
        """A clean stop, the last log check, and every seat's view against the replay."""
        if not await asyncio.to_thread(self.server.stop, "term"):
            self.unclean += 1
        await self.check_logs(last=True)


async def open_tables(soak: Soak, client: Client, per_game: int, think: float,
                      turn_time: int) -> None:
    gate = asyncio.Semaphore(10)

    async def one(game: str, n: int) -> SoakTable:
        async with gate:
            table = SoakTable(game, soak.tallies[game], think, n)
            await table.open(client, turn_time)
            return table

    soak.tables = list(await asyncio.wait_for(asyncio.gather(
        *(one(game, n) for game in GAMES for n in range(per_game))), 300))


async def run(args: argparse.Namespace, server: Server, console: Console) -> Soak:
    await asyncio.to_thread(server.start)
    soak = Soak(server, [], {game: Tally() for game in GAMES}, console, args.stuck_after)
    started = time.monotonic()
    async with Client(server.base_url, timeout=60) as client:
        await open_tables(soak, client, args.tables, args.think, args.turn_time)
        tasks = [asyncio.create_task(table.seat_loop(conn))
                 for table in soak.tables for conn in table.conns]
        columns = (TextColumn("[bold]stops"), TextColumn("{task.completed}/{task.total}"),
                   BarColumn(), TextColumn("{task.fields[status]}"), TimeElapsedColumn())
        try:
            with Progress(*columns, console=console) as progress:
                bar = progress.add_task("soak", total=args.cycles, status=soak.status())
                for cycle in range(args.cycles):
                    if time.monotonic() - started > args.max_minutes * 60:
                        console.log(f"[red]--max-minutes reached after {cycle} stops")
                        break
                    until = time.monotonic() + random.uniform(*args.play)
                    while time.monotonic() < until:
                        await asyncio.sleep(0.25)
                        progress.update(bar, status=soak.status())
                    how = args.signal if args.signal != "mixed" else ("kill", "term")[cycle % 2]
                    await soak.restart(how)
                    progress.update(bar, completed=cycle + 1, status=soak.status())
                await asyncio.sleep(args.play[0])  # the tables play on after the last restart
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await soak.finish()
        await asyncio.gather(*(c.close() for t in soak.tables for c in t.conns),
                             return_exceptions=True)
    return soak


def report(soak: Soak, args: argparse.Namespace, database: str, seconds: float,
           console: Console) -> bool:
    table = Table(title=f"cardtable restart soak: {database}, {soak.kills} stops "
                        f"({args.signal}), {len(soak.tables)} tables")
    names = ("game", "tables", "acked actions", "acked across a stop", "deals", "matches",
             "lost", "doubled", "stuck", "rolled back", "diverged", "retries", "refused")
    for name in names:
        table.add_column(name, justify="left" if name in ("game", "refused") else "right")
    for game, t in soak.tallies.items():
        refused = ", ".join(f"{code} {n}" for code, n in sorted(t.refused.items())) or "-"
        counts = (t.lost, t.doubled, t.stuck, t.rolled_back, t.diverged)
        table.add_row(game, str(t.tables), f"{t.actions:,}", str(t.across), f"{t.deals:,}",
                      str(t.matches), *(str(len(c)) for c in counts), str(t.retries), refused)
    console.print(table)
    tallies = list(soak.tallies.values())
    problems = [line for t in tallies for line in (*t.stuck, *t.diverged, *t.failed)]
    problems += [f"lost {key}: {why}" for t in tallies for key, why in t.lost.items()][:20]
    problems += [f"doubled {item}" for t in tallies for item in sorted(t.doubled)][:20]
    for line in problems[:40]:
        console.print(f"[red]{line}")
    log = soak.server.log.read_text(errors="replace")
    tracebacks = log.count("Traceback")
    if tracebacks:
        console.print(f"[yellow]{tracebacks} tracebacks in the server log; the first:")
        console.print(log[log.index("Traceback"):][:3000], markup=False, highlight=False)
    resume, down = sorted(soak.resume) or [0.0], sorted(soak.downtime) or [0.0]
    unanswered = sum(t.unanswered for t in tallies)
    console.print(
        f"{seconds / 60:.1f} min; server down {down[len(down) // 2]:.1f} s median per stop "
        f"(incl. the log check); tables moving again after {resume[len(resume) // 2]:.1f} s "
        f"median, {resume[-1]:.1f} s at most, from the server's start; unanswered acts "
        f"{unanswered}; unclean SIGTERMs {soak.unclean}; crashes {soak.crashes}; tracebacks "
        f"{tracebacks}.")
    total = soak.totals()
    clean = not (any(total[k] for k in ("lost", "doubled", "stuck", "rolled back", "failed"))
                 or any(t.diverged for t in tallies) or unanswered or soak.crashes)
    verdict = "[green]0 lost / 0 doubled / 0 stuck" if clean else "[red]FAILED"
    console.print(f"{verdict}: lost {total['lost']}, doubled {total['doubled']}, stuck "
                  f"{total['stuck']} over {soak.kills} stops and {total['actions']:,} "
                  "acknowledged actions")
    return clean


async def main_async(args: argparse.Namespace) -> bool:
    console = Console(width=None if sys.stdout.isatty() else 140)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cardtable-soak-") as tmp:
        async with contextlib.AsyncExitStack() as stack:
            url = None
            if args.database == "postgresql":
                url = await stack.enter_async_context(
                    fresh_postgres(args.pg_server, "cardtable_soak"))
            database = "PostgreSQL" if url else "SQLite"
            server = Server(Path(tmp), url)
            stack.callback(server.stop, "kill")  # whatever happens, no server is left behind
            soak = await run(args, server, console)
            if args.keep_log:
                args.keep_log.write_bytes(soak.server.log.read_bytes())
            return report(soak, args, database, time.monotonic() - started, console)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cycles", type=int, default=20, help="server stops (default: 20)")
    parser.add_argument("--tables", type=int, default=4,
                        help="tables per game, 6 games (default: 4)")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg-server", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="a local PostgreSQL server: a fresh database is made there and "
                             "dropped (default: %(default)s)")
    parser.add_argument("--signal", choices=("kill", "term", "mixed"), default="kill",
                        help="kill -9, a clean SIGTERM, or alternately (default: kill)")
    parser.add_argument("--play", type=float, nargs=2, default=(2.0, 6.0), metavar=("MIN", "MAX"),
                        help="seconds of play before each stop, uniform (default: 2 6)")
    parser.add_argument("--think", type=float, default=0.05, metavar="S",
                        help="mean seconds a bot waits before each move (default: 0.05)")
    parser.add_argument("--turn-time", type=int, choices=(0, 15, 30, 60), default=0,
                        help="the tables' turn clock in seconds (default: 0, none)")
    parser.add_argument("--stuck-after", type=float, default=30.0, metavar="X",
                        help="a table without a new version X s after a restart is stuck")
    parser.add_argument("--max-minutes", type=float, default=30.0,
                        help="stop cycling after this long (default: 30)")
    parser.add_argument("--keep-log", type=Path, metavar="PATH",
                        help="copy the server's log here at the end")
    args = parser.parse_args(argv)
    if not (1 <= args.cycles <= 1000 and 1 <= args.tables <= 200 and 0 <= args.think <= 10
            and 0 < args.play[0] <= args.play[1] <= 600 and 5 <= args.stuck_after <= 600
            and 0 < args.max_minutes <= 600):
        parser.error("limits: --cycles 1-1000, --tables 1-200, --think 0-10, --play MIN MAX "
                     "with 0 < MIN <= MAX <= 600, --stuck-after 5-600, --max-minutes <= 600")
    return 0 if asyncio.run(main_async(args)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
