"""Moderation basics in real Chromium against a real `cardtable serve` (issue 17, item 8):
blocking a player from the table's People panel hides his chat (the lines shown, and the
server sends no more), blocking and reporting from a profile, a report's hostile text
shown back as text and stored as typed, the host's block keeping the blocked player out
of a private table, and the "Hide all chat" switch.

Each browser gets its own player by creating or joining a table with its own cookies
(``page.request``); the seat tokens go in localStorage as the home page would keep them.
Screenshots: artifacts/screenshots/moderation-{table,report,hidden-chat,profile,
private-no-watching}-<size>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from browser_harness import (
    DESKTOP,
    SIZES,
    WebServer,
    frames,
    new_page,
    remember_seat,
    screenshot,
    watch_console,
)
from cardtable.server.moderation import HOST_REFUSES
from cardtable.store import Store, sqlite_url
from db_fixtures import run_async

XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> &amp; bye'
Grant = dict[str, Any]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    server = WebServer(tmp_path_factory.mktemp("moderation-server"))
    server.env.update({"CARDTABLE_JOIN_LIMIT": "1000"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def stored_reports(web: WebServer, reported: str) -> list[tuple[str | None, str, str | None]]:
    async def read() -> list[tuple[str | None, str, str | None]]:
        store = await Store.open(sqlite_url(Path(web.data_dir)))
        try:
            return [(r.reporter_id, r.reason, r.table_code)
                    for r in await store.moderation.reports(reported_id=reported)]
        finally:
            await store.close()

    return run_async(read)  # in a thread: Playwright's loop runs in this one


# -- helpers ---------------------------------------------------------------------------------

# How many block lists the page asked for (GET /api/blocks) and how many came back and
# were taken in (moderation.js says so with a "cardtable:blocks" event, then draws Block
# and Report for a player); see blocks_drawn().
WATCH_BLOCKS = """
window.__blocks = { asked: 0, loaded: 0 };
const pageFetch = window.fetch;
window.fetch = (input, init) => {
  const url = String(input?.url ?? input);
  const method = (init?.method ?? input?.method ?? 'GET').toUpperCase();
  if (method === 'GET' && new URL(url, location.href).pathname === '/api/blocks') {
    window.__blocks.asked += 1;
  }
  return pageFetch(input, init);
};
addEventListener('cardtable:blocks', () => { window.__blocks.loaded += 1; });
"""


def blocks_drawn(page: Page) -> None:
    """Until every block list the page asked for has come back and what it decides (Block
    and Report, or nothing) is drawn: no button of moderation.js is still to come. (On his
    own profile none is asked for: the slot is drawn empty with the profile.)"""
    page.wait_for_function("() => window.__blocks.loaded >= window.__blocks.asked")
    frames(page)



class Person:
    """One browser (its own cookies: its own player) and its page."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.base_url = base_url
        self.context, self.page = new_page(browser, DESKTOP)
        self.problems = watch_console(self.page)
        self.page.add_init_script("window.__pwned = undefined")
        self.page.add_init_script(WATCH_BLOCKS)
        self.page.goto(f"{base_url}/")

    def create(self, name: str, private: bool = True) -> Grant:
        answer = self.page.request.post(f"{self.base_url}/api/tables", data={
            "game": "gin", "opponent": "friend", "name": name,
            "settings": {"turn_time": 0, "private": private}})
        assert answer.status == 201, answer.text()
        grant: Grant = answer.json()
        return grant

    def join(self, code: str, name: str) -> Grant:
        answer = self.page.request.post(f"{self.base_url}/api/tables/{code}/join",
                                        data={"name": name})
        assert answer.status == 200, answer.text()
        grant: Grant = answer.json()
        return grant

    @property
    def player_id(self) -> str:
        me = self.page.request.get(f"{self.base_url}/api/me").json()
        return str(me["player_id"])

    def sit(self, grant: Grant) -> Page:
        remember_seat(self.page, self.base_url, grant)
        self.page.goto(f"{self.base_url}/t/{grant['code']}")
        self.page.wait_for_selector('.conn[data-state="connected"]')
        self.page.wait_for_selector(".seat-chip")
        return self.page

    def close(self) -> None:
        assert not self.problems, self.problems
        assert self.page.evaluate("() => window.__pwned") is None
        self.context.close()


def open_chat(page: Page) -> None:
    if page.get_attribute("#chat-toggle", "aria-expanded") != "true":
        page.click("#chat-toggle")
    page.locator("#chat-panel").wait_for(state="visible")


