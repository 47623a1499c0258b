"""The expert level: determinized search (PIMC) over the worlds a seat cannot rule out,
standing on the hard player.

A seat sees its view; the cards it cannot see could lie many ways.  Perfect-information
Monte Carlo deals them anew (``sampler(rng)``, which is ``state.resample(seat, rng)``:
the whole state copied, every hidden card redealt, the seat's own cards and everything
public kept), tries each candidate move in that world, plays the hand out with the
hard player in every seat, and reads the seat's :func:`~cardtable.bots.standing.standing`
at the hand's end.  The candidate with the best mean over the worlds is played.

Choices that make it work on a budget:

* **Common worlds.** Every candidate is tried in the same worlds, redealt from the same
  seed (the later stock draws too), so the difference between two candidates is the
  difference their move makes, not the luck of the deal.
* **The policy carries the search.** Random playouts almost never reach a knock in Gin
  (OpenSpiel's generic ISMCTS wins 11% of hands against its simple bot); the hard
  player plays the hands out, and its own move stands unless a rival beats it in the
  same worlds by a margin they can vouch for (:func:`_verdict`: the mean gain at least
  :data:`CONFIDENCE` standard errors above zero over :data:`MIN_WORLDS` worlds or more).
  A Gin hand's outcome swings by 25-point bonuses from one world to the next, so a mean
  over a few worlds is mostly noise; following it played far worse than the policy
  (measured: 8% of matches against ``hard`` at 0.3 s a decision).
* **Worlds an opponent could have played into.**  Dealt uniformly from the unseen cards,
  an opponent's hand is not one a real player holds: he kept what melds and threw what
  did not (Gin, hard v hard: his deadwood averages 12 at mid-hand, a uniform deal of the
  unseen cards 50; ``bench/gin_worlds.py``).  In such worlds a Gin knock looks safer than
  it is (measured: the expert knocked 2.3 times as often as hard and was undercut 41
  times in 40 matches, hard 3 times).  A policy module may offer ``guess_hidden(view)``:
  a guess per world at the hidden hands from what the seat saw (Gin: the best ten of what
  he drew, drawn by his picks and declines), which the engine deals first
  (``resample(seat, rng, held)``); in such worlds the expert searching its knocks was
  undercut 20 times in 100 matches (hard 25).
* **Some calls stay the policy's.**  A policy module lists in ``TRUSTED_KINDS`` the kinds
  of move its own reading judges better than the worlds can; the search weighs the rest.
* **Few candidates.** The policy ranks the moves (:func:`ranked`: its move, then its
  move once that one is taken away, ...) and only its first :data:`MAX_CANDIDATES` are
  tried; after :data:`HALVE_AFTER` worlds and again at each doubling the worse half is
  dropped, and a rival surely worse than the policy's move (as many standard errors
  below it as a winner must be above) at once, so the time goes to the moves still in
  question, and a decision with none left ends before its budget.
* **Short rollouts, where the game can judge a hand in play.**  A hard player's move
  costs a millisecond or more, a Gin hand to its end forty of them, and two rollouts
  that differ by one move drift apart over a whole hand until their difference is
  mostly luck.  A policy module may offer ``estimate(view_of, seat)``: the points the
  hand still to come is worth to ``seat`` when every hand is known (``view_of(s)``:
  seat ``s``'s view of the world), fitted to hands the hard players played out.  The
  rollout then stops after :data:`HORIZON` moves (its own ``HORIZON`` if it sets
  one) at the first state the estimate accepts and adds it to the standing; so each
  world costs a few moves and the worlds, many more of them, tell moves apart.
* **A clock, not a count.** ``budget`` seconds of the thread's CPU time; a world
  started is finished unless it runs past twice the budget (then it is dropped, its
  rollout stopped mid-hand), so a decision takes at most twice its budget and one
  policy decision.

Known limits, as with every PIMC player: it assumes it will know the hidden cards
after its move (strategy fusion), and where a game gives no ``guess_hidden`` it deals
every hidden card uniformly although the opponents' picks and throws make some hands
likelier; the hard policy's card reading covers part of that inside the rollouts.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any, Protocol

from cardtable.bots.standing import standing
from cardtable.engine import get_game
from cardtable.engine.api import Action, IllegalAction
from cardtable.engine.state import Held

View = dict[str, Any]
Policy = Callable[[View], Action]


class Sampler(Protocol):
    """A world consistent with what the seat knows, the cards of ``held`` where it says:
    ``lambda rng, held=None: state.resample(seat, rng, held)``."""

    def __call__(self, rng: random.Random, held: Held | None = None) -> Any: ...


Guesser = Callable[[View], Callable[[random.Random], Held]]
"""``guess_hidden(view)``: a policy module's way to deal the worlds of one decision,
``guess(rng)`` a guess at the opponents' hidden cards (a hand they could have kept)."""
Estimate = Callable[[Callable[[int], View], int], "float | None"]
"""``estimate(view_of, seat)``: the seat's expected points from the hand still in play,
where ``view_of(s)`` is seat ``s``'s view of the world (every hand is known there), or
None where it cannot judge (mid-turn, say)."""

