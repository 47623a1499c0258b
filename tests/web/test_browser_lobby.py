"""The home page's live lobby ("Open tables") and table settings, in real
Chromium against a real ``cardtable serve``.

The lobby is one list for the whole server, so every test gets a fresh
server: a table left open by one test must not be the one another test's
Quick join finds. Everything a player does is done by clicks and keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Dialog, Page, WebSocket
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from browser_harness import (
    DESKTOP,
    FAKE_WEBSOCKET_JS,
    PHONE_LANDSCAPE,
    WebServer,
    new_page,
    page_clock,
    screenshot,
    script_left_to_run,
    table_code,
    watch_console,
)

LOBBY_JS = Path(__file__).resolve().parents[2] / "src" / "cardtable" / "web" / "lobby.js"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WebServer]:
    web = WebServer(tmp_path).start()
    try:
        yield web
    finally:
        web.stop()


def create_table(base: str, game: str = "gin", name: str = "Ann",
                 settings: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A table with invited seats, made over HTTP (as another person's browser would)."""
    body: dict[str, Any] = {"game": game, "opponent": "friend", "name": name, **extra}
    if settings is not None:
        body["settings"] = settings
    response = httpx.post(f"{base}/api/tables", json=body)
    assert response.status_code == 201, response.text
    grant: dict[str, Any] = response.json()
    return grant


def table_info(base: str, code: str) -> dict[str, Any]:
    response = httpx.get(f"{base}/api/tables/{code}")
    assert response.status_code == 200, response.text
    info: dict[str, Any] = response.json()
    return info


def lobby_codes(base: str) -> list[str]:
    return [t["code"] for t in httpx.get(f"{base}/api/lobby").json()["tables"]]


def row(code: str) -> str:
    return f'.open-table[data-code="{code}"]'


def open_home(browser: Browser, base: str, name: str | None = None,
              viewport: Any = DESKTOP) -> tuple[BrowserContext, Page, list[str]]:
    """A new person (own context: own storage) on the home page, lobby connected."""
    context, page = new_page(browser, viewport)
    problems = watch_console(page)
    page.goto(f"{base}/")
    page.wait_for_selector(".game-choice")
    # Connected once the first list came in: the status line empties.
    page.wait_for_function(
        "() => document.querySelector('#open-tables-status')?.textContent === ''")
    if name is not None:
        page.fill("#guest-name", name)
    return context, page, problems


def catch_dialogs(page: Page, caught: list[str]) -> None:
    """An alert() from injected markup would show here (and is dismissed)."""
    def dismiss(dialog: Dialog) -> None:
        caught.append(dialog.message)
        dialog.dismiss()
    page.on("dialog", dismiss)


def track_sockets(page: Page) -> list[WebSocket]:
    sockets: list[WebSocket] = []

    def opened(ws: WebSocket) -> None:
        sockets.append(ws)
    page.on("websocket", opened)
    return sockets


def test_the_lobby_lists_public_tables_live(browser: Browser, server: WebServer) -> None:
    base = server.base_url
    ctx_a, ann, problems = open_home(browser, base)
    ann.locator("#open-tables-empty").wait_for(state="visible")
    assert ann.locator(".open-table").count() == 0

    # A private table (the default) never shows up.
    hidden = create_table(base, name="Secret")["code"]

    # Bea lists a table with friends in the public lobby.
    ctx_b, bea, problems_b = open_home(browser, base, "Bea")
    bea.check("#public")
    bea.click("#play-friend")
    bea.wait_for_url("**/t/*")
    code = table_code(bea.url)

    entry = ann.locator(row(code))
    entry.wait_for()  # no reload: it came over /ws/lobby
    text = entry.inner_text()
    assert "Gin Rummy" in text and "Bea" in text and "Free seat" in text
    assert "30 s a turn" in text  # with friends the turn timer defaults to 30 s
    assert "Spectators welcome" in text and "1 of 2 seated" in text
    assert "Standard rules" in text  # named from /api/games' preset values
    assert entry.locator(".ot-watch").is_visible()
    assert ann.locator("#open-tables-empty").is_hidden()
    assert ann.locator(row(hidden)).count() == 0
    assert lobby_codes(base) == [code]
    entry.scroll_into_view_if_needed()
    screenshot(ann, "lobby-open-table")

    # Cyd joins from his own lobby, by keyboard; his lobby socket closes with the page.
    ctx_c, cyd, problems_c = open_home(browser, base, "Cyd")
    sockets = track_sockets(cyd)
    cyd.reload()  # so the lobby socket of this page load is tracked
    cyd.locator(row(code)).wait_for()
    cyd.fill("#guest-name", "Cyd")
    cyd.focus(f"{row(code)} .ot-join")
    cyd.keyboard.press("Enter")
    cyd.wait_for_url(f"**/t/{code}")
    cyd.wait_for_selector(".gin .hand-card")
    assert [s["name"] for s in table_info(base, code)["seats"]] == ["Bea", "Cyd"]
    lobby_socket = next(s for s in sockets if s.url.endswith("/ws/lobby"))
    if not lobby_socket.is_closed():
        try:
            lobby_socket.wait_for_event("close", timeout=15_000)
        except PlaywrightTimeoutError:
            raise AssertionError("the lobby socket stayed open behind the table page") from None
    assert lobby_socket.is_closed()

    # The table is full: it leaves Ann's list, and the empty state is back.
    entry.wait_for(state="detached")
    ann.locator("#open-tables-empty").wait_for(state="visible")
    assert lobby_codes(base) == []
    assert not problems + problems_b + problems_c
    for context in (ctx_a, ctx_b, ctx_c):
        context.close()


