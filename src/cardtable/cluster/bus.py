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
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis

log = logging.getLogger("cardtable.cluster")

Message = dict[str, Any]
ASK_TIMEOUT = 5.0  # seconds an owner has to answer a question


class NoAnswer(Exception):
    """The node asked did not answer in time (it died, or is cut off)."""


class Bus:
    def __init__(self, redis: Redis, prefix: str, node: str,
                 handle: Callable[[Message], Awaitable[None]]):
        self.redis, self.prefix, self.node = redis, prefix, node
        self.handle = handle  # every message to this node but answers
        self.lobby_channel = f"{prefix}:lobby"
        self.on_lobby: Callable[[Message], None] | None = None
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._asked: dict[str, asyncio.Future[Message]] = {}
        self._numbers = itertools.count(1)
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._tasks: list[asyncio.Task[None]] = []
        self.sent = self.received = 0

    def channel(self, node: str) -> str:
        return f"{self.prefix}:to:{node}"

    async def start(self) -> None:
        await self._pubsub.subscribe(self.channel(self.node), self.lobby_channel)
        self._tasks = [asyncio.create_task(self._read(), name="bus reader"),
                       asyncio.create_task(self._write(), name="bus writer")]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for asked in self._asked.values():
            if not asked.done():
                asked.set_exception(NoAnswer("this process is stopping"))
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]

    # -- sending -------------------------------------------------------------------------

    def post(self, node: str, message: Message) -> None:
        """Send to a node, after everything posted before (never waits)."""
        self._outbox.put_nowait((self.channel(node), json.dumps(message, separators=(",", ":"))))

    def post_lobby(self, message: Message) -> None:
        self._outbox.put_nowait((self.lobby_channel, json.dumps(message, separators=(",", ":"))))

    async def ask(self, node: str, message: Message, timeout: float = ASK_TIMEOUT) -> Message:
        """Send a question and wait for its answer; NoAnswer after ``timeout`` seconds."""
        ref = f"{self.node}.{next(self._numbers)}"
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._asked[ref] = answer
        try:
            self.post(node, {**message, "ask": ref, "from": self.node})
            return await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            raise NoAnswer(f"node {node} did not answer in {timeout:g} s") from None
        finally:
            self._asked.pop(ref, None)

    def answer(self, question: Message, reply: Message) -> None:
        self.post(question["from"], {"k": "answer", "ask": question["ask"], **reply})

    async def _write(self) -> None:
        while True:
            channel, text = await self._outbox.get()
            batch = [(channel, text)]
            while not self._outbox.empty() and len(batch) < 256:
                batch.append(self._outbox.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, text in batch:
                        pipe.publish(channel, text)
                    await pipe.execute()
                self.sent += len(batch)
            except Exception as error:  # Redis away: these are lost; clients resync
                log.warning("could not publish %d messages: %r", len(batch), error)

    # -- receiving -----------------------------------------------------------------------

    async def _read(self) -> None:
        while True:
            try:
                async for raw in self._pubsub.listen():
                    await self._dispatch(raw)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis away: subscribe again when it is back
                log.warning("the bus lost Redis: %r", error)
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    await self._pubsub.subscribe(self.channel(self.node), self.lobby_channel)

    async def _dispatch(self, raw: Message) -> None:
        if raw.get("type") != "message":
            return
        self.received += 1
        try:
            message = json.loads(raw["data"])
        except ValueError:
            log.warning("a message that is not JSON on %r", raw.get("channel"))
            return
        channel = raw["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else channel
        if channel == self.lobby_channel:
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
