"""Who is at the table, against a real server: dropping and coming back (the grace period,
the computer standing in), wrong tokens, spectators, leaving, and the host's start.

The server holds a dropped seat for one second (``CARDTABLE_SEAT_GRACE=1``); the tables
here have no turn time unless a test says so, so nobody's clock runs out meanwhile.
"""

from __future__ import annotations

import asyncio

import httpx

from server_harness import ServerProcess
from table_life_helpers import (
    GRACE,
    Frame,
    Player,
    drive,
    event_types,
    join_table,
    life,  # noqa: F401  (the module's server fixture)
    new_table,
    now_ms,
    pick,
    refused,
    sit,
    table_info,
    watch,
)

NO_CLOCK = {"turn_time": 0}
TIMER_SLACK_MS = 20  # an event loop may run a timer a hair early
GIN = {"first_upcard": False}


async def gin_pair(server: ServerProcess) -> tuple[Frame, Frame, Player, Player]:
    grant = new_table(server, "gin", settings=NO_CLOCK, options=GIN)
    other = join_table(server, grant["code"])
    ann = await sit(server, grant, "Ann")
    bob = await sit(server, other, "Bob")
    await ann.seats_become(lambda s: s[1]["connected"], "Bob connected")
    return grant, other, ann, bob


def moved(frames: list[Frame], seat: int) -> bool:
    """Whether a view among ``frames`` shows a move of ``seat``."""
    return any(f["t"] == "view" and event_types(f, seat) for f in frames)


# -- dropping and coming back ----------------------------------------------------------------


async def test_a_dropped_seat_is_held_then_played_then_taken_back(
        life: ServerProcess) -> None:  # noqa: F811
    _, other, ann, bob = await gin_pair(life)
    await bob.close()
    held = await ann.until_seats(lambda s: not s[1]["connected"], "Bob's seat dropping")
    seat = held["d"]["seats"][1]
    assert seat["name"] == "Bob" and seat["taken"] and seat["standin"] is None
    deadline = seat["reconnect_deadline"]
    assert deadline is not None
    assert held["d"]["now"] < deadline <= held["d"]["now"] + GRACE * 1000 + 50
    assert ann.seats[0]["connected"] and ann.seats[0]["reconnect_deadline"] is None
    # The grace runs out: a computer plays Bob's seat.
    over = await ann.until_seats(lambda s: s[1]["standin"] == "disconnected", "the stand-in")
    assert over["d"]["now"] >= deadline - TIMER_SLACK_MS
    seat = over["d"]["seats"][1]
    assert seat["reconnect_deadline"] is None and not seat["connected"]
    assert seat["kind"] == "human" and seat["name"] == "Bob"  # still his, played for him
    await drive(ann, lambda frames: moved(frames, 1), "a move for Bob")
    # Bob comes back (a new socket, his token): the seat is his again.
    bob = await sit(life, other, "Bob again")
    assert bob.seats[1]["standin"] is None and bob.seats[1]["connected"]
    await ann.until_seats(lambda s: s[1]["standin"] is None and s[1]["connected"],
                          "Bob back")
    # His turn waits for him: no computer moves for him, his own move is accepted.
    start = len(ann.frames)
    await drive(ann, lambda _: ann.view["to_act"] == 1, "Bob's turn")
    while bob.last_view is not None and bob.version < ann.version:
        await bob.read()
    assert bob.view["to_act"] == 1
    assert not moved(await bob.quiet(0.5), 1)
    answer = await bob.act(pick(bob.view, "draw_stock", "discard"), "bob-back")
    assert answer["t"] == "view" and event_types(answer, 1), answer
    assert all(f["d"]["seats"][1]["standin"] is None for f in ann.frames[start:]
               if f["t"] == "seats")
    await ann.close()
    await bob.close()


