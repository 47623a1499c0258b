"""Moderation basics (issue 17, item 8): blocking a player (his chat hidden from the blocker
at every table, and no seat for him at the blocker's private tables), reporting a player
with a reason (stored for the operator), on SQLite and PostgreSQL.

In the store: blocks are one per pair, go with either player; reports keep a deleted
reporter as nobody and go with the reported player. At a real server: every change needs
the cookie's player (401), an unknown id is 404, blocking or reporting yourself and empty
or too long reasons are 422, markup in a reason is kept as the text it is, reports are
rate-limited (429); a block takes effect at once on the blocker's open sockets, in the
chat history too, survives a kill -9, and keeps the blocked player out of the blocker's
private tables (403) but not his public ones.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from sqlalchemy.exc import IntegrityError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import db_fixtures
from cardtable.server.codes import CloseCode
from cardtable.server.moderation import HOST_REFUSES, BlockLists
from cardtable.server.players import COOKIE, token_hash
from cardtable.server.routes.moderation import REPORTS_PER_ADDRESS, REPORTS_PER_HOUR
from cardtable.store import Store
from cardtable.store.moderation import MAX_REASON, ReportRecord
from server_harness import ServerProcess
from ws_helpers import recv

pg_database_url = db_fixtures.pg_database_url
store_url = db_fixtures.store_url
store = db_fixtures.store
XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script> &amp; {{7*7}}'
XSS_NAME = "<b>Cy</b><img src=x>"  # names have at most 24 characters
Frame = dict[str, Any]
_addresses = itertools.count(1)
_markers = itertools.count(1)


# -- the store ---------------------------------------------------------------------------------


async def test_blocks_and_reports_in_the_store(store: Store) -> None:
    for pid, name in (("p_ann", "Ann"), ("p_bob", "Bob"), ("p_cy", XSS_NAME)):
        await store.players.create(pid, token_hash(f"secret-{pid}"), name)
    mod = store.moderation
    assert await mod.block("p_ann", "p_bob") is True
    assert await mod.block("p_ann", "p_bob") is False  # once, however often
    assert await mod.block("p_ann", "p_cy") is True
    assert await mod.blocks("p_ann", "p_bob") and not await mod.blocks("p_bob", "p_ann")
    assert [(b.player_id, b.name) for b in await mod.blocked_by("p_ann")] == [
        ("p_cy", XSS_NAME), ("p_bob", "Bob")]  # the latest first, names as stored
    assert await mod.blocked_ids("p_ann") == {"p_bob", "p_cy"}
    assert await mod.count_blocks("p_ann") == 2
    with pytest.raises(IntegrityError):
        await mod.block("p_ann", "p_nobody")  # not a player
    assert await mod.unblock("p_ann", "p_cy") is True
    assert await mod.unblock("p_ann", "p_cy") is False
    assert await mod.blocked_ids("p_ann") == {"p_bob"}

    first = await mod.report(ReportRecord("p_ann", "p_bob", XSS, "ABCDEF"))
    second = await mod.report(ReportRecord("p_cy", "p_bob", "x" * MAX_REASON))
    assert second > first
    for bad in ("", "x" * (MAX_REASON + 1)):
        with pytest.raises(ValueError, match="500"):
            await mod.report(ReportRecord("p_ann", "p_bob", bad))
    kept = await mod.reports()
    assert [(r.report_id, r.reporter_id, r.reason, r.table_code) for r in kept] == [
        (second, "p_cy", "x" * MAX_REASON, None), (first, "p_ann", XSS, "ABCDEF")]
    assert kept[0].created_at is not None and kept[0].created_at.tzinfo is not None
    assert [r.report_id for r in await mod.reports(reported_id="p_ann")] == []
    assert await mod.reports_since("p_ann", kept[1].created_at) == 1  # type: ignore[arg-type]

    await store.players.delete("p_ann")  # a reporter and blocker leaves
    assert [r.reporter_id for r in await mod.reports()] == ["p_cy", None]  # his report stays
    assert await mod.blocked_by("p_ann") == []
    await mod.block("p_cy", "p_bob")
    await store.players.delete("p_bob")  # the reported and blocked one leaves
    assert await mod.reports() == [] and await mod.blocked_by("p_cy") == []


async def test_blocks_and_reports_survive_reopening(store_url: str) -> None:
    store = await Store.open(store_url)
    for pid in ("p_a", "p_b"):
        await store.players.create(pid, token_hash(pid), pid)
    await store.moderation.block("p_a", "p_b")
    await store.moderation.report(ReportRecord("p_a", "p_b", "rude"))
    await store.close()
    store = await Store.open(store_url)
    try:
        assert await store.moderation.blocked_ids("p_a") == {"p_b"}
        assert [r.reason for r in await store.moderation.reports()] == ["rude"]
    finally:
        await store.close()


async def test_block_lists_are_shared_and_keep_changes_made_while_loading() -> None:
    """One set per player on a process (server/moderation.py): his sockets share it, the
    block API changes it in place, also while it is being loaded."""
    gate = asyncio.Event()

    class SlowModeration:
        async def blocked_ids(self, player_id: str) -> set[str]:
            await gate.wait()
            return {"p_old", "p_gone"}  # what the database had when it was read

    store: Any = SimpleNamespace(moderation=SlowModeration())
    lists = BlockLists()
    first = asyncio.create_task(lists.acquire("p_ann", store))
    second = asyncio.create_task(lists.acquire("p_ann", store))  # waits for the same load
    await asyncio.sleep(0.01)
    lists.changed("p_ann", "p_new", True)  # the API, while the list is loading
    lists.changed("p_ann", "p_gone", False)
    lists.changed("p_bob", "p_ann", True)  # nobody of his here: nothing to change
    gate.set()
    one, two = await first, await second
    assert one is two and one == {"p_old", "p_new"}
    lists.changed("p_ann", "p_old", False)
    assert two == {"p_new"} and len(lists) == 1
    lists.release("p_ann")
    lists.release("p_ann")
    assert len(lists) == 0


# -- a real server -------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    url = request.getfixturevalue("pg_database_url") if request.param == "postgresql" else None
    env = {"CARDTABLE_JOIN_LIMIT": "100000", "CARDTABLE_FRAME_RATE": "10000",
           "CARDTABLE_TRUSTED_PROXIES": "127.0.0.1"}
    process = ServerProcess(tmp_path_factory.mktemp(request.param) / "data",
                            database_url=url, env=env).start()
    try:
        yield process
    finally:
        process.stop()


class Guest:
    """A browser of its own (its cookie, its address) that has sat down once, so it is a
    player: ``table`` is the grant of the table it made."""

    def __init__(self, server: ServerProcess, address: str | None = None) -> None:
        self.server = server
        address = address or f"198.51.100.{next(_addresses)}"
        self.http = httpx.AsyncClient(base_url=server.base_url,
                                      headers={"X-Forwarded-For": address})
        self.player_id = ""
        self.table: Frame = {}

    async def sit(self, name: str, settings: dict[str, Any] | None = None,
                  opponent: str = "friend") -> Guest:
        made = await self.http.post("/api/tables", json={
            "game": "gin", "opponent": opponent, "name": name,
            "settings": {"turn_time": 0, **(settings or {})}})
        assert made.status_code == 201, made.text
        self.table = made.json()
        self.player_id = (await self.http.get("/api/me")).json()["player_id"]
        return self

    async def join(self, code: str, name: str) -> httpx.Response:
        return await self.http.post(f"/api/tables/{code}/join", json={"name": name})

    @property
    def cookie(self) -> str:
        token = self.http.cookies.get(COOKIE)
        assert token is not None
        return str(token)

    async def socket(self, table_id: str, hello: Frame) -> tuple[ClientConnection, list[Frame]]:
        """A table socket with this browser's cookie: (socket, its chat history)."""
        ws = await connect(f"{self.server.ws_base}/ws/{table_id}", max_queue=None,
                           additional_headers={"Cookie": f"{COOKIE}={self.cookie}"})
        await ws.send(json.dumps({"t": "hello", "d": hello}))
        while True:
            frame = await recv(ws)
            if frame["t"] == "chat_history":
                return ws, frame["d"]["messages"]

    async def close(self) -> None:
        await self.http.aclose()


