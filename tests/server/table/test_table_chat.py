"""Table chat over a real server: who reads what, the refusals, mutes and the history."""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from cardtable.server.chat import QUICK_PHRASES
from cardtable.server.protocol import ChatMessage
from server_harness import ServerProcess
from table_life_helpers import quiet_table as new_table
from ws_helpers import join, recv, recv_type

Frame = dict[str, Any]
_markers = itertools.count(1)
# The room's table version: dealt when Bob takes the last seat (its log's first event).
DEALT = 1


async def enter(server: ServerProcess, table_id: str,
                hello: Frame) -> tuple[ClientConnection, list[Frame]]:
    """Say hello; returns the socket and the frames up to and including ``chat_history``."""
    # max_queue=None: a socket the test does not read must not stall the server's writes to
    # it (the library stops reading TCP at 16 queued frames), or its close waits 10 s.
    ws = await connect(f"{server.ws_base}/ws/{table_id}", max_queue=None)
    await ws.send(json.dumps({"t": "hello", "d": hello}))
    frames = [await recv(ws)]
    while frames[-1]["t"] != "chat_history":
        frames.append(await recv(ws))
    return ws, frames


async def sit(server: ServerProcess, grant: Frame) -> ClientConnection:
    ws, _ = await enter(server, grant["table_id"], {"token": grant["token"]})
    return ws


async def watch(server: ServerProcess, grant: Frame, name: str | None = None) -> ClientConnection:
    hello: Frame = {"spectate": True} | ({"name": name} if name else {})
    ws, _ = await enter(server, grant["table_id"], hello)
    return ws


@dataclass
class Room:
    """Ann (seat 0, the host) and Bob (seat 1) playing, Zoe and a nameless spectator watching."""

    grant: Frame
    bob_grant: Frame
    ann: ClientConnection
    bob: ClientConnection
    zoe: ClientConnection
    other: ClientConnection

    @property
    def everyone(self) -> list[ClientConnection]:
        return [self.ann, self.bob, self.zoe, self.other]

    async def close(self) -> None:
        for ws in self.everyone:
            await ws.close()


async def room(server: ServerProcess, **body: Any) -> Room:
    grant = new_table(server, **body)
    bob_grant = join(server, grant["code"])
    ann = await sit(server, grant)
    bob = await sit(server, bob_grant)
    zoe = await watch(server, grant, "Zoe")
    other = await watch(server, grant)
    return Room(grant, bob_grant, ann, bob, zoe, other)


async def say(ws: ClientConnection, text: str) -> None:
    await ws.send(json.dumps({"t": "chat", "d": {"text": text}}))


async def until_chat(ws: ClientConnection, text: str) -> tuple[list[Frame], Frame]:
    """Read up to the chat frame with ``text``: (the frames before it, that frame)."""
    before: list[Frame] = []
    while True:
        frame = await recv(ws)
        if frame["t"] == "chat" and frame["d"]["text"] == text:
            return before, frame
        before.append(frame)


async def nothing_else_until_marker(by: ClientConnection, listeners: list[ClientConnection],
                                    version: int = DEALT) -> None:
    """``by`` says a fresh line; no listener gets a chat or an error before it, and nothing
    it gets before it is of another table version than ``version``.

    The table handles frames in order, so anything broadcast before the marker would be
    queued before it on every socket.
    """
    marker = f"marker {next(_markers)}"
    await say(by, marker)
    for ws in listeners:
        before, _ = await until_chat(ws, marker)
        assert not [frame for frame in before if frame["t"] in ("chat", "error")], before
        assert all(frame["v"] == version for frame in before), before


async def refusal(ws: ClientConnection, text: str) -> Frame:
    """Say ``text`` and return the error; no chat of it reaches the sender either."""
    await say(ws, text)
    while True:
        frame = await recv(ws)
        assert frame["t"] != "chat" or frame["d"]["text"] != text.strip(), frame
        if frame["t"] == "error":
            return frame


async def version_now(ws: ClientConnection) -> int:
    await ws.send(json.dumps({"t": "sync"}))
    return int((await recv_type(ws, "view"))["v"])


# -- who reads what ----------------------------------------------------------------------------


