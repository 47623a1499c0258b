"""A client seat that times every move it sends, for Redis outages (issue 27): the test
``tests/cluster/test_redis_outages.py`` and ``bench/cluster.py --part redis-outages``.

:class:`TimedConnection` is ``cardtable.client``'s connection, unchanged in what it does,
that notes per act ``id`` when each copy of it went out (the first send, a resend after a
reconnect, a resend after a ``retry``) and what answered each: the acknowledging view,
an error frame, or the socket's close (the client reconnects and resends the same id;
the resent copy must then be answered in its turn). :meth:`TimedConnection.late` lists
the copies not answered within a bound. Times are ``time.perf_counter()``.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import random
import time
from dataclasses import dataclass, field
from typing import Any

from cardtable.bots.levels import bot_for
from cardtable.client import ActionRefused, Connection, Frame

ANSWER_BOUND = 10.0  # seconds in which every command must get an answer (issue 27)


class TimedConnection(Connection):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.sends: dict[str, list[float]] = {}  # act id -> when each copy went out
        self.answers: dict[str, list[tuple[float, str]]] = {}  # act id -> (when, what)
        self.welcomes: list[float] = []  # when each hello was welcomed (each reconnect)

    def _answered(self, act_id: str, what: str, at: float | None = None) -> None:
        self.answers.setdefault(act_id, []).append((at or time.perf_counter(), what))

    async def _paced_send(self, message: Any) -> None:
        await super()._paced_send(message)
        if isinstance(message, dict) and message.get("t") == "act":
            self.sends.setdefault(message["d"]["id"], []).append(time.perf_counter())

    def _handle(self, raw: str | bytes) -> Frame:
        frame = super()._handle(raw)
        if frame.t == "view" and frame.ack is not None:
            self._answered(frame.ack, "ack", frame.at)
        elif frame.t == "error" and isinstance(frame.d.get("id"), str):
            self._answered(frame.d["id"], f"error {frame.d.get('code')}", frame.at)
        elif frame.t == "welcome":
            self.welcomes.append(frame.at)
        return frame

    async def _connect_with_backoff(self) -> None:
        pending = self._pending
        if pending is not None and pending.get("t") == "act":  # the close answers it
            self._answered(pending["d"]["id"], "closed")
        await super()._connect_with_backoff()

    def late(self, bound: float = ANSWER_BOUND) -> list[str]:
        """Every copy of an act not answered within ``bound`` s, and every act whose last
        answer was a close (its resent copy never answered)."""
        found = []
        for act_id, sent in self.sends.items():
            answers = sorted(self.answers.get(act_id, []))
            times = [at for at, _ in answers]
            for at in sent:
                first = bisect.bisect_left(times, at)
                if first == len(times) or times[first] - at > bound:
                    waited = "never" if first == len(times) else f"{times[first] - at:.1f} s"
                    found.append(f"{act_id}: sent at {at:.1f}, answered {waited}")
            if not answers or answers[-1][1] == "closed":
                found.append(f"{act_id}: its last copy got no answer")
        return found

    def answer_times(self, since: float, until: float) -> list[float]:
        """Seconds from each copy sent in [since, until) to its answer (``inf``: none)."""
        waits = []
        for act_id, sent in self.sends.items():
            times = sorted(at for at, _ in self.answers.get(act_id, []))
            for at in sent:
                if since <= at < until:
                    first = bisect.bisect_left(times, at)
                    waits.append(times[first] - at if first < len(times) else float("inf"))
        return waits


@dataclass
class TimedSeat:
    """One client seat against the server's computers, playing its game's bot."""

    game: str
    conn: TimedConnection
    table_id: str
    think: float = 0.0
    acks: list[float] = field(default_factory=list)  # when each move was acknowledged
    acked_ids: list[str] = field(default_factory=list)
    matches: int = 0
    refusals: list[str] = field(default_factory=list)

    def acked_after(self, moment: float) -> float | None:
        first = bisect.bisect_right(self.acks, moment)
        return self.acks[first] if first < len(self.acks) else None

    def welcomed_after(self, moment: float) -> float | None:
        first = bisect.bisect_right(self.conn.welcomes, moment)
        return self.conn.welcomes[first] if first < len(self.conn.welcomes) else None

    async def play(self, stop: asyncio.Event, rng: random.Random) -> None:
        """The game's bot, match after match (a rematch after each), until ``stop``."""
        conn, choose, number = self.conn, bot_for(self.game), 0
        while not stop.is_set():
            if conn.view.get("phase") == "match_over" and conn.seat not in conn.rematch_votes:
                await conn.rematch(timeout=60)  # one vote: the next match waits for the others'
                self.matches += 1
                continue
            if not conn.my_turn:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(conn.recv(), 1.0)
                continue
            if self.think:
                await asyncio.sleep(self.think * rng.uniform(0.5, 1.5))
            number += 1
            ref = f"{self.table_id[:8]}-{number}"
            try:
                answer = await conn.act(choose(conn.view), id=ref, timeout=60)
            except ActionRefused as refused:  # stale after a reconnect: look again
                self.refusals.append(refused.code)
                if refused.code not in ("stale", "not_your_turn", "retry"):
                    raise
                continue
            self.acks.append(answer.at)
            self.acked_ids.append(ref)
