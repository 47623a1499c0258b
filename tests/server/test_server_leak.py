"""No frame the server sends carries a card its receiver may not see.

Bots play hundreds of hands at friend tables through real sockets while a
spectator watches each table; every frame each seat and each spectator got is
recorded.  Afterwards the true state at every version is rebuilt from the
server's own event log and every frame is checked against it with the leak
rule of tests/conformance.py: a card in the stock, face down, or in the other
seat's unrevealed hand may be named only if it was public (in the spectator's
view) earlier in the same deal.  Every ``view`` must also be exactly the
engine's ``view(seat)`` at the frame's version.  A game registered from outside
the package (the toy of tests/toy_war/) is played at a server that loads its
module by name, and checked the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import importlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cardtable import fairness
from cardtable.bots.gin.normal import choose
from cardtable.bots.levels import BOT_MODULES as BOTS
from cardtable.bots.levels import Bot, bot_for
from cardtable.client import Client, Connection, Frame, play
from cardtable.engine import GAMES, Action, get_game
from cardtable.engine.api import State
from cardtable.engine.cards import str_card
from cardtable.fairness import Shuffle
from cardtable.server.table.replay import NEW_MATCH
from cardtable.store import EventRecord, TableRecord
from conformance import cards_in, forbidden
from match_log import logged_matches
from server_harness import ServerProcess, stored

TESTS = Path(__file__).resolve().parents[1]
# Games registered from outside the package (the toy of tests/toy_war/): the server
# subprocess imports their modules by name (CARDTABLE_GAME_MODULES), from tests/.
PLUGINS = [name for name in GAMES if not get_game(name).state.__module__.startswith("cardtable.")]
TABLES = 8
HANDS = 200  # across all tables
OPTIONS = {"target": 100}  # about a dozen hands a match: rematches are exercised too
Receiver = int | None  # a seat, or None for the spectator


@dataclass
class Watched:
    """One table and every frame each receiver got."""

    table_id: str
    frames: dict[Receiver, list[Frame]] = field(
        default_factory=lambda: {0: [], 1: [], None: []})
    hands: int = 0
    matches: int = 0


async def play_table(client: Client, quota: int, options: dict[str, Any] = OPTIONS) -> Watched:
    """Two normal Gin bots play whole matches (with rematches) until ``quota`` hands."""
    ann = await client.create_table("gin", options, opponent="friend", name="Ann")
    table = Watched(ann.table_id)
    # The spectator watches from before the deal: the table waits for Bob, nothing shown.
    spectator = client.connect(None, table_id=ann.table_id, record=table.frames[None])
    async with spectator:
        # The spectator is read by its own task so that it never falls behind.
        watching = asyncio.create_task(follow(spectator))
        bob = await client.join(ann.code, "Bob")  # the last seat: dealt now
        async with client.connect(ann, record=table.frames[0]) as a, \
                client.connect(bob, record=table.frames[1]) as b:
            await play_matches(table, a, b, quota)
            final = max(a.version, b.version)
            watching.cancel()  # cancelling a websockets recv() loses no frame
            await asyncio.gather(watching, return_exceptions=True)
            await spectator.wait_for(lambda c: c.version >= final, timeout=10)
            for conn in (a, b):
                await conn.wait_for(lambda c: c.version >= final, timeout=10)
    return table


async def play_matches(table: Watched, a: Connection, b: Connection, quota: int) -> None:
    """Matches with rematches until ``quota`` hands are played."""
    while True:
        await asyncio.gather(play(a, choose), play(b, choose))
        table.hands += len(a.view["history"])
        table.matches += 1
        if table.hands >= quota:
            break
        await a.rematch()
        await b.rematch()
        for conn in (a, b):
            await conn.wait_for(lambda c: c.view["phase"] != "match_over", timeout=10)


async def follow(conn: Connection) -> None:
    while True:
        await conn.recv()


# -- the truth, from the event log ---------------------------------------------------------


def true_states(table: TableRecord, events: list[EventRecord]
                ) -> Iterator[tuple[int, State | None]]:
    """(version, state) for every version 0..n, replayed from the log one event at a time;
    None while the table waited for players (nothing dealt).

    The start (the last seat taken) and each rematch begin a match from the chance outcomes
    logged with them; each match's later deals come from the outcomes logged with its
    actions.
    """
    assert [e.version for e in events] == list(range(1, len(events) + 1)), "gaps in the log"
    matches = logged_matches(table, events)
    for version in range(matches[0].version if matches else len(events) + 1):
        yield version, None
    for match in matches:
        # Moves only: a move is the seat's own, a timeout's, or a computer's standing in.
        assert match.events == match.moves, match.events
        state = match.replay(table, actions=False)
        yield match.version, state
        for event in match.moves:
            state.apply(Action.from_json(event.payload))
            yield event.version, state


@dataclass
class Truth:
    """What each receiver may not see at one version, and what it should be shown."""

    hidden: dict[Receiver, set[int]]
    views: dict[Receiver, dict[str, Any] | None]  # None: nothing dealt yet, nothing shown
    hand_done: bool = False  # the hand is over: its shuffles' orders may be revealed

    @property
    def dealt(self) -> bool:
        return self.views[None] is not None


def truths(table: TableRecord, events: list[EventRecord]) -> dict[int, Truth]:
    out: dict[int, Truth] = {}
    deal: tuple[int, int] | None = None
    public: set[int] = set()
    match = 0
    receivers: list[Receiver] = [*range(table.players), None]
    for version, state in true_states(table, events):
        if state is None:  # the table waited: no card exists, and no view may be sent
            out[version] = Truth({r: set() for r in receivers}, dict.fromkeys(receivers))
            continue
        if version and events[version - 1].kind in NEW_MATCH:
            match += 1
        zones = state.zones()
        if (match, zones["deal"]) != deal:  # a new deal: what was public is in play again
            deal, public = (match, zones["deal"]), set()
        views: dict[Receiver, dict[str, Any] | None] = {r: state.view(r) for r in receivers}
        public |= set(cards_in(state.view(None)))
        out[version] = Truth({r: forbidden(zones, r, public) for r in receivers}, views,
                             state.is_over() or get_game(table.game).only_dealing(state))
    return out


def check_every_version(frames: dict[Receiver, list[Frame]], truth: dict[int, Truth]) -> None:
    """Every receiver got a view of every version from the one it came in at (no resync
    skipped one), and it came in by the first deal (so it got the deal's view)."""
    dealt = min(version for version, at in truth.items() if at.dealt)
    for receiver, received in frames.items():
        seen = {f.v for f in received if f.t == "view"}
        came = min(v for v in seen if v is not None)
        assert came <= dealt and seen == set(range(came, max(truth) + 1)), \
            f"receiver {receiver} missed versions"


def problems(frames: dict[Receiver, list[Frame]], truth: dict[int, Truth]) -> list[str]:
    """Every frame that names a card its receiver may not see, or shows a wrong view."""
    found: list[str] = []
    for receiver, received in frames.items():
        for frame in received:
            if frame.v is None or frame.v not in truth:
                found.append(f"{receiver}: frame at unknown version {frame.to_json()}")
                continue
            at = truth[frame.v]
            scanned = frame.to_json()
            fair = frame.d.get("fair") if frame.t == "view" else None
            if fair is not None and (fair["revealed"] or any(
                    "order" in s or "salt" in s for s in fair["shuffles"])):
                if not at.hand_done:
                    found.append(f"receiver {receiver}: shuffles revealed at version "
                                 f"{frame.v}, before the hand is over")
                found += fairness.problems(Shuffle.from_json(s) for s in fair["shuffles"])
                # Once the hand is over its deck orders are revealed on purpose (and proved
                # above); the rest of the frame is held to the leak rule as before.
                scanned = copy.deepcopy(scanned)
                del scanned["d"]["fair"]
            leaked = set(cards_in(scanned)) & at.hidden[receiver]
            if leaked:
                found.append(f"receiver {receiver} saw {sorted(map(str_card, leaked))} "
                             f"at version {frame.v}: {frame.to_json()}")
            if frame.t == "view" and frame.d["view"] != at.views[receiver]:
                found.append(f"receiver {receiver}: the view at version {frame.v} is not "
                             f"the engine's view({receiver})")
    return found


def plugin_env(*games: str) -> dict[str, str]:
    """The environment of a server that loads the modules of ``games`` at start."""
    modules = ",".join(get_game(name).state.__module__ for name in games)
    path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p)
    return {"CARDTABLE_GAME_MODULES": modules, "PYTHONPATH": path,
            "CARDTABLE_JOIN_LIMIT": "100000"}


