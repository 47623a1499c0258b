"""Who is at the table: sitting down, connecting, dropping, coming back, leaving.

A person whose last connection closes keeps the seat for a grace period; then a computer
plays it until the person says hello again with the seat token, from any browser. A
wrong token is refused before anything here runs, so it can neither free, take nor
delay a held seat. Leaving on purpose hands the seat to a computer for good.

At a rated table a rated result is what the people played: a person away past the grace
period, or whose connection dropped :data:`DROPS_LOSE` times in the match, loses it as if
he had left (his seat's record says so, ``forfeit``; ``history.leaver`` ranks him
last). He keeps his seat and may play the match out. Turns that ran out and were played
for him are his own moves: they cost him nothing of the kind.

Spectators are many and take no seat: at most ``ServerConfig.max_spectators`` at once,
and their comings and goings reach the others as a count (a ``spectators`` frame at most
once per :data:`SPECTATOR_INTERVAL`), never as a ``seats`` frame each.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...engine import GameState
from ...store import SeatRecord, Store, TableRecord
from .. import protocol as p
from ..codes import CloseCode
from ..config import ServerConfig
from ..connection import Connection
from ..moderation import HOST_REFUSES, host_keeps_out
from ..players import Sitter, address_key
from ..security import hash_token, new_token, token_matches
from .commands import Command, GraceOver, SpectatorCount
from .commit import SaveFailed
from .settings import TableSettings

COMPUTER_NAME = "Computer"
DROPS_LOSE = 3  # a person's connection dropping this often in a rated match loses it
FORFEIT_RETRY = 5.0  # seconds before a forfeit the database did not take is saved again
log = logging.getLogger("cardtable.table")
SPECTATOR_INTERVAL = 1.0  # seconds between spectator counts: a crowd costs one frame a second


@dataclass
class SeatPresence:
    """What the server knows of a seat beyond the record: kept in memory, rebuilt on load."""

    timeouts: int = 0
    misses: int = 0  # consecutive timeouts
    standin: str | None = None  # "disconnected" | "timeouts": a computer plays for the person
    reconnect_deadline: float | None = None  # seconds since the epoch
    mutes: set[int] = field(default_factory=set)  # seats whose chat this seat does not want
    grace: asyncio.TimerHandle | None = None
    drops: int = 0  # at a rated table: his last connection closed this often in the match
    forfeited: bool = False  # at a rated table: he lost this match by being away
    unsaved: bool = False  # forfeited, and the seat's record does not say so yet

    def cancel_grace(self) -> None:
        if self.grace is not None:
            self.grace.cancel()
        self.grace, self.reconnect_deadline = None, None


def host_of(seats: Sequence[SeatRecord]) -> int | None:
    """The seat that sets the table up: the creator's, or when he has left, the next
    person's in seat order."""
    return next((s.seat for s in seats if s.kind == "human" and s.name is not None), None)


def host_player(seats: Sequence[SeatRecord]) -> str | None:
    """The player id of the host seat's person (None while no person sits)."""
    host = host_of(seats)
    return None if host is None else seats[host].player_id


def seat_infos(record: TableRecord, settings: TableSettings, held: Sequence[SeatPresence],
               live: set[int]) -> list[p.SeatInfo]:
    """What everyone may know of the seats: ``live`` are the seats with a connection."""
    out = []
    for s in record.seats:
        presence = held[s.seat]
        deadline = presence.reconnect_deadline
        out.append(p.SeatInfo(
            seat=s.seat, name=s.name, kind=s.kind,  # type: ignore[arg-type]
            taken=s.name is not None, connected=s.kind == "bot" or s.seat in live,
            level=settings.levels[s.seat], standin=presence.standin,  # type: ignore[arg-type]
            reconnect_deadline=None if deadline is None else int(deadline * 1000),
            timeouts=presence.timeouts, drops=presence.drops, forfeited=presence.forfeited,
            player_id=s.player_id if s.kind == "human" and s.name is not None else None,
            registered=s.registered and s.kind == "human" and s.name is not None))
    return out


