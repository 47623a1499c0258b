"""The two ends of a socket held by one process for a table owned by another.

On the owner, a :class:`RemoteConnection` stands in the table's connections like a local
one: the actor redacts each frame for its seat (``view(seat)``) exactly as for a local
socket, and ``send`` posts the finished text to the node that holds the socket. On the
node holding the socket, a :class:`RemoteTable` takes the socket's part of a table's
interface (hello, frames, goodbye; joins and look-ups by room code) and forwards it to
the owner. Nothing unredacted ever leaves the owner.

A socket held here waits for nothing that cannot come (issue 27): a frame the bus cannot
carry (see ``ClusterNode.forwarded``) closes the socket with 1012 so that the client
resends it, and an attach whose answer was lost is taken back from the owner at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Protocol

from ..server import protocol as p
from ..server.codes import CloseCode
from ..server.connection import Connection
from ..server.coordinator import Moved
from ..server.players import Sitter
from .bus import Bus, Message, NoAnswer
from .leases import Leases

_numbers = itertools.count(1)


class RemoteConnection(Connection):
    """A socket of another node, seen by the table's owner."""

    def __init__(self, bus: Bus, node: str, key: str, name: str = "Spectator"):
        # No websocket here: the node holding it writes (see ClusterNode.deliver).
        super().__init__(None)  # type: ignore[arg-type]
        self.bus, self.node, self.key = bus, node, key
        self.name = name

    def send(self, text: str, resync: Callable[[], str] | None = None) -> None:
        self.bus.post(self.node, {"k": "send", "c": self.key, "x": text})

    def close(self, code: CloseCode | None = None, reason: str = "") -> None:
        self.bus.post(self.node, {"k": "close", "c": self.key,
                                  "code": int(code or CloseCode.SERVICE_RESTART), "why": reason})

    async def write_loop(self) -> None:  # pragma: no cover - never started on the owner
        raise RuntimeError("a remote connection is written by its own node")


class Holder(Protocol):
    """What a :class:`RemoteTable` needs of its node (``ClusterNode``, which imports this
    module: the node is seen through this, so no import runs back)."""

    @property
    def node(self) -> str: ...
    @property
    def bus(self) -> Bus: ...
    @property
    def leases(self) -> Leases: ...

    def hold(self, key: str, conn: Connection, table: RemoteTable) -> None: ...
    def release(self, key: str) -> None: ...
    def forwarded(self, key: str, kind: str) -> bool: ...


class RemoteTable:
    """A table owned by another node, as a socket or an HTTP request here uses it (the
    server's :class:`~cardtable.server.coordinator.ForwardedTable`)."""

    def __init__(self, cluster: Holder, table_id: str, code: str, owner: str):
        self.cluster, self.table_id, self.code, self.owner = cluster, table_id, code, owner
        self.version = 0  # the last version a frame from the owner carried (error frames)
        self.lease: int | None = None  # the owner's token for the table, as of the attach

    @property
    def bus(self) -> Bus:
        return self.cluster.bus

    async def _ask(self, op: str, **fields: Any) -> Message:
        if not self.owner:
            raise Moved(f"table {self.table_id} has no owner just now")
        try:  # an owner that died is not waited for past its lease's end
            held, answer = await self.cluster.leases.while_held_by(
                self.table_id, self.owner,
                self.bus.ask(self.owner, {"k": op, "t": self.table_id, **fields}))
        except NoAnswer:
            raise Moved(f"the owner of table {self.table_id} did not answer") from None
        if not held or answer is None:
            raise Moved(f"the lease of table {self.table_id} left node {self.owner}")
        if answer.get("moved"):
            raise Moved(f"node {self.owner} no longer owns table {self.table_id}")
        return answer

    async def attach(self, conn: Connection, hello: p.Hello) -> str | None:
        """Say hello to the owner for ``conn``: None once attached, or why it refused."""
        key = f"{self.cluster.node}/{next(_numbers)}"
        self.cluster.hold(key, conn, self)
        try:
            answer = await self._ask("attach", c=key, hello=hello.model_dump(mode="json"),
                                     player=conn.player_id, blocked=sorted(conn.blocked))
        except BaseException:
            self.cluster.release(key)
            # The owner may have attached it and its answer got lost: take it back there
            # (nothing happens if it never arrived), or his seat looks connected for good.
            self.bus.post(self.owner, {"k": "detach", "t": self.table_id, "c": key})
            raise
        refused: str | None = answer.get("refused")
        if refused is not None:
            self.cluster.release(key)
            return refused
        lease = answer.get("lease")
        self.lease = int(lease) if lease is not None else None
        conn.remote_key = key  # type: ignore[attr-defined]
        conn.seat = answer.get("seat")
        return None

    def submit(self, conn: Connection, frame: p.AnyClientFrame) -> None:
        key = getattr(conn, "remote_key", None)
        if key is not None and self.cluster.forwarded(key, frame.t):
            self.bus.post(self.owner, {"k": "frame", "t": self.table_id, "c": key,
                                       "from": self.cluster.node,
                                       "f": frame.model_dump(mode="json")})

    def detach(self, conn: Connection) -> None:
        key = getattr(conn, "remote_key", None)
        if key is not None:
            self.cluster.release(key)
            self.bus.post(self.owner, {"k": "detach", "t": self.table_id, "c": key})

    async def join(self, name: str, seat: int | None = None,
                   sitter: Sitter | None = None) -> tuple[int, str] | str:
        answer = await self._ask("join", name=name, seat=seat,
                                 sitter=(sitter or Sitter()).to_json())
        granted = answer["granted"]
        return granted if isinstance(granted, str) else (int(granted[0]), str(granted[1]))

    async def info(self) -> p.TableInfo:
        answer = await self._ask("info")
        return p.TableInfo.model_validate(answer["info"])