# -- the tests -----------------------------------------------------------------------------


async def test_no_frame_leaks_a_hidden_card(server: ServerProcess) -> None:
    async with Client(server.base_url) as client:
        tables = await asyncio.wait_for(asyncio.gather(
            *(play_table(client, -(-HANDS // TABLES)) for _ in range(TABLES))), 150)
    assert sum(t.hands for t in tables) >= HANDS
    assert any(t.matches > 1 for t in tables), "no rematch was played"
    checked = 0
    for watched in tables:
        table, events = await stored(server, watched.table_id)
        truth = truths(table, events)
        assert [e.kind for e in events][:1] == ["start"] and not truth[0].dealt
        check_every_version(watched.frames, truth)
        # The spectator watched the table wait: a view of no match, then the deal.
        assert any(f.t == "view" and f.v == 0 for f in watched.frames[None])
        assert problems(watched.frames, truth) == []
        checked += sum(len(f) for f in watched.frames.values())
    assert checked > HANDS * 3 * 20


async def test_the_checker_flags_a_tampered_frame(server: ServerProcess) -> None:
    """The check can fail: slip the opponent's card into one seat's frame."""
    async with Client(server.base_url) as client:
        watched = await asyncio.wait_for(play_table(client, 1, {"target": 1}), 60)
    table, events = await stored(server, watched.table_id)
    truth = truths(table, events)
    assert problems(watched.frames, truth) == []
    frame = next(f for f in watched.frames[0]
                 if f.t == "view" and f.d["view"]["phase"] == "draw")
    assert frame.v is not None
    # Hidden from seat 0 but not from seat 1: a card in seat 1's hand.
    secret = sorted(truth[frame.v].hidden[0] - truth[frame.v].hidden[1])[0]
    for where in ("view", "events"):
        tampered = copy.deepcopy(frame.d)
        if where == "view":
            tampered["view"]["discard"].append(str_card(secret))
        else:
            tampered["events"].append({"type": "draw_stock", "seat": 1,
                                       "card": str_card(secret)})
        forged = Frame(frame.t, frame.v, tampered)
        found = problems({0: [forged]}, truth)
        assert found and str_card(secret) in found[0]
    # A spectator frame naming a card in a hand is flagged too.
    spectator_frame = next(f for f in watched.frames[None]
                           if f.t == "view" and f.d["view"] is not None)
    assert spectator_frame.v is not None
    hand_card = truth[spectator_frame.v].hidden[None] - truth[spectator_frame.v].hidden[1]
    forged = Frame("seats", spectator_frame.v, {"note": str_card(sorted(hand_card)[0])})
    assert problems({None: [forged]}, truth)
    # So is a view shown before the deal, while the table waited.
    early_view = Frame("view", 0, copy.deepcopy(spectator_frame.d))
    assert problems({None: [early_view]}, truth) == [
        "receiver None: the view at version 0 is not the engine's view(None)"]
    # The deck orders of a hand's end, shown while the hand is played, are flagged; so is
    # a revealed order that is not the one committed to.
    over = next(f for f in watched.frames[0]
                if f.t == "view" and f.d["fair"]["revealed"])
    early = copy.deepcopy(over.d)
    assert problems({0: [Frame("view", frame.v, {**early, "view": frame.d["view"]})]},
                    truth)[0].startswith("receiver 0: shuffles revealed at version")
    swapped = copy.deepcopy(over.d)
    deck = next(s for s in swapped["fair"]["shuffles"] if " " in s["order"])
    cards = deck["order"].split()
    cards[0], cards[1] = cards[1], cards[0]
    deck["order"] = " ".join(cards)
    assert problems({0: [Frame("view", over.v, swapped)]}, truth) == [
        f"shuffle {deck['id']}: the revealed order does not match its commitment"]



# -- Tables of three to eight: Spades and the Rummy family ----------------------------------------


async def play_seated_table(client: Client, game: str, options: dict[str, Any], players: int,
                            choose: Bot, quota: int) -> Watched:
    """``players`` bots (all people, as far as the server knows) and a spectator."""
    host = await client.create_table(game, options, opponent="friend", name="Ann",
                                     players=players)
    names = ["Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"][:players - 1]
    seats = [host] + [await client.join(host.code, name) for name in names]
    frames: dict[Receiver, list[Frame]] = {s: [] for s in range(players)}
    frames[None] = []
    table = Watched(host.table_id, frames=frames)
    spectator = client.connect(None, table_id=host.table_id, record=table.frames[None])
    async with contextlib.AsyncExitStack() as stack:
        conns = [await stack.enter_async_context(
            client.connect(seat, record=table.frames[seat.seat])) for seat in seats]
        await stack.enter_async_context(spectator)
        watching = asyncio.create_task(follow(spectator))
        while True:
            await asyncio.gather(*(play(c, choose) for c in conns))
            table.hands += len(conns[0].view["history"])
            table.matches += 1
            if table.hands >= quota:
                break
            for c in conns:
                await c.rematch()
            for c in conns:
                await c.wait_for(lambda x: x.view["phase"] != "match_over", timeout=10)
        final = max(c.version for c in conns)
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
        await spectator.wait_for(lambda x: x.version >= final, timeout=10)
        for c in conns:
            await c.wait_for(lambda x: x.version >= final, timeout=10)
    return table


async def check_tables(server: ServerProcess, tables: list[Watched], players: int) -> None:
    """Every receiver got every version, no frame leaks, no hand of another seat shown early."""
    for watched in tables:
        table, events = await stored(server, watched.table_id)
        truth = truths(table, events)
        check_every_version(watched.frames, truth)
        assert problems(watched.frames, truth) == []
        for seat in range(players):
            for frame in watched.frames[seat]:
                view = frame.d["view"] if frame.t == "view" else None
                if view and view["phase"] not in ("hand_over", "match_over"):
                    hands = view["hands"]
                    assert all("cards" not in hands[s] for s in range(players) if s != seat)


async def test_spades_frames_leak_nothing_to_any_seat_or_the_spectator(
        server: ServerProcess) -> None:
    from cardtable.bots.spades.normal import choose as spades_choose

    async with Client(server.base_url) as client:
        tables = await asyncio.wait_for(asyncio.gather(*(play_seated_table(
            client, "spades", {"target": 150, "mercy": 200}, 4, spades_choose, 6)
            for _ in range(2))), 240)
    assert sum(t.hands for t in tables) >= 12
    await check_tables(server, tables, 4)


FAMILY = [(game, players, options) for game, players, options in (
    ("rummy", 4, {"target": 60}),
    ("rummy500", 3, {"target": 150}),
    ("rummy500", 5, {"target": 100}),  # two packs and four jokers
    ("rummy500", 3, {"target": 150, "calling_rummy": True}),  # everyone asked after a discard
    ("romme", 3, {}),
    ("indian", 3, {}),
) if game in GAMES and game in BOTS]


@pytest.mark.parametrize(("game", "players", "options"), FAMILY,
                         ids=[f"{g}-{p}-{'-'.join(o)}" for g, p, o in FAMILY])
async def test_rummy_family_frames_leak_nothing(server: ServerProcess, game: str, players: int,
                                                options: dict[str, Any]) -> None:
    async with Client(server.base_url) as client:
        tables = await asyncio.wait_for(asyncio.gather(*(play_seated_table(
            client, game, options, players, bot_for(game), 3) for _ in range(2))), 240)
    assert sum(t.hands for t in tables) >= 6
    await check_tables(server, tables, players)


async def test_automatic_moves_and_stand_ins_leak_nothing(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two people who never move: their turns run out (draw from the stock, the computer's
    discard), then computers stand in; a spectator watches. Every frame is checked."""
    server = ServerProcess(tmp_path_factory.mktemp("timeouts") / "data",
                           env={"CARDTABLE_TIME_SCALE": "0.02"}).start()
    try:
        async with Client(server.base_url) as client:
            ann = await client.create_table("gin", {"deals": 2}, opponent="friend",
                                            name="Ann", settings={"turn_time": 15})
            bob = await client.join(ann.code, "Bob")
            table = Watched(ann.table_id)
            spectator = client.connect(None, table_id=ann.table_id,
                                       record=table.frames[None])
            async with client.connect(ann, record=table.frames[0]) as a, \
                    client.connect(bob, record=table.frames[1]) as b, spectator:
                watching = asyncio.create_task(follow(spectator))
                over = lambda c: c.view.get("phase") == "match_over"  # noqa: E731
                await asyncio.gather(a.wait_for(over, timeout=120),
                                     b.wait_for(over, timeout=120))
                final = max(a.version, b.version)
                watching.cancel()
                await asyncio.gather(watching, return_exceptions=True)
                await spectator.wait_for(lambda c: c.version >= final, timeout=10)
        record, events = await stored(server, ann.table_id)
        kinds = {e.kind for e in events}
        assert {"timeout", "auto"} <= kinds and "action" not in kinds, kinds
        assert problems(table.frames, truths(record, events)) == []
    finally:
        server.stop()


def test_every_registered_game_is_watched() -> None:
    """A new built-in game needs its place in the tables above; a plug-in is watched below."""
    watched = {"gin", "spades", *(game for game, _, _ in FAMILY), *PLUGINS}
    assert set(GAMES) <= watched, f"not leak-tested: {sorted(set(GAMES) - watched)}"


@pytest.mark.parametrize("game", PLUGINS)
async def test_plugged_in_games_frames_leak_nothing(
        tmp_path_factory: pytest.TempPathFactory, game: str) -> None:
    """A game the server loads by module name is watched like a built-in one."""
    server = ServerProcess(tmp_path_factory.mktemp(game) / "data",
                           env=plugin_env(game)).start()
    players = get_game(game).players[0]
    choose_move = importlib.import_module(get_game(game).bot).choose
    try:
        async with Client(server.base_url) as client:
            # Express (one-hand) matches: three hands are always three matches, so the
            # rematch is played whatever the server's live deals are.
            express = dict(get_game(game).options.EXPRESS)
            assert express, f"{game} needs an express match for this test"
            tables = await asyncio.wait_for(asyncio.gather(*(play_seated_table(
                client, game, express, players, choose_move, 3) for _ in range(2))), 120)
        assert sum(t.hands for t in tables) >= 6
        assert any(t.matches > 1 for t in tables), "no rematch was played"
        await check_tables(server, tables, players)
    finally:
        server.stop()
