"""Indian Rummy statistics: deals won, drops, wrong shows."""

from __future__ import annotations

from typing import Any

from ...stats import Stat, Stats, add, seats_of


def count(state: Any) -> list[dict[str, int]]:
    sums = seats_of(state.players)
    for deal in state.result()["hands"]:
        for seat, status in enumerate(deal.get("status", [])):
            if status == "out":
                continue
            mine = sums[seat]
            add(mine, "deals")
            if deal.get("winner") == seat:
                add(mine, "deals_won")
            if status == "dropped":
                add(mine, "drops")
            elif status == "wrong_show":
                add(mine, "wrong_shows")
    return sums


STATS = Stats(count, (
    Stat("Deals won", "deals_won", "deals", percent=True),
    Stat("Drops", "drops"),
    Stat("Wrong shows", "wrong_shows"),
))
