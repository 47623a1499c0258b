"""Ratings (issue 17, items 3 and 4): openskill's Plackett-Luce per game, moved only by a
rated match played out by registered players, each from his own address; a friendly end,
a practice table, a computer from the start count nowhere; a player who leaves a rated
match for good loses it. Leaderboards list the established (10 rated matches), best first.
On SQLite and PostgreSQL, at a real server for the table rules."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import db_fixtures
from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Connection, Frame, play
from cardtable.store import Store
from cardtable.store.players import MatchRecord, MatchSeat
from cardtable.store.ratings import ESTABLISHED, Rating, display, rate
from server_harness import ServerProcess, person, proxied_server

pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url
store = db_fixtures.store
HANG = 120


def test_the_winner_rises_the_loser_falls_and_partners_move_together() -> None:
    fresh = [[Rating("a", "gin", 25.0, 25 / 3, 0)], [Rating("b", "gin", 25.0, 25 / 3, 0)]]
    [[a], [b]] = rate(fresh, [1, 2])
    assert a.mu > 25 > b.mu and a.sigma < 25 / 3 and a.matches == b.matches == 1
    assert display(a.mu, a.sigma) == a.display > b.display
    [[x], [y]] = rate(fresh, [1, 1])  # a tie between equals moves no mean
    assert x.mu == pytest.approx(25) and y.mu == pytest.approx(25)
    sides = [[Rating("n", "spades", 25, 8, 3), Rating("s", "spades", 30, 5, 12)],
             [Rating("e", "spades", 25, 8, 0), Rating("w", "spades", 25, 8, 0)]]
    [[n, s], [e, w]] = rate(sides, [1, 2])
    assert n.mu > 25 and s.mu > 30 and e.mu < 25 and w.mu < 25 and s.matches == 13


def rated_match(number: int, winner: str, loser: str, rated: bool = True) -> MatchRecord:
    at = datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=number)
    return MatchRecord(f"t_{number}:0", f"t_{number}", "ABCDEF", "gin", 2, {}, None,
                       {"winner": 0}, [MatchSeat(0, winner, "human", winner, 100, True),
                                       MatchSeat(1, loser, "human", loser, 20, False)],
                       at, rated, [[winner], [loser]] if rated else [], [1, 2] if rated else [])


async def test_rated_matches_move_ratings_once_and_fill_the_board(store: Store) -> None:
    for name in ("ann", "bob", "cid"):
        await store.players.create(name, f"{name:0>64}", name.title())
    await store.players.record_match(rated_match(0, "ann", "bob", rated=False))
    assert await store.ratings.of_player("ann") == []  # practice: no rating
    for number in range(1, ESTABLISHED + 1):
        assert await store.players.record_match(rated_match(number, "ann", "bob"))
    assert not await store.players.record_match(rated_match(1, "ann", "bob"))  # rates once
    await store.players.record_match(rated_match(99, "cid", "bob"))
    [ann] = await store.ratings.of_player("ann")
    [bob] = await store.ratings.of_player("bob")
    assert ann.matches == bob.matches - 1 == ESTABLISHED and not ann.provisional
    assert ann.display > 0 > bob.display
    history = await store.ratings.history("ann", "gin")
    assert len(history) == ESTABLISHED and history[-1][1] == pytest.approx(ann.display)
    assert [v for _, v in history] == sorted(v for _, v in history)  # he won every time
    board = await store.ratings.board("gin")
    assert [(r.rank, r.player_id) for r in board] == [(1, "ann"), (2, "bob")]  # not cid
    assert await store.ratings.rank("bob", "gin") == 2
    assert await store.ratings.rank("cid", "gin") is None  # provisional
    recent = await store.players.recent_matches("ann", 1)
    assert recent[0].rated


# -- at a real server -----------------------------------------------------------------------


server = proxied_server  # each client from an address of its own (one player per address)


async def rating(client: Client, game: str = "gin") -> dict[str, Any] | None:
    me = (await client.http.get("/api/me")).json()
    found = [r for r in me["ratings"] if r["game"] == game]
    return found[0] if found else None


async def play_out(*conns: Connection) -> None:
    await asyncio.wait_for(asyncio.gather(*(play(c, choose) for c in conns)), HANG)


async def test_a_rated_match_moves_both_ratings_and_nothing_else_does(
        server: ServerProcess) -> None:
    tag = server.port
    ann, bob = await person(server, f"ann{tag}"), await person(server, f"bob{tag}")
    guest, twin = await person(server, None), await person(server, f"twin{tag}")
    try:
        # Who may not sit: a guest, a second player from the same address, a computer.
        refused = await guest.http.post("/api/tables", json={
            "game": "gin", "opponent": "friend", "name": "G", "settings": {"rated": True}})
        assert refused.status_code == 422 and "sign in" in refused.json()["detail"]
        refused = await ann.http.post("/api/tables", json={
            "game": "gin", "opponent": "computer", "name": "A", "settings": {"rated": True}})
        assert refused.status_code == 422 and "people only" in refused.json()["detail"]
        seat = await ann.create_table("gin", {"deals": 1}, opponent="friend", name="Ann",
                                      settings={"rated": True})
        info = await ann.table_info(seat.code)
        assert info["settings"]["rated"] is True
        no_guest = await guest.http.post(f"/api/tables/{seat.code}/join", json={"name": "G"})
        assert no_guest.status_code == 409 and "sign in" in no_guest.json()["detail"]
        twin.http.headers["X-Forwarded-For"] = ann.http.headers["X-Forwarded-For"]
        same = await twin.http.post(f"/api/tables/{seat.code}/join", json={"name": "T"})
        assert same.status_code == 409 and same.json()["detail"] == \
            "a rated table takes one player per address"
        other = await bob.join(seat.code, "Bob")

        heard: list[Frame] = []
        async with ann.connect(seat, record=heard) as a, bob.connect(other) as b:
            # The host cannot make a rated table practice (nor the other way) midway.
            await a.send_raw({"t": "settings", "d": {"settings": {"rated": False}}})
            await a.wait_for(lambda c: any(f.t == "error" and f.d.get("code") == "bad_settings"
                                           for f in heard), 10)
            await play_out(a, b)
        first_a, first_b = await rating(ann), await rating(bob)
        assert first_a is not None and first_b is not None
        assert first_a["matches"] == first_b["matches"] == 1 and first_a["provisional"]
        assert first_a["rating"] != first_b["rating"]
        me = (await ann.http.get("/api/me")).json()
        assert me["recent"][0]["rated"] is True
        history = (await ann.http.get(f"/api/players/{me['player_id']}/ratings/gin")).json()
        assert [h["rating"] for h in history] == [first_a["rating"]]

        # A friendly end touches no rating.
        seat2 = await ann.create_table("gin", {"target": 500}, opponent="friend", name="Ann",
                                       settings={"rated": True})
        other2 = await bob.join(seat2.code, "Bob")
        seen: list[Frame] = []
        async with ann.connect(seat2, record=seen) as a, bob.connect(other2) as b:
            await a.wait_for(lambda c: c.view.get("phase") is not None, 10)
            for conn in (a, b):
                await conn.send_raw({"t": "end", "d": {"agree": True}})
            await a.wait_for(lambda c: any(f.t == "view" and f.d.get("ended") == "agreed"
                                           for f in seen), 20)
        await asyncio.sleep(0.5)
        assert await rating(ann) == first_a and await rating(bob) == first_b

        # A player who leaves for good loses: the computer finishes his match.
        seat3 = await ann.create_table("gin", {"deals": 1}, opponent="friend", name="Ann",
                                       settings={"rated": True})
        other3 = await bob.join(seat3.code, "Bob")
        async with ann.connect(seat3) as a, bob.connect(other3) as b:
            await b.wait_for(lambda c: c.view.get("phase") is not None, 10)
            await b.send_raw({"t": "leave", "d": {}})
            await play_out(a)
        after_a, after_b = await rating(ann), await rating(bob)
        assert after_a is not None and after_b is not None
        assert after_a["matches"] == after_b["matches"] == 2
        assert after_a["rating"] > first_a["rating"] and after_b["rating"] < first_b["rating"]
        left = (await bob.http.get("/api/me")).json()["recent"][0]
        # He sat down as "Bob", and is named by his username: he is signed in.
        assert left["code"] == seat3.code and left["seats"][1]["name"] == f"bob{tag}"
        assert left["seats"][1]["won"] is False

        board = (await guest.http.get("/api/leaderboard/gin")).json()
        assert board["established"] == ESTABLISHED and board["you"] is None
        assert all(row["matches"] >= ESTABLISHED for row in board["rows"])
        mine = (await ann.http.get("/api/leaderboard/gin")).json()["you"]
        assert mine["provisional"] is True and mine["rank"] is None
        assert (await guest.http.get("/api/leaderboard/nosuchgame")).status_code == 404
    finally:
        for client in (ann, bob, guest, twin):
            await client.aclose()
