"""Blocks at the tables: a blocked player's chat never reaches the blocker, and the host
of a private table keeps out whom he blocks (docs/players.md, "Moderation").

A table socket knows its browser's player from the cookie its handshake carried
(``routes/table_socket.py``, at hello) and holds his block list: one set per player
shared by all his sockets on this process (:class:`BlockLists`), loaded from the store
when his first socket says hello and changed in place by the block API of this process,
so a block takes effect at once on every socket of his here. In a cluster
(``cardtable.cluster``) the change is broadcast to every other process: their lists, and
the stand-ins of the tables they own for his sockets elsewhere (a table filters its chat
where it lives), change as soon as the message arrives; the browser hides the blocked
player's lines by seat as well.

Every chat line knows its author's player: a seat's line the seat's player, a
spectator's line the player of the socket that said it (kept, with the table's chat, in
the line's ``sender``: ``spectator:<connection>:<player id>``), so the history a socket
gets after a restart is filtered alike.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from ..store import SeatRecord, Store

HOST_REFUSES = "the host of this private table does not take you"


@dataclass
class _Held:
    ids: set[str] = field(default_factory=set)
    users: int = 0
    loaded: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: set[str] = field(default_factory=set)  # unblocked while the list was loading


class BlockLists:
    """The block lists of the players with a table socket open on this process."""

    def __init__(self) -> None:
        self._held: dict[str, _Held] = {}

    async def acquire(self, player_id: str, store: Store) -> set[str]:
        """His block list, loaded if none of his sockets holds it yet: the set itself (shared,
        changed in place). Give it back with :meth:`release` (also when this raises)."""
        held = self._held.get(player_id)
        if held is None:  # in the table before the load: a block made meanwhile is kept
            held = self._held[player_id] = _Held()
            held.users += 1
            try:
                loaded = await store.moderation.blocked_ids(player_id)
                held.ids |= loaded - held.dropped
            finally:
                held.dropped.clear()
                held.loaded.set()
        else:
            held.users += 1
            await held.loaded.wait()
        return held.ids

    def release(self, player_id: str) -> None:
        held = self._held.get(player_id)
        if held is not None:
            held.users -= 1
            if held.users <= 0:
                del self._held[player_id]

    def changed(self, blocker_id: str, blocked_id: str, blocking: bool) -> None:
        """The block API changed a block: the blocker's sockets here know at once."""
        held = self._held.get(blocker_id)
        if held is None:
            return
        if blocking:
            held.ids.add(blocked_id)
            held.dropped.discard(blocked_id)
        else:
            held.ids.discard(blocked_id)
            if not held.loaded.is_set():
                held.dropped.add(blocked_id)

    def __len__(self) -> int:
        return len(self._held)


def blocklists_of(connection: HTTPConnection) -> BlockLists:
    """The block lists of this process (one per app, made at first use)."""
    state = connection.app.state
    lists: BlockLists | None = getattr(state, "blocklists", None)
    if lists is None:
        lists = state.blocklists = BlockLists()
    return lists


async def block_changed(connection: HTTPConnection, blocker_id: str, blocked_id: str,
                        blocking: bool) -> None:
    """The block API changed a block: the blocker's sockets on this process know at once,
    and those on every other process of a cluster as soon as the broadcast arrives (it
    is published before this returns); a
    new block sends the blocked player's spectators away from the blocker's private
    tables, wherever they live."""
    blocklists_of(connection).changed(blocker_id, blocked_id, blocking)
    registry = getattr(connection.app.state, "registry", None)
    if blocking and registry is not None:
        registry.host_blocked(blocker_id, blocked_id)
    cluster = getattr(connection.app.state, "cluster", None)
    if cluster is not None:
        await cluster.block_changed(blocker_id, blocked_id, blocking)


def spectator_sender(number: int, player_id: str | None) -> str:
    """A spectator's chat ``sender``: his connection (the chat's limits count per
    connection) and his player, if the browser has one.

    >>> spectator_sender(7, "p_ann"), spectator_sender(8, None)
    ('spectator:7:p_ann', 'spectator:8')
    """
    return f"spectator:{number}" if player_id is None else f"spectator:{number}:{player_id}"


def author_of(seats: Sequence[SeatRecord], seat: int | None, sender: str) -> str | None:
    """The player who said a chat line: the seat's, or the spectator's of its ``sender``.

    >>> author_of([SeatRecord(0, "Ann", "human", None, "p_ann")], 0, "seat:0")
    'p_ann'
    >>> author_of([], None, "spectator:7:p_bob"), author_of([], None, "spectator:8")
    ('p_bob', None)
    """
    if seat is not None:
        return seats[seat].player_id if 0 <= seat < len(seats) else None
    parts = sender.split(":", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "spectator" and parts[2] else None


async def host_keeps_out(store: Store, private: bool, host_id: str | None,
                         player_id: str | None) -> bool:
    """Whether the host (his player ``host_id``) of a ``private`` table blocks the player
    who wants a seat there."""
    if not private or host_id is None or player_id is None or host_id == player_id:
        return False
    return await store.moderation.blocks(host_id, player_id)
