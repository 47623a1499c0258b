"""`cardtable bench gin`: how fast the Gin Rummy engine plays and melds on this machine.

Run ``cardtable bench gin [--seconds S] [--hands N] [--knock-hands N] [--no-peers]`` or
``python bench/gin.py`` with the same flags. It measures

1. full hands per second of uniformly random legal play, whole matches through the engine;
2. ``best_melding`` and ``deadwood`` per call on uniform random 10-card hands, and
   ``best_discard`` on uniform 11-card hands;
3. the same on meld-rich hands: those a greedy bot holds when it knocks;
4. ``settle`` (the full showdown) on those knock positions;
5. the peers (OpenSpiel, RLCard) through ``bench/peers.py`` when it is there and they are
   installed, with ratios and the issue's targets.

What the figures mean and the figures of record: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar, cast

from rich.console import Console

# gin_report.py sits beside this file, which may be run as a script or loaded by path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cardtable.engine import Action, get_game
from cardtable.engine.api import Rng
from cardtable.engine.games import gin
from cardtable.engine.games.gin import GinState, Phase
from cardtable.engine.games.gin.showdown import SOLVER
from gin_report import (
    BUSY_SHARE,
    Bars,
    Clock,
    KnockPosition,
    Result,
    machine_line,
    ours_table,
    peers_table,
    target_lines,
)

T = TypeVar("T")


REPEATS = 5  # timed passes over each hand list; we report the median pass
SETTLE_REPEATS = 3  # settle is ~50x dearer than a solve, so fewer passes
PLAY_WINDOWS = 3  # random play is cut into this many windows; we report the median window
CHUNK = 5000  # calls between progress updates, outside the timed stretch
UNIFORM_SEED = 1
TAKES = frozenset({"take_upcard", "draw_discard"})

# --- random play ---------------------------------------------------------------------------------


def new_match(seed: int) -> GinState:
    """A standard match dealt from ``random.Random(seed)``, made through the game registry."""
    # The casts: get_game() promises only the generic State, and mypy rejects random.Random
    # as an api.Rng because Rng.randrange's parameter is not positional-only.
    rng = cast(Rng, random.Random(seed))
    return cast(GinState, get_game("gin").new_match(rng=rng))


def _play_hand(state: GinState, choose: random.Random) -> None:
    """Random legal moves until a hand ends (void, knock or gin) or the match does."""
    finished = len(state.history)
    while len(state.history) == finished and not state.is_over():
        state.apply(choose.choice(state.legal_actions()))


def measure_random_play(seconds: float, bars: Bars) -> Result:
    """Full hands per second of uniformly random legal play, match after match."""
    clock = Clock()
    choose = random.Random(0)
    matches = 1
    state = new_match(0)
    window = seconds / PLAY_WINDOWS
    task = bars.task("random play", seconds)
    runs: list[float] = []
    hands_played = 0
    for w in range(PLAY_WINDOWS):
        start = now = time.perf_counter()
        hands = 0
        while now - start < window:
            _play_hand(state, choose)
            hands += 1
            if state.is_over():
                # A fresh match is part of play: its deal is counted in the next hand's time.
                state = new_match(matches)
                matches += 1
            now = time.perf_counter()
            bars.set(task, w * window + (now - start))
        runs.append((now - start) / hands * 1e6)
        hands_played += hands
    bars.finish(task)
    return Result("random play (hand)", hands_played, tuple(runs), clock.cpu_share())


# --- timing solver calls -------------------------------------------------------------------------


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def time_calls(
    label: str,
    call: Callable[[T], object],
    inputs: Sequence[T],
    bars: Bars,
    description: str,
    repeats: int = REPEATS,
) -> Result:
    """µs per ``call(x)`` over ``inputs``, one figure per pass, after a warm-up."""
    chunks = list(_chunks(inputs, CHUNK))
    for x in inputs[:1000]:  # caches, branch predictors, lazily built tables
        call(x)
    task = bars.task(f"{label}, {description}", repeats * len(inputs))
    runs: list[float] = []
    done = 0
    clock = Clock()
    for _ in range(repeats):
        elapsed = 0.0
        for chunk in chunks:
            start = time.perf_counter()
            for x in chunk:
                call(x)
            elapsed += time.perf_counter() - start
            done += len(chunk)
            bars.set(task, done)
        runs.append(elapsed / len(inputs) * 1e6)
    bars.finish(task)
    return Result(f"{label}, {description}", len(inputs), tuple(runs), clock.cpu_share())


def uniform_hands(count: int, size: int, seed: int, bars: Bars) -> list[list[int]]:
    """``count`` uniform random hands of ``size`` cards, the same on every run."""
    rng = random.Random(seed)
    task = bars.task(f"dealing {size}-card uniform hands", count)
    hands: list[list[int]] = []
    for chunk in _chunks(range(count), CHUNK):
        hands += [rng.sample(range(52), size) for _ in chunk]
        bars.set(task, len(hands))
    bars.finish(task)
    return hands


# --- meld-rich hands from greedy play ------------------------------------------------------------


def _greedy_draw(state: GinState, hand: list[int], legal: list[Action]) -> Action:
    """Take the discard when some discard after it leaves less deadwood; else the stock."""
    take = next((a for a in legal if a.type in TAKES), None)
    if take is not None:
        # The best discard from hand + upcard is never the upcard when it saves deadwood
        # (discarding the upcard would leave exactly today's deadwood).
        with_upcard, _ = SOLVER.best_discard([*hand, state.discard[-1]])
        if with_upcard < gin.deadwood(hand):
            return take
    # draw_stock, pass, or deal (the only move when a hand is over)
    return next(a for a in legal if a.type not in TAKES)


def _greedy_discard(hand: list[int], legal: list[Action]) -> Action:
    """Discard the card leaving least deadwood; gin or knock with it as soon as that is legal."""
    moves = {(a.type, a.card): a for a in legal}
    allowed = {a.card for a in legal if a.card is not None}
    _, card = SOLVER.best_discard(hand)
    if card not in allowed:  # the card just taken from the discard pile may not go back
        after = SOLVER.deadwood_after_each_discard(hand)
        card = min(allowed, key=after.__getitem__)
    for kind in ("gin", "knock", "discard"):
        if (kind, card) in moves:
            return moves[kind, card]
    raise AssertionError(f"no move with the best card among {legal}")


def greedy_action(state: GinState) -> Action:
    """The greedy bot's move; the match must not be over."""
    seat = state.current_player()
    assert seat is not None
    hand, legal = state.hands[seat], state.legal_actions()
    if state.phase is Phase.DISCARD:
        return _greedy_discard(hand, legal)
    return _greedy_draw(state, hand, legal)


