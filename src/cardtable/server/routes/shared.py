"""What several route modules use: the app's live registry and lobby, and the budgets per
client address (room-code lookups, new tables)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from fastapi import HTTPException, Request
from starlette.requests import HTTPConnection

from ..config import ServerConfig
from ..lobby import Lobby
from ..rate_limits import RateLimits, SharedWindow
from ..registry import Registry, TableHandle

T = TypeVar("T")


async def on_table(registry: Registry, code: str,
                   use: Callable[[TableHandle], Awaitable[T]]) -> T | None:
    """``use(table)`` on the table with this room code, wherever it lives; None when no
    table has it. (An unreachable database or Redis is answered 503 by the app's error
    handlers; a table that moves is looked for again, see Registry.on_owner.)"""
    record = await registry.store.get_table_by_code(code.strip().upper())
    return None if record is None else await registry.on_owner(record.table_id, use)


def registry_of(connection: HTTPConnection) -> Registry:
    """The tables of this process (set up by the app's lifespan)."""
    registry: Registry = connection.app.state.registry
    return registry


def lobby_of(connection: HTTPConnection) -> Lobby:
    """The public lobby of this process (set up by the app's lifespan)."""
    lobby: Lobby = connection.app.state.lobby
    return lobby


class AddressLimit:
    """A budget per client address. Calling it with a request spends one, or raises
    HTTP 429 with ``refusal`` when the address has none left."""

    def __init__(self, window: SharedWindow, refusal: str, limits: RateLimits) -> None:
        self.window, self.refusal = window, refusal
        self.address_of = limits.address

    async def __call__(self, request: Request) -> None:
        if not await self.window.allow(self.address_of(request)):
            raise HTTPException(429, self.refusal)


def lookup_limit(config: ServerConfig, limits: RateLimits) -> AddressLimit:
    """Room codes are short: lookups, joins and quick joins share one budget per address,
    so codes cannot be guessed by trying them."""
    return AddressLimit(limits.window("lookups", config.join_limit, config.join_window),
                        "too many room-code lookups; wait a minute", limits)


def create_limit(config: ServerConfig, limits: RateLimits) -> AddressLimit:
    """Every new table holds memory and rows until it is evicted: a flood of them from one
    address is refused (a person starts a few an hour)."""
    return AddressLimit(limits.window("creates", config.create_limit, config.create_window),
                        "too many new tables from your address; wait a minute", limits)
