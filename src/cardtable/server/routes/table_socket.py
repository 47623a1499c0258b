"""``WS /ws/{table_id}``: a table's frames (docs/protocol.md).

The socket reads frames, parses them (a bad one is answered with an ``error`` and, once
attached, a fresh snapshot) and hands them to the table's actor; until the client has
said ``hello`` with a seat token (or as a spectator) nothing else is accepted, and a
socket that has not said it within ``hello_timeout`` seconds is closed (4008). An address
holds at most ``socket_limit`` sockets (lobby's included) in a process: one more is
accepted and closed at once with 1008 and the reason (a browser shows no refused
handshake's reason).

In a card room of several processes a socket that arrives while Redis is away (nobody can
say who owns its table) waits up to ``REDIS_WAIT`` seconds for it before it is closed with
1013: a client backing off between tries would otherwise come back seconds after Redis
did, and its table's next move with it.
"""

from __future__ import annotations

import asyncio
import logging
import time

from fastapi import APIRouter, WebSocket
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError
from starlette.websockets import WebSocketDisconnect

from .. import protocol as p
from ..codes import CloseCode
from ..config import ServerConfig
from ..connection import Connection
from ..coordinator import Moved
from ..moderation import HOST_REFUSES, blocklists_of
from ..players import session_hash
from ..rate_limits import OpenSockets
from ..registry import Registry, TableHandle
from ..security import TokenBucket, origin_allowed
from ..storable import unstorable
from ..table import SaveFailed
from .shared import registry_of

REFUSALS = {  # why a hello is refused: close code and message
    "bad_token": (CloseCode.BAD_TOKEN, "that seat token is not valid here"),
    "no_spectators": (CloseCode.NO_SPECTATORS,
                      "the host does not allow spectators at this table"),
    "table_full_spectators": (CloseCode.SPECTATORS_FULL,
                              "this table has as many spectators as it takes; try again later"),
    "unknown_table": (CloseCode.UNKNOWN_TABLE, "unknown table"),
    "host_refuses": (CloseCode.HOST_REFUSES, HOST_REFUSES),
}
REDIS_AWAY = "the card room's coordinator (Redis) is unavailable; reconnecting"
MOVING = "the table is moving to another server; reconnecting"
# A socket waits this long for Redis to come back (well inside the client's 10 s for a
# welcome), looking again every REDIS_LOOK seconds.
REDIS_WAIT, REDIS_LOOK = 5.0, 0.25
log = logging.getLogger("cardtable.cluster")


