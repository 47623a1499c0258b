"""The server's configuration: read once from the environment and the command line, a bad
value named, extra games (``CARDTABLE_GAME_MODULES``) loaded before anything needs them."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from cardtable import cli
from cardtable.engine import GAMES
from cardtable.server.config import GAME_MODULES_VARIABLE, ServerConfig, load_game_modules
from cardtable.store import sqlite_url
from server_harness import ServerProcess

TESTS = Path(__file__).resolve().parents[1]


def test_database_url_gets_its_async_driver(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert ServerConfig.from_env(tmp_path).store_url() == sqlite_url(tmp_path)
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@db:5432/cards")
    assert ServerConfig.from_env(tmp_path).store_url() == "postgresql+asyncpg://u@db:5432/cards"
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@db/cards")
    assert ServerConfig.from_env(tmp_path).store_url() == "postgresql+asyncpg://u@db/cards"


def test_defaults_and_values_from_the_environment(tmp_path: Path) -> None:
    assert ServerConfig.from_env(tmp_path, environ={}) == ServerConfig(data_dir=tmp_path)
    config = ServerConfig.from_env(tmp_path, environ={
        "CARDTABLE_BOT_DELAY": "0", "CARDTABLE_FRAME_RATE": "7.5", "CARDTABLE_GC": "python",
        "CARDTABLE_EXPERT_BUDGET": "0.25", "CARDTABLE_CREATE_LIMIT": "4",
        "CARDTABLE_ALLOWED_ORIGINS": "https://a.example, ,https://b.example",
        "CARDTABLE_GC_STATS": str(tmp_path / "gc.json")})
    assert (config.bot_delay, config.frame_rate, config.frame_burst) == (0.0, 7.5, 15)
    assert config.expert_budget == 0.25
    assert (config.create_limit, ServerConfig().create_limit) == (4, 10)
    bounded = ServerConfig.from_env(tmp_path, environ={
        "CARDTABLE_HELLO_TIMEOUT": "2.5", "CARDTABLE_SOCKET_LIMIT": "8",
        "CARDTABLE_HEADER_TIMEOUT": "3", "CARDTABLE_MAX_BODY": "1024"})
    assert (bounded.hello_timeout, bounded.socket_limit, bounded.header_timeout,
            bounded.max_body_bytes) == (2.5, 8, 3, 1024)
    defaults = ServerConfig()
    assert (defaults.hello_timeout, defaults.socket_limit, defaults.header_timeout,
            defaults.max_body_bytes) == (10.0, 64, 5, 65536)
    assert config.allowed_origins == ("https://a.example", "https://b.example")
    assert (config.gc_freeze, config.gc_thresholds, config.gc_stats) == (
        False, None, tmp_path / "gc.json")


@pytest.mark.parametrize(("variable", "value"), [
    ("CARDTABLE_BOT_DELAY", "soon"), ("CARDTABLE_JOIN_LIMIT", "2.5"),
    ("CARDTABLE_CREATE_LIMIT", "many"),
    ("CARDTABLE_EXPERT_BUDGET", "long"),
    ("CARDTABLE_EVICT_IDLE", "never"), ("CARDTABLE_GC", "sometimes"),
    ("CARDTABLE_TRUSTED_PROXIES", "proxy.internal"), ("CARDTABLE_HELLO_TIMEOUT", "0"),
    ("CARDTABLE_HELLO_TIMEOUT", "soon"), ("CARDTABLE_HEADER_TIMEOUT", "0"),
    ("CARDTABLE_HEADER_TIMEOUT", "2.5"), ("CARDTABLE_SOCKET_LIMIT", "lots"),
    ("CARDTABLE_MAX_BODY", "64k")])
def test_a_bad_value_is_refused_by_its_name(variable: str, value: str) -> None:
    with pytest.raises(ValueError, match=variable):
        ServerConfig.from_env(environ={variable: value})


def test_a_bad_value_stops_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CARDTABLE_SEAT_GRACE", "long")
    assert cli.main(["serve", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "cardtable serve: error: CARDTABLE_SEAT_GRACE must be a number, not 'long'" in err


def test_game_modules_from_the_environment_then_the_command_line() -> None:
    config = ServerConfig.from_env(game_modules=["third"], environ={
        GAME_MODULES_VARIABLE: " toy_war, ,cardtable.engine.games.gin"})
    assert config.game_modules == ("toy_war", "cardtable.engine.games.gin", "third")


def test_loading_game_modules_registers_their_games() -> None:
    assert load_game_modules(["toy_war", "cardtable.engine.games.gin"]) == ["toy_war", "gin"]
    assert "toy_war" in GAMES
    with pytest.raises(ValueError, match=f"{GAME_MODULES_VARIABLE}: cannot import "
                                         "'cardtable_no_such_game'"):
        load_game_modules(["cardtable_no_such_game"])


def test_a_game_module_that_cannot_be_imported_stops_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", "--data-dir", str(tmp_path),
                     "--game-module", "cardtable_no_such_game"]) == 2
    assert "cannot import 'cardtable_no_such_game'" in capsys.readouterr().err
    assert cli.main(["arena", "gin", "--game-module", "cardtable_no_such_game"]) == 2
    assert "cannot import 'cardtable_no_such_game'" in capsys.readouterr().err
    monkeypatch.setenv(GAME_MODULES_VARIABLE, "cardtable_no_such_game")
    assert cli.main(["serve", "--data-dir", str(tmp_path)]) == 2
    assert cli.main(["arena", "gin"]) == 2
    assert capsys.readouterr().err.count("cannot import 'cardtable_no_such_game'") == 2


def test_a_served_plug_in_game_is_listed_and_played_through_the_api(tmp_path: Path) -> None:
    """A real `cardtable serve` loads the toy game from the variable (the test process
    registered it too, but a server process knows only what it imports itself)."""
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    server = ServerProcess(tmp_path, env={GAME_MODULES_VARIABLE: "toy_war",
                                          "PYTHONPATH": path}).start()
    try:
        games = {g["name"]: g for g in httpx.get(f"{server.base_url}/api/games").json()["games"]}
        toy = games["toy_war"]
        assert toy["browser"] is False  # no board: the home page does not offer it
        assert toy["title"] == "War (toy)" and toy["players"] == [2]
        assert games["gin"]["browser"] is True
        grant = httpx.post(f"{server.base_url}/api/tables",
                           json={"game": "toy_war", "opponent": "friend", "name": "Ann"})
        assert grant.status_code == 201, grant.text
        info = httpx.get(f"{server.base_url}/api/tables/{grant.json()['code']}").json()
        assert (info["game"], info["title"], info["status"]) == (
            "toy_war", "War (toy)", "waiting")
    finally:
        server.stop()
