"""What the server needs of a cluster, and what the two share.

Scale-out (``REDIS_URL``) is optional: the registry and the table actor run the same with
or without it, and see a cluster only through the :class:`Coordinator` defined here.
``cardtable.cluster`` implements it (``ClusterNode``) and imports from the server; the
server never imports from the cluster, but for the app's wiring (``app.py``), which builds
a node when a Redis URL is configured. So the imports run one way, and neither side can
come to depend on the other's inner workings.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol

from . import protocol as p
from .connection import Connection
from .players import Sitter


class Moved(Exception):
    """The node asked does not own the table (any more): look its owner up again."""


class TableLeases(Protocol):
    """One owner per table: a lease with a fencing token (``cardtable.cluster.leases``)."""

    async def acquire(self, table_id: str, *,
                      take_from_gone: bool = False) -> tuple[int | None, str | None]:
        """Take the table's lease: (our token, None), or (None, the holder's node).
        ``take_from_gone``: also when its holder's process is gone."""

    async def release(self, table_id: str) -> None:
        """Give the lease back (the table left memory, or this process stops)."""

    async def owner(self, table_id: str) -> str | None:
        """The node holding the table's lease now, if any."""

    async def raise_counter(self, table_id: str, token: int) -> None:
        """The database has seen ``token``: the next one must be larger (the lease we
        hold is given back, to be taken again with a good token)."""


class ForwardedTable(Protocol):
    """A table another process owns, as a socket or an HTTP request here uses it: each
    call goes to the owner (:class:`Moved` when it owns the table no more)."""

    @property
    def table_id(self) -> str: ...
    @property
    def code(self) -> str: ...
    @property
    def owner(self) -> str: ...  # the node holding its lease when it was looked up
    @property
    def version(self) -> int: ...  # the last version a frame from the owner carried

    async def attach(self, conn: Connection, hello: p.Hello) -> str | None: ...
    def submit(self, conn: Connection, frame: p.AnyClientFrame) -> None: ...
    def detach(self, conn: Connection) -> None: ...
    async def join(self, name: str, seat: int | None = None,
                   sitter: Sitter | None = None) -> tuple[int, str] | str: ...
    async def info(self) -> p.TableInfo: ...


class Coordinator(Protocol):
    """This process's part in a cluster, as the registry uses it."""

    @property
    def leases(self) -> TableLeases: ...

    @property
    def listening(self) -> bool:
        """Whether this process hears the others now (only then is a lease holder that
        nobody hears taken for gone)."""

    @property
    def draining(self) -> bool:
        """Whether this process is stopping (it takes no table then)."""

    def spawn(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``work`` in the background (a lease given back, say)."""

    def forwarded_table(self, table_id: str, code: str, owner: str) -> ForwardedTable:
        """The table ``owner`` holds, as used from here."""