def table_socket_router(config: ServerConfig, sockets: OpenSockets) -> APIRouter:
    router = APIRouter()

    @router.websocket("/ws/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        if not origin_allowed(websocket.headers, config.allowed_origins):
            # Closed before accept: the handshake gets a 403.
            await websocket.close(code=CloseCode.POLICY)
            return
        with sockets.hold(websocket) as admitted:
            await websocket.accept()
            if not admitted:
                await websocket.close(code=CloseCode.POLICY, reason=sockets.refusal)
                return
            await open_table(websocket, table_id, config)

    return router


async def open_table(websocket: WebSocket, table_id: str, config: ServerConfig) -> None:
    """Find the table of an accepted socket and serve it, or close the socket saying why."""
    if unstorable(table_id) is not None:  # no table has such an id; PostgreSQL would fail
        await websocket.close(code=CloseCode.UNKNOWN_TABLE, reason="unknown table")
        return
    registry = registry_of(websocket)
    began = time.monotonic()
    waited_until, waited = began + REDIS_WAIT, False
    while True:
        try:
            table = await registry.get(table_id)
            if waited:
                log.info("a socket of table %s waited %.1f s for Redis", table_id,
                         time.monotonic() - began)
        except (SaveFailed, DBAPIError):  # the database is away: clients reconnect later
            await websocket.close(code=CloseCode.TRY_LATER, reason="database unavailable")
            return
        except RedisError as error:
            if time.monotonic() < waited_until:
                waited = True
                await asyncio.sleep(REDIS_LOOK)
                continue
            log.warning("a socket of table %s sent away: %r", table_id, error)
            await websocket.close(code=CloseCode.TRY_LATER, reason=REDIS_AWAY)
            return
        break
    if table is None:
        await websocket.close(code=CloseCode.UNKNOWN_TABLE, reason="unknown table")
        return
    await serve(websocket, table, config, registry)


async def _attach(registry: Registry | None, table: TableHandle, conn: Connection,
                  hello: p.Hello) -> tuple[TableHandle, str | None]:
    """Say hello where the table lives now (scale-out: it may have moved meanwhile)."""
    if registry is None:
        return table, await table.attach(conn, hello)

    async def attach(there: TableHandle) -> tuple[TableHandle, str | None]:
        return there, await there.attach(conn, hello)

    found = await registry.on_owner(table.table_id, attach)
    return found if found is not None else (table, "unknown_table")


async def _identify(websocket: WebSocket, conn: Connection, registry: Registry) -> bool:
    """The player of the socket's cookie and the players he blocks (server/moderation.py);
    True once his block list is held (give it back at the end)."""
    session = session_hash(websocket)
    player = None if session is None else await registry.store.players.by_token(session)
    if player is None:
        return False
    lists = blocklists_of(websocket)
    try:
        conn.blocked = await lists.acquire(player.player_id, registry.store)
    except BaseException:
        lists.release(player.player_id)
        raise
    conn.player_id = player.player_id
    return True


async def serve(websocket: WebSocket, table: TableHandle, config: ServerConfig,
                registry: Registry | None = None) -> None:
    """Read one accepted socket's frames until it closes, then detach it from ``table``
    (``registry``: where to look for the table again if it moves to another process)."""
    conn = Connection(websocket)
    writer = asyncio.create_task(conn.write_loop())
    if registry is not None:
        registry.sockets += 1
    bucket = TokenBucket(config.frame_rate, config.frame_burst)
    attached = identified = False
    hello_by = asyncio.get_running_loop().time() + config.hello_timeout
    try:
        while True:
            try:
                async with asyncio.timeout_at(None if attached else hello_by):
                    message = await websocket.receive()
            except TimeoutError:
                await websocket.close(code=CloseCode.NO_HELLO,
                                      reason=f"no hello within {config.hello_timeout:g} s")
                break
            if message["type"] == "websocket.disconnect":
                break
            if not bucket.take():
                await websocket.close(code=CloseCode.POLICY, reason="too many frames")
                break
            try:
                text = message.get("text")
                frame = p.parse_client_frame(text if text is not None
                                             else message.get("bytes") or b"")
            except p.ProtocolError as error:
                conn.send(p.frame("error", table.version, p.ErrorData(
                    code=error.code, message=error.message, id=error.ref)))
                if attached:
                    table.submit(conn, p.Sync(t="sync"))
                continue
            if attached:
                table.submit(conn, frame)
            elif not isinstance(frame, p.Hello):
                conn.send(p.frame("error", table.version, p.ErrorData(
                    code="hello_first", message="say hello with your seat token first")))
            else:
                try:
                    if registry is not None and not identified:
                        identified = await _identify(websocket, conn, registry)
                except DBAPIError:
                    await websocket.close(code=CloseCode.TRY_LATER,
                                          reason="database unavailable")
                    break
                try:
                    table, refused = await _attach(registry, table, conn, frame)
                except (Moved, RedisError) as error:
                    why = REDIS_AWAY if isinstance(error, RedisError) else MOVING
                    await websocket.close(code=CloseCode.TRY_LATER, reason=why)
                    break
                if refused is None:
                    attached = True
                    continue
                close_code, why = REFUSALS[refused]
                await websocket.send_text(p.frame("error", table.version, p.ErrorData(
                    code=refused, message=why)))
                await websocket.close(code=close_code, reason=refused)
                break
    except WebSocketDisconnect:
        pass
    finally:
        if registry is not None:
            registry.sockets -= 1
        if attached:
            table.detach(conn)
        if identified and conn.player_id is not None:
            blocklists_of(websocket).release(conn.player_id)
        conn.close()
        writer.cancel()