async def test_a_wrong_token_during_the_grace_changes_nothing(
        life: ServerProcess) -> None:  # noqa: F811
    grant, other, ann, bob = await gin_pair(life)
    await bob.close()
    held = await ann.until_seats(lambda s: not s[1]["connected"], "Bob's seat dropping")
    deadline = held["d"]["seats"][1]["reconnect_deadline"]
    for hello in ({"token": "x" * 32}, {"token": grant["token"][:-1] + "?"},
                  {"token": "x" * 32, "spectate": True}, {}):
        assert await refused(life, grant["table_id"], hello) == ("bad_token", 4003), hello
    seats = table_info(life, grant["code"])["seats"]
    assert seats[1]["name"] == "Bob" and seats[1]["taken"] and not seats[1]["connected"]
    assert seats[1]["standin"] is None and seats[1]["reconnect_deadline"] == deadline
    answer = httpx.post(f"{life.base_url}/api/tables/{grant['code']}/join",
                        json={"name": "Mallory"})
    assert answer.status_code == 409  # the seat was not freed
    # Ann was told nothing new until the grace ran out, on time and not before.
    over = await ann.until_seats(lambda s: s[1]["standin"] is not None, "the stand-in")
    assert over["d"]["now"] >= deadline - TIMER_SLACK_MS
    assert over["d"]["seats"][1]["standin"] == "disconnected"
    for frame in ann.frames[ann.frames.index(held) + 1:ann.frames.index(over)]:
        if frame["t"] == "seats":
            assert frame["d"]["seats"][1] == held["d"]["seats"][1], frame
    # Bob's own token still works.
    bob = await sit(life, other, "Bob again")
    assert bob.seats[1]["standin"] is None and bob.seats[1]["connected"]
    await ann.close()
    await bob.close()


async def test_spectators_are_counted_and_leave_the_seats_alone(
        life: ServerProcess) -> None:  # noqa: F811
    grant = new_table(life, "gin", settings=NO_CLOCK, options=GIN)  # seat 1 is free
    ann = await sit(life, grant, "Ann")
    seats_before = [dict(s) for s in ann.seats]
    assert ann.spectators == 0 and not seats_before[1]["taken"]
    zoe = await watch(life, grant["table_id"], "Zoe")
    await ann.watching(1, "the spectator counted")
    assert ann.seats == seats_before  # a watcher takes no seat, and sends no seats frame
    assert all(f["d"]["spectators"] == 0 for f in ann.frames if f["t"] == "seats")
    assert zoe.spectators == 1 and zoe.seats == seats_before
    assert table_info(life, grant["code"])["spectators"] == 1
    assert not zoe.dealt and not ann.dealt  # nothing is dealt while the table waits
    # The free seat is still there for the invitee; the spectator sees him arrive, and the
    # deal: a spectator's view, no hand shown and nothing to play.
    bob = await sit(life, join_table(life, grant["code"], "Bob"), "Bob")
    assert bob.spectators == 1
    dealt = (await zoe.dealt_view())["d"]["view"]
    assert dealt["seat"] is None and dealt["legal"] == []
    assert all("cards" not in hand for hand in dealt["hands"])
    await zoe.until_seats(lambda s: s[1]["name"] == "Bob" and s[1]["connected"], "Bob")
    await zoe.close()
    await ann.watching(0, "the spectator gone")
    assert ann.seats[0]["connected"] and ann.seats[1]["connected"]
    assert all(s["reconnect_deadline"] is None for s in ann.seats)
    await ann.close()
    await bob.close()


# -- on purpose ------------------------------------------------------------------------------


async def test_leaving_hands_the_seat_to_a_computer(life: ServerProcess) -> None:  # noqa: F811
    grant, other, ann, bob = await gin_pair(life)
    await bob.send("leave")
    left = await bob.until(lambda f: f["t"] in ("left", "error"), "left")
    assert left["t"] == "left", left
    assert await bob.close_code() == 1000
    changed = await ann.until_seats(lambda s: s[1]["kind"] == "bot", "the computer's seat")
    seat = changed["d"]["seats"][1]
    assert seat["name"] == "Computer" and seat["taken"] and seat["connected"]
    assert seat["standin"] in (None, "left") and seat["reconnect_deadline"] is None
    # The computer plays the seat; the old token is no good any more.
    await drive(ann, lambda frames: moved(frames, 1), "a computer move in seat 1")
    assert await refused(life, grant["table_id"], {"token": other["token"]}) == \
        ("bad_token", 4003)
    info = table_info(life, grant["code"])
    assert info["status"] == "playing" and info["seats"][1]["kind"] == "bot"
    await ann.close()


