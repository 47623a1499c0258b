"""The live tables of this process: created here, or loaded from the log on first use."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from ..engine import get_game
from ..store import CodeTaken, SeatRecord, Store, TableRecord
from .config import Settings
from .log_writer import LogWriter
from .security import hash_token, new_code, new_table_id, new_token
from .table import Table, rebuild

COMPUTER_NAME = "Computer"


class Registry:
    def __init__(self, store: Store, settings: Settings):
        self.store, self.settings = store, settings
        self._tables: dict[str, Table] = {}
        self.log_writer = LogWriter(store)
        self.log_writer.start()
        self._loading: dict[str, asyncio.Lock] = {}

    async def create(self, game_name: str, options: dict[str, Any], opponent: str,
                     name: str, players: int | None = None,
                     kinds: list[str] | None = None) -> tuple[Table, int, str]:
        """A new table with its match dealt; the creator takes seat 0.

        ``kinds`` says who sits in seats 1, 2, ... ("human" waits for an invitee, "bot" is
        a computer); without it every other seat follows ``opponent``. ``ValueError`` for
        an unknown game, a player count it is not played with, or bad options (the
        engine's reason).
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
        state = game.new_match(parsed, players=players, rng=secrets.SystemRandom())
        token = new_token()
        seats = [SeatRecord(0, name, "human", hash_token(token))]
        for seat, kind in enumerate(kinds, start=1):
            seats.append(SeatRecord(seat, COMPUTER_NAME if kind == "bot" else None, kind, None))
        waiting = any(kind == "human" for kind in kinds)
        for _ in range(20):
            record = TableRecord(
                table_id=new_table_id(), code=new_code(), game=game_name,
                options=parsed.to_dict(), players=players, seats=seats,
                private=waiting or opponent == "friend",
                status="waiting" if waiting else "playing",
                start_chance=state.chance_outcomes())
            try:
                await self.store.create_table(record)
                break
            except CodeTaken:
                continue
        else:
            raise RuntimeError("could not find a free room code")
        table = Table(record=record, state=state, version=0, store=self.store,
                      settings=self.settings, log_writer=self.log_writer)
        self._tables[record.table_id] = table
        table.start()
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
        state, commands = rebuild(record, events)
        table = Table(record=record, state=state, version=events[-1].version if events else 0,
                      store=self.store, settings=self.settings, log_writer=self.log_writer,
                      commands=commands)
        self._tables[table_id] = table
        table.start()
        return table

    async def close(self) -> None:
        for table in list(self._tables.values()):
            await table.stop()
        self._tables.clear()
        await self.log_writer.stop()