def say(page: Page, text: str) -> None:
    open_chat(page)
    page.fill("#chat-input", text)
    page.click("#chat-send")


def wait_chat(page: Page, text: str) -> None:
    page.wait_for_function(
        """text => [...document.querySelectorAll('#chat-log .chat-msg:not([hidden]) .chat-text')]
                     .some(e => e.textContent === text)""", arg=text)


def chat_lines(page: Page) -> dict[str, bool]:
    """Every chat line in the page (shown or not): text -> shown."""
    lines = page.eval_on_selector_all(
        "#chat-log .chat-msg", "els => els.map(e => [e.querySelector('.chat-text').textContent,"
                               " !e.hidden])")
    return {str(text): bool(shown) for text, shown in lines}


def open_table_panel(page: Page) -> None:
    if page.get_attribute("#table-toggle", "aria-expanded") != "true":
        page.click("#table-toggle")
    page.locator("#table-panel").wait_for(state="visible")


def shots(page: Page, name: str, element: str | None = None) -> None:
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        if element:
            page.locator(element).scroll_into_view_if_needed()
        screenshot(page, f"{name}-{size}")
    page.set_viewport_size(DESKTOP)


# -- at the table ------------------------------------------------------------------------------


def test_blocking_at_the_table_hides_his_chat(browser: Browser, web: WebServer) -> None:
    ann, bob = Person(browser, web.base_url), Person(browser, web.base_url)
    grant = ann.create("Ann")
    bob_grant = bob.join(grant["code"], "Bob")
    a, b = ann.sit(grant), bob.sit(bob_grant)
    say(b, "hello from Bob")
    wait_chat(a, "hello from Bob")

    open_table_panel(a)
    person = a.locator('#people .person[data-seat="1"]')
    person.wait_for()
    assert person.locator(".person-name").inner_text() == "Bob"
    assert person.locator(".person-name").get_attribute("href") == f"/p/{bob.player_id}"
    assert a.locator('#people .person[data-seat="0"]').count() == 0  # not himself
    a.click("#seat-1-block")
    a.wait_for_selector('#seat-1-block[data-blocked="true"]')
    assert a.inner_text("#seat-1-block") == "Unblock"
    assert "you will not see their chat" in person.locator(".moderation-status").inner_text()
    assert chat_lines(a) == {"hello from Bob": False}  # hidden at once in this page
    shots(a, "moderation-table", "#people")

    say(b, "can you hear me?")
    wait_chat(b, "can you hear me?")
    say(a, "Ann speaking")  # the table handles frames in order: Bob's line came first
    wait_chat(b, "Ann speaking")
    wait_chat(a, "Ann speaking")
    assert "can you hear me?" not in chat_lines(a)  # the server did not even send it

    a.reload()  # the history leaves him out too
    a.wait_for_selector('.conn[data-state="connected"]')
    open_chat(a)
    wait_chat(a, "Ann speaking")
    assert chat_lines(a) == {"Ann speaking": True}

    # Unblocked: he is heard again, at once.
    open_table_panel(a)
    a.click("#seat-1-block")
    a.wait_for_selector('#seat-1-block[data-blocked="false"]')
    say(b, "back again")
    open_chat(a)
    wait_chat(a, "back again")
    ann.close()
    bob.close()


def test_reporting_at_the_table_keeps_the_text_as_text(browser: Browser,
                                                       web: WebServer) -> None:
    ann, bob = Person(browser, web.base_url), Person(browser, web.base_url)
    grant = ann.create("Ann")
    bob.join(grant["code"], "Bob")
    a = ann.sit(grant)
    open_table_panel(a)
    a.click("#seat-1-report")
    a.wait_for_selector("#seat-1-reason")
    a.click("#seat-1-send")  # nothing written yet
    assert a.inner_text("#seat-1-error") == "Say what happened first."
    assert a.get_attribute("#seat-1-reason", "maxlength") == "500"
    a.fill("#seat-1-reason", XSS)
    assert a.inner_text("#seat-1-count") == f"{len(XSS)}/500"
    shots(a, "moderation-report-form", "#people")
    a.click("#seat-1-send")
    sent = a.locator('#people .person[data-seat="1"] .report-sent')
    sent.wait_for()
    assert sent.locator(".report-text").inner_text() == XSS  # shown as text
    assert a.locator("#people img, #people script").count() == 0
    assert a.locator("#seat-1-report").count() == 0  # one report from here is enough
    shots(a, "moderation-report-sent", "#people")
    assert stored_reports(web, bob.player_id) == [(ann.player_id, XSS, grant["code"])]
    ann.close()
    bob.close()