def test_quick_join_seats_you_at_a_public_table(browser: Browser, server: WebServer) -> None:
    base = server.base_url
    context, page, problems = open_home(browser, base, "Quinn")
    assert page.is_checked("#quick-game")
    assert "Gin Rummy" in page.inner_text("label[for=quick-game]")

    # Nothing open yet: the server's own message is shown.
    page.click("#quick-join")
    page.wait_for_function("() => document.querySelector('#quick-error').textContent !== ''")
    assert "no public table has a free seat" in page.inner_text("#quick-error")
    assert page.url == f"{base}/"

    # An older public Rummy table and a newer Gin table: "Only Gin Rummy" skips the Rummy.
    create_table(base, "rummy", "Rita", {"private": False}, players=3)
    gin = create_table(base, "gin", "Gil", {"private": False}, options={"deals": 1})["code"]
    page.locator(row(gin)).wait_for()
    # Express options are express, not a change of the rules.
    assert "Standard rules · Express: one hand" in page.inner_text(row(gin))
    page.click("#quick-join")
    page.wait_for_url(f"**/t/{gin}")
    page.wait_for_selector(".gin .hand-card")
    assert [s["name"] for s in table_info(base, gin)["seats"]] == ["Gil", "Quinn"]
    # Chromium logs every 4xx fetch; the one expected 404 is not a problem.
    expected = "status of 404 (Not Found)"
    assert sum(expected in p for p in problems) == 1
    assert not [p for p in problems if expected not in p]
    context.close()


def shown_codes(page: Page) -> list[str]:
    return [str(c) for c in page.eval_on_selector_all(
        ".open-table", "els => els.filter(e => e.offsetParent).map(e => e.dataset.code)")]


def test_only_this_game_filters_the_list_too(browser: Browser, server: WebServer) -> None:
    """"Only Gin Rummy" is ticked by default: the list shows only Gin tables (and says how
    many others it hides); unticked, every game's; another game picked, that game's."""
    base = server.base_url
    rummy = create_table(base, "rummy", "Rita", {"private": False}, players=3)["code"]
    spades = create_table(base, "spades", "Sam", {"private": False}, players=4)["code"]
    gin = create_table(base, "gin", "Gil", {"private": False})["code"]
    context, page, problems = open_home(browser, base, "Flo")
    assert page.is_checked("#quick-game")
    page.locator(row(gin)).wait_for()
    assert shown_codes(page) == [gin]
    others = page.locator("#open-tables-others")
    assert others.is_visible()
    assert others.inner_text() == ("2 more tables of other games: untick “Only Gin Rummy” "
                                   "to see them.")
    assert page.locator("#open-tables-empty").is_hidden()

    page.uncheck("#quick-game")
    page.locator(row(rummy)).wait_for()
    assert sorted(shown_codes(page)) == sorted([gin, rummy, spades])
    assert others.is_hidden()

    # Another game picked, the box ticked again: that game's tables only.
    page.click("label[for=game-rummy]")
    page.check("#quick-game")
    page.locator(row(gin)).wait_for(state="detached")
    assert shown_codes(page) == [rummy]
    assert "Only Rummy" in page.inner_text("label[for=quick-game]")
    assert "2 more tables" in others.inner_text()
    screenshot(page, "lobby-filter-desktop")

    # A new Spades table appears live in the unfiltered count only.
    create_table(base, "spades", "Sue", {"private": False}, players=4)
    page.wait_for_function(
        "() => document.querySelector('#open-tables-others').textContent.startsWith('3 more')")
    assert shown_codes(page) == [rummy]
    # Picking Spades: no rummy row, two spades rows; none of a game: its own empty line.
    page.click("label[for=game-spades]")
    page.locator(row(spades)).wait_for()
    assert len(shown_codes(page)) == 2 and rummy not in shown_codes(page)
    page.click("label[for=game-indian]")
    page.locator("#open-tables-empty").wait_for(state="visible")
    assert shown_codes(page) == []
    assert "No open Indian Rummy tables" in page.inner_text("#open-tables-empty")
    assert others.inner_text().startswith("4 more tables")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(".open-tables").scroll_into_view_if_needed()
    screenshot(page, "lobby-filter-phone")
    assert not problems, problems
    context.close()


