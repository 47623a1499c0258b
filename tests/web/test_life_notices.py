"""Notices around the board (issue 14), in real Chromium against a real `cardtable serve`:

* a player whose turn timed out is told so plainly, with how many more timeouts before
  the computer takes his seat; the others are told whose time ran out;
* the countdown of a dropped player's held seat counts down, in the chip's text and its
  spoken label, and clears when he is back;
* every change the host makes to the settings is announced to everyone at the table,
  in a live region (read aloud) that floats under the top bar.

The server runs with short clocks: CARDTABLE_TIME_SCALE=0.1 (a 15 s turn lasts 1.5 s) and
CARDTABLE_SEAT_GRACE=8 (a dropped seat is held for eight seconds: long enough to watch the
countdown and come back). Screenshots: artifacts/screenshots/life-<what>-<size>.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from browser_harness import (
    DESKTOP,
    WebServer,
    new_page,
    page_clock,
    resized,
    round_trip,
    screenshot,
    watch_console,
)
from cardtable.server.table.replay import STANDIN_AFTER
from test_accessibility import assert_accessible

PHONE: Any = {"width": 390, "height": 844}
STORAGE_KEY = "cardtable.v1"
WEB = Path(__file__).resolve().parents[2] / "src" / "cardtable" / "web"

# Every notice ever shown, in order (they go away by themselves: a test may look late).
RECORD_NOTICES = """
window.__notices = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.classList?.contains('life-notice')) {
      window.__notices.push({ text: node.textContent, kind: node.dataset.kind });
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = WebServer(tmp_path_factory.mktemp("life-notices-server"))
    server.env.update({"CARDTABLE_TIME_SCALE": "0.1", "CARDTABLE_SEAT_GRACE": "8",
                       "CARDTABLE_JOIN_LIMIT": "1000"})
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


def create_table(base_url: str, settings: dict[str, Any], name: str = "Ann",
                 game: str = "gin") -> dict[str, Any]:
    body = {"game": game, "opponent": "friend", "name": name, "options": {},
            "settings": settings}
    response = httpx.post(f"{base_url}/api/tables", json=body, timeout=10)
    assert response.status_code == 201, response.text
    grant: dict[str, Any] = response.json()
    return grant


def join_table(base_url: str, code: str, name: str) -> dict[str, Any]:
    response = httpx.post(f"{base_url}/api/tables/{code}/join", json={"name": name}, timeout=10)
    assert response.status_code == 200, response.text
    grant: dict[str, Any] = response.json()
    return grant


def seated(browser: Browser, base_url: str, grant: dict[str, Any], viewport: Any = DESKTOP,
           storage: str | None = None) -> tuple[BrowserContext, Page, list[str]]:
    """A new browser in the seat of ``grant`` (or with ``storage``, a saved localStorage)."""
    context, page = new_page(browser, viewport)
    page.add_init_script(RECORD_NOTICES)
    problems = watch_console(page)
    page.goto(f"{base_url}/")
    if storage is None:
        page.evaluate(
            """([key, g]) => localStorage.setItem(key, JSON.stringify({seats: {[g.code]: {
                 table_id: g.table_id, seat: g.seat, token: g.token, at: Date.now()}}}))""",
            [STORAGE_KEY, grant])
    else:
        page.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORAGE_KEY, storage])
    page.goto(f"{base_url}/t/{grant['code']}")
    page.wait_for_selector('.conn[data-state="connected"]')
    page.wait_for_selector(".seat-chip")
    return context, page, problems


def notices(page: Page) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.evaluate("() => window.__notices")
    return found


def wait_notice(page: Page, pattern: str, timeout: float = 15.0) -> str:
    """The first notice shown (now or before) whose text matches ``pattern``."""
    page.wait_for_function(
        "p => window.__notices.some(n => new RegExp(p).test(n.text))", arg=pattern,
        timeout=timeout * 1000)
    return next(n["text"] for n in notices(page) if re.search(pattern, n["text"]))


