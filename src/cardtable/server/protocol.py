"""Wire frames ``{"t": type, "v": version, "d": data}``, typed; see docs/protocol.md.

Inbound text is parsed by :func:`parse_client_frame`, which turns every kind
of bad input into a :class:`ProtocolError` with a code the client can act on.

>>> parse_client_frame('{"t": "act", "v": 3, "d": {"id": "c1", "action": {"type": "pass"}}}').v
3
>>> parse_client_frame('{"t": "dance"}')
Traceback (most recent call last):
...
cardtable.server.protocol.ProtocolError: unknown_type: unknown frame type 'dance'

Hostile text is refused before it can cost anything: nesting deeper than
:data:`MAX_DEPTH` is found by a linear scan before ``json.loads`` (whose recursion
would otherwise overflow the stack on 2,000 brackets), and what JSON allows but a
frame has no use for (NaN, numbers beyond 2^53 or out of range, duplicate keys,
lone surrogates) is refused by name rather than passed on.

>>> decode_json('[' * 2000 + ']' * 2000)
Traceback (most recent call last):
...
cardtable.server.protocol.ProtocolError: bad_frame: the frame is nested deeper than 32 levels
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ..engine import get_game
from ..names import PersonName
from .storable import first_unstorable

JSON = Any


class ProtocolError(ValueError):
    """A refused frame: ``code`` from the table in docs/protocol.md and a reason."""

    def __init__(self, code: str, message: str, ref: str | None = None):
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.ref = code, message, ref


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# -- client -> server ----------------------------------------------------------------------


class HelloData(_Strict):
    token: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    spectate: bool = False
    name: PersonName | None = None  # a spectator's (cleaned: cardtable/names.py)


class Hello(_Strict):
    t: Literal["hello"]
    v: int | None = None
    d: HelloData


class ActData(_Strict):
    id: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    action: dict[str, JSON]


class Act(_Strict):
    t: Literal["act"]
    v: int
    d: ActData


class Sync(_Strict):
    t: Literal["sync"]
    v: int | None = None
    d: dict[str, JSON] = Field(default_factory=dict)


class Rematch(_Strict):
    t: Literal["rematch"]
    v: int | None = None
    d: dict[str, JSON] = Field(default_factory=dict)


class Ping(_Strict):
    t: Literal["ping"]
    v: int | None = None
    d: dict[str, JSON] = Field(default_factory=dict)


class Empty(_Strict):
    """A frame with nothing to say but its type: start, resume, leave."""

    t: Literal["start", "resume", "leave"]
    v: int | None = None
    d: dict[str, JSON] = Field(default_factory=dict)


class SettingsData(_Strict):
    settings: dict[str, JSON] = Field(default_factory=dict)  # checked by TableSettings
    options: dict[str, JSON] | None = None  # game options, checked by the engine


class ChangeSettings(_Strict):
    t: Literal["settings"]
    v: int | None = None
    d: SettingsData


class ChatData(_Strict):
    # The length limit is the table's, with its own error code; this only bounds the frame.
    text: Annotated[str, StringConstraints(max_length=2000)]


class Chat(_Strict):
    t: Literal["chat"]
    v: int | None = None
    d: ChatData


class MuteData(_Strict):
    seat: Annotated[int, Field(ge=0, le=7)]
    muted: bool = True


class Mute(_Strict):
    t: Literal["mute"]
    v: int | None = None
    d: MuteData


class EndData(_Strict):
    agree: bool = True


class EndVote(_Strict):
    t: Literal["end"]
    v: int | None = None
    d: EndData = Field(default_factory=EndData)


class HintData(_Strict):
    id: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None


class AskHint(_Strict):
    """What would a strong player do now? Answered to the sender only (:class:`Hint`)."""

    t: Literal["hint"]
    v: int | None = None
    d: HintData = Field(default_factory=HintData)


AnyClientFrame = (Hello | Act | Sync | Rematch | Ping | Empty | ChangeSettings | Chat | Mute
                  | EndVote | AskHint)
ClientFrame = Annotated[AnyClientFrame, Field(discriminator="t")]
_CLIENT: TypeAdapter[AnyClientFrame] = TypeAdapter(ClientFrame)
CLIENT_TYPES = ("hello", "act", "sync", "rematch", "ping", "start", "resume", "leave",
                "settings", "chat", "mute", "end", "hint")


MAX_DEPTH = 32  # arrays and objects inside each other; a real frame needs about 4
MAX_INT = 2 ** 53  # what a browser's numbers hold exactly
_STRUCTURE = re.compile(r'[\[\]{}"\\]')


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    r"""Whether JSON ``text`` nests arrays and objects more than ``limit`` deep; brackets
    inside strings do not count. One pass, no recursion; malformed text gets some answer
    and ``json.loads`` refuses it anyway.

    >>> too_deep('{"d": {"a": [[1]]}}', 3), too_deep('{"d": {"a": [[1]]}}', 4)
    (True, False)
    >>> too_deep(r'["[[[[", "\"[[[[\\", "["]', 2)
    False
    """
    if text.count("[") + text.count("{") <= limit:  # the usual frame: nothing to scan
        return False
    depth, in_string, skip = 0, False, -1
    for match in _STRUCTURE.finditer(text):
        at, char = match.start(), match.group()
        if at == skip:  # the character after a backslash in a string
            continue
        if in_string:
            if char == "\\":
                skip = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _refuse(message: str) -> ProtocolError:
    return ProtocolError("bad_frame", message)


def _object(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    out = dict(pairs)
    if len(out) != len(pairs):  # which one a parser keeps differs: say so, keep none
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _refuse(f"the key {key[:32]!r} appears twice in one object")
            seen.add(key)
    return out


def _int(digits: str) -> int:
    if len(digits) > 20 or abs(value := int(digits)) > MAX_INT:
        raise _refuse("an integer is beyond ±2^53")
    return value


def _float(digits: str) -> float:
    value = float(digits)
    if not math.isfinite(value):
        raise _refuse(f"the number {digits[:16]} is out of range")
    return value


def _constant(name: str) -> float:
    raise _refuse(f"{name} is not a JSON number")


def decode_json(text: str | bytes) -> dict[str, JSON]:
    """One inbound frame's JSON object, or :class:`ProtocolError` ``bad_frame`` saying
    what is wrong with it (the table socket and the lobby socket both use this)."""
    if isinstance(text, bytes):
        raise _refuse("frames are JSON text, not binary")
    if too_deep(text):
        raise _refuse(f"the frame is nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text, object_pairs_hook=_object, parse_int=_int,
                          parse_float=_float, parse_constant=_constant)
    except ProtocolError:
        raise
    except (ValueError, RecursionError):
        raise _refuse("the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise _refuse("a frame is a JSON object {\"t\", \"v\", \"d\"}")
    if "\\u" in text:  # only an escape makes a NUL or a surrogate: valid UTF-8 has none
        found = first_unstorable(data)
        if found is not None:
            raise _refuse(f"{found[0]}: {found[1]}")
    return data


def parse_client_frame(text: str | bytes) -> AnyClientFrame:
    """Decode one inbound frame or raise :class:`ProtocolError`."""
    data = decode_json(text)
    kind = data.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_frame", "a frame needs a type 't'")
    if kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", f"unknown frame type {kind[:32]!r}")
    ref = None
    if isinstance(data.get("d"), dict) and isinstance(data["d"].get("id"), str):
        ref = data["d"]["id"][:64]
    try:
        return _CLIENT.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "frame"
        raise ProtocolError("bad_frame", f"{where}: {first['msg']}", ref) from None


def client_frame_of(data: dict[str, Any]) -> AnyClientFrame:
    """A frame parsed on one process, forwarded as JSON to the table's owner (scale-out)."""
    try:
        return _CLIENT.validate_python(data)
    except ValidationError as error:
        raise ProtocolError("bad_frame", str(error.errors()[0]["msg"])) from None


