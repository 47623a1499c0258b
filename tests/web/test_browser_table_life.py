"""Table life in real Chromium against a real `cardtable serve`: turn clocks and the
server's automatic moves, a dropped player's seat held, played by the computer and
taken back from another browser, chat (hostile text, limits, muting), host settings,
spectators, ending a match by agreement and leaving on purpose.

Tables are made over HTTP (with their settings) and the seat tokens put in each
browser's localStorage, as the home page would; after that everything is clicks.
The server runs with short clocks: CARDTABLE_TIME_SCALE=0.1 (a 15 s turn lasts
1.5 s) and CARDTABLE_SEAT_GRACE=1 (a dropped seat is held for one second).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Dialog, Page

from browser_harness import (
    DESKTOP,
    FAKE_WEBSOCKET_JS,
    PHONE_LANDSCAPE,
    STORAGE_KEY,
    WebServer,
    new_page,
    remember_seat,
    round_trip,
    screenshot,
    script_left_to_run,
    watch_console,
)

NO_TIMER = {"turn_time": 0}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = WebServer(tmp_path_factory.mktemp("table-life-server"))
    server.env.update({"CARDTABLE_TIME_SCALE": "0.1", "CARDTABLE_SEAT_GRACE": "1",
                       "CARDTABLE_JOIN_LIMIT": "1000"})
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


# -- helpers ---------------------------------------------------------------------------------


def create_table(base_url: str, name: str = "Ann", settings: dict[str, Any] | None = None,
                 game: str = "gin", options: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"game": game, "opponent": "friend", "name": name, "options": options or {},
            "settings": settings if settings is not None else NO_TIMER}
    response = httpx.post(f"{base_url}/api/tables", json=body, timeout=10)
    assert response.status_code == 201, response.text
    grant: dict[str, Any] = response.json()
    return grant


def join_table(base_url: str, code: str, name: str) -> dict[str, Any]:
    response = httpx.post(f"{base_url}/api/tables/{code}/join", json={"name": name}, timeout=10)
    assert response.status_code == 200, response.text
    grant: dict[str, Any] = response.json()
    return grant


def table_info(base_url: str, code: str) -> dict[str, Any]:
    info: dict[str, Any] = httpx.get(f"{base_url}/api/tables/{code}", timeout=10).json()
    return info


def seated_page(browser: Browser, base_url: str, grant: dict[str, Any],
                viewport: Any = DESKTOP) -> tuple[BrowserContext, Page, list[str]]:
    """A new browser (context) sitting in the seat of ``grant``."""
    context, page = new_page(browser, viewport)
    problems = watch_console(page)
    remember_seat(page, base_url, grant)
    page.goto(f"{base_url}/t/{grant['code']}")
    wait_connected(page)
    return context, page, problems


def wait_connected(page: Page) -> None:
    page.wait_for_selector('.conn[data-state="connected"]')
    page.wait_for_selector(".seat-chip")
    page.wait_for_function("() => document.querySelector('.table-page')?.dataset.version")


def version(page: Page) -> int:
    return int(page.get_attribute(".table-page", "data-version") or -1)


def chip(page: Page, seat: int) -> str:
    return f'.seat-chip[data-seat="{seat}"]'


def open_chat(page: Page) -> None:
    if page.get_attribute("#chat-toggle", "aria-expanded") != "true":
        page.click("#chat-toggle")
    page.locator("#chat-panel").wait_for(state="visible")


def say(page: Page, text: str) -> None:
    open_chat(page)
    page.fill("#chat-input", text)
    page.click("#chat-send")


def chat_texts(page: Page) -> list[str]:
    return [str(t) for t in page.eval_on_selector_all(
        "#chat-log .chat-msg:not([hidden]) .chat-text", "els => els.map(e => e.textContent)")]


def wait_chat(page: Page, text: str, timeout: float = 10.0) -> None:
    page.wait_for_function(
        """text => [...document.querySelectorAll('#chat-log .chat-msg:not([hidden]) .chat-text')]
                     .some(e => e.textContent === text)""", arg=text, timeout=timeout * 1000)


def open_table_panel(page: Page) -> None:
    if page.get_attribute("#table-toggle", "aria-expanded") != "true":
        page.click("#table-toggle")
    page.locator("#table-panel").wait_for(state="visible")


# -- (a) a turn timer runs out -----------------------------------------------------------


BACK_IN_HANDS_JS = """() => {
  // Seats seen standing in for timeouts and then back in their player's hands, the banner
  // gone: recorded as the page draws each frame, so a check made later still sees it
  // (on a loaded machine the clock may run out on him again before a poll would look).
  window.__backInHands = new Set();
  const stoodIn = new Set();
  const look = () => {
    for (const chip of document.querySelectorAll('.seat-chip[data-seat]')) {
      const seat = Number(chip.dataset.seat);
      if (chip.dataset.standin === 'timeouts') stoodIn.add(seat);
      else if (stoodIn.has(seat) && !chip.dataset.standin
               && !document.querySelector('#standin-banner')) window.__backInHands.add(seat);
    }
  };
  new MutationObserver(look).observe(document.body,
    { subtree: true, childList: true, attributes: true });
}"""


def test_a_turn_timer_runs_out_and_the_server_moves(browser: Browser, base_url: str) -> None:
    # A long match: once both idle seats stand in, the computers play it out quickly.
    ann_grant = create_table(base_url, "Ann", {"turn_time": 15}, options={"target": 500})
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    ctx_a, ann, problems_a = seated_page(browser, base_url, ann_grant)
    ctx_b, bob, problems_b = seated_page(browser, base_url, bob_grant, PHONE_LANDSCAPE)
    for each in (ann, bob):
        each.evaluate(BACK_IN_HANDS_JS)

    # Someone is to act with a clock running: the countdown is on his seat chip.
    # (Seat and text read in one go: at 1.5 s a turn the clock may move on between reads.)
    seat, text = ann.wait_for_function("""() => {
        const clock = document.querySelector('.seat-chip .turn-clock');
        return clock && [Number(clock.closest('.seat-chip').dataset.seat), clock.textContent];
      }""").json_value()
    assert ann.inner_text("#turn-time-tag") == "15 s turns"
    assert seat in (0, 1)
    assert text.startswith("0:0"), text  # 15 s × 0.1 = 1.5 s: "0:02" or "0:01"
    bob.locator(f"{chip(bob, seat)} .turn-clock").wait_for()  # Bob sees that seat's clock
    screenshot(ann, "life-turn-clock")

    # Nobody moves: the server's automatic move comes (the view changes, the timeout counts).
    before = version(ann)
    ann.wait_for_function("v => Number(document.querySelector('.table-page').dataset.version) > v",
                          arg=before, timeout=30_000)
    ann.wait_for_function(
        """() => [...document.querySelectorAll('.seat-chip')]
                   .some(c => Number(c.dataset.timeouts) > 0)""", timeout=30_000)
    assert ann.locator(".seat-chip .timeouts").count() >= 1

    # Three timeouts in the match: the computer stands in, and that player sees the banner.
    ann.wait_for_function(
        "() => document.querySelector('.seat-chip[data-standin=\"timeouts\"]')", timeout=30_000)
    idle = int(ann.eval_on_selector('.seat-chip[data-standin="timeouts"]',
                                    "el => Number(el.dataset.seat)"))
    page = ann if idle == 0 else bob
    banner = page.locator("#standin-banner")
    banner.wait_for(state="visible")
    assert "The computer is playing for you" in banner.inner_text()
    screenshot(page, "life-standin-banner")
    page.click("#resume")
    # Back in his hands (the clock may run out on him again soon after: the page noted it).
    page.wait_for_function("s => window.__backInHands.has(s)", arg=idle)
    assert not problems_a + problems_b, problems_a + problems_b
    ctx_a.close()
    ctx_b.close()


# -- (b) disconnect → computer → reclaim from another browser ----------------------------


def test_b_a_dropped_seat_goes_to_the_computer_and_comes_back(browser: Browser,
                                                              base_url: str) -> None:
    ann_grant = create_table(base_url, "Ann")
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    ctx_a, ann, problems = seated_page(browser, base_url, ann_grant)
    ctx_b, bob, _ = seated_page(browser, base_url, bob_grant)
    ann.wait_for_selector(f"{chip(ann, 1)}:not(.away)")
    stored = bob.evaluate("key => localStorage.getItem(key)", STORAGE_KEY)
    ctx_b.close()  # Bob's browser is gone

    # Ann sees the seat held ("reconnecting… 0:01"), then a computer playing it.
    ann.locator(f"{chip(ann, 1)} .reconnecting").wait_for(state="attached", timeout=10_000)
    ann.locator(f"{chip(ann, 1)} .standin-tag").wait_for(timeout=10_000)
    assert "computer playing" in ann.inner_text(chip(ann, 1))
    assert ann.get_attribute(chip(ann, 1), "data-standin") == "disconnected"
    screenshot(ann, "life-standin-disconnected")

    # Bob comes back from a new browser with the token he had: same seat, no stand-in.
    ctx_c, bob2 = new_page(browser, DESKTOP)
    problems += watch_console(bob2)
    bob2.goto(f"{base_url}/")
    bob2.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORAGE_KEY, stored])
    bob2.goto(f"{base_url}/t/{ann_grant['code']}")
    wait_connected(bob2)
    bob2.wait_for_selector(f"{chip(bob2, 1)}.me")
    bob2.wait_for_selector(".gin .hand-card")
    ann.wait_for_function(
        """() => { const c = document.querySelector('.seat-chip[data-seat="1"]');
                   return !c.dataset.standin && !c.classList.contains('away'); }""")
    assert ann.locator(f"{chip(ann, 1)} .standin-tag").count() == 0
    assert bob2.locator("#standin-banner").count() == 0
    info = table_info(base_url, ann_grant["code"])
    assert info["seats"][1]["standin"] is None and info["seats"][1]["connected"]
    assert not problems, problems
    ctx_a.close()
    ctx_c.close()


# -- (c) hostile chat text stays text --------------------------------------------------------

XSS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "javascript:alert(1)",
    '<a href="javascript:alert(1)">x</a>',
    "{{7*7}} ${7*7}",
    "</textarea><script>alert(document.cookie)</script>",
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "&lt;b&gt;bold?&lt;/b&gt; &amp;",
    "<style>body{display:none}</style>" + "x" * 267,  # exactly 300 characters
]


def test_c_hostile_chat_is_shown_as_text(browser: Browser, base_url: str) -> None:
    assert len(XSS[-1]) == 300
    # Bob's name is hostile too (names go through the same textContent path).
    ann_grant = create_table(base_url, "Ann")
    bob_grant = join_table(base_url, ann_grant["code"], "<svg onload=alert(1)>")
    ctx_a, ann, problems_a = seated_page(browser, base_url, ann_grant)
    ctx_b, bob, problems_b = seated_page(browser, base_url, bob_grant)
    dialogs: list[str] = []

    def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    for page in (ann, bob):
        page.on("dialog", on_dialog)
        open_chat(page)

    # Five each: the server allows five messages in ten seconds.
    for i, text in enumerate(XSS):
        say(ann if i % 2 == 0 else bob, text)
        wait_chat(ann, text)
    for page in (ann, bob):
        for text in XSS:
            wait_chat(page, text)
        assert chat_texts(page) == XSS
        injected = page.eval_on_selector_all(
            "#chat-log script, #chat-log img, #chat-log svg, #chat-log iframe, #chat-log a, "
            "#chat-log style, #chat-log b", "els => els.length")
        assert injected == 0
        assert page.evaluate("() => document.querySelectorAll('iframe, body > script').length") == 0
    names = ann.eval_on_selector_all("#chat-log .chat-name", "els => els.map(e => e.textContent)")
    assert "<svg onload=alert(1)>" in names and "You" in names
    assert "<svg onload=alert(1)>" in ann.inner_text(chip(ann, 1))
    assert ann.is_visible(".seat-chips")  # the <style> payload did not hide the page
    screenshot(ann, "life-chat-xss")
    # Every text is drawn, as text: nothing in either page could still run a handler one
    # carried (an alert from one that ran at once would be in `dialogs` by now).
    for page in (ann, bob):
        assert script_left_to_run(page) == [], page.url
    assert dialogs == []
    assert not problems_a + problems_b, problems_a + problems_b
    ctx_a.close()
    ctx_b.close()


# -- (d) chat limits and muting --------------------------------------------------------------


def test_d_chat_limits_and_mute(browser: Browser, base_url: str) -> None:
    ann_grant = create_table(base_url, "Ann")
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    ctx_a, ann, problems = seated_page(browser, base_url, ann_grant)
    ctx_b, bob, _ = seated_page(browser, base_url, bob_grant)
    open_chat(ann)

    # Too long cannot be typed: the field stops at 300 and counts.
    assert ann.get_attribute("#chat-input", "maxlength") == "300"
    ann.click("#chat-input")
    ann.keyboard.insert_text("y" * 310)
    ann.locator("#chat-input").press("End")
    ann.type("#chat-input", "zz")
    assert len(ann.input_value("#chat-input")) == 300
    assert ann.inner_text("#chat-count") == "300/300"

    # The same message twice: the server's reason shows next to the input.
    say(ann, "hello there")
    wait_chat(bob, "hello there")
    say(ann, "hello there")
    error = ann.locator("#chat-error")
    error.wait_for(state="visible")
    assert error.inner_text().strip()
    repeat_reason = error.inner_text()
    assert ann.input_value("#chat-input") == "hello there"  # the refused text is given back
    # Quick phrases, then more than five in ten seconds: refused for the rate.
    for phrase in ("Good game", "Nice play", "Hurry up?"):
        ann.click(f'.quick-phrase:text-is("{phrase}")')
        wait_chat(bob, phrase)
    refused = None
    for n in range(1, 5):
        say(ann, f"message {n}")
        ann.wait_for_function(
            """([text, r]) => [...document.querySelectorAll('#chat-log .chat-text')]
                                .some(e => e.textContent === text) ||
                              (document.querySelector('#chat-error').textContent || r) !== r""",
            arg=[f"message {n}", repeat_reason])
        if ann.inner_text("#chat-error") not in ("", repeat_reason):
            refused = n
            break
    assert refused is not None and refused <= 2, refused  # the 6th in ten seconds at the latest
    # The server has refused it (Ann has the reason): a ping from Bob now is answered after
    # anything it sent him before, so the refused message would have reached him.
    round_trip(bob)
    assert f"message {refused}" not in chat_texts(bob)
    screenshot(ann, "life-chat-limits")

    # Ann mutes Bob: his next message does not reach her (it does reach himself).
    say(bob, "first from bob")
    wait_chat(ann, "first from bob")
    ann.click('#chat-log .chat-msg[data-seat="1"] .chat-mute')
    ann.wait_for_selector('#chat-log .chat-msg[data-seat="1"]', state="hidden")
    ann.locator('.chat-unmute[data-seat="1"]').wait_for()
    say(bob, "you cannot hear me")
    wait_chat(bob, "you cannot hear me")
    # Remembered: after a reload the mute is sent again.
    ann.reload()
    wait_connected(ann)
    open_chat(ann)
    say(bob, "still muted?")
    wait_chat(bob, "still muted?")
    # The server has handled it (Bob has it back): a ping from Ann now is answered after
    # anything it sent her before, so Bob's message would have reached her.
    round_trip(ann)
    seen = chat_texts(ann)
    assert "you cannot hear me" not in seen and "still muted?" not in seen
    assert "first from bob" not in seen  # what he said before is hidden too
    # Unmute: Bob is heard again.
    ann.click('.chat-unmute[data-seat="1"]')
    ann.locator('.chat-unmute[data-seat="1"]').wait_for(state="detached")
    say(bob, "welcome back")
    wait_chat(ann, "welcome back")
    assert not problems, problems
    ctx_a.close()
    ctx_b.close()


# -- (e) host settings, spectators --------------------------------------------------------


def test_e_host_settings_and_spectators(browser: Browser, base_url: str) -> None:
    ann_grant = create_table(base_url, "Ann")
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    code = ann_grant["code"]
    ctx_a, ann, problems = seated_page(browser, base_url, ann_grant)
    ctx_b, bob, _ = seated_page(browser, base_url, bob_grant)

    # Bob is no host: he reads the settings.
    open_table_panel(bob)
    assert bob.locator("#set-turn-time").count() == 0
    assert bob.inner_text('#settings-summary dd[data-setting="turn-time"]') == "Off"
    # Ann sets a minute a turn; Bob's page shows it.
    open_table_panel(ann)
    ann.select_option("#set-turn-time", "60")
    bob.wait_for_function("() => document.querySelector("
                          "'dd[data-setting=\"turn-time\"]')?.textContent === '60 seconds'")
    bob.locator("#turn-time-tag").wait_for(state="visible")
    assert bob.inner_text("#turn-time-tag") == "60 s turns"
    assert table_info(base_url, code)["settings"]["turn_time"] == 60
    screenshot(ann, "life-host-settings")

    # A spectator comes: both players see "1 watching"; the spectator sees players' chat.
    ctx_c, cleo = new_page(browser, DESKTOP)
    problems += watch_console(cleo)
    cleo.goto(f"{base_url}/t/{code}")
    cleo.click("#watch")
    wait_connected(cleo)
    for page in (ann, bob):
        page.wait_for_function(
            "() => document.querySelector('#spectator-count')?.textContent === '1 watching'")
    say(ann, "hi all")
    wait_chat(cleo, "hi all")
    assert cleo.inner_text('#chat-log .chat-msg[data-seat="0"] .chat-tag') == "player"
    say(cleo, "spectators only")
    wait_chat(cleo, "spectators only")
    # The server has handled it (Cleo has it back): a ping from Ann now is answered after
    # anything it sent her before, so Cleo's message would have reached her.
    round_trip(ann)
    assert "spectators only" not in chat_texts(ann)

    # The host closes the table to spectators: Cleo is shown out.
    open_table_panel(ann)  # the chat drawer had taken its place
    ann.uncheck("#set-spectators")
    cleo.wait_for_selector("text=does not allow spectators")
    for page in (ann, bob):
        page.locator("#spectator-count").wait_for(state="hidden")
    assert not problems, problems
    for c in (ctx_a, ctx_b, ctx_c):
        c.close()


def test_e_host_changes_the_rules_then_starts_with_computers(browser: Browser,
                                                             base_url: str) -> None:
    ann_grant = create_table(base_url, "Ann")
    code = ann_grant["code"]
    ctx_a, ann, problems = seated_page(browser, base_url, ann_grant)
    assert not table_info(base_url, code)["express"]
    open_table_panel(ann)
    ann.locator("#set-express").wait_for()
    ann.check("#set-express")
    ann.wait_for_function("() => document.querySelector('#set-express')?.checked")
    round_trip(ann)  # the server has handled the change the box sent
    assert table_info(base_url, code)["express"], "express did not reach the table"
    # Start with computers (from the invite panel): the free seat gets a computer.
    ann.click("#start-computers")
    ann.wait_for_selector(f"{chip(ann, 1)} .bot-tag")
    ann.locator("#invite-link").wait_for(state="hidden")
    info = table_info(base_url, code)
    assert info["seats"][1]["kind"] == "bot" and info["status"] == "playing"
    assert not problems, problems
    ctx_a.close()


# -- ending by agreement, leaving on purpose --------------------------------------------------


def test_end_by_agreement_and_leave(browser: Browser, base_url: str) -> None:
    ann_grant = create_table(base_url, "Ann")
    bob_grant = join_table(base_url, ann_grant["code"], "Bob")
    code = ann_grant["code"]
    ctx_a, ann, problems = seated_page(browser, base_url, ann_grant)
    ctx_b, bob, _ = seated_page(browser, base_url, bob_grant)

    open_table_panel(ann)
    ann.click("#propose-end")
    banner = bob.locator("#end-banner")
    banner.wait_for()
    assert "Ann proposes to end the match unscored" in banner.inner_text()
    assert "waiting for Bob" in ann.inner_text("#end-banner")
    # Declined: the votes are cleared; proposed again and agreed: the match ends.
    bob.click("#end-decline")
    ann.locator("#end-banner").wait_for(state="hidden")
    open_table_panel(ann)
    ann.click("#propose-end")
    bob.click("#end-agree")
    for page in (ann, bob):
        page.locator("#ended-banner").wait_for()
        assert "Match ended by agreement (not scored)" in page.inner_text("#ended-banner")
        assert page.locator("#rematch, #life-rematch").count() >= 1
    screenshot(bob, "life-ended-by-agreement")

    # Bob leaves on purpose (with a confirmation): home, seat forgotten, a computer in it.
    open_table_panel(bob)
    bob.click("#leave-table")
    bob.click("#leave-cancel")
    bob.click("#leave-table")
    bob.click("#leave-confirm")
    bob.wait_for_url(f"{base_url}/")
    stored = json.loads(bob.evaluate("key => localStorage.getItem(key)", STORAGE_KEY) or "{}")
    assert code not in stored.get("seats", {})
    ann.wait_for_function(
        """() => { const c = document.querySelector('.seat-chip[data-seat="1"]');
                   return c && (c.dataset.standin === 'left' || c.querySelector('.bot-tag')); }""")
    assert not problems, problems
    ctx_a.close()
    ctx_b.close()


# -- net.js against a fake socket: the new frames ---------------------------------------------

NET_LIFE_SCENARIO = """async () => {
  const { TableSocket } = await import('/static/net.js');
  const log = [];
  const on = {
    status: (state) => log.push(['status', state]),
    table: (d, v) => log.push(['table', v]),
    chat: (d) => log.push(['chat', d.id]),
    chatHistory: (d) => log.push(['history', d.messages.length]),
    left: () => log.push(['left']),
    fatal: (message, code) => log.push(['fatal', code]),
  };
  const base = window.__sockets.length;          // the home page may have its own (lobby)
  const socket = new TableSocket('t_1', { token: 'tok' }, on);
  socket.connect();
  const ws = window.__sockets[base];
  ws.open();
  const early = socket.chat('too early');       // not welcomed yet: not sent
  ws.receive({ t: 'welcome', v: 2, d: { seat: 0, role: 'player', table: {} } });
  ws.receive({ t: 'view', v: 2, d: { view: {}, events: [] } });
  ws.receive({ t: 'chat_history', v: 2, d: { messages: [{ id: 1 }, { id: 2 }] } });
  socket.settings({ turn_time: 15 });
  socket.settings({}, { preset: 'standard', deals: 1 });
  socket.start();
  socket.chat('gg');
  socket.mute(1, true);
  socket.resume();
  socket.end(true);
  socket.end(false);
  socket.leave();
  ws.receive({ t: 'chat', v: 2, d: { id: 3 } });
  ws.receive({ t: 'table', v: 2, d: {} });
  const sent = ws.sent.slice(1);
  ws.receive({ t: 'left', v: 2, d: { seat: 0 } });
  ws.serverClose(1000);                         // the server closes after "left"
  socket.retryNow();
  const afterLeft = window.__sockets.length - base;
  // A spectator refused: close 4005 is final.
  const watcher = new TableSocket('t_1', { spectate: true, name: 'Zoe' }, on);
  watcher.connect();
  const ws2 = window.__sockets[window.__sockets.length - 1];
  ws2.open();
  const hello = ws2.sent[0];
  ws2.serverClose(4005);
  watcher.retryNow();
  return { early, sent, log, afterLeft, hello, total: window.__sockets.length - base };
}"""


def test_net_sends_the_table_life_frames(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    page.add_init_script(FAKE_WEBSOCKET_JS)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    r = page.evaluate(NET_LIFE_SCENARIO)
    assert r["early"] is False
    assert r["sent"] == [
        {"t": "settings", "d": {"settings": {"turn_time": 15}}},
        {"t": "settings", "d": {"settings": {}, "options": {"preset": "standard", "deals": 1}}},
        {"t": "start"},
        {"t": "chat", "d": {"text": "gg"}},
        {"t": "mute", "d": {"seat": 1, "muted": True}},
        {"t": "resume"},
        {"t": "end", "d": {"agree": True}},
        {"t": "end", "d": {"agree": False}},
        {"t": "leave"},
    ]
    log = r["log"]
    assert ["history", 2] in log and ["chat", 3] in log and ["table", 2] in log
    assert ["left"] in log
    assert r["afterLeft"] == 1  # no reconnect after leaving
    assert r["hello"] == {"t": "hello", "d": {"spectate": True, "name": "Zoe"}}
    assert ["fatal", 4005] in log
    assert r["total"] == 2  # nor after a refused spectator
    context.close()


CHAT_MERGE_SCENARIO = """async () => {
  const { createChat } = await import('/static/chat.js');
  const ctx = { seat: 0, role: 'player', seats: [], table: {}, seatName: (s) => `Seat ${s + 1}` };
  const chat = createChat(ctx, { code: 'TEST', send: () => true, mute: () => true });
  document.body.append(chat.panel);
  const m = (id, text) => ({ id, channel: 'players', seat: 1, name: 'Bob', text, at: 0 });
  chat.history({ messages: [m(1, 'one'), m(2, 'two')] });
  chat.message(m(4, 'four'));
  chat.history({ messages: [m(2, 'two'), m(3, 'three'), m(4, 'four')] });  // after a reconnect
  chat.message(m(4, 'four'));
  return [...chat.panel.querySelectorAll('.chat-msg .chat-text')].map((e) => e.textContent);
}"""


def test_chat_history_merges_without_duplicates(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    assert page.evaluate(CHAT_MERGE_SCENARIO) == ["one", "two", "three", "four"]
    context.close()