async def guest(server: ServerProcess, name: str, **sit: Any) -> Guest:
    return await Guest(server).sit(name, **sit)


async def say(ws: ClientConnection, text: str) -> None:
    await ws.send(json.dumps({"t": "chat", "d": {"text": text}}))


def said(history: list[Frame]) -> list[str]:
    """The lines of a chat history, but the test's markers."""
    return [m["text"] for m in history if not m["text"].startswith("marker ")]


async def heard_until(ws: ClientConnection, text: str) -> list[str]:
    """The chat lines ``ws`` reads up to ``text`` (which is not in the list)."""
    lines: list[str] = []
    while True:
        frame = await recv(ws)
        if frame["t"] == "chat":
            if frame["d"]["text"] == text:
                return lines
            lines.append(frame["d"]["text"])


async def heard_before_marker(marker_by: ClientConnection, ws: ClientConnection) -> list[str]:
    """``marker_by`` says a fresh line: the chat ``ws`` read before it. The table handles
    frames in order, so whatever was sent to ``ws`` earlier comes before the marker."""
    marker = f"marker {next(_markers)}"
    await say(marker_by, marker)
    return await heard_until(ws, marker)


async def test_every_change_needs_a_player(server: ServerProcess) -> None:
    ann = await guest(server, "Ann")
    async with httpx.AsyncClient(base_url=server.base_url) as nobody:
        for forged in (None, "x" * 43, "not a token"):  # no cookie, a forged one, garbage
            if forged is not None:
                nobody.cookies.set(COOKIE, forged)
            answers = [await nobody.post(f"/api/blocks/{ann.player_id}"),
                       await nobody.delete(f"/api/blocks/{ann.player_id}"),
                       await nobody.post("/api/reports", json={
                           "player_id": ann.player_id, "reason": "rude"})]
            assert [a.status_code for a in answers] == [401] * 3
            assert "sit down" in answers[0].json()["detail"]
            # Reading is no change: such a browser blocks nobody (as /api/me is null).
            listed = await nobody.get("/api/blocks")
            assert listed.status_code == 200
            assert listed.json() == {"player_id": None, "blocks": []}
    await ann.close()


