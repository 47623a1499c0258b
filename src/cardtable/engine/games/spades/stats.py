"""Spades statistics: bids made exactly, nils made and set, bags a hand."""

from __future__ import annotations

from typing import Any

from ...stats import Stat, Stats, add, seats_of


def count(state: Any) -> list[dict[str, int]]:
    sums = seats_of(state.players)
    for hand in state.result()["hands"]:
        bags = {seat: side.get("bags", 0) for side in hand.get("sides", [])
                for seat in side["seats"]}
        for seat, mine in enumerate(sums):
            bid, tricks = hand["bids"][seat], hand["tricks"][seat]
            add(mine, "hands")
            add(mine, "bags", int(bags.get(seat, 0)))
            if bid == 0:
                add(mine, "nils")
                add(mine, "nils_made" if tricks == 0 else "nils_set")
            elif bid == tricks:
                add(mine, "bids_exact")
    return sums


STATS = Stats(count, (
    Stat("Bids made exactly", "bids_exact", "hands", percent=True),
    Stat("Nils made", "nils_made"),
    Stat("Nils set", "nils_set"),
    Stat("Bags a hand (his side's)", "bags", "hands"),
))
