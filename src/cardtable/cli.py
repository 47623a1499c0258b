"""The ``cardtable`` command: ``play`` a match in the terminal, ``serve``, ``arena``, ``bench``.

>>> build_parser().parse_args(["play", "gin", "--seed", "7"]).seed
7
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import random
import re
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardtable import __version__

# bench/ lives next to src/ in a source checkout; an installed wheel does not ship it.
BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardtable", description="An open-source card room.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser("play", help="play a match in the terminal against the computer",
                               description="Play a match in the terminal: you against the bot.")
    play.add_argument("game", choices=_TerminalGames(), metavar="GAME",
                      help="a game the terminal can draw: gin")
    play.add_argument("--preset", default="standard",
                      help="rules preset: standard (default), pagat or oklahoma")
    play.add_argument("--target", type=int, metavar="N",
                      help="points that win the match (default: the preset's; 1 = one hand)")
    play.add_argument("--seed", type=int, metavar="N",
                      help="reproducible deals (otherwise the system's secure randomness)")

    serve = commands.add_parser("serve", help="run the card room server (then open a browser)",
                                description="Serve the card room: SQLite in the data directory, "
                                            "or PostgreSQL when DATABASE_URL is set.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: %(default)s, this machine only)")
    serve.add_argument("--port", type=int, default=8000,
                       help="port to listen on (default: %(default)s)")
    serve.add_argument("--data-dir", type=Path, metavar="DIR",
                       help="where the SQLite database lives (default: $XDG_DATA_HOME/cardtable, "
                            "~/.local/share/cardtable without it)")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="run N processes on this port as one card room (needs REDIS_URL "
                            "and DATABASE_URL on PostgreSQL; docs/deploy.md) (default: "
                            "%(default)s process)")
    _game_module_option(serve)

    verify = commands.add_parser("verify", help="check a downloaded match: fair deals, legal "
                                               "moves, its result",
                                 description="Check a match file (the table's Download "
                                             "match): every shuffle against its commitment, "
                                             "the revealed orders against the deals, and a "
                                             "replay of every move to the result.")
    verify.add_argument("file", type=Path, metavar="FILE", help="the match's JSON file")

    replay = commands.add_parser("replay", help="replay a downloaded match move by move",
                                 description="Replay a match file with the engine: every "
                                             "move, and the scores after each hand.")
    replay.add_argument("file", type=Path, metavar="FILE", help="the match's JSON file")

    arena = commands.add_parser("arena", help="computer players against each other",
                                description="Play seeded matches of GAME between computer "
                                            "players, seats rotating, in parallel processes, "
                                            "and report how each played.",
                                formatter_class=_LateHelp)
    arena.add_argument("game", metavar="GAME",
                       help="the game to play: {games} (or one a --game-module registers)")
    arena.add_argument("--seats", metavar="A,B,...",
                       help="who plays: levels (easy, normal, hard, expert), random, or a "
                            "plug-in FILE.py:FACTORY; one per seat, one per side, or one for "
                            "all (default: normal everywhere)")
    arena.add_argument("--games", type=int, default=100, metavar="N",
                       help="matches to play (default: %(default)s matches)")
    arena.add_argument("--players", type=int, metavar="P",
                       help="seats per match (default: the game's usual count: 2 players, "
                            "4 in spades)")
    arena.add_argument("--seed", type=int, default=0, metavar="S",
                       help="the first deal's seed (each deal is played once per rotation) "
                            "(default: %(default)s)")
    arena.add_argument("--preset", help="rules preset (default: the game's default preset)")
    arena.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                       help="worker processes; 1 plays in this one (default: one per core, "
                            "%(default)s processes here)")
    arena.add_argument("--budget", type=float, metavar="SECONDS",
                       help="an expert's thinking time per decision (default: {expert_budget} "
                            "seconds)")
    arena.add_argument("--heap", type=int, default=0, metavar="N",
                       help="hold N live matches in every worker, as a busy server does, so "
                            "that decision times include its collector's passes (default: "
                            "%(default)s matches)")
    arena.add_argument("--json", type=Path, metavar="FILE",
                       help="also write the figures here (default: none, only printed)")
    arena.add_argument("--random", action="append", default=[], type=int, metavar="SEAT",
                       help="a seat played by a seeded random player (repeatable; without "
                            "--seats) (default: none)")
    arena.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       dest="settings", help="an option on top of the preset (JSON value), "
                                             "e.g. --set target=200; repeatable (default: "
                                             "none, the preset's options)")
    _game_module_option(arena)

    bench = commands.add_parser("bench", help="run a benchmark (source checkout only)",
                                description="Run bench/<name>.py from the source checkout "
                                            "(gin: the Gin engine, engine: every game's); "
                                            "the remaining arguments go to it.",
                                add_help=False)
    bench.add_argument("name", metavar="NAME", help="a benchmark of bench/: gin, engine, ...")
    bench.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the benchmark")
    return parser


class _TerminalGames:
    """The games ``cardtable play`` can draw (their descriptor's ``terminal``), looked up
    when a command line is checked: building the parser must not import every game."""

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    @staticmethod
    def _names() -> list[str]:
        from cardtable.engine import descriptors

        return [game.name for game in descriptors() if game.terminal]


class _LateHelp(argparse.HelpFormatter):
    """Fills ``{games}`` (the registered games) and ``{expert_budget}`` (an expert's
    default thinking time) into a help line when the help is printed: every command
    builds the parser, and building it must not import the games and the bots.
    ``_get_help_string`` is the hook the standard library's own
    ``ArgumentDefaultsHelpFormatter`` overrides."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text is None:
            return None
        for placeholder, value in (("{games}", _game_names), ("{expert_budget}", _expert_budget)):
            if placeholder in text:
                text = text.replace(placeholder, value())
        return text


def _game_names() -> str:
    from cardtable.engine import GAMES

    return ", ".join(GAMES)


def _expert_budget() -> str:
    from cardtable.bots.levels import EXPERT_BUDGET

    return f"{EXPERT_BUDGET:g}"


def _game_module_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--game-module", action="append", default=[], metavar="MODULE",
                         dest="game_modules",
                         help="import MODULE first: it registers a game of its own "
                              "(repeatable; added to $CARDTABLE_GAME_MODULES) (default: none)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return serve(args.host, args.port, args.data_dir, args.game_modules, args.workers)
    if args.command == "bench":
        return bench(args.name, args.args)
    if args.command == "play":
        return play(args.game, args.preset, args.target, args.seed)
    if args.command == "verify":
        return verify(args.file)
    if args.command == "replay":
        return replay(args.file)
    return arena(args.game, args.games, args.players, args.seed, args.preset, args.settings,
                 args.random, args.game_modules, seats=args.seats, jobs=args.jobs,
                 budget=args.budget, heap=args.heap, json_path=args.json)


def play(game: str, preset: str, target: int | None, seed: int | None) -> int:
    """A match in the terminal against the game's bot (``game``: a descriptor's
    ``terminal``; the terminal UI, :mod:`cardtable.terminal`, draws Gin Rummy)."""
    # Imported here so that `cardtable bench` does not pay for the terminal UI.
    from cardtable.engine import get_game
    from cardtable.terminal import play_gin

    overrides: dict[str, object] = {"preset": preset}
    if target is not None:
        overrides["target"] = target
    try:
        options = get_game(game).options.from_dict(overrides)
    except ValueError as error:
        print(f"cardtable play {game}: error: {error}", file=sys.stderr)
        return 2
    rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
    return play_gin(options, rng)


def verify(path: Path) -> int:
    """Check a downloaded match (:mod:`cardtable.match_file`). Exit status: 0 when it holds,
    1 when it does not (every problem printed), 2 when the file cannot be read."""
    from cardtable.match_file import verify as check

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        print(f"cardtable verify: error: cannot read {path}: {error}", file=sys.stderr)
        return 2
    verdict = check(document)
    if not verdict.ok:
        print(f"{path}: FAILED")
        for problem in verdict.problems:
            print(f"  - {problem}")
        return 1
    print(f"{path}: OK: {verdict.shuffles} shuffles match their commitments and are the deals "
          f"of the record; {verdict.moves} moves replay legally to the "
          f"{'result' if verdict.result is not None else 'agreed end'}")
    if verdict.result is not None:
        print(json.dumps(verdict.result, sort_keys=True))
    return 0


def replay(path: Path) -> int:
    """Print a match file move by move (:func:`cardtable.match_file.replay_lines`). Exit
    status: 0, 1 when the record does not replay, 2 when the file cannot be read."""
    from cardtable.match_file import replay_lines

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        lines = replay_lines(document)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        print(f"cardtable replay: error: cannot read {path}: {error}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError) as error:
        print(f"cardtable replay: error: {path} does not replay: {error}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def serve(host: str, port: int, data_dir: Path | None, game_modules: list[str],
          workers: int = 1) -> int:
    from cardtable.server.app import create_app
    from cardtable.server.config import ServerConfig
    from cardtable.server.serving import run_one, run_workers

    try:  # the one reading of the environment: everything below gets this config
        config = ServerConfig.from_env(data_dir, game_modules=game_modules)
        if workers < 1:
            raise ValueError("--workers must be 1 or more")
        if workers > 1 and config.redis_url is None:
            raise ValueError("--workers needs REDIS_URL (and DATABASE_URL on PostgreSQL): "
                             "the processes share their tables through Redis (docs/deploy.md)")
        app = create_app(config) if workers == 1 else None
    except ValueError as error:
        print(f"cardtable serve: error: {error}", file=sys.stderr)
        return 2
    where = "DATABASE_URL" if config.database_url else config.data_dir / "cardtable.db"
    processes = f", {workers} processes" if workers > 1 else ""
    print(f"cardtable {__version__}: open http://{host}:{port}/ in a browser (data: {where}"
          f"{processes})", flush=True)
    if app is None:
        run_workers(config, host, port, workers)
        return 0
    return 0 if run_one(app, config, host, port) else 3


def arena(game: str, games: int, players: int | None, seed: int, preset: str | None,
          settings: list[str], random_seats: list[int] | None = None,
          game_modules: list[str] | None = None, seats: str | None = None, jobs: int = 1,
          budget: float | None = None, heap: int = 0, json_path: Path | None = None) -> int:
    """Computer against computer: seeded matches, seats rotating, with the figures that
    tell how each player plays (:mod:`cardtable.bots.arena`).

    Any registered game plays (its descriptor names its bots), a plug-in's too: the
    modules of ``$CARDTABLE_GAME_MODULES`` and ``game_modules`` are imported first.
    ``players`` defaults to the game's usual count (Spades: four, in sides of two).
    Exit status: 0, 1 if any move was illegal or a match stalled, 2 for a bad command line.
    """
    from rich.console import Console

    from cardtable.bots.arena import parse_seats
    from cardtable.engine import GAMES, get_game
    from cardtable.server.config import game_modules_from_env, load_game_modules

    console, errors = Console(), Console(stderr=True)

    def fail(message: str) -> int:
        # One line, however narrow the terminal: a log or a test reads it whole.
        errors.print(f"cardtable arena: error: {message}", style="red", highlight=False,
                     soft_wrap=True)
        return 2

    try:
        load_game_modules(game_modules_from_env() + tuple(game_modules or ()))
    except ValueError as error:
        return fail(str(error))
    if game not in GAMES:
        return fail(f"no computer player for {game!r}; games: {', '.join(GAMES)}")
    descriptor = get_game(game)
    if players is None:
        players = descriptor.players[0]
    try:
        overrides: dict[str, Any] = {"preset": preset} if preset else {}
        for item in settings:
            key, sep, text = item.partition("=")
            if not sep:
                raise ValueError(f"--set wants KEY=VALUE, not {item!r}")
            try:
                overrides[key] = json.loads(text)
            except json.JSONDecodeError:
                overrides[key] = text  # a bare word: a string option
        options = descriptor.options.from_dict(overrides)
        if players not in descriptor.players or games < 1 or jobs < 1 or heap < 0:
            raise ValueError(f"{game} seats {', '.join(map(str, descriptor.players))} players; "
                             "--games and --jobs must be at least 1")
        if any(not 0 <= s < players for s in random_seats or []):
            raise ValueError(f"--random names a seat from 0 to {players - 1}")
        if seats is not None and random_seats:
            raise ValueError("--random goes without --seats (name 'random' in --seats)")
        entrants = parse_seats(seats, random_seats or [], players, descriptor.teams(players))
    except ValueError as error:
        return fail(str(error))
    return _run_arena(console, game, options.to_dict(), players, entrants, games, seed, jobs,
                      budget, heap, json_path, set(random_seats or []))


def _run_arena(console: Any, game: str, options: dict[str, Any], players: int,
               entrants: list[Any], games: int, seed: int, jobs: int, budget: float | None,
               heap: int, json_path: Path | None, random_seats: set[int]) -> int:
    import multiprocessing

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from cardtable.bots import arena as matches
    from cardtable.bots.arena_report import ArenaTally

    tally = ArenaTally([e.label for e in entrants])
    # A seat given to the random player stays that seat: the yardstick is per seat.
    work = list(matches.jobs(game, options, players, entrants, games, seed, budget,
                             rotate=not random_seats))
    started = time.perf_counter()
    title = f"{game}, {players} players: {' v '.join(tally.entrants)}"
    # Workers are forked before the progress bar starts its thread, and inherit the games
    # registered so far (a plug-in's too).
    pool = None if jobs == 1 else multiprocessing.get_context("fork").Pool(
        jobs, matches.worker_start, (game, heap))
    frozen = gc.get_freeze_count()
    try:
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(title, total=games)
            if pool is None:
                matches.worker_start(game, heap)
                for job in work:
                    tally.add(matches.play_match(job))
                    progress.advance(task)
            else:
                for report in pool.imap_unordered(matches.play_match, work, chunksize=1):
                    tally.add(report)
                    progress.advance(task)
    finally:
        if pool is not None:
            pool.terminate()
        elif not frozen:
            gc.unfreeze()
    seconds = time.perf_counter() - started
    tally.print(console, f"Bot arena: {title}", seconds, random_seats)
    if json_path is not None:
        tally.write_json(json_path, {"game": game, "players": players, "options": options,
                                     "seats": [e.spec for e in entrants], "seed": seed,
                                     "budget": budget, "heap": heap, "jobs": jobs,
                                     "wall_seconds": seconds})
    return 1 if tally.illegal or tally.stalled else 0


def bench(name: str, argv: list[str]) -> int:
    if not BENCH_DIR.is_dir():
        print(f"cardtable bench {name}: error: {BENCH_DIR} not found; benchmarks run from a "
              f"source checkout of cardtable (git clone, then pip install -e .)",
              file=sys.stderr)
        return 2
    # A benchmark is a module of bench/ with a main(argv); the others are its helpers.
    known = sorted(p.stem for p in BENCH_DIR.glob("*.py")
                   if p.stem.isidentifier() and re.search(r"^def main\(", p.read_text(), re.M))
    if name not in known:
        print(f"cardtable bench: error: no benchmark {name!r}; benchmarks: {', '.join(known)}",
              file=sys.stderr)
        return 2
    path = BENCH_DIR / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"cardtable_bench_{name}", path)
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