# -- server -> client ----------------------------------------------------------------------


class SeatInfo(BaseModel):
    seat: int
    name: str | None
    kind: Literal["human", "bot"]
    taken: bool
    connected: bool
    level: str = "normal"  # the computer level (bots, and free seats a computer would take)
    standin: Literal["disconnected", "timeouts"] | None = None  # a computer plays for a person
    reconnect_deadline: int | None = None  # ms: the held seat goes to a computer then
    timeouts: int = 0  # turns this seat let run out in the current match
    drops: int = 0  # at a rated table: times his connection dropped in the current match
    forfeited: bool = False  # at a rated table: he lost this match by being away
    player_id: str | None = None  # the person's public player id (his profile: /p/ID)
    registered: bool = False  # he is signed in to an account: ``name`` is its username


def title_of(game: str) -> str:
    """A game's name as players know it (its descriptor's title); a stored table of a game
    this process does not know (a plug-in not loaded) keeps its bare name.

    >>> title_of("romme"), title_of("chess")
    ('German Rommé', 'chess')
    """
    try:
        return get_game(game).title
    except ValueError:
        return game


class TableInfo(BaseModel):
    table_id: str
    code: str
    game: str
    title: str
    options: dict[str, JSON]
    status: Literal["waiting", "playing", "over"]
    seats: list[SeatInfo]
    settings: dict[str, JSON] = Field(default_factory=dict)
    express: bool = False  # the options are the game's one-hand "express" options
    spectators: int = 0  # watching now
    host: int | None = 0  # the seat that may change the settings (the first person's)
    now: int = 0  # server clock (ms) when this was sent, for the deadlines in it


