"""Matches by id (``"<table_id>:<start version>"``, as histories list them): a finished
match's file, and any match's replay (face up once it is over; docs/protocol.md)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from ...store import TableRecord
from ..match_replay import LoggedMatch, logged_match, match_file, replay
from ..table import settings_of
from .shared import registry_of

router = APIRouter()


async def _match(request: Request, match_id: str) -> tuple[TableRecord, LoggedMatch]:
    table_id, _, start = match_id.rpartition(":")
    if not table_id or not start.isdigit() or len(match_id) > 96:
        raise HTTPException(404, "no match has that id")
    store = registry_of(request).store
    record = await store.get_table(table_id)
    if record is None:
        raise HTTPException(404, "no match has that id")
    match = logged_match(record, await store.load_events(table_id), int(start))
    if match is None:
        raise HTTPException(404, "no match has that id")
    return record, match


@router.get("/api/matches/{match_id}/replay")
async def match_replay(match_id: str, request: Request) -> JSONResponse:
    record, match = await _match(request, match_id)
    steps = replay(record, match)
    if not steps["over"] and not settings_of(record).spectators:
        raise HTTPException(403, "this match is being played at a table that takes no "
                                 "spectators")
    return JSONResponse(steps)


@router.get("/api/matches/{match_id}/file")
async def match_download(match_id: str, request: Request) -> JSONResponse:
    record, match = await _match(request, match_id)
    document = match_file(record, match)
    if document is None:
        raise HTTPException(409, "the match is still being played: its cards stay hidden "
                                 "until it is over")
    name = f"cardtable-{record.code}-{record.game}-{match.start}.json"
    return JSONResponse(document,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})
