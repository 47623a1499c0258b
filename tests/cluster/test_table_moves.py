"""A table's timers and its life in memory, across processes (cardtable/cluster): the
owner's turn clock plays for a player whose socket is elsewhere, a dropped player's seat
gets its stand-in after the grace period, and a table that left one process's memory
comes back on whichever process is asked for it next."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import redis

from cluster_harness import Cluster, unavailable
from table_life_helpers import join_table, new_table, sit

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if (why := unavailable()) is not None:
        pytest.skip(why)
    env = {"CARDTABLE_SEAT_GRACE": "1", "CARDTABLE_TIME_SCALE": "0.1",
           "CARDTABLE_EVICT_IDLE": "1", "CARDTABLE_EVICT_FINISHED": "1"}
    with Cluster(tmp_path_factory.mktemp("moves"), processes=2, env=env) as cluster:
        yield cluster


def node(cluster: Cluster, i: int) -> Any:
    return SimpleNamespace(base_url=cluster.node_url(i), ws_base=cluster.node_ws(i))


def lease_holder(cluster: Cluster, table_id: str) -> str | None:
    with redis.Redis.from_url(cluster.redis_url) as client:
        value = client.get(f"{cluster.redis_prefix}:lease:{table_id}")
    return None if value is None else value.decode().rsplit(":", 1)[0]


async def test_the_owners_clock_plays_for_a_player_on_another_process(room: Cluster) -> None:
    """Turn time 30 s scaled to 3 s: the guest (socket on process 1) lets it run out; the
    owner (process 0) plays his automatic move and he sees the timeout."""
    grant = new_table(node(room, 0), "gin", opponent="friend", settings={"turn_time": 30})
    guest_grant = join_table(node(room, 0), grant["code"], "Bob")
    host = await sit(node(room, 0), grant, "host")
    guest = await sit(node(room, 1), guest_grant, "guest")
    try:
        start = guest.version
        mover = guest.view["to_act"]
        # The seat to act lets its clock run out: the owner plays for it, the seat's
        # timeouts count goes up, and the match moved on.
        await guest.seats_become(lambda seats: seats[mover]["timeouts"] >= 1,
                                 "a timeout counted", timeout=30)
        assert any(f["t"] == "view" and f["v"] > start for f in guest.frames)  # the move
    finally:
        await host.close()
        await guest.close()


async def test_a_seat_whose_socket_left_gets_its_stand_in(room: Cluster) -> None:
    grant = new_table(node(room, 0), "gin", opponent="friend", settings={"turn_time": 0})
    guest_grant = join_table(node(room, 0), grant["code"], "Bob")
    host = await sit(node(room, 0), grant, "host")
    guest = await sit(node(room, 1), guest_grant, "guest")
    try:
        await host.seats_become(lambda seats: seats[1]["connected"], "the guest here")
        await guest.close()  # on process 1: the owner hears the goodbye through Redis
        await host.seats_become(lambda seats: seats[1]["standin"] == "disconnected",
                                "the guest's stand-in", timeout=30)
    finally:
        await host.close()


async def test_an_evicted_table_comes_back_on_another_process(room: Cluster) -> None:
    grant = new_table(node(room, 0), "gin", opponent="computer", settings={"turn_time": 0})
    table_id = grant["table_id"]
    assert lease_holder(room, table_id) == room.health(0)["node"]
    deadline = time.monotonic() + 30
    while lease_holder(room, table_id) is not None:  # idle: evicted, lease given back
        assert time.monotonic() < deadline, "the idle table kept its lease"
        time.sleep(0.1)
    player = await sit(node(room, 1), grant, "back")
    try:
        assert lease_holder(room, table_id) == room.health(1)["node"]
        assert player.view["seat"] == 0 and player.view["legal"]  # the match as it was
    finally:
        await player.close()