def test_settings_and_express_go_with_the_new_table(browser: Browser, server: WebServer) -> None:
    base = server.base_url
    context, page, problems = open_home(browser, base, "Eve")
    page.click("details.options summary")
    assert page.locator("#opt-target").is_visible()
    page.check("#express")
    # The match is one hand: its target is not asked for.
    page.locator("#opt-target").wait_for(state="hidden")
    page.select_option("#level-1", "easy")
    screenshot(page, "lobby-settings")
    page.click("#play-computer")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".gin .hand-card")
    info = table_info(base, table_code(page.url))
    assert info["express"] is True
    settings = info["settings"]
    assert settings["turn_time"] == 0  # against the computer the timer is off by default
    assert settings["private"] is True and settings["spectators"] is True
    assert settings["levels"][1] == "easy"
    assert not problems
    context.close()


def test_friends_table_settings_and_seat_levels(browser: Browser, server: WebServer) -> None:
    """Rummy for three: one invited seat, one computer; 60 s turns, no spectators, no
    hints, listed."""
    base = server.base_url
    context, page, problems = open_home(browser, base, "Ida")
    page.click("label[for=game-rummy]")
    page.click("label[for=players-3]")
    page.select_option("#seat-kind-2", "bot")
    page.select_option("#level-2", "easy")
    page.select_option("#turn-time", "60")
    page.uncheck("#spectators")
    page.uncheck("#hints")
    page.check("#public")
    assert "no hints" in page.inner_text("#table-summary")
    page.click("#play-friend")
    page.wait_for_url("**/t/*")
    code = table_code(page.url)
    info = table_info(base, code)
    assert info["settings"]["turn_time"] == 60
    assert info["settings"]["spectators"] is False and info["settings"]["private"] is False
    assert info["settings"]["hints"] is False
    # Nothing is dealt while a seat is free: no board, the line that says when it will be.
    page.wait_for_selector("#undealt:not([hidden])")
    assert page.locator(".rummy[data-phase]").count() == 0
    assert page.locator("#hint-button").count() == 0  # the host's own table: none either
    assert info["settings"]["levels"] == ["normal", "normal", "easy"]
    assert info["express"] is False

    # Another person sees it with no Watch button, and the settings spelled out.
    ctx_b, other, problems_b = open_home(browser, base, viewport=PHONE_LANDSCAPE)
    other.click("label[for=game-rummy]")  # "Only Rummy": the list shows Rummy tables
    entry = other.locator(row(code))
    entry.wait_for()
    assert entry.locator(".ot-watch").count() == 0
    text = entry.inner_text()
    assert "60 s a turn" in text and "No spectators" in text
    assert "Computer (easy)" in text and "Ida (host)" in text
    entry.scroll_into_view_if_needed()
    screenshot(other, "lobby-phone")
    assert not problems + problems_b
    context.close()
    ctx_b.close()


def test_hostile_names_render_as_text(browser: Browser, server: WebServer) -> None:
    base = server.base_url
    host_name = "<svg onload=alert(1)>"  # names are at most 24 characters
    guest_name = "<img src=x onerror=a()>"
    code = create_table(base, "rummy", host_name, {"private": False}, players=3)["code"]

    ctx_a, ann, problems = open_home(browser, base)
    dialogs: list[str] = []
    catch_dialogs(ann, dialogs)
    ctx_b, bad, problems_b = open_home(browser, base, guest_name)
    catch_dialogs(bad, dialogs)
    for page in (ann, bad):
        page.uncheck("#quick-game")  # a Rummy table: every game's tables listed
    bad.click(f"{row(code)} .ot-join")
    bad.wait_for_url(f"**/t/{code}")

    entry = ann.locator(row(code))
    ann.wait_for_function(
        "n => document.querySelector('.ot-list')?.textContent.includes(n)", arg=guest_name)
    text = entry.inner_text()
    assert host_name in text and guest_name in text
    assert ann.locator(".open-tables img, .open-tables svg, .open-tables script").count() == 0
    join_label = entry.locator(".ot-join").get_attribute("aria-label") or ""
    assert host_name in join_label
    # Watch goes to the table as a spectator (no seat taken).
    ann.click(f"{row(code)} .ot-watch")
    ann.wait_for_url(f"**/t/{code}")
    ann.wait_for_selector("#watch")
    ann.wait_for_function("names => names.every(n => document.body.innerText.includes(n))",
                          arg=[host_name, guest_name])
    # The names are drawn, as text: nothing in the page could still run a handler they
    # carried (an alert from one that ran at once would be in `dialogs` by now).
    assert script_left_to_run(ann) == []
    assert dialogs == []
    assert not problems + problems_b
    ctx_a.close()
    ctx_b.close()


