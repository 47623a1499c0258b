"""Statistics of the Rummy family (Rummy, Rummy 500, Rommé): hands won, the penalty a
player is caught with, and the turn of a hand he first melds on.

The first-meld turn is not in the result: the match is replayed from its record, and a
seat's turn count goes up each time the move passes to it."""

from __future__ import annotations

from typing import Any

from ..api import Action
from ..stats import Stat, Stats, add, seats_of


def count(state: Any) -> list[dict[str, int]]:
    sums = seats_of(state.players)
    for hand in state.result()["hands"]:
        for seat, mine in enumerate(sums):
            add(mine, "hands")
            if hand.get("winner") == seat:
                add(mine, "hands_won")
            add(mine, "penalty", int(hand.get("values", [0] * state.players)[seat]))
    record = state.record()
    replay = type(state).from_record({**record, "actions": []})
    turns, melded, last = [0] * state.players, [False] * state.players, None
    for data in record["actions"]:
        seat = replay.current_player()
        action = Action.from_json(data)
        if action.type == "deal":
            turns, melded, last = [0] * state.players, [False] * state.players, None
        elif seat is not None:
            if seat != last:
                turns[seat] += 1
            last = seat
            if action.type == "meld" and not melded[seat]:
                melded[seat] = True
                add(sums[seat], "first_melds")
                add(sums[seat], "first_meld_turns", turns[seat])
        replay.apply_unchecked(replay.canonical(action))
    return sums


STATS = Stats(count, (
    Stat("Hands won", "hands_won", "hands", percent=True),
    Stat("Average penalty", "penalty", "hands"),
    Stat("First meld on turn (average)", "first_meld_turns", "first_melds"),
))