class WelcomeData(BaseModel):
    seat: int | None
    role: Literal["player", "spectator"]
    table: TableInfo


class Clock(BaseModel):
    seat: int
    deadline: int  # ms, server clock
    now: int  # ms, server clock when sent
    turn_time: int  # seconds


class ShuffleProof(BaseModel):
    """One shuffle's commitment (``cardtable.fairness``); order and salt once revealed."""

    id: str  # "version.index": the event that drew it and its place among its outcomes
    commit: str  # SHA-256 hex of salt + ":" + order
    order: str | None = None
    salt: str | None = None


class FairHand(BaseModel):
    """The current hand's shuffles: commitments while it is played, proofs once it is over."""

    revealed: bool
    shuffles: list[ShuffleProof]


class ViewData(BaseModel):
    view: dict[str, JSON] | None  # None: the table waits for players, nothing is dealt
    events: list[dict[str, JSON]] = Field(default_factory=list)
    ack: str | None = None
    ack_v: int | None = None  # with ``ack``: the version its act was logged at (a resent
    # act acknowledged again carries the version it made, not the table's current one)
    rematch: list[int] = Field(default_factory=list)
    clock: Clock | None = None
    end_votes: list[int] = Field(default_factory=list)
    ended: Literal["agreed"] | None = None
    fair: FairHand | None = None  # None at a table made before provably fair deals


class ErrorData(BaseModel):
    code: str
    message: str
    id: str | None = None


class Hint(BaseModel):
    """The answer to :class:`AskHint`: one of the seat's legal actions and why."""

    id: str | None = None  # the asking frame's id
    action: dict[str, JSON]
    text: str


class SeatsData(BaseModel):
    seats: list[SeatInfo]
    spectators: int = 0
    now: int = 0


class SpectatorsData(BaseModel):
    count: int  # watching now


class ChatMessage(BaseModel):
    id: int
    channel: Literal["players", "spectators"]
    seat: int | None
    name: str
    text: str
    at: int  # ms


class ChatHistory(BaseModel):
    messages: list[ChatMessage]


def view_frame(version: int, view: dict[str, JSON] | None, events: list[dict[str, JSON]],
               ack: str | None, table: dict[str, JSON], acked: int | None = None) -> str:
    """A :class:`ViewData` frame, serialized without a model: it is the hot path (one per
    receiver per action), and the engine's view is already plain JSON. ``table`` adds the
    table's own state: rematch votes, the turn clock, end votes."""
    data = {"view": view, "events": events, "ack": ack, **table}
    if ack is not None:  # the version at which the acknowledged act was logged
        data["ack_v"] = version if acked is None else acked
    return json.dumps({"t": "view", "v": version, "d": data}, separators=(",", ":"))


def frame(kind: str, version: int, data: BaseModel | dict[str, JSON]) -> str:
    """Serialize one outbound frame."""
    body = data.model_dump(mode="json") if isinstance(data, BaseModel) else data
    return json.dumps({"t": kind, "v": version, "d": body}, separators=(",", ":"))


# -- HTTP bodies ---------------------------------------------------------------------------

Name = PersonName  # NFKC, no invisible characters, one space between words (names.py)


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str = "gin"  # a body that names no game plays Gin Rummy
    options: dict[str, JSON] = Field(default_factory=dict)
    opponent: Literal["computer", "friend"] = "computer"
    name: Name = "Guest"
    players: int | None = Field(default=None, ge=2, le=8)
    # Who sits in seats 1, 2, ...: overrides ``opponent`` seat by seat.
    seats: list[Literal["human", "bot"]] | None = Field(default=None, max_length=7)
    settings: dict[str, JSON] = Field(default_factory=dict)  # TableSettings, partial


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = "Guest"
    seat: int | None = Field(default=None, ge=0, le=7)  # a particular free seat


class SeatGrant(BaseModel):
    table_id: str
    code: str
    seat: int
    token: str
    invite_url: str
