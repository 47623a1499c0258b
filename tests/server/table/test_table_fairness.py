"""Provably fair deals at a real server, on SQLite and PostgreSQL, across a kill -9.

Two players play Gin through real sockets (a friend table: no computer deals behind the
test's back). Every frame of a hand
carries the hand's commitments and no order; the frame that ends the hand reveals the
orders and salts, which prove the commitments the player saw at the deal and are exactly
the deck orders the server's log recorded. Then the server is killed and started again:
the table shows the same proofs, deals the next hand with a fresh commitment, and that
hand proves out too. A finished match downloads as a file (409 while it is played) that
`cardtable verify` accepts, and rejects once a card of it is moved.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import db_fixtures
from cardtable.bots.gin.normal import choose
from cardtable.client import Client, Connection, Frame, play
from cardtable.fairness import Shuffle, problems
from cardtable.store import Store
from server_harness import ServerProcess, server_on

pg_database_url = db_fixtures.pg_database_url
HANG = 120  # seconds: a hang guard, never a measure


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def fair_server(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_on(request, tmp_path_factory) as process:
        yield process


def hand_over(conn: Connection) -> bool:
    return conn.view.get("phase") in ("hand_over", "match_over")


async def play_hand(*conns: Connection) -> None:
    await asyncio.wait_for(asyncio.gather(*(play(c, choose, until=hand_over) for c in conns)),
                           HANG)


def shuffles(frame: Frame) -> list[Shuffle]:
    return [Shuffle.from_json(s) for s in frame.d["fair"]["shuffles"]]


def check_hand(frames: list[Frame], logged: dict[str, str]) -> list[Shuffle]:
    """The frames of one hand, its last one the hand's end: commitments throughout, the
    same ones from the first frame on, revealed only at the end, proved, and equal to the
    log's deck orders (``logged``: shuffle id -> order). Returns the proofs."""
    views = [f for f in frames if f.t == "view"]
    *playing, last = views
    assert playing, "the hand had no frame before its end"
    first = {s.shuffle_id: s.commit for s in shuffles(playing[0])}
    assert first, "the deal came without a commitment"
    for frame in playing:
        assert frame.d["fair"]["revealed"] is False
        for proof in shuffles(frame):
            assert not proof.revealed, f"an order went out mid-hand at version {frame.v}"
            assert first.get(proof.shuffle_id, proof.commit) == proof.commit
    assert last.d["fair"]["revealed"] is True
    proofs = shuffles(last)
    assert problems(proofs) == []
    assert {p.shuffle_id: p.commit for p in proofs if p.shuffle_id in first} == first
    assert {p.shuffle_id: p.order for p in proofs} == \
        {p.shuffle_id: logged[p.shuffle_id] for p in proofs}
    return proofs


async def logged_orders(server: ServerProcess, table_id: str) -> dict[str, str]:
    """Every chance outcome the log holds, by shuffle id (``version.index``), as text."""
    store = await Store.open(server.store_url)
    try:
        record = await store.get_table(table_id)
        assert record is not None and record.fair_key is not None
        events = await store.load_events(table_id)
    finally:
        await store.close()
    orders = {f"0.{i}": str(o) for i, o in enumerate(record.start_chance)}
    for event in events:
        orders.update({f"{event.version}.{i}": str(o) for i, o in enumerate(event.chance)})
    return orders


async def test_a_hand_is_committed_then_proved_and_a_restart_keeps_the_promise(
        fair_server: ServerProcess) -> None:
    frames: list[Frame] = []
    async with Client(fair_server.base_url, frame_rate=None) as client:
        seat = await client.create_table("gin", {"target": 500}, opponent="friend", name="Ann")
        bob = await client.join(seat.code, "Bob")
        async with client.connect(seat, record=frames) as conn, client.connect(bob) as other:
            await play_hand(conn, other)
        before = check_hand(frames, await logged_orders(fair_server, seat.table_id))

    fair_server.restart()  # kill -9

    after: list[Frame] = []
    async with Client(fair_server.base_url, frame_rate=None) as client:
        async with client.connect(seat, record=after) as conn, client.connect(bob) as other:
            for each in (conn, other):
                await each.wait_for(lambda c: c.view.get("phase") is not None, timeout=HANG)
            snapshot = next(f for f in after if f.t == "view")
            assert snapshot.d["fair"]["revealed"] is True
            assert shuffles(snapshot) == before  # the same salts, derived from the same key
            deal_from = len(after)
            dealer = conn if conn.my_turn else other
            await dealer.act({"type": "deal"})
            for each in (conn, other):  # each sees the new hand before it plays
                await each.wait_for(lambda c: not hand_over(c), timeout=HANG)
            await play_hand(conn, other)
        proofs = check_hand(after[deal_from:], await logged_orders(fair_server, seat.table_id))
    assert {p.shuffle_id for p in proofs}.isdisjoint({p.shuffle_id for p in before})
    assert all(p.salt != q.salt for p in proofs for q in before)


async def test_a_finished_match_downloads_and_verifies(fair_server: ServerProcess,
                                                       tmp_path: Path) -> None:
    frames: list[Frame] = []
    async with Client(fair_server.base_url, frame_rate=None) as client:
        seat = await client.create_table("gin", {"deals": 1}, opponent="friend", name="Ann")
        bob = await client.join(seat.code, "Bob")
        url = f"{fair_server.base_url}/api/tables/{seat.code}/match"
        async with httpx.AsyncClient() as http:
            playing = await http.get(url)
            assert playing.status_code == 409 and "still being played" in playing.json()["detail"]
            assert (await http.get(f"{fair_server.base_url}/api/tables/NOSUCH/match")
                    ).status_code == 404
            async with client.connect(seat, record=frames) as conn, client.connect(bob) as other:
                await asyncio.wait_for(asyncio.gather(play(conn, choose), play(other, choose)),
                                       HANG)
            answer = await http.get(url)
    assert answer.status_code == 200
    assert answer.headers["content-disposition"] == \
        f'attachment; filename="cardtable-{seat.code}-gin.json"'
    document = answer.json()
    last = [f for f in frames if f.t == "view"][-1]
    assert last.d["view"]["phase"] == "match_over"
    assert [s.to_json() for s in shuffles(last)] == document["shuffles"]  # one hand: all of them

    good, bad, broken = tmp_path / "match.json", tmp_path / "lie.json", tmp_path / "broken.json"
    good.write_text(answer.text)
    checked = cardtable_verify(good)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: 2 shuffles match their commitments" in checked.stdout
    deck = next(s for s in document["shuffles"] if " " in s["order"])
    deck["order"] = " ".join(reversed(deck["order"].split()))
    bad.write_text(json.dumps(document))
    lied = cardtable_verify(bad)
    assert lied.returncode == 1 and "FAILED" in lied.stdout
    assert f"shuffle {deck['id']}: the revealed order does not match its commitment" in lied.stdout
    broken.write_text("{not json")
    unreadable = cardtable_verify(broken)
    assert unreadable.returncode == 2 and "cannot read" in unreadable.stderr


def cardtable_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardtable", "verify", str(path)],
                          capture_output=True, text=True, timeout=HANG)
