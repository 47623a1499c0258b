"""Turn clocks against a real server: the ``clock`` of view frames, automatic moves when
time runs out, stand-ins after three timeouts, and clocks across restarts and reconnects.

The server runs with ``CARDTABLE_TIME_SCALE=0.05``: a 15 s turn lasts 0.75 s, a 30 s turn
1.5 s and a 60 s turn 3 s. Nothing here measures speed: the tests wait (generously) for
the frames the server must send, and compare the deadlines it announces.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest

from cardtable.engine import get_game
from cardtable.server.security import hash_token, new_code, new_table_id, new_token
from cardtable.server.table.settings import TableSettings
from cardtable.store import SeatRecord, Store, TableRecord, sqlite_url
from server_harness import ServerProcess
from spades_deals import rigged as spades_rigged
from table_life_helpers import (
    ENV,
    Frame,
    Player,
    drive,
    event_types,
    join_table,
    life,  # noqa: F401  (the module's server fixture)
    new_table,
    now_ms,
    pick,
    sit,
    table_info,
    turn_ms,
    watch,
)
from ws_helpers import play_simply

RANKS = "23456789TJQKA"
GIN = {"first_upcard": False}  # the first decision of a deal is a draw from the stock
SLACK_MS = 250  # what a clock may lose between the server starting it and a test reading it


async def gin_pair(server: ServerProcess, turn_time: int) -> tuple[Frame, Frame, Player,
                                                                   Player]:
    """A Gin table of two people (Ann and Bob, both seated): grants and players."""
    grant = new_table(server, "gin", settings={"turn_time": turn_time}, options=GIN)
    other = join_table(server, grant["code"])
    ann = await sit(server, grant, "Ann")
    bob = await sit(server, other, "Bob")
    await ann.seats_become(lambda s: s[1]["connected"], "Bob connected")
    return grant, other, ann, bob


def check_clock(clock: Frame | None, seat: int, turn_time: int) -> Frame:
    assert clock is not None, "no clock runs"
    assert clock["seat"] == seat and clock["turn_time"] == turn_time, clock
    assert clock["now"] < clock["deadline"] <= clock["now"] + turn_ms(turn_time), clock
    return clock


def seat_moves(frames: list[Frame], seat: int) -> list[str]:
    """The types of the events of ``seat``'s moves in the view frames among ``frames``."""
    return [kind for f in frames if f["t"] == "view" for kind in event_types(f, seat)]


def dropped(seat: int) -> Callable[[list[Frame]], bool]:
    return lambda seats: not seats[seat]["connected"]


async def close_all(*players: Player) -> None:
    for player in players:
        await player.close()


# -- the clock in view frames --------------------------------------------------------------


async def test_view_frames_carry_the_running_clock(life: ServerProcess) -> None:  # noqa: F811
    _, _, ann, bob = await gin_pair(life, 60)
    mover = ann.view["to_act"]
    first = check_clock(ann.clock, mover, 60)
    assert check_clock(bob.clock, mover, 60)["deadline"] == first["deadline"]  # one clock
    acting, waiting = (ann, bob) if mover == 0 else (bob, ann)
    drawn = await acting.act(pick(acting.view, "draw_stock"), "draw")
    # The discard is still his to make, under the same deadline: one turn, one clock.
    assert check_clock(drawn["d"]["clock"], mover, 60)["deadline"] == first["deadline"]
    discarded = await acting.act(pick(acting.view, "discard"), "discard")
    after = check_clock(discarded["d"]["clock"], 1 - mover, 60)  # the other's turn now
    seen = await waiting.until_view(lambda d: event_types({"d": d}) == ["discard"],
                                    "the discard")
    assert check_clock(seen["d"]["clock"], 1 - mover, 60)["deadline"] == after["deadline"]
    await close_all(ann, bob)


