"""A match in play replays only what a spectator sees (issue 26, item 2): at a real server
on SQLite and PostgreSQL, every registered game is played through real sockets for a few
dozen moves (Spades with a blind nil, so its two-way exchange of cards passed face down
is among them; every game with its hidden stock draws), and its live replay
(``GET /api/matches/{id}/replay``, asked as a stranger asks it) is walked step by step:
no step names a card that a spectator could not see at that point. The truth is the
server's own log replayed by the engine, with the leak rule of tests/conformance.py (a
card in the stock, face down or in a hand may be named only once it was public in that
deal). Before the first deal a table has no match to replay at all."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import db_fixtures
from cardtable.client import Client, play
from cardtable.engine import GAMES, Action, get_game
from cardtable.engine.cards import str_card
from cardtable.store import EventRecord, TableRecord
from conformance import cards_in, forbidden
from match_log import logged_matches
from server_harness import ServerProcess, server_on, stored

pg_database_url = db_fixtures.pg_database_url
TESTS = Path(__file__).resolve().parents[1]
PLUGINS = [name for name in GAMES if not get_game(name).state.__module__.startswith("cardtable.")]
MOVES = 48  # per match: a Spades bidding and exchange and some tricks; draws in every game
PLAYED = [("gin", 2, {"target": 200}), ("rummy", 3, {}), ("rummy500", 3, {}),
          ("romme", 3, {}), ("indian", 3, {"preset": "deals", "deals": 6}),  # no drops
          ("spades", 4, {"blind_nil_margin": 0}),  # blind nil at any score: exchanges early
          *((name, get_game(name).players[0], {}) for name in PLUGINS)]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    modules = ",".join(get_game(name).state.__module__ for name in PLUGINS)
    path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p)
    with server_on(request, tmp_path_factory, CARDTABLE_GAME_MODULES=modules,
                   PYTHONPATH=path) as process:
        yield process


def chooser(game: str) -> Any:
    """The game's own bot, except that a blind nil is bid whenever it may be."""
    bot = importlib.import_module(get_game(game).bot).choose

    def choose(view: dict[str, Any]) -> Any:
        blind = next((a for a in view["legal"] if a["type"] == "blind_nil"), None)
        return blind or bot(view)
    return choose


async def play_some(server: ServerProcess, game: str, players: int,
                    options: dict[str, Any]) -> str:
    """A friends' table of ``game`` played for about ``MOVES`` moves; its table id."""
    async with Client(server.base_url, frame_rate=None) as client:
        host = await client.create_table(game, options, opponent="friend", name="Ann",
                                         players=players, settings={"turn_time": 0})
        names = ["Bob", "Cy", "Di", "Ed", "Flo"][:players - 1]
        seats = [host] + [await client.join(host.code, name) for name in names]
        async with contextlib.AsyncExitStack() as stack:
            conns = [await stack.enter_async_context(client.connect(seat)) for seat in seats]
            enough = lambda conn: conn.version >= MOVES + 1  # noqa: E731  (+1: the start)
            await asyncio.wait_for(asyncio.gather(
                *(play(conn, chooser(game), until=enough) for conn in conns)), 120)
    return host.table_id


def hidden_at_each_step(record: TableRecord, events: list[EventRecord]
                        ) -> tuple[int, list[set[int]], list[Action], bool]:
    """From the log alone: the match's start version, the cards hidden from a spectator
    after each of its moves (0: the deal), its moves, and whether a move had a private
    side (a card only its seat learnt)."""
    matches = logged_matches(record, events)
    assert len(matches) == 1 and matches[0].events == matches[0].moves, "one match only"
    match, moves = matches[0], matches[0].moves
    state = match.replay(record, actions=False)
    hidden: list[set[int]] = []
    actions: list[Action] = []
    private, deal, public = False, None, set[int]()
    for n in range(len(moves) + 1):
        if n:
            actions.append(Action.from_json(moves[n - 1].payload))
            private |= any(event.private for event in state.apply(actions[-1]))
        zones = state.zones()
        if zones["deal"] != deal:  # a new deal: what was public is in play again
            deal, public = zones["deal"], set()
        public |= set(cards_in(state.view(None)))
        hidden.append(forbidden(zones, None, public))
    assert not state.is_over(), "the match ended: its replay would be face up"
    return match.version, hidden, actions, private


def named(step: dict[str, Any]) -> set[int]:
    """Every card a step names: in its JSON, and packed in its move's text
    (``pass_cards cards=2h6s``, which no word of the text names alone)."""
    told = Action.parse(step["action"]) if step["action"] else Action("deal")
    return set(cards_in(step)) | {*told.cards, *(c for m in told.melds for c in m)} \
        | ({told.card} if told.card is not None else set())


@pytest.mark.parametrize(("game", "players", "options"), PLAYED,
                         ids=[game for game, _, _ in PLAYED])
async def test_a_live_replay_names_no_card_a_spectator_cannot_see(
        server: ServerProcess, game: str, players: int, options: dict[str, Any]) -> None:
    table_id = await play_some(server, game, players, options)
    record, events = await stored(server, table_id)
    start, hidden, actions, private = hidden_at_each_step(record, events)
    assert len(actions) >= MOVES and private, "no hidden draw was walked"
    if game == "spades":  # two cards each way, face down between partners
        assert [a.type for a in actions].count("pass_cards") >= 2
    async with httpx.AsyncClient(base_url=server.base_url) as stranger:
        answer = await stranger.get(f"/api/matches/{table_id}:{start}/replay")
    assert answer.status_code == 200, answer.text
    replay = answer.json()
    assert replay["over"] is False and replay["shuffles"] == []
    steps = replay["steps"]
    assert [step["n"] for step in steps] == list(range(len(actions) + 1))
    for step, secret, action in zip(steps, hidden, [None, *actions], strict=True):
        leaked = named(step) & secret
        assert not leaked, (f"step {step['n']} ({action}) names "
                            f"{sorted(map(str_card, leaked))}: {step}")
    for step, action in zip(steps, [None, *actions], strict=True):
        assert all(isinstance(hand, int) for hand in step["hands"])
        if action is not None:  # the move's kind is told, and its events' public side
            assert step["action"].split()[0] == action.type
            assert all(event["type"] for event in step["events"])


async def test_a_table_not_dealt_yet_has_no_match_to_replay(server: ServerProcess) -> None:
    async with Client(server.base_url, frame_rate=None) as client:
        waiting = await client.create_table("gin", opponent="friend", name="Ann")
        for path in (f"/api/matches/{waiting.table_id}:0/replay",
                     f"/api/matches/{waiting.table_id}:0/file"):
            answer = await client.http.get(path)
            assert answer.status_code == 404, (path, answer.text)
