"""Accounts at a real server, on SQLite and PostgreSQL (issue 17, item 2; issue 26, item
4): a guest who registers keeps his history; sign in and out, sessions rotated; change
the password (every other session ends); delete the account and its personal data. And
the bad input: taken usernames in any case, weak passwords (zxcvbn's and the common
list's), brute force (per account and address, per account, per address, per known
browser: strangers never lock the owner out of his browsers), registrations per address,
dead and forged session cookies, markup in a username.

The server trusts 127.0.0.1 as a proxy, so each test speaks from addresses of its own
(``X-Forwarded-For``) and the per-address limit is tested on the real path."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import pytest

import db_fixtures
from cardtable.bots.gin.normal import choose
from cardtable.client import Client, play
from cardtable.server.accounts import (
    REGISTERS_PER_ADDRESS,
    TRIES_PER_ACCOUNT,
    TRIES_PER_ACCOUNT_ADDRESS,
    TRIES_PER_ADDRESS,
    TRIES_PER_DEVICE,
)
from cardtable.server.devices import COOKIE as DEVICE_COOKIE
from cardtable.server.players import COOKIE
from cardtable.store.players import DELETED_NAME
from server_harness import ServerProcess, proxied_server

pg_database_url = db_fixtures.pg_database_url
HANG = 120
GOOD = "correct horse battery"
_addresses = itertools.count(1)


server = proxied_server  # each test speaks from addresses of its own


def browser(server: ServerProcess, address: str | None = None) -> httpx.AsyncClient:
    """A browser of its own (its own cookies), from an address of its own."""
    address = address or f"203.0.113.{next(_addresses)}"
    return httpx.AsyncClient(base_url=server.base_url, headers={"X-Forwarded-For": address},
                             timeout=HANG)  # tries wait their turn at the two hash workers


async def test_a_guest_registers_and_keeps_his_history(server: ServerProcess) -> None:
    async with Client(server.base_url, frame_rate=None) as client:
        seat = await client.create_table("gin", {"deals": 1}, name="Guest")
        async with client.connect(seat) as conn:
            await asyncio.wait_for(play(conn, choose), HANG)
        guest = (await client.http.get("/api/me")).json()
        cookie = client.http.cookies.get(COOKIE)
        made = await client.http.post("/api/account/register",
                                      json={"username": "Annie", "password": GOOD})
        assert made.status_code == 200, made.text
        assert made.json() == {"player_id": guest["player_id"], "name": "Annie",
                               "username": "Annie"}
        assert client.http.cookies.get(COOKIE) not in (None, cookie)  # rotated
        me = (await client.http.get("/api/me")).json()
        assert me["username"] == "Annie" and me["recent"] == guest["recent"]
        again = await client.http.post("/api/account/register",
                                       json={"username": "Other", "password": GOOD})
        assert again.status_code == 409 and "sign out first" in again.json()["detail"]
    async with browser(server) as old:  # the cookie from before the rotation is dead
        old.cookies.set(COOKIE, cookie or "")
        assert (await old.get("/api/me")).json() is None


@pytest.mark.parametrize(("username", "password", "why"), [
    ("Bo", GOOD, "3 to 24"),
    ("<script>x</script>", GOOD, "3 to 24"),
    ("Zed", "short1", "at least 10"),
    ("Zed", "password123", "most common"),
    ("Zed", "Qwertyuiop", "most common"),
    ("Zedekiah", "zedekiah-rules-ok", "must not contain the username"),
    ("Zed", "x" * 300, "at most 256"),
    ("Zed", "aaaaaaaaaa", 'too easy to guess. Repeats like "aaa" are easy to guess.'),
    ("Zed", " " * 10, "too easy to guess"),
    ("Zed", "\u200b" * 10, "too easy to guess"),
    ("Zed", "0000000000", "too easy to guess"),
    ("Zed", "guess guess guess", "Avoid repeated words and characters."),
    ("Zed", "qwertyuiopasdf", "too easy to guess"),
])
async def test_bad_usernames_and_weak_passwords_are_refused(
        server: ServerProcess, username: str, password: str, why: str) -> None:
    async with browser(server) as http:
        answer = await http.post("/api/account/register",
                                 json={"username": username, "password": password})
        assert answer.status_code == 422 and why in str(answer.json()["detail"])
        assert (await http.get("/api/me")).json() is None  # nothing was made


async def test_a_username_is_taken_in_any_case(server: ServerProcess) -> None:
    async with browser(server) as first, browser(server) as second:
        assert (await first.post("/api/account/register",
                                 json={"username": "Carol", "password": GOOD})).status_code == 200
        for name in ("carol", "CAROL", "cArOl"):
            taken = await second.post("/api/account/register",
                                      json={"username": name, "password": GOOD})
            assert taken.status_code == 409 and taken.json()["detail"] == "that username is taken"
            assert (await second.get("/api/me")).json() is None  # nothing was made


async def test_registrations_are_limited_per_address_taken_names_too(
        server: ServerProcess) -> None:
    address = f"198.51.100.{next(_addresses)}"
    async with browser(server) as first:
        assert (await first.post("/api/account/register", json={
            "username": "Gail", "password": GOOD})).status_code == 200
    answers = []
    for i in range(REGISTERS_PER_ADDRESS):  # a name prober, then a weak password
        async with browser(server, address) as prober:
            body = {"username": "gail", "password": GOOD} if i % 2 else \
                {"username": f"gail{i}", "password": "0000000000"}
            answers.append((await prober.post("/api/account/register", json=body)).status_code)
    assert answers == [422, 409] * (REGISTERS_PER_ADDRESS // 2)
    async with browser(server, address) as late:
        refused = await late.post("/api/account/register",
                                  json={"username": "Gail_Two", "password": GOOD})
        assert refused.status_code == 429 and "too many new accounts" in refused.json()["detail"]
        assert (await late.get("/api/me")).json() is None
    async with browser(server) as elsewhere:  # another address registers on
        assert (await elsewhere.post("/api/account/register", json={
            "username": "Gail_Two", "password": GOOD})).status_code == 200


async def test_sign_in_out_and_the_password_changes(server: ServerProcess) -> None:
    async with browser(server) as laptop, browser(server) as phone:
        assert (await laptop.post("/api/account/register",
                                  json={"username": "dave", "password": GOOD})).status_code == 200
        wrong = await phone.post("/api/account/login", json={"username": "DAVE",
                                                             "password": GOOD + "!"})
        assert wrong.status_code == 401 and wrong.json()["detail"] == "wrong username or password"
        nobody = await phone.post("/api/account/login", json={"username": "nobody-here",
                                                              "password": GOOD})
        assert nobody.status_code == 401 and nobody.json() == wrong.json()  # same words
        assert (await phone.post("/api/account/login",
                                 json={"username": "DAVE", "password": GOOD})).status_code == 200
        assert (await phone.get("/api/me")).json()["username"] == "dave"
        assert (await laptop.get("/api/me")).json()["username"] == "dave"  # both signed in

        bad = await laptop.post("/api/account/password",
                                json={"password": "not it at all", "new_password": GOOD + "2"})
        assert bad.status_code == 401
        weak = await laptop.post("/api/account/password",
                                 json={"password": GOOD, "new_password": "password1"})
        assert weak.status_code == 422
        changed = await laptop.post("/api/account/password",
                                    json={"password": GOOD, "new_password": "a much newer one"})
        assert changed.status_code == 200
        assert (await laptop.get("/api/me")).json()["username"] == "dave"
        assert (await phone.get("/api/me")).json() is None  # signed out everywhere else
        assert (await phone.post("/api/account/login", json={
            "username": "dave", "password": GOOD})).status_code == 401
        out = await laptop.post("/api/account/logout")
        assert out.status_code == 204 and COOKIE not in laptop.cookies
        assert (await laptop.get("/api/me")).json() is None
        assert (await laptop.post("/api/account/login", json={
            "username": "dave", "password": "a much newer one"})).status_code == 200


async def wrong_tries(server: ServerProcess, username: str, count: int,
                     address: str | None = None) -> list[int]:
    """``count`` wrong passwords at ``username``, at once, each from a new browser (from
    ``address``, or a new address for every :data:`TRIES_PER_ACCOUNT_ADDRESS`)."""
    async def one(at: str) -> int:
        async with browser(server, at) as stranger:
            return (await stranger.post("/api/account/login", json={
                "username": username, "password": "guess guess guess"})).status_code
    addresses = [address or f"203.0.113.{next(_addresses)}"
                 for _ in range(0, count, TRIES_PER_ACCOUNT_ADDRESS)]
    return list(await asyncio.gather(*(
        one(addresses[i // TRIES_PER_ACCOUNT_ADDRESS]) for i in range(count))))


async def test_strangers_lock_out_strangers_but_never_the_owners_browsers(
        server: ServerProcess) -> None:
    async with browser(server) as laptop:
        assert (await laptop.post("/api/account/register",
                                  json={"username": "erin", "password": GOOD})).status_code == 200
        device = laptop.cookies.get(DEVICE_COOKIE)
        assert device and "erin" not in device
        again = await laptop.post("/api/account/login", json={"username": "erin",
                                                              "password": GOOD})
        [made] = [c for c in again.headers.get_list("set-cookie")
                  if c.startswith(DEVICE_COOKIE + "=")]
        assert {"httponly", "path=/api/account", "samesite=strict"} <= {
            part.strip() for part in made.lower().split(";")}
        assert (await laptop.post("/api/account/logout")).status_code == 204
        assert laptop.cookies.get(DEVICE_COOKIE) is not None  # signed out, still known

        # Per account and address: one address runs out; another still may try.
        near = f"203.0.113.{next(_addresses)}"
        spent = await wrong_tries(server, "erin", TRIES_PER_ACCOUNT_ADDRESS, near)
        assert spent == [401] * TRIES_PER_ACCOUNT_ADDRESS
        assert await wrong_tries(server, "ERIN", 1, near) == [429]
        assert await wrong_tries(server, "erin", 1) == [401]
        # Per account: strangers from ever new addresses spend the account's ceiling ...
        left = TRIES_PER_ACCOUNT - TRIES_PER_ACCOUNT_ADDRESS - 1
        assert await wrong_tries(server, "erin", left) == [401] * left
        async with browser(server) as new_browser:  # ... then even the right password waits
            blocked = await new_browser.post("/api/account/login",
                                             json={"username": "ERIN", "password": GOOD})
            assert blocked.status_code == 429 and "too many" in blocked.json()["detail"]
        async with browser(server) as other:  # a device cookie of another account is none
            assert (await other.post("/api/account/register", json={
                "username": "erins_friend", "password": GOOD})).status_code == 200
            assert (await other.post("/api/account/login", json={
                "username": "erin", "password": GOOD})).status_code == 429
        async with browser(server) as forger:
            player_id, nonce, mac = str(device).split(".")
            forger.cookies.set(DEVICE_COOKIE, f"{player_id}.{nonce}.{mac[::-1]}",
                               path="/api/account")
            assert (await forger.post("/api/account/login", json={
                "username": "erin", "password": GOOD})).status_code == 429

        # ... but the browser he signed in with before signs in, from the strangers'
        # address too, and has a window of its own.
        laptop.headers["X-Forwarded-For"] = near
        back = await laptop.post("/api/account/login", json={"username": "erin",
                                                            "password": GOOD})
        assert back.status_code == 200, back.text
        assert (await laptop.get("/api/me")).json()["username"] == "erin"
        wrong = {"username": "erin", "password": "guess guess guess"}
        answers = [(await laptop.post("/api/account/login", json=wrong)).status_code
                   for _ in range(TRIES_PER_DEVICE + 1)]  # its sign-in made a new cookie
        assert answers == [401] * TRIES_PER_DEVICE + [429]


async def test_one_address_trying_many_accounts_is_stopped(server: ServerProcess) -> None:
    async with browser(server, "198.51.100.7") as sprayer:
        codes = [(await sprayer.post("/api/account/login", json={
            "username": f"user{i}", "password": "guess guess guess"})).status_code
            for i in range(TRIES_PER_ADDRESS + 1)]
        assert codes[:-1] == [401] * TRIES_PER_ADDRESS and codes[-1] == 429
    async with browser(server) as elsewhere:  # the server lives on; others sign in
        assert (await elsewhere.post("/api/account/register", json={
            "username": "frank", "password": GOOD})).status_code == 200


async def test_forged_cookies_sign_no_one_in(server: ServerProcess) -> None:
    for forged in ("A" * 43, "not-a-token", "x" * 4000):
        async with browser(server) as http:
            http.cookies.set(COOKIE, forged)
            assert (await http.get("/api/me")).json() is None
            assert (await http.post("/api/account/password", json={
                "password": GOOD, "new_password": GOOD + "x"})).status_code == 401
            assert (await http.post("/api/account/delete", json={})).status_code == 401


async def test_deleting_an_account_removes_his_name_but_not_the_others_history(
        server: ServerProcess) -> None:
    async with Client(server.base_url, frame_rate=None) as ann, \
            Client(server.base_url, frame_rate=None) as bob:
        seat = await ann.create_table("gin", {"deals": 1}, opponent="friend", name="Gwen")
        other = await bob.join(seat.code, "Hank")
        async with ann.connect(seat) as a, bob.connect(other) as b:
            await asyncio.wait_for(asyncio.gather(play(a, choose), play(b, choose)), HANG)
        assert (await bob.http.post("/api/account/register", json={
            "username": "hank", "password": GOOD})).status_code == 200
        refused = await bob.http.post("/api/account/delete", json={"password": "wrong one!"})
        assert refused.status_code == 401
        hank = (await bob.http.get("/api/me")).json()["player_id"]
        assert (await bob.http.post("/api/account/delete",
                                    json={"password": GOOD})).status_code == 204
        assert (await bob.http.get("/api/me")).json() is None
        assert (await bob.http.get(f"/api/players/{hank}")).status_code == 404
        [match] = (await ann.http.get("/api/me")).json()["recent"]
        assert [s["name"] for s in match["seats"]] == ["Gwen", DELETED_NAME]
        assert match["seats"][1]["player_id"] is None
    async with browser(server) as http:  # the username is free again
        assert (await http.post("/api/account/register", json={
            "username": "Hank", "password": GOOD})).status_code == 200


async def test_the_cookie_is_secure_behind_a_trusted_https_proxy(server: ServerProcess) -> None:
    async with browser(server) as http:
        made = await http.post("/api/account/register", json={"username": "ivan", "password": GOOD},
                               headers={"X-Forwarded-Proto": "https"})
        assert made.status_code == 200 and "secure" in made.headers["set-cookie"].lower()
    async with browser(server) as plain:  # plain HTTP: the cookie must work without TLS
        made = await plain.post("/api/account/register",
                                json={"username": "judy", "password": GOOD})
        assert made.status_code == 200 and "secure" not in made.headers["set-cookie"].lower()
