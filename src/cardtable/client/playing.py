"""Loops that drive a :class:`~cardtable.client.connection.Connection`: a bot playing
its seat, or a spectator following the table."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable

from cardtable.client.connection import Connection
from cardtable.client.frames import ActionRefused, Chooser


async def play(conn: Connection, choose: Chooser, *,
               until: Callable[[Connection], bool] | None = None,
               max_actions: int | None = None) -> int:
    """Play for ``conn``'s seat until the match is over or ``until(conn)``; returns actions.

    Whenever the latest view offers this seat legal actions, ``choose(view)``
    (plain or async) picks one.  A ``stale`` or ``not_your_turn`` refusal just
    means the table moved on (a timer, a reconnect), and ``retry`` (after the
    resends :meth:`Connection.act` made) or ``internal`` that the server could
    not handle the move: the loop waits a moment and looks again.
    """
    played = 0
    while conn.view.get("phase") != "match_over" and not (until and until(conn)):
        if max_actions is not None and played >= max_actions:
            break
        if not conn.my_turn:
            await conn.recv()
            continue
        choice = choose(conn.view)
        if inspect.isawaitable(choice):
            choice = await choice
        try:
            await conn.act(choice)
        except ActionRefused as refused:
            if refused.code in ("retry", "internal"):
                await asyncio.sleep(1.0)  # the database hiccuped: give it a moment
            elif refused.code not in ("stale", "not_your_turn"):
                raise
        else:
            played += 1
    return played


async def watch(conn: Connection, until: Callable[[Connection], bool] | None = None) -> None:
    """Follow a table without acting (a spectator) until the match is over or ``until(conn)``."""
    while conn.view.get("phase") != "match_over" and not (until and until(conn)):
        await conn.recv()
