"""The HTTP API and pages of a real server process."""

from __future__ import annotations

import httpx
import pytest

from cardtable.engine import descriptors
from cardtable.server.routes.pages import WEB
from server_harness import ServerProcess


def test_games_and_pages_carry_security_headers(server: ServerProcess) -> None:
    games = httpx.get(f"{server.base_url}/api/games").json()["games"]
    gin = next(g for g in games if g["name"] == "gin")
    assert gin["presets"] == ["standard", "pagat", "oklahoma"] and gin["players"] == [2]
    assert gin["browser"] is True
    assert any(o["name"] == "target" and o["range"] == [1, 10000] for o in gin["options"])
    for path in ("/", "/t/ABCDEF", "/api/games", "/api/tables/ZZZZZZ"):
        response = httpx.get(server.base_url + path)
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert response.headers["x-content-type-options"] == "nosniff"


def test_create_against_the_computer(server: ServerProcess) -> None:
    answer = httpx.post(f"{server.base_url}/api/tables",
                        json={"game": "gin", "options": {"preset": "oklahoma"},
                              "opponent": "computer", "name": "Ann"})
    assert answer.status_code == 201
    grant = answer.json()
    assert grant["seat"] == 0 and len(grant["token"]) >= 22 and len(grant["code"]) == 6
    assert grant["invite_url"] == f"/t/{grant['code']}"
    info = httpx.get(f"{server.base_url}/api/tables/{grant['code'].lower()}").json()
    assert info["status"] == "playing" and info["options"]["target"] == 150
    assert [s["kind"] for s in info["seats"]] == ["human", "bot"]
    assert "token" not in str(info) and grant["token"] not in str(info)


def test_friend_table_join_then_full(server: ServerProcess) -> None:
    grant = httpx.post(f"{server.base_url}/api/tables",
                       json={"opponent": "friend", "name": "Ann"}).json()
    info = httpx.get(f"{server.base_url}/api/tables/{grant['code']}").json()
    assert info["status"] == "waiting" and info["seats"][1]["taken"] is False
    joined = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join",
                        json={"name": "Bob"}).json()
    assert joined["seat"] == 1 and joined["table_id"] == grant["table_id"]
    assert joined["token"] != grant["token"]
    info = httpx.get(f"{server.base_url}/api/tables/{grant['code']}").json()
    assert info["status"] == "playing" and info["seats"][1]["name"] == "Bob"
    full = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join", json={"name": "Cy"})
    assert full.status_code == 409 and full.json()["detail"] == "the table is full"


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [({"game": "chess"}, 422, "unknown game 'chess'"),
     ({"options": {"target": 0}}, 422, "'target' must be an integer from 1 to 10000"),
     ({"options": {"colour": "red"}}, 422, "unknown option 'colour'"),
     ({"opponent": "martian"}, 422, None),
     ({"name": ""}, 422, None),
     ({"name": "x" * 25}, 422, None)],
)
def test_bad_table_requests_are_refused(server: ServerProcess, body: dict[str, object],
                                        status: int, detail: str | None) -> None:
    answer = httpx.post(f"{server.base_url}/api/tables", json=body)
    assert answer.status_code == status
    if detail:
        assert detail in answer.json()["detail"]


def test_unknown_code_and_lookup_rate_limit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    process = ServerProcess(tmp_path / "data", env={"CARDTABLE_JOIN_LIMIT": "5"}).start()
    try:
        answers = [httpx.get(f"{process.base_url}/api/tables/ZZZZZ{i}") for i in range(5)]
        assert all(a.status_code == 404 for a in answers)
        limited = httpx.post(f"{process.base_url}/api/tables/ZZZZZZ/join", json={"name": "x"})
        assert limited.status_code == 429 and "too many" in limited.json()["detail"]
        assert httpx.get(f"{process.base_url}/api/games").status_code == 200  # not limited
    finally:
        process.stop()


def test_validation_errors_are_one_readable_string(server: ServerProcess) -> None:
    answer = httpx.post(f"{server.base_url}/api/tables", json={"name": "x" * 25})
    assert answer.status_code == 422
    assert answer.json()["detail"] == "name: a name is at most 24 characters"


def test_presets_are_listed_with_their_values(server: ServerProcess) -> None:
    gin = httpx.get(f"{server.base_url}/api/games").json()["games"][0]
    assert gin["preset_values"]["oklahoma"]["target"] == 150
    assert gin["preset_values"]["pagat"]["gin_bonus"] == 20


def test_games_come_from_their_descriptors(server: ServerProcess) -> None:
    """Every game the server process registered, in menu order, with its title, seat
    counts and sides; the browser is offered only the games it has a board for."""
    games = httpx.get(f"{server.base_url}/api/games").json()["games"]
    builtin = [d for d in descriptors() if d.name in {g["name"] for g in games}]
    assert [g["name"] for g in games] == [d.name for d in builtin]
    assert {"gin", "rummy", "rummy500", "romme", "indian", "spades"} <= {d.name for d in builtin}
    for game, descriptor in zip(games, builtin, strict=True):
        assert game["title"] == descriptor.title and game["players"] == list(descriptor.players)
        assert game["browser"] is descriptor.board
        if game["browser"]:  # what table.js imports to draw it
            assert (WEB / "games" / game["name"] / "board.js").is_file(), game["name"]
    spades = next(g for g in games if g["name"] == "spades")
    assert spades["partnerships"] == 4
    assert spades["teams"] == {"4": [[0, 2], [1, 3]], "3": [[0], [1], [2]], "2": [[0], [1]]}
    assert games[0]["partnerships"] is None and games[0]["teams"] == {"2": [[0], [1]]}


def test_seats_chosen_one_by_one_and_joined_by_number(server: ServerProcess) -> None:
    games = {g["name"] for g in httpx.get(f"{server.base_url}/api/games").json()["games"]}
    if "spades" not in games:
        pytest.skip("spades is not registered yet")
    grant = httpx.post(f"{server.base_url}/api/tables",
                       json={"game": "spades", "name": "Ann",
                             "seats": ["bot", "human", "human"]}).json()
    info = httpx.get(f"{server.base_url}/api/tables/{grant['code']}").json()
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "human", "human"]
    assert info["status"] == "waiting"
    third = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join",
                       json={"name": "Cy", "seat": 3})
    assert third.json()["seat"] == 3
    taken = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join",
                       json={"name": "Di", "seat": 3})
    assert taken.status_code == 409 and taken.json()["detail"] == "that seat is taken"
    bot = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join",
                     json={"name": "Di", "seat": 1})
    assert bot.status_code == 409
    nowhere = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join",
                         json={"name": "Di", "seat": 7})
    assert nowhere.status_code == 422 and nowhere.json()["detail"] == "the table has no such seat"
    first_free = httpx.post(f"{server.base_url}/api/tables/{grant['code']}/join",
                            json={"name": "Ed"})
    assert first_free.json()["seat"] == 2
    assert httpx.get(f"{server.base_url}/api/tables/{grant['code']}").json()["status"] == \
        "playing"


def test_player_counts_are_checked(server: ServerProcess) -> None:
    answer = httpx.post(f"{server.base_url}/api/tables", json={"game": "gin", "players": 3})
    assert answer.status_code == 422 and "gin is played by 2 players, not 3" in \
        answer.json()["detail"]
    answer = httpx.post(f"{server.base_url}/api/tables", json={"seats": ["bot", "bot"]})
    assert answer.status_code == 422 and "other 1 seats" in answer.json()["detail"]
