"""Measure the peer Gin Rummy implementations (OpenSpiel, RLCard) on this machine.

`cardtable bench gin` prints these figures next to our own, so the ratios compare like with
like on the same hardware. The peers come from the optional extra ``bench``; when one is
missing or misbehaves its figures are None and `reason(name)` says why, so the bench still runs.

Hands are in our convention: card = suit * 13 + rank, suits clubs, diamonds, hearts, spades,
rank 0 = ace .. 12 = king. Each peer numbers cards differently; see the converters below.

Run ``python bench/peers.py`` to print the figures.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

Progress = Callable[[str, float], None]

# Why each figure that came back None is None, by figure name (see `reason`).
_reasons: dict[str, str] = {}

# How often the timed loops report progress; often enough for a smooth bar, rarely enough to
# cost nothing next to a hand of play.
_PROGRESS_EVERY_S = 0.1


class _Unavailable(Exception):
    """A peer can't be measured; the message becomes the figure's reason."""


def reason(name: str) -> str | None:
    """Why the figure `name` (a key of `measure_all`) came back None, if it did."""
    return _reasons.get(name)


def _guarded(name: str, measure: Callable[[], float]) -> float | None:
    # A peer is an optional, third-party extra: any failure in it must cost us one figure,
    # never the whole bench.
    _reasons.pop(name, None)
    try:
        return measure()
    except _Unavailable as e:
        _reasons[name] = str(e)
    except Exception as e:
        _reasons[name] = f"{type(e).__name__}: {e}"
    return None


# --- our reference: a brute-force deadwood, to check the peers compute what we think ---------


def card_value(card: int) -> int:
    """Deadwood value: A=1, 2-10 their pips, J/Q/K=10."""
    return min(card % 13 + 1, 10)


def brute_force_deadwood(hand: Sequence[int]) -> int:
    """Minimum deadwood of a hand, by trying every set of disjoint melds.

    Sets are 3 or 4 cards of one rank, runs 3+ consecutive cards of one suit, ace low only.
    Deliberately naive (independent of our engine's table-driven solver and of the peers).

    >>> brute_force_deadwood([0, 1, 2, 13, 26, 39, 5, 18, 31, 44])  # A23c, 4 aces, four 6s
    0
    >>> brute_force_deadwood([11, 12, 0, 14, 15, 16, 30, 32, 34, 49])  # QcKcAc is no run
    52
    """
    cards = set(hand)
    melds: list[int] = []  # bit masks over card numbers
    for rank in range(13):
        same_rank = [suit * 13 + rank for suit in range(4) if suit * 13 + rank in cards]
        for size in (3, 4):
            melds += [_mask(meld) for meld in combinations(same_rank, size)]
    for suit in range(4):
        for start in range(13):
            for end in range(start + 3, 14):
                run = range(suit * 13 + start, suit * 13 + end)
                if not cards.issuperset(run):
                    break  # a longer run from `start` would contain this gap too
                melds.append(_mask(run))

    def least(first: int, used: int) -> int:
        best = sum(card_value(c) for c in hand if not used >> c & 1)
        for i in range(first, len(melds)):
            if not melds[i] & used:
                best = min(best, least(i + 1, used | melds[i]))
        return best

    return least(0, 0)


def _mask(cards: Sequence[int] | range) -> int:
    return sum(1 << c for c in cards)


def random_hands(count: int, seed: int = 0, size: int = 10) -> list[list[int]]:
    """`count` random hands in our convention, reproducible from `seed`."""
    rng = random.Random(seed)
    return [rng.sample(range(52), size) for _ in range(count)]


def _check_hands(seed: int) -> list[list[int]]:
    # Uniform deals rarely hold more than one meld, so half the check hands come from a
    # 24-card corner of the deck (6 ranks x 4 suits), where sets and runs crowd together.
    dense = [suit * 13 + rank for suit in range(4) for rank in range(4, 10)]
    rng = random.Random(seed)
    return random_hands(10, seed) + [rng.sample(dense, 10) for _ in range(10)]


def card_name(card: int) -> str:
    """Our short name of a card, e.g. 'Tc' for the ten of clubs."""
    suit, rank = divmod(card, 13)
    return "A23456789TJQK"[rank] + "cdhs"[suit]


def _verify(
    label: str, name: Callable[[int], str], deadwood: Callable[[Sequence[int]], int]
) -> None:
    # A wrong card mapping would still time fine while measuring other hands than we think.
    # Deadwood can't tell suits apart (any suit permutation keeps it), so check names too.
    for card in range(52):
        if name(card).lower() != card_name(card).lower():
            raise _Unavailable(f"{label}: our {card_name(card)} maps to their {name(card)}")
    for hand in _check_hands(seed=1):
        theirs, ours = deadwood(hand), brute_force_deadwood(hand)
        if theirs != ours:
            raise _Unavailable(f"{label} says deadwood {theirs}, brute force {ours}, for {hand}")


# --- timing helpers ---------------------------------------------------------------------------


def _hands_per_second(
    play_hand: Callable[[], None], seconds: float, label: str, progress: Progress | None
) -> float:
    """Play whole hands until `seconds` have passed; complete hands per second of play."""
    start = last_report = time.perf_counter()
    hands = 0
    now = start
    while now - start < seconds:
        play_hand()
        hands += 1
        now = time.perf_counter()
        if progress and now - last_report >= _PROGRESS_EVERY_S:
            progress(label, min((now - start) / seconds, 1.0))
            last_report = now
    if progress:
        progress(label, 1.0)
    return hands / (now - start)


def _microseconds_per_call(
    call: Callable[[Any], object],
    inputs: Sequence[Any],
    label: str,
    progress: Progress | None,
    min_seconds: float = 0.5,
) -> float:
    """Mean µs per `call(x)` over `inputs`; the fastest of several passes over them.

    The fastest pass is the one least disturbed by the rest of the machine (as timeit does).
    """
    if not inputs:
        raise _Unavailable("no hands to time")
    passes: list[float] = []
    start = last_report = now = time.perf_counter()
    while len(passes) < 3 or now - start < min_seconds:
        t0 = time.perf_counter()
        for x in inputs:
            call(x)
        now = time.perf_counter()
        passes.append((now - t0) / len(inputs) * 1e6)
        if progress and now - last_report >= _PROGRESS_EVERY_S:
            progress(label, min((now - start) / min_seconds, 1.0))
            last_report = now
    if progress:
        progress(label, 1.0)
    return min(passes)


# --- OpenSpiel ----------------------------------------------------------------------------------


def _pyspiel() -> Any:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except Exception as e:  # ImportError, or a broken native extension
        raise _Unavailable(
            f"open_spiel not importable ({e}); pip install 'cardtable[bench]'"
        ) from e
    return pyspiel


def to_openspiel_card(card: int) -> int:
    """Ours -> OpenSpiel's: suit * 13 + rank with suits spades, clubs, diamonds, hearts."""
    suit, rank = divmod(card, 13)
    return (suit + 1) % 4 * 13 + rank


def openspiel_random_hands_per_second(
    seconds: float = 3.0, progress: Progress | None = None
) -> float | None:
    """Complete OpenSpiel gin_rummy hands per second, random legal play driven from Python."""

    def measure() -> float:
        game = _pyspiel().load_game("gin_rummy")
        rng = random.Random(0)

        def play_hand() -> None:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():  # the deal and every stock draw
                    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probs)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))

        return _hands_per_second(play_hand, seconds, "OpenSpiel random hands", progress)

    return _guarded("openspiel_random_hands_per_second", measure)


