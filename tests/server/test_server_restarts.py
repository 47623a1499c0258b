"""Restart the server under a table of every game, on SQLite and PostgreSQL, and deal on.

For each database one server serves the module. A test opens a table of every game at
once (friend tables: every seat is a client here, playing the game's own bot), plays each
into its second hand (so the replay goes through a logged deal) and stops there, or plays
it to that hand's end (the first move after the restart is the deal; marked slow, it only
moves the restart point), then either ``kill -9``s the server or stops it cleanly
(SIGTERM, and it must exit by itself), and starts it again on the same database. Then:

* every seat, reconnected by the client, gets the version and view it had before;
* each table plays on across at least one new deal: the ``deal`` move is acknowledged,
  the new hand is dealt, and the deal's event in the log carries the deck order it drew;
* the log replays, using only the chance outcomes it recorded, to exactly the views the
  seats hold at the end: nothing was drawn that the log does not have;
* every acknowledged action is in the log exactly once, at the version it was acked at.

Before issue 12 a restarted server could not deal the next hand at any table
(``ValueError: the record has no more chance outcomes``).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import signal
from collections import Counter
from collections.abc import AsyncIterator, Iterator, MutableSequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

import db_fixtures
from cardtable.bots.levels import bot_for
from cardtable.client import ActionRefused, Client, Connection, Frame
from cardtable.engine.api import Action, State
from cardtable.store import EventRecord, TableRecord
from match_log import logged_matches
from server_harness import ServerProcess, stored

pg_database_url = db_fixtures.pg_database_url

# Seats, and options that make a match last many hands (the test needs three).
GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "gin": (2, {"target": 500}),
    "rummy": (3, {"target": 500}),
    "rummy500": (2, {"target": 5000}),
    "romme": (3, {"end": "deals", "deals": 20}),
    "indian": (3, {"preset": "pool201"}),  # 80 points at most a deal: no one is out by the 3rd
    "spades": (4, {"target": 500}),
}
INTO_HAND = 5  # moves into the second hand before the restart
HANG = 120  # seconds: a hang guard for a whole phase of a test, never a measure


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def restart_server(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server per database for the module; each test restarts it and leaves it up."""
    url = request.getfixturevalue("pg_database_url") if request.param == "postgresql" else None
    # Every seat is on 127.0.0.1 and moves at once: lift the join and frame limits.
    env = {"CARDTABLE_JOIN_LIMIT": "100000", "CARDTABLE_FRAME_RATE": "10000"}
    process = ServerProcess(tmp_path_factory.mktemp(request.param) / "data",
                            database_url=url, env=env).start()
    try:
        yield process
    finally:
        process.stop()


class LogOnly:
    """An rng for replaying a log: any draw beyond the recorded outcomes is a failure."""

    def shuffle(self, x: MutableSequence[Any]) -> None:
        raise AssertionError("the log lacks a chance outcome (a deck order)")

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise AssertionError("the log lacks a chance outcome")


def hand_number(view: dict[str, Any]) -> int:
    number = view.get("hand", view.get("deal"))  # Indian Rummy counts deals
    assert isinstance(number, int), view
    return number


@dataclass
class Seated:
    """A friend table of one game, every seat a connection playing the game's bot."""

    game: str
    conns: list[Connection]
    acks: list[tuple[int, Frame]] = field(default_factory=list)  # (seat, ack) of every act
    deals: list[Frame] = field(default_factory=list)  # the acks of deal moves
    since_deal: int = 0  # moves since the last deal

    @property
    def table_id(self) -> str:
        claim = self.conns[0].claim
        assert claim is not None
        return claim.table_id

    @property
    def version(self) -> int:
        return max(conn.version for conn in self.conns)

    def mover(self) -> Connection:
        movers = [conn for conn in self.conns if conn.my_turn]
        assert len(movers) == 1, (self.game, self.conns[0].view.get("phase"))
        return movers[0]

    def dealing_next(self) -> bool:
        return self.mover().view["legal"] == [{"type": "deal"}]

    async def step(self) -> None:
        """One move of the seat to act (its bot's choice), then every seat in step."""
        conn = self.mover()
        assert conn.seat is not None
        action = bot_for(self.game)(conn.view)
        ack = await act(conn, action)
        self.acks.append((conn.seat, ack))
        self.since_deal += 1
        if action.type == "deal":
            self.deals.append(ack)
            self.since_deal = 0
        await self.in_step()

    async def in_step(self) -> None:
        version = self.version
        for conn in self.conns:
            await conn.wait_for(lambda c: c.version >= version, timeout=30)

    async def play_to_hand_over(self, deals: int) -> None:
        """Play until ``deals`` deals are acked and the hand is over: dealing is next."""
        while len(self.deals) < deals or self.since_deal == 0 or not self.dealing_next():
            assert self.conns[0].view.get("phase") != "match_over", self.game
            await self.step()

    async def play_into_hand(self, deals: int, moves: int) -> None:
        """Play until ``deals`` deals are acked and ``moves`` moves into a hand still on."""
        while len(self.deals) < deals or self.since_deal < moves or self.dealing_next():
            assert self.conns[0].view.get("phase") != "match_over", self.game
            await self.step()


