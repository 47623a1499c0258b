"""A registered player's seat says so (issue 26, point 4): ``SeatInfo.registered`` is true
for a person who sat down signed in to an account (his ``name`` is its username), false for
a guest, a computer and a free seat; the seats' record keeps it across a restart. On
SQLite and PostgreSQL, at a real server."""

from __future__ import annotations

from typing import Any

import db_fixtures
from server_harness import ServerProcess, person, proxied_server

pg_database_url = db_fixtures.pg_database_url
server = proxied_server  # each client from an address of its own


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