def openspiel_min_deadwood_us(
    hands: list[list[int]], progress: Progress | None = None
) -> float | None:
    """µs per call of OpenSpiel's C++ GinRummyUtils::MinDeadwood on 10-card `hands`."""

    def measure() -> float:
        gin_rummy = getattr(_pyspiel(), "gin_rummy", None)
        if gin_rummy is None or not hasattr(gin_rummy, "GinRummyUtils"):
            raise _Unavailable("this open_spiel does not expose pyspiel.gin_rummy.GinRummyUtils")
        utils = gin_rummy.GinRummyUtils(13, 4, 10)  # num_ranks, num_suits, hand_size
        if not hasattr(utils, "min_deadwood"):
            raise _Unavailable("GinRummyUtils has no min_deadwood binding")

        def openspiel_deadwood(hand: Sequence[int]) -> int:
            return int(utils.min_deadwood([to_openspiel_card(c) for c in hand]))

        _verify(
            "OpenSpiel min_deadwood",
            lambda c: str(utils.card_string(to_openspiel_card(c))),
            openspiel_deadwood,
        )
        # Convert before timing: we time their routine, not our card mapping.
        converted = [[to_openspiel_card(c) for c in hand] for hand in hands]
        return _microseconds_per_call(
            utils.min_deadwood, converted, "OpenSpiel min deadwood", progress
        )

    return _guarded("openspiel_min_deadwood_us", measure)


# --- RLCard -------------------------------------------------------------------------------------


def _rlcard() -> Any:
    try:
        import rlcard  # type: ignore[import-untyped]
        import rlcard.games.gin_rummy.game  # type: ignore[import-untyped]
        import rlcard.games.gin_rummy.utils.melding  # type: ignore[import-untyped]
        import rlcard.games.gin_rummy.utils.utils  # type: ignore[import-untyped]
    except Exception as e:
        raise _Unavailable(f"rlcard not importable ({e}); pip install 'cardtable[bench]'") from e
    return rlcard


