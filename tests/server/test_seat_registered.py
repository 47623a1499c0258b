"""A registered player's seat says so (issue 26, point 4): ``SeatInfo.registered`` is true
for a person who sat down signed in to an account (his ``name`` is its username), false for
a guest, a computer and a free seat; the seats' record keeps it across a restart. On
SQLite and PostgreSQL, at a real server."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

import db_fixtures
from cardtable.client import Client
from server_harness import ServerProcess, server_on

pg_database_url = db_fixtures.pg_database_url
PASSWORD = "seats with a check mark"
_addresses = itertools.count(1)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_on(request, tmp_path_factory, CARDTABLE_TRUSTED_PROXIES="127.0.0.1") as process:
        yield process


async def person(server: ServerProcess, username: str | None = None) -> Client:
    client = Client(server.base_url, frame_rate=None)
    client.http.headers["X-Forwarded-For"] = f"198.19.1.{next(_addresses)}"
    if username is not None:
        made = await client.http.post("/api/account/register",
                                      json={"username": username, "password": PASSWORD})
        assert made.status_code == 200, made.text
    return client


def marks(seats: list[dict[str, Any]]) -> list[tuple[str | None, bool]]:
    return [(s["name"], s["registered"]) for s in seats]


async def test_a_registered_players_seat_is_marked_and_a_guests_is_not(
        server: ServerProcess) -> None:
    tag = server.port
    dora, guest, eve = (await person(server, f"dora{tag}"), await person(server),
                        await person(server, f"eve{tag}"))
    try:
        seat = await dora.create_table("rummy", opponent="friend", name="Dee", players=4,
                                       seats=["human", "human", "bot"])
        assert marks((await dora.table_info(seat.code))["seats"]) == [
            (f"dora{tag}", True), (None, False), (None, False), ("Computer", False)]
        await guest.join(seat.code, "Gus")
        joined = await eve.join(seat.code, "Someone")
        expected = [(f"dora{tag}", True), ("Gus", False), (f"eve{tag}", True),
                    ("Computer", False)]
        assert marks((await dora.table_info(seat.code))["seats"]) == expected
        async with eve.connect(joined) as conn:  # the socket's seats say the same
            await conn.wait_for(lambda c: len(c.seats) == 4, 10)
            assert marks(conn.seats) == expected
        server.restart()  # the seats' record keeps it
        assert marks((await dora.table_info(seat.code))["seats"]) == expected
    finally:
        for client in (dora, guest, eve):
            await client.aclose()
