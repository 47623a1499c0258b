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

    serve = commands.add_parser("serve", help="run the card room server (then open a browser)",
                                description="Serve the card room: SQLite in the data directory, "
                                            "or PostgreSQL when DATABASE_URL is set.")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument("--data-dir", type=Path, metavar="DIR",
                       help="where the SQLite database lives (default ~/.local/share/cardtable)")

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
    if args.command == "serve":
        return serve(args.host, args.port, args.data_dir)
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


def serve(host: str, port: int, data_dir: Path | None) -> int:
    import uvicorn

    from cardtable.server.app import create_app
    from cardtable.server.config import Settings

    settings = Settings.from_env(data_dir)
    where = "DATABASE_URL" if settings.database_url else settings.data_dir / "cardtable.db"
    print(f"cardtable {__version__}: open http://{host}:{port}/ in a browser (data: {where})",
          flush=True)
    # Frames over max_frame_bytes close the socket with 1009 inside the websockets library.
    uvicorn.run(create_app(settings), host=host, port=port, ws="websockets-sansio",
                ws_max_size=settings.max_frame_bytes, log_level="warning",
                timeout_graceful_shutdown=3)
    return 0


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
