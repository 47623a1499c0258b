"""One process of a card room spread over many: its leases, its bus, its two roles.

As **owner** of a table (it holds the lease) a node runs the table's actor as a single
process would, and answers the messages other nodes send for it: ``attach`` (a socket said
hello there), ``frame`` and ``detach`` (that socket's frames and goodbye), ``join`` and
``info`` (HTTP requests that landed there). As **holder** of sockets for tables owned
elsewhere it forwards them (``RemoteTable``) and writes what comes back: ``send`` (a
frame, redacted by the owner) and ``close``.

Failures: every node keeps a heartbeat key; an owner drops the remote connections of a
node whose heartbeat is gone (their seats go into their grace period as if the socket had
dropped), and a holder closes its sockets of a table whose owner changed, with 1012
(reconnect now): the client says hello again, here or elsewhere, and the node that gets
the hello takes the lease over if it expired, replays the log and goes on.

Every node also hears what the others broadcast on the lobby's channel: tables' changes
for its lobby, and block changes (``block``), which reach the blocker's sockets and the
stand-ins for them here at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis

from ..server import protocol as p
from ..server.codes import CloseCode
from ..server.connection import Connection
from ..server.players import Sitter
from .bus import Bus, Message
from .leases import Leases
from .remote import RemoteConnection, RemoteTable

if TYPE_CHECKING:
    from ..server.registry import Registry
    from ..server.table import Table

log = logging.getLogger("cardtable.cluster")
BlockChanged = Callable[[str, str, bool], None]  # (blocker, blocked, blocking)


class ClusterNode:
    def __init__(self, redis_url: str, prefix: str, ttl: float, node: str | None = None):
        self.node = node or secrets.token_hex(6)
        self.prefix, self.ttl = prefix, ttl
        self.redis: Redis = Redis.from_url(redis_url, socket_timeout=max(1.0, ttl / 2),
                                           socket_connect_timeout=max(1.0, ttl / 2))
        self.leases = Leases(self.redis, prefix, self.node, ttl, self._lost)
        self.bus = Bus(self.redis, prefix, self.node, self._handle)
        self.registry: Registry | None = None
        # Owner side: remote key -> (table id, its connection here).
        self.remote: dict[str, tuple[str, RemoteConnection]] = {}
        # Holder side: remote key -> (the socket's connection, the table it went to).
        self.held: dict[str, tuple[Connection, RemoteTable]] = {}
        self.draining = False
        self._on_lobby: Callable[[Message], None] | None = None
        self._on_block: BlockChanged | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[Any]] = set()  # held until done (not collected)

    def spawn(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``work`` in the background (answers, lease releases)."""
        task = asyncio.create_task(work, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def start(self, registry: Registry, on_lobby: Callable[[Message], None],
                    on_block: BlockChanged | None = None) -> None:
        """Join the card room (``ConnectionError`` if Redis cannot be reached).
        ``on_lobby`` hears every other process's table changes, ``on_block`` its block
        changes (for this process's block lists, server/moderation.py)."""
        self.registry = registry
        await self.redis.ping()
        await self._beat()
        self._on_lobby, self._on_block = on_lobby, on_block
        self.bus.on_lobby = self._heard
        await self.bus.start()
        self.leases.start()
        self._tasks = [asyncio.create_task(self._watch(), name="cluster watch")]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.leases.stop()
        await self.bus.stop()
        with contextlib.suppress(Exception):
            await self.redis.delete(self._beat_key(self.node))
        await self.redis.aclose()

    # -- the lobby ---------------------------------------------------------------------------

    def lobby_changed(self, info: dict[str, Any], private: bool) -> None:
        self.bus.post_lobby({"node": self.node, "info": info, "private": private})

    def _heard(self, message: Message) -> None:
        """A message every process hears (the lobby's channel), from another process."""
        if message.get("k") == "block":
            blocker, blocked = str(message.get("by", "")), str(message.get("of", ""))
            blocking = bool(message.get("on"))
            self._block_stand_ins(blocker, blocked, blocking)
            if self._on_block is not None:
                self._on_block(blocker, blocked, blocking)
            if blocking and self.registry is not None:  # the tables owned here
                self.registry.host_blocked(blocker, blocked)
        elif self._on_lobby is not None:
            self._on_lobby(message)

    # -- blocks -------------------------------------------------------------------------------

    def block_changed(self, blocker: str, blocked: str, blocking: bool) -> None:
        """This process changed a block: the blocker's sockets everywhere hear of it now.
        Chat is filtered where a table lives, so the stand-ins there for his sockets on
        other processes change too, not only the sockets' own processes' lists."""
        self._block_stand_ins(blocker, blocked, blocking)
        self.bus.post_lobby({"k": "block", "node": self.node, "by": blocker, "of": blocked,
                             "on": blocking})

    def _block_stand_ins(self, blocker: str, blocked: str, blocking: bool) -> None:
        for _, conn in self.remote.values():
            if conn.player_id == blocker:
                if blocking:
                    conn.blocked.add(blocked)
                else:
                    conn.blocked.discard(blocked)

    # -- holder side ----------------------------------------------------------------------------

    def hold(self, key: str, conn: Connection, table: RemoteTable) -> None:
        self.held[key] = (conn, table)

    def release(self, key: str) -> None:
        self.held.pop(key, None)

    def _deliver(self, message: Message) -> None:
        entry = self.held.get(message.get("c", ""))
        if entry is None:
            return
        conn, _ = entry
        if message["k"] == "send":
            conn.send(message["x"])
        else:
            self.held.pop(message["c"], None)
            conn.close(CloseCode(message.get("code", CloseCode.SERVICE_RESTART)),
                       message.get("why", ""))

    # -- owner side -----------------------------------------------------------------------------

    async def _handle(self, message: Message) -> None:
        kind = message.get("k")
        if kind in ("send", "close"):
            return self._deliver(message)
        if kind == "frame":
            entry = self.remote.get(message.get("c", ""))
            if entry is None or (table := self._owned(entry[0])) is None:
                # Not (or no longer) ours: the socket must find the table anew, now,
                # rather than wait for an answer that cannot come from here.
                if "from" in message:
                    self.bus.post(message["from"], {"k": "close", "c": message.get("c", ""),
                                                    "code": int(CloseCode.SERVICE_RESTART),
                                                    "why": "the table moved"})
                return
            try:
                frame = p.client_frame_of(message["f"])
            except p.ProtocolError:
                return  # it was checked where it came from
            table.submit(entry[1], frame)
            return
        if kind == "detach":
            entry = self.remote.pop(message.get("c", ""), None)
            if entry is not None and (table := self._owned(entry[0])) is not None:
                table.detach(entry[1])
            return
        if kind in ("attach", "join", "info"):
            self.spawn(self._answer(message), f"answer {kind}")

    def _owned(self, table_id: str) -> Table | None:
        """The table if it is in memory here and ours."""
        assert self.registry is not None
        table = self.registry.resident(table_id)
        return table if table is not None and table_id in self.leases.held else None

    async def _answer(self, question: Message) -> None:
        assert self.registry is not None
        table_id = question.get("t", "")
        try:
            # A table being loaded here is waited for; one owned elsewhere is not ours.
            found = None if self.draining else await self.registry.get(table_id)
            table = found if found is not None and self._owned(table_id) is found else None
            if table is None:
                return self.bus.answer(question, {"moved": True})
            match question["k"]:
                case "attach":
                    await self._attach(table, question)
                case "join":
                    granted = await table.join(question.get("name", "Player"),
                                               question.get("seat"),
                                               Sitter.from_json(question.get("sitter")))
                    self.bus.answer(question, {"granted": granted})
                case "info":
                    info = await table.info()
                    self.bus.answer(question, {"info": info.model_dump(mode="json")})
        except Exception as error:
            log.warning("could not answer %s for table %s: %r", question["k"], table_id, error)
            self.bus.answer(question, {"moved": True})

    async def _attach(self, table: Table, question: Message) -> None:
        key, node = question["c"], question["from"]
        hello = p.client_frame_of(question["hello"])
        assert isinstance(hello, p.Hello)
        conn = RemoteConnection(self.bus, node, key)
        # His blocks as his socket's node knew them at hello (server/moderation.py).
        conn.player_id, conn.blocked = question.get("player"), set(question.get("blocked") or ())
        # First: the welcome frames the actor sends on attach must find their way.
        self.remote[key] = (table.table_id, conn)
        refused = await table.attach(conn, hello)
        if refused is not None:
            self.remote.pop(key, None)
        self.bus.answer(question, {"refused": refused, "seat": conn.seat})

    def _lost(self, table_id: str) -> None:
        """The lease is gone: the table stops here, its sockets reconnect."""
        assert self.registry is not None
        self.registry.lost(table_id)
        self.forget_table(table_id)

    def forget_table(self, table_id: str) -> None:
        for key, (owned, _) in list(self.remote.items()):
            if owned == table_id:
                del self.remote[key]

    # -- watching each other ----------------------------------------------------------------

    def _beat_key(self, node: str) -> str:
        return f"{self.prefix}:node:{node}"

    async def _beat(self) -> None:
        await self.redis.set(self._beat_key(self.node), "1", px=int(self.ttl * 1000))

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self._beat()
                await self._check_owners()
                await self._check_holders()
            except Exception as error:  # Redis away: the leases run out on their own
                log.warning("cluster watch: %r", error)

    async def _check_owners(self) -> None:
        """Close our sockets of tables whose owner changed: they reconnect to the new one."""
        tables = {table.table_id: table for _, table in self.held.values()}
        owners = await self.leases.owners(list(tables))
        for table_id, owner in owners.items():
            if owner != tables[table_id].owner:
                self.reconnect_sockets(table_id)

    def reconnect_sockets(self, table_id: str) -> None:
        for key, (conn, table) in list(self.held.items()):
            if table.table_id == table_id:
                del self.held[key]
                conn.close(CloseCode.SERVICE_RESTART, "the table moved")

    async def _check_holders(self) -> None:
        """Detach the remote connections of nodes that died (no heartbeat)."""
        nodes = sorted({conn.node for _, conn in self.remote.values()})
        if not nodes:
            return
        alive = await self.redis.exists(*[self._beat_key(n) for n in nodes]) == len(nodes)
        if alive:
            return
        for node in nodes:
            if await self.redis.exists(self._beat_key(node)):
                continue
            log.warning("node %s is gone: dropping its sockets", node)
            for key, (table_id, conn) in list(self.remote.items()):
                if conn.node == node:
                    del self.remote[key]
                    if (table := self._owned(table_id)) is not None:
                        table.detach(conn)

    # -- a clean stop -------------------------------------------------------------------------

    async def drain(self) -> None:
        """Hand every table over: stop it here, give its lease back, and tell its sockets
        (here and on other nodes) to reconnect; they land on processes that take over."""
        self.draining = True
        assert self.registry is not None
        for table_id in list(self.leases.held):
            await self.registry.hand_over(table_id)
            await self.leases.release(table_id)
            self.forget_table(table_id)
        for key, (conn, _) in list(self.held.items()):
            del self.held[key]
            conn.close(CloseCode.SERVICE_RESTART, "this server is restarting")
        await asyncio.sleep(0.05)  # let the bus publish the closes
