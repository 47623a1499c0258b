"""A rated result is what the people played (issue 26, point 3). At a rated table a person
away past the seat grace, or whose connection dropped three times in the match, loses it
(ranked last, as a leaver) though he keeps his seat; turns that ran out and were played
for him stay his own; no hints are given; and a player who deletes his account before the
match is recorded is a leaver, so that the others' result still counts.

A real server on SQLite and on PostgreSQL, real sockets; the seat grace is a few seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import pytest

import db_fixtures
from cardtable.bots.gin.normal import choose
from cardtable.client import ActionRefused, Client, Connection, Seat, play, watch
from cardtable.store import Store
from cardtable.store.players import DELETED_NAME, MatchRecord, MatchSeat
from cardtable.store.ratings import Rating, rate
from local_server import LocalServer, eventually
from server_harness import PASSWORD, ServerProcess, person, server_on

pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url
store = db_fixtures.store
GRACE = 3  # seconds a dropped seat is held (CARDTABLE_SEAT_GRACE)
HANG = 120


def fresh_result(ranks: list[int]) -> list[float]:
    """The ratings (rounded as the API shows them) of two newcomers after one match."""
    fresh = [[Rating("a", "gin", 25.0, 25 / 3, 0)], [Rating("b", "gin", 25.0, 25 / 3, 0)]]
    return [round(side[0].display, 2) for side in rate(fresh, ranks)]


WINNER, LOSER = fresh_result([1, 2])


# -- the store: a deleted account is a leaver ----------------------------------------------


async def test_a_deleted_winner_is_ranked_last_and_the_other_still_rated(store: Store) -> None:
    for name in ("ann", "bob"):
        await store.players.create(name, f"{name:0>64}", name.title())
    await store.players.delete("bob")  # after he sat down, before the match is recorded
    match = MatchRecord("t_del:3", "t_del", "ABCDEF", "gin", 2, {}, None, {"winner": 1},
                        [MatchSeat(0, "Ann", "human", "ann", 20, False),
                         MatchSeat(1, "Bob", "human", "bob", 100, True)],
                        datetime(2026, 11, 1, tzinfo=UTC), True, [["ann"], ["bob"]], [2, 1])
    assert await store.players.record_match(match)
    [ann] = await store.ratings.of_player("ann")
    assert ann.matches == 1 and round(ann.display, 2) == WINNER  # ranked above the leaver
    assert await store.ratings.of_player("bob") == []
    [recorded] = await store.players.recent_matches("ann", 1)
    assert recorded.rated
    bob = recorded.seats[1]
    assert (bob.name, bob.player_id, bob.won) == (DELETED_NAME, None, False)


# -- at a real server --------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_on(request, tmp_path_factory, CARDTABLE_TRUSTED_PROXIES="127.0.0.1",
                   CARDTABLE_SEAT_GRACE=str(GRACE), CARDTABLE_TIME_SCALE="0.05") as process:
        yield process


@asynccontextmanager
async def rated_pair(server: ServerProcess | LocalServer, tag: str, **settings: Any
                     ) -> AsyncIterator[tuple[Client, Client, Seat, Seat]]:
    """Ann (host) and Bob seated at a one-deal rated Gin table: the match is dealt. Their
    clients are closed at the end."""
    ann = await person(server, f"ann{tag}{server.port}")
    bob = await person(server, f"bob{tag}{server.port}")
    try:
        seat = await ann.create_table("gin", {"deals": 1}, opponent="friend", name="Ann",
                                      settings={"rated": True, "turn_time": 0, **settings})
        yield ann, bob, seat, await bob.join(seat.code, "Bob")
    finally:
        await ann.aclose()
        await bob.aclose()


async def rating(client: Client) -> float | None:
    me = (await client.http.get("/api/me")).json()
    found = [r["rating"] for r in me["ratings"] if r["game"] == "gin"]
    return found[0] if found else None


async def last_match(client: Client) -> dict[str, Any]:
    recent: dict[str, Any] = (await client.http.get("/api/me")).json()["recent"][0]
    return recent


async def play_out(*conns: Connection) -> None:
    await asyncio.wait_for(asyncio.gather(*(play(c, choose) for c in conns)), HANG)


def bob_seat(conn: Connection) -> dict[str, Any]:
    seat: dict[str, Any] = conn.seats[1]
    return seat


async def drop_until_seen(bob: Connection, ann: Connection, drops: int) -> None:
    """Bob's socket closes; Ann is told his seat dropped (``drops`` times now)."""
    await bob.close()
    await ann.wait_for(lambda c: not bob_seat(c)["connected"]
                       and bob_seat(c)["drops"] == drops, 20)