async def test_a_players_message_reaches_players_and_spectators(server: ServerProcess) -> None:
    r = await room(server)
    before = time.time() * 1000
    await say(r.ann, "hello all")
    frames = [(await until_chat(ws, "hello all"))[1] for ws in r.everyone]
    after = time.time() * 1000
    for frame in frames:  # Ann's own copy too: the client shows what the server kept
        assert frame["d"] == frames[0]["d"] and frame["v"] == DEALT
    data = frames[0]["d"]
    assert set(data) == {"id", "channel", "seat", "name", "text", "at"}
    ChatMessage.model_validate(data)
    assert (data["channel"], data["seat"], data["name"], data["text"]) == \
        ("players", 0, "Ann", "hello all")
    assert isinstance(data["id"], int) and isinstance(data["at"], int)
    assert before - 5000 <= data["at"] <= after + 5000  # ms on the server clock
    await say(r.bob, "hi Ann")
    reply = [(await until_chat(ws, "hi Ann"))[1]["d"] for ws in r.everyone]
    assert reply[0]["seat"] == 1 and reply[0]["name"] == "Bob" and reply[0]["id"] > data["id"]
    assert await version_now(r.ann) == DEALT  # chat is not a move
    await r.close()


async def test_a_spectators_message_reaches_spectators_only(server: ServerProcess) -> None:
    r = await room(server)
    await say(r.zoe, "who wins?")
    for ws in (r.zoe, r.other):
        _, frame = await until_chat(ws, "who wins?")
        assert frame["d"]["channel"] == "spectators" and frame["d"]["seat"] is None
        assert frame["d"]["name"] == "Zoe"
    await say(r.other, "Ann, surely")
    _, frame = await until_chat(r.zoe, "Ann, surely")
    assert frame["d"]["name"].startswith("Spectator")  # no name given: one is made up
    await until_chat(r.other, "Ann, surely")
    # nothing of it reached the players: their next chat is Bob's marker
    await nothing_else_until_marker(r.bob, [r.ann, r.bob])
    await r.close()


async def test_quick_phrases_are_plain_chat(server: ServerProcess) -> None:
    r = await room(server)
    for phrase in QUICK_PHRASES:
        await say(r.bob, phrase)
        for ws in r.everyone:
            _, frame = await until_chat(ws, phrase)
            assert frame["d"]["seat"] == 1 and frame["d"]["channel"] == "players"
    await r.close()


async def test_markup_is_delivered_exactly_as_written(server: ServerProcess) -> None:
    name = "<img src=x onerror=1>"
    grant = new_table(server, name=name)
    bob = join(server, grant["code"])
    ann_ws, bob_ws = await sit(server, grant), await sit(server, bob)
    zoe = await watch(server, grant, "<b>Zoe</b>")
    text = ("<script>alert('x')</script> <img src=x onerror=\"alert(1)\"> &amp; &lt;b&gt; "
            "\\u003c {{7*7}} ${x} Grüße 🂡")
    await say(ann_ws, text)
    for ws in (ann_ws, bob_ws, zoe):
        _, frame = await until_chat(ws, text)
        assert frame["d"]["text"] == text and frame["d"]["name"] == name
    await say(zoe, "<i>psst</i>")
    _, frame = await until_chat(zoe, "<i>psst</i>")
    assert frame["d"]["name"] == "<b>Zoe</b>"
    for ws in (ann_ws, bob_ws, zoe):
        await ws.close()


async def test_control_characters_are_stripped(server: ServerProcess) -> None:
    r = await room(server)
    await say(r.ann, "  good\x01 game\x07\x1b\u202e  ")  # (a NUL is a bad_frame)
    for ws in r.everyone:
        _, frame = await until_chat(ws, "good game")
        assert frame["d"]["text"] == "good game"
    await say(r.ann, "two\nlines")
    shown = (await recv_type(r.bob, "chat"))["d"]["text"]
    assert shown.startswith("two") and shown.endswith("lines")
    assert not any(ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0 for ch in shown)
    await r.close()


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "code"), [
    ("x" * 301, "chat_too_long"),
    ("", "chat_empty"),
    ("   ", "chat_empty"),
    ("\x01\x02\x07\x1b", "chat_empty"),
    ("\u200b\u202e", "chat_empty"),
])
async def test_a_refused_message_goes_back_to_its_sender_only(server: ServerProcess, text: str,
                                                              code: str) -> None:
    r = await room(server)
    for sender in (r.ann, r.zoe):  # a player and a spectator alike
        error = await refusal(sender, text)
        assert error["d"]["code"] == code and error["d"]["message"], error
        assert error["v"] == DEALT
        assert await version_now(sender) == DEALT  # the table did not change
    await nothing_else_until_marker(r.bob, r.everyone)
    await r.close()