def notice_landed(page: Page, text: str) -> None:
    """Until a notice saying ``text`` is on screen and has slid in (its animation over)."""
    page.wait_for_function(
        """t => [...document.querySelectorAll('#life-notices .life-notice')]
                 .some(n => n.textContent.includes(t) && !n.getAnimations().length)""",
        arg=text)


def assert_in_live_region(page: Page, text: str) -> None:
    """The notice is on screen, in a live region a screen reader reads out."""
    region = page.locator("#life-notices")
    assert region.get_attribute("role") == "log"
    assert region.get_attribute("aria-live") == "polite"
    item = region.locator(".life-notice", has_text=text).first
    assert item.is_visible()
    # Under the top bar, not over it, and inside the screen's width.
    box = item.bounding_box()
    bar = page.locator(".topbar").bounding_box()
    assert box and bar and box["y"] >= bar["y"] + bar["height"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]  # type: ignore[index]


def test_the_page_and_the_server_agree_on_the_stand_in_count() -> None:
    source = (WEB / "table_life.js").read_text()
    found = re.search(r"export const STANDIN_AFTER = (\d+);", source)
    assert found and int(found.group(1)) == STANDIN_AFTER


def test_a_timed_out_player_is_told_plainly(browser: Browser, base_url: str) -> None:
    ann_grant = create_table(base_url, {"turn_time": 0})
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    ctx_a, ann, problems_a = seated(browser, base_url, ann_grant)
    ctx_b, bob, problems_b = seated(browser, base_url, bob_grant, PHONE)
    pages = {0: ann, 1: bob}
    # Both are here before any clock runs: the host turns it on (15 s: 1.5 s on this server).
    ann.click("#table-toggle")
    ann.select_option("#set-turn-time", "15")
    ann.click("#table-close")

    # Nobody moves: the first seat to act times out and is told so, with the count left.
    ann.wait_for_function(
        "() => [...document.querySelectorAll('.seat-chip')].some(c => Number(c.dataset.timeouts))",
        timeout=15_000)
    first = int(ann.eval_on_selector(".seat-chip[data-timeouts='1']",
                                     "el => Number(el.dataset.seat)"))
    late, other = pages[first], pages[1 - first]
    left = STANDIN_AFTER - 1
    mine = wait_notice(late, "^Your turn timed out")
    assert mine == ("Your turn timed out: the computer played for you. "
                    f"{left} more timeouts and the computer plays your seat until you are back.")
    notice_landed(late, "Your turn timed out")
    assert_in_live_region(late, "Your turn timed out")
    assert_accessible(late, "a timeout notice", {"include": [["#life-notices"], [".topbar"]]})
    screenshot(late, f"life-timeout-{'desktop' if late is ann else 'phone'}")
    name = "Ann" if first == 0 else "Bob"
    theirs = wait_notice(other, f"^Time ran out for {name}")
    assert theirs == f"Time ran out for {name}: the computer played that turn."
    # The same notice at the other size, for the pictures.
    resized(late, DESKTOP if late is bob else PHONE)
    if late.locator("#life-notices .notice-timeout").count():
        screenshot(late, f"life-timeout-{'desktop' if late is bob else 'phone'}")

    # The last one before the computer takes over says so; then the banner is up.
    final = wait_notice(late, "now plays your seat", timeout=40)
    assert final.startswith("Your turn timed out: the computer played for you.")
    late.locator("#standin-banner").wait_for()
    counts = [n["text"] for n in notices(late) if n["kind"] == "timeout"]
    assert len(counts) == STANDIN_AFTER, counts
    assert "1 more timeout and" in counts[STANDIN_AFTER - 2]
    assert not problems_a + problems_b, problems_a + problems_b
    ctx_a.close()
    ctx_b.close()