MAX_CANDIDATES = 4
"""Moves tried at most: the policy's first choices (:func:`ranked`).  A rollout costs
tens of milliseconds, so every candidate more is worlds fewer for the others; the
moves a good policy ranks below its fourth are seldom the best."""

HALVE_AFTER = 4
"""Worlds every candidate plays before the worse half is first dropped."""

MIN_WORLDS = 4
"""Worlds a rival to the policy's move must have played before it may replace it."""

CONFIDENCE = 2.0
"""Standard errors by which a rival's mean gain over the policy's move must clear zero
(about 98% one-sided for each rival; there are a few rivals); a rival as far below zero
is given up."""

SETTLED_AFTER = 16
"""Worlds after which a rival that alone is left and clears the margin is played at once."""

HORIZON = 8
"""Policy moves a rollout plays before it asks the game's ``estimate`` (if it has one):
two turns each in a two-player game, time enough for the move's first consequences."""

ROLLOUT_LIMIT = 2000
"""Moves a rollout plays at most before it is scored where it stands (a hand that
cannot end: a guard, never reached in practice)."""


def choose_expert(game: str, view: View, sampler: Sampler, rng: random.Random,
                  policy: Policy, budget: float,
                  clock: Callable[[], float] = time.thread_time,
                  estimate: Estimate | None = None, horizon: int = HORIZON,
                  trusted: frozenset[str] = frozenset(),
                  guesser: Guesser | None = None) -> Action:
    """The move for the seat of ``view`` that does best, on average over worlds dealt by
    ``sampler`` (with the hidden hands ``guesser`` guesses, if given), when ``policy``
    plays every seat to the end of the hand (or for ``horizon`` moves, then ``estimate``
    judges the rest).  Moves of a ``trusted`` kind are the policy's call: such a move of
    its stands, and none is tried against it."""
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    preferred = policy(view)
    if len(legal) == 1 or preferred.type == "deal" or preferred.type in trusted:
        return preferred
    candidates = ranked(view, [a for a in legal if a.type not in trusted], preferred, policy)
    if len(candidates) == 1:
        return candidates[0]
    started = clock()
    deadline, cutoff = started + budget, started + 2 * budget
    guess = _checked(guesser(view), sampler) if guesser is not None else None
    search = _Search(game, view["seat"], sampler, policy, clock, cutoff, estimate, horizon,
                     guess)
    rivals = candidates[1:]
    gains: dict[Action, list[float]] = {m: [] for m in rivals}
    next_halving = HALVE_AFTER
    while clock() < deadline and rivals:
        seed = rng.getrandbits(64)
        base = search.value(preferred, seed)
        world: dict[Action, float] = {}
        for move in rivals:
            value = None if base is None else search.value(move, seed)
            if base is None or value is None:
                break  # a world that would run far past the budget is dropped unfinished
            world[move] = value - base
        if len(world) < len(rivals):
            break
        for move, gain in world.items():
            gains[move].append(gain)
        rivals = [m for m in rivals if not _hopeless(gains[m])]
        if len(rivals) == 1 and _score(gains[rivals[0]]) > 0 \
                and len(gains[rivals[0]]) >= SETTLED_AFTER:
            break  # the one rival left has beaten the policy's move for sure: settled
        if rivals and len(gains[rivals[0]]) >= next_halving and len(rivals) > 1:
            rivals = sorted(rivals, key=lambda m: -mean(gains[m]))[:max(1, len(rivals) // 2)]
            next_halving *= 2
    return _verdict(preferred, gains)


def _checked(guess: Callable[[random.Random], Held], sampler: Sampler
             ) -> Callable[[random.Random], Held] | None:
    """``guess`` if the engine deals a world from it; None (uniform worlds) if it refuses
    one (a card the seat can see, a hand over-filled): a wrong guess must cost the
    decision its realism, not the decision itself."""
    rng = random.Random(0)
    try:
        sampler(rng, guess(rng))
    except ValueError:
        return None
    return guess


def _verdict(preferred: Action, gains: dict[Action, list[float]]) -> Action:
    """The rival that beats the policy's move by a margin the worlds can vouch for (its
    mean gain at least :data:`CONFIDENCE` standard errors above nothing, over at least
    :data:`MIN_WORLDS` worlds), else the policy's move: a handful of noisy worlds must not
    overrule a good player."""
    best, best_score = preferred, 0.0
    for move, seen in gains.items():
        score = _score(seen)
        if score > best_score:
            best, best_score = move, score
    return best


def _spread(seen: list[float]) -> float | None:
    """The standard error of the mean of ``seen``; None under :data:`MIN_WORLDS` worlds."""
    if len(seen) < MIN_WORLDS:
        return None
    average = mean(seen)
    return math.sqrt(sum((g - average) ** 2 for g in seen) / (len(seen) - 1) / len(seen))


def _score(seen: list[float]) -> float:
    """How surely a rival beats the policy's move: its mean gain less
    :data:`CONFIDENCE` standard errors (0 before :data:`MIN_WORLDS` worlds)."""
    spread = _spread(seen)
    return 0.0 if spread is None else mean(seen) - CONFIDENCE * spread


def _hopeless(seen: list[float]) -> bool:
    """Whether a rival surely does worse than the policy's move (its mean gain at least
    :data:`CONFIDENCE` standard errors below nothing): no more worlds for it.  Most
    decisions are clear, and such a decision ends at once instead of using the budget."""
    spread = _spread(seen)
    return spread is not None and mean(seen) + CONFIDENCE * spread < 0


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def ranked(view: View, legal: list[Action], preferred: Action, policy: Policy,
           limit: int = MAX_CANDIDATES) -> list[Action]:
    """The moves worth searching: the policy's choices in order (its move, then its move
    once that one is taken away, ...) up to ``limit``, and one move of every other kind
    on offer (a knock the policy would not make, a drop, a meld laid now): the search
    weighs the plans the policy might have missed, not only its second thoughts."""
    chosen = [preferred]
    left = [a for a in legal if a != preferred]
    while left and len(chosen) < limit:
        choice = _pick(policy, view, left)
        if choice is None:
            break
        chosen.append(choice)
        left.remove(choice)
    for kind in dict.fromkeys(a.type for a in left):
        if all(a.type != kind for a in chosen):
            of_kind = [a for a in left if a.type == kind]
            chosen.append(_pick(policy, view, of_kind) or of_kind[0])
    return chosen


def _pick(policy: Policy, view: View, among: list[Action]) -> Action | None:
    """The policy's move when only ``among`` is legal; None if it has none to give."""
    try:
        choice = policy({**view, "legal": [a.to_json() for a in among]})
    except Exception:  # a view it was never built for may trip any check
        # (the Rummy 500 player, offered melds alone, reached its discard scoring and
        # asserted); the search then takes the first such move, and goes on.
        return None
    return choice if choice in among else None


class _Search:
    """Rollouts from one decision: the same worlds for every move."""

    def __init__(self, game: str, seat: int, sampler: Sampler, policy: Policy,
                 clock: Callable[[], float], cutoff: float,
                 estimate: Estimate | None = None, horizon: int = HORIZON,
                 guess: Callable[[random.Random], Held] | None = None):
        self.descriptor = get_game(game)
        self.guess = guess
        self.seat = seat
        self.sampler = sampler
        self.policy = policy
        self.clock, self.cutoff = clock, cutoff
        self.estimate = estimate
        self.horizon = horizon if estimate is not None else ROLLOUT_LIMIT

    def value(self, move: Action, seed: int) -> float | None:
        """The seat's standing after ``move`` in the world of ``seed``, the hand played
        out by the policy (or judged by the estimate past the horizon); None if the
        clock passed the cutoff first."""
        rng = random.Random(seed)
        world = self.sampler(rng) if self.guess is None else self.sampler(rng, self.guess(rng))
        world.apply(move)
        rest = self._play_out(world)
        if rest is None:
            return None
        return standing(world.view(self.seat)) + rest

    def _judged(self, world: Any) -> float | None:
        assert self.estimate is not None
        return self.estimate(world.view, self.seat)

    def _play_out(self, world: Any) -> float | None:
        """Plays ``world`` on; what is still to come for the seat (0 at the hand's end,
        the estimate past the horizon), or None if the clock ran out."""
        for played in range(ROLLOUT_LIMIT):
            if world.is_over() or self.descriptor.only_dealing(world):
                return 0.0
            if played >= self.horizon:
                judged = self._judged(world)
                if judged is not None:
                    return judged
            if self.clock() >= self.cutoff:
                return None
            seat = world.current_player()
            if seat is None:
                return 0.0
            try:
                world.apply(self.policy(world.view(seat)))
            except IllegalAction:
                # A policy slip must not end the search; the engine's first move stands in.
                world.apply(world.legal_actions()[0])
        return 0.0


__all__ = ["HALVE_AFTER", "HORIZON", "MAX_CANDIDATES", "ROLLOUT_LIMIT", "Estimate", "Guesser",
           "Sampler", "choose_expert", "ranked"]
