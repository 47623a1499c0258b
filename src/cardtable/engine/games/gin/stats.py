"""Gin statistics: gins, knocks, undercuts, the deadwood a player knocks with."""

from __future__ import annotations

from typing import Any

from ...stats import Stat, Stats, add, seats_of


def count(state: Any) -> list[dict[str, int]]:
    sums = seats_of(state.players)
    for hand in state.result()["hands"]:
        knocker = hand.get("knocker_seat")
        for seat, mine in enumerate(sums):
            add(mine, "hands")
            if hand.get("winner") == seat:
                add(mine, "hands_won")
        if knocker is None:
            continue
        if hand["kind"] in ("gin", "big_gin"):
            add(sums[knocker], "gins")
        else:
            add(sums[knocker], "knocks")
            add(sums[knocker], "knock_deadwood", int(hand["knocker"]["points"]))
            if hand["kind"] == "undercut":
                add(sums[1 - knocker], "undercuts")
    return sums


STATS = Stats(count, (
    Stat("Hands won", "hands_won", "hands", percent=True),
    Stat("Gins", "gins"),
    Stat("Knocks", "knocks"),
    Stat("Undercuts", "undercuts"),
    Stat("Average deadwood at a knock", "knock_deadwood", "knocks"),
))
