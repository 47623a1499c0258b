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

Redis away and back (issue 27): no command waits for an answer that cannot come. A
frame forwarded to an owner that did not hear it, or forwarded while this process's
subscription is broken, closes its socket with 1012 at once (the client resends it, same
id, wherever it lands); when the subscription breaks every held socket is closed so and
every remote connection detached (messages both ways may be lost); a socket whose command
the owner leaves unanswered for ``ANSWER_WAIT`` seconds is closed too. A held socket's
table is checked by its lease's token, not only its node, so a table retaken by the same
process (after a Redis restart, say) does not orphan the sockets of its old incarnation.

Every node also hears what the others broadcast on the lobby's channel: tables' changes
for its lobby, and block changes (``block``), which reach the blocker's sockets and the
stand-ins for them here at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from ..server import protocol as p
from ..server.codes import CloseCode
from ..server.connection import Connection
from ..server.players import Sitter
from .bus import Bus, Message
from .leases import Leases, holder_of
from .remote import RemoteConnection, RemoteTable

if TYPE_CHECKING:
    from ..server.registry import Registry
    from ..server.table import Table

log = logging.getLogger("cardtable.cluster")
BlockChanged = Callable[[str, str, bool], None]  # (blocker, blocked, blocking)
WATCH_INTERVAL = 0.5  # seconds between looks at the owners of the tables held here
# A held socket's command unanswered this long is closed (1012): the client resends it.
# Well inside the 10 s in which every command gets an answer (docs/server.md).
ANSWER_WAIT = 6.0
ANSWERED = frozenset({"act", "rematch", "sync", "hint", "ping"})  # frames the owner answers
REDIS_AWAY = "the card room lost its coordinator (Redis); reconnecting"


