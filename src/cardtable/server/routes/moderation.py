"""The moderation API (docs/protocol.md): block and unblock a player, list whom this browser
blocks, and report a player to the operator. Every change needs the browser's player (its
cookie, ``server/players.py``): without one, 401 (the list answers that such a browser
blocks nobody). Refusals say why and change nothing.

A block takes effect at once on the blocker's table sockets, on this process and (in a
cluster) on the others (``server/moderation.py``); a report is stored for the operator
(``store.moderation``), at most :data:`REPORTS_PER_HOUR` a reporter (counted in the
database, so across processes and restarts) and :data:`REPORTS_PER_ADDRESS` an address an
hour (``server/rate_limits.py``: across processes too).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, StringConstraints

from ...store.moderation import MAX_REASON, ReportRecord, utcnow
from ...store.players import PlayerRecord
from ..chat import clean
from ..moderation import block_changed
from ..players import current_player
from ..rate_limits import RateLimits
from .shared import registry_of

MAX_BLOCKS = 500  # players one player may block
REPORTS_PER_HOUR = 10  # per reporter
REPORTS_PER_ADDRESS = 60  # per client address (and process): guests are cheap to make
_CODE = re.compile(r"^[A-Za-z0-9]{1,16}$")


class Blocked(BaseModel):
    player_id: str
    name: str
    since: str  # ISO 8601, UTC


class BlockList(BaseModel):
    player_id: str | None  # whose list: None for a browser that is no player (yet)
    blocks: list[Blocked]  # the latest block first


class NewReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player_id: Annotated[str, StringConstraints(max_length=64)]
    # Bounded before cleaning; the cleaned text has at most MAX_REASON characters (ours
    # says so in a sentence).
    reason: Annotated[str, StringConstraints(max_length=4 * MAX_REASON)]
    table: Annotated[str, StringConstraints(strip_whitespace=True, max_length=16)] | None = None


class Reported(BaseModel):
    report_id: int
    player_id: str
    reason: str  # as stored: plain text, shown as text
    table: str | None


def moderation_router(limits: RateLimits) -> APIRouter:
    router = APIRouter()
    per_address = limits.window("reports", REPORTS_PER_ADDRESS, 3600)

    async def me(request: Request) -> PlayerRecord:
        player = await current_player(request, registry_of(request).store)
        if player is None:
            raise HTTPException(401, "sit down at a table first: blocks and reports are "
                                     "a player's")
        return player

    async def other(request: Request, player_id: str) -> PlayerRecord:
        found = (await registry_of(request).store.players.get(player_id)
                 if 0 < len(player_id) <= 32 else None)
        if found is None:
            raise HTTPException(404, "no player has that id")
        return found

    @router.get("/api/blocks")
    async def my_blocks(request: Request) -> BlockList:
        """Whom this browser's player blocks; a browser that is no player yet blocks
        nobody (like ``/api/me``, an answer, not a 401: every table page asks)."""
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is None:
            return BlockList(player_id=None, blocks=[])
        found = await store.moderation.blocked_by(player.player_id)
        return BlockList(player_id=player.player_id,
                         blocks=[Blocked(player_id=b.player_id, name=b.name,
                                         since=b.since.isoformat()) for b in found])

    @router.post("/api/blocks/{player_id}")
    async def block(player_id: str, request: Request) -> Blocked:
        """Block a player: his chat is hidden from this player at every table, and he
        cannot sit at this player's private tables. Blocking twice is one block."""
        player = await me(request)
        blocked = await other(request, player_id)
        if blocked.player_id == player.player_id:
            raise HTTPException(422, "you cannot block yourself")
        moderation = registry_of(request).store.moderation
        if await moderation.count_blocks(player.player_id) >= MAX_BLOCKS \
                and not await moderation.blocks(player.player_id, blocked.player_id):
            raise HTTPException(422, f"you block {MAX_BLOCKS} players already: unblock "
                                     "some first")
        await moderation.block(player.player_id, blocked.player_id)
        await block_changed(request, player.player_id, blocked.player_id, True)
        return Blocked(player_id=blocked.player_id, name=blocked.name,
                       since=utcnow().isoformat())

    @router.delete("/api/blocks/{player_id}", status_code=204)
    async def unblock(player_id: str, request: Request) -> Response:
        """Unblock a player (nothing changes if he was not blocked)."""
        player = await me(request)
        blocked = await other(request, player_id)
        await registry_of(request).store.moderation.unblock(player.player_id,
                                                            blocked.player_id)
        await block_changed(request, player.player_id, blocked.player_id, False)
        return Response(status_code=204)

    @router.post("/api/reports", status_code=201)
    async def report(body: NewReport, request: Request) -> Reported:
        """Report a player to the operator, with a reason (plain text, 1 to 500
        characters) and, if it happened at one, the table's code."""
        player = await me(request)
        reason = clean(body.reason)
        if not reason:
            raise HTTPException(422, "say what happened: the reason is empty")
        if len(reason) > MAX_REASON:
            raise HTTPException(422, f"a reason has at most {MAX_REASON} characters, "
                                     f"not {len(reason)}")
        reported = await other(request, body.player_id)
        if reported.player_id == player.player_id:
            raise HTTPException(422, "you cannot report yourself")
        if body.table is not None and not _CODE.match(body.table):
            raise HTTPException(422, "table: not a table code")
        store = registry_of(request).store
        if not await per_address.allow(limits.address(request)) \
                or await store.moderation.reports_since(
                    player.player_id, utcnow() - timedelta(hours=1)) >= REPORTS_PER_HOUR:
            raise HTTPException(429, f"at most {REPORTS_PER_HOUR} reports an hour: "
                                     "try again later")
        code = None
        if body.table is not None:  # after the limits: no way to try codes cheaply
            found = await store.get_table_by_code(body.table)
            if found is None:
                raise HTTPException(404, "no table has that code")
            code = found.code
        record = ReportRecord(player.player_id, reported.player_id, reason, code)
        await store.moderation.report(record)
        assert record.report_id is not None
        return Reported(report_id=record.report_id, player_id=reported.player_id,
                        reason=reason, table=code)

    return router
