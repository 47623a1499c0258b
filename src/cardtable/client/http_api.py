"""The HTTP side of the protocol (games, creating and joining tables), and the
factory of :class:`~cardtable.client.connection.Connection`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

import httpx

from cardtable.client.connection import FRAME_BURST, FRAME_RATE, Connection, Pace
from cardtable.client.frames import Frame, RequestRefused, Seat


class Client:
    """HTTP side of the protocol, and the factory of :class:`Connection`.

    ``frame_rate``/``frame_burst`` pace each connection's outgoing frames
    below the server's per-connection limit; ``frame_rate=None`` sends at
    once (for a server started with a higher ``CARDTABLE_FRAME_RATE``).
    """

    def __init__(self, base_url: str, *, timeout: float = 10.0,
                 frame_rate: float | None = FRAME_RATE, frame_burst: int = FRAME_BURST):
        self.base_url = base_url.rstrip("/")
        self.frame_rate, self.frame_burst = frame_rate, frame_burst
        self.ws_base = "ws" + self.base_url.removeprefix("http")  # http->ws, https->wss
        # trust_env=False: never route a local table through a proxy from the environment.
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, trust_env=False)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def _call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        response = await self.http.request(method, path, json=body)
        if response.is_error:
            try:
                detail = str(response.json().get("detail", response.text))
            except (ValueError, AttributeError):
                detail = response.text
            raise RequestRefused(response.status_code, detail)
        data: dict[str, Any] = response.json()
        return data

    async def games(self) -> list[dict[str, Any]]:
        """The games this server offers, with their presets and options."""
        games: list[dict[str, Any]] = (await self._call("GET", "/api/games"))["games"]
        return games

    async def create_table(self, game: str = "gin", options: Mapping[str, Any] | None = None,
                           opponent: str = "computer", name: str = "Player",
                           players: int | None = None,
                           seats: Sequence[str] | None = None,
                           settings: Mapping[str, Any] | None = None) -> Seat:
        """Create a table and take seat 0.

        ``opponent`` (``"computer"`` or ``"friend"``) fills the other seats;
        ``seats`` (``"human"`` or ``"bot"`` for seats 1, 2, ...) overrides it seat
        by seat; ``players`` defaults to the game's usual count (its descriptor's
        first); ``settings`` are the host's table settings (``turn_time``, ``private``,
        ... see docs/protocol.md).
        """
        body: dict[str, Any] = {"game": game, "options": dict(options or {}),
                                "opponent": opponent, "name": name}
        if players is not None:
            body["players"] = players
        if seats is not None:
            body["seats"] = list(seats)
        if settings is not None:
            body["settings"] = dict(settings)
        return _seat(await self._call("POST", "/api/tables", body))

    async def join(self, code: str, name: str = "Player") -> Seat:
        """Take the first free seat of the table with invite ``code``."""
        return _seat(await self._call("POST", f"/api/tables/{code}/join", {"name": name}))

    async def table_info(self, code: str) -> dict[str, Any]:
        """What an invitee sees before sitting down: game, options, status, seats."""
        return await self._call("GET", f"/api/tables/{code}")

    def connect(self, seat: Seat | None, *, table_id: str | None = None,
                record: list[Frame] | None = None,
                on_frame: Callable[[Frame], object] | None = None,
                give_up_after: float = 60.0) -> Connection:
        """A WebSocket to a table: ``seat`` plays it, ``None`` watches ``table_id``.

        Every frame received is appended to ``record`` and passed to
        ``on_frame``; reconnecting stops after ``give_up_after`` seconds of
        failed attempts.
        """
        if seat is None and table_id is None:
            raise ValueError("a spectator needs the table_id")
        table = seat.table_id if seat is not None else table_id
        assert table is not None
        pace = Pace(self.frame_rate, self.frame_burst) if self.frame_rate else None
        return Connection(f"{self.ws_base}/ws/{table}", seat, pace=pace, record=record,
                          on_frame=on_frame, give_up_after=give_up_after)


def _seat(data: Mapping[str, Any]) -> Seat:
    return Seat(table_id=data["table_id"], code=data["code"], seat=data["seat"],
                token=data["token"], invite_url=data.get("invite_url"))