LOBBY_SCENARIO = """async () => {
  const lobby = () => window.__sockets.filter((s) => s.url.endsWith('/ws/lobby'));
  const table = (id, code, names, extra = {}) => ({
    table_id: id, code, game: 'gin', title: 'Gin Rummy', players: 2, free: 1,
    options: { preset: 'standard' }, express: false,
    settings: { turn_time: 30, spectators: true },
    seats: [{ seat: 0, name: names, kind: 'human', taken: true, connected: true },
            { seat: 1, name: null, kind: 'human', taken: false, connected: false }],
    ...extra });
  const rows = () => [...document.querySelectorAll('.open-table')].map((li) => li.dataset.code);
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  const bob = '.open-table[data-code=BBBBBB]';
  const first = lobby()[0];
  first.open();
  const saidOnOpen = [...first.sent];  // the hello the server waits 10 s for (else 4008)
  const both = [table('t_1', 'AAAAAA', 'Ann'), table('t_2', 'BBBBBB', 'Bob')];
  first.receive({ t: 'lobby', v: 1, d: { tables: both } });
  const afterFirst = rows();
  document.querySelector(`${bob} .ot-join`).focus();
  const express = [table('t_2', 'BBBBBB', 'Bob', { express: true })];
  first.receive({ t: 'lobby', v: 2, d: { tables: express } });
  const focusKept = document.activeElement?.closest('.open-table')?.dataset.code;
  const expressShown = document.querySelector(bob).textContent.includes('Express');
  first.receive({ t: 'lobby', v: 1, d: { tables: [] } });          // older than the last: ignored
  const afterStale = rows();
  first.serverClose(1006);
  const reconnecting = document.querySelector('#open-tables-status').textContent;
  await wait(900);                                                   // first retry: 0.25 s ± 25 %
  const second = lobby()[1];
  second?.receive({ t: 'lobby', v: 1, d: { tables: [] } });          // a new socket counts afresh
  return { url: first.url, saidOnOpen, afterFirst, focusKept, express: expressShown, afterStale,
           reconnecting, retried: Boolean(second), afterReconnect: rows(),
           status: document.querySelector('#open-tables-status').textContent,
           empty: !document.querySelector('#open-tables-empty').hidden };
}"""


def first_retry_ms() -> int:
    """The lobby's first reconnect delay before its jitter (lobby.js's FIRST_DELAY)."""
    found = re.search(r"^const FIRST_DELAY = (\d+);", LOBBY_JS.read_text(), re.M)
    assert found, "lobby.js has no FIRST_DELAY"
    return int(found.group(1))


def test_lobby_socket_frames_focus_and_reconnect(browser: Browser, server: WebServer) -> None:
    """lobby.js against a fake socket: full lists, stale frames, focus kept, backoff."""
    context, page = new_page(browser, DESKTOP)
    page.add_init_script(FAKE_WEBSOCKET_JS)
    page.goto(f"{server.base_url}/")
    page.wait_for_selector(".game-choice")
    r = page.evaluate(LOBBY_SCENARIO)
    assert r["url"].endswith("/ws/lobby")
    assert r["saidOnOpen"] == [{"t": "hello"}]
    assert r["afterFirst"] == ["AAAAAA", "BBBBBB"]
    assert r["focusKept"] == "BBBBBB"  # the row stayed: so did the keyboard focus
    assert r["express"] is True
    assert r["afterStale"] == ["BBBBBB"]
    assert "Reconnecting" in r["reconnecting"]
    assert r["retried"] and r["afterReconnect"] == [] and r["status"] == "" and r["empty"]
    # Leaving the page closes the lobby socket (no reconnects behind the table page).
    page.evaluate("() => window.__sockets.find((s) => s.url.endsWith('/ws/lobby')).receive("
                  "{t: 'lobby', v: 9, d: {tables: []}})")
    page.fill("#join-code", "CCCCCC")
    page.click(".join-form button")
    page.wait_for_url("**/t/CCCCCC")
    states = ("() => window.__sockets.filter((s) => s.url.endsWith('/ws/lobby'))"
              ".map((s) => s.readyState)")
    closed = page.evaluate(states)
    assert closed and all(state == 3 for state in closed)
    # A lobby that reconnected would do so at its first retry, at most FIRST_DELAY + 25 %
    # after the close (lobby.js): the page's clock runs past it, that retry's timer fired.
    page_clock(page, first_retry_ms() * 1.25)
    assert page.evaluate(states) == closed  # and no new one
    context.close()