async def test_no_clock_with_timers_off(life: ServerProcess) -> None:  # noqa: F811
    _, _, ann, bob = await gin_pair(life, 0)
    assert ann.clock is None and bob.clock is None
    acting = ann if ann.view["to_act"] == 0 else bob
    answer = await acting.act(pick(acting.view, "draw_stock"), "draw")
    assert answer["t"] == "view" and answer["d"]["clock"] is None
    await close_all(ann, bob)
    # A table against the computer has no turn time unless its host asks for one.
    alone = await sit(life, new_table(life, "gin", opponent="computer"), "Ann")
    assert alone.welcome is not None
    assert alone.welcome["d"]["table"]["settings"]["turn_time"] == 0
    assert alone.clock is None
    await alone.close()


async def test_no_clock_while_a_computer_is_to_act(life: ServerProcess) -> None:  # noqa: F811
    grant = new_table(life, "spades", players=4, seats=["bot", "bot", "bot"],
                      settings={"turn_time": 15})
    ann = await sit(life, grant, "Ann")
    views = [f for f in ann.frames if f["t"] == "view"]
    while sum(v["d"]["view"]["to_act"] == 0 for v in views) < 2 \
            or sum(v["d"]["view"]["to_act"] not in (0, None) for v in views) < 3:
        views.append(await ann.until(lambda f: f["t"] == "view", "a view"))
    for view in views:
        to_act, clock = view["d"]["view"]["to_act"], view["d"]["clock"]
        if to_act == 0:
            check_clock(clock, 0, 15)
        else:
            assert clock is None, view  # a computer (or nobody) is to act
    await ann.close()


# -- automatic moves -------------------------------------------------------------------------


async def test_gin_timeout_draws_from_the_stock_then_discards(
        life: ServerProcess) -> None:  # noqa: F811
    _, _, ann, bob = await gin_pair(life, 30)
    mover = ann.view["to_act"]
    before = ann.view
    hand = (ann if mover == 0 else bob).view["hands"][mover]["cards"]
    for player in (ann, bob):  # both see the two moves, one version each
        draw = await player.until_view(lambda d: bool(d["events"]), "the automatic draw")
        assert [(e["type"], e["seat"]) for e in draw["d"]["events"]] == \
            [("draw_stock", mover)], draw
        discard = await player.until_view(lambda d: bool(d["events"]), "the automatic discard")
        assert [(e["type"], e["seat"]) for e in discard["d"]["events"]] == \
            [("discard", mover)], discard
        assert discard["v"] == draw["v"] + 1
        after = discard["d"]["view"]
        card = discard["d"]["events"][0]["card"]
        assert after["stock"] == before["stock"] - 1  # the stock, not the discard pile
        assert after["discard"] == [*before["discard"], card]  # a new top, the old beneath
        assert after["to_act"] == 1 - mover
        check_clock(discard["d"]["clock"], 1 - mover, 30)
        if player.seat == mover:
            drawn = draw["d"]["events"][0]["card"]
            assert card in [*hand, drawn]
            assert sorted(after["hands"][mover]["cards"]) == \
                sorted(c for c in [*hand, drawn] if c != card)
        seats = await player.seats_become(lambda s: s[mover]["timeouts"] == 1,
                                          "the timeout counted")
        assert seats[1 - mover]["timeouts"] == 0
        assert seats[mover]["standin"] is None  # one timeout is no reason to take over
    await close_all(ann, bob)


