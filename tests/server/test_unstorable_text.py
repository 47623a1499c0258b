"""Text no database stores gets 422 naming the field, on SQLite and on PostgreSQL.

A NUL character in a name or a room code used to reach PostgreSQL, which refused it, and
the answer was 503 "the server cannot reach its database" (SQLite stored it). A NUL
(``\\u0000``, ``%00``) or a lone UTF-16 surrogate (``\\ud800``) in a JSON field, a path
parameter or a query parameter is now refused by name before any route runs, and nothing
changes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

import db_fixtures
from cardtable.server.codes import CloseCode
from server_harness import ServerProcess, server_on
from ws_helpers import create, recv_type

pg_database_url = db_fixtures.pg_database_url
NUL = "holds a NUL character (\\u0000), which cannot be stored"
SURROGATE = "holds a lone UTF-16 surrogate, which is no character"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_on(request, tmp_path_factory) as process:
        yield process


@pytest.fixture(scope="module")
def table(server: ServerProcess) -> dict[str, Any]:
    """A friend's table with a free seat: what a refused join must leave as it was."""
    return create(server, "friend")


def raw_json(value: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for httpx sending ``value`` as JSON with its escapes as written
    (httpx would refuse to encode a lone surrogate itself)."""
    return {"content": json.dumps(value), "headers": {"content-type": "application/json"}}


def seats_of(server: ServerProcess, code: str) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = httpx.get(f"{server.base_url}/api/tables/{code}").json()[
        "seats"]
    return seats


BODIES = [  # (method, path with {code}, JSON body, the field named, why)
    ("POST", "/api/tables", {"opponent": "computer", "name": "A\x00nn"}, "name", NUL),
    ("POST", "/api/tables", {"opponent": "computer", "name": "Ann\ud800"}, "name", SURROGATE),
    ("POST", "/api/tables", {"opponent": "computer", "name": "Ann",
                             "options": {"target": "1\x00"}}, "options.target", NUL),
    ("POST", "/api/tables/{code}/join", {"name": "B\x00b"}, "name", NUL),
    ("POST", "/api/lobby/quick-join", {"name": "\x00"}, "name", NUL),
    ("POST", "/api/account/register", {"username": "Ann\x00", "password": "x" * 12},
     "username", NUL),
    ("POST", "/api/account/login", {"username": "\udc00", "password": "x" * 12},
     "username", SURROGATE),
    ("POST", "/api/reports", {"player_id": "p_x", "reason": "spam\x00"}, "reason", NUL),
]


@pytest.mark.parametrize(("method", "path", "body", "field", "why"), BODIES,
                         ids=[f"{path}-{field}" for _, path, _, field, _ in BODIES])
def test_a_json_field_gets_422_naming_it(server: ServerProcess, table: dict[str, Any],
                                         method: str, path: str, body: dict[str, Any],
                                         field: str, why: str) -> None:
    before = seats_of(server, table["code"])
    answer = httpx.request(method, server.base_url + path.format(code=table["code"]),
                           **raw_json(body))
    assert answer.status_code == 422, answer.text
    assert answer.json() == {"detail": f"{field}: {why}"}
    assert seats_of(server, table["code"]) == before


PATHS = [  # (method, path, the parameter named)
    ("POST", "/api/tables/AB%00CD/join", "code"),
    ("GET", "/api/tables/AB%00CD", "code"),
    ("GET", "/api/players/p_%00", "player_id"),
    ("GET", "/api/leaderboard/gin%00", "game"),
    ("POST", "/api/blocks/p_%00", "player_id"),
    ("GET", "/api/matches/m%00/replay", "match_id"),
    ("GET", "/api/lobby?game=%00", "game"),
]


@pytest.mark.parametrize(("method", "path", "field"), PATHS,
                         ids=[path for _, path, _ in PATHS])
def test_a_path_or_query_parameter_gets_422_naming_it(server: ServerProcess, method: str,
                                                      path: str, field: str) -> None:
    body = {"name": "Bob"} if method == "POST" else None
    answer = httpx.request(method, server.base_url + path, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json() == {"detail": f"{field}: {NUL}"}


async def test_a_frame_with_a_nul_is_refused_by_name(server: ServerProcess,
                                                     table: dict[str, Any]) -> None:
    """On a socket a NUL is a bad frame like a lone surrogate; the table takes no harm."""
    ws = await connect(f"{server.ws_base}/ws/{table['table_id']}")
    await ws.send(json.dumps({"t": "hello", "d": {"spectate": True, "name": "E\x00ve"}}))
    error = await recv_type(ws, "error")
    assert error["d"] == {"code": "bad_frame", "message": f"d.name: {NUL}", "id": None}
    await ws.send(json.dumps({"t": "hello", "d": {"token": table["token"]}}))
    assert (await recv_type(ws, "welcome"))["d"]["seat"] == table["seat"]
    await ws.close()


async def test_a_table_socket_of_a_table_id_with_a_nul_is_an_unknown_table(
        server: ServerProcess) -> None:
    """Not 1013 "database unavailable" (PostgreSQL's refusal), which clients retry."""
    ws = await connect(f"{server.ws_base}/ws/t_%00x")
    await asyncio.wait_for(ws.wait_closed(), 10)
    assert (ws.close_code, ws.close_reason) == (CloseCode.UNKNOWN_TABLE, "unknown table")


def test_the_server_is_well_after_all_that(server: ServerProcess) -> None:
    made = httpx.post(f"{server.base_url}/api/tables", json={"opponent": "computer",
                                                             "name": "Ann"})
    assert made.status_code == 201
    assert "Traceback" not in server.output()