def test_a_held_seat_counts_down_and_clears_when_he_is_back(browser: Browser,
                                                           base_url: str) -> None:
    ann_grant = create_table(base_url, {"turn_time": 0})
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    ctx_a, ann, problems = seated(browser, base_url, ann_grant)
    ctx_b, bob, _ = seated(browser, base_url, bob_grant, PHONE)
    bob_chip = '.seat-chip[data-seat="1"]'
    ann.wait_for_selector(f"{bob_chip}:not(.away)")
    stored = bob.evaluate("key => localStorage.getItem(key)", STORAGE_KEY)
    ctx_b.close()  # Bob's phone drops

    countdown = ann.locator(f"{bob_chip} .reconnecting")
    countdown.wait_for(timeout=10_000)

    def shown() -> tuple[int, str]:
        text = countdown.inner_text()
        match = re.fullmatch(r"reconnecting… 0:0(\d)", text)
        assert match, text
        return int(match.group(1)), ann.get_attribute(bob_chip, "aria-label") or ""

    seconds, label = shown()
    assert 5 <= seconds <= 8 and f"reconnecting, {seconds} seconds left" in label, label
    screenshot(ann, "life-reconnect-desktop")
    assert_accessible(ann, "a held seat's chip", {"include": [[".topbar"]]})
    resized(ann, PHONE)
    ann.wait_for_function(  # the countdown ticks on (clock.js repaints it four times a second)
        "([sel, s]) => Number(document.querySelector(sel)?.dataset.left) < s",
        arg=[f"{bob_chip} .reconnecting", seconds])
    later, later_label = shown()
    assert later < seconds, (seconds, later)  # the text counts down...
    assert f"reconnecting, {later} second" in later_label, later_label  # ...and so does the label
    screenshot(ann, "life-reconnect-phone")
    resized(ann, DESKTOP)

    # Bob is back from another browser before the deadline: no countdown, no stand-in.
    ctx_c, _, problems_c = seated(browser, base_url, bob_grant, PHONE, storage=stored)
    ann.wait_for_function(
        """s => { const c = document.querySelector(s);
                  return c && !c.classList.contains('away') &&
                         !c.querySelector('.reconnecting'); }""",
        arg=bob_chip, timeout=10_000)
    assert "reconnecting" not in (ann.get_attribute(bob_chip, "aria-label") or "")
    assert not ann.get_attribute(bob_chip, "data-standin")
    # And it stays gone (no stale countdown redrawn): every frame the server had for Ann is
    # drawn (a round trip), and the page's clock runs a second on, past four ticks of its
    # countdowns (clock.js: every 250 ms).
    round_trip(ann)
    page_clock(ann, 1000)
    assert ann.locator(f"{bob_chip} .reconnecting").count() == 0
    assert not problems + problems_c, problems + problems_c
    ctx_a.close()
    ctx_c.close()