async def test_blocking_and_unblocking(server: ServerProcess) -> None:
    ann, bob, cy = (await guest(server, "Ann"), await guest(server, "Bob"),
                    await guest(server, XSS_NAME))
    assert (await ann.http.get("/api/blocks")).json() == {"player_id": ann.player_id,
                                                          "blocks": []}
    made = await ann.http.post(f"/api/blocks/{bob.player_id}")
    assert made.status_code == 200
    assert made.json()["player_id"] == bob.player_id and made.json()["name"] == "Bob"
    assert (await ann.http.post(f"/api/blocks/{bob.player_id}")).status_code == 200  # again
    assert (await ann.http.post(f"/api/blocks/{cy.player_id}")).status_code == 200
    listed = (await ann.http.get("/api/blocks")).json()["blocks"]
    assert [(b["player_id"], b["name"]) for b in listed] == [
        (cy.player_id, XSS_NAME), (bob.player_id, "Bob")]  # markup kept as the text it is
    assert (await bob.http.get("/api/blocks")).json()["blocks"] == []  # his own list

    assert (await ann.http.delete(f"/api/blocks/{cy.player_id}")).status_code == 204
    assert (await ann.http.delete(f"/api/blocks/{cy.player_id}")).status_code == 204
    assert [b["player_id"] for b in (await ann.http.get("/api/blocks")).json()["blocks"]] \
        == [bob.player_id]

    refused = await ann.http.post(f"/api/blocks/{ann.player_id}")
    assert refused.status_code == 422 and "yourself" in refused.json()["detail"]
    for unknown in ("p_nobody", "x" * 33, "%3Cscript%3E"):
        for answer in (await ann.http.post(f"/api/blocks/{unknown}"),
                       await ann.http.delete(f"/api/blocks/{unknown}")):
            assert answer.status_code == 404, answer.text
            assert answer.json()["detail"] == "no player has that id"
    for g in (ann, bob, cy):
        await g.close()


async def test_blocks_survive_a_kill(server: ServerProcess) -> None:
    ann, bob = await guest(server, "Ann"), await guest(server, "Bob")
    await ann.http.post(f"/api/blocks/{bob.player_id}")
    server.restart()  # kill -9
    listed = (await ann.http.get("/api/blocks")).json()["blocks"]
    assert [b["player_id"] for b in listed] == [bob.player_id]
    await ann.close()
    await bob.close()


async def test_reports_are_stored_as_plain_text(server: ServerProcess) -> None:
    ann, bob = await guest(server, "Ann"), await guest(server, "Bob")
    code = bob.table["code"]
    made = await ann.http.post("/api/reports", json={
        "player_id": bob.player_id, "reason": f"  {XSS}\x07\u202e ", "table": code.lower()})
    assert made.status_code == 201, made.text
    assert made.headers["content-type"].startswith("application/json")
    answer = made.json()
    assert answer["reason"] == XSS  # control characters gone, the markup kept as text
    assert answer["table"] == code and answer["player_id"] == bob.player_id
    longest = await ann.http.post("/api/reports", json={
        "player_id": bob.player_id, "reason": "é" * MAX_REASON})
    assert longest.status_code == 201 and longest.json()["table"] is None

    store = await Store.open(server.store_url)
    try:
        kept = await store.moderation.reports(reported_id=bob.player_id)
    finally:
        await store.close()
    assert [(r.reporter_id, r.reason, r.table_code) for r in kept] == [
        (ann.player_id, "é" * MAX_REASON, None), (ann.player_id, XSS, code)]
    await ann.close()
    await bob.close()


