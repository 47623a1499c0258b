"""The pure rules engine: no I/O, no asyncio, no server, database or web imports."""

from .api import GAMES, Action, Event, IllegalAction, get_game

__all__ = ["GAMES", "Action", "Event", "IllegalAction", "get_game"]