async def test_away_past_the_grace_loses_the_rated_match_even_after_a_restart(
        server: ServerProcess) -> None:
    async with rated_pair(server, "g") as (ann, bob, seat, other):
        async with ann.connect(seat) as a:
            async with bob.connect(other) as b:
                await a.wait_for(lambda c: bool(c.view) and bob_seat(c)["connected"], 20)
            # Gone past the grace: a computer plays his seat, and he has lost the match.
            await a.wait_for(lambda c: bob_seat(c)["standin"] == "disconnected", 3 * GRACE + 20)
            assert bob_seat(a)["forfeited"] is True and bob_seat(a)["kind"] == "human"
        # The loss is the seat's record: a crash and a restart keep it.
        server.restart()
        async with ann.connect(seat) as a, bob.connect(other) as b:
            assert bob_seat(b)["forfeited"] is True  # he is told when he comes back
            assert a.seats[0]["forfeited"] is False
            await play_out(a, b)  # he may play it out: it is lost whoever wins
        assert (await rating(ann), await rating(bob)) == (WINNER, LOSER)
        match = await last_match(bob)
        # He sat down as "Bob" signed in: he sits under his username (docs/players.md).
        assert match["rated"] and match["seats"][1]["name"] == f"bobg{server.port}"
        assert match["seats"][1]["won"] is False


async def test_three_drops_lose_a_rated_match_and_none_count_at_practice(
        server: ServerProcess) -> None:
    async with rated_pair(server, "d") as (ann, bob, seat, other):
        async with ann.connect(seat) as a:
            for drops in (1, 2, 3):
                b = bob.connect(other)
                await b.open()
                await a.wait_for(lambda c: bool(c.view) and bob_seat(c)["connected"], 20)
                assert bob_seat(a)["forfeited"] is False
                await drop_until_seen(b, a, drops)
            # The third drop loses it at once, within the grace (no computer plays yet).
            assert bob_seat(a)["forfeited"] is True and bob_seat(a)["standin"] is None
            async with bob.connect(other) as b:
                assert bob_seat(b)["forfeited"] is True and bob_seat(b)["drops"] == 3
                await play_out(a, b)
        assert await rating(ann) == WINNER and await rating(bob) == LOSER
        # At a practice table nothing of the kind is counted.
        practice = await ann.create_table("gin", {"deals": 1}, opponent="friend", name="Ann",
                                          settings={"turn_time": 0})
        friend = await bob.join(practice.code, "Bob")
        async with ann.connect(practice) as a:
            b = bob.connect(friend)
            await b.open()
            await a.wait_for(lambda c: bool(c.view) and bob_seat(c)["connected"], 20)
            await b.close()
            await a.wait_for(lambda c: not bob_seat(c)["connected"], 20)
            assert bob_seat(a)["drops"] == 0 and bob_seat(a)["forfeited"] is False


