"""cardtable.client against a real server: whole matches, idempotent retries, refusals."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from cardtable.bots.gin.normal import choose
from cardtable.client import (
    ActionRefused,
    Client,
    Connection,
    ConnectionLost,
    Frame,
    RequestRefused,
    Seat,
    play,
)
from cardtable.engine.cards import card, str_card
from server_harness import ServerProcess

EXPRESS = {"target": 1}  # one scoring hand wins the match


def hand_done(conn: Connection) -> bool:
    return conn.view.get("phase") in ("hand_over", "match_over")


@asynccontextmanager
async def friend_table(server: ServerProcess, **options: object) -> AsyncIterator[
        tuple[Client, Connection, Connection]]:
    """A friend table with both seats connected: (client, seat 0, seat 1)."""
    async with Client(server.base_url) as client:
        ann = await client.create_table("gin", options, opponent="friend", name="Ann")
        bob = await client.join(ann.code, "Bob")
        async with client.connect(ann) as a, client.connect(bob) as b:
            yield client, a, b


async def in_step(a: Connection, b: Connection) -> None:
    """Read until both seats have seen the latest version."""
    for conn in (a, b):
        await conn.wait_for(lambda c: c.version == max(a.version, b.version), timeout=10)


def mover(a: Connection, b: Connection) -> Connection:
    """The seat to act (both views must be in step)."""
    return a if a.my_turn else b


async def test_games_and_seats(server: ServerProcess) -> None:
    async with Client(server.base_url) as client:
        games = await client.games()
        assert "gin" in [g["name"] for g in games]
        ann = await client.create_table("gin", {"target": 50}, opponent="friend", name="Ann")
        assert isinstance(ann, Seat) and ann.seat == 0 and len(ann.token) >= 22
        assert ann.token not in repr(ann)
        info = await client.table_info(ann.code.lower())  # codes are not case-sensitive
        assert info["status"] == "waiting" and info["options"]["target"] == 50
        bob = await client.join(ann.code, "Bob")
        assert bob.seat == 1 and bob.table_id == ann.table_id
        assert (await client.table_info(ann.code))["status"] == "playing"
        with pytest.raises(RequestRefused) as full:
            await client.join(ann.code, "Cid")
        assert full.value.status == 409
        with pytest.raises(RequestRefused) as bad:
            await client.create_table("gin", {"target": 0})
        assert bad.value.status == 422 and "target" in bad.value.detail


async def test_a_whole_match_against_the_computer(server: ServerProcess) -> None:
    record: list[Frame] = []
    async with Client(server.base_url) as client:
        seat = await client.create_table("gin", EXPRESS, opponent="computer", name="Ann")
        async with client.connect(seat, record=record) as conn:
            assert conn.seat == 0 and conn.table["seats"][1]["kind"] == "bot"
            played = await asyncio.wait_for(play(conn, choose), 60)
            assert conn.view["phase"] == "match_over"
            assert conn.view["result"]["winner"] in (0, 1)
            assert played > 0
    kinds = [f.t for f in record]
    assert kinds[0] == "welcome" and kinds[1] == "view"
    views = [f.v for f in record if f.t == "view" and f.v is not None]
    assert views == sorted(views) and views[-1] == conn.version


async def test_friends_play_a_hand(server: ServerProcess) -> None:
    async with friend_table(server, target=100) as (_, a, b):
        assert a.view["to_act"] == b.view["to_act"]
        await asyncio.wait_for(asyncio.gather(play(a, choose, until=hand_done),
                                              play(b, choose, until=hand_done)), 60)
        await b.wait_for(lambda c: c.version == a.version, timeout=10)
        assert a.view["phase"] == b.view["phase"] == "hand_over"
        assert a.view["scores"] == b.view["scores"] and sum(a.view["scores"]) >= 0
        if a.view["last"]["kind"] != "void":  # a knock or gin shows both hands down
            assert a.view["hands"][1]["cards"] == b.view["hands"][1]["cards"]


async def test_a_hint_names_a_legal_move_and_a_refusal_raises(server: ServerProcess) -> None:
    async with friend_table(server, target=100) as (_, a, b):
        await in_step(a, b)
        to_act = mover(a, b)
        other = b if to_act is a else a
        version = to_act.version
        hint = await to_act.hint()
        assert hint.t == "hint" and hint.d["action"] in to_act.view["legal"]
        assert 0 < len(hint.d["text"]) <= 100 and to_act.version == version
        with pytest.raises(ActionRefused) as refused:
            await other.hint()
        assert refused.value.code == "not_your_turn"
        moved = await to_act.act(hint.d["action"])  # the hinted move is a move like any other
        assert moved.v == version + 1


async def test_a_retried_act_is_applied_once(server: ServerProcess) -> None:
    async with friend_table(server) as (_, a, b):
        conn = mover(a, b)
        before = conn.version
        action = choose(conn.view)
        first = await conn.act(action, id="retry-1")
        assert first.v == before + 1 and first.ack == "retry-1"
        again = await conn.act(action, id="retry-1", version=before)
        assert again.ack == "retry-1" and again.v == before + 1
        other = b if conn is a else a
        await other.wait_for(lambda c: c.version == before + 1, timeout=10)
        assert (await other.sync()).v == before + 1  # nothing more happened
        assert [e["type"] for e in other.events] == []  # a snapshot carries no events


async def test_a_stale_act_is_refused_with_a_snapshot(server: ServerProcess) -> None:
    async with friend_table(server) as (_, a, b):
        await mover(a, b).act(choose(mover(a, b).view))
        await in_step(a, b)
        conn = mover(a, b)
        version, view = conn.version, conn.view
        with pytest.raises(ActionRefused) as refused:
            await conn.act(choose(view), version=version - 1)
        assert refused.value.code == "stale"
        assert refused.value.frame.d["id"] and refused.value.frame.v == version
        snapshot = refused.value.snapshot
        assert snapshot is not None and snapshot.t == "view" and snapshot.v == version
        assert conn.view == view and conn.version == version


async def test_an_illegal_act_is_refused_with_the_engine_reason(server: ServerProcess) -> None:
    async with friend_table(server) as (_, a, b):
        conn = mover(a, b)
        version, view = conn.version, conn.view
        held = {card(c) for c in view["hands"][conn.seat]["cards"]}
        absent = next(c for c in range(52) if c not in held)
        with pytest.raises(ActionRefused) as refused:
            await conn.act({"type": "discard", "card": str_card(absent)})
        assert refused.value.code == "illegal"
        assert refused.value.message == f"you do not hold {str_card(absent)}"
        assert conn.version == version and conn.view == view
        assert (await conn.sync()).d["view"] == view


async def test_other_refusals(server: ServerProcess) -> None:
    async with friend_table(server) as (client, a, b):
        waiting = b if a.my_turn else a
        with pytest.raises(ActionRefused) as refused:
            await waiting.act({"type": "draw_stock"})
        assert refused.value.code == "not_your_turn"
        with pytest.raises(ActionRefused) as refused:
            await mover(a, b).act({"type": "discard", "card": "Zz"})
        assert refused.value.code == "bad_action"
        async with client.connect(None, table_id=a.claim.table_id if a.claim else "") as watcher:
            assert watcher.seat is None and "cards" not in watcher.view["hands"][0]
            with pytest.raises(ActionRefused) as refused:
                await watcher.act({"type": "draw_stock"})
            assert refused.value.code == "spectator"
        with pytest.raises(ActionRefused) as refused:
            await a.rematch()
        assert refused.value.code == "not_over"
        assert (await a.ping()).t == "pong"
        bad = Seat(a.claim.table_id if a.claim else "", "", 0, "not-a-token")
        with pytest.raises(ConnectionLost) as lost:
            await client.connect(bad).open()
        assert "bad_token" in str(lost.value)


async def test_a_dropped_socket_reconnects_and_resends(server: ServerProcess) -> None:
    async with friend_table(server) as (_, a, b):
        conn = mover(a, b)
        await conn.drop()
        before = conn.version
        answer = await conn.act(choose(conn.view), id="after-drop")
        assert answer.ack == "after-drop" and answer.v == before + 1
        assert conn.reconnects == 1


async def test_rematch(server: ServerProcess) -> None:
    async with friend_table(server, **EXPRESS) as (_, a, b):
        await asyncio.wait_for(asyncio.gather(play(a, choose), play(b, choose)), 60)
        await b.wait_for(lambda c: c.version == a.version, timeout=10)
        over = a.version
        vote = await a.rematch()
        assert vote.v == over and a.rematch_votes == [0]
        await b.rematch()
        for conn in (a, b):
            await conn.wait_for(lambda c: c.view["phase"] != "match_over", timeout=10)
            assert conn.version == over + 1 and conn.view["scores"] == [0, 0]
