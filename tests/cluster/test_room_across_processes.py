"""One card room over three real processes (Redis + PostgreSQL, HAProxy in front): what a
table does across processes when nothing fails (src/cardtable/cluster/node.py).

A table is owned by the process that created it; the tests put its players' and
spectators' sockets on the *other* processes, so every frame they send is forwarded over
Redis and every view they get was redacted by the owner and relayed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from cardtable.server.table.replay import rebuild
from cardtable.store import Store
from chat_helpers import say
from cluster_harness import Cluster, unavailable
from db_fixtures import run_async
from table_life_helpers import join_table, new_table, sit, watch

pytestmark = pytest.mark.slow
WAIT = 20.0


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if (why := unavailable()) is not None:
        pytest.skip(why)
    env = {"CARDTABLE_SEAT_GRACE": "1.5", "CARDTABLE_BOT_DELAY": "0"}
    with Cluster(tmp_path_factory.mktemp("room"), processes=3, env=env) as cluster:
        yield cluster


def node(cluster: Cluster, i: int) -> Any:
    """Process ``i`` as the table_life helpers take a server (its own address)."""
    return SimpleNamespace(base_url=cluster.node_url(i), ws_base=cluster.node_ws(i))


def owner_of(cluster: Cluster, table_id: str) -> int:
    """Which process holds the table's lease (its Redis key names the node)."""
    import redis

    with redis.Redis.from_url(cluster.redis_url) as client:
        value = client.get(f"{cluster.redis_prefix}:lease:{table_id}")
    assert value is not None, f"nobody owns {table_id}"
    owner = value.decode().rsplit(":", 1)[0]
    nodes = {cluster.health(i)["node"]: i for i in range(cluster.processes)}
    return nodes[owner]


def replayed_view(cluster: Cluster, table_id: str, seat: int | None,
                  version: int | None = None) -> dict[str, Any]:
    """``view(seat)`` of the table's state replayed from the shared log (up to ``version``)."""
    async def read() -> dict[str, Any]:
        store = await Store.open(cluster.database_url)
        try:
            record = await store.get_table(table_id)
            events = await store.load_events(table_id)
        finally:
            await store.close()
        assert record is not None
        if version is not None:
            events = [e for e in events if e.version <= version]
        return dict(rebuild(record, events).state.view(seat))

    return run_async(read)


def lobby_codes(cluster: Cluster, i: int) -> set[str]:
    entries = httpx.get(f"{cluster.node_url(i)}/api/lobby", timeout=5).json()["tables"]
    return {entry["code"] for entry in entries}


