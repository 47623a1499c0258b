"""The live tables of this process: created here, or loaded from the log on first use.

Tables leave memory again when nobody uses them (``table/eviction.py``): a sweeper offers
each idle table an eviction, and the next lookup, join or hello loads it back.

With a cluster (``REDIS_URL``, see ``cardtable.cluster``) a table is loaded only by the
process that takes its lease, with the lease's fencing token; a table another process owns
is handed out as a :class:`~.coordinator.ForwardedTable` that forwards to it. The cluster
is seen only through :class:`~.coordinator.Coordinator` (nothing here imports it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..engine import GameState, get_game
from ..engine.api import Options
from ..store import CodeTaken, SeatRecord, Store, TableRecord
from . import metrics
from .config import ServerConfig
from .coordinator import Coordinator, ForwardedTable, Moved
from .log_writer import LogWriter
from .players import Sitter, address_key
from .security import hash_token, new_code, new_table_id, new_token
from .table import COMPUTER_NAME, HostBlocked, Resident, Table, TableSettings, rebuild

log = logging.getLogger("cardtable.registry")
T = TypeVar("T")
TableHandle = Table | ForwardedTable  # what a socket or a request uses: here, or forwarded
RETRY_PAUSE = 0.2  # seconds between looks for a table's owner while it moves
SWEEP_MIN, SWEEP_MAX = 0.05, 30.0  # seconds between looks for idle tables


def sweep_interval(config: ServerConfig) -> float | None:
    """How often to look for idle tables: a quarter of the shorter wait (None: never)."""
    waits = [wait for wait in (config.evict_idle, config.evict_finished) if wait > 0]
    return min(SWEEP_MAX, max(SWEEP_MIN, min(waits) / 4)) if waits else None


class Registry:
    def __init__(self, store: Store, config: ServerConfig,
                 notify: Callable[[Table], None] | None = None,
                 cluster: Coordinator | None = None):
        self.store, self.config, self.notify = store, config, notify
        self.cluster = cluster
        self.sockets = 0  # table sockets open on this process (routes/table_socket.py)
        self.boot = secrets.token_hex(8)  # this process, on what its tables write at eviction
        self._tables: dict[str, Table] = {}
        self.log_writer = LogWriter(store)
        self.log_writer.start()
        # Loads under way (one per table however many ask at once), forgotten when done.
        self._loading: dict[str, asyncio.Task[TableHandle | None]] = {}
        interval = sweep_interval(config)
        self._sweeper = None if interval is None else asyncio.create_task(
            self._sweep(interval), name="table sweeper")

    async def create(self, game_name: str, options: dict[str, Any], opponent: str,
                     name: str, players: int | None = None,
                     kinds: list[str] | None = None,
                     settings: dict[str, Any] | None = None,
                     sitter: Sitter | None = None) -> tuple[Table, int, str]:
        """A new table; the creator takes seat 0. Its match is dealt now if every seat is
        taken (computers), else once the last one is (``Table.deal_when_seated``).

        ``kinds`` says who sits in seats 1, 2, ... ("human" waits for an invitee, "bot" is
        a computer); without it every other seat follows ``opponent``. ``ValueError`` for
        an unknown game, a player count it is not played with, bad options (the
        engine's reason) or bad table settings.
        """
        game = get_game(game_name)
        parsed = game.options.from_dict(options)  # the one parse of what the creator gave
        players = players or game.players[0]
        if players not in game.players:
            counts = ", ".join(map(str, game.players))
            raise ValueError(f"{game_name} is played by {counts} players, not {players}")
        default = "bot" if opponent == "computer" else "human"
        kinds = kinds if kinds is not None else [default] * (players - 1)
        if len(kinds) != players - 1:
            raise ValueError(f"seats must list who sits in the other {players - 1} seats")
        invited = any(kind == "human" for kind in kinds)
        table_settings = TableSettings.create(players, invited, settings)
        sitter = sitter or Sitter()
        if table_settings.rated:
            if not sitter.registered:
                raise ValueError("sign in to host a rated table (an account is free)")
            if "bot" in kinds:
                raise ValueError("a rated table seats people only: invite friends, or make "
                                 "it a practice table")
        # Dealt only with every seat taken: nobody holds cards while the table waits.
        state = None if invited else game.new_match(parsed, players=players,
                                                     rng=secrets.SystemRandom())
        token = new_token()
        fair_key = secrets.token_hex(32)  # the salts of its shuffles derive from it
        address = address_key(fair_key, sitter.address) if table_settings.rated else None
        seats = [SeatRecord(0, name, "human", hash_token(token), sitter.player_id, address,
                            registered=sitter.registered)]
        for seat, kind in enumerate(kinds, start=1):
            seats.append(SeatRecord(seat, COMPUTER_NAME if kind == "bot" else None, kind, None))
        table_id = new_table_id()
        # In a cluster the new table's lease first: with Redis away nothing is created.
        fence = None if self.cluster is None else await self._new_lease(table_id)
        try:
            record = await self._create_record(table_id, game_name, parsed, players, seats,
                                               table_settings, invited, state, fair_key)
        except BaseException:
            if self.cluster is not None:  # no table: its lease must not be kept renewed
                await self.cluster.leases.release(table_id)
            raise
        table = Table(record, state, 0, self.store, self.config, self.log_writer,
                      options=parsed, notify=self.notify, home=self)
        if fence is not None:
            await self.store.claim(record.table_id, fence)
            table.fence = fence
        self._tables[record.table_id] = table
        table.start()
        if self.notify is not None:
            self.notify(table)
        return table, 0, token

    async def _create_record(self, table_id: str, game_name: str, parsed: Options,
                             players: int, seats: list[SeatRecord],
                             table_settings: TableSettings, invited: bool,
                             state: GameState | None, fair_key: str) -> TableRecord:
        """The new table's row, under a room code nobody has."""
        for _ in range(20):
            record = TableRecord(
                table_id=table_id, code=new_code(), game=game_name,
                options=parsed.to_dict(), players=players, seats=seats,
                private=table_settings.private,
                status="waiting" if invited else "playing",
                start_chance=[] if state is None else state.chance_outcomes(),
                settings=table_settings.to_json(),
                fair_key=fair_key)
            try:
                await self.store.create_table(record)
                return record
            except CodeTaken:
                continue
        raise RuntimeError("could not find a free room code")

    async def _new_lease(self, table_id: str) -> int:
        """The lease of a table about to be made (its id is new: nobody holds it)."""
        assert self.cluster is not None
        fence, holder = await self.cluster.leases.acquire(table_id)
        if fence is None:
            raise RuntimeError(f"the lease of new table {table_id} is held by {holder}")
        return fence

    def host_blocked(self, blocker: str, blocked: str) -> None:
        """``blocker`` blocked ``blocked``: each private table here that he hosts sends the
        blocked player's spectators away (the actor checks again, in its turn)."""
        for table in list(self._tables.values()):
            if table.table_settings.private and any(
                    s.player_id == blocker for s in table.record.seats):
                table.post(HostBlocked(blocker, blocked))

    def resident_count(self) -> int:
        return len(self._tables)

    def resident(self, table_id: str) -> Table | None:
        """The table if it is in memory here now."""
        return self._tables.get(table_id)

    async def get(self, table_id: str) -> TableHandle | None:
        """The table in memory, loaded from the log if need be (in a cluster: owned here,
        or forwarded to its owner); None if there is none."""
        table = self._tables.get(table_id)
        if table is not None:
            return table
        loading = self._loading.get(table_id)
        if loading is None:  # two sockets arriving at once must not build two actors
            loading = asyncio.create_task(self._load(table_id), name=f"load {table_id}")
            self._loading[table_id] = loading
            loading.add_done_callback(functools.partial(self._loaded, table_id))
        # Shielded: a caller that gives up (its socket closed) leaves the load to the others.
        return await asyncio.shield(loading)

    async def on_owner(self, table_id: str,
                       use: Callable[[TableHandle], Awaitable[T]]) -> T | None:
        """``use(table)`` wherever the table lives; None if there is no such table. While
        a table moves (its owner died or hands it over) its new owner is looked for until
        the old lease must have ended, then Moved propagates."""
        deadline = time.monotonic() + (0 if self.cluster is None
                                       else 2 * self.config.lease_ttl + 1)
        while True:
            table = await self.get(table_id)
            if table is None:
                return None
            try:
                return await use(table)
            except Moved:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(RETRY_PAUSE)

    def _loaded(self, table_id: str, task: asyncio.Task[TableHandle | None]) -> None:
        if self._loading.get(table_id) is task:
            del self._loading[table_id]
        if not task.cancelled():
            task.exception()  # seen here: nobody may be left waiting for it

    async def revive(self, table_id: str) -> Table | None:
        """A table evicted while someone was about to use it: in memory again (Moved when
        another process took it meanwhile: the command's sender looks for it there)."""
        table = await self.get(table_id)
        if table is None or isinstance(table, Table):
            return table
        raise Moved(f"table {table_id} is owned by node {table.owner} now")

    def evicted(self, table: Resident) -> None:
        if self._tables.get(table.table_id) is table:
            del self._tables[table.table_id]
            metrics.EVICTIONS.inc()
            log.info("table %s left memory", table.table_id)
            if self.cluster is not None:  # another process may take it from now
                self.cluster.spawn(self.cluster.leases.release(table.table_id),
                                   f"release {table.table_id}")

    def lost(self, table_id: str) -> None:
        """Another process owns the table now (its lease was lost): stop it here, writing
        nothing; its sockets reconnect to the new owner."""
        table = self._tables.pop(table_id, None)
        if table is not None:
            table.lose("the table moved to another server")

    async def hand_over(self, table_id: str) -> None:
        """Stop the table between two commands (a clean shutdown): its sockets reconnect
        and the process that gets them takes it over."""
        table = self._tables.get(table_id)
        if table is not None:
            await table.hand_over()
            self._tables.pop(table_id, None)

    def __contains__(self, table_id: str) -> bool:
        """Whether the table is in memory now."""
        return table_id in self._tables

    async def _sweep(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self._offer_evictions()

    def _offer_evictions(self) -> None:
        # A function of its own: a loop variable in _sweep would hold a table while it sleeps.
        for table in list(self._tables.values()):
            table.offer_eviction()

    async def by_code(self, code: str) -> TableHandle | None:
        record = await self.store.get_table_by_code(code.strip().upper())
        return None if record is None else await self.get(record.table_id)

    async def _load(self, table_id: str) -> TableHandle | None:
        record = await self.store.get_table(table_id)
        if record is None:
            return None
        fence: int | None = None
        if self.cluster is not None:
            taken = await self._take_lease(table_id)
            if isinstance(taken, str):
                return self.cluster.forwarded_table(table_id, record.code, taken)
            fence = taken
            record = await self.store.get_table(table_id) or record  # as the last owner left it
        events = await self.store.load_events(table_id)
        chat = await self.store.load_chat(table_id)
        table = Table.from_log(record, rebuild(record, events),
                               events[-1].version if events else 0, self.store,
                               self.config, self.log_writer, notify=self.notify, home=self)
        table.fence = fence
        table.restore_chat(chat)
        self._tables[table_id] = table
        table.start(loaded=True)
        return table

    async def _take_lease(self, table_id: str) -> int | str:
        """Our fencing token, written to the table's row (from then on an older owner
        cannot append); or the node that holds the lease."""
        assert self.cluster is not None
        leases = self.cluster.leases
        if self.cluster.draining:  # this process is stopping: it takes no table
            return await leases.owner(table_id) or ""
        for _ in range(2):
            fence, holder = await leases.acquire(table_id,
                                                 take_from_gone=self.cluster.listening)
            if fence is None:
                return holder or ""
            if await self.store.claim(table_id, fence):
                return fence
            # The row has a token as new as ours: Redis lost its counters (a restart
            # without persistence). Move the counter past the row's and try again.
            await leases.raise_counter(table_id, await self.store.fence_of(table_id) or 0)
        raise RuntimeError(f"could not take the lease of table {table_id}")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for loading in list(self._loading.values()):
            loading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await loading
        for table in list(self._tables.values()):
            await table.stop()
        self._tables.clear()
        await self.log_writer.stop()
