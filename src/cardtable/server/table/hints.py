"""Hints: what a strong player would do in the asking seat, and why, in a few words.

A seated player sends ``{"t": "hint", "d": {"id": "h-3"}}`` on his turn; only he is
answered, with one of his legal actions and a reason (``levels.hint``: the ``hard``
computer's move). The hint is worked out from ``state.view(seat)``, what that seat may
see, never from the hidden cards; it is not a move, so nothing is logged and nobody
else hears of it. A host may turn hints off for the table (``TableSettings.hints``); a
rated table gives none at all (a rated result is what the people played).

Every ask gets exactly one answer: the hint, or an error saying why not (hints off,
a rated table, a spectator, no match being played, not your turn).
"""

from __future__ import annotations

import logging
from typing import Protocol

from ...bots import levels
from ...engine import Action, Descriptor, GameState
from .. import protocol as p
from ..connection import Connection
from .settings import TableSettings

log = logging.getLogger("cardtable.table")


class HintHost(Protocol):
    """What the hints see of their table."""

    @property
    def game(self) -> Descriptor: ...
    @property
    def state(self) -> GameState | None: ...  # None: not dealt yet
    @property
    def version(self) -> int: ...
    @property
    def table_settings(self) -> TableSettings: ...

    def status(self) -> str: ...
    def error(self, conn: Connection, code: str, message: str, ref: str | None = None,
              snapshot: bool = True) -> None: ...


def answer_hint(table: HintHost, conn: Connection, ask: p.AskHint) -> None:
    """Send ``conn`` the hint for its seat, or the error that says why there is none."""
    ref = ask.d.id
    seat = conn.seat

    def refuse(code: str, message: str) -> None:
        # Nothing changed: no snapshot to follow (the client is in step).
        table.error(conn, code, message, ref, snapshot=False)

    if seat is None:
        return refuse("spectator", "spectators cannot ask for hints")
    if table.table_settings.rated:
        return refuse("hints_rated", "no hints at a rated table: its result is what the "
                      "players played")
    if not table.table_settings.hints:
        return refuse("hints_off", "hints are off at this table")
    if table.status() != "playing":
        return refuse("not_playing", "hints are given while a match is played")
    state = table.state
    if state is None or state.current_player() != seat:  # (None: "waiting", refused above)
        return refuse("not_your_turn", "it is not your turn")
    view = state.view(seat)
    try:
        action, text = levels.hint(table.game.name, view)
    except Exception:  # advice only: a bot's bug is no failure of the table
        log.exception("table %s: no hint for seat %s", table.game.name, seat)
        return refuse("no_hint", "no hint can be given here")
    if action.to_json() not in view["legal"]:
        # Nor may it tell a player to make a move the table refuses.
        log.error("table %s: the hint %s is not legal", table.game.name, action)
        action = Action.from_json(view["legal"][0])
        text = levels.describe(action)
    conn.send(p.frame("hint", table.version, p.Hint(id=ref, action=action.to_json(),
                                                     text=text)))