async def test_spades_timeouts_then_a_stand_in_then_resume(
        life: ServerProcess) -> None:  # noqa: F811
    grant = new_table(life, "spades", players=4, seats=["bot", "bot", "bot"],
                      settings={"turn_time": 15})
    ann = await sit(life, grant, "Ann")
    start = len(ann.frames)
    bid = await ann.until_view(lambda d: bool(event_types({"d": d}, 0)), "her bid")
    assert event_types(bid, 0) == ["bid"]  # the bid was made for her
    await ann.seats_become(lambda s: s[0]["timeouts"] == 1, "the first timeout")
    seats = await ann.seats_become(lambda s: s[0]["standin"] == "timeouts",
                                   "the stand-in after three timeouts")
    assert seats[0]["timeouts"] == 3
    moves = seat_moves(ann.frames[start:], 0)
    assert moves[0] == "bid" and moves.count("play") >= 2, moves
    # The computer plays her seat now: at once, without a clock and without timeouts.
    standin_from = len(ann.frames)
    while seat_moves(ann.frames[standin_from:], 0).count("play") < 3:
        frame = await ann.until(lambda f: f["t"] in ("view", "seats"), "the stand-in's play")
        if frame["t"] == "view" and frame["d"]["view"]["to_act"] == 0:
            assert frame["d"]["clock"] is None, frame
    assert all(s[0]["timeouts"] == 3 and s[0]["standin"] == "timeouts"
               for s in [f["d"]["seats"] for f in ann.frames[standin_from:]
                         if f["t"] == "seats"] + [ann.seats])
    # She takes her seat back: no stand-in, and a clock on her next turn.
    await ann.send("resume")
    seats = await ann.seats_become(lambda s: s[0]["standin"] is None, "the seat taken back")
    assert seats[0]["timeouts"] == 3
    mine = await ann.until_view(lambda d: d["view"]["to_act"] == 0 and d["clock"] is not None,
                                "her clock again")
    check_clock(mine["d"]["clock"], 0, 15)
    await ann.close()


