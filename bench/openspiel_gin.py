"""OpenSpiel's simple Gin Rummy bot as an arena player, and a self-check against our `normal`.

The match is played by our engine, with rules set to OpenSpiel's (:data:`OPENSPIEL_RULES`:
knock 10, gin 25, undercut 25, no big gin, a deadwood tie scores nothing, the wall at 2 stock
cards where the player to draw may still take the last discard to knock). For each decision of
the OpenSpiel seat, :class:`SimpleGinBot` mirrors the hand so far into a pyspiel ``gin_rummy``
state (the deal, then every move, stock draws as chance outcomes), lets
``pyspiel.make_simple_gin_rummy_bot`` decide from its own observation there, and translates
that move back into one of our legal moves. Our engine scores both sides (best spread, best
lay-offs).

OpenSpiel's quirks and the moves it has that we lack, each handled and counted in
:attr:`SimpleGinBot.counts` (its move stands unless said otherwise):

* ``overcount``: its min-deadwood over-counts some meld-rich 11-card hands (e.g.
  ``3s 5s 6s 4c 5c 6c 7c 6d 3h 5h 6h``: 11, the truth is 10); ``overcount_missed_knock`` when
  that kept it from a knock our rules allowed.
* ``layoffs_for_openspiel`` (hands; ``layoff_cards_for_openspiel``: cards): its bot never lays
  off; our engine lays off for it, as for any defender (best lay-offs).
* ``passed_before_gin_melds``: against a gin it passes before laying its melds (seen by playing
  the showdown on in the mirror); our engine counts its deadwood with its best melds.
* ``upcard_thrown_back``: OpenSpiel lets it take the upcard and throw that very card (to knock
  on its ten cards); our rules forbid it, so it passes the first upcard or draws from the stock.
* ``wall_knocks``: at the wall pyspiel's one "knock" is our taking the last discard, then a
  knock.
* ``knock_card_changed``: it knocks throwing the card it took; our least-deadwood knock
  instead. ``upcard_after_both_passed``: it asks for an upcard both passed; it draws from the
  stock.
* ``discard_taken_card``, ``fallback_*`` (the mirror or the bot failed, e.g. under other
  rules; see :func:`rule_differences`): the move comes from `cardtable.bots.gin.normal`, our
  ``normal``, as does a changed knock when no knock is left to make.

Cards: ours are ``suit * 13 + rank`` with suits c d h s; OpenSpiel orders suits s c d h, so its
suit is ``(ours + 1) % 4`` (as in ``bench/peers.py``); ranks agree.

Arena: ``--seats normal,bench/openspiel_gin.py:SimpleGinBot`` plus the flags of
:func:`arena_flags`. Self-check: ``python bench/openspiel_gin.py --games 200``.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cardtable.bots.gin import normal as gin_normal
from cardtable.engine.api import Action
from cardtable.engine.cards import parse
from cardtable.engine.games import gin
from cardtable.engine.games.gin import GinState, Options, Phase
from cardtable.engine.games.gin.showdown import SOLVER

# bench/ is on the path when this runs as a script or under `cardtable bench`; the arena may
# load this file by its path alone, so make its sibling importable either way.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.append(str(Path(__file__).resolve().parent))

from openspiel_gin_mirror import (  # after the path fix above
    HAND_SIZE,
    OPENSPIEL_RULES,
    Mirror,
    MirrorError,
    arena_flags,
    from_openspiel,
    hand_script,
    load_pyspiel,
    openspiel_options,
    rule_differences,
    to_openspiel,
)

__all__ = ["OPENSPIEL_RULES", "SimpleGinBot", "arena_flags", "main", "openspiel_options",
           "play_match", "rule_differences"]

# -- the player ------------------------------------------------------------------------------------


class SimpleGinBot:
    """An arena seat played by OpenSpiel's ``SimpleGinRummyBot`` (see the module docstring)."""

    label = "openspiel-simple"

    def __init__(self, game: str = "gin", options: Options | None = None):
        if game != "gin":
            raise ValueError(f"OpenSpiel's simple Gin bot plays gin, not {game!r}")
        self.options = options if options is not None else openspiel_options()
        self.rule_differences = rule_differences(self.options)
        self._pyspiel = load_pyspiel()
        gr = self._pyspiel.gin_rummy
        self._game = self._pyspiel.load_game("gin_rummy", {
            "knock_card": self.options.knock_limit, "gin_bonus": self.options.gin_bonus,
            "undercut_bonus": self.options.undercut_bonus, "oklahoma": self.options.oklahoma})
        params = self._game.get_parameters()
        self._bots = [self._pyspiel.make_simple_gin_rummy_bot(params, p) for p in (0, 1)]
        self.utils = gr.GinRummyUtils(13, 4, HAND_SIZE)
        self._gr = gr
        self._counts: Counter[str] = Counter()
        self._mirror: Mirror | None = None
        self._mirror_key: tuple[int, int] | None = None
        self._watched: GinState | None = None  # the match whose finished hands we count
        self._watched_seats: set[int] = set()
        self._hands_counted = 0
        self.decisions = 0
        self.seconds = 0.0  # thread time spent deciding, for the self-check's report

    @property
    def counts(self) -> dict[str, int]:
        """The special cases handled so far (finished hands of the last match included)."""
        self._count_finished_hands()
        return dict(self._counts)

    def choose(self, state: GinState, seat: int) -> Action:
        """OpenSpiel's move for ``seat`` in our ``state``, as one of ``state.legal_actions()``."""
        if state.to_act != seat:
            raise ValueError(f"seat {seat} is not to act in {state}")
        started = time.thread_time()
        try:
            self._watch(state, seat)
            legal = state.legal_actions()
            if len(legal) == 1:  # dealing, or the one move left: nothing for OpenSpiel to decide
                return legal[0]
            try:
                action = self._decide(state, seat, legal)
            except (MirrorError, self._pyspiel.SpielError) as e:
                self._counts["fallback_" + _reason_name(e)] += 1
                action = None
            if action is None or action not in legal:
                action = gin_normal.choose(state.view(seat))
            return action
        finally:
            self.decisions += 1
            self.seconds += time.thread_time() - started

    # -- one decision ---------------------------------------------------------------------------

    def _decide(self, state: GinState, seat: int, legal: list[Action]) -> Action | None:
        mirror = self._mirror_of(state)
        player = mirror.player_of(seat)
        ps = mirror.state
        gr, phase = self._gr, state.phase
        upcard = None if phase is Phase.DISCARD else to_openspiel(state.discard[-1])
        if ps.current_player() != player or mirror.hand(seat) != sorted(state.hands[seat]) \
                or ps.stock_size() != len(state.stock) or ps.upcard() != upcard:
            raise MirrorError("the mirror is out of step")
        if phase is Phase.DISCARD:
            if state.must_knock:  # took the last discard at the wall: pyspiel knocked there
                self._counts["wall_knocks"] += 1
                return self._knock(state, self._knock_discard(mirror.before_wall, player),
                                   seat, legal)
            move = self._step(ps, player)
            if move == gr.KNOCK_ACTION:
                return self._knock(state, self._knock_discard(ps, player), seat, legal)
            could_knock = any(a.type in ("gin", "knock") for a in legal)
            self._note_overcount(state.hands[seat], missed_knock=could_knock)
            return self._discard(state, from_openspiel(move), legal)
        move = self._step(ps, player)
        if move == gr.DRAW_UPCARD_ACTION and phase is not Phase.FINAL_DISCARD and \
                self._throws_back(ps, player):
            # OpenSpiel lets it take the upcard and knock throwing that card straight back,
            # i.e. knock on its ten cards; our rules need a draw first: draw from the stock.
            self._counts["upcard_thrown_back"] += 1
            move = gr.PASS_ACTION if phase is Phase.FIRST_UPCARD else gr.DRAW_STOCK_ACTION
        if phase is Phase.FIRST_UPCARD:
            return Action("take_upcard") if move == gr.DRAW_UPCARD_ACTION else Action("pass")
        if phase is Phase.FINAL_DISCARD:  # pyspiel's wall: knock with the upcard, or pass
            if move == gr.KNOCK_ACTION:
                return Action("draw_discard")
            self._note_overcount([*state.hands[seat], *state.discard[-1:]], missed_knock=True)
            return Action("pass")
        if phase is Phase.DRAW:
            if move == gr.DRAW_UPCARD_ACTION:
                if Action("draw_discard") in legal:
                    return Action("draw_discard")
                self._counts["upcard_after_both_passed"] += 1
            return Action("draw_stock")
        raise MirrorError(f"no OpenSpiel decision in phase {phase.value}")

    def _step(self, ps: Any, player: int) -> int:
        """The bot's move at ``ps``, from a fresh start (its memory is one knock's plan)."""
        bot = self._bots[player]
        bot.restart()
        return int(bot.step(ps))

    def _throws_back(self, ps: Any, player: int) -> bool:
        """Whether the bot, having taken the upcard at ``ps``, would discard that same card."""
        upcard = ps.upcard()
        after = ps.clone()
        after.apply_action(self._gr.DRAW_UPCARD_ACTION)
        move = self._step(after, player)
        if move == self._gr.KNOCK_ACTION:
            move = to_openspiel(self._knock_discard(after, player))
        return bool(move == upcard)

    def _knock_discard(self, before_knock: Any, player: int) -> int:
        """The card the bot discards after knocking at ``before_knock`` (our number)."""
        bot = self._bots[player]
        bot.restart()
        if before_knock is None or bot.step(before_knock) != self._gr.KNOCK_ACTION:
            raise MirrorError("the bot did not knock where our engine says it did")
        after = before_knock.clone()
        after.apply_action(self._gr.KNOCK_ACTION)
        return from_openspiel(int(bot.step(after)))  # a card: its plan's first step

    def _knock(self, state: GinState, card: int, seat: int,
              legal: list[Action]) -> Action | None:
        for kind in ("gin", "knock"):  # pyspiel says "knock" for a gin too
            if Action(kind, card=card) in legal:
                return Action(kind, card=card)
        # The card it throws is the one it just took (OpenSpiel allows that): knock with the
        # card that leaves the least deadwood instead, if our rules allow any knock.
        self._counts["knock_card_changed"] += 1
        knocks = [a for a in legal if a.type in ("gin", "knock")]
        if not knocks:
            return None
        left = SOLVER.deadwood_after_each_discard(state.hands[seat])
        return min(knocks, key=lambda a: (left[a.card or 0], -gin.showdown.value(a.card or 0)))

    def _discard(self, state: GinState, card: int, legal: list[Action]) -> Action | None:
        if Action("discard", card=card) in legal:
            return Action("discard", card=card)
        self._counts["discard_taken_card"] += 1  # our rules forbid it: gin_normal discards
        return None

    def _note_overcount(self, hand: Sequence[int], missed_knock: bool) -> None:
        """Count an 11-card ``hand`` whose deadwood OpenSpiel over-counts (its move stands);
        ``missed_knock``: our rules offered a knock the bot did not make."""
        truth = min(SOLVER.deadwood_after_each_discard(hand).values())
        if int(self.utils.min_deadwood([to_openspiel(c) for c in hand])) > truth:
            self._counts["overcount"] += 1
            if missed_knock:
                self._counts["overcount_missed_knock"] += 1

    def _mirror_of(self, state: GinState) -> Mirror:
        """The pyspiel mirror of the hand in play, brought up to date (rebuilt when needed)."""
        deck, moves = hand_script(state, state.hand_number)
        key = (id(state), state.hand_number)
        mirror = self._mirror
        if mirror is None or key != self._mirror_key or mirror.dealer != state.dealer or \
                moves[:len(mirror.played)] != mirror.played:
            mirror = Mirror(self._pyspiel, self._game, deck, state.dealer)
            self._mirror, self._mirror_key = mirror, key
        try:
            for move in moves[len(mirror.played):]:
                mirror.play(move)
        except Exception:
            self._mirror = None  # half-played: the next decision starts afresh
            raise
        return mirror

    # -- finished hands: what our engine did for the OpenSpiel seat ---------------------------

    def _watch(self, state: GinState, seat: int) -> None:
        if state is not self._watched:
            self._count_finished_hands()
            self._watched, self._watched_seats, self._hands_counted = state, set(), 0
        self._watched_seats.add(seat)
        self._count_finished_hands()

    def _count_finished_hands(self) -> None:
        state = self._watched
        if state is None:
            return
        while self._hands_counted < len(state.history):
            row = state.history[self._hands_counted]
            self._hands_counted += 1
            for seat in self._watched_seats:
                self._count_showdown(state, seat, row)

    def _count_showdown(self, state: GinState, seat: int, row: Mapping[str, Any]) -> None:
        knocker = row.get("knocker_seat")
        if knocker is None or knocker == seat:
            return
        if row.get("layoffs"):
            self._counts["layoffs_for_openspiel"] += 1
            self._counts["layoff_cards_for_openspiel"] += len(row["layoffs"])
        if row.get("kind") != "gin" or not row["defender"]["melds"]:
            return
        try:
            passed = self._passes_before_melds(state, seat, row)
        except (MirrorError, self._pyspiel.SpielError) as e:
            self._counts["fallback_showdown_" + _reason_name(e)] += 1
            passed = True  # what its code does against every gin
        if passed:
            self._counts["passed_before_gin_melds"] += 1

    def _passes_before_melds(self, state: GinState, seat: int, row: Mapping[str, Any]) -> bool:
        """Replay the gin hand ``row`` in pyspiel: does the bot pass before laying its melds?"""
        deck, moves = hand_script(state, int(row["hand"]))
        mirror = Mirror(self._pyspiel, self._game, deck, int(row["dealer"]))
        for move in moves:
            mirror.play(move)
        mirror.lay_melds([parse(m) for m in row["knocker"]["melds"]])
        legal = mirror.state.legal_actions()
        return self._step(mirror.state, mirror.player_of(seat)) == self._gr.PASS_ACTION and \
            len(legal) > 1