class PresenceHost(Protocol):
    """What the presence sees of its table."""

    fence: int | None  # the fencing token this process writes the table with
    match_started: int  # the version that started the current match

    @property
    def table_id(self) -> str: ...
    @property
    def record(self) -> TableRecord: ...
    @property
    def state(self) -> GameState | None: ...  # None: not dealt yet
    @property
    def ended(self) -> str | None: ...
    @property
    def version(self) -> int: ...
    @property
    def store(self) -> Store: ...
    @property
    def config(self) -> ServerConfig: ...
    @property
    def table_settings(self) -> TableSettings: ...
    @property
    def connections(self) -> set[Connection]: ...
    @property
    def rematch_votes(self) -> set[int]: ...
    @property
    def end_votes(self) -> set[int]: ...

    def status(self) -> str: ...
    def spectators(self) -> int: ...
    def host(self) -> int | None: ...
    def is_host(self, conn: Connection) -> bool: ...
    def table_info(self) -> p.TableInfo: ...
    def post(self, command: Command) -> None: ...
    def snapshot(self, conn: Connection) -> None: ...
    def error(self, conn: Connection, code: str, message: str, ref: str | None = None,
              snapshot: bool = True) -> None: ...
    def broadcast(self) -> None: ...
    def seats_changed(self, table: bool = False) -> None: ...
    def next_turn(self) -> bool: ...
    def refresh(self, exclude: Connection | None = None) -> None: ...
    def send_chat_history(self, conn: Connection) -> None: ...
    async def deal_when_seated(self) -> None: ...