async def test_turns_played_for_a_sleeper_are_his_own(server: ServerProcess) -> None:
    """He stays connected and lets every turn run out (15 s turns last 0.75 s here): the
    server plays them, then a computer stands in; the match is rated as played."""
    async with rated_pair(server, "t", turn_time=15) as (ann, bob, seat, other):
        async with ann.connect(seat) as a, bob.connect(other) as b:
            await a.wait_for(lambda c: bool(c.view), 20)
            await asyncio.wait_for(asyncio.gather(play(a, choose), watch(b)), HANG)
            # The seats frame that counts a timeout follows the view of its move: the
            # match may be over (play returns) before it is read.
            await a.wait_for(lambda c: bob_seat(c)["timeouts"] >= 1, 20)
            assert bob_seat(a)["forfeited"] is False
        match = await last_match(ann)
        assert match["rated"]
        won = [s["won"] for s in match["seats"]]
        ranks = [1, 1] if won == [False, False] else [1 if w else 2 for w in won]
        assert [await rating(ann), await rating(bob)] == fresh_result(ranks)


async def test_no_hints_at_a_rated_table(server: ServerProcess) -> None:
    async with (rated_pair(server, "h") as (ann, bob, seat, other),
                ann.connect(seat) as a, bob.connect(other) as b):
        await a.wait_for(lambda c: bool(c.view), 20)
        asker = a if a.my_turn else b
        await asker.wait_for(lambda c: c.my_turn, 20)
        version = asker.version
        with pytest.raises(ActionRefused) as refused:
            await asker.hint()
        assert refused.value.code == "hints_rated"
        assert "rated table" in refused.value.frame.d["message"]
        assert (await asker.ping()).v == version  # nothing changed
        info = await ann.table_info(seat.code)
        assert info["settings"]["rated"] is True  # what the browser hides its button by


async def test_a_loser_who_deletes_his_account_still_lets_the_winner_win(
        server: ServerProcess) -> None:
    async with rated_pair(server, "x") as (ann, bob, seat, other):
        async with ann.connect(seat) as a, bob.connect(other) as b:
            await a.wait_for(lambda c: bool(c.view), 20)
            gone = await bob.http.post("/api/account/delete", json={"password": PASSWORD})
            assert gone.status_code == 204, gone.text
            await play_out(a, b)  # his seat token still plays; whoever wins, he left
        assert await rating(ann) == WINNER
        match = await last_match(ann)
        assert match["rated"] and match["seats"][1]["name"] == DELETED_NAME
        assert match["seats"][1]["player_id"] is None and match["seats"][1]["won"] is False


# -- eviction keeps the count ------------------------------------------------------------------


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """In this process (to see the table leave memory): idle tables leave after 0.5 s; a
    seat is held 30 s, so no grace runs out meanwhile."""
    server = LocalServer(tmp_path_factory.mktemp("evict"), bot_delay=0.0, seat_grace=30.0,
                         join_limit=100_000, evict_idle=0.5,
                         trusted_proxies=("127.0.0.1/32",)).start()
    try:
        yield server
    finally:
        server.stop()


async def test_the_drops_of_a_rated_match_outlive_an_eviction(local: LocalServer) -> None:
    async with rated_pair(local, "e") as (ann, bob, seat, other):
        a = ann.connect(seat)
        await a.open()
        b = bob.connect(other)
        await b.open()
        await a.wait_for(lambda c: bool(c.view) and bob_seat(c)["connected"], 20)
        await drop_until_seen(b, a, 1)
        async with bob.connect(other):
            await a.wait_for(lambda c: bob_seat(c)["connected"], 20)
            await a.close()  # Bob's second drop, and Ann's first, as everyone goes
        await eventually(lambda: not local.holds(seat.table_id), "the table leaving memory")
        async with ann.connect(seat) as a:  # the table comes back as it was
            assert [s["drops"] for s in a.seats] == [1, 2]
            b = bob.connect(other)
            await b.open()
            await a.wait_for(lambda c: bob_seat(c)["connected"], 20)
            assert bob_seat(a)["forfeited"] is False
            await drop_until_seen(b, a, 3)
            assert bob_seat(a)["forfeited"] is True
