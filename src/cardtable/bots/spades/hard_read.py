"""What the hard Spades player reads from a view: cards out, voids, odds, the side's aim.

:class:`Reading` is rebuilt from ``view`` for every decision (no state between calls):

* the cards still out (normal's :class:`~cardtable.bots.spades.normal.Table`), the suits
  each seat has shown it lacks (failing to follow; a spade led before spades were
  broken shows a hand of spades only), the plain suits each seat threw away (partner's
  signal: nothing there);
* the odds that a seat still to play beats a card: a hand of ``h`` cards drawn from the
  ``u`` cards out misses ``m`` given cards with the hypergeometric chance
  :func:`p_none`; a seat beats a card by holding a higher one of its suit, or by
  being out of the suit led and holding a spade;
* the side's aim for the rest of the hand (:meth:`Reading.aim`): ``"take"`` while its
  contract needs tricks or the opponents can still be set, else ``"duck"`` (every
  trick more is a bag for us and a trick the opponents cannot use).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cardtable.bots.spades.normal import Table
from cardtable.engine.games.spades.tricks import POWER_OF, SPADES, SUIT_OF, trick_winner

View = dict[str, Any]

SET_REACH = 0.7
"""With our contract made, we go on taking tricks to set the opponents while the tricks
it takes are at most this share of the tricks left (a set is worth ten a trick they
bid; the tricks spent on a failed try are bags)."""


@lru_cache(maxsize=4096)
def p_none(m: int, h: int, u: int) -> float:
    """The chance that ``h`` cards dealt from ``u`` hold none of ``m`` given ones."""
    p = 1.0
    for i in range(m):
        if u - i <= 0 or u - h - i <= 0:
            return 0.0
        p *= (u - h - i) / (u - i)
    return p


class Reading:
    """The view, parsed, and the odds of who beats what."""

    def __init__(self, view: View) -> None:
        t = Table.read(view)
        self.table = t
        self.seat = t.seat
        self.partner = t.partner
        self.opponents = t.opponents
        self.hand = t.hand
        self.trick = t.trick
        self.counts: list[int] = [h["count"] for h in view["hands"]]
        self.led: int | None = SUIT_OF[t.trick[0][1]] if t.trick else None
        self.later = t.still_to_play()
        self.voids = t.voids()
        self._spade_leads(view)
        # Plain suits each seat threw on another suit: a suit it does not care for.
        self.thrown: dict[int, set[int]] = {s: set() for s in range(t.players)}
        for _, plays, _ in t.tricks:
            led = SUIT_OF[plays[0][1]]
            for s, c in plays[1:]:
                if SUIT_OF[c] not in (led, SPADES):
                    self.thrown[s].add(SUIT_OF[c])
        out: list[list[int]] = [[], [], [], []]
        for c in t.unseen:
            out[SUIT_OF[c]].append(c)
        self.out = out  # cards out, by suit
        self.n_out = len(t.unseen)
        self.sides: list[list[int]] = view["sides"]

    def _spade_leads(self, view: View) -> None:
        """A spade led before spades were broken: the leader held nothing else."""
        if not view["options"]["spade_breaking"]:
            return
        broken = False
        for leader, plays, _ in self.table.tricks:
            if SUIT_OF[plays[0][1]] == SPADES and not broken:
                self.voids[leader] |= {0, 1, 2}
            broken = broken or any(SUIT_OF[c] == SPADES for _, c in plays)

    # -- odds ----------------------------------------------------------------------------

    def p_void(self, seat: int, suit: int) -> float:
        if suit in self.voids[seat]:
            return 1.0
        return p_none(len(self.out[suit]), self.counts[seat], self.n_out)

    def p_higher(self, seat: int, c: int) -> float:
        """The chance ``seat`` holds a card of ``c``'s suit above it."""
        suit = SUIT_OF[c]
        if suit in self.voids[seat]:
            return 0.0
        rank = POWER_OF[c]
        m = sum(1 for u in self.out[suit] if POWER_OF[u] > rank)
        return 1.0 - p_none(m, self.counts[seat], self.n_out) if m else 0.0

    def p_beat(self, seat: int, c: int, led: int, ruffs: float = 1.0) -> float:
        """The chance ``seat``, still to play, beats ``c`` (the card winning a trick of
        the suit ``led``) when it tries; out of the suit, it ruffs with share ``ruffs``
        of its chances (a seat that need not win may throw a card instead)."""
        suit = SUIT_OF[c]
        if suit == led:
            beat = self.p_higher(seat, c)
            if led != SPADES and self.out[SPADES] and SPADES not in self.voids[seat]:
                has_spade = 1.0 - p_none(len(self.out[SPADES]), self.counts[seat], self.n_out)
                beat += self.p_void(seat, led) * has_spade * ruffs
            return min(beat, 1.0)
        # c is a spade on a plain lead: overruffed only by a seat out of the suit led
        return self.p_void(seat, led) * self.p_higher(seat, c)

    def p_hold(self, c: int, against: list[int] | None = None) -> float:
        """The chance ``c``, played now and winning, is not beaten by the opponents
        (``against``, default: the opponents still to play)."""
        led = self.led if self.led is not None else SUIT_OF[c]
        seats = self.later_opponents() if against is None else against
        p = 1.0
        for s in seats:
            if not self.table.nil_alive(s):  # a nil bidder ducks
                p *= 1.0 - self.p_beat(s, c, led)
        return p

    def p_win_alone(self, c: int) -> float:
        """The chance ``c`` wins the trick against everyone still to play, partner too
        (who may not want it: he throws rather than ruffs as often as not), but for a
        nil bidder, who ducks, and our nil's partner, who covers him."""
        led = self.led if self.led is not None else SUIT_OF[c]
        if self.trick and not self.beats(c):
            return 0.0
        nil = self.table.nil_alive(self.seat)
        p = 1.0
        for s in self.later:
            if self.table.nil_alive(s):
                continue
            p *= 1.0 - self.p_beat(s, c, led, 1.0 if nil and s == self.partner else 0.7)
        return p

    # -- the trick -----------------------------------------------------------------------

    def beats(self, c: int) -> bool:
        return not self.trick or trick_winner([*self.trick, (self.seat, c)]) == self.seat

    def winner(self) -> tuple[int, int]:
        seat = trick_winner(self.trick)
        return seat, next(c for s, c in self.trick if s == seat)

    def later_opponents(self) -> list[int]:
        return [s for s in self.later if s != self.partner]

    def is_boss(self, c: int) -> bool:
        rank = POWER_OF[c]
        return not any(POWER_OF[u] > rank for u in self.out[SUIT_OF[c]])

    # -- the side's aim ------------------------------------------------------------------

    def side_of(self, seat: int) -> list[int]:
        return next(s for s in self.sides if seat in s)

    def need_of(self, seats: list[int]) -> int:
        """Tricks the side of ``seats`` still needs for its contract (0: made, or none)."""
        t = self.table
        contract = sum(t.bids[s] or 0 for s in seats)
        counts_nil = t.options["failed_nil_tricks"] == "contract"
        taken = sum(t.won[s] for s in seats if t.bids[s] or counts_nil)
        return max(contract - taken, 0)

    def tricks_left(self) -> int:
        return len(self.hand)

    def aim(self) -> str:
        """``"take"`` or ``"duck"`` for the rest of this hand (nils aside)."""
        left = self.tricks_left()
        need = self.need_of(self.side_of(self.seat))
        if 0 < need <= left:
            return "take"
        if self.can_set():
            return "take"
        return "duck"

    def can_set(self) -> bool:
        """Whether an opponents' contract is still open and in reach of a set."""
        left = self.tricks_left()
        for side in self.sides:
            if self.seat in side:
                continue
            need = self.need_of(side)
            if need <= 0 or need > left:
                continue  # made, or set already
            to_set = left - need + 1  # tricks we must still take to stop them
            if to_set <= max(1.0, SET_REACH * left):
                return True
        return False


__all__ = ["SET_REACH", "Reading", "p_none"]
