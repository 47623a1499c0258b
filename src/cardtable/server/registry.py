"""The live tables of this process: created here, or loaded from the log on first use."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any

from ..engine import get_game
from ..store import CodeTaken, SeatRecord, Store, TableRecord
from .config import Settings
from .log_writer import LogWriter
from .security import hash_token, new_code, new_table_id, new_token
from .table import Table, rebuild
from .table_presence import COMPUTER_NAME
from .table_settings import TableSettings


class Registry:
    def __init__(self, store: Store, settings: Settings,
                 notify: Callable[[Table], None] | None = None):
        self.store, self.settings, self.notify = store, settings, notify
        self._tables: dict[str, Table] = {}
        self.log_writer = LogWriter(store)
        self.log_writer.start()
        self._loading: dict[str, asyncio.Lock] = {}

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
        parsed = game.Options.from_dict(options)
        players = players or game.PLAYERS[0]
        if players not in game.PLAYERS:
            counts = ", ".join(map(str, game.PLAYERS))
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
        table = Table(record=record, state=state, version=0, store=self.store,
                      settings=self.settings, log_writer=self.log_writer, notify=self.notify)
        self._tables[record.table_id] = table
        table.start()
        if self.notify is not None:
            self.notify(table)
        return table, 0, token

    async def get(self, table_id: str) -> Table | None:
        table = self._tables.get(table_id)
        if table is not None:
            return table
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:  # two sockets arriving at once must not build two actors
            table = self._tables.get(table_id)
            if table is None:
                table = await self._load(table_id)
        return table

    async def by_code(self, code: str) -> Table | None:
        record = await self.store.get_table_by_code(code.strip().upper())
        return None if record is None else await self.get(record.table_id)

    async def _load(self, table_id: str) -> Table | None:
        record = await self.store.get_table(table_id)
        if record is None:
            return None
        events = await self.store.load_events(table_id)
        table = Table.from_log(record, rebuild(record, events),
                               events[-1].version if events else 0, store=self.store,
                               settings=self.settings, log_writer=self.log_writer,
                               notify=self.notify)
        self._tables[table_id] = table
        table.start(loaded=True)
        return table

    async def close(self) -> None:
        for table in list(self._tables.values()):
            await table.stop()
        self._tables.clear()
        await self.log_writer.stop()