async def test_start_by_the_host_fills_free_seats(life: ServerProcess) -> None:  # noqa: F811
    grant = new_table(life, "spades", players=4, seats=["human", "human", "human"],
                      settings=NO_CLOCK)
    bob_grant = join_table(life, grant["code"], "Bob")
    assert bob_grant["seat"] == 1
    ann = await sit(life, grant, "Ann")
    bob = await sit(life, bob_grant, "Bob")
    assert table_info(life, grant["code"])["status"] == "waiting"
    # Nothing is dealt, and nobody plays, while the table waits for people.
    assert not ann.dealt and not bob.dealt and ann.version == 0
    answer = await ann.act({"type": "bid", "number": 3}, "too-soon")
    assert answer["t"] == "error" and answer["d"]["code"] == "not_playing", answer
    await bob.send("start")
    assert (await bob.error())["d"]["code"] == "not_host"
    assert table_info(life, grant["code"])["status"] == "waiting"
    # The host starts: computers take the free seats, the match is on.
    await ann.send("start")
    table = await ann.until(lambda f: f["t"] in ("table", "error"), "the table frame")
    assert table["t"] == "table", table
    assert table["d"]["status"] == "playing"
    seats = table["d"]["seats"]
    assert [(s["kind"], s["name"]) for s in seats] == \
        [("human", "Ann"), ("human", "Bob"), ("bot", "Computer"), ("bot", "Computer")]
    await bob.until(lambda f: f["t"] == "table" and f["d"]["status"] == "playing",
                    "the table frame")
    assert table_info(life, grant["code"])["status"] == "playing"
    for player in (ann, bob):  # dealt by the start, once: the log's first event
        assert (await player.dealt_view())["v"] == 1
    # The match is played: the people bid and play, and so do the computers.
    def computers_moved(frames: list[Frame]) -> bool:
        return moved(frames, 2) and moved(frames, 3)

    await asyncio.gather(*(drive(p, computers_moved, "the computers' moves",
                                 moves=("bid", "play")) for p in (ann, bob)))
    await ann.send("start")
    assert (await ann.error())["d"]["code"] == "not_waiting"
    await ann.close()
    await bob.close()


async def test_the_host_forbids_spectators(life: ServerProcess) -> None:  # noqa: F811
    grant, _, ann, bob = await gin_pair(life)
    zoe = await watch(life, grant["table_id"], "Zoe")
    await ann.watching(1, "Zoe counted")
    await bob.send("settings", {"settings": {"spectators": False}})
    assert (await bob.error())["d"]["code"] == "not_host"
    await ann.send("settings", {"settings": {"spectators": False}})
    error = await zoe.error()
    assert error["d"]["code"] == "no_spectators"
    assert await zoe.close_code() == 4005
    table = await ann.until(lambda f: f["t"] == "table", "the new settings")
    assert table["d"]["settings"]["spectators"] is False and table["d"]["spectators"] == 0
    assert table_info(life, grant["code"])["spectators"] == 0
    assert await refused(life, grant["table_id"], {"spectate": True, "name": "Yan"}) == \
        ("no_spectators", 4005)
    # The players are still there, and watching is possible again once allowed.
    await ann.send("settings", {"settings": {"spectators": True}})
    await ann.until(lambda f: f["t"] == "table" and f["d"]["settings"]["spectators"],
                    "spectators allowed")
    again = await watch(life, grant["table_id"], "Zoe")
    assert again.spectators == 1
    await again.close()
    await ann.close()
    await bob.close()


async def test_spectators_count_in_seats_frames_and_their_time_passes(
        life: ServerProcess) -> None:  # noqa: F811
    """Two spectators and a player reconnecting: every seats frame counts the watchers, and
    the reconnect_deadline of a dropped seat is the server's ``now`` plus the grace."""
    grant, other, ann, bob = await gin_pair(life)
    watchers = [await watch(life, grant["table_id"], name) for name in ("Zoe", "Yan")]
    await ann.watching(2, "two watching")
    before = now_ms()
    await bob.close()
    held = await watchers[0].until_seats(lambda s: not s[1]["connected"], "Bob dropping")
    assert held["d"]["spectators"] == 2
    deadline = held["d"]["seats"][1]["reconnect_deadline"]
    assert before + GRACE * 1000 - 50 <= deadline <= held["d"]["now"] + GRACE * 1000 + 50
    bob = await sit(life, other, "Bob again")
    back = await watchers[1].until_seats(lambda s: s[1]["connected"], "Bob back")
    assert back["d"]["spectators"] == 2 and back["d"]["seats"][1]["reconnect_deadline"] is None
    assert bob.spectators == 2
    for player in (*watchers, ann, bob):
        await player.close()