async def act(conn: Connection, action: Action) -> Frame:
    """``conn.act``; a ``retry`` answer (the server could not commit yet) is sent again
    with the same id on the same version, as the client itself does."""
    ref, version = secrets.token_hex(6), conn.version
    while True:
        try:
            return await conn.act(action, id=ref, version=version)
        except ActionRefused as refused:
            if refused.code != "retry":
                raise
            await asyncio.sleep(0.1)


@asynccontextmanager
async def tables(server: ServerProcess) -> AsyncIterator[list[Seated]]:
    """A friend table of every game, every seat taken and connected (no turn clock)."""
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            Client(server.base_url, frame_rate=None, timeout=30))

        async def seat(game: str) -> Seated:
            players, options = GAMES[game]
            host = await client.create_table(game, options, opponent="friend", name="Seat 0",
                                             players=players, settings={"turn_time": 0})
            claims = [host] + [await client.join(host.code, f"Seat {n}")
                               for n in range(1, players)]
            conns = [await stack.enter_async_context(client.connect(c, give_up_after=90))
                     for c in claims]
            seated = Seated(game, conns)
            await seated.in_step()
            return seated

        yield list(await asyncio.gather(*(seat(game) for game in GAMES)))


async def snapshot_after_reconnect(conn: Connection) -> Frame:
    """Read on (the client reconnects by itself) until the welcome and its snapshot."""
    while (await conn.recv()).t != "welcome":
        pass
    while (frame := await conn.recv()).t != "view":
        pass
    return frame


def replay_log_only(record: TableRecord, events: list[EventRecord]) -> State:
    """The match from the log, drawing nothing: every deck order must be in the log (its
    start's, when the last seat was taken, and those its moves drew)."""
    matches = logged_matches(record, events)
    assert [m.version for m in matches] == [1] and events[0].kind == "start", "one match"
    assert matches[0].events == matches[0].moves, "moves only"
    return matches[0].replay(record, rng=LogOnly())


def assert_logged_once(events: list[EventRecord], acks: list[tuple[int, Frame]]) -> None:
    """Every acknowledged act is in the log exactly once, at the version it was acked at."""
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    ids = Counter((e.seat, e.cmd_id) for e in events if e.cmd_id is not None)
    assert all(count == 1 for count in ids.values())
    for seat, ack in acks:
        assert ack.ack is not None and ack.v is not None
        assert ids[(seat, ack.ack)] == 1, ack.ack
        assert (events[ack.v - 1].seat, events[ack.v - 1].cmd_id) == (seat, ack.ack)


async def restart(server: ServerProcess, how: str) -> None:
    if how == "kill":
        await asyncio.to_thread(server.kill)
    else:
        # A clean stop: the server shuts down and exits by itself, not killed after the
        # wait (uvicorn ends a graceful shutdown by re-raising the SIGTERM it caught).
        code = await asyncio.to_thread(server.stop, 30)
        assert code in (0, -signal.SIGTERM), server.output()[-3000:]
    await asyncio.to_thread(server.start)


async def check_table(server: ServerProcess, seated: Seated, acks_before: int,
                      hands_before: list[int]) -> None:
    record, events = await stored(server, seated.table_id)
    assert_logged_once(events, seated.acks)
    assert len(events) == seated.version
    dealt_after = [ack for _, ack in seated.acks[acks_before:] if ack in seated.deals]
    assert dealt_after, "no deal after the restart"
    for ack in dealt_after:
        assert ack.v is not None
        deal = events[ack.v - 1]
        assert deal.payload == {"type": "deal"} and deal.chance, (seated.game, deal)
    state = replay_log_only(record, events)
    for conn, hand_before in zip(seated.conns, hands_before, strict=True):
        assert conn.view == json.loads(json.dumps(state.view(conn.seat)))
        assert hand_number(conn.view) > hand_before
        assert conn.reconnects == 1


@pytest.mark.parametrize("at", ["mid_hand", pytest.param("hand_over", marks=pytest.mark.slow)])
@pytest.mark.parametrize("how", ["kill", "stop"])
async def test_every_game_resumes_and_deals_on(restart_server: ServerProcess, how: str,
                                               at: str) -> None:
    """``at``: the restart comes in the middle of the second hand, or when it is over
    and the first move after the restart is the next deal."""
    server = restart_server
    log_from = len(server.output())
    async with tables(server) as seated:
        async with asyncio.timeout(HANG):
            await asyncio.gather(*(t.play_into_hand(deals=1, moves=INTO_HAND)
                                   if at == "mid_hand" else t.play_to_hand_over(deals=1)
                                   for t in seated))
        before = [[(conn.version, conn.view) for conn in t.conns] for t in seated]
        acks_before = [len(t.acks) for t in seated]
        await restart(server, how)
        async with asyncio.timeout(HANG):
            for t, seen in zip(seated, before, strict=True):
                for conn, (version, view) in zip(t.conns, seen, strict=True):
                    snapshot = await snapshot_after_reconnect(conn)
                    assert (snapshot.v, snapshot.d["view"]) == (version, view), t.game
            # On across a new deal, and a few moves into the new hand.
            await asyncio.gather(*(t.play_into_hand(deals=len(t.deals) + 1, moves=2)
                                   for t in seated))
        for t, seen, acked in zip(seated, before, acks_before, strict=True):
            await check_table(server, t, acked, [hand_number(view) for _, view in seen])
    assert "Traceback" not in server.output()[log_from:]