@pytest.mark.parametrize(("body", "status", "why"), [
    ({"reason": ""}, 422, "empty"),
    ({"reason": " \n\t\x07\u200b "}, 422, "empty"),
    ({"reason": "rude\x00"}, 422, "reason: holds a NUL character"),  # unstorable: refused
    ({"reason": "x" * (MAX_REASON + 1)}, 422, f"at most {MAX_REASON} characters, not 501"),
    ({"reason": "x" * 5000}, 422, "reason: String should have at most"),
    ({"reason": 5}, 422, "reason"),
    ({"reason": "rude", "table": "NOSUCH"}, 404, "no table has that code"),
    ({"reason": "rude", "table": "<b>x</b>"}, 422, "table"),
    ({"reason": "rude", "table": "A" * 17}, 422, "table"),
    ({"reason": "rude", "colour": "red"}, 422, "colour"),
    ({"reason": "rude", "player_id": "p_nobody"}, 404, "no player has that id"),
    ({"reason": "rude", "player_id": "x" * 65}, 422, "player_id"),
    ({"reason": "rude", "player_id": "me"}, 422, "yourself"),
])
async def test_bad_reports_are_refused_with_the_reason(
        server: ServerProcess, body: Frame, status: int, why: str) -> None:
    ann, bob = await guest(server, "Ann"), await guest(server, "Bob")
    body = {"player_id": bob.player_id, **body}
    if body["player_id"] == "me":
        body["player_id"] = ann.player_id
    answer = await ann.http.post("/api/reports", json=body)
    assert answer.status_code == status, answer.text
    assert why in answer.json()["detail"]
    store = await Store.open(server.store_url)
    try:
        assert await store.moderation.reports(reported_id=bob.player_id) == []
    finally:
        await store.close()
    await ann.close()
    await bob.close()


async def test_reports_are_rate_limited(server: ServerProcess) -> None:
    ann, bob = await guest(server, "Ann"), await guest(server, "Bob")
    for n in range(REPORTS_PER_HOUR):
        made = await ann.http.post("/api/reports", json={
            "player_id": bob.player_id, "reason": f"rude, {n}"})
        assert made.status_code == 201, made.text
    refused = await ann.http.post("/api/reports", json={
        "player_id": bob.player_id, "reason": "once more"})
    assert refused.status_code == 429 and "an hour" in refused.json()["detail"]
    server.restart()  # counted in the database: a restart forgives nothing
    assert (await ann.http.post("/api/reports", json={
        "player_id": bob.player_id, "reason": "and again"})).status_code == 429
    # Others may still report him.
    assert (await bob.http.post("/api/reports", json={
        "player_id": ann.player_id, "reason": "he reports me all the time"})).status_code == 201
    await ann.close()
    await bob.close()


async def test_one_address_cannot_report_without_end(server: ServerProcess) -> None:
    """Guests are cheap to make: an address gets REPORTS_PER_ADDRESS an hour, whoever's."""
    target = await guest(server, "Target")
    made, refused = 0, 0
    while refused == 0:
        reporter = await Guest(server, "192.0.2.99").sit("Reporter")
        for _ in range(REPORTS_PER_HOUR):
            answer = await reporter.http.post("/api/reports", json={
                "player_id": target.player_id, "reason": f"report {made}"})
            if answer.status_code == 429:
                refused += 1
                break
            assert answer.status_code == 201, answer.text
            made += 1
        await reporter.close()
    assert made == REPORTS_PER_ADDRESS
    await target.close()


# -- at the tables ----------------------------------------------------------------------------