def test_the_hosts_changes_are_announced_to_everyone(browser: Browser, base_url: str) -> None:
    ann_grant = create_table(base_url, {"turn_time": 0})
    ctx_a, ann, problems = seated(browser, base_url, ann_grant)
    ctx_c, cleo = new_page(browser, DESKTOP)
    cleo.add_init_script(RECORD_NOTICES)
    problems += watch_console(cleo)
    cleo.goto(f"{base_url}/t/{ann_grant['code']}")
    cleo.click("#watch")
    cleo.wait_for_selector('.conn[data-state="connected"]')
    ann.wait_for_function(
        "() => document.querySelector('#spectator-count')?.textContent === '1 watching'")

    # The rules, while a seat is free: express, then another preset.
    ann.click("#table-toggle")
    ann.locator("#set-express").wait_for()
    ann.click("#set-express")
    assert wait_notice(cleo, "express") == "Ann made the match express: one hand."
    presets = ann.eval_on_selector_all("#set-preset option", "els => els.map(e => e.value)")
    other = next(p for p in presets if p and p != ann.input_value("#set-preset"))
    ann.select_option("#set-preset", other)
    text = wait_notice(cleo, "changed the rules")
    words = other.replace("_", " ")
    assert text.lower() == f"ann changed the rules to {words}, express: one hand.", text

    # Bob sits down (nothing announced), then the host changes the table's settings.
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    ctx_b, bob, problems_b = seated(browser, base_url, bob_grant, PHONE)
    bob.wait_for_selector(".board [data-phase]")
    assert notices(bob) == []
    ann.select_option("#set-turn-time", "30")
    said = "Ann set the turn time to 30 seconds."
    for page in (bob, cleo):
        assert wait_notice(page, "turn time") == said
    assert wait_notice(ann, "turn time") == "You set the turn time to 30 seconds."
    notice_landed(bob, said)
    assert_in_live_region(bob, said)
    assert_in_live_region(ann, "You set the turn time")
    screenshot(bob, "life-settings-phone")
    screenshot(ann, "life-settings-desktop")

    ann.click("#set-public")
    assert wait_notice(bob, "lobby") == "Ann listed the table in the public lobby."
    ann.click("#set-spectator-chat")
    assert wait_notice(cleo, "chat") == "Ann turned the spectators' chat off."
    # The host closes the table to spectators: the players are told (Cleo is shown out).
    ann.click("#set-spectators")
    assert wait_notice(bob, "closed") == "Ann closed the table to spectators."
    # One notice per change, none repeated (3 s turns here: Bob's timeouts are told apart).
    texts = [n["text"] for n in notices(bob) if n["kind"] == "settings"]
    assert len(texts) == len(set(texts)) == 4, texts
    assert not problems + problems_b, problems + problems_b
    for c in (ctx_a, ctx_b, ctx_c):
        c.close()


NEWS_SCENARIO = """async () => {
  const { settingsNews } = await import('/static/table_settings.js');
  const seats = [{ seat: 0, kind: 'human', taken: true, name: 'Ann' },
                 { seat: 1, kind: 'bot', taken: true, name: 'Computer' },
                 { seat: 2, kind: 'human', taken: false, name: null }];
  const names = { 0: 'Ann', 1: 'Computer', 2: 'Seat 3' };
  const ctx = { seat: 2, seats, seatName: (s) => names[s] };
  const game = { presets: ['standard', 'fast'], express: { deals: 1 },
                 preset_values: { standard: { target: 100, deals: 0 },
                                  fast: { target: 50, deals: 0 } } };
  const base = { host: 0, express: false, options: { target: 100, deals: 0 },
                 settings: { turn_time: 0, private: true, spectators: true, spectator_chat: true,
                             levels: ['normal', 'normal', 'normal'] } };
  const change = (settings, rest = {}) =>
    ({ ...base, ...rest, settings: { ...base.settings, ...settings } });
  return [
    settingsNews(base, base, ctx, game),
    settingsNews(base, change({ turn_time: 60, spectators: false }), ctx, game),
    settingsNews(base, change({ turn_time: 0, levels: ['normal', 'easy', 'easy'] }), ctx, game),
    settingsNews(change({ turn_time: 15, private: false }), change({ spectator_chat: false }),
                 ctx, game),
    settingsNews(base, change({}, { options: { target: 50, deals: 0 } }), ctx, game),
    settingsNews(base, change({}, { options: { target: 100, deals: 1 }, express: true }),
                 ctx, game),
    settingsNews(base, change({}, { options: { target: 75, deals: 0 } }), ctx, game),
    settingsNews(base, change({}, { options: { target: 75, deals: 0 } }), ctx, null),
    settingsNews(base, change({ turn_time: 15 }, { host: 2 }), ctx, game),
  ];
}"""


def test_the_words_of_each_setting(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    assert page.evaluate(NEWS_SCENARIO) == [
        None,
        "Ann set the turn time to 60 seconds and closed the table to spectators.",
        "Ann set Computer to easy and set the computer for seat 3 to easy.",
        "Ann turned the turn timer off, took the table out of the public lobby and "
        "turned the spectators' chat off.",
        "Ann changed the rules to Fast.",
        "Ann made the match express: one hand.",
        "Ann changed the rules.",
        "Ann changed the rules.",
        "Seat 3 set the turn time to 15 seconds.",
    ]
    context.close()
