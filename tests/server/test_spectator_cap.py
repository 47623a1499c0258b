"""Spectators are bounded and quiet, against real servers.

A table takes at most ``CARDTABLE_MAX_SPECTATORS`` spectators (3 on the capped server
here); the next is refused with ``table_full_spectators`` and close 4006, while people
with a seat token always get in. Spectators coming and going reach everyone as a count in
a ``spectators`` frame, at most one per ``SPECTATOR_INTERVAL``, never as ``seats`` frames.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from cardtable.server.config import ServerConfig
from cardtable.server.table.presence import SPECTATOR_INTERVAL
from server_harness import ServerProcess
from table_life_helpers import (
    Frame,
    Player,
    join_table,
    new_table,
    refused,
    sit,
    table_info,
    watch,
)

CAP = 3
CROWD = 50
QUIET = {"turn_time": 0}


def serve(tmp_path_factory: pytest.TempPathFactory, name: str,
          **env: str) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp(name) / "data",
                            env={"CARDTABLE_JOIN_LIMIT": "100000", **env}).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from serve(tmp_path_factory, "capped", CARDTABLE_MAX_SPECTATORS=str(CAP))


@pytest.fixture(scope="module")
def roomy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The default cap (200)."""
    yield from serve(tmp_path_factory, "roomy")


def test_the_default_cap_is_200(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARDTABLE_MAX_SPECTATORS", raising=False)
    assert ServerConfig.from_env().max_spectators == ServerConfig().max_spectators == 200
    monkeypatch.setenv("CARDTABLE_MAX_SPECTATORS", "7")
    assert ServerConfig.from_env().max_spectators == 7


async def test_a_full_table_refuses_spectators_but_never_players(
        capped: ServerProcess) -> None:
    grant = new_table(capped, settings=QUIET)  # seat 1 waits for Bob
    ann = await sit(capped, grant, "Ann")
    watchers = [await watch(capped, grant["table_id"], f"W{n}") for n in range(CAP)]
    await ann.watching(CAP, "the table full of spectators")
    assert await refused(capped, grant["table_id"], {"spectate": True, "name": "Extra"}) == \
        ("table_full_spectators", 4006)
    assert table_info(capped, grant["code"])["spectators"] == CAP
    # People with a seat are never counted against the cap: a new one, and a second tab.
    bob = await sit(capped, join_table(capped, grant["code"]), "Bob")
    ann_again = await sit(capped, grant, "Ann's second tab")
    assert bob.spectators == ann_again.spectators == CAP
    # A spectator leaves: a place is free again.
    await watchers.pop().close()
    await ann.watching(CAP - 1, "a spectator gone")
    watchers.append(await watch(capped, grant["table_id"], "Next"))
    await ann.watching(CAP, "the new spectator")
    for player in (*watchers, ann, bob, ann_again):
        await player.close()


def seats_frames_with_spectators(player: Player) -> list[Frame]:
    return [f for f in player.frames if f["t"] == "seats" and f["d"]["spectators"] > 0]


async def test_a_crowd_is_a_count_not_a_stream_of_seats_frames(roomy: ServerProcess) -> None:
    grant = new_table(roomy, "gin", opponent="computer", settings=QUIET)
    ann = await sit(roomy, grant, "Ann")
    await ann.quiet(0.2)  # her own arrival's frames
    before = len(ann.frames)
    started = time.monotonic()
    crowd = await asyncio.gather(*(watch(roomy, grant["table_id"], f"S{n}")
                                   for n in range(CROWD)))
    await ann.watching(CROWD, f"{CROWD} watching")
    elapsed = time.monotonic() - started
    arrived = ann.frames[before:]
    counts = [f["d"]["count"] for f in arrived if f["t"] == "spectators"]
    assert not [f for f in arrived if f["t"] == "seats"]
    # one at once, then at most one per interval while they keep coming
    assert 1 <= len(counts) <= 2 + elapsed / SPECTATOR_INTERVAL, (counts, elapsed)
    assert len(counts) < CROWD and counts[-1] == CROWD and counts == sorted(counts)
    assert table_info(roomy, grant["code"])["spectators"] == CROWD
    assert crowd[-1].spectators is not None and crowd[-1].spectators >= 1
    # the spectators themselves hear the count too
    await crowd[0].watching(CROWD, "the crowd's own count")

    before, started = len(ann.frames), time.monotonic()
    await asyncio.gather(*(spectator.close() for spectator in crowd))
    await ann.watching(0, "everyone gone")
    elapsed = time.monotonic() - started
    gone = [f for f in ann.frames[before:] if f["t"] in ("spectators", "seats")]
    assert all(f["t"] == "spectators" for f in gone)
    assert 1 <= len(gone) <= 2 + elapsed / SPECTATOR_INTERVAL, (gone, elapsed)
    assert not seats_frames_with_spectators(ann)
    await ann.close()


async def test_a_seats_frame_carries_the_count_and_nothing_is_sent_twice(
        roomy: ServerProcess) -> None:
    """A spectator comes, then a player: the seats frame counts the spectator, and the
    count is not sent again on its own afterwards."""
    grant = new_table(roomy, settings=QUIET)
    ann = await sit(roomy, grant, "Ann")
    zoe = await watch(roomy, grant["table_id"], "Zoe")
    await ann.watching(1)
    bob = await sit(roomy, join_table(roomy, grant["code"]), "Bob")
    seats = await ann.until_seats(lambda s: s[1]["connected"], "Bob connected")
    assert seats["d"]["spectators"] == 1 and bob.spectators == 1
    late = await ann.quiet(SPECTATOR_INTERVAL * 1.5)
    assert not [f for f in late if f["t"] == "spectators"]  # nothing changed: no frame
    for player in (zoe, ann, bob):
        await player.close()
