"""Rommé first melds the move list does not offer, laid by clicks and taps in real Chromium.

``view.legal`` lists a bounded menu of first melds (up to three groups), while the server
accepts any legal one, judged by its content. The board sends what the player staged when
no listed move matches, and shows the server's reason when it is refused. The deal is fixed
(tests/romme_deals.py): the table's row goes into the server's database with that deal
as its start, and the server loads it at Ann's hello; Ann (seat 0) deals, holds 14 cards
and opens the hand. Screenshots: artifacts/screenshots/romme-opening-<moment>-<size>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    WebServer,
    remember_seat,
    running_server,
    screen_context,
    screenshot,
    settle,
    watch_console,
)
from cardtable.engine import get_game
from cardtable.server.security import hash_token, new_code, new_table_id, new_token
from cardtable.server.table.settings import TableSettings
from cardtable.store import SeatRecord, Store, TableRecord, sqlite_url
from db_fixtures import run_async
from romme_deals import rigged
from test_browser_rummy import RummyPlayer

STORAGE_KEY = "cardtable.v1"
QUIET = "5c 6d 8s Js Qc 3h 6h 9d Kc Kd 2s 4d Th"  # the computer's 13 cards: no meld
# 2-2-2 3-3-3 4-4-4 6-6-6 make 6 + 9 + 12 + 18 = 45 of the 40 needed; any three make 39
# at most (runs 2-3-4 make 9), so the menu of up to three groups lists no first meld.
FOUR_SMALL_SETS = "2c 2d 2h 3c 3d 3h 4c 4d 4h 6c 6d 6h 9c Jd"
SIZES = ["portrait", "landscape", "desktop"]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with running_server(tmp_path_factory.mktemp("romme-openings")) as server:
        yield server


def dealt_table(web: WebServer, hand: str, options: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    """A Rommé table of Ann (seat 0) and a computer whose first hand gives Ann ``hand``:
    its row goes into the server's database. Her seat grant."""
    options = get_game("romme").options().to_dict() | (options or {})
    token = new_token()
    seats = [SeatRecord(0, "Ann", "human", hash_token(token)),
             SeatRecord(1, "Computer", "bot", None)]
    settings = TableSettings.create(2, invited=False)
    record = TableRecord(
        table_id=new_table_id(), code=new_code(), game="romme", options=options, players=2,
        seats=seats, private=settings.private, status="playing", settings=settings.to_json(),
        start_chance=rigged([hand, QUIET], options=options).chance_outcomes())

    async def create() -> None:
        store = await Store.open(sqlite_url(Path(web.data_dir)))  # the server runs on SQLite
        try:
            await store.create_table(record)
        finally:
            await store.close()

    run_async(create)  # in a thread: Playwright's loop runs in this one
    return {"table_id": record.table_id, "code": record.code, "seat": 0, "token": token}


def sit(page: Page, web: WebServer, grant: dict[str, Any]) -> RummyPlayer:
    """Ann's page at her table, her turn to open the hand (the seat token kept as the home
    page keeps it)."""
    remember_seat(page, web.base_url, grant)
    page.goto(f"{web.base_url}/t/{grant['code']}")
    page.wait_for_selector('.rummy.my-turn[data-phase="play"]')
    coarse = page.evaluate("() => matchMedia('(pointer: coarse)').matches")
    return RummyPlayer(page, touch=bool(coarse))  # a phone is tapped


def stage(player: RummyPlayer, cards: str) -> None:
    """Tap or click each card, then Add group."""
    for card in cards.split():
        player.select(card)  # Ann holds one copy of each: the key is the card
    player.press("#stage")
    for card in cards.split():
        player.page.wait_for_selector(f'.rm-hand .hand-card.staged[data-card="{card}"]')


def total(page: Page) -> str:
    return page.inner_text("#first-meld-total")


def my_melds(page: Page) -> list[str]:
    return sorted(str(m) for m in page.eval_on_selector_all(
        '[data-melds-seat="0"] .table-meld',
        "els => els.map(e => [...e.querySelectorAll('[data-card]')]"
        ".map(c => c.dataset.card).sort().join(' '))"))


