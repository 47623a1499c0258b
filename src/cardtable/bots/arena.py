"""The arena: computer players of different levels (or from elsewhere) play whole
matches of a game against each other, in parallel processes, seats rotating.

``--seats expert,hard`` names who plays: one entrant per seat, or one per side where
partners sit together (Spades: two entrants for four seats), or one for every seat.
An entrant is a level (:data:`~cardtable.bots.levels.LEVELS`), ``random`` (a seeded
random legal move: a yardstick), or a plug-in ``FILE.py:FACTORY`` / ``module:FACTORY``
(``factory(game, options)`` gives an object with ``label``, ``counts`` and
``choose(state, seat) -> Action``: an adapter to a bot no one here wrote, e.g.
``bench/openspiel_gin.py:SimpleGinBot``; it is handed the live state so that it can
mirror the hand into its own engine, and must decide only from what its seat knows).

Seating is rotated and deals mirrored: with ``k`` entrants, matches ``i`` and ``i+1``
... ``i+k-1`` (``i`` a multiple of ``k``) deal from the same seed ``S + i // k`` with the
entrants moved round one place each time, so every entrant meets the same cards from
every place and the luck of the deal cancels out.

Each match is one :class:`MatchJob`, played by :func:`play_match` anywhere (a worker
process) into a :class:`MatchReport` of plain data; :mod:`cardtable.bots.arena_report`
adds them up.  A move the engine refuses is counted and replaced by a seeded random
legal move, so one bad decision does not hide the rest.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from cardtable.bots import levels
from cardtable.bots.standing import low_wins
from cardtable.engine import Action, IllegalAction, get_game

RANDOM = "random"

MAX_MOVES = 100_000
"""Moves after which a match is given up as stalled: a long Rummy match takes about a
thousand, so only players that never end a hand (two bots trading the same cards from
the pile, say) reach it; the arena reports them instead of hanging."""


@dataclass(frozen=True)
class Entrant:
    """Who plays a seat: a level, the random player, or a plug-in."""

    spec: str
    name: str | None = None  # a plug-in's own ``label``, once it has been loaded

    @property
    def label(self) -> str:
        if self.name is not None:
            return self.name
        return self.spec.rsplit(":", 1)[-1] if self.is_plugin else self.spec

    @property
    def is_plugin(self) -> bool:
        return ":" in self.spec


def parse_seats(text: str | None, random_seats: Sequence[int], players: int,
                teams: list[list[int]]) -> list[Entrant]:
    """The entrants of ``--seats`` (default: ``normal`` in every seat, ``random`` in
    ``random_seats``); ``ValueError`` for an unknown level or a count that fits neither
    the seats nor the sides."""
    if text is None:
        return [Entrant(RANDOM if s in random_seats else "normal") for s in range(players)]
    specs = [part.strip() for part in text.split(",")]
    for spec in specs:
        if spec not in levels.LEVELS and spec != RANDOM and ":" not in spec:
            raise ValueError(f"--seats: {spec!r} is no level ({', '.join(levels.LEVELS)}), "
                             f"'{RANDOM}' nor a plug-in FILE.py:FACTORY")
    if len(specs) not in {1, players, len(teams)}:
        raise ValueError(f"--seats names {len(specs)} players: give one, one per seat "
                         f"({players}) or one per side ({len(teams)})")
    return [Entrant(spec, _factory_label(spec)) if ":" in spec else Entrant(spec)
            for spec in specs]


def _factory_label(spec: str) -> str | None:
    """A plug-in's ``label`` (a class attribute of its factory), read without making it."""
    label = getattr(_factory(spec), "label", None)
    return label if isinstance(label, str) else None


def _factory(spec: str) -> Any:
    where, _, name = spec.rpartition(":")
    try:
        if where.endswith(".py"):
            path = Path(where)
            loader = importlib.util.spec_from_file_location(path.stem, path)
            if loader is None or loader.loader is None:
                raise ImportError(where)
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
        return getattr(module, name)
    except (ImportError, OSError, AttributeError) as error:
        raise ValueError(f"--seats: cannot load the plug-in {spec!r}: {error}") from error


def seating(entrants: Sequence[Entrant], players: int, teams: list[list[int]],
            turn: int) -> list[Entrant]:
    """Who sits where in the ``turn``-th rotation: entrant ``(unit + turn) % k`` plays
    seat (or side) ``unit``."""
    k = len(entrants)
    units = teams if k == len(teams) and k != players else [[s] for s in range(players)]
    seats: list[Entrant] = [entrants[0]] * players
    for unit, members in enumerate(units):
        for seat in members:
            seats[seat] = entrants[(unit + turn) % k]
    return seats


