"""How real the expert's Gin worlds are: the opponent's deadwood in play, in its guessed
worlds, and in worlds dealt uniformly from the unseen cards.

Two hard players play seeded matches; at a third of the turns' starts (chosen by a seeded
coin) the seat to draw is asked for worlds as the expert deals them
(``gin.hard.guess_hidden``, then ``resample(seat, rng, held)``) and as plain ``resample``
deals them.  Printed per band of the stock: the opponent's true deadwood, and the mean
over the worlds of each kind.  The constants ``WORLD_EXTRA_SHARE`` and
``WORLD_EXTRA_MOST`` of ``bots/gin/hard_read.py`` were chosen so that the guessed column
follows the true one (docs/benchmarks.md, "The expert's worlds").

    python bench/gin_worlds.py --matches 60
"""

from __future__ import annotations

import argparse
import random
from statistics import mean

from rich.console import Console
from rich.progress import track
from rich.table import Table

from cardtable.bots.gin import hard
from cardtable.engine import get_game
from cardtable.engine.games.gin.showdown import SOLVER

BANDS = [(25, 31), (20, 24), (15, 19), (10, 14), (2, 9)]
WORLDS = 4


def band_of(stock: int) -> tuple[int, int] | None:
    return next((b for b in BANDS if b[0] <= stock <= b[1]), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = get_game("gin")
    seen: dict[tuple[int, int], dict[str, list[float]]] = {
        b: {"true": [], "guessed": [], "uniform": []} for b in BANDS}
    for match in track(range(args.matches), description="hard v hard"):
        state = game.new_match(rng=random.Random(args.seed + match))
        rng = random.Random(10**6 + args.seed + match)
        while not state.is_over():
            seat = state.current_player()
            view = state.view(seat)
            band = band_of(int(view.get("stock", 0)))
            if view.get("phase") == "draw" and band is not None and rng.random() < 1 / 3:
                other = 1 - seat
                guess = hard.guess_hidden(view)
                row = seen[band]
                row["true"].append(SOLVER.deadwood(state.hands[other]))
                row["guessed"].append(mean(
                    SOLVER.deadwood(state.resample(seat, rng, guess(rng)).hands[other])
                    for _ in range(WORLDS)))
                row["uniform"].append(mean(
                    SOLVER.deadwood(state.resample(seat, rng).hands[other])
                    for _ in range(WORLDS)))
            state.apply(hard.choose(view))
    table = Table(title="The opponent's deadwood at the start of our turn (means)")
    for column in ("stock", "turns", "in play", "guessed worlds", "uniform worlds"):
        table.add_column(column, justify="right")
    for (low, high), row in seen.items():
        if row["true"]:
            table.add_row(f"{low}-{high}", str(len(row["true"])), f"{mean(row['true']):.1f}",
                          f"{mean(row['guessed']):.1f}", f"{mean(row['uniform']):.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