@pytest.mark.parametrize("size", SIZES)
def test_four_small_sets_come_out_by_clicks_though_no_listed_move_holds_them(
        browser: Browser, web: WebServer, size: str) -> None:
    context, page = screen_context(browser, size)
    problems = watch_console(page)
    player = sit(page, web, dealt_table(web, FOUR_SMALL_SETS))
    assert total(page) == "First meld: 0 of 40 points"
    for group, shown in (("2c 2d 2h", 6), ("3c 3d 3h", 15), ("4c 4d 4h", 27), ("6c 6d 6h", 45)):
        stage(player, group)
        assert total(page) == f"First meld: {shown} of 40 points"
    assert page.locator("#staged-groups li").count() == 4
    assert page.inner_text("#meld").startswith("Meld 45")
    settle(page)  # the staged cards have landed in their groups
    screenshot(page, f"romme-opening-four-sets-{size}")
    before = player.version()
    player.lay_selection()  # the Meld button, or a tap on the felt
    page.wait_for_function(
        "() => document.querySelectorAll('[data-melds-seat=\"0\"] .table-meld').length === 4")
    assert my_melds(page) == ["2c 2d 2h", "3c 3d 3h", "4c 4d 4h", "6c 6d 6h"]
    assert player.version() > before
    assert sorted(player.hand()) == ["9c", "Jd"]
    assert page.inner_text("#message") == ""
    assert not problems, problems
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_staged_group_that_is_no_meld_gets_the_servers_reason(
        browser: Browser, web: WebServer, size: str) -> None:
    context, page = screen_context(browser, size)
    problems = watch_console(page)
    player = sit(page, web, dealt_table(web, FOUR_SMALL_SETS))
    for group in ("2c 2d 2h", "3c 3d 3h", "4c 4d 4h", "6c 6d 9c"):
        stage(player, group)
    # The last group is no listed meld: its worth is the server's to say.
    assert total(page) == "First meld: 27 + ? of 40 points"
    assert page.inner_text("#staged-groups li:nth-child(4) .group-value") == "?"
    before, hand = player.version(), sorted(player.hand())
    player.press("#meld")
    page.wait_for_function("() => document.querySelector('#message')?.textContent")
    assert player.message() == (
        "6c 9c 6d: a run needs three cards of one suit in sequence. Nothing was played.")
    # Nothing changed, and the groups are still staged to be put right.
    assert player.version() == before and sorted(player.hand()) == hand
    assert page.locator("#staged-groups li").count() == 4
    assert len(player.card_keys(".staged")) == 12
    assert not page.locator(".table-meld").count()
    page.wait_for_selector(".rummy.my-turn")
    settle(page)
    screenshot(page, f"romme-opening-refused-{size}")
    # Take the bad group back, stage the sixes, and the four sets go down.
    player.press('#staged-groups li:nth-child(4) button')
    stage(player, "6c 6d 6h")
    assert total(page) == "First meld: 45 of 40 points"
    player.lay_selection()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-melds-seat=\"0\"] .table-meld').length === 4")
    assert page.inner_text("#message") == ""
    assert not problems, problems
    context.close()


def test_three_jokers_count_as_unknown_until_the_server_lays_them(browser: Browser,
                                                                   web: WebServer) -> None:
    """A group of one natural and three jokers is never in the candidates (two jokers at
    most): the total says "+ ?", not 0, and the server counts it (Ks Kc Kd Kh, 40)."""
    context, page = screen_context(browser, "desktop")
    problems = watch_console(page)
    player = sit(page, web, dealt_table(web, "Ks Jk Jk Jk 7c 7d 7h 2c 4h 6s 8h 3d 5s 9c"))
    jokers = player.card_keys('[data-card="Jk"]')
    for key in ["Ks", *jokers]:
        player.select(key)
    player.press("#stage")
    assert total(page) == "First meld: 0 + ? of 40 points"
    stage(player, "7c 7d 7h")
    assert total(page) == "First meld: 21 + ? of 40 points"
    assert page.inner_text("#meld").strip().startswith("Meld")
    player.lay_selection()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-melds-seat=\"0\"] .table-meld').length === 2")
    assert "Jk Jk Jk Ks" in my_melds(page)
    assert not problems, problems
    context.close()


def test_a_house_rule_refusal_names_the_rule(browser: Browser, web: WebServer) -> None:
    """Under "one joker per meld" the three-joker group is refused with that reason."""
    context, page = screen_context(browser, "desktop")
    problems = watch_console(page)
    player = sit(page, web, dealt_table(web, "Ks Jk Jk Jk 7c 7d 7h 2c 4h 6s 8h 3d 5s 9c",
                                        {"joker_limit": "one_per_meld"}))
    for key in ["Ks", *player.card_keys('[data-card="Jk"]')]:
        player.select(key)
    player.press("#stage")
    stage(player, "7c 7d 7h")
    player.press("#meld")
    page.wait_for_function("() => document.querySelector('#message')?.textContent")
    assert player.message() == "Ks Jk Jk Jk: at most one joker in a meld. Nothing was played."
    assert page.locator("#staged-groups li").count() == 2
    assert not problems, problems
    context.close()
