"""Tables leave memory when nobody uses them and come back from the database as they were.

The server runs in this process (``local_server``), so the tests can see whether the
registry holds a table: it evicts a table 0.5 s after its last command with
nobody connected (0.3 s once the match is over). Seats are held for 30 s, so no grace period
runs out meanwhile; a turn of 60 s lasts 3 s (``CARDTABLE_TIME_SCALE=0.05``).
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardtable.server import protocol as p
from cardtable.server.config import ServerConfig
from cardtable.server.connection import Connection
from cardtable.server.registry import Registry, sweep_interval
from cardtable.server.table import Table
from cardtable.store import Store, sqlite_url
from chat_helpers import heard_before, history, say
from local_server import LocalServer, eventually
from table_life_helpers import (
    SCALE,
    Frame,
    Player,
    join_table,
    new_table,
    pick,
    sit,
    table_info,
    turn_ms,
    watch,
)

GIN = {"first_upcard": False}  # the first decision of a deal is a draw from the stock
SLACK_MS = 250  # what a clock may lose between the server starting it and a test reading it


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    server = LocalServer(tmp_path_factory.mktemp("evict"), bot_delay=0.0, seat_grace=30.0,
                         time_scale=SCALE, join_limit=100_000, evict_idle=0.5,
                         evict_finished=0.3).start()
    try:
        yield server
    finally:
        server.stop()


def seat_state(seats: list[Frame]) -> list[tuple[object, ...]]:
    """What a seat shows that eviction must keep (not ``connected``: nobody is)."""
    return [(s["name"], s["kind"], s["standin"], s["reconnect_deadline"], s["timeouts"])
            for s in seats]


async def evicted(local: LocalServer, table_id: str) -> None:
    await eventually(lambda: not local.holds(table_id), "the table leaving memory")


async def close_all(*players: Player) -> None:
    for player in players:
        await player.close()


def test_eviction_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CARDTABLE_EVICT_IDLE", "CARDTABLE_EVICT_FINISHED"):
        monkeypatch.delenv(name, raising=False)
    defaults = ServerConfig.from_env()
    assert (defaults.evict_idle, defaults.evict_finished) == (600.0, 60.0)
    assert sweep_interval(defaults) == 15.0
    monkeypatch.setenv("CARDTABLE_EVICT_IDLE", "0.5")
    monkeypatch.setenv("CARDTABLE_EVICT_FINISHED", "0")  # finished tables stay
    settings = ServerConfig.from_env()
    assert (settings.evict_idle, settings.evict_finished) == (0.5, 0.0)
    assert sweep_interval(settings) == 0.125
    monkeypatch.setenv("CARDTABLE_EVICT_IDLE", "0")
    assert sweep_interval(ServerConfig.from_env()) is None  # nothing ever leaves: no sweeper


async def test_an_idle_table_comes_back_as_it_was(local: LocalServer) -> None:
    grant = new_table(local, "gin", settings={"turn_time": 60}, options=GIN)
    other = join_table(local, grant["code"])
    table_id = grant["table_id"]
    ann, bob = await sit(local, grant, "Ann"), await sit(local, other, "Bob")
    zoe = await watch(local, table_id, "Zoe")
    await bob.send("mute", {"seat": 0, "muted": True})
    await bob.until(lambda f: f["t"] == "muted", "Bob's mute")
    said = [await say(ann, "hello", zoe), await say(bob, "hi", ann, zoe),
            await say(zoe, "psst")]
    mover = ann.view["to_act"]
    acting, waiting = (ann, bob) if mover == 0 else (bob, ann)
    drawn = await acting.act(pick(acting.view, "draw_stock"), "draw")
    assert drawn["t"] == "view"
    await waiting.until(lambda f: f["t"] == "view" and f["v"] == drawn["v"], "the draw")
    views = {name: (await player.sync())["d"]["view"]
             for name, player in (("ann", ann), ("bob", bob), ("zoe", zoe))}
    version = ann.version
    actor = weakref.ref(local.registry._tables[table_id])
    await close_all(bob, ann)
    seats = seat_state(await zoe.seats_become(
        lambda s: not s[0]["connected"] and not s[1]["connected"], "both gone"))
    assert all(deadline is not None for _, _, _, deadline, _ in seats)
    await zoe.close()

    await evicted(local, table_id)
    await eventually(lambda: gc.collect() >= 0 and actor() is None, "the evicted table freed")

    # A spectator's hello brings it back: the same match, seats, deadlines and chat.
    zoe = await watch(local, table_id, "Zoe")
    assert local.holds(table_id)
    assert zoe.version == version and zoe.view == views["zoe"]
    assert seat_state(zoe.seats) == seats
    assert await history(zoe) == said
    # The one to act comes first: a whole turn, as if the table had never left (nobody
    # was there, so no clock ran), and the rest of his turn is his to play.
    grants = {0: (grant, "Ann", "ann"), 1: (other, "Bob", "bob")}
    players = {}
    for seat in (mover, 1 - mover):
        seat_grant, name, key = grants[seat]
        players[seat] = player = await sit(local, seat_grant, name)
        assert player.version == version and player.view == views[key]
    clock = players[mover].clock
    assert clock is not None and clock["seat"] == mover
    assert clock["deadline"] >= clock["now"] + turn_ms(60) - SLACK_MS
    answer = await players[mover].act(pick(players[mover].view, "discard"), "discard")
    assert answer["t"] == "view" and answer["v"] == version + 1
    ann, bob = players[0], players[1]
    assert await history(bob) == [said[1]]  # his mute of Ann holds, in the history too
    assert await history(ann) == said[:2]
    # Bob still does not hear Ann; the others do.
    await say(ann, "can you hear me?", zoe)
    assert await heard_before(bob, "bob's marker") == []
    await close_all(ann, bob, zoe)


async def test_a_finished_table_keeps_its_votes_and_deadlines_and_deals_again(
        local: LocalServer) -> None:
    grant = new_table(local, "gin", settings={"turn_time": 0}, options=GIN)
    other = join_table(local, grant["code"])
    table_id = grant["table_id"]
    ann, bob = await sit(local, grant, "Ann"), await sit(local, other, "Bob")
    zoe = await watch(local, table_id, "Zoe")
    for player in (ann, bob):
        await player.send("end", {"agree": True})
    await ann.until_view(lambda d: d["ended"] == "agreed", "the match ended")
    await ann.send("rematch")
    voted = await ann.until_view(lambda d: d["rematch"] == [0], "Ann's rematch vote")
    version = voted["v"]
    await close_all(bob, ann)
    seats = seat_state(await zoe.seats_become(
        lambda s: not s[0]["connected"] and not s[1]["connected"], "both gone"))
    await zoe.close()
    await evicted(local, table_id)

    # A look at its code brings it back, as it was; then it leaves again.
    info = table_info(local, grant["code"])
    assert local.holds(table_id)
    assert info["status"] == "over" and seat_state(info["seats"]) == seats
    await evicted(local, table_id)

    # Bob comes back: Ann's vote is still there, and his own starts the next match.
    bob = await sit(local, other, "Bob")
    assert bob.version == version
    assert bob.last_view is not None
    assert (bob.last_view["d"]["rematch"], bob.last_view["d"]["ended"]) == ([0], "agreed")
    await bob.send("rematch")
    dealt = await bob.until_view(lambda d: d["ended"] is None, "the new match")
    assert dealt["v"] == version + 1 and dealt["d"]["rematch"] == []
    ann = await sit(local, grant, "Ann")
    assert ann.version == version + 1
    mover = ann.view["to_act"]
    acting = ann if mover == 0 else bob
    for n, kind in enumerate(("draw_stock", "discard")):
        answer = await acting.act(pick(acting.view, kind), f"new-{n}")
        assert answer["t"] == "view" and answer["v"] == version + 2 + n, answer
    await close_all(ann, bob)


async def test_the_lobby_and_joins_bring_tables_back(local: LocalServer) -> None:
    public = new_table(local, "gin", settings={"turn_time": 0, "private": False},
                       options=GIN)  # seat 1 waits for someone
    private = new_table(local, "gin", settings={"turn_time": 0}, options=GIN)
    for grant in (public, private):
        await (await sit(local, grant, "Ann")).close()
        await evicted(local, grant["table_id"])
    lobby = httpx.get(f"{local.base_url}/api/lobby").json()["tables"]
    assert public["code"] in [entry["code"] for entry in lobby]  # listed while evicted
    answer = httpx.post(f"{local.base_url}/api/lobby/quick-join",
                        json={"name": "Carol", "game": "gin", "players": 2})
    assert answer.status_code == 200, answer.text
    carol = answer.json()
    assert (carol["code"], carol["seat"]) == (public["code"], 1)
    assert local.holds(public["table_id"])
    dave = join_table(local, private["code"], "Dave")  # the room code, as an invitee would
    assert dave["seat"] == 1 and local.holds(private["table_id"])
    for grant, newcomer in ((public, carol), (private, dave)):
        player = await sit(local, newcomer, "newcomer")
        assert player.version == 1 and player.dealt  # the join took the last seat: dealt
        assert [s["name"] for s in player.seats] == ["Ann", "Carol" if grant is public
                                                     else "Dave"]
        await player.close()


async def test_timeouts_and_a_taken_back_seat_are_kept(local: LocalServer) -> None:
    """What the log does not say survives eviction: she timed out three times (logged), and
    took her seat back from the computer (not logged)."""
    grant = new_table(local, "spades", players=4, seats=["bot", "bot", "bot"],
                      settings={"turn_time": 15})
    table_id = grant["table_id"]
    ann = await sit(local, grant, "Ann")
    zoe = await watch(local, table_id, "Zoe")
    await ann.seats_become(lambda s: s[0]["standin"] == "timeouts", "her stand-in")
    await ann.send("settings", {"settings": {"turn_time": 60}})  # no more timeouts meanwhile
    await ann.send("resume")
    await ann.seats_become(lambda s: s[0]["standin"] is None, "her seat back")
    await ann.close()
    await zoe.seats_become(lambda s: not s[0]["connected"], "Ann gone")
    # The computers play on to her turn (or the end); then the table rests.
    await zoe.quiet(0.5)  # what was on its way
    if zoe.view["to_act"] not in (0, None):
        await zoe.until_view(lambda d: d["view"]["to_act"] in (0, None), "her turn")
    seats, view, version = seat_state(zoe.seats), zoe.view, zoe.version
    assert seats[0][2] is None and seats[0][4] >= 3
    await zoe.close()
    await evicted(local, table_id)
    zoe = await watch(local, table_id, "Zoe")
    assert (seat_state(zoe.seats), zoe.view, zoe.version) == (seats, view, version)
    ann = await sit(local, grant, "Ann")
    if view["to_act"] == 0:  # her turn, on the clock she chose
        clock = ann.clock
        assert clock is not None and (clock["seat"], clock["turn_time"]) == (0, 60)
        assert clock["deadline"] >= clock["now"] + turn_ms(60) - SLACK_MS
    await close_all(ann, zoe)


# -- racing an eviction, at the registry -------------------------------------------------------


@pytest.fixture
async def registry(tmp_path: Path) -> AsyncIterator[Registry]:
    """A registry of its own whose sweeper never evicts by itself: the tests say when."""
    store = await Store.open(sqlite_url(tmp_path))
    settings = ServerConfig(data_dir=tmp_path, bot_delay=0.0, evict_idle=3600.0,
                        evict_finished=3600.0)
    opened = Registry(store, settings)
    yield opened
    await opened.close()
    await store.close()


def frames_of(conn: Connection) -> list[Frame]:
    """The frames queued for a connection (no socket behind it)."""
    out = []
    while not conn.outbox.empty():
        item = conn.outbox.get_nowait()
        if isinstance(item, str):
            out.append(json.loads(item))
    return out


def hello(token: str) -> p.Hello:
    return p.Hello(t="hello", d=p.HelloData(token=token))


async def idle(table: Table) -> None:
    """Once the actor has handled what its start queued (a table waiting for players looks
    at once whether it can be dealt), and nothing more: its inbox is empty."""
    await table.info()
    assert table.eviction.inbox.empty()


async def evict(registry: Registry, table: Table) -> None:
    def offered() -> bool:
        table.eviction.touched = time.monotonic() - 7200  # long idle (again: a bot moved)
        table.offer_eviction()
        return table.table_id not in registry

    await eventually(offered, "the table leaving memory")
    assert table.evicted


async def test_commands_to_an_evicted_table_reach_it_loaded_again(registry: Registry) -> None:
    table, _, ann_token = await registry.create("gin", {}, "friend", "Ann")
    table_id = table.table_id
    await evict(registry, table)
    # Someone who looked the table up before it left joins now, on the old object.
    seat, token = await table.join("Bob")
    assert seat == 1 and table_id in registry
    again = registry._tables[table_id]
    assert again is not table and again.record.seats[1].name == "Bob"
    # A socket that fetched the table before says hello only now: it lands on the new one,
    # and so does all it sends later.
    conn = Connection(None)  # type: ignore[arg-type]
    assert await table.attach(conn, hello(token)) is None
    assert conn in again.connections and not table.connections
    assert [f["t"] for f in frames_of(conn)][:2] == ["welcome", "view"]
    table.submit(conn, p.Sync(t="sync"))
    assert (await again.info()).seats[1].connected  # the sync was handled before this
    assert [f["t"] for f in frames_of(conn)] == ["view"]
    table.detach(conn)
    await eventually(lambda: not again.connections, "the detach handed on")
    ann = Connection(None)  # type: ignore[arg-type]
    assert await registry._tables[table_id].attach(ann, hello(ann_token)) is None


async def test_a_command_queued_meanwhile_keeps_the_table(registry: Registry) -> None:
    table, _, _ = await registry.create("gin", {}, "friend", "Ann")
    await idle(table)
    table.eviction.touched = time.monotonic() - 7200
    table.offer_eviction()
    assert not table.eviction.inbox.empty()  # offered
    table.detach(Connection(None))  # type: ignore[arg-type]  # behind the eviction offer
    await table.info()
    assert table.table_id in registry and not table.evicted


async def test_a_command_while_the_runtime_is_written_keeps_the_table(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    table, _, _ = await registry.create("gin", {}, "friend", "Ann")
    save = registry.store.update_table
    written: list[dict[str, Any]] = []

    async def update_table(table_id: str, **fields: Any) -> None:
        if "runtime" in fields:
            written.append(fields["runtime"])
            table.detach(Connection(None))  # type: ignore[arg-type]  # someone comes meanwhile
        await save(table_id, **fields)

    monkeypatch.setattr(registry.store, "update_table", update_table)
    await idle(table)
    table.eviction.touched = time.monotonic() - 7200
    table.offer_eviction()
    await eventually(lambda: bool(written), "the runtime written")
    await table.info()
    assert table.table_id in registry and not table.evicted
    assert written[0]["boot"] == registry.boot and written[0]["version"] == 0


async def test_loads_are_shared_and_forgotten(registry: Registry) -> None:
    table, _, _ = await registry.create("gin", {}, "computer", "Ann")
    await evict(registry, table)
    first, second = await asyncio.gather(registry.get(table.table_id),
                                         registry.get(table.table_id))
    assert first is second is registry._tables[table.table_id]
    for n in range(50):  # unknown ids (a socket's URL) leave nothing behind either
        assert await registry.get(f"t_nothing{n}") is None
    await asyncio.sleep(0)
    assert registry._loading == {}


async def test_an_evicted_table_is_freed(registry: Registry) -> None:
    table, _, token = await registry.create("gin", {}, "computer", "Ann")
    conn = Connection(None)  # type: ignore[arg-type]
    assert await table.attach(conn, hello(token)) is None
    table.detach(conn)
    await table.info()
    actor = weakref.ref(table)
    task_name = f"table {table.table_id}"
    await evict(registry, table)
    del table
    await eventually(lambda: gc.collect() >= 0 and actor() is None, "the table freed")
    assert not [task for task in asyncio.all_tasks() if task.get_name() == task_name]