async def test_a_blocked_players_chat_never_reaches_the_blocker(server: ServerProcess) -> None:
    ann, bob, zoe = (await guest(server, "Ann"), Guest(server), await guest(server, "Zoe"))
    code, table_id = ann.table["code"], ann.table["table_id"]
    bob_grant = (await bob.join(code, "Bob")).json()
    bob.player_id = (await bob.http.get("/api/me")).json()["player_id"]
    a, _ = await ann.socket(table_id, {"token": ann.table["token"]})
    b, _ = await bob.socket(table_id, {"token": bob_grant["token"]})
    z, _ = await zoe.socket(table_id, {"spectate": True, "name": "Zoe"})

    await say(b, "before the block")
    assert await heard_until(a, "before the block") == []
    await heard_until(z, "before the block")

    assert (await ann.http.post(f"/api/blocks/{bob.player_id}")).status_code == 200
    await say(b, "after the block")
    await heard_until(b, "after the block")  # said, and seen by everyone else
    await heard_until(z, "after the block")
    assert await heard_before_marker(a, a) == []  # at once: Ann's open socket hears nothing
    await say(a, "hello Zoe")  # Ann still talks, and Bob still hears her
    await heard_until(b, "hello Zoe")

    # The history a new socket of Ann's gets leaves Bob out; Zoe's keeps him.
    _, history = await ann.socket(table_id, {"token": ann.table["token"]})
    assert said(history) == ["hello Zoe"] and history[-1]["seat"] == 0
    _, seen = await zoe.socket(table_id, {"spectate": True, "name": "Zoe again"})
    assert said(seen) == ["before the block", "after the block", "hello Zoe"]

    server.restart()  # kill -9: the table comes back from the database, the block too
    a, history = await ann.socket(table_id, {"token": ann.table["token"]})
    b, _ = await bob.socket(table_id, {"token": bob_grant["token"]})
    assert said(history) == ["hello Zoe"]
    await say(b, "after the restart")
    await heard_until(b, "after the restart")
    assert await heard_before_marker(a, a) == []

    assert (await ann.http.delete(f"/api/blocks/{bob.player_id}")).status_code == 204
    await say(b, "unblocked")
    assert await heard_until(a, "unblocked") == []  # at once again
    for ws in (a, b):
        await ws.close()
    for g in (ann, bob, zoe):
        await g.close()


async def test_a_blocked_spectators_chat_is_hidden_from_a_spectator(
        server: ServerProcess) -> None:
    host, carl, dan, eve = (await guest(server, "Host"), await guest(server, "Carl"),
                            await guest(server, "Dan"), await guest(server, "Eve"))
    table_id = host.table["table_id"]
    await carl.http.post(f"/api/blocks/{dan.player_id}")
    c, _ = await carl.socket(table_id, {"spectate": True, "name": "Carl"})
    d, _ = await dan.socket(table_id, {"spectate": True, "name": "Dan"})
    e, _ = await eve.socket(table_id, {"spectate": True, "name": "Eve"})
    await say(d, "Dan here")
    await heard_until(e, "Dan here")
    assert await heard_before_marker(e, c) == []
    await say(e, "Eve here")
    await heard_until(d, "Eve here")  # Dan still hears everyone
    server.restart()  # the line's author is kept with the chat: the history filters alike
    _, history = await carl.socket(table_id, {"spectate": True, "name": "Carl"})
    assert said(history) == ["Eve here"]
    _, history = await eve.socket(table_id, {"spectate": True, "name": "Eve"})
    assert said(history) == ["Dan here", "Eve here"]
    for g in (host, carl, dan, eve):
        await g.close()


async def test_the_blocked_cannot_sit_at_the_blockers_private_tables(
        server: ServerProcess) -> None:
    ann, bob, cy = await guest(server, "Ann"), Guest(server), Guest(server)
    await bob.sit("Bob")
    await ann.http.post(f"/api/blocks/{bob.player_id}")
    private = await ann.http.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann", "settings": {"private": True}})
    code = private.json()["code"]
    refused = await bob.join(code, "Bob")
    assert refused.status_code == 403 and refused.json()["detail"] == HOST_REFUSES
    info = (await bob.http.get(f"/api/tables/{code}")).json()
    assert [s["taken"] for s in info["seats"]] == [True, False]  # nothing changed
    assert info["seats"][0]["player_id"] == ann.player_id  # seats name their players
    assert info["seats"][1]["player_id"] is None
    assert (await cy.join(code, "Cy")).status_code == 200  # anyone else may

    public = await ann.http.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann", "settings": {"private": False}})
    assert (await bob.join(public.json()["code"], "Bob")).status_code == 200

    await ann.http.delete(f"/api/blocks/{bob.player_id}")
    again = await ann.http.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann", "settings": {"private": True}})
    assert (await bob.join(again.json()["code"], "Bob")).status_code == 200
    for g in (ann, bob, cy):
        await g.close()


