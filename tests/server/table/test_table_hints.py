"""Hints at the table (issue 16): a seated player asks on his turn and is told, alone, the
hard computer's move for his view and why; the host may turn hints off. A hint is no
move: the version, the log and everyone else's sockets stay as they were."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cardtable.bots import levels
from cardtable.engine import Action
from cardtable.server import protocol as p
from cardtable.server.connection import Connection
from cardtable.server.table.commands import FromClient, describe, needs_log, ref_of
from cardtable.server.table.settings import TableSettings
from cardtable.store import Store, sqlite_url
from server_harness import ServerProcess
from table_life_helpers import Frame, Player, join_table, new_table, quiet_table, sit, watch

HINT_TEXT = 100  # characters a reason may take at most (they aim at about 80)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("hints") / "data",
                            env={"CARDTABLE_JOIN_LIMIT": "100000"}).start()
    try:
        yield process
    finally:
        process.stop()


async def friends(server: ServerProcess, **body: object) -> tuple[Frame, Player, Player]:
    """Ann (host) and Bob at a fresh Gin table without a turn clock."""
    grant = quiet_table(server, **body)
    bob_grant = join_table(server, grant["code"])
    ann = await sit(server, grant, "Ann")
    bob = await sit(server, bob_grant, "Bob")
    return grant, ann, bob


async def answers(player: Player, ref: str | None = None) -> list[Frame]:
    """Ask for a hint, then ping: every frame the ask was answered with (the table answers
    in order, so the pong comes after them)."""
    await nothing_new(player)
    await player.send("hint", {} if ref is None else {"id": ref})
    await player.send("ping")
    got = []
    while (frame := await player.read())["t"] != "pong":
        got.append(frame)
    return got


async def only_answer(player: Player, ref: str | None = None) -> Frame:
    got = await answers(player, ref)
    assert len(got) == 1, f"one answer to a hint, got {got}"
    return got[0]


async def nothing_new(player: Player) -> list[Frame]:
    """What ``player`` was sent since last read (a ping flushes it)."""
    await player.send("ping")
    got = []
    while (frame := await player.read())["t"] != "pong":
        got.append(frame)
    return got


async def my_turn(player: Player) -> Frame:
    """The view in which it is ``player``'s move (the last one seen, or the next such)."""
    def mine(data: Frame) -> bool:
        return bool(data["view"]["to_act"] == player.seat and data["view"]["legal"])
    if player.last_view is not None and mine(player.last_view["d"]):
        return player.last_view
    return await player.until_view(mine, "my turn")


def mover(ann: Player, bob: Player) -> tuple[Player, Player]:
    """(the player to act, the other)."""
    return (ann, bob) if ann.view["to_act"] == ann.seat else (bob, ann)


async def log_length(server: ServerProcess, table_id: str) -> int:
    store = await Store.open(sqlite_url(server.data_dir))  # the server runs on SQLite
    try:
        return len(await store.load_events(table_id))
    finally:
        await store.close()


async def test_a_hint_goes_to_the_asker_alone_and_changes_nothing(server: ServerProcess) -> None:
    grant, ann, bob = await friends(server)
    spectator = await watch(server, grant["table_id"])
    to_act, other = mover(ann, bob)
    version, logged = to_act.version, await log_length(server, grant["table_id"])
    answer = await only_answer(to_act, "h-1")
    assert answer["t"] == "hint" and answer["v"] == version
    hint = p.Hint.model_validate(answer["d"])
    assert hint.id == "h-1"
    assert hint.action in to_act.view["legal"]
    assert 0 < len(hint.text) <= HINT_TEXT
    # The hard computer's move for exactly the view this seat was sent (nothing hidden).
    assert Action.from_json(hint.action) == levels.hint("gin", to_act.view)[0]
    assert not [f for f in await nothing_new(other) if f["t"] == "hint"]
    assert not [f for f in await nothing_new(spectator) if f["t"] == "hint"]
    assert await log_length(server, grant["table_id"]) == logged
    assert (await to_act.sync())["v"] == version
    # Asked again, without an id: the same move (a hint is deterministic for a view).
    again = await only_answer(to_act)
    assert again["d"]["id"] is None and again["d"]["action"] == hint.action
    # The hint is a move like any other: the table takes it.
    moved = await to_act.act(hint.action, "as-hinted")
    assert moved["t"] == "view" and moved["v"] == version + 1
    for player in (ann, bob, spectator):
        await player.close()


async def test_no_hint_off_turn_for_spectators_or_before_the_match(server: ServerProcess) -> None:
    grant, ann, bob = await friends(server)
    spectator = await watch(server, grant["table_id"])
    _, other = mover(ann, bob)
    refused = await only_answer(other, "h-2")
    assert refused["t"] == "error"
    assert refused["d"] == {"code": "not_your_turn", "message": "it is not your turn",
                            "id": "h-2"}
    refused = await only_answer(spectator, "h-3")
    assert (refused["t"], refused["d"]["code"], refused["d"]["id"]) == ("error", "spectator",
                                                                        "h-3")
    for player in (ann, bob, spectator):
        await player.close()
    waiting = quiet_table(server)  # nobody has taken the second seat yet
    alone = await sit(server, waiting, "Ann alone")
    refused = await only_answer(alone, "h-4")
    assert (refused["t"], refused["d"]["code"]) == ("error", "not_playing")
    await alone.close()


