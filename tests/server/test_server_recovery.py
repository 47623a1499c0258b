"""``kill -9`` the server mid-hand: it resumes exactly, and the clients carry on by themselves.

An action is committed to the log before it is acknowledged, so after a
restart the table is rebuilt at the same version with the same views, every
acknowledged action is in the log exactly once, and an act that was in flight
is re-sent by the client with the same id and applied exactly once.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Connection, Frame, play
from cardtable.store import EventRecord, Store
from server_harness import ServerProcess

OPTIONS = {"target": 500}  # the match outlasts the test


def hand_done(conn: Connection) -> bool:
    return conn.view.get("phase") in ("hand_over", "match_over")


async def deal_on(server: ServerProcess, a: Connection, b: Connection) -> None:
    """From the end of a hand, play the next deal and check it is dealt and logged."""
    server_hand = a.view["hand"]
    dealer = mover(a, b)
    await dealer.act({"type": "deal"})
    await in_step(a, b)
    assert a.view["hand"] == b.view["hand"] == server_hand + 1
    assert a.view["phase"] not in ("hand_over", "match_over")
    # the new deck order is in the log, with the deal that drew it
    events = await log_of(server, table_id(a))
    assert events[-1].payload == {"type": "deal"} and events[-1].chance


def mover(a: Connection, b: Connection) -> Connection:
    return a if a.my_turn else b


@asynccontextmanager
async def friend_table(server: ServerProcess) -> AsyncIterator[tuple[Connection, Connection]]:
    async with Client(server.base_url) as client:
        ann = await client.create_table("gin", OPTIONS, opponent="friend", name="Ann")
        bob = await client.join(ann.code, "Bob")
        async with client.connect(ann) as a, client.connect(bob) as b:
            yield a, b


async def log_of(server: ServerProcess, table_id: str) -> list[EventRecord]:
    store = await Store.open(server.store_url)
    try:
        return await store.load_events(table_id)
    finally:
        await store.close()


async def play_some(a: Connection, b: Connection, count: int) -> list[tuple[int, Frame]]:
    """At least ``count`` normal Gin moves, ending mid-hand; returns (seat, ack frame) of each.

    A quick knock may end a hand early: the next deal is one more move.
    """
    acks = []
    while len(acks) < count or hand_done(a):
        conn = mover(a, b)
        assert conn.seat is not None
        acks.append((conn.seat, await conn.act(choose(conn.view))))
        await in_step(a, b)
    return acks


async def in_step(a: Connection, b: Connection) -> None:
    """Read until both seats have seen the latest version."""
    for conn in (a, b):
        await conn.wait_for(lambda c: c.version == max(a.version, b.version), timeout=10)


async def snapshot_after_reconnect(conn: Connection) -> Frame:
    """Read on (the client reconnects by itself) until the welcome and its snapshot."""
    while (await conn.recv()).t != "welcome":
        pass
    while True:
        frame = await conn.recv()
        if frame.t == "view":
            return frame


def table_id(conn: Connection) -> str:
    assert conn.claim is not None
    return conn.claim.table_id


def assert_logged_once(events: list[EventRecord], acks: list[tuple[int, Frame]]) -> None:
    """Every acknowledged act is in the log exactly once, at the version it was acked at."""
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    ids = Counter((e.seat, e.cmd_id) for e in events if e.cmd_id is not None)
    for seat, ack in acks:
        assert ack.ack is not None and ack.v is not None
        assert ids[(seat, ack.ack)] == 1, ack.ack
        assert (events[ack.v - 1].seat, events[ack.v - 1].cmd_id) == (seat, ack.ack)


async def test_kill_9_mid_hand(server: ServerProcess) -> None:
    async with friend_table(server) as (a, b):
        acks = await play_some(a, b, 9)
        assert len(acks) >= 9 and not hand_done(a)
        before = {0: (a.version, a.view), 1: (b.version, b.view)}
        server.kill()
        await asyncio.to_thread(server.start)
        for seat, conn in ((0, a), (1, b)):
            snapshot = await asyncio.wait_for(snapshot_after_reconnect(conn), 30)
            assert (snapshot.v, snapshot.d["view"]) == before[seat]
            assert conn.reconnects == 1
        assert a.view["scores"] == before[0][1]["scores"]
        assert_logged_once(await log_of(server, table_id(a)), acks)
        # The retry of an act acknowledged before the kill is recognised after it
        # (whatever the retry carries: the id alone decides).
        seat, last = acks[-1]
        conn = a if seat == 0 else b
        assert last.v is not None
        again = await conn.act({"type": "pass"}, id=last.ack, version=last.v - 1)
        assert again.ack == last.ack and again.v == last.v == conn.version
        await asyncio.wait_for(asyncio.gather(play(a, choose, until=hand_done),
                                              play(b, choose, until=hand_done)), 60)
        await b.wait_for(lambda c: c.version == a.version, timeout=10)
        assert a.view["phase"] == b.view["phase"] == "hand_over"
        events = await log_of(server, table_id(a))
        assert len(events) == a.version and events[-1].version == a.version
        await deal_on(server, a, b)


async def in_flight(server: ServerProcess, *, frozen: bool) -> None:
    """Send an act, kill -9 the server before the client reads its answer, restart.

    ``frozen``: the server is stopped (SIGSTOP) before the act is sent, so it
    certainly has not applied it when it dies; otherwise it races the kill.
    """
    async with friend_table(server) as (a, b):
        await play_some(a, b, 3)
        conn = mover(a, b)
        other = b if conn is a else a
        before = conn.version
        assert server.process is not None
        if frozen:
            server.process.send_signal(signal.SIGSTOP)
        action = choose(conn.view)
        acting = asyncio.create_task(conn.act(action, id="in-flight", timeout=60))
        await asyncio.sleep(0.05 if frozen else 0.001)  # the frame leaves the client
        if frozen:  # racing, the answer may already be in
            assert not acting.done()
        await asyncio.to_thread(server.kill)
        await asyncio.to_thread(server.start)
        answer = await acting
        assert answer.ack == "in-flight" and answer.v == before + 1
        # Racing, the ack may have arrived before the kill: then the client
        # reads it first and reconnects on its next read instead.
        assert conn.reconnects == 1 if frozen else conn.reconnects <= 1
        await other.wait_for(lambda c: c.version == before + 1, timeout=30)
        events = await log_of(server, table_id(a))
        assert [e.cmd_id for e in events].count("in-flight") == 1
        assert len(events) == before + 1 and events[-1].payload == action.to_json()
        await asyncio.wait_for(asyncio.gather(play(a, choose, until=hand_done),
                                              play(b, choose, until=hand_done)), 60)
        assert a.view["phase"] == "hand_over"
        await b.wait_for(lambda c: c.version == a.version, timeout=10)
        await deal_on(server, a, b)
        # racing, a connection that read everything before the kill may notice it later
        assert a.reconnects == b.reconnects == 1 if frozen else a.reconnects + b.reconnects >= 1


async def test_kill_9_with_an_act_in_flight(server: ServerProcess) -> None:
    await in_flight(server, frozen=True)


async def test_kill_9_racing_an_act(server: ServerProcess) -> None:
    await in_flight(server, frozen=False)
