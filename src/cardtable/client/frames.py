"""What the client sends and receives: server frames, claimed seats, and the errors
:mod:`cardtable.client` raises."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.api import Action

View = dict[str, Any]
ActionLike = Action | Mapping[str, Any]
Chooser = Callable[[View], ActionLike | Awaitable[ActionLike]]


class ClientError(Exception):
    """Base of everything :mod:`cardtable.client` raises on purpose."""


class RequestRefused(ClientError):
    """An HTTP call answered 4xx/5xx; ``detail`` is the server's reason."""

    def __init__(self, status: int, detail: str):
        super().__init__(f"{status}: {detail}")
        self.status, self.detail = status, detail


class ActionRefused(ClientError):
    """The server answered a frame of ours with an ``error`` frame.

    ``code`` is the protocol's error code (``stale``, ``illegal``, ...),
    ``message`` its reason; ``snapshot`` is the ``view`` frame the server sent
    after the error (the connection's view is already in step with it).
    """

    def __init__(self, frame: Frame, snapshot: Frame | None = None):
        self.code = str(frame.d.get("code", ""))
        self.message = str(frame.d.get("message", ""))
        super().__init__(f"{self.code}: {self.message}")
        self.frame, self.snapshot = frame, snapshot


class ConnectionLost(ClientError):
    """The socket closed for good: a fatal close code, or reconnecting gave up."""

    def __init__(self, reason: str, code: int | None = None):
        super().__init__(reason if code is None else f"{reason} (close code {code})")
        self.reason, self.code = reason, code


@dataclass(frozen=True, slots=True)
class Seat:
    """A claimed seat: what ``POST /api/tables`` and ``.../join`` answer."""

    table_id: str
    code: str
    seat: int
    token: str = field(repr=False)  # a secret: kept out of logs and reprs
    invite_url: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """One server frame ``{"t", "v", "d"}`` and when it arrived (``time.perf_counter()``)."""

    t: str
    v: int | None
    d: dict[str, Any]
    at: float = 0.0

    @property
    def ack(self) -> str | None:
        """The client ``id`` this ``view`` acknowledges, if any."""
        ack = self.d.get("ack")
        return ack if isinstance(ack, str) else None

    def to_json(self) -> dict[str, Any]:
        return {"t": self.t, "v": self.v, "d": self.d}


def parse_frame(raw: str | bytes) -> Frame:
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise ClientError(f"the server sent a frame that is not {{t, v, d}}: {raw!r:.200}")
    v, d = data.get("v"), data.get("d")
    return Frame(data["t"], v if isinstance(v, int) else None,
                 d if isinstance(d, dict) else {}, time.perf_counter())


def action_json(action: ActionLike) -> dict[str, Any]:
    return action.to_json() if isinstance(action, Action) else dict(action)
