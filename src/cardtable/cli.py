"""The ``cardtable`` command: ``play`` a match in the terminal, or run a ``bench``.

>>> build_parser().parse_args(["play", "gin", "--seed", "7"]).seed
7
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import secrets
import sys
from pathlib import Path

from cardtable import __version__

GAMES_IN_TERMINAL = ("gin",)
# bench/ lives next to src/ in a source checkout; an installed wheel does not ship it.
BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardtable", description="An open-source card room.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser("play", help="play a match in the terminal against the computer",
                               description="Play a match in the terminal: you against the bot.")
    play.add_argument("game", choices=GAMES_IN_TERMINAL, metavar="GAME", help="gin")
    play.add_argument("--preset", default="standard",
                      help="rules preset: standard (default), pagat or oklahoma")
    play.add_argument("--target", type=int, metavar="N",
                      help="points that win the match (default: the preset's; 1 = one hand)")
    play.add_argument("--seed", type=int, metavar="N",
                      help="reproducible deals (otherwise the system's secure randomness)")

    bench = commands.add_parser("bench", help="run a benchmark (source checkout only)",
                                description="Run bench/<game>.py from the source checkout; "
                                            "the remaining arguments go to it.",
                                add_help=False)
    bench.add_argument("game", choices=GAMES_IN_TERMINAL, metavar="GAME", help="gin")
    bench.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the benchmark")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "play":
        return play(args.game, args.preset, args.target, args.seed)
    return bench(args.game, args.args)


def play(game: str, preset: str, target: int | None, seed: int | None) -> int:
    # Imported here so that `cardtable bench` does not pay for the terminal UI.
    from cardtable.engine.games import gin
    from cardtable.terminal import play_gin

    overrides: dict[str, object] = {"preset": preset}
    if target is not None:
        overrides["target"] = target
    try:
        options = gin.Options.from_dict(overrides)
    except ValueError as error:
        print(f"cardtable play {game}: error: {error}", file=sys.stderr)
        return 2
    rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
    return play_gin(options, rng)


def bench(game: str, argv: list[str]) -> int:
    path = BENCH_DIR / f"{game}.py"
    if not path.is_file():
        print(f"cardtable bench {game}: error: {path} not found; benchmarks run from a source "
              f"checkout of cardtable (git clone, then pip install -e .)", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location(f"cardtable_bench_{game}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before running so dataclasses and pickling inside the benchmark can find it,
    # and bench/ on the path so it can import its sibling modules (peers.py), as when run
    # directly with `python bench/gin.py`.
    sys.modules[spec.name] = module
    sys.path.insert(0, str(BENCH_DIR))
    try:
        spec.loader.exec_module(module)
        return int(module.main(argv))
    finally:
        sys.path.remove(str(BENCH_DIR))


if __name__ == "__main__":
    raise SystemExit(main())
