"""Who is at the table: sitting down, connecting, dropping, coming back, leaving.

A person whose last connection closes keeps the seat for a grace period; then a computer
plays it until the person says hello again with the seat token, from any browser. A
wrong token is refused before anything here runs, so it can neither free, take nor
delay a held seat. Leaving on purpose hands the seat to a computer for good.

Spectators are many and take no seat: at most ``Settings.max_spectators`` at once, and
their comings and goings reach the others as a count (a ``spectators`` frame at most
once per :data:`SPECTATOR_INTERVAL`), never as a ``seats`` frame each.
"""

# mypy: disable-error-code="misc"
# (the mixins annotate self as the Table they are part of, for full checking)
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..store import SeatRecord
from . import protocol as p
from .security import hash_token, new_token, token_matches
from .table_commit import SaveFailed

if TYPE_CHECKING:
    from .connection import Connection
    from .table import Table

COMPUTER_NAME = "Computer"
CLOSE_NO_SPECTATORS = 4005
SPECTATOR_INTERVAL = 1.0  # seconds between spectator counts: a crowd costs one frame a second


@dataclass
class SeatPresence:
    """What the server knows of a seat beyond the record: kept in memory, rebuilt on load."""

    timeouts: int = 0
    misses: int = 0  # consecutive timeouts
    standin: str | None = None  # "disconnected" | "timeouts": a computer plays for the person
    reconnect_deadline: float | None = None  # seconds since the epoch
    mutes: set[int] = field(default_factory=set)  # seats whose chat this seat does not want
    _grace: asyncio.TimerHandle | None = None

    def cancel_grace(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
        self._grace, self.reconnect_deadline = None, None


def host_of(seats: list[SeatRecord]) -> int | None:
    """The seat that sets the table up: the creator's, or when he has left, the next
    person's in seat order."""
    return next((s.seat for s in seats if s.kind == "human" and s.name is not None), None)


class PresenceMixin:
    _watchers_told: int = 0  # the spectator count everyone was last sent
    _watchers_sent_at: float = float("-inf")  # event loop time of that frame
    _watchers_due: asyncio.TimerHandle | None = None  # a count waits to go out

    def _connected(self: Table, seat: int) -> bool:
        return any(c.seat == seat for c in self.connections)

    def _hold_seat(self: Table, seat: int, until: float | None = None) -> None:
        """The seat's person is gone: hold the seat for the grace period (or ``until``
        that deadline, one it had before the table left memory)."""
        presence = self.presence[seat]
        presence.cancel_grace()
        presence.reconnect_deadline = (until if until is not None
                                       else time.time() + self.settings.seat_grace)
        loop = asyncio.get_running_loop()
        presence._grace = loop.call_later(max(0.0, presence.reconnect_deadline - time.time()),
                                          lambda: self._post("grace", seat))

    async def _on_grace(self: Table, command: Any) -> None:
        seat = command.data
        presence = self.presence[seat]
        if presence.reconnect_deadline is None or self._connected(seat):
            return  # he came back in time
        presence.cancel_grace()
        if self.record.seats[seat].kind == "human" and presence.standin is None:
            presence.standin = "disconnected"
        self._seats_changed()
        self._refresh()

    async def _on_join(self: Table, command: Any) -> tuple[int, str] | str:
        name, wanted = command.data
        free = [s for s in self.record.seats if s.kind == "human" and s.name is None
                and wanted in (None, s.seat)]
        if not free:
            if wanted is not None and wanted < len(self.record.seats):
                return "that seat is taken"
            return "the table is full" if wanted is None else "the table has no such seat"
        token = new_token()
        seats = [SeatRecord(s.seat, name, s.kind, hash_token(token))
                 if s.seat == free[0].seat else s for s in self.record.seats]
        await self._save_seats(seats)
        self._hold_seat(free[0].seat)  # until his socket says hello
        self._seats_changed()
        self._refresh()
        return free[0].seat, token

    async def _save_seats(self: Table, seats: list[SeatRecord]) -> None:
        """Save the seats (the row is their only record); SaveFailed if the database does
        not take them, and then nothing changed."""
        status = "waiting" if any(s.name is None for s in seats) else "playing"
        if self.state.is_over() or self.ended:
            status = "over"
        try:
            await self.store.update_table(self.table_id, seats=seats, status=status)
        except Exception as error:
            raise SaveFailed(f"the seats could not be saved: {error!r}") from error
        self.record.seats = seats  # only once it is saved
        self.record.status = status

    async def _on_attach(self: Table, command: Any) -> str | None:
        """Welcome a connection; or the error code that refuses it."""
        conn: Connection = command.conn
        hello: p.Hello = command.frame
        if hello.d.spectate and hello.d.token is None:
            if not self.table_settings.spectators:
                return "no_spectators"
            if self._spectators() >= self.settings.max_spectators:
                return "table_full_spectators"  # a seat token is never refused for this
            conn.seat = None
            conn.name = hello.d.name or f"Spectator {conn.number}"
        else:
            seat = next((s.seat for s in self.record.seats
                         if token_matches(hello.d.token, s.token_hash)), None)
            if seat is None:
                return "bad_token"
            conn.seat = seat
            presence = self.presence[seat]
            conn.muted = presence.mutes  # shared by the seat's connections
            presence.cancel_grace()
            if presence.standin == "disconnected":
                presence.standin = None  # his seat is his again
        self.connections.add(conn)
        welcome = p.WelcomeData(seat=conn.seat, role="spectator" if conn.seat is None
                                else "player", table=self.table_info())
        conn.send(p.frame("welcome", self.version, welcome))
        if conn.seat is None:  # a spectator changes no seat, turn nor clock
            self._snapshot(conn)
            self._send_chat_history(conn)
            self._spectators_changed()
            return None
        self._refresh(exclude=conn)
        self._snapshot(conn)
        self._send_chat_history(conn)
        self._seats_changed()
        return None

    async def _on_detach(self: Table, command: Any) -> None:
        conn = command.conn
        if conn not in self.connections:
            return
        self.connections.discard(conn)
        seat = conn.seat
        if seat is None:
            return self._spectators_changed()
        if self.record.seats[seat].kind == "human" and not self._connected(seat):
            self._hold_seat(seat)
        self._seats_changed()
        self._refresh()

    def _spectators_changed(self: Table) -> None:
        """A spectator came or went: everyone hears the count, the first change at once,
        the rest of a burst together at most one interval later."""
        if self._watchers_due is not None:
            return  # the frame on its way will carry this change too
        loop = asyncio.get_running_loop()
        wait = self._watchers_sent_at + SPECTATOR_INTERVAL - loop.time()
        if wait <= 0:
            self._send_spectators()
        else:  # through the inbox, like every timer: the actor sends it in turn
            self._watchers_due = loop.call_later(wait, self._post, "spectators")

    async def _on_spectators(self: Table, _: Any) -> None:
        self._watchers_due = None
        self._send_spectators()

    def _send_spectators(self: Table) -> None:
        count = self._spectators()
        if count == self._watchers_told:
            return  # came and went within the interval, or a seats frame told it already
        self._watchers_told = count
        self._watchers_sent_at = asyncio.get_running_loop().time()
        text = p.frame("spectators", self.version, p.SpectatorsData(count=count))
        for conn in list(self.connections):
            conn.send(text)

    def _hold_all_seats(self: Table) -> None:
        """A table loaded from the log: nobody is connected yet, every person gets the
        whole grace period from now (the outage is not counted against anyone)."""
        for seat in self.record.seats:
            if seat.kind == "human" and seat.name is not None:
                self._hold_seat(seat.seat)

    # -- on purpose ------------------------------------------------------------------

    async def _resume(self: Table, conn: Connection) -> None:
        if conn.seat is None:
            return self._error(conn, "spectator", "spectators have no seat to take back",
                               snapshot=False)
        presence = self.presence[conn.seat]
        presence.misses = 0
        if presence.standin is not None:
            presence.standin = None
            self._seats_changed()
            self._refresh()

    async def _leave(self: Table, conn: Connection) -> None:
        seat = conn.seat
        if seat is None:
            return self._error(conn, "spectator", "spectators just close the page",
                               snapshot=False)
        was_host = self._host() == seat
        seats = [SeatRecord(s.seat, COMPUTER_NAME, "bot", None) if s.seat == seat else s
                 for s in self.record.seats]
        await self._save_seats(seats)
        self.presence[seat].cancel_grace()
        self.presence[seat].standin = None
        self.rematch_votes.discard(seat)
        self.end_votes.discard(seat)
        for other in [c for c in self.connections if c.seat == seat]:
            self.connections.discard(other)
            other.send(p.frame("left", self.version, {"seat": seat}))
            other.close(1000, "left the table")
        self._seats_changed(table=was_host)  # the table info names the new host
        self._refresh()

    async def _start(self: Table, conn: Connection) -> None:
        if not self._is_host(conn):
            return self._error(conn, "not_host", "only the host can start the table",
                               snapshot=False)
        if self._status() != "waiting":
            return self._error(conn, "not_waiting", "every seat is taken already",
                               snapshot=False)
        seats = [SeatRecord(s.seat, COMPUTER_NAME, "bot", None)
                 if s.kind == "human" and s.name is None else s for s in self.record.seats]
        await self._save_seats(seats)
        self._seats_changed(table=True)
        self._next_turn()
        self._broadcast([], None, None)

    def _host(self: Table) -> int | None:
        return host_of(self.record.seats)

    def _is_host(self: Table, conn: Connection) -> bool:
        return conn.seat is not None and conn.seat == self._host()

    def _close_spectators(self: Table) -> None:
        for conn in [c for c in self.connections if c.seat is None]:
            self.connections.discard(conn)
            conn.send(p.frame("error", self.version, p.ErrorData(
                code="no_spectators", message="the host closed the table to spectators")))
            conn.close(CLOSE_NO_SPECTATORS, "no spectators")
