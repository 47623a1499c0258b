"""The table API: create a table, look one up by its room code, take a seat at it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse

from .. import protocol as p
from ..match_export import export_match
from ..moderation import HOST_REFUSES
from ..players import Sitter, sitting_player
from ..registry import Registry, TableHandle
from ..table import NEW_MATCH
from .shared import AddressLimit, on_table, registry_of


def seat_grant(table: TableHandle, seat: int, token: str) -> p.SeatGrant:
    code = table.code
    return p.SeatGrant(table_id=table.table_id, code=code, seat=seat, token=token,
                       invite_url=f"/t/{code}")


async def seat_at(registry: Registry, code: str, name: str,
                  sitter: Sitter | None = None) -> dict[str, Any] | None:
    """A quick join's try at one lobby table: the SeatGrant JSON of the first free seat
    there, or None when the table is gone or its seats went meanwhile."""
    seated = name if sitter is None else sitter.seat_name(name)  # an account: his username

    async def join(table: TableHandle) -> p.SeatGrant | None:
        granted = await table.join(seated, None, sitter)
        return None if isinstance(granted, str) else seat_grant(table, *granted)

    grant = await on_table(registry, code, join)
    return None if grant is None else grant.model_dump()


def tables_router(limit_lookups: AddressLimit, limit_creates: AddressLimit) -> APIRouter:
    """``POST /api/tables``, ``GET /api/tables/{code}``, its ``/join`` and its ``/match``; a
    lookup, a join or a download spends one of the client address's room-code lookups, a
    new table one of its new tables."""
    router = APIRouter()

    @router.post("/api/tables", status_code=201)
    async def create_table(body: p.CreateTable, request: Request,
                           response: Response) -> p.SeatGrant:
        await limit_creates(request)
        registry = registry_of(request)
        player = await sitting_player(request, response, registry.store, body.name)
        sitter = Sitter.of(player, limit_lookups.address_of(request))
        try:
            table, seat, token = await registry.create(
                body.game, body.options, body.opponent, player.name, body.players,
                None if body.seats is None else list(body.seats), body.settings,
                sitter=sitter)
        except ValueError as error:
            raise HTTPException(422, str(error)) from None
        return seat_grant(table, seat, token)

    @router.get("/api/tables/{code}")
    async def table_info(code: str, request: Request) -> p.TableInfo:
        await limit_lookups(request)

        async def info(table: TableHandle) -> p.TableInfo:
            return await table.info()

        found = await on_table(registry_of(request), code, info)
        if found is None:
            raise HTTPException(404, "no table has that code")
        return found

    @router.post("/api/tables/{code}/join")
    async def join(code: str, body: p.JoinTable, request: Request,
                   response: Response) -> p.SeatGrant:
        await limit_lookups(request)
        registry = registry_of(request)
        player = await sitting_player(request, response, registry.store, body.name)
        sitter = Sitter.of(player, limit_lookups.address_of(request))

        async def take_seat(table: TableHandle) -> p.SeatGrant | str:
            granted = await table.join(player.name, body.seat, sitter)
            return granted if isinstance(granted, str) else seat_grant(table, *granted)

        found = await on_table(registry, code, take_seat)
        if found is None:
            raise HTTPException(404, "no table has that code")
        if isinstance(found, str):
            status = 403 if found == HOST_REFUSES else 422 if "no such" in found else 409
            raise HTTPException(status, found)
        return found

    @router.get("/api/tables/{code}/match")
    async def download_match(code: str, request: Request) -> JSONResponse:
        """The table's match as a file (``cardtable verify FILE``), once it is over."""
        await limit_lookups(request)
        store = registry_of(request).store
        record = await store.get_table_by_code(code.strip().upper())
        if record is None:
            raise HTTPException(404, "no table has that code")
        events = await store.load_events(record.table_id)
        if not record.start_chance and not any(e.kind in NEW_MATCH for e in events):
            raise HTTPException(404, "no match has been dealt at this table yet: the cards "
                                     "are dealt when every seat is taken")
        document = export_match(record, events)
        if document is None:
            raise HTTPException(409, "the match is still being played: its cards stay "
                                     "hidden until it is over")
        name = f"cardtable-{record.code}-{record.game}.json"
        return JSONResponse(document,
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return router