@dataclass(frozen=True)
class MatchJob:
    """One match to play: everything a worker process needs, as plain values."""

    game: str
    options: Mapping[str, Any]
    players: int
    deal_seed: int
    decision_seed: int
    seats: tuple[Entrant, ...]
    budget: float | None = None
    max_moves: int = 0
    """Moves after which the match is given up as stalled (0: :data:`MAX_MOVES`)."""


@dataclass
class MatchReport:
    """What happened in one match, per seat, as plain data."""

    seats: list[str]
    teams: list[list[int]]
    winners: list[int]
    hands: int = 0
    turns: int = 0
    illegal: int = 0
    stalled: bool = False
    """The match passed its move limit unfinished (players that never end a hand)."""
    net_points: list[list[float]] = field(default_factory=list)
    """Per hand, each seat's points less the others' mean (its side's; + is good)."""
    outcomes: list[tuple[int | None, str]] = field(default_factory=list)
    """How each hand went: (seat or None for the table, what)."""
    times: dict[int, list[float]] = field(default_factory=dict)
    """Per seat, the CPU seconds of each of its decisions."""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per plug-in label, the special cases it counted in this match."""


_PLUGINS: dict[str, Any] = {}
_HEAP: list[Any] = []


def keep_live_states(game: str, count: int) -> None:
    """Hold ``count`` live matches of ``game`` in this process, as a busy server does,
    after freezing what start-up made (the server's collector settings), so that
    decision times include the collector's passes over a server-sized heap."""
    from cardtable.server import gc_tuning

    gc_tuning.apply()
    descriptor = get_game(game)
    rng = random.Random(0)
    for _ in range(count - len(_HEAP)):
        state = descriptor.new_match(rng=random.Random(rng.getrandbits(32)))
        for _ in range(rng.randrange(40)):  # somewhere in its first hand, like live tables
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        _HEAP.append(state)


def _plugin(spec: str, game: str, options: Any) -> Any:
    """The plug-in of ``spec``, made once per process."""
    if spec not in _PLUGINS:
        _PLUGINS[spec] = _factory(spec)(game, options)
    return _PLUGINS[spec]


def play_match(job: MatchJob) -> MatchReport:
    """Play one match to its end and say how it went."""
    descriptor = get_game(job.game)
    options = descriptor.options.from_dict(dict(job.options))
    state = descriptor.new_match(options, job.players, random.Random(job.deal_seed))
    rng = random.Random(job.decision_seed)
    teams = descriptor.teams(job.players)
    report = MatchReport(seats=[e.label for e in job.seats], teams=teams, winners=[])
    plugins = {e.spec: _plugin(e.spec, job.game, options) for e in job.seats if e.is_plugin}
    before = {spec: dict(p.counts) for spec, p in plugins.items()}
    last_mover: int | None = None
    scores = _scores(state)
    hands_seen = 0
    moves_left = job.max_moves or MAX_MOVES
    while not state.is_over():
        moves_left -= 1
        if moves_left < 0:
            report.stalled = True
            break
        seat = state.current_player()
        assert seat is not None, "a live match always has a seat to act"
        entrant = job.seats[seat]
        clock = time.thread_time()  # CPU time: other processes do not count
        action = _decide(entrant, job, state, seat, rng, plugins)
        spent = time.thread_time() - clock
        if entrant.spec != RANDOM:
            report.times.setdefault(seat, []).append(spent)
        if action.type == "deal":
            last_mover = None  # a new hand: its first player's turn is a new turn
        elif seat != last_mover:
            report.turns, last_mover = report.turns + 1, seat
        try:
            state.apply(action)
        except IllegalAction:
            report.illegal += 1
            state.apply(rng.choice(state.legal_actions()))
        if state.is_over() or descriptor.only_dealing(state):
            rows = state.result().get("hands") or []
            if len(rows) > hands_seen:  # a hand ended (not a deal refused or passed)
                for row in rows[hands_seen:]:
                    report.outcomes.extend(hand_outcomes(job.game, row, teams))
                hands_seen = len(rows)
                now = _scores(state)
                report.net_points.append(_net(now, scores, teams, job.players,
                                              low_wins(state.view(None))))
                scores = now
    result = state.result()
    report.hands = len(result.get("hands") or [])
    report.winners = [] if report.stalled else _winners(result)
    for spec, plugin in plugins.items():
        report.counts[plugin.label] = {k: v - before[spec].get(k, 0)
                                       for k, v in plugin.counts.items()}
    return report


def _decide(entrant: Entrant, job: MatchJob, state: Any, seat: int, rng: random.Random,
            plugins: Mapping[str, Any]) -> Action:
    if entrant.spec == RANDOM:
        chosen: Action = rng.choice(state.legal_actions())
        return chosen
    if entrant.is_plugin:
        choice: Action = plugins[entrant.spec].choose(state, seat)
        return choice
    return levels.choose(job.game, entrant.spec, state.view(seat), rng,
                         sampler=partial(state.resample, seat),
                         budget=job.budget)


def _scores(state: Any) -> list[float]:
    return [float(x) for x in state.view(None).get("scores") or []]


def _net(now: list[float], before: list[float], teams: list[list[int]], players: int,
         low: bool) -> list[float]:
    """Each seat's points of the hand less the mean of the other sides' (+ is good)."""
    gained = [a - b for a, b in zip(now, before, strict=False)]
    by_seat = [0.0] * players
    if not gained:
        return by_seat
    per_side = len(gained) == len(teams) and len(teams) != players
    for unit, members in enumerate(teams if per_side else [[s] for s in range(players)]):
        if unit >= len(gained):
            continue
        others = [g for i, g in enumerate(gained) if i != unit]
        net = gained[unit] - (sum(others) / len(others) if others else 0.0)
        for seat in members:
            by_seat[seat] = -net if low else net
    return by_seat


def _winners(result: Mapping[str, Any]) -> list[int]:
    winners = result.get("winners") or result.get("winning_seats")
    if winners is None and result.get("winner") is not None:
        winners = [result["winner"]]
    return list(winners or [])


def hand_outcomes(game: str, row: Mapping[str, Any],
                  teams: list[list[int]]) -> Iterator[tuple[int | None, str]]:
    """How one finished hand went, from its scorecard row: (seat, what) pairs, seat
    ``None`` for what happened to the table (a void hand, a blocked one)."""
    if game == "spades":
        for side in row.get("sides") or []:
            made = side.get("contract_tricks", 0) >= side.get("contract", 0)
            nil = side.get("nil_points", 0)
            for seat in side.get("seats", [])[:1]:  # one count per side
                yield seat, "contract made" if made else "set"
                if nil:
                    yield seat, "nil made" if nil > 0 else "nil set"
                if side.get("penalty"):
                    yield seat, "bag penalty"
        return
    if "status" in row:  # Indian Rummy: each seat's end of the deal
        for seat, status in enumerate(row["status"]):
            yield seat, "won" if seat == row.get("winner") else str(status)
        return
    if row.get("kind") is not None:  # Gin: knock, gin, big gin, undercut, void
        kind, winner = str(row["kind"]), row.get("winner")
        if winner is None and kind != "void":
            kind += ", tied"  # deadwood even and no undercut on a tie: nobody scores
        yield (None if kind == "void" else winner), kind
        return
    if row.get("blocked"):
        yield None, "blocked"
    elif row.get("winner") is not None:
        yield row["winner"], "rummy (all at once)" if row.get("rummy") else "went out"


def jobs(game: str, options: Mapping[str, Any], players: int, entrants: Sequence[Entrant],
         games: int, seed: int, budget: float | None, rotate: bool = True) -> Iterator[MatchJob]:
    """The matches of a run, rotation by rotation (see the module's docstring); without
    ``rotate`` every entrant keeps its seat and match ``i`` deals from ``seed + i``."""
    teams = get_game(game).teams(players)
    k = len(entrants) if rotate else 1
    for i in range(games):
        yield MatchJob(game, dict(options), players, deal_seed=seed + i // k,
                       decision_seed=-1 - seed - i,
                       seats=tuple(seating(entrants, players, teams, i % k)), budget=budget)


def worker_start(game: str, heap: int) -> None:
    """A worker process's start: the server-sized heap if asked, else the modules made
    so far frozen out of the collector's full passes (which would otherwise land,
    50 ms at a time, in whichever decision is running)."""
    if heap:
        keep_live_states(game, heap)
    else:
        gc.collect()
        gc.freeze()


__all__ = ["RANDOM", "Entrant", "MatchJob", "MatchReport", "hand_outcomes", "jobs",
           "keep_live_states", "parse_seats", "play_match", "seating", "worker_start"]
