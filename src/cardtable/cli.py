"""The ``cardtable`` command: ``play`` a match in the terminal, ``serve``, ``arena``, ``bench``.

>>> build_parser().parse_args(["play", "gin", "--seed", "7"]).seed
7
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import re
import secrets
import sys
import time
from collections.abc import Callable, Iterator
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
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument("--data-dir", type=Path, metavar="DIR",
                       help="where the SQLite database lives (default ~/.local/share/cardtable)")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="run N processes on this port as one card room (needs REDIS_URL "
                            "and DATABASE_URL on PostgreSQL; docs/deploy.md)")
    _game_module_option(serve)

    arena = commands.add_parser("arena", help="seeded bot-vs-bot matches of a game",
                                description="Play seeded matches between the computer "
                                            "players of GAME and report how they went.")
    arena.add_argument("game", metavar="GAME", help="a game with a computer player")
    arena.add_argument("--games", type=int, default=100, metavar="N", help="matches to play")
    arena.add_argument("--players", type=int, metavar="P",
                       help="seats per match (default: 2 if the game is played by two, "
                            "else its usual count)")
    arena.add_argument("--seed", type=int, default=0, metavar="S",
                       help="the first match's seed (match i plays seed S+i)")
    arena.add_argument("--preset", help="rules preset (default: the game's default)")
    arena.add_argument("--random", action="append", default=[], type=int, metavar="SEAT",
                       help="a seat played by a seeded random player instead (repeatable)")
    arena.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       dest="settings", help="an option on top of the preset (JSON value), "
                                             "e.g. --set target=200; repeatable")
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


def _game_module_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--game-module", action="append", default=[], metavar="MODULE",
                         dest="game_modules",
                         help="import MODULE first: it registers a game of its own "
                              "(repeatable; added to $CARDTABLE_GAME_MODULES)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return serve(args.host, args.port, args.data_dir, args.game_modules, args.workers)
    if args.command == "bench":
        return bench(args.name, args.args)
    if args.command == "play":
        return play(args.game, args.preset, args.target, args.seed)
    return arena(args.game, args.games, args.players, args.seed, args.preset, args.settings,
                 args.random, args.game_modules)


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
          game_modules: list[str] | None = None) -> int:
    """Bot against bot: seeded matches, with the figures that tell whether the bots work.

    Any registered game plays (its descriptor names its bot), a plug-in's too: the
    modules of ``$CARDTABLE_GAME_MODULES`` and ``game_modules`` are imported first.
    ``players`` defaults to 2 when the game is played by two, else to its usual
    count.  Match ``i`` deals from
    ``random.Random(seed + i)``.  A move the engine refuses
    is counted as illegal and replaced by a seeded random legal move, so one bad
    decision does not hide the rest.  ``random_seats`` are played by a random
    player (a yardstick: the bots should beat it by far); only the bots' moves and
    time are counted.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    from cardtable.bots.levels import bot_for
    from cardtable.engine import GAMES, IllegalAction, get_game
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
        players = 2 if 2 in descriptor.players else descriptor.players[0]
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
        if players not in descriptor.players or games < 1:
            raise ValueError(f"{game} seats {', '.join(map(str, descriptor.players))} players "
                             "and --games must be at least 1")
        if any(not 0 <= s < players for s in random_seats or []):
            raise ValueError(f"--random names a seat from 0 to {players - 1}")
    except ValueError as error:
        return fail(str(error))
    choose = bot_for(game)
    stats = _ArenaStats(players, set(random_seats or []))
    # The modules imported so far are there for good: leave them out
    # of the garbage collector's full passes, which would otherwise land, 50 ms at a time,
    # in whichever decision happens to be running.
    gc.collect()
    gc.freeze()
    started = time.perf_counter()
    try:
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"{game}, {players} players", total=games)
            for i in range(games):
                state = descriptor.new_match(options, players, random.Random(seed + i))
                stats.play(state, choose, random.Random(-1 - seed - i), IllegalAction)
                progress.advance(task)
    finally:
        gc.unfreeze()
    stats.report(console, Table, game, time.perf_counter() - started)
    return 1 if stats.illegal else 0


class _ArenaStats:
    """What ``arena`` counts while the bots play."""

    def __init__(self, players: int, random_seats: set[int]):
        self.random_seats = random_seats
        self.games = self.hands = self.turns = self.decisions = self.illegal = 0
        self.wins = [0.0] * players
        self.thinking = 0.0
        self.times: list[float] = []  # CPU seconds of every decision

    def play(self, state: Any, choose: Callable[[dict[str, Any]], Any], rng: random.Random,
             illegal: type[Exception]) -> None:
        last: int | None = None
        while not state.is_over():
            seat = state.current_player()
            if seat in self.random_seats:
                action = rng.choice(state.legal_actions())
            else:
                view = state.view(seat)
                clock = time.thread_time()  # CPU time: other processes don't count
                action = choose(view)
                spent = time.thread_time() - clock
                self.thinking += spent
                self.times.append(spent)
                self.decisions += 1
            if action.type == "deal":
                last = None  # a new hand: its first player's turn is a new turn
            elif seat != last:
                self.turns, last = self.turns + 1, seat
            try:
                state.apply(action)
            except illegal:
                self.illegal += 1
                state.apply(rng.choice(state.legal_actions()))
        result = state.result()
        self.games += 1
        self.hands += len(result.get("hands", []))
        winners = result.get("winners") or result.get("winning_seats")
        if winners is None and result.get("winner") is not None:
            winners = [result["winner"]]
        for seat in winners or []:
            self.wins[seat] += 1 / len(winners)

    def report(self, console: Any, table_type: Any, game: str, seconds: float) -> None:
        table = table_type(title=f"Bot arena: {game}", show_header=False)
        table.add_row("games played", f"{self.games:,}")
        table.add_row("hands played", f"{self.hands:,}")
        table.add_row("illegal moves", f"{self.illegal:,}")
        hands = max(self.hands, 1)
        table.add_row("average hand length", f"{self.turns / hands:.1f} turns "
                                             f"({self.decisions / hands:.1f} bot decisions)")
        share = "  ".join(f"seat {s}{' (random)' if s in self.random_seats else ''}: "
                          f"{w / max(self.games, 1):.1%}" for s, w in enumerate(self.wins))
        table.add_row("win share per seat", share)
        rate = self.decisions / self.thinking if self.thinking else 0.0
        table.add_row("decisions/second", f"{rate:,.0f} (bot CPU time)")
        times = sorted(self.times) or [0.0]
        table.add_row("decision time", f"median {times[len(times) // 2] * 1000:.2f} ms, "
                                       f"99% {times[len(times) * 99 // 100] * 1000:.2f} ms, "
                                       f"slowest {times[-1] * 1000:.1f} ms")
        table.add_row("wall time", f"{seconds:.1f} s")
        console.print(table)


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
