"""The live tables of this process: created here, or loaded from the log on first use.

Tables leave memory again when nobody uses them (``table_eviction``): a sweeper offers
each idle table an eviction, and the next lookup, join or hello loads it back.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import Callable
from typing import Any

from ..engine import get_game
from ..store import CodeTaken, SeatRecord, Store, TableRecord
from .config import ServerConfig
from .log_writer import LogWriter
from .security import hash_token, new_code, new_table_id, new_token
from .table import Table, rebuild
from .table_eviction import Resident
from .table_presence import COMPUTER_NAME
from .table_settings import TableSettings

log = logging.getLogger("cardtable.registry")
SWEEP_MIN, SWEEP_MAX = 0.05, 30.0  # seconds between looks for idle tables


def sweep_interval(config: ServerConfig) -> float | None:
    """How often to look for idle tables: a quarter of the shorter wait (None: never)."""
    waits = [wait for wait in (config.evict_idle, config.evict_finished) if wait > 0]
    return min(SWEEP_MAX, max(SWEEP_MIN, min(waits) / 4)) if waits else None


class Registry:
    def __init__(self, store: Store, config: ServerConfig,
                 notify: Callable[[Table], None] | None = None):
        self.store, self.config, self.notify = store, config, notify
        self.boot = secrets.token_hex(8)  # this process, on what its tables write at eviction
        self._tables: dict[str, Table] = {}
        self.log_writer = LogWriter(store)
        self.log_writer.start()
        # Loads under way (one per table however many ask at once), forgotten when done.
        self._loading: dict[str, asyncio.Task[Table | None]] = {}
        interval = sweep_interval(config)
        self._sweeper = None if interval is None else asyncio.create_task(
            self._sweep(interval), name="table sweeper")

    async def create(self, game_name: str, options: dict[str, Any], opponent: str,
                     name: str, players: int | None = None,
                     kinds: list[str] | None = None,
                     settings: dict[str, Any] | None = None) -> tuple[Table, int, str]:
        """A new table with its match dealt; the creator takes seat 0.

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
        state = game.new_match(parsed, players=players, rng=secrets.SystemRandom())
        token = new_token()
        seats = [SeatRecord(0, name, "human", hash_token(token))]
        for seat, kind in enumerate(kinds, start=1):
            seats.append(SeatRecord(seat, COMPUTER_NAME if kind == "bot" else None, kind, None))
        for _ in range(20):
            record = TableRecord(
                table_id=new_table_id(), code=new_code(), game=game_name,
                options=parsed.to_dict(), players=players, seats=seats,
                private=table_settings.private,
                status="waiting" if invited else "playing",
                start_chance=state.chance_outcomes(), settings=table_settings.to_json())
            try:
                await self.store.create_table(record)
                break
            except CodeTaken:
                continue
        else:
            raise RuntimeError("could not find a free room code")
        table = Table(record, state, 0, self.store, self.config, self.log_writer,
                      options=parsed, notify=self.notify, home=self)
        self._tables[record.table_id] = table
        table.start()
        if self.notify is not None:
            self.notify(table)
        return table, 0, token

    async def get(self, table_id: str) -> Table | None:
        """The table in memory, loaded from the log if need be; None if there is none."""
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

    def _loaded(self, table_id: str, task: asyncio.Task[Table | None]) -> None:
        if self._loading.get(table_id) is task:
            del self._loading[table_id]
        if not task.cancelled():
            task.exception()  # seen here: nobody may be left waiting for it

    async def revive(self, table_id: str) -> Table | None:
        """A table evicted while someone was about to use it: in memory again."""
        return await self.get(table_id)

    def evicted(self, table: Resident) -> None:
        if self._tables.get(table.table_id) is table:
            del self._tables[table.table_id]
            log.info("table %s left memory", table.table_id)

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

    async def by_code(self, code: str) -> Table | None:
        record = await self.store.get_table_by_code(code.strip().upper())
        return None if record is None else await self.get(record.table_id)

    async def _load(self, table_id: str) -> Table | None:
        record = await self.store.get_table(table_id)
        if record is None:
            return None
        events = await self.store.load_events(table_id)
        chat = await self.store.load_chat(table_id)
        table = Table.from_log(record, rebuild(record, events),
                               events[-1].version if events else 0, self.store,
                               self.config, self.log_writer, notify=self.notify, home=self)
        table.restore_chat(chat)
        self._tables[table_id] = table
        table.start(loaded=True)
        return table

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