def collect_knock_positions(count: int, bars: Bars) -> tuple[list[KnockPosition], Result]:
    """Play seeded greedy matches until ``count`` knocks; also the greedy hands per second.

    The greedy bot knocks as soon as it may, so every decision where a knock or gin is
    legal is a knock, and each hand yields at most one position.
    """
    positions: list[KnockPosition] = []
    task = bars.task("greedy play: collecting knock hands", count)
    hands = matches = 0
    clock = Clock()
    start = time.perf_counter()
    while len(positions) < count:
        # Seeds apart from random play's, so the two don't share deals.
        state = new_match(1_000_000 + matches)
        matches += 1
        while not state.is_over() and len(positions) < count:
            action = greedy_action(state)
            if action.type in ("knock", "gin"):
                seat = state.current_player()
                assert seat is not None and action.card is not None
                before = list(state.hands[seat])
                knocker = [c for c in before if c != action.card]
                positions.append(KnockPosition(before, knocker, list(state.hands[1 - seat])))
                bars.set(task, len(positions))
            finished = len(state.history)
            state.apply(action)
            hands += len(state.history) - finished
    elapsed = time.perf_counter() - start
    bars.finish(task)
    # Includes the bot's own solver calls and the engine's settle on every knock.
    play = Result("greedy play (hand)", hands, (elapsed / hands * 1e6,), clock.cpu_share())
    return positions, play


_OPTIONS = gin.Options()


def _settle(position: KnockPosition) -> object:
    # With options, as the match calls it: settle() without them builds and validates an
    # Options() on every call, which the game never pays.
    return gin.settle(position.knocker, position.defender, _OPTIONS)


# --- peers ---------------------------------------------------------------------------------------


def load_peers() -> tuple[ModuleType | None, str]:
    """bench/peers.py as a module, or None and why not."""
    path = Path(__file__).resolve().with_name("peers.py")
    if not path.exists():
        return None, f"{path} not found"
    name = "cardtable_bench_peers"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing look their module up here
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the peers module is someone else's work in progress
        del sys.modules[name]
        return None, f"bench/peers.py failed to import: {type(e).__name__}: {e}"
    if not callable(getattr(module, "measure_all", None)):
        return None, "bench/peers.py has no measure_all"
    return module, ""


