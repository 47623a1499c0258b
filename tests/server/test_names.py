"""Names people type (issue 26, point 4): cleaned (NFKC, no bidi control or invisible
character, one space between words), refused when nothing visible is left; no guest sits
under a registered username, whatever its case, homoglyphs or invisible padding (the UTS
#39 skeleton, casefolded: cardtable/names.py); an account sits, and is listed on the
leaderboard and its profile, under its username. On SQLite and PostgreSQL, at a real
server where the seats are concerned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import insert, select

import db_fixtures
from cardtable.client import Client
from cardtable.names import MAX_NAME, clean_name, name_keys
from cardtable.store import Store
from cardtable.store.engine import create_engine
from cardtable.store.migrate import upgrade
from cardtable.store.models import players
from cardtable.store.players import MatchRecord, MatchSeat
from cardtable.store.ratings import ESTABLISHED
from server_harness import PASSWORD, ServerProcess, person, proxied_server

pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url
store = db_fixtures.store
EMPTY = "name: a name needs at least one visible character"


# -- the names themselves -------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "shown"), [
    ("  Ann   Lee ", "Ann Lee"),  # spaces collapsed and trimmed
    ("Ann\tLee\n", "Ann Lee"),  # every kind of space is a space
    ("Ａｎｎ", "Ann"),  # NFKC: full-width letters
    ("ﬁona", "fiona"),  # NFKC: a ligature is its letters
    ("Ann\u202eeeL", "AnneeL"),  # a right-to-left override (it would reverse what follows)
    ("\u2066Ann\u2069 \u200eLee\u200f\u061c", "Ann Lee"),  # isolates, marks
    ("An\u200bn\u200c\u200d\u2060\ufeff", "Ann"),  # zero-width characters
    ("A\u00adnn\U000e0041", "Ann"),  # a soft hyphen, a tag character
    ("\u3164Ann\u115f", "Ann"),  # Hangul fillers draw nothing
    ("Ann\ufe0f\u034f", "Ann"),  # a variation selector, the grapheme joiner
    ("Zoe\u0301", "Zoé"),  # an accent stays, composed
    ("Zo\u200be\u0301", "Zoé"),  # ... even where an invisible character stood between
    ("Ann\u2800\u2800Lee", "Ann Lee"),  # a braille blank is a space
])
def test_a_typed_name_is_cleaned(typed: str, shown: str) -> None:
    assert clean_name(typed) == shown


@pytest.mark.parametrize("typed", ["", "   ", "\u200b" * 10, "\u202e\u2066\u2069",
                                   "\ufeff\u200d \t\n", "\u3164\u115f", "\u2800"])
def test_a_name_of_nothing_visible_is_refused(typed: str) -> None:
    with pytest.raises(ValueError, match="at least one visible character"):
        clean_name(typed)


def test_a_name_too_long_once_cleaned_is_refused() -> None:
    assert clean_name("A" + "\u200b" * 100) == "A"
    with pytest.raises(ValueError, match=f"at most {MAX_NAME}"):
        clean_name("ﷺ" * 2)  # NFKC writes each as 18 characters


@pytest.mark.parametrize("other", [
    "ALICE", "Alice", "\u0410lice",  # case; a Cyrillic A
    "\u0430lic\u0435",  # Cyrillic a and e
    "alice\u200b", "al\u202eice",  # invisible padding
    "ａｌｉｃｅ", "a1ice", "a|ice", "AIice",  # full-width; 1, | and capital I look like l
])
def test_names_that_read_alike_share_a_key(other: str) -> None:
    assert name_keys("alice") & name_keys(other)


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("Zoe", "Zoë"),
                                            ("Ann", "Anna"), ("李", "季")])
def test_names_that_differ_keep_apart(one: str, other: str) -> None:
    assert not name_keys(one) & name_keys(other)


# -- in the store -----------------------------------------------------------------------------


def rated_match(number: int, winner: str, loser: str) -> MatchRecord:
    at = datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=number)
    return MatchRecord(f"t_{number}:0", f"t_{number}", "ABCDEF", "gin", 2, {}, None,
                       {"winner": 0}, [MatchSeat(0, "Typed", "human", winner, 100, True),
                                       MatchSeat(1, "Typed", "human", loser, 20, False)],
                       at, True, [[winner], [loser]], [1, 2])


async def test_the_leaderboard_names_an_account_by_its_username(store: Store) -> None:
    await store.players.create_account("ann", "a" * 64, "Ann_1", "hash")
    await store.players.create_account("bob", "b" * 64, "Bob_1", "hash")
    await store.players.seen("ann", "The name Ann typed last")  # an older server did this
    for number in range(ESTABLISHED):
        await store.players.record_match(rated_match(number, "ann", "bob"))
    board = await store.ratings.board("gin")
    assert [(r.name, r.username) for r in board] == [("Ann_1", "Ann_1"), ("Bob_1", "Bob_1")]


async def test_an_account_is_found_by_any_name_that_reads_as_its_username(
        store: Store) -> None:
    await store.players.create_account("ilona", "i" * 64, "Ilona", "hash")
    await store.players.create(
        "guest", "g" * 64, "Ilona")  # a guest's row is no account: nothing to find
    for alike in ("ILONA", "ilona", "\u0406lona", "llona", "1lona", "Ilona\u200b"):
        assert await store.players.username_like(alike) == "Ilona", alike
    assert await store.players.username_like("Ilonka") is None


async def test_the_migration_keys_the_accounts_that_exist(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        await upgrade(engine, "0008")
        async with engine.begin() as conn:
            now = datetime.now(UTC)
            for at, player_id, username in ((1, "p1", "oscar"), (2, "p2", "0SCAR"),
                                            (3, "p3", "Ilona")):
                await conn.execute(insert(players).values(
                    player_id=player_id, name=username, created_at=now, seen_at=now,
                    username=username, username_key=username.casefold(),
                    password_hash="hash", registered_at=now + timedelta(seconds=at)))
    finally:
        await engine.dispose()
    store = await Store.open(store_url)  # migrates to head
    try:
        async with store.engine.connect() as conn:
            rows = {row.player_id: (row.username_skeleton, row.username_look)
                    for row in await conn.execute(select(players))}
        # "0SCAR" reads as "oscar", registered before it: it keeps only its look.
        assert rows == {"p1": ("oscar", "oscar"), "p2": (None, "oscar"),
                        "p3": ("ilona", "llona")}
        assert await store.players.username_like("0scar") == "oscar"
        assert await store.players.username_like("llona") == "Ilona"
    finally:
        await store.close()


# -- at a real server -------------------------------------------------------------------------


server = proxied_server  # each client from an address of its own


async def seats(client: Client, code: str) -> list[dict[str, Any]]:
    seated: list[dict[str, Any]] = (await client.table_info(code))["seats"]
    return seated


def friend_table(name: str) -> dict[str, Any]:
    return {"game": "gin", "opponent": "friend", "name": name}


async def test_a_name_is_seated_cleaned_and_an_empty_one_is_refused(
        server: ServerProcess) -> None:
    host, guest = await person(server), await person(server)
    try:
        for empty in ("\u200b \u202e\u2066", "\ufeff" * 30, "   "):
            refused = await guest.http.post("/api/tables", json=friend_table(empty))
            assert (refused.status_code, refused.json()["detail"]) == (422, EMPTY)
        seat = await host.create_table("gin", opponent="friend",
                                       name="  Ａnn\u200b \t  Lee\u202e ")
        for empty in ("\u200b", "\u2066\u2069"):
            refused = await guest.http.post(f"/api/tables/{seat.code}/join",
                                            json={"name": empty})
            assert (refused.status_code, refused.json()["detail"]) == (422, EMPTY)
            refused = await guest.http.post("/api/lobby/quick-join",
                                            json={"name": empty, "game": "gin"})
            assert (refused.status_code, refused.json()["detail"]) == (422, EMPTY)
        assert (await guest.http.get("/api/me")).json() is None  # nobody was made
        await guest.join(seat.code, "\u2067Bob\u2069\u200d")
        assert [s["name"] for s in await seats(host, seat.code)] == ["Ann Lee", "Bob"]
    finally:
        await host.aclose()
        await guest.aclose()


async def test_no_guest_sits_under_a_registered_username(server: ServerProcess) -> None:
    tag = server.port
    owner = await person(server, f"alice{tag}")
    guest, friend = await person(server), await person(server)
    try:
        seat = await friend.create_table("gin", opponent="friend", name="Friend",
                                         settings={"private": False})  # in the lobby
        for posing in (f"\u0410lice{tag}", f"ALICE{tag}", f"alice{tag}\u200b",
                       f"al\u202eice{tag}", f"ａｌｉｃｅ{tag}", f"a1ice{tag}", f"AIice{tag}"):
            for path, body in (("/api/tables", friend_table(posing)),
                               (f"/api/tables/{seat.code}/join", {"name": posing}),
                               ("/api/lobby/quick-join", {"name": posing, "game": "gin"})):
                refused = await guest.http.post(path, json=body)
                assert refused.status_code == 409, (posing, path, refused.text)
                detail = refused.json()["detail"]
                assert f"'alice{tag}'" in detail and "sign in" in detail, detail
        assert (await guest.http.get("/api/me")).json() is None  # nobody was made
        assert [s["taken"] for s in await seats(friend, seat.code)] == [True, False]
        # The friend is a guest already: going by the name now is refused just the same.
        again = await friend.http.post("/api/tables", json=friend_table(f"ALICE{tag}"))
        assert again.status_code == 409
        friend_me = (await friend.http.get("/api/me")).json()
        assert friend_me["name"] == "Friend"  # unchanged
        # The owner may sit, under his username; a guest may go by any other name.
        assert (await owner.create_table("gin", opponent="friend", name="x")).seat == 0
        await guest.join(seat.code, f"Alicia{tag}")
        assert [s["name"] for s in await seats(friend, seat.code)] == ["Friend",
                                                                       f"Alicia{tag}"]
    finally:
        for client in (owner, guest, friend):
            await client.aclose()


async def test_an_account_sits_and_is_shown_under_its_username(server: ServerProcess) -> None:
    tag = server.port
    carol = await person(server, f"carol{tag}")
    try:
        seat = await carol.create_table("gin", opponent="friend", name="Someone Else")
        assert (await seats(carol, seat.code))[0]["name"] == f"carol{tag}"
        me = (await carol.http.get("/api/me")).json()
        profile = (await carol.http.get(f"/api/players/{me['player_id']}")).json()
        assert (me["name"], profile["name"], profile["username"]) == (f"carol{tag}",) * 3
    finally:
        await carol.aclose()


async def test_no_account_is_registered_under_a_name_that_reads_as_another(
        server: ServerProcess) -> None:
    tag = server.port
    first = await person(server, f"oscar{tag}")
    other = await person(server)
    try:
        for alike in (f"0scar{tag}", f"OSCAR{tag}", f"ｏｓｃａｒ{tag}"):
            refused = await other.http.post("/api/account/register",
                                            json={"username": alike, "password": PASSWORD})
            assert refused.status_code == 409, (alike, refused.text)
        for given in ("Guest", "GUEST", "Computer", "Spectator"):
            refused = await other.http.post("/api/account/register",
                                            json={"username": given, "password": PASSWORD})
            assert refused.status_code == 422 and "gives to players" in refused.text, given
        # A full-width username is its letters; an invisible character is dropped.
        made = await other.http.post("/api/account/register", json={
            "username": f"ｐａｕｌ\u200b{tag}", "password": PASSWORD})
        assert made.status_code == 200 and made.json()["username"] == f"paul{tag}"
        async with httpx.AsyncClient(base_url=server.base_url) as browser:
            signed = await browser.post("/api/account/login", json={
                "username": f"PAUL{tag}\u2060", "password": PASSWORD})
        assert signed.status_code == 200, signed.text
    finally:
        await first.aclose()
        await other.aclose()
