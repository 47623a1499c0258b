"""An async Python client of the cardtable protocol (``docs/protocol.md``).

The tests, the server benchmark and anyone's own bot use it.  Plug a bot into
a table in a few lines (``choose`` gets the seat's view and returns one of
``view["legal"]``)::

    import asyncio
    from cardtable.bots.gin.normal import choose
    from cardtable.client import Client, play

    async def main() -> None:
        async with Client("http://127.0.0.1:8000") as client:
            seat = await client.create_table(game="gin", opponent="computer", name="MyBot")
            async with client.connect(seat) as conn:
                await play(conn, choose)
                print(conn.view["result"])

    asyncio.run(main())

To sit at a friend's table instead: ``seat = await client.join("K7PX3M", "MyBot")``.

The parts: :mod:`~cardtable.client.http_api` (:class:`Client`: games, tables, seats),
:mod:`~cardtable.client.connection` (:class:`Connection`: the socket, which reconnects and
resends by itself), :mod:`~cardtable.client.frames` (frames, seats, errors) and
:mod:`~cardtable.client.playing` (:func:`play`, :func:`watch`).
"""

from cardtable.client.connection import Connection, Pace
from cardtable.client.frames import (
    ActionLike,
    ActionRefused,
    Chooser,
    ClientError,
    ConnectionLost,
    Frame,
    RequestRefused,
    Seat,
    View,
    action_json,
    parse_frame,
)
from cardtable.client.http_api import Client
from cardtable.client.playing import play, watch

__all__ = ["ActionLike", "ActionRefused", "Chooser", "Client", "ClientError", "Connection",
           "ConnectionLost", "Frame", "Pace", "RequestRefused", "Seat", "View", "action_json",
           "parse_frame", "play", "watch"]
