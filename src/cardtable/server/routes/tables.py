"""The table API: create a table, look one up by its room code, take a seat at it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from .. import protocol as p
from ..registry import Registry
from ..table import Table
from .shared import LookupLimit, registry_of


def seat_grant(table: Table, seat: int, token: str) -> p.SeatGrant:
    code = table.record.code
    return p.SeatGrant(table_id=table.table_id, code=code, seat=seat, token=token,
                       invite_url=f"/t/{code}")


async def seat_at(registry: Registry, code: str, name: str) -> dict[str, Any] | None:
    """A quick join's try at one lobby table: the SeatGrant JSON of the first free seat
    there, or None when the table is gone or its seats went meanwhile."""
    table = await registry.by_code(code)
    granted = None if table is None else await table.join(name)
    if table is None or granted is None or isinstance(granted, str):
        return None
    return seat_grant(table, *granted).model_dump()


def tables_router(limit_lookups: LookupLimit) -> APIRouter:
    """``POST /api/tables``, ``GET /api/tables/{code}`` and its ``/join``; a lookup or a
    join spends one of the client address's room-code lookups."""
    router = APIRouter()

    @router.post("/api/tables", status_code=201)
    async def create_table(body: p.CreateTable, request: Request) -> p.SeatGrant:
        try:
            table, seat, token = await registry_of(request).create(
                body.game, body.options, body.opponent, body.name, body.players,
                None if body.seats is None else list(body.seats), body.settings)
        except ValueError as error:
            raise HTTPException(422, str(error)) from None
        return seat_grant(table, seat, token)

    @router.get("/api/tables/{code}")
    async def table_info(code: str, request: Request) -> p.TableInfo:
        limit_lookups(request)
        table = await registry_of(request).by_code(code)
        if table is None:
            raise HTTPException(404, "no table has that code")
        return await table.info()

    @router.post("/api/tables/{code}/join")
    async def join(code: str, body: p.JoinTable, request: Request) -> p.SeatGrant:
        limit_lookups(request)
        table = await registry_of(request).by_code(code)
        if table is None:
            raise HTTPException(404, "no table has that code")
        granted = await table.join(body.name, body.seat)
        if isinstance(granted, str):
            raise HTTPException(422 if "no such" in granted else 409, granted)
        return seat_grant(table, *granted)

    return router
