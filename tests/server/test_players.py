"""A guest's lasting identity and his history (store/players.py, server/players.py,
server/table/history.py, routes/players.py), on SQLite and PostgreSQL.

In the store: players by their cookie's hash, matches recorded once however often they are
recorded, a player's recent matches newest first, and counts that a match ended by
agreement does not touch. At a real server: the first table a browser sits at gives it an
HttpOnly, SameSite cookie; a whole match later ``/api/me`` lists that match with both seats,
also after a kill -9; a forged or malformed cookie is nobody, and sitting down with one
makes a new player, never someone else.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import update

import db_fixtures
from cardtable.bots.gin.normal import choose
from cardtable.client import Client, play
from cardtable.server.players import COOKIE, token_hash
from cardtable.server.table.history import seat_scores, winning_seats
from cardtable.store import Store
from cardtable.store.models import sessions
from cardtable.store.players import SESSION_DAYS, MatchRecord, MatchSeat
from server_harness import ServerProcess, server_on

pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url
store = db_fixtures.store
HANG = 120  # seconds: a hang guard, never a measure


def a_match(number: int, ann: str | None, ended: str | None = None, won: bool = True,
            game: str = "gin") -> MatchRecord:
    at = datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=number)
    return MatchRecord(f"t_{number}:0", f"t_{number}", "ABCDEF", game, 2, {"target": 100},
                       ended, None if ended else {"winner": 0},
                       [MatchSeat(0, "Ann", "human", ann, 120, won and not ended,
                                  None if ended else {"hands": 1, "gins": number % 2}),
                        MatchSeat(1, "Computer", "bot", None, 40, False)], at)


async def test_players_and_their_matches_in_the_store(store: Store) -> None:
    ann = await store.players.create("p_ann", token_hash("secret-a"), "Ann")
    assert await store.players.by_token(token_hash("secret-a")) == ann
    assert await store.players.by_token(token_hash("secret-b")) is None
    await store.players.seen(ann.player_id, "Annie")
    assert (await store.players.get("p_ann")).name == "Annie"  # type: ignore[union-attr]

    assert await store.players.record_match(a_match(1, "p_ann"))
    assert not await store.players.record_match(a_match(1, "p_ann"))  # once, however often
    await store.players.record_match(a_match(2, "p_ann", won=False))
    await store.players.record_match(a_match(3, "p_ann", ended="agreed"))
    await store.players.record_match(a_match(4, "p_ann", game="spades"))
    await store.players.record_match(a_match(5, "p_nobody"))  # an id no player has: no link

    # Summed per game over the matches played out (the agreed end brings none).
    assert await store.players.stats("p_ann") == {"gin": {"hands": 2, "gins": 1},
                                                  "spades": {"hands": 1, "gins": 0}}
    recent = await store.players.recent_matches("p_ann")
    assert [m.match_id for m in recent] == ["t_4:0", "t_3:0", "t_2:0", "t_1:0"]
    assert [s.name for s in recent[0].seats] == ["Ann", "Computer"]
    assert recent[1].ended == "agreed" and recent[1].result is None
    assert [m.match_id for m in await store.players.recent_matches("p_ann", 2)] == \
        ["t_4:0", "t_3:0"]
    counts = {c.game: (c.played, c.won) for c in await store.players.counts("p_ann")}
    assert counts == {"gin": (2, 1), "spades": (1, 1)}  # the agreed end counts nowhere
    assert await store.players.recent_matches("p_nobody") == []


async def test_a_session_unused_for_400_days_has_expired(store: Store) -> None:
    await store.players.create("p_old", token_hash("old"), "Olga")
    long_ago = datetime.now(UTC) - timedelta(days=SESSION_DAYS + 1)
    async with store.engine.begin() as conn:
        await conn.execute(update(sessions).values(seen_at=long_ago))
    assert await store.players.by_token(token_hash("old")) is None
    await store.players.seen("p_old", session=token_hash("old"))  # a session in use lives on
    assert (await store.players.by_token(token_hash("old"))) is not None


def test_winners_and_scores_from_every_kind_of_result() -> None:
    solo, pairs = [[0], [1], [2]], [[0, 2], [1, 3]]
    assert winning_seats({"winners": [1]}, solo) == {1}
    assert winning_seats({"winner": 0}, [[0], [1]]) == {0}
    assert winning_seats({"winner": None, "draw": True}, [[0], [1]]) == set()
    assert winning_seats({"winning_seats": [1, 3], "winner": 1}, pairs) == {1, 3}
    assert seat_scores({"scores": [5, 7, 9]}, solo, 3) == [5, 7, 9]
    assert seat_scores({"scores": [-19, 115]}, pairs, 4) == [-19, 115, -19, 115]
    assert seat_scores({}, solo, 3) == [None, None, None]
    assert seat_scores({"scores": [31, 56], "totals": [56, 281]}, [[0], [1]], 2) == [56, 281]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def players_server(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_on(request, tmp_path_factory) as process:
        yield process


async def test_a_guest_keeps_his_history_across_tables_and_a_restart(
        players_server: ServerProcess) -> None:
    async with Client(players_server.base_url, frame_rate=None) as client:
        assert (await client.http.get("/api/me")).json() is None  # not played yet
        seat = await client.create_table("gin", {"deals": 1}, name="Ann")
        cookie = client.http.cookies.get(COOKIE)
        assert cookie is not None and len(cookie) == 43
        async with client.connect(seat) as conn:
            await asyncio.wait_for(play(conn, choose), HANG)
        me = (await client.http.get("/api/me")).json()
        assert me["name"] == "Ann" and me["you"] is True
        assert [(c["game"], c["played"]) for c in me["counts"]] == [("gin", 1)]
        [match] = me["recent"]
        assert match["code"] == seat.code and match["title"] == "Gin Rummy"
        assert [(s["name"], s["kind"]) for s in match["seats"]] == \
            [("Ann", "human"), ("Computer", "bot")]
        assert match["seats"][0]["player_id"] == me["player_id"]
        assert sum(s["won"] for s in match["seats"]) == 1
        [gin] = me["stats"]  # the game's own figures, from the match just played
        assert gin["game"] == "gin" and gin["figures"][0]["label"] == "Hands won"
        assert gin["figures"][0]["percent"] and gin["figures"][0]["value"] in (0.0, 100.0)

        players_server.restart()  # kill -9: the history is in the database

        second = await client.create_table("gin", {"deals": 1}, name="Ann B")
        assert client.http.cookies.get(COOKIE) == cookie  # the same guest
        async with client.connect(second) as conn:
            await asyncio.wait_for(play(conn, choose), HANG)
        me = (await client.http.get("/api/me")).json()
        assert me["name"] == "Ann B"  # the name he goes by now
        assert [m["code"] for m in me["recent"]] == [second.code, seat.code]
        public = (await client.http.get(f"/api/players/{me['player_id']}")).json()
        assert public["recent"] == me["recent"] and public["you"] is True
    async with httpx.AsyncClient(base_url=players_server.base_url) as stranger:
        seen = (await stranger.get(f"/api/players/{me['player_id']}")).json()
        assert seen["name"] == "Ann B" and seen["you"] is False


async def test_the_cookie_is_httponly_samesite_and_a_forged_one_is_nobody(
        players_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=players_server.base_url) as http:
        made = await http.post("/api/tables", json={"game": "gin", "name": "Bob"})
        assert made.status_code == 201
        header = made.headers["set-cookie"].lower()
        assert f"{COOKIE}=" in header and "httponly" in header and "samesite=lax" in header
        assert "max-age=34560000" in header and "path=/" in header
        assert "secure" not in header  # plain HTTP here; Secure behind HTTPS
        bob = (await http.get("/api/me")).json()["player_id"]

    for forged in (secrets.token_urlsafe(32), "not a token", "x" * 5000, ""):
        async with httpx.AsyncClient(base_url=players_server.base_url,
                                     cookies={COOKIE: forged}) as http:
            assert (await http.get("/api/me")).json() is None
            made = await http.post("/api/tables", json={"game": "gin", "name": "Mallory"})
            assert made.status_code == 201
            mallory = (await http.get("/api/me")).json()
            assert mallory["player_id"] != bob and mallory["name"] == "Mallory"
    async with httpx.AsyncClient(base_url=players_server.base_url) as http:
        assert (await http.get("/api/players/nobody")).status_code == 404
        assert (await http.get("/api/players/" + "x" * 100)).status_code == 404