async def test_three_hundred_characters_are_fine(server: ServerProcess) -> None:
    r = await room(server)
    await say(r.ann, "y" * 300)
    for ws in r.everyone:
        await until_chat(ws, "y" * 300)
    await r.close()


async def test_the_sixth_message_within_ten_seconds_is_chat_rate(server: ServerProcess) -> None:
    r = await room(server)
    for i in range(5):
        await say(r.ann, f"line {i}")
    for ws in r.everyone:
        for i in range(5):
            await until_chat(ws, f"line {i}")
    error = await refusal(r.ann, "line 5")
    assert error["d"]["code"] == "chat_rate" and error["v"] == DEALT
    assert await version_now(r.ann) == DEALT
    await nothing_else_until_marker(r.bob, r.everyone)
    # the limit is Ann's alone: a spectator chats on
    await say(r.zoe, "calm down")
    await until_chat(r.other, "calm down")
    await r.close()


async def test_saying_the_same_twice_in_a_row_is_chat_repeat(server: ServerProcess) -> None:
    r = await room(server)
    await say(r.ann, "gg")
    for ws in r.everyone:
        await until_chat(ws, "gg")
    error = await refusal(r.ann, "gg")
    assert error["d"]["code"] == "chat_repeat" and error["v"] == DEALT
    await nothing_else_until_marker(r.bob, r.everyone)
    await say(r.bob, "gg")  # Bob may say what Ann said
    await say(r.ann, "well played")  # something else is fine
    await say(r.ann, "gg")  # and so is "gg" once it is not the previous line
    for ws in r.everyone:
        await until_chat(ws, "gg")
        await until_chat(ws, "well played")
        await until_chat(ws, "gg")
    await r.close()


async def test_the_host_turns_spectator_chat_off(server: ServerProcess) -> None:
    r = await room(server)
    await r.ann.send(json.dumps({"t": "settings", "d": {"settings": {"spectator_chat": False}}}))
    for ws in r.everyone:
        table = await recv_type(ws, "table")
        assert table["d"]["settings"]["spectator_chat"] is False
    version = await version_now(r.zoe)
    error = await refusal(r.zoe, "can I still talk?")
    assert error["d"]["code"] == "chat_off" and error["v"] == version
    await nothing_else_until_marker(r.ann, r.everyone, version)  # Zoe's line went nowhere
    await r.ann.send(json.dumps({"t": "settings", "d": {"settings": {"spectator_chat": True}}}))
    await recv_type(r.zoe, "table")
    await say(r.zoe, "thanks")
    await until_chat(r.other, "thanks")
    await r.close()


# -- mutes ------------------------------------------------------------------------------------


async def test_mute_hides_a_seats_chat_from_the_muter_only(server: ServerProcess) -> None:
    r = await room(server)
    await r.bob.send(json.dumps({"t": "mute", "d": {"seat": 0, "muted": True}}))
    muted = await recv_type(r.bob, "muted")
    assert muted["d"] == {"seats": [0]}
    await say(r.ann, "you cannot hear me")
    for ws in (r.ann, r.zoe, r.other):  # the others still read Ann
        await until_chat(ws, "you cannot hear me")
    await nothing_else_until_marker(r.bob, [r.bob])  # Bob's next chat is his own marker
    # the mute is the seat's: Bob's second tab does not hear Ann either, not even in history
    second, frames = await enter(server, r.grant["table_id"], {"token": r.bob_grant["token"]})
    assert [m["seat"] for m in frames[-1]["d"]["messages"]] == [1]  # Bob's marker only
    await say(r.ann, "still muted?")
    await until_chat(r.zoe, "still muted?")
    await nothing_else_until_marker(r.bob, [r.bob, second])
    await r.bob.send(json.dumps({"t": "mute", "d": {"seat": 0, "muted": False}}))
    assert (await recv_type(r.bob, "muted"))["d"] == {"seats": []}
    await say(r.ann, "welcome back")
    for ws in (r.bob, second, r.zoe):
        await until_chat(ws, "welcome back")
    await second.close()
    await r.close()