@pytest.fixture(scope="module")
def slow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of its own (restarted by a test) whose computers wait 2 s before moving."""
    process = ServerProcess(tmp_path_factory.mktemp("slow") / "data",
                            env={**ENV, "CARDTABLE_BOT_DELAY": "2"}).start()
    try:
        yield process
    finally:
        process.stop()


async def test_an_own_act_takes_the_seat_back(slow: ServerProcess) -> None:
    """The computer standing in waits (CARDTABLE_BOT_DELAY) before it moves: she acts
    first, and the seat is hers again."""
    _, _, ann, bob = await gin_pair(slow, 15)
    await drive(bob, lambda frames: any(
        f["t"] == "seats" and f["d"]["seats"][0]["standin"] == "timeouts" for f in frames),
        "Ann's stand-in", timeout=40)
    await ann.seats_become(lambda s: s[0]["standin"] == "timeouts", "her stand-in")
    # Bob plays his turn; then it is Ann's, and the computer has not moved yet.
    await drive(bob, lambda frames: any(
        f["t"] == "view" and f["d"]["view"]["to_act"] == 0 for f in frames), "Ann's turn")
    turn = await ann.until_view(lambda d: d["view"]["to_act"] == 0
                                and d["view"]["phase"] == "draw", "her turn")
    assert turn["d"]["clock"] is None  # the computer plays it (after its delay)
    answer = await ann.act(pick(ann.view, "draw_stock"), "mine-again")
    assert answer["t"] == "view", answer
    assert event_types(answer, 0) == ["draw_stock"]
    check_clock(answer["d"]["clock"], 0, 15)  # her clock for the discard
    seats = await ann.seats_become(lambda s: s[0]["standin"] is None, "the seat hers")
    assert seats[0]["timeouts"] == 3
    await close_all(ann, bob)


async def test_indian_third_missed_turn_is_a_middle_drop(
        life: ServerProcess) -> None:  # noqa: F811
    grant = new_table(life, "indian", players=2, settings={"turn_time": 15})
    other = join_table(life, grant["code"])
    ann = await sit(life, grant, "Ann")
    bob = await sit(life, other, "Bob")
    middle = bob.view["drop"]["middle"]
    start = len(bob.frames)
    await drive(bob, lambda frames: "drop" in seat_moves(frames, 0), "Ann's drop", timeout=40)
    frames = bob.frames[start:]
    drops = [e for f in frames if f["t"] == "view" for e in f["d"]["events"]
             if e["type"] == "drop"]
    assert drops == [{"type": "drop", "seat": 0, "points": middle, "kind": "middle"}]
    moves = seat_moves(frames, 0)
    # Two missed turns played as a draw from the closed deck and a discard, then the drop.
    assert moves == ["draw_stock", "discard", "draw_stock", "discard", "drop"], moves
    seats = await bob.seats_become(lambda s: s[0]["timeouts"] == 3, "three timeouts")
    assert seats[1]["timeouts"] == 0
    await close_all(ann, bob)


# -- clocks, restarts and reconnects ------------------------------------------------------------


async def timeout_events(server: ServerProcess, table_id: str) -> list[tuple[str, int | None]]:
    store = await Store.open(sqlite_url(server.data_dir))  # the server runs on SQLite
    try:
        return [(e.kind, e.seat) for e in await store.load_events(table_id)
                if e.kind == "timeout"]
    finally:
        await store.close()


async def test_a_restart_credits_the_outage(slow: ServerProcess) -> None:
    grant, other, ann, bob = await gin_pair(slow, 60)
    mover = ann.view["to_act"]
    # One turn runs out (a draw and a discard for him); the other's clock starts.
    await ann.until_view(lambda d: event_types({"d": d}) == ["discard"], "the timed-out turn")
    await ann.seats_become(lambda s: s[mover]["timeouts"] == 1, "the timeout counted")
    before = check_clock(ann.clock, 1 - mover, 60)
    version = ann.version
    restarted = now_ms()
    await asyncio.to_thread(slow.restart)
    await close_all(ann, bob)
    # Back after the outage: the same version (nothing was played for the time the
    # server was away), the timeout still counted, a whole turn from the restart.
    bob = await sit(slow, other, "Bob")
    ann = await sit(slow, grant, "Ann")
    for player in (ann, bob):
        assert player.version == version
        assert player.seats[mover]["timeouts"] == 1 and player.seats[1 - mover]["timeouts"] == 0
    clock = check_clock((await ann.sync())["d"]["clock"], 1 - mover, 60)
    assert clock["deadline"] >= restarted + turn_ms(60)
    assert clock["deadline"] > before["deadline"]
    assert await timeout_events(slow, grant["table_id"]) == [("timeout", mover)]
    info = table_info(slow, grant["code"])
    assert [s["timeouts"] for s in info["seats"]] == [ann.seats[0]["timeouts"],
                                                      ann.seats[1]["timeouts"]]
    # and the match plays on across its next deal, drawn from a live rng after the restart
    assert ann.last_view is not None and bob.last_view is not None
    views = await play_simply({0: ann.ws, 1: bob.ws}, {0: ann.last_view, 1: bob.last_view},
                              300, "after", until_hand=2)
    assert views[0]["d"]["view"]["hand"] == views[1]["d"]["view"]["hand"] == 2
    await close_all(ann, bob)


async def test_clocks_pause_while_no_person_is_connected(life: ServerProcess) -> None:  # noqa: F811
    grant, other, ann, bob = await gin_pair(life, 60)
    mover, version = ann.view["to_act"], ann.version
    first = check_clock(ann.clock, mover, 60)
    await close_all(ann, bob)
    # A spectator is nobody the clock runs for: nothing happens past the deadline.
    zoe = await watch(life, grant["table_id"])
    assert zoe.clock is None and zoe.version == version
    seen = await zoe.quiet((first["deadline"] - now_ms()) / 1000 + 1.0)
    assert all(not f["d"]["events"] for f in seen if f["t"] == "view"), seen
    assert now_ms() > first["deadline"]
    # The person to act comes back: the same turn, afresh.
    back = await sit(life, grant if mover == 0 else other, "back")
    assert back.version == version
    clock = check_clock(back.clock, mover, 60)
    assert clock["deadline"] >= clock["now"] + turn_ms(60) - SLACK_MS
    assert all(s["timeouts"] == 0 for s in back.seats)
    await close_all(back, zoe)


async def test_reconnecting_does_not_extend_a_running_clock(
        life: ServerProcess) -> None:  # noqa: F811
    grant, other, ann, bob = await gin_pair(life, 60)
    mover, version = ann.view["to_act"], ann.version
    deadline = check_clock(ann.clock, mover, 60)["deadline"]
    grants = {0: grant, 1: other}
    players = {0: ann, 1: bob}
    # First the other player reconnects (a new socket), then the one to act himself
    # (while the other is there, the clock runs on).
    for seat in (1 - mover, mover):
        await players[seat].close()
        await players[1 - seat].until_seats(dropped(seat), "the seat dropping")
        players[seat] = await sit(life, grants[seat], f"seat {seat} again")
        assert players[seat].version == version
        assert check_clock(players[seat].clock, mover, 60)["deadline"] == deadline
        stayed = await players[1 - seat].sync()
        assert check_clock(stayed["d"]["clock"], mover, 60)["deadline"] == deadline
    zoe = await watch(life, grant["table_id"])
    assert check_clock(zoe.clock, mover, 60)["deadline"] == deadline
    await close_all(zoe, *players.values())


# Ann holds every spade and plays last to the first trick: her ace of spades takes it.
SPADES_TO_ANN = ["2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As", "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
                 "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad", "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"]


async def dealt_spades_table(server: ServerProcess, hands: list[str], dealer: int,
                             turn_time: int) -> Frame:
    """A Spades table of Ann (seat 0) and three computers whose first hand deals ``hands``:
    its row goes into the server's database, which loads it at Ann's hello. Her grant."""
    token = new_token()
    seats = [SeatRecord(0, "Ann", "human", hash_token(token))]
    seats += [SeatRecord(seat, "Computer", "bot", None) for seat in (1, 2, 3)]
    settings = TableSettings.create(4, invited=False, given={"turn_time": turn_time})
    record = TableRecord(
        table_id=new_table_id(), code=new_code(), game="spades",
        options=get_game("spades").options().to_dict(), players=4, seats=seats,
        private=settings.private, status="playing", settings=settings.to_json(),
        start_chance=spades_rigged(hands, dealer=dealer).chance_outcomes())
    store = await Store.open(sqlite_url(server.data_dir))  # the server runs on SQLite
    try:
        await store.create_table(record)
    finally:
        await store.close()
    return {"table_id": record.table_id, "code": record.code, "seat": 0, "token": token}


async def test_a_spades_trick_won_and_led_again_is_a_new_turn(
        life: ServerProcess) -> None:  # noqa: F811
    """One rummy turn is several moves under one deadline; in Spades every card is a turn,
    even the lead of the player who just won the trick."""
    grant = await dealt_spades_table(life, SPADES_TO_ANN, dealer=0, turn_time=60)
    ann = await sit(life, grant, "Ann")
    for n in range(60):
        frame = await ann.until_view(
            lambda d: d["view"]["to_act"] == 0 and bool(d["view"]["legal"]), "her turn")
        legal = frame["d"]["view"]["legal"]
        await asyncio.sleep(turn_ms(60) / 7500)  # some of her time goes by
        plays = [a for a in legal if a["type"] == "play"]
        # Her strongest card, to win a trick soon.
        action = max(plays, key=lambda a: (a["card"][1] == "s", RANKS.index(a["card"][0]))) \
            if plays else legal[0]
        answer = await ann.act(action, f"s{n}")
        assert answer["t"] == "view", answer
        clock = answer["d"]["clock"]
        if action["type"] == "play" and answer["d"]["view"]["to_act"] == 0:
            # She won the trick and leads: a whole new turn, not what was left of the last.
            assert clock is not None and clock["seat"] == 0
            assert clock["deadline"] - clock["now"] > turn_ms(60) * 14 // 15
            await ann.close()
            return
    pytest.fail("she won no trick in these hands")
