"""How fast every game's engine plays: random hands/s, and µs per legal_actions, apply, resample.

``cardtable bench engine`` (or ``python bench/engine.py``) plays uniformly random legal moves
in every registered game (``cardtable.engine.GAMES``) and, where one exists, in the OpenSpiel
peer driven from Python (``pyspiel``: spades, gin_rummy), then prints per game:

* random hands per second of the process's CPU time: hands end at a ``hand_over`` or
  ``deal_over`` event (OpenSpiel: a terminal state, one hand per game); dealing and starting
  new matches count as play;
* µs per ``legal_actions`` (p50, p99), per ``apply`` and per ``resample(seat)`` of the seat
  to act, each call timed on its own in a second stretch of the same random play, and per
  spectator ``view`` at each hand's end (the outcome as players see it: a game may build
  it only when it is read, as Indian Rummy does its hands' arrangements).

Each side runs in a subprocess of its own, in rounds (``--rounds``), the sides' order turning
every round: this tree, with ``--baseline PATH`` another source tree (``PYTHONPATH=PATH/src``,
e.g. the code before a change), and OpenSpiel.  The machine is shared and noisy, so the
figures are medians over rounds and a ratio is the median of the rounds' ratios (both sides
measured minutes apart at most).

    git archive 8596528 src | tar -x -C /tmp/old     # the tree before issue 13
    python bench/engine.py --baseline /tmp/old --rounds 5 --seconds 2 --json /tmp/engine.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

HAND_EVENTS = frozenset({"hand_over", "deal_over"})
OPENSPIEL_NAMES = {"spades": "spades", "gin": "gin_rummy"}  # our game -> its OpenSpiel peer
PER_CALL_SHARE = 0.5  # the per-call stretch lasts this share of the throughput stretch
RESAMPLE_EVERY = 4  # resample at every 4th position of the per-call stretch
CLOCK_EVERY_MOVES = 1024  # between hands, look at the clock this often (a very long hand)
MATCH_HANDS = 25  # a match still on after this many hands is left for a new one (see Match)
PROGRESS_EVERY_S = 0.1
SRC = Path(__file__).resolve().parents[1]


# --- the worker: one side, one round, in its own process --------------------------------------


class Playout(NamedTuple):
    """One game's random play, the same shape for ours and OpenSpiel's."""

    new: Callable[[int], Any]  # seed -> a state ready for a move
    legal: Callable[[Any], list[Any]]
    step: Callable[[Any, Any], int]  # play a move; how many hands it finished
    over: Callable[[Any], bool]  # the match is over: start a new one
    resample: Callable[[Any, random.Random], object] | None
    view: Callable[[Any], object] | None  # what a spectator is sent (timed at each hand's end)


def our_playout(name: str) -> Playout:
    from cardtable.engine import get_game

    game = get_game(name)

    def new(seed: int) -> Any:
        return game.new_match(rng=random.Random(seed))

    first = new(0)
    # The unchecked apply where the state has one (the shared base of issue 13).
    apply = getattr(type(first), "apply_unchecked", type(first).apply)

    def step(state: Any, action: Any) -> int:
        finished = 0  # a plain loop: a generator would cost more than some moves do
        for event in apply(state, action):
            if event.type in HAND_EVENTS:
                finished += 1
        return finished

    def resample(state: Any, rng: random.Random) -> object:
        return state.resample(state.current_player(), rng)

    def view(state: Any) -> object:
        return state.view(None)

    return Playout(new, type(first).legal_actions, step, type(first).is_over, resample, view)


def openspiel_playout(name: str) -> Playout:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    chance = random.Random(0)

    def settle(state: Any) -> None:
        # Chance nodes (each dealt card, each stock draw) are part of play, as in peers.py.
        while state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(chance.choices(outcomes, probabilities)[0])

    def new(seed: int) -> Any:
        chance.seed(seed)
        state = game.new_initial_state()
        settle(state)
        return state

    def step(state: Any, action: int) -> int:
        state.apply_action(action)
        settle(state)
        return 1 if state.is_terminal() else 0

    kind = type(game.new_initial_state())  # its methods unbound, as ours: no lambda frames
    return Playout(new, kind.legal_actions, step, kind.is_terminal, None, None)


class Budget:
    """A stretch of play: ``seconds`` of this process's CPU time, or ``hands`` hands.

    CPU time, not wall time: the machine is shared, and a process waiting for a core
    would otherwise count the other processes' work as its own slowness.
    """

    def __init__(self, seconds: float | None, hands: int | None, report: Callable[[float], None]):
        self.seconds, self.hands, self._report = seconds, hands, report
        self.cpu_start, self.wall_start = time.process_time(), time.perf_counter()
        self._last_report = self.wall_start

    def done(self, hands: int) -> bool:
        if self.hands is not None:
            fraction = hands / self.hands
        else:
            assert self.seconds is not None
            fraction = (time.process_time() - self.cpu_start) / self.seconds
        now = time.perf_counter()
        if now - self._last_report >= PROGRESS_EVERY_S:
            self._report(min(fraction, 1.0))
            self._last_report = now
        return fraction >= 1.0

    def figures(self, hands: int) -> dict[str, float]:
        cpu = time.process_time() - self.cpu_start
        wall = time.perf_counter() - self.wall_start
        return {"hands": hands, "cpu_seconds": cpu, "hands_per_s": hands / cpu,
                "cpu_share": cpu / wall}


class Match:
    """The match being played, started anew when it ends or has lasted
    :data:`MATCH_HANDS` hands (random Spades bids are mostly set, so its scores sink and a
    match to 500 would never end, its history growing without bound)."""

    def __init__(self, playout: Playout, seed: int):
        self._new, self._over, self._seed = playout.new, playout.over, seed
        self.state, self.hands = self._new(seed), 0

    def after(self, finished: int) -> None:
        """After a move that finished ``finished`` hands: a new match if this one is done."""
        self.hands += finished
        if self.hands >= MATCH_HANDS or self._over(self.state):
            # A new match is part of play, as a new deal is.
            self._seed += 1
            self.state, self.hands = self._new(self._seed), 0


def throughput(playout: Playout, budget: Budget, seed: int) -> dict[str, float]:
    """Random play, untimed move by move: hands per CPU second."""
    legal, step = playout.legal, playout.step
    choose = random.Random(seed)
    match = Match(playout, seed * 1000)
    hands = 0
    while not budget.done(hands):
        finished, moves = 0, 0
        while not finished and moves < CLOCK_EVERY_MOVES:
            state = match.state
            finished = step(state, choose.choice(legal(state)))
            moves += 1
            match.after(finished)
        hands += finished
    return budget.figures(hands)


def per_call(playout: Playout, budget: Budget, seed: int) -> dict[str, dict[str, float]]:
    """Random play with every legal_actions, apply and resample timed on its own."""
    legal, step, resample = playout.legal, playout.step, playout.resample
    choose, redeal = random.Random(seed), random.Random(seed + 1)
    match = Match(playout, seed * 1000 + 500)
    hands = 0
    times: dict[str, list[int]] = {"legal_actions": [], "apply": [], "resample": [],
                                   "hand_end_view": []}
    clock = time.perf_counter_ns
    while not budget.done(hands):
        for _ in range(CLOCK_EVERY_MOVES):
            state = match.state
            t0 = clock()
            moves = legal(state)
            t1 = clock()
            if resample is not None and len(times["legal_actions"]) % RESAMPLE_EVERY == 0:
                resample(state, redeal)
                times["resample"].append(clock() - t1)
            action = choose.choice(moves)
            t2 = clock()
            finished = step(state, action)
            t3 = clock()
            times["legal_actions"].append(t1 - t0)
            times["apply"].append(t3 - t2)
            if finished and playout.view is not None:
                # The outcome as players see it, revealed hands and all: built here at the
                # latest (a game may build it on first read, as Indian Rummy's arrangements).
                playout.view(state)
                times["hand_end_view"].append(clock() - t3)
            match.after(finished)
            if finished:
                hands += finished
                break
    return {kind: summary_us(ns) for kind, ns in times.items() if ns}


def summary_us(ns: list[int]) -> dict[str, float]:
    ns.sort()
    return {"calls": len(ns), "mean": statistics.fmean(ns) / 1000, "p50": ns[len(ns) // 2] / 1000,
            "p99": ns[min(len(ns) - 1, len(ns) * 99 // 100)] / 1000}


def measure_game(playout: Playout, args: argparse.Namespace, seed: int,
                 report: Callable[[float], None]) -> dict[str, Any]:
    # Warm-up: lazily built tables and caches are not the steady state we time.
    throughput(playout, Budget(None, 1, lambda _: None), seed + 77)
    share = 1 / (1 + PER_CALL_SHARE)
    seconds = args.seconds and args.seconds * PER_CALL_SHARE
    hands = args.hands and max(1, round(args.hands * PER_CALL_SHARE))
    figures: dict[str, Any] = throughput(
        playout, Budget(args.seconds, args.hands, lambda f: report(f * share)), seed)
    figures |= per_call(playout, Budget(seconds, hands, lambda f: report(share + f * (1 - share))),
                        seed)
    return figures


def worker(args: argparse.Namespace) -> None:
    """Measure ``args.games`` on one side; JSON lines on stdout: progress, then the figures."""

    def say(message: dict[str, Any]) -> None:
        print(json.dumps(message), flush=True)

    results: dict[str, Any] = {}
    for name in args.games:
        def report(fraction: float, name: str = name) -> None:
            say({"game": name, "fraction": fraction})

        try:
            playout = openspiel_playout(name) if args.worker == "openspiel" else our_playout(name)
            results[name] = measure_game(playout, args, args.seed, report)
        except Exception as error:  # a game half-way through a change costs its own row only
            results[name] = {"error": f"{type(error).__name__}: {error}"}
        report(1.0)
    where = "pyspiel" if args.worker == "openspiel" else _cardtable_path()
    say({"result": results, "code": where})


def _cardtable_path() -> str:
    import cardtable

    return str(Path(cardtable.__file__).resolve().parents[1])


# --- the parent: rounds of workers, then the report ---------------------------------------------


class Side(NamedTuple):
    label: str
    worker: str  # "tree" or "openspiel"
    tree: Path | None  # the source tree whose src/ the worker imports


def run_worker(side: Side, games: list[str], args: argparse.Namespace, seed: int,
               progress: Callable[[str, float], None]) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", side.worker,
               "--games", ",".join(games), "--seed", str(seed)]
    command += ["--hands", str(args.hands)] if args.hands else ["--seconds", str(args.seconds)]
    env = dict(os.environ)
    if side.tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(side.tree / "src"), env.get("PYTHONPATH", "")])
    # stderr to a file: a pipe nobody reads until the end could fill up and stall the worker
    with tempfile.TemporaryFile("w+") as errors, subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=errors, text=True, env=env,
            cwd="/") as process:  # not this tree's directory: only PYTHONPATH says which code
        assert process.stdout is not None
        answer: dict[str, Any] | None = None
        for line in process.stdout:
            message = json.loads(line)
            if "result" in message:
                answer = message
            else:
                progress(message["game"], games.index(message["game"]) + message["fraction"])
        process.wait()
        errors.seek(0)
        why = errors.read()[-2000:]
    if answer is None:
        raise RuntimeError(f"the {side.label} worker failed:\n{why}")
    if side.tree is not None and Path(answer["code"]) != (side.tree / "src").resolve():
        raise RuntimeError(f"the {side.label} worker imported cardtable from {answer['code']}")
    return dict(answer["result"])


def rotated(items: list[Side], by: int) -> list[Side]:
    by %= len(items)
    return items[by:] + items[:by]


def measure_rounds(sides: list[Side], games: list[str], args: argparse.Namespace,
                   console: Any) -> list[dict[str, dict[str, Any]]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gin_report import Bars

    def games_of(side: Side) -> list[str]:
        return [g for g in games if side.worker == "tree" or g in OPENSPIEL_NAMES]

    slots = sum(len(games_of(side)) for side in sides)
    rounds: list[dict[str, dict[str, Any]]] = []
    with Bars(console) as bars:
        task = bars.task("engine", args.rounds * slots)
        done = 0
        for number in range(args.rounds):
            figures: dict[str, dict[str, Any]] = {}
            for side in rotated(sides, number):
                def progress(game: str, units: float, side: Side = side, number: int = number,
                             base: int = done) -> None:
                    bars.set(task, base + units,
                             f"round {number + 1}/{args.rounds} {side.label}: {game}")

                figures[side.label] = run_worker(side, games_of(side), args, number + 1,
                                                 progress)
                done += len(games_of(side))
            rounds.append(figures)
        bars.finish(task)
    return rounds


# --- command line --------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cardtable bench engine",
        description="Random-play speed of every game's engine, next to OpenSpiel and, with "
                    "--baseline, another source tree, in interleaved rounds.")
    parser.add_argument("--games", type=lambda s: [g for g in s.split(",") if g],
                        help="comma-separated games (default: every registered game)")
    parser.add_argument("--only", metavar="GAME", help="one game (same as --games GAME)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=2.0,
                        help="CPU seconds of random play per game, side and round (default 2), "
                             f"plus {PER_CALL_SHARE:g}× that timing each call")
    budget.add_argument("--hands", type=int, help="hands per game, side and round instead")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--baseline", type=Path, metavar="PATH",
                        help="a second source tree (PATH/src is imported), measured alongside")
    parser.add_argument("--no-peers", action="store_true", help="skip OpenSpiel")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure here")
    parser.add_argument("--worker", choices=("tree", "openspiel"), help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.only:
        if args.games:
            parser.error("--only and --games: give one of them")
        args.games = [args.only]
    if args.hands is not None:
        args.seconds = None
        if args.hands < 1:
            parser.error("--hands must be positive")
    elif args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.rounds < 1:
        parser.error("--rounds must be positive")
    if args.baseline is not None and not (args.baseline / "src" / "cardtable").is_dir():
        parser.error(f"--baseline {args.baseline}: no src/cardtable there")
    return args


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as stop:  # --help or a bad flag: the CLI wants a return code
        return stop.code if isinstance(stop.code, int) else 2
    if args.worker:
        worker(args)
        return 0
    from rich.console import Console

    from cardtable.engine import GAMES

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from engine_report import report, summarize
    from gin_report import machine_line

    games = args.games or list(GAMES)
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        print(f"unknown games: {', '.join(unknown)}; games: {', '.join(GAMES)}", file=sys.stderr)
        return 2
    sides = [Side("ours", "tree", SRC)]
    if args.baseline is not None:
        sides.append(Side("baseline", "tree", args.baseline.resolve()))
    if not args.no_peers and any(g in OPENSPIEL_NAMES for g in games):
        sides.append(Side("openspiel", "openspiel", None))
    console = Console()
    console.width = max(console.width, 112)  # the per-call table's eight columns
    console.print(f"[bold]cardtable bench engine[/] on {machine_line()}")
    console.print("sides: " + ", ".join(f"{s.label} ({s.tree or 'pyspiel'})" for s in sides))
    rounds = measure_rounds(sides, games, args, console)
    labels = [side.label for side in sides]
    summary = summarize(rounds, labels, games)
    report(console, summary, labels, args.rounds)
    if args.json:
        args.json.write_text(json.dumps(
            {"machine": machine_line(), "sides": [s._asdict() | {"tree": str(s.tree)}
                                                  for s in sides],
             "budget": {"seconds": args.seconds, "hands": args.hands, "rounds": args.rounds},
             "rounds": rounds, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