def wait_until(check: Any, what: str, timeout: float = WAIT) -> float:
    """Poll ``check()`` until true: the seconds it took."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.02)
    return time.monotonic() - started


def test_every_process_answers_its_health_and_the_proxy_spreads_requests(room: Cluster) -> None:
    nodes = {room.health(i)["node"] for i in range(3)}
    assert len(nodes) == 3
    seen = set()
    with httpx.Client(timeout=5) as client:
        for _ in range(30):
            seen.add(client.get(f"{room.base_url}/api/health").json()["node"])
    assert seen == nodes


def test_the_lobby_agrees_on_every_process(room: Cluster) -> None:
    """A public table made on one process is listed by the others at once (well within a
    second here), and leaves every list when its last seat is taken elsewhere."""
    grant = new_table(node(room, 0), "gin", opponent="friend", settings={"private": False})
    code = grant["code"]
    waits = [wait_until(lambda i=i: code in lobby_codes(room, i), f"listing on {i}")
             for i in (1, 2)]
    assert max(waits) < 1.0, waits  # the bound, not a timing test of ours
    join_table(node(room, 2), code, "Bob")  # through a process that does not own it
    for i in range(3):
        wait_until(lambda i=i: code not in lobby_codes(room, i), f"unlisting on {i}")


def test_quick_join_and_lookups_by_code_reach_a_table_owned_elsewhere(room: Cluster) -> None:
    grant = new_table(node(room, 0), "spades", opponent="friend", players=4,
                      seats=["human", "bot", "bot"], settings={"private": False})
    assert owner_of(room, grant["table_id"]) == 0
    info = httpx.get(f"{room.node_url(1)}/api/tables/{grant['code']}", timeout=5).json()
    assert info["table_id"] == grant["table_id"] and info["status"] == "waiting"
    wait_until(lambda: grant["code"] in lobby_codes(room, 2), "listing")
    answer = httpx.post(f"{room.node_url(2)}/api/lobby/quick-join",
                        json={"name": "Cy", "game": "spades", "players": 4}, timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.json()["table_id"] == grant["table_id"] and answer.json()["seat"] == 1
    missing = httpx.get(f"{room.node_url(1)}/api/tables/ZZZZZZ", timeout=5)
    assert missing.status_code == 404


async def test_players_and_a_spectator_on_other_processes(room: Cluster) -> None:
    """Host on process 1, guest on process 2, spectator on process 0's neighbour: chat,
    mutes, the host's settings, every move in order for the spectator with nothing hidden
    leaking, a friendly end and a rematch: all through the owner (process 0)."""
    host_grant = new_table(node(room, 0), "gin", opponent="friend",
                           settings={"turn_time": 0}, options={"target": 10})
    table_id = host_grant["table_id"]
    guest_grant = join_table(node(room, 2), host_grant["code"], "Bob")
    host = await sit(node(room, 1), host_grant, "host")
    guest = await sit(node(room, 2), guest_grant, "guest")
    spectator = await watch(node(room, 1), table_id, "Zoe")
    assert owner_of(room, table_id) == 0
    try:
        await say(guest, "hello from process 2", host, spectator)
        await host.send("mute", {"seat": 1, "muted": True})
        await host.until(lambda f: f["t"] == "muted" and f["d"]["seats"] == [1], "the mute")
        await guest.send("chat", {"text": "muted line"})
        await say(guest, "marker", spectator)
        assert not any(f["t"] == "chat" and f["d"]["text"] == "muted line"
                       for f in host.frames), "a muted player's chat reached the host"

        await host.send("settings", {"settings": {"spectators": True, "turn_time": 60}})
        await guest.until(lambda f: f["t"] == "table" and f["d"]["settings"]["turn_time"] == 60,
                          "the host's new settings")

        # Some moves by both players; the spectator sees each version, in order.
        for _ in range(6):
            mover = host if host.view.get("to_act") == host.seat else guest
            await mover.sync()
            legal = mover.view["legal"]
            if not legal:
                break
            answer = await mover.act(legal[0], f"{mover.label}-{mover.version}")
            assert answer["t"] == "view", answer
        final = host.version
        await spectator.until(lambda f: f["t"] == "view" and f["v"] >= final, "the last move")
        versions = [f["v"] for f in spectator.frames if f["t"] == "view"]
        assert versions == sorted(versions), versions
        moves = [v for v in versions if v > versions[0]]
        assert moves == list(range(versions[0] + 1, final + 1)), versions
        # What the spectator was last sent is the owner's redaction of the log's state.
        last = [f for f in spectator.frames if f["t"] == "view"][-1]
        assert last["d"]["view"] == replayed_view(room, table_id, None, last["v"])

        await host.send("end", {"agree": True})
        await guest.until(lambda f: f["t"] == "view"
                          and 0 in (f["d"].get("end_votes") or []), "the host's end vote")
        await guest.send("end", {"agree": True})
        await host.until(lambda f: f["t"] == "view" and f["d"].get("ended"), "the friendly end")
        await host.send("rematch")
        await guest.send("rematch")
        await host.until(lambda f: f["t"] == "view" and not f["d"].get("ended")
                         and f["d"]["view"].get("phase") != "match_over", "the rematch")
    finally:
        for player in (host, guest, spectator):
            await player.close()


async def test_a_socket_process_that_dies_frees_its_seats(room: Cluster) -> None:
    """Kill -9 the process holding a player's socket (not the owner): the owner notices
    the node is gone and the seat shows as disconnected; the player comes back anywhere."""
    grant = new_table(node(room, 0), "gin", opponent="friend", settings={"turn_time": 0})
    guest_grant = join_table(node(room, 0), grant["code"], "Bob")
    host = await sit(node(room, 0), grant, "host")
    await sit(node(room, 2), guest_grant, "guest")  # its socket dies with process 2
    try:
        await host.seats_become(lambda seats: seats[1]["connected"], "the guest connected")
        room.kill(2)
        await host.seats_become(lambda seats: not seats[1]["connected"],
                                "the guest's seat dropped", timeout=WAIT)
        again = await sit(node(room, 1), guest_grant, "guest again")
        await host.seats_become(lambda seats: seats[1]["connected"], "the guest back")
        await again.close()
    finally:
        await host.close()
        room.restart(2)
