"""``GET /api/games`` explains each game (issue 14), and the pages built from it are served:
preset titles and notes, the rules summary, the option docs, ``/how/GAME`` and the web app
manifest. The browser side of the same is tests/web/test_howto.py."""

from __future__ import annotations

import httpx

from cardtable.engine import get_game
from server_harness import ServerProcess


def test_each_game_carries_its_preset_notes_rules_and_option_docs(server: ServerProcess) -> None:
    games = httpx.get(f"{server.base_url}/api/games").json()["games"]
    assert {"gin", "rummy", "rummy500", "romme", "indian", "spades"} <= {g["name"] for g in games}
    for game in games:
        options = get_game(game["name"]).options
        assert game["preset_titles"] == {p: options.PRESET_TITLES[p] for p in options.PRESETS}
        assert game["preset_notes"] == {p: options.PRESET_NOTES[p] for p in options.PRESETS}
        assert list(game["preset_notes"]) == game["presets"], "in the presets' order"
        assert game["rules"] == get_game(game["name"]).rules_text
        assert game["rules"] and not game["rules"].startswith((" ", "\n"))
        assert [o["doc"] for o in game["options"]] == [o["doc"] for o in options.describe()]
    romme = next(g for g in games if g["name"] == "romme")
    assert romme["preset_titles"]["dskv_online"] == "German online rooms (DSkV)"
    assert "joker left in hand costs 25" in romme["preset_notes"]["dskv_online"]


def test_how_to_play_pages_are_the_app_and_unknown_games_are_not_found(
        server: ServerProcess) -> None:
    index = httpx.get(f"{server.base_url}/")
    for path in ("/how", "/how/gin", "/how/spades"):
        page = httpx.get(server.base_url + path)
        assert page.status_code == 200 and page.text == index.text, path
        assert "script-src 'self'" in page.headers["content-security-policy"], path
    missing = httpx.get(f"{server.base_url}/how/chess")
    assert missing.status_code == 404 and missing.text == index.text  # the page says so


def test_the_manifest_is_served_with_its_type_and_linked_from_the_page(
        server: ServerProcess) -> None:
    answer = httpx.get(f"{server.base_url}/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    manifest = answer.json()
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    page = httpx.get(f"{server.base_url}/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'rel="apple-touch-icon"' in page