async def test_a_spectators_mute_is_his_own(server: ServerProcess) -> None:
    r = await room(server)
    await r.zoe.send(json.dumps({"t": "mute", "d": {"seat": 1, "muted": True}}))
    assert (await recv_type(r.zoe, "muted"))["d"] == {"seats": [1]}
    await say(r.bob, "bob here")
    await until_chat(r.other, "bob here")
    await nothing_else_until_marker(r.ann, [r.zoe])
    await r.close()


@pytest.mark.parametrize(("seat", "code"), [(2, "bad_seat"), (7, "bad_seat"), (8, "bad_frame"),
                                            (-1, "bad_frame")])
async def test_muting_a_seat_the_table_lacks_is_refused(server: ServerProcess, seat: int,
                                                        code: str) -> None:
    r = await room(server)
    await r.ann.send(json.dumps({"t": "mute", "d": {"seat": seat, "muted": True}}))
    error = await recv_type(r.ann, "error")
    assert error["d"]["code"] == code, error
    await r.ann.send(json.dumps({"t": "mute", "d": {"seat": 1, "muted": True}}))
    assert (await recv_type(r.ann, "muted"))["d"] == {"seats": [1]}  # nothing else muted
    await r.close()


# -- history ----------------------------------------------------------------------------------


async def test_chat_history_after_welcome_holds_what_you_may_read(server: ServerProcess) -> None:
    r = await room(server)
    for ws, text in ((r.ann, "one"), (r.zoe, "psst"), (r.bob, "two")):
        await say(ws, text)
        await until_chat(ws, text)  # in this order
    for ws in (r.ann, r.bob):
        await ws.close()
    ann, frames = await enter(server, r.grant["table_id"], {"token": r.grant["token"]})
    kinds = [frame["t"] for frame in frames]
    assert kinds.index("welcome") < kinds.index("view") < kinds.index("chat_history")
    history = frames[-1]["d"]["messages"]
    assert [m["text"] for m in history] == ["one", "two"]  # no spectators' chat for players
    assert [m["seat"] for m in history] == [0, 1]
    for message in history:
        ChatMessage.model_validate(message)
    watcher, frames = await enter(server, r.grant["table_id"], {"spectate": True})
    history = frames[-1]["d"]["messages"]
    assert [m["text"] for m in history] == ["one", "psst", "two"]
    assert [m["channel"] for m in history] == ["players", "spectators", "players"]
    ids = [m["id"] for m in history]
    assert ids == sorted(ids)
    for ws in (ann, watcher, r.zoe, r.other):
        await ws.close()


async def test_spectators_cannot_push_the_players_chat_out_of_history(
        server: ServerProcess) -> None:
    """chat_history is the last 50 messages *this connection may see*: fifty lines in the
    spectators' room (which players never see) must not wipe the players' history."""
    r = await room(server)
    await say(r.ann, "remember me")
    await until_chat(r.ann, "remember me")
    crowd = [r.zoe, r.other] + [await watch(server, r.grant) for _ in range(8)]
    for number, ws in enumerate(crowd):  # 10 spectators x 5 lines, within the rate limit
        for line in range(5):
            await say(ws, f"spectator {number} line {line}")
        await until_chat(ws, f"spectator {number} line 4")
    second, frames = await enter(server, r.grant["table_id"], {"token": r.bob_grant["token"]})
    history = frames[-1]["d"]["messages"]
    assert [m["text"] for m in history] == ["remember me"]
    watcher, frames = await enter(server, r.grant["table_id"], {"spectate": True})
    history = frames[-1]["d"]["messages"]
    assert len(history) == 50 and history[-1]["text"] == "spectator 9 line 4"
    for ws in [second, watcher, *crowd[2:]]:
        await ws.close()
    await r.close()