def _reason_name(error: Exception) -> str:
    return "mirror" if isinstance(error, MirrorError) else "openspiel_error"


# -- the self-check: gin_normal (our `normal`) against OpenSpiel's bot --------------------------


def play_match(player: SimpleGinBot, seed: int, openspiel_seat: int,
               options: Options) -> GinState:
    """One match of ``gin_normal`` against ``player``; every move is checked by our engine."""
    state = gin.new_match(options, 2, random.Random(seed))
    while not state.is_over():
        seat = state.to_act
        assert seat is not None
        move = player.choose(state, seat) if seat == openspiel_seat else \
            gin_normal.choose(state.view(seat))
        state.apply(move)  # an illegal move raises here
    return state


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a share ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


class Tally:
    """What the self-check reports, from gin_normal's side (seat ``1 - openspiel_seat``)."""

    def __init__(self, options: Options, openspiel_deadwood: Callable[[list[int]], int]) -> None:
        self.options = options
        self.matches = self.match_wins = 0
        self.hands = self.void = self.ties = self.hand_wins = 0
        self.points = [0, 0]  # hand points: [gin_normal, OpenSpiel]
        self.net_if_openspiel_showdown = 0  # gin_normal's net hand points, see `lines`
        self._openspiel_deadwood = openspiel_deadwood

    def add(self, state: GinState, openspiel_seat: int) -> None:
        ours = 1 - openspiel_seat
        self.matches += 1
        self.match_wins += state.result().get("winner") == ours
        for row in state.history:
            self.hands += 1
            if row["kind"] == "void":
                self.void += 1
            elif row["winner"] is None:
                self.ties += 1
            else:
                self.hand_wins += row["winner"] == ours
                self.points[row["winner"] != ours] += int(row["points"])
            self.net_if_openspiel_showdown += self._openspiel_showdown_net(row, ours)

    def _openspiel_showdown_net(self, row: Mapping[str, Any], ours: int) -> int:
        """gin_normal's net points of hand ``row`` had OpenSpiel's own showdown stood: when
        OpenSpiel's bot defends it lays no card off and, against gin, no meld either."""
        if row["kind"] == "void":
            return 0
        sign = 1 if row["winner"] == ours else -1
        if row["knocker_seat"] != ours:
            return sign * int(row["points"]) if row["winner"] is not None else 0
        side = row["defender"]
        hand = parse(" ".join([*side["melds"], side["deadwood"],
                               *(layoff["card"] for layoff in row["layoffs"])]))
        if row["kind"] == "gin":
            return sum(gin.showdown.value(c) for c in hand) + self.options.gin_bonus
        margin = self._openspiel_deadwood(hand) - int(row["knocker"]["points"])
        return margin if margin >= 0 else margin - self.options.undercut_bonus

    def lines(self) -> list[str]:
        low, high = wilson(self.match_wins, self.matches)
        decided = self.hands - self.void - self.ties
        h_low, h_high = wilson(self.hand_wins, decided)
        per_hand = [p / max(self.hands, 1) for p in self.points]
        return [
            f"gin_normal vs OpenSpiel simple bot: {self.matches} matches, "
            f"{self.hands} hands ({self.void} void, {self.ties} tied)",
            f"  matches won by gin_normal: {self.match_wins / max(self.matches, 1):.1%} "
            f"(95% CI {low:.1%}-{high:.1%})",
            f"  decided hands won by gin_normal: {self.hand_wins / max(decided, 1):.1%} "
            f"(95% CI {h_low:.1%}-{h_high:.1%})",
            f"  points per hand: gin_normal {per_hand[0]:.2f}, OpenSpiel {per_hand[1]:.2f}, "
            f"net {per_hand[0] - per_hand[1]:+.2f}",
            f"  net per hand had OpenSpiel's showdown stood (its bot lays nothing off, no meld "
            f"against gin): {self.net_if_openspiel_showdown / max(self.hands, 1):+.2f}",
        ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, metavar="N",
                        help="matches to play: pairs on one deal sequence, seats swapped")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first pair")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an option on top of OpenSpiel's rules, e.g. target=50")
    args = parser.parse_args(argv)
    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = _option_value(value)
    options = openspiel_options(**overrides)
    try:
        player = SimpleGinBot("gin", options)
    except ImportError as e:
        print(e, file=sys.stderr)
        return 2
    for difference in player.rule_differences:
        print(f"note: {difference}")
    print("arena flags:", " ".join(arena_flags()))
    utils = player.utils
    tally = Tally(options, lambda hand: int(utils.min_deadwood([to_openspiel(c) for c in hand])))
    started = time.perf_counter()
    for i in range(args.games):
        openspiel_seat = i % 2  # the pair's second match deals the same cards, seats swapped
        tally.add(play_match(player, args.seed + i // 2, openspiel_seat, options),
                  openspiel_seat)
        if (i + 1) % 20 == 0:
            print(f"  {i + 1}/{args.games} matches, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
    for line in tally.lines():
        print(line)
    per_decision = player.seconds / max(player.decisions, 1) * 1e3
    print(f"  OpenSpiel seat: {player.decisions} decisions, {per_decision:.2f} ms each "
          f"(mirror included)")
    print("  counts: " + (", ".join(f"{k} {v}" for k, v in sorted(player.counts.items()))
                          or "none"))
    return 0


def _option_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text


if __name__ == "__main__":
    raise SystemExit(main())