def test_hide_all_chat(browser: Browser, web: WebServer) -> None:
    ann, bob = Person(browser, web.base_url), Person(browser, web.base_url)
    grant = ann.create("Ann")
    a, b = ann.sit(grant), bob.sit(bob.join(grant["code"], "Bob"))
    open_chat(a)
    open_table_panel(a)
    a.check("#hide-chat")
    assert a.locator("#chat-toggle").is_hidden() and a.locator("#chat-panel").is_hidden()
    shots(a, "moderation-hidden-chat")
    say(b, "anyone there?")
    wait_chat(b, "anyone there?")
    assert a.locator("#chat-toggle").is_hidden() and a.locator("#chat-panel").is_hidden()
    a.reload()  # a preference of this browser: it stays
    a.wait_for_selector('.conn[data-state="connected"]')
    a.wait_for_selector(".seat-chip")
    assert a.locator("#chat-toggle").is_hidden()
    open_table_panel(a)
    assert a.is_checked("#hide-chat")
    a.uncheck("#hide-chat")
    a.locator("#chat-toggle").wait_for(state="visible")
    open_chat(a)
    wait_chat(a, "anyone there?")
    ann.close()
    bob.close()


# -- on a profile; a private table -----------------------------------------------------------


def test_blocking_and_reporting_from_a_profile(browser: Browser, web: WebServer) -> None:
    ann, bob = Person(browser, web.base_url), Person(browser, web.base_url)
    ann.create("Ann")
    bob.create(XSS[:24])  # a hostile name, shown as text
    ann_id, bob_id = ann.player_id, bob.player_id
    a = ann.page
    a.goto(f"{web.base_url}/p/{ann_id}")  # his own profile: nothing to block
    a.wait_for_selector("#profile-name")
    blocks_drawn(a)
    assert a.locator("#profile-moderation button").count() == 0

    a.goto(f"{web.base_url}/p/{bob_id}")
    a.wait_for_selector("#profile-block")
    assert a.inner_text("#profile-name") == XSS[:24]
    shots(a, "moderation-profile")
    a.click("#profile-block")
    a.wait_for_selector('#profile-block[data-blocked="true"]')
    a.reload()  # it is the server's: still blocked
    a.wait_for_selector('#profile-block[data-blocked="true"]')

    # Blocked, Bob can neither sit at nor watch Ann's private table; he may sit at her
    # public one.
    private = ann.create("Ann")
    b = bob.page
    b.goto(f"{web.base_url}/t/{private['code']}")
    b.click("#sit-down")
    b.wait_for_function("() => document.querySelector('.form-error')?.textContent")
    assert b.inner_text(".form-error") == HOST_REFUSES
    assert [p for p in bob.problems if "403" not in p] == []  # the refusal, logged
    bob.problems.clear()
    screenshot(b, "moderation-private-refused")
    b.click("#watch")  # nor may he watch it
    b.wait_for_selector("section.lobby h1:text('Cannot join this table')")
    assert "The host of this private table does not take you." in b.inner_text("section.lobby")
    shots(b, "moderation-private-no-watching")
    assert [p for p in bob.problems if "403" not in p] == []
    bob.problems.clear()
    public = ann.create("Ann", private=False)
    b.goto(f"{web.base_url}/t/{public['code']}")
    b.click("#sit-down")
    b.wait_for_selector('.conn[data-state="connected"]')

    a.click("#profile-report")
    a.fill("#profile-reason", "  " + XSS + "\n")
    a.click("#profile-send")
    a.locator(".profile-moderation .report-sent").wait_for()
    assert a.inner_text(".profile-moderation .report-text") == XSS
    shots(a, "moderation-profile-reported")
    a.click("#profile-block")  # unblock
    a.wait_for_selector('#profile-block[data-blocked="false"]')
    assert stored_reports(web, bob_id) == [(ann_id, XSS, None)]
    ann.close()
    bob.close()


def test_a_browser_that_never_sat_down_sees_no_buttons(browser: Browser,
                                                       web: WebServer) -> None:
    ann = Person(browser, web.base_url)
    ann.create("Ann")
    stranger: tuple[BrowserContext, Page] = new_page(browser, DESKTOP)
    context, page = stranger
    page.add_init_script(WATCH_BLOCKS)
    page.goto(f"{web.base_url}/p/{ann.player_id}")
    page.wait_for_selector("#profile-name")
    blocks_drawn(page)
    assert page.locator("#profile-moderation button").count() == 0
    context.close()
    ann.close()