async def refused_hello(guest: Guest, table_id: str, hello: Frame) -> tuple[Frame, int]:
    """A hello the table refuses: (its error frame, the close code that follows)."""
    ws = await connect(f"{guest.server.ws_base}/ws/{table_id}", max_queue=None,
                       additional_headers={"Cookie": f"{COOKIE}={guest.cookie}"})
    await ws.send(json.dumps({"t": "hello", "d": hello}))
    error = await recv(ws)
    with pytest.raises(ConnectionClosed):
        await recv(ws)
    assert ws.close_code is not None
    return error, ws.close_code


async def test_the_blocked_cannot_watch_the_blockers_private_tables(
        server: ServerProcess) -> None:
    ann, bob, cy = (await guest(server, "Ann"), await guest(server, "Bob"),
                    await guest(server, "Cy"))
    private = (await ann.http.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann",
        "settings": {"private": True, "spectators": True, "turn_time": 0}})).json()
    seated = (await bob.join(private["code"], "Bob")).json()  # before the block
    await ann.http.post(f"/api/blocks/{bob.player_id}")

    error, code = await refused_hello(bob, private["table_id"],
                                      {"spectate": True, "name": "Bob"})
    assert error["t"] == "error" and error["d"]["code"] == "host_refuses"
    assert error["d"]["message"] == HOST_REFUSES and code == CloseCode.HOST_REFUSES
    info = (await ann.http.get(f"/api/tables/{private['code']}")).json()
    assert info["spectators"] == 0  # nothing changed
    watching, _ = await cy.socket(private["table_id"], {"spectate": True, "name": "Cy"})
    mine, _ = await bob.socket(private["table_id"], {"token": seated["token"]})  # his seat
    public = (await ann.http.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann",
        "settings": {"private": False, "spectators": True, "turn_time": 0}})).json()
    open_table, _ = await bob.socket(public["table_id"], {"spectate": True, "name": "Bob"})

    await ann.http.delete(f"/api/blocks/{bob.player_id}")
    again, _ = await bob.socket(private["table_id"], {"spectate": True, "name": "Bob"})
    for ws in (watching, mine, open_table, again):
        await ws.close()
    for g in (ann, bob, cy):
        await g.close()


async def sent_away(ws: ClientConnection) -> tuple[Frame, int]:
    """Read an open socket until the server sends it away: (the error, the close code)."""
    while (frame := await recv(ws))["t"] != "error":
        pass
    with pytest.raises(ConnectionClosed):
        while True:
            await recv(ws)
    assert ws.close_code is not None
    return frame, ws.close_code


async def test_a_new_block_sends_the_blocked_spectator_away(server: ServerProcess) -> None:
    """He was watching the host's private table when she blocked him: he leaves it (as his
    hello would now be refused), and only it: her public table, others' watching, stay."""
    ann, bob, cy = (await guest(server, "Ann"), await guest(server, "Bob"),
                    await guest(server, "Cy"))
    tables = [(await ann.http.post("/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann",
        "settings": {"private": private, "spectators": True, "turn_time": 0}})).json()
        for private in (True, False)]
    private, public = (t["table_id"] for t in tables)
    watching, _ = await bob.socket(private, {"spectate": True, "name": "Bob"})
    elsewhere, _ = await bob.socket(public, {"spectate": True, "name": "Bob"})
    cy_watching, _ = await cy.socket(private, {"spectate": True, "name": "Cy"})
    await ann.http.post(f"/api/blocks/{bob.player_id}")

    error, code = await sent_away(watching)
    assert error["d"] == {"code": "host_refuses", "message": HOST_REFUSES, "id": None}
    assert code == CloseCode.HOST_REFUSES
    info = (await ann.http.get(f"/api/tables/{tables[0]['code']}")).json()
    assert info["spectators"] == 1  # Cy
    for ws in (elsewhere, cy_watching):  # still there: each answers a ping
        await ws.send(json.dumps({"t": "ping"}))
        while (await recv(ws))["t"] != "pong":
            pass
        await ws.close()
    for g in (ann, bob, cy):
        await g.close()


async def test_blocking_the_host_does_not_keep_you_out(server: ServerProcess) -> None:
    """It is the host's block that counts: Bob blocking Ann does not stop him joining."""
    ann, bob = await guest(server, "Ann"), await guest(server, "Bob")
    await bob.http.post(f"/api/blocks/{ann.player_id}")
    assert (await bob.join(ann.table["code"], "Bob")).status_code == 200
    await ann.close()
    await bob.close()
