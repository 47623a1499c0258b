"""The pure rules engine: no I/O, no asyncio, no server, database or web imports."""

from .api import Action, Event, IllegalAction
from .registry import GAMES, Descriptor, descriptors, get_game, register
from .state import GameState

__all__ = ["GAMES", "Action", "Descriptor", "Event", "GameState", "IllegalAction",
           "descriptors", "get_game", "register"]
