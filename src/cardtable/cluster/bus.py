"""Messages between the processes of one card room: Redis pub/sub, one channel per node.

Every process subscribes to ``{prefix}:to:{node}`` and to the lobby's channel. Messages are
small JSON objects; ``k`` says what one is (see ``cluster/node.py``). Pub/sub and not
streams (docs/server.md says why at length): what travels here is either a command that
the client retries with the same id after a reconnect, or a frame that a later complete
view supersedes; nothing needs to outlive a process, and the event log in PostgreSQL is
the only thing that must never lose a message.

Order matters (a player's views must arrive in version order), so one task publishes
everything this process sends, in the order it was posted. Questions that need an answer
(:meth:`Bus.ask`) carry an id and the asker's node, and time out.

Pub/sub forgets what it could not deliver, so the bus says so instead of staying silent
(issue 27): a message to a node that did not reach it (the publish failed, or nobody was
subscribed to hear it: ``PUBLISH`` counts the listeners) goes to ``on_unheard``, and when
this process's own subscription breaks (Redis went away) every question waiting for an
answer fails at once and ``on_cut`` hears of it: anything sent to us meanwhile may be
lost. The node turns both into closes (1012) that make the clients resend. The reader
subscribes again by itself, on a fresh connection, as soon as Redis is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from ..server import metrics

log = logging.getLogger("cardtable.cluster")

Message = dict[str, Any]
ASK_TIMEOUT = 5.0  # seconds an owner has to answer a question
PUBLISH_TIMEOUT = 2.0  # a batch not published by then is lost (a hung Redis)
RESUBSCRIBE_PAUSE = 0.2  # between tries to subscribe again while Redis is away
BATCH = 256  # messages in one pipeline
SENT_AT = "@"  # a message's field: time.time() when it was posted (for the bus's lag)


class NoAnswer(Exception):
    """The node asked did not answer in time (it died, or is cut off)."""


@dataclass(slots=True)
class Outgoing:
    channel: str
    text: str
    node: str | None  # None: the lobby's channel (heard by all, missed by none that matters)
    message: Message
    published: asyncio.Future[int] | None = None  # told how many heard it, once published


class Bus:
    def __init__(self, redis: Redis, prefix: str, node: str,
                 handle: Callable[[Message], Awaitable[None]]):
        self.redis, self.prefix, self.node = redis, prefix, node
        self.handle = handle  # every message to this node but answers
        self.lobby_channel = f"{prefix}:lobby"
        self.on_lobby: Callable[[Message], None] | None = None
        # Messages to a node that did not reach it: (node, messages), in posted order.
        self.on_unheard: Callable[[str, list[Message]], None] | None = None
        # Our subscription broke: what was sent to us meanwhile may be lost.
        self.on_cut: Callable[[], None] | None = None
        self.connected = False  # subscribed now: answers can reach us
        self._outbox: asyncio.Queue[Outgoing] = asyncio.Queue()
        self._asked: dict[str, asyncio.Future[Message]] = {}
        self._numbers = itertools.count(1)
        self._pubsub: PubSub | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.sent = self.received = 0

    def channel(self, node: str) -> str:
        return f"{self.prefix}:to:{node}"

    async def start(self) -> None:
        await self._subscribe()
        self._tasks = [asyncio.create_task(self._read(), name="bus reader"),
                       asyncio.create_task(self._write(), name="bus writer")]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._fail_questions("this process is stopping")
        await self._close_pubsub()

    # -- sending -------------------------------------------------------------------------

    def post(self, node: str, message: Message) -> None:
        """Send to a node, after everything posted before (never waits)."""
        self._put(self.channel(node), node, message)

    def post_lobby(self, message: Message) -> None:
        self._put(self.lobby_channel, None, message)

    async def broadcast(self, message: Message) -> int:
        """Post to every process (the lobby's channel) and wait until Redis has handed it
        to them: how many processes heard it, 0 when Redis is away. What a person's action
        changes everywhere (a block) is published before his answer says it is done."""
        published: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._put(self.lobby_channel, None, message, published)
        try:
            async with asyncio.timeout(2 * PUBLISH_TIMEOUT):  # the writer may be stopping
                return await asyncio.shield(published)
        except TimeoutError:
            return 0

    def _put(self, channel: str, node: str | None, message: Message,
             published: asyncio.Future[int] | None = None) -> None:
        stamped = {**message, SENT_AT: round(time.time(), 4)}
        self._outbox.put_nowait(Outgoing(channel, json.dumps(stamped, separators=(",", ":")),
                                         node, message, published))

    async def ask(self, node: str, message: Message, timeout: float = ASK_TIMEOUT) -> Message:
        """Send a question and wait for its answer; NoAnswer after ``timeout`` seconds, or
        at once when the question cannot be heard or its answer cannot reach us."""
        if not self.connected:  # the answer would be lost: say so now, not in 5 s
            metrics.REDIS_ERRORS.labels("ask").inc()
            raise NoAnswer("the bus is not subscribed (Redis away)")
        ref = f"{self.node}.{next(self._numbers)}"
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._asked[ref] = answer
        try:
            self.post(node, {**message, "ask": ref, "from": self.node})
            return await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            metrics.REDIS_ERRORS.labels("ask").inc()
            raise NoAnswer(f"node {node} did not answer in {timeout:g} s") from None
        finally:
            self._asked.pop(ref, None)

    def answer(self, question: Message, reply: Message) -> None:
        self.post(question["from"], {"k": "answer", "ask": question["ask"], **reply})

    async def _write(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < BATCH:
                batch.append(self._outbox.get_nowait())
            heard = await self._publish(batch)
            for out, listeners in zip(batch, heard, strict=True):
                if out.published is not None and not out.published.done():
                    out.published.set_result(listeners)
            unheard = [out for out, listeners in zip(batch, heard, strict=True)
                       if not listeners and out.node is not None]
            if unheard:
                try:
                    self._unheard(unheard)
                except Exception:  # the writer must outlive any handler's bug
                    log.exception("could not handle %d unheard messages", len(unheard))

    async def _publish(self, batch: list[Outgoing]) -> list[int]:
        """Publish a batch: how many subscribers heard each message (0s when it failed)."""
        try:
            async with asyncio.timeout(PUBLISH_TIMEOUT):
                async with self.redis.pipeline(transaction=False) as pipe:
                    for out in batch:
                        pipe.publish(out.channel, out.text)
                    heard: list[int] = await pipe.execute()
        except Exception as error:  # Redis away: these are lost; the node closes sockets
            metrics.REDIS_ERRORS.labels("publish").inc()
            log.warning("could not publish %d messages: %r", len(batch), error)
            return [0] * len(batch)
        self.sent += len(batch)
        return [int(listeners) for listeners in heard]

    def _unheard(self, unheard: list[Outgoing]) -> None:
        by_node: dict[str, list[Message]] = {}
        for out in unheard:
            assert out.node is not None
            by_node.setdefault(out.node, []).append(out.message)
            # Our own question nobody heard: its asker need not wait for the timeout.
            asked = self._asked.get(out.message.get("ask", ""))
            if out.message.get("from") == self.node and asked is not None and not asked.done():
                asked.set_exception(NoAnswer(f"node {out.node} did not hear the question"))
        if self.on_unheard is not None:
            for node, messages in by_node.items():
                self.on_unheard(node, messages)

    # -- receiving -----------------------------------------------------------------------

    async def _subscribe(self) -> None:
        """Subscribe on a fresh connection (a broken one is never reused)."""
        await self._close_pubsub()
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._pubsub = pubsub
        async with asyncio.timeout(PUBLISH_TIMEOUT):
            await pubsub.subscribe(self.channel(self.node), self.lobby_channel)
        self.connected = True

    async def _close_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _read(self) -> None:
        while True:
            try:
                if not self.connected:
                    await self._subscribe()
                    log.info("the bus has Redis again (node %s)", self.node)
                assert self._pubsub is not None
                async for raw in self._pubsub.listen():
                    await self._dispatch(raw)
                raise ConnectionError("the subscription ended")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis away: subscribe again when it is back
                metrics.REDIS_ERRORS.labels("subscribe").inc()
                if self.connected:
                    self.connected = False
                    log.warning("the bus lost Redis: %r", error)
                    self._cut()
                await asyncio.sleep(RESUBSCRIBE_PAUSE)

    def _cut(self) -> None:
        self._fail_questions("the bus lost Redis")
        if self.on_cut is not None:
            try:
                self.on_cut()
            except Exception:
                log.exception("could not handle the bus's loss of Redis")

    def _fail_questions(self, why: str) -> None:
        for asked in self._asked.values():
            if not asked.done():
                asked.set_exception(NoAnswer(why))

    async def _dispatch(self, raw: Message) -> None:
        if raw.get("type") != "message":
            return
        self.received += 1
        try:
            message = json.loads(raw["data"])
        except ValueError:
            log.warning("a message that is not JSON on %r", raw.get("channel"))
            return
        sent_at = message.pop(SENT_AT, None)
        channel = raw["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else channel
        lobby = channel == self.lobby_channel
        if isinstance(sent_at, float | int) and not (lobby and message.get("node") == self.node):
            metrics.BUS_LAG_SECONDS.observe(max(0.0, time.time() - sent_at))
        if lobby:
            if self.on_lobby is not None and message.get("node") != self.node:
                self.on_lobby(message)
            return
        if message.get("k") == "answer":
            asked = self._asked.get(message.get("ask", ""))
            if asked is not None and not asked.done():
                asked.set_result(message)
            return
        try:
            await self.handle(message)
        except Exception:  # one bad message must not stop the bus
            log.exception("could not handle %r", message.get("k"))