class ClusterNode:
    """This process in the card room; to the registry, its
    :class:`~cardtable.server.coordinator.Coordinator`."""

    def __init__(self, redis_url: str, prefix: str, ttl: float, node: str | None = None):
        self.node = node or secrets.token_hex(6)
        self.prefix, self.ttl = prefix, ttl
        # One retry (a pooled connection Redis closed when it restarted), no more: a call
        # to a Redis that is away must fail in seconds, not after redis-py's ten tries.
        self.redis: Redis = Redis.from_url(redis_url, socket_timeout=max(1.0, ttl / 2),
                                           socket_connect_timeout=max(1.0, ttl / 2),
                                           retry=Retry(NoBackoff(), 1))
        self.bus = Bus(self.redis, prefix, self.node, self._handle)
        # The leases' renewal thread keeps the heartbeat too: both must survive a busy loop.
        # A holder with no listener on its bus channel is gone: its leases are not waited for.
        self.leases = Leases(self.redis, prefix, self.node, ttl, self._lost, redis_url=redis_url,
                             beat_key=self._beat_key(self.node),
                             listen_prefix=self.bus.channel(""))
        self.bus.on_unheard, self.bus.on_cut = self._unheard, self._cut
        self.registry: Registry | None = None
        # Owner side: remote key -> (table id, its connection here).
        self.remote: dict[str, tuple[str, RemoteConnection]] = {}
        # Holder side: remote key -> (the socket's connection, the table it went to).
        self.held: dict[str, tuple[Connection, RemoteTable]] = {}
        # Holder side: remote key -> when its oldest command still unanswered went out.
        self.waiting: dict[str, float] = {}
        # Owner side: nodes whose heartbeat is missing, since when (monotonic).
        self._missing: dict[str, float] = {}
        self.draining = False
        self._on_lobby: Callable[[Message], None] | None = None
        self._on_block: BlockChanged | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[Any]] = set()  # held until done (not collected)

    @property
    def listening(self) -> bool:
        """Whether our bus is subscribed now. Only then is a holder without a listener
        taken for gone: right after Redis returns, everybody is resubscribing."""
        return self.bus.connected

    def spawn(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``work`` in the background (answers, lease releases)."""
        task = asyncio.create_task(work, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def forwarded_table(self, table_id: str, code: str, owner: str) -> RemoteTable:
        """The table ``owner`` holds, as a socket or a request here uses it."""
        return RemoteTable(self, table_id, code, owner)

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
        self._tasks.append(asyncio.create_task(self._watch_answers(), name="answer watch"))

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

    async def block_changed(self, blocker: str, blocked: str, blocking: bool) -> None:
        """This process changed a block: the blocker's sockets everywhere hear of it, and
        it is published before the blocker is told it is done (a line sent after that
        answer finds it in place). Chat is filtered where a table lives, so the stand-ins
        there for his sockets on other processes change too, not only the sockets' own
        processes' lists."""
        self._block_stand_ins(blocker, blocked, blocking)
        await self.bus.broadcast({"k": "block", "node": self.node, "by": blocker,
                                  "of": blocked, "on": blocking})

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
        self.waiting.pop(key, None)

    def forwarded(self, key: str, kind: str) -> bool:
        """A held socket's frame is about to go to its owner: False when it cannot be
        answered (our subscription is broken), and the socket has been closed (1012)."""
        if not self.bus.connected:
            self.reconnect_held(key, REDIS_AWAY)
            return False
        if kind in ANSWERED:
            self.waiting.setdefault(key, asyncio.get_running_loop().time())
        return True

    def reconnect_held(self, key: str, why: str) -> None:
        """Close a held socket with 1012: its client reconnects and resends (same id)."""
        entry = self.held.pop(key, None)
        self.waiting.pop(key, None)
        if entry is not None:
            entry[0].close(CloseCode.SERVICE_RESTART, why)

    def _deliver(self, message: Message) -> None:
        key = message.get("c", "")
        entry = self.held.get(key)
        if entry is None:
            return
        conn, _ = entry
        if message["k"] == "send":
            self.waiting.pop(key, None)  # the owner is writing to this socket: it is alive
            conn.send(message["x"])
        else:
            self.release(key)
            conn.close(CloseCode(message.get("code", CloseCode.SERVICE_RESTART)),
                       message.get("why", ""))

    async def _watch_answers(self) -> None:
        """Close the held sockets whose owner left a command unanswered too long."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(ANSWER_WAIT / 12)
            late = loop.time() - ANSWER_WAIT
            for key, since in list(self.waiting.items()):
                if since <= late:
                    entry = self.held.get(key)
                    log.warning("no answer from node %s for table %s in %g s: reconnecting "
                                "its socket", entry[1].owner if entry else "?",
                                entry[1].table_id if entry else "?", ANSWER_WAIT)
                    self.reconnect_held(key, "no answer from the table's server; reconnecting")

    # -- when the bus loses messages ------------------------------------------------------------

    def _unheard(self, node: str, messages: list[Message]) -> None:
        """Messages to ``node`` that it did not hear (Redis away, or it is not subscribed)."""
        for message in messages:
            kind, key = message.get("k"), message.get("c", "")
            if kind == "frame":  # our socket's command: it will never be answered
                self.reconnect_held(key, REDIS_AWAY)
            elif kind in ("send", "close") or (kind == "answer" and key):
                # A frame of ours (or the answer to its attach) missed its socket: the
                # holder learns of it by its own means; the stand-in goes now.
                self._drop_remote(key)

    def _cut(self) -> None:
        """Our subscription broke: messages to us both ways may be lost. Every held socket
        reconnects; every remote connection is dropped (and told so, if the bus can)."""
        if self.held:
            log.warning("the bus lost Redis: reconnecting %d held sockets", len(self.held))
        for key in list(self.held):
            self.reconnect_held(key, REDIS_AWAY)
        for key in list(self.remote):
            self._drop_remote(key, tell=True)

    def _drop_remote(self, key: str, tell: bool = False) -> None:
        entry = self.remote.pop(key, None)
        if entry is None:
            return
        table_id, conn = entry
        if (table := self._owned(table_id)) is not None:
            table.detach(conn)
        if tell:
            conn.close(CloseCode.SERVICE_RESTART, REDIS_AWAY)

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
        # "c": an answer the asker did not hear drops the stand-in (_unheard); "lease":
        # the token the socket's table is known by (_check_owners).
        self.bus.answer(question, {"refused": refused, "seat": conn.seat,
                                   "c": key if refused is None else "",
                                   "lease": self.leases.held.get(table.table_id)})

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
        # Often: a socket here of a table whose owner died reconnects this soon after the
        # lease ends (one MGET of the tables held here, one EXISTS of the owners' nodes).
        while True:
            await asyncio.sleep(min(WATCH_INTERVAL, self.ttl / 3))
            try:
                await self._check_owners()
                await self._check_gone_owners()
                await self._check_holders()
            except Exception as error:  # Redis away: the leases run out on their own
                log.warning("cluster watch: %r", error)

    async def _check_owners(self) -> None:
        """Close our sockets of tables whose lease changed hands, or was taken again by
        the same owner (a new token: the stand-ins of our sockets there are gone): they
        reconnect to the table as it is now."""
        known = {(table.table_id, table.owner, table.lease)
                 for _, table in self.held.values()}
        if not known:
            return
        table_ids = sorted({table_id for table_id, _, _ in known})
        values = await self.redis.mget([self.leases.key(t) for t in table_ids])
        now = {t: holder_of(v.decode() if isinstance(v, bytes) else v)
               for t, v in zip(table_ids, values, strict=True)}
        for table_id, owner, lease in known:
            holder = now[table_id]
            if holder is None or holder[0] != owner or (lease is not None and holder[1] != lease):
                self.reconnect_sockets(table_id, owner, lease)

    async def _check_gone_owners(self) -> None:
        """Reconnect our sockets of tables whose owner's process is gone (nobody listens
        on its bus channel): their hellos take the tables over now, not when the leases
        run out (cluster/leases.py). A socket waiting for a computer's move there would
        otherwise hear nothing until then."""
        owners = sorted({table.owner for _, table in self.held.values()} - {self.node})
        if not owners or not self.listening:
            return
        heard = await self.redis.pubsub_numsub(*(self.bus.channel(o) for o in owners))
        for owner, (_, listeners) in zip(owners, heard, strict=True):
            if not listeners:
                log.warning("node %s is gone (nobody listens on its bus channel): "
                            "reconnecting its tables' sockets", owner)
                for key, (_, table) in list(self.held.items()):
                    if table.owner == owner:
                        self.reconnect_held(key, "the table's server is gone; reconnecting")

    def reconnect_sockets(self, table_id: str, owner: str | None = None,
                          lease: int | None = None) -> None:
        """Close (1012) our sockets of a table (of the one known by ``owner`` and
        ``lease``, when given)."""
        for key, (_, table) in list(self.held.items()):
            if table.table_id == table_id and (
                    owner is None or (table.owner, table.lease) == (owner, lease)):
                self.reconnect_held(key, "the table moved")

    async def _check_holders(self) -> None:
        """Detach the remote connections of nodes that died (no heartbeat for half a lease:
        a Redis that restarted empty has nobody's heartbeat for a moment)."""
        nodes = sorted({conn.node for _, conn in self.remote.values()})
        if not nodes:
            self._missing.clear()
            return
        beats = await self.redis.mget([self._beat_key(n) for n in nodes])
        missing = {node for node, beat in zip(nodes, beats, strict=True) if beat is None}
        now = time.monotonic()
        self._missing = {node: self._missing.get(node, now) for node in missing}
        for node in missing:
            if now - self._missing[node] < self.ttl / 2:
                continue
            log.warning("node %s is gone: dropping its sockets", node)
            for key, (_, conn) in list(self.remote.items()):
                if conn.node == node:
                    self._drop_remote(key, tell=True)  # told: in case it is only slow

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
