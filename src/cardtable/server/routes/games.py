"""``GET /api/games``: every registered game, with what a client needs to offer it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...bots.levels import LEVEL_TITLES, LEVELS
from ...engine import Descriptor, descriptors

router = APIRouter()


@router.get("/api/games")
async def games() -> dict[str, Any]:
    return {"games": [game_entry(descriptor) for descriptor in descriptors()]}


def game_entry(game: Descriptor) -> dict[str, Any]:
    """One game of the listing (docs/protocol.md, ``GET /api/games``).

    >>> from cardtable.engine import get_game
    >>> entry = game_entry(get_game("spades"))
    >>> entry["title"], entry["players"], entry["browser"], entry["teams"]["4"]
    ('Spades', [4, 3, 2], True, [[0, 2], [1, 3]])
    >>> entry["preset_titles"]["classic"], entry["rules"].startswith("Four players")
    ('Classic (2 of clubs leads)', True)
    """
    options = game.options
    return {
        "name": game.name, "title": game.title,
        # The home page offers only the games the browser has a board for.
        "browser": game.board,
        "players": list(game.players), "presets": list(options.PRESETS),
        "default_preset": options.DEFAULT_PRESET,
        "preset_titles": {p: options.PRESET_TITLES.get(p, p) for p in options.PRESETS},
        "preset_notes": {p: options.PRESET_NOTES.get(p, "") for p in options.PRESETS},
        "preset_values": {preset: options.preset(preset).to_dict()
                          for preset in options.PRESETS},
        "rules": game.rules_text,
        "express": dict(options.EXPRESS),
        "options": options.describe(),
        "partnerships": game.partnerships,
        "seat_notes": {str(players): note for players, note in game.seat_notes},
        "teams": {str(players): game.teams(players) for players in game.players},
        # The computer levels a table offers, weakest first, and their names in menus.
        "levels": list(LEVELS),
        "level_titles": {level: LEVEL_TITLES.get(level, level) for level in LEVELS},
    }