async def test_the_host_turns_hints_off_and_on(server: ServerProcess) -> None:
    _, ann, bob = await friends(server)
    assert ann.welcome is not None
    assert ann.welcome["d"]["table"]["settings"]["hints"] is True
    await bob.send("settings", {"settings": {"hints": False}})
    refused = await bob.error()
    assert refused["d"]["code"] == "not_host"
    await ann.send("settings", {"settings": {"hints": "no"}})
    assert (await ann.error())["d"]["code"] == "bad_settings"
    await ann.send("settings", {"settings": {"hints": False}})
    for player in (ann, bob):
        table = await player.until(lambda f: f["t"] == "table", "the table frame")
        assert table["d"]["settings"]["hints"] is False
    to_act, _ = mover(ann, bob)
    refused = await only_answer(to_act, "h-5")
    assert refused["t"] == "error"
    assert refused["d"] == {"code": "hints_off", "message": "hints are off at this table",
                            "id": "h-5"}
    await ann.send("settings", {"settings": {"hints": True}})
    await to_act.until(lambda f: f["t"] == "table" and f["d"]["settings"]["hints"], "hints on")
    assert (await only_answer(to_act, "h-6"))["t"] == "hint"
    for player in (ann, bob):
        await player.close()


async def test_a_table_made_without_hints(server: ServerProcess) -> None:
    grant = new_table(server, opponent="computer", settings={"hints": False, "turn_time": 0})
    ann = await sit(server, grant)
    assert ann.welcome is not None and ann.welcome["d"]["table"]["settings"]["hints"] is False
    await my_turn(ann)
    assert (await only_answer(ann))["d"]["code"] == "hints_off"
    await ann.close()


async def test_a_hint_at_a_spades_table_with_hard_computers(server: ServerProcess) -> None:
    grant = new_table(server, "spades", opponent="computer", players=4,
                      settings={"turn_time": 0, "levels": ["normal", "hard", "expert", "hard"]})
    ann = await sit(server, grant)
    assert [s["level"] for s in ann.seats] == ["normal", "hard", "expert", "hard"]
    for turn in range(3):  # a bid, then cards: each hint one of my legal moves
        await my_turn(ann)
        answer = await only_answer(ann, f"s-{turn}")
        assert answer["t"] == "hint", answer
        assert answer["d"]["action"] in ann.view["legal"] and answer["d"]["text"]
        assert Action.from_json(answer["d"]["action"]) == levels.hint("spades", ann.view)[0]
        moved = await ann.act(answer["d"]["action"], f"spades-{turn}")
        assert moved["t"] == "view", moved
    await ann.close()


@pytest.mark.parametrize(("frame", "code"), [
    ('{"t": "hint", "d": {"id": 7}}', "bad_frame"),
    ('{"t": "hint", "d": {"id": "h", "action": {}}}', "bad_frame"),
    ('{"t": "hint", "d": []}', "bad_frame"),
    ('{"t": "hints"}', "unknown_type"),
])
async def test_malformed_hint_frames_get_their_errors(server: ServerProcess, frame: str,
                                                      code: str) -> None:
    _, ann, bob = await friends(server)
    await ann.ws.send(frame)
    refused = await ann.error()
    assert refused["d"]["code"] == code
    pong = await nothing_new(ann)  # the socket lives on, and the refusal came once
    assert not [f for f in pong if f["t"] in ("error", "hint")]
    for player in (ann, bob):
        await player.close()


def test_parsing_a_hint_frame() -> None:
    ask = p.parse_client_frame('{"t": "hint", "v": 4, "d": {"id": "h-9"}}')
    assert isinstance(ask, p.AskHint) and ask.d.id == "h-9" and ask.v == 4
    bare = p.parse_client_frame('{"t": "hint"}')
    assert isinstance(bare, p.AskHint) and bare.d.id is None
    with pytest.raises(p.ProtocolError) as refused:
        p.parse_client_frame('{"t": "hint", "d": {"id": "' + "x" * 65 + '"}}')
    assert refused.value.code == "bad_frame"


def test_a_hint_is_read_from_memory_and_answered_with_its_id() -> None:
    ask = FromClient(Connection(None),  # type: ignore[arg-type]  # never sends here
                     p.parse_client_frame('{"t": "hint", "d": {"id": "h-1"}}'))
    assert not needs_log(ask)  # no move: nothing the log says can change
    assert ref_of(ask) == "h-1" and describe(ask) == "frame 'hint'"


def test_hints_are_a_setting_on_by_default() -> None:
    assert TableSettings.create(players=2, invited=False).hints is True
    # A table stored before hints existed has them on.
    old = TableSettings.from_record({"turn_time": 15, "levels": ["normal", "easy"]}, 2, False)
    assert old.hints is True and old.turn_time == 15
    off = old.merged({"hints": False}, players=2)
    assert off.hints is False and off.to_json()["hints"] is False
    with pytest.raises(ValueError, match="hints"):
        old.merged({"hints": 1}, players=2)


def test_every_computer_level_is_a_setting() -> None:
    settings = TableSettings.create(players=4, invited=False)
    for level in levels.LEVELS:
        assert settings.merged({"levels": [level] * 4}, players=4).levels == (level,) * 4
    with pytest.raises(ValueError) as refused:
        settings.merged({"levels": ["normal", "brutal", "hard", "easy"]}, players=4)
    assert str(refused.value) == ("levels: unknown computer level 'brutal'; levels: "
                                  + ", ".join(levels.LEVELS))