class Presence:
    """The seats' people and the spectators of one table."""

    def __init__(self, seats: int, mutes: Mapping[str, list[int]] | None = None):
        self.seats = [SeatPresence() for _ in range(seats)]
        for seat, muted in (mutes or {}).items():
            if 0 <= int(seat) < seats:
                self.seats[int(seat)].mutes = set(muted)
        self._watchers_told = 0  # the spectator count everyone was last sent
        self._watchers_sent_at = float("-inf")  # event loop time of that frame
        self._watchers_due: asyncio.TimerHandle | None = None  # a count waits to go out

    def seat_infos(self, record: TableRecord, settings: TableSettings,
                   live: set[int]) -> list[p.SeatInfo]:
        return seat_infos(record, settings, self.seats, live)

    def stop(self) -> None:
        """Cancel every timer (the table is stopping)."""
        for presence in self.seats:
            presence.cancel_grace()
        if self._watchers_due is not None:
            self._watchers_due.cancel()

    def take_counts(self, timeouts: Mapping[int, int], misses: Mapping[int, int]) -> None:
        """The timeouts and missed turns of the current match, as the log has them."""
        for seat, presence in enumerate(self.seats):
            presence.timeouts = timeouts.get(seat, 0)
            presence.misses = misses.get(seat, 0)

    def stand_in_for(self, record: TableRecord, asleep: Iterable[int]) -> None:
        """A computer plays for the people who timed out too often (a table loaded)."""
        for seat in asleep:
            if record.seats[seat].kind == "human":
                self.seats[seat].standin = "timeouts"

    def new_match(self) -> None:
        """A rematch: every timeout is forgiven, and who slept through the last is back."""
        for presence in self.seats:
            presence.timeouts = presence.misses = presence.drops = 0
            presence.forfeited = presence.unsaved = False
            if presence.standin == "timeouts":
                presence.standin = None

    def _connected(self, table: PresenceHost, seat: int) -> bool:
        return any(c.seat == seat for c in table.connections)

    # -- holding seats ------------------------------------------------------------------

    def hold_seat(self, table: PresenceHost, seat: int, until: float | None = None) -> None:
        """The seat's person is gone: hold the seat for the grace period (or ``until``
        that deadline, one it had before the table left memory)."""
        presence = self.seats[seat]
        presence.cancel_grace()
        presence.reconnect_deadline = (until if until is not None
                                       else time.time() + table.config.seat_grace)
        presence.grace = asyncio.get_running_loop().call_later(
            max(0.0, presence.reconnect_deadline - time.time()), table.post, GraceOver(seat))

    def hold_all_seats(self, table: PresenceHost) -> None:
        """A table loaded from the log: nobody is connected yet, every person gets the
        whole grace period from now (the outage is not counted against anyone)."""
        self._note_forfeits(table)
        for seat in table.record.seats:
            if seat.kind == "human" and seat.name is not None:
                self.hold_seat(table, seat.seat)

    async def grace_over(self, table: PresenceHost, seat: int) -> None:
        presence = self.seats[seat]
        await self._save_forfeit(table, seat)  # one the database did not take before
        if presence.reconnect_deadline is None or self._connected(table, seat):
            return  # he came back in time
        presence.cancel_grace()
        if table.record.seats[seat].kind == "human" and presence.standin is None:
            presence.standin = "disconnected"
        if self._rated_match_on(table, seat):
            await self.forfeit(table, seat)  # away past the grace: he loses it
        table.seats_changed()
        table.refresh()

    # -- rated matches: what the people played -------------------------------------------

    def _rated_match_on(self, table: PresenceHost, seat: int) -> bool:
        """A rated match is being played with a person in ``seat`` who has not lost it
        yet: his absences count."""
        record = table.record.seats[seat]
        return table.table_settings.rated and table.status() == "playing" \
            and record.kind == "human" and record.name is not None \
            and not self.seats[seat].forfeited

    async def forfeit(self, table: PresenceHost, seat: int) -> None:
        """He loses this rated match, as if he had left: his seat's record says so (the
        version and his name, as :meth:`leave` writes them). Everyone hears it at once
        (the seat's ``forfeited``), whether the database took it now or takes it later."""
        presence = self.seats[seat]
        presence.forfeited = presence.unsaved = True
        await self._save_forfeit(table, seat)

    async def _save_forfeit(self, table: PresenceHost, seat: int) -> None:
        presence = self.seats[seat]
        if table.record.seats[seat].kind != "human":
            presence.unsaved = False  # he has left for good since: that says it already
        if not presence.unsaved:
            return
        try:
            await self._save_seats(table, [
                dataclasses.replace(s, left=table.version, was=s.name) if s.seat == seat
                else s for s in table.record.seats])
        except SaveFailed as error:  # the seat's next grace timer saves it
            log.warning("table %s: seat %s lost its rated match, not saved yet: %s",
                        table.table_id, seat, error)
            if presence.grace is None:
                presence.grace = asyncio.get_running_loop().call_later(
                    FORFEIT_RETRY, table.post, GraceOver(seat))
            return
        presence.unsaved = False

    def _note_forfeits(self, table: PresenceHost) -> None:
        """A table loaded: who lost the current match by being away, as the seats say."""
        for record, presence in zip(table.record.seats, self.seats, strict=True):
            presence.forfeited = record.kind == "human" and record.left is not None \
                and record.left >= table.match_started

    def runtime(self) -> list[dict[str, Any]]:
        """Per seat what the log does not say (``eviction``)."""
        return [{"standin": held.standin, "reconnect_deadline": held.reconnect_deadline,
                 "timeouts": held.timeouts, "misses": held.misses, "drops": held.drops}
                for held in self.seats]

    def restore_runtime(self, table: PresenceHost, kept: Sequence[dict[str, Any]]) -> bool:
        """Take back :meth:`runtime`; False (and nothing taken) if it is not this table's."""
        if len(kept) != len(self.seats):
            return False
        self._note_forfeits(table)
        for seat, (held, was) in enumerate(zip(self.seats, kept, strict=True)):
            held.standin = was["standin"]
            held.timeouts, held.misses = was["timeouts"], was["misses"]
            held.drops = was.get("drops", 0)
            if was["reconnect_deadline"] is not None:
                self.hold_seat(table, seat, until=was["reconnect_deadline"])
        return True

    # -- sitting down and connecting -----------------------------------------------------

    async def join(self, table: PresenceHost, name: str, wanted: int | None,
                   sitter: Sitter | None = None) -> tuple[int, str] | str:
        seats = table.record.seats
        sitter = sitter or Sitter()
        address = None
        if table.table_settings.rated:
            if not sitter.registered:
                return "sign in to sit at a rated table (an account is free)"
            address = address_key(table.record.fair_key, sitter.address)
            if address is not None and any(s.address == address for s in seats
                                           if s.kind == "human" and s.name is not None):
                return "a rated table takes one player per address"
            if any(s.player_id == sitter.player_id for s in seats if s.kind == "human"):
                return "you have a seat at this table already"
        if await host_keeps_out(table.store, table.table_settings.private,
                                host_player(seats), sitter.player_id):
            return HOST_REFUSES
        free = [s for s in seats if s.kind == "human" and s.name is None
                and wanted in (None, s.seat)]
        if not free:
            if wanted is not None and wanted < len(seats):
                return "that seat is taken"
            return "the table is full" if wanted is None else "the table has no such seat"
        token = new_token()
        await self._save_seats(table, [SeatRecord(s.seat, name, s.kind, hash_token(token),
                                                  sitter.player_id, address,
                                                  registered=sitter.registered)
                                       if s.seat == free[0].seat else s for s in seats])
        self.hold_seat(table, free[0].seat)  # until his socket says hello
        table.seats_changed()
        table.refresh()
        await table.deal_when_seated()  # the last seat taken: the match starts
        return free[0].seat, token

    async def _save_seats(self, table: PresenceHost, seats: list[SeatRecord]) -> None:
        """Save the seats (the row is their only record); SaveFailed if the database does
        not take them, and then nothing changed."""
        status = "waiting" if table.state is None or any(s.name is None for s in seats) \
            else "playing"  # undealt: "playing" once the deal is logged (deal_when_seated)
        if (table.state is not None and table.state.is_over()) or table.ended:
            status = "over"
        try:
            await table.store.update_table(table.table_id, fence=table.fence, seats=seats,
                                           status=status)
        except Exception as error:
            raise SaveFailed(f"the seats could not be saved: {error!r}") from error
        table.record.seats = seats  # only once it is saved
        table.record.status = status

    async def attach(self, table: PresenceHost, conn: Connection,
                     hello: p.Hello) -> str | None:
        """Welcome a connection; or the error code that refuses it."""
        if hello.d.spectate and hello.d.token is None:
            if not table.table_settings.spectators:
                return "no_spectators"
            if table.spectators() >= table.config.max_spectators:
                return "table_full_spectators"  # a seat token is never refused for this
            if await host_keeps_out(table.store, table.table_settings.private,
                                    host_player(table.record.seats), conn.player_id):
                return "host_refuses"  # he may not sit there: nor may he watch
            conn.seat = None
            conn.name = hello.d.name or f"Spectator {conn.number}"
        else:
            seat = next((s.seat for s in table.record.seats
                         if token_matches(hello.d.token, s.token_hash)), None)
            if seat is None:
                return "bad_token"
            conn.seat = seat
            presence = self.seats[seat]
            conn.muted = presence.mutes  # shared by the seat's connections
            presence.cancel_grace()
            if presence.standin == "disconnected":
                presence.standin = None  # his seat is his again
            await self._save_forfeit(table, seat)  # one the database did not take before
        table.connections.add(conn)
        welcome = p.WelcomeData(seat=conn.seat, role="spectator" if conn.seat is None
                                else "player", table=table.table_info())
        conn.send(p.frame("welcome", table.version, welcome))
        if conn.seat is None:  # a spectator changes no seat, turn nor clock
            table.snapshot(conn)
            table.send_chat_history(conn)
            self._spectators_changed(table)
            return None
        table.refresh(exclude=conn)
        table.snapshot(conn)
        table.send_chat_history(conn)
        table.seats_changed()
        return None

    async def detach(self, table: PresenceHost, conn: Connection) -> None:
        if conn not in table.connections:
            return
        table.connections.discard(conn)
        seat = conn.seat
        if seat is None:
            return self._spectators_changed(table)
        if table.record.seats[seat].kind == "human" and not self._connected(table, seat):
            self.hold_seat(table, seat)
            if self._rated_match_on(table, seat):
                self.seats[seat].drops += 1
                if self.seats[seat].drops >= DROPS_LOSE:
                    await self.forfeit(table, seat)
        table.seats_changed()
        table.refresh()

    # -- spectators -------------------------------------------------------------------

    def _spectators_changed(self, table: PresenceHost) -> None:
        """A spectator came or went: everyone hears the count, the first change at once,
        the rest of a burst together at most one interval later."""
        if self._watchers_due is not None:
            return  # the frame on its way will carry this change too
        loop = asyncio.get_running_loop()
        wait = self._watchers_sent_at + SPECTATOR_INTERVAL - loop.time()
        if wait <= 0:
            self.send_spectators(table)
        else:  # through the inbox, like every timer: the actor sends it in turn
            self._watchers_due = loop.call_later(wait, table.post, SpectatorCount())

    def spectators_told(self, count: int) -> None:
        """Everyone was just sent the spectator count (with the seats)."""
        self._watchers_told = count

    def send_spectators(self, table: PresenceHost) -> None:
        self._watchers_due = None
        count = table.spectators()
        if count == self._watchers_told:
            return  # came and went within the interval, or a seats frame told it already
        self._watchers_told = count
        self._watchers_sent_at = asyncio.get_running_loop().time()
        text = p.frame("spectators", table.version, p.SpectatorsData(count=count))
        for conn in list(table.connections):
            conn.send(text)

    def send_away(self, table: PresenceHost, blocker: str, blocked: str) -> None:
        """The host of this private table (``blocker``) blocked ``blocked``: his spectator
        sockets leave, as his hello would now be refused (a seat of his stays his)."""
        if not table.table_settings.private or host_player(table.record.seats) != blocker:
            return
        gone = [c for c in table.connections if c.seat is None and c.player_id == blocked]
        self._send_off(table, gone, "host_refuses", HOST_REFUSES, CloseCode.HOST_REFUSES)
        if gone:
            self._spectators_changed(table)

    def close_spectators(self, table: PresenceHost) -> None:
        self._send_off(table, [c for c in table.connections if c.seat is None], "no_spectators",
                       "the host closed the table to spectators", CloseCode.NO_SPECTATORS)

    @staticmethod
    def _send_off(table: PresenceHost, spectators: Iterable[Connection], code: str,
                  message: str, close_code: CloseCode) -> None:
        """These spectators leave: each hears why (an error frame) and is closed with it."""
        for conn in list(spectators):
            table.connections.discard(conn)
            conn.send(p.frame("error", table.version, p.ErrorData(code=code, message=message)))
            conn.close(close_code, code)

    # -- on purpose ------------------------------------------------------------------

    def resume(self, table: PresenceHost, conn: Connection) -> None:
        if conn.seat is None:
            return table.error(conn, "spectator", "spectators have no seat to take back",
                               snapshot=False)
        presence = self.seats[conn.seat]
        presence.misses = 0
        if presence.standin is not None:
            presence.standin = None
            table.seats_changed()
            table.refresh()

    async def leave(self, table: PresenceHost, conn: Connection) -> None:
        seat = conn.seat
        if seat is None:
            return table.error(conn, "spectator", "spectators just close the page",
                               snapshot=False)
        was_host = table.host() == seat
        # The computer that finishes his match keeps who he was: at a rated table he loses it.
        await self._save_seats(table, [SeatRecord(s.seat, COMPUTER_NAME, "bot", None,
                                                  s.player_id, left=table.version, was=s.name)
                                       if s.seat == seat else s for s in table.record.seats])
        self.seats[seat].cancel_grace()
        self.seats[seat].standin = None
        table.rematch_votes.discard(seat)
        table.end_votes.discard(seat)
        for other in [c for c in table.connections if c.seat == seat]:
            table.connections.discard(other)
            other.send(p.frame("left", table.version, {"seat": seat}))
            other.close(CloseCode.NORMAL, "left the table")
        table.seats_changed(table=was_host)  # the table info names the new host
        table.refresh()

    async def start(self, table: PresenceHost, conn: Connection) -> None:
        if not table.is_host(conn):
            return table.error(conn, "not_host", "only the host can start the table",
                               snapshot=False)
        if table.status() != "waiting":
            return table.error(conn, "not_waiting", "every seat is taken already",
                               snapshot=False)
        await self._save_seats(table, [SeatRecord(s.seat, COMPUTER_NAME, "bot", None)
                                       if s.kind == "human" and s.name is None else s
                                       for s in table.record.seats])
        await table.deal_when_seated()  # first: the table info then says "playing"
        table.seats_changed(table=True)
        table.next_turn()
        table.broadcast()
