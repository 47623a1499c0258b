"""The table actor's typed commands (``server/table/commands.py``): which must start from
the log's state, whom an answer goes to, and the command id it carries."""

from __future__ import annotations

import asyncio
import json

import pytest

from cardtable.server import protocol as p
from cardtable.server.connection import Connection
from cardtable.server.players import Sitter
from cardtable.server.table.commands import (
    Attach,
    ComputerMove,
    Detach,
    Evict,
    FromClient,
    GraceOver,
    Heal,
    Info,
    Join,
    SpectatorCount,
    TurnTimeout,
    describe,
    needs_log,
    ref_of,
    sender_of,
)

CONN = Connection(None)  # type: ignore[arg-type]  # never sends here


def frame(kind: str, data: dict[str, object] | None = None) -> FromClient:
    text = json.dumps({"t": kind, "v": 1, "d": data or {}})
    return FromClient(CONN, p.parse_client_frame(text))


@pytest.mark.parametrize(("kind", "data", "writes"), [
    ("act", {"id": "c1", "action": {"type": "pass"}}, True),
    ("rematch", None, True),
    ("settings", {"settings": {}}, True),
    ("end", None, True),
    ("start", None, True),
    ("leave", None, True),
    ("resume", None, False),  # nothing the log says changes
    ("sync", None, False),
    ("ping", None, False),
    ("chat", {"text": "hi"}, False),  # saved apart from the log
    ("mute", {"seat": 1}, False),
    ("hello", {"token": "x"}, False),
])
def test_frames_that_may_write_start_from_the_log(kind: str, data: dict[str, object] | None,
                                                  writes: bool) -> None:
    assert needs_log(frame(kind, data)) is writes


async def test_the_tables_own_commands_and_questions() -> None:
    done: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    hello = p.Hello(t="hello", d=p.HelloData(token="x"))
    assert needs_log(ComputerMove(3)) and needs_log(TurnTimeout(0, 3))
    assert needs_log(Join(done, "Bob", None, Sitter()))
    for command in (Attach(done, CONN, hello), Detach(CONN), Info(done), GraceOver(1),
                    SpectatorCount(), Heal(), Evict()):
        assert not needs_log(command), command
    assert sender_of(Attach(done, CONN, hello)) is CONN and sender_of(Detach(CONN)) is CONN
    assert sender_of(Heal()) is None and sender_of(Join(done, "Bob", 1, Sitter())) is None


def test_an_answer_carries_the_acts_command_id() -> None:
    act = frame("act", {"id": "c7", "action": {"type": "pass"}})
    assert ref_of(act) == "c7" and sender_of(act) is CONN
    assert ref_of(frame("sync")) is None and ref_of(ComputerMove(1)) is None
    assert describe(act) == "frame 'act'" and describe(Heal()) == "Heal"