def measure_peers(
    hands: list[list[int]], seconds: float, bars: Bars
) -> tuple[dict[str, float | None], dict[str, str]]:
    """The peers' figures by name and why any is missing; never raises."""
    peers, why = load_peers()
    if peers is None:
        return {}, {"peers": why}
    task = bars.task("peers", 1.0)

    def progress(text: str, fraction: float) -> None:
        bars.set(task, fraction, description=f"peers: {text}")

    try:
        answer: Any = peers.measure_all(hands, seconds, progress)
    except Exception as e:
        return {}, {"peers": f"measure_all failed: {type(e).__name__}: {e}"}
    finally:
        bars.finish(task)
    figures, reasons = answer if isinstance(answer, tuple) else (answer, {})
    return dict(figures), dict(reasons)


# --- command line --------------------------------------------------------------------------------


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cardtable bench gin",
        description="How fast the Gin Rummy engine plays and melds, next to OpenSpiel and RLCard.",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="seconds of random play (ours, and each peer's) (default 5)",
    )
    parser.add_argument(
        "--hands",
        type=int,
        default=200_000,
        help="uniform random hands to time the solver on (default 200000)",
    )
    parser.add_argument(
        "--knock-hands",
        type=int,
        default=20_000,
        help="knock positions to collect from greedy play (default 20000)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip OpenSpiel and RLCard")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.hands < 1 or args.knock_hands < 1:
        parser.error("--seconds, --hands and --knock-hands must be positive")
    return args


def measure_ours(args: argparse.Namespace, bars: Bars) -> tuple[dict[str, Result], list[list[int]]]:
    """Every figure of our engine by key, and the uniform 10-card hands (for the peers)."""
    results = {"play": measure_random_play(args.seconds, bars)}
    uniform10 = uniform_hands(args.hands, 10, UNIFORM_SEED, bars)
    uniform11 = uniform_hands(args.hands, 11, UNIFORM_SEED + 1, bars)
    positions, results["greedy"] = collect_knock_positions(args.knock_hands, bars)
    knockers = [p.knocker for p in positions]
    befores = [p.before for p in positions]
    for key, label, call, hands, description in (
        ("melding", "best_melding", gin.best_melding, uniform10, "uniform 10"),
        ("deadwood", "deadwood", gin.deadwood, uniform10, "uniform 10"),
        ("discard", "best_discard", SOLVER.best_discard, uniform11, "uniform 11"),
        ("knock_melding", "best_melding", gin.best_melding, knockers, "knock 10"),
        ("knock_deadwood", "deadwood", gin.deadwood, knockers, "knock 10"),
        ("knock_discard", "best_discard", SOLVER.best_discard, befores, "knock 11"),
    ):
        results[key] = time_calls(label, call, hands, bars, description)
    results["settle"] = time_calls(
        "settle", _settle, positions, bars, "knock positions", repeats=SETTLE_REPEATS
    )
    return results, uniform10


def _busy_warning(console: Console, what: str, share: float) -> None:
    if share < BUSY_SHARE:
        console.print(
            f"[yellow]{what} had a CPU only {share:.0%} of the time: other processes were "
            "running, so those figures understate this machine.[/]"
        )


def report(
    console: Console,
    results: dict[str, Result],
    figures: dict[str, float | None],
    reasons: dict[str, str],
    peers_share: float,
) -> None:
    console.print(ours_table(list(results.values())))
    _busy_warning(console, "One of our measurements", min(r.cpu_share for r in results.values()))
    if figures:
        console.print(peers_table(figures, results))
        _busy_warning(console, "The peers' measurement", peers_share)
    for name, why in reasons.items():
        console.print(f"[dim]{name}: not measured: {why}[/]")
    console.print("[bold]targets[/]")
    for line in target_lines(results, figures):
        console.print("  " + line)


def run(args: argparse.Namespace, console: Console) -> None:
    with Bars(console) as bars:
        results, uniform10 = measure_ours(args, bars)
        figures: dict[str, float | None] = {}
        reasons = {"peers": "--no-peers"}
        clock = Clock()
        if not args.no_peers:
            # The same uniform hands as ours, so the µs figures compare like with like.
            figures, reasons = measure_peers(uniform10, args.seconds, bars)
        peers_share = clock.cpu_share()
    report(console, results, figures, reasons, peers_share)


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as stop:  # --help or a bad flag: the CLI wants a return code
        return stop.code if isinstance(stop.code, int) else 2
    console = Console()
    console.print(f"[bold]cardtable bench gin[/] on {machine_line()}")
    console.print(
        f"--seconds {args.seconds:g} --hands {args.hands} "
        f"--knock-hands {args.knock_hands}" + (" --no-peers" if args.no_peers else "")
    )
    run(args, console)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