def to_rlcard_card_id(card: int) -> int:
    """Ours -> RLCard's card_id: suit * 13 + rank with suits spades, hearts, diamonds, clubs."""
    suit, rank = divmod(card, 13)
    return (3 - suit) * 13 + rank


def rlcard_random_hands_per_second(
    seconds: float = 3.0, progress: Progress | None = None, env_layer: bool = True
) -> float | None:
    """Complete RLCard gin-rummy hands per second with random legal actions.

    With `env_layer` we step `rlcard.make('gin-rummy')`, which encodes an observation after
    every action (what an RL agent pays); without it we step the GinRummyGame underneath.
    """

    def measure() -> float:
        rlcard = _rlcard()
        rng = random.Random(0)
        if env_layer:
            env = rlcard.make("gin-rummy", config={"seed": 0})

            def play_hand() -> None:
                state, _ = env.reset()
                while not env.is_over():
                    state, _ = env.step(rng.choice(list(state["legal_actions"])))

            label = "RLCard random hands (env)"
        else:
            import numpy as np

            game = rlcard.games.gin_rummy.game.GinRummyGame()
            game.np_random = np.random.RandomState(0)  # it shuffles with this

            def play_hand() -> None:
                game.init_game()
                while not game.is_over():
                    game.step(rng.choice(game.judge.get_legal_actions()))

            label = "RLCard random hands (game)"
        return _hands_per_second(play_hand, seconds, label, progress)

    name = "rlcard_random_hands_per_second" + ("" if env_layer else "_no_env")
    return _guarded(name, measure)


def rlcard_meld_search_us(hands: list[list[int]], progress: Progress | None = None) -> float | None:
    """µs per call of RLCard's melding.get_best_meld_clusters on 10-card `hands`."""

    def measure() -> float:
        rlcard = _rlcard()
        melding = rlcard.games.gin_rummy.utils.melding
        utils = rlcard.games.gin_rummy.utils.utils

        def rlcard_hand(hand: Sequence[int]) -> list[Any]:
            return [utils.get_card(to_rlcard_card_id(c)) for c in hand]

        def rlcard_deadwood(hand: Sequence[int]) -> int:
            cards = rlcard_hand(hand)
            best = melding.get_best_meld_clusters(cards)  # [] when the hand has no meld
            return int(utils.get_deadwood_count(cards, best[0] if best else []))

        _verify(
            "RLCard get_best_meld_clusters",
            lambda c: str(utils.get_card(to_rlcard_card_id(c))),  # e.g. 'TC'
            rlcard_deadwood,
        )
        converted = [rlcard_hand(hand) for hand in hands]  # before timing, as for OpenSpiel
        return _microseconds_per_call(
            melding.get_best_meld_clusters, converted, "RLCard meld search", progress
        )

    return _guarded("rlcard_meld_search_us", measure)


# --- all together -------------------------------------------------------------------------------


def measure_all(
    hands: list[list[int]], seconds: float = 3.0, progress: Progress | None = None
) -> tuple[dict[str, float | None], dict[str, str]]:
    """Every peer figure by name, and why each None one is None."""
    steps: list[tuple[str, Callable[[Progress | None], float | None]]] = [
        (
            "openspiel_random_hands_per_second",
            lambda p: openspiel_random_hands_per_second(seconds, p),
        ),
        ("openspiel_min_deadwood_us", lambda p: openspiel_min_deadwood_us(hands, p)),
        ("rlcard_random_hands_per_second", lambda p: rlcard_random_hands_per_second(seconds, p)),
        (
            "rlcard_random_hands_per_second_no_env",
            lambda p: rlcard_random_hands_per_second(seconds, p, env_layer=False),
        ),
        ("rlcard_meld_search_us", lambda p: rlcard_meld_search_us(hands, p)),
    ]
    figures: dict[str, float | None] = {}
    for i, (name, run) in enumerate(steps):
        # Scale each step's own 0..1 into its slice of the whole, so one bar covers all.
        def step_progress(text: str, fraction: float, i: int = i) -> None:
            if progress:
                progress(text, (i + fraction) / len(steps))

        figures[name] = run(step_progress)
    reasons = {name: _reasons[name] for name, value in figures.items() if value is None}
    return figures, reasons


def _installed_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("open_spiel", "rlcard", "numpy"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    return found


if __name__ == "__main__":
    print("  ".join(f"{p} {v}" for p, v in _installed_versions().items()))
    figures, reasons = measure_all(random_hands(1000))
    for name, value in figures.items():
        print(f"{name:40} {value:10.2f}" if value is not None else f"{name:40} {'—':>10}")
    for name, why in reasons.items():
        print(f"{name}: {why}")
