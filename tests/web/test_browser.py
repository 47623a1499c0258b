"""The browser client in real Chromium against a real `cardtable serve`.

Everything is done by clicks and keys, as a player would; screenshots of the
key moments go to artifacts/screenshots/ for a human to look at.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    DESKTOP,
    FAKE_WEBSOCKET_JS,
    PHONE_LANDSCAPE,
    SIZES,
    GinPlayer,
    WebServer,
    new_page,
    screenshot,
    table_code,
    watch_console,
    whose_turn,
)


def start_against_computer(page: Page, base_url: str, name: str,
                           target: int | None = None) -> None:
    page.goto(f"{base_url}/")
    page.wait_for_selector("#play-computer:enabled")
    page.wait_for_selector(".game-choice")
    page.fill("#guest-name", name)
    if target is not None:
        page.click("details.options summary")
        page.fill("#opt-target", str(target))
    page.click("#play-computer")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".gin .hand-card")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_hand_against_the_computer_by_clicks(browser: Browser, base_url: str,
                                               viewport: str) -> None:
    size = DESKTOP if viewport == "desktop" else PHONE_LANDSCAPE
    context, page = new_page(browser, size)
    problems = watch_console(page)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    screenshot(page, f"{viewport}-home")
    # The phone plays an express match (target 1) to reach the final settlement.
    # A computer dealt a hand fit to knock may take the upcard and knock before I move (at
    # target 1 that ends the match): then a new table, as a person would open.
    for _ in range(3):
        start_against_computer(page, base_url, "Ann", target=1 if viewport == "phone" else None)
        player = GinPlayer(page)
        assert "Ann" in page.inner_text(".seat-chips") or "You" in page.inner_text(".seat-chips")
        assert len(player.hand()) in (10, 11)
        screenshot(page, f"{viewport}-table-start")
        moves = player.play_until_hand_over()
        if moves:
            break
    assert moves, "I never got to move"
    showdown = page.locator("#showdown")
    showdown.wait_for(state="visible")
    headline = page.inner_text("#showdown-title")
    assert headline.startswith("Hand 1:")
    assert page.inner_text("#showdown-outcome")
    # The scorecard shows the finished hand (a row) and the running totals.
    if viewport == "phone":
        page.click("#scores-toggle")
    card = page.locator("#scorecard")
    card.wait_for(state="visible")
    assert page.locator("#score-history tbody tr").count() == 1
    assert "No hands finished" not in card.inner_text()
    if "Void" not in headline:
        # Both hands are shown, with melds/deadwood and points.
        assert page.locator("#showdown .spread").count() == 2
        assert page.locator("#showdown .card[data-card]").count() >= 20
    screenshot(page, f"{viewport}-showdown")

    if viewport == "phone":
        page.click("#scores-close")
        # Express match: a scored hand ends it; a void one needs another hand.
        for _ in range(5):
            if player.phase() == "match_over":
                break
            player.next_hand()
            player.play_until_hand_over()
        assert player.phase() == "match_over"
        page.locator("#final-result").first.wait_for(state="visible")
        assert "the match by" in page.inner_text("#final-result")
        screenshot(page, "phone-match-over")
        page.click("#rematch")
        page.wait_for_function("() => document.querySelector('.gin')?.dataset.mode === 'play'")
        assert "No hands finished" in page.inner_text("#scorecard")
    else:
        # Deal (or, if the computer dealt already, continue) and the new hand is on.
        player.next_hand()
        assert len(player.hand()) in (10, 11)
        assert page.locator("#score-history tbody tr").count() == 1
    assert not problems, problems
    context.close()


def test_two_friends_through_an_invite_link(browser: Browser, base_url: str) -> None:
    ctx_a, ann = new_page(browser, DESKTOP)
    ctx_b, bob = new_page(browser, PHONE_LANDSCAPE)
    problems = watch_console(ann) + watch_console(bob)

    ann.goto(f"{base_url}/")
    ann.wait_for_selector(".game-choice")
    ann.fill("#guest-name", "Ann")
    ann.click("#play-friend")
    ann.wait_for_url("**/t/*")
    invite = ann.locator("#invite-link")
    invite.wait_for(state="visible")
    link = invite.input_value()
    code = table_code(ann.url)
    assert link == f"{base_url}/t/{code}"
    assert ann.inner_text("#invite-code") == code
    screenshot(ann, "friend-invite")

    bob.goto(link)
    bob.wait_for_selector("#sit-down")
    assert "Ann" in bob.inner_text(".lobby")
    # The host's settings are there before he sits down (a friend table: 30 s turns).
    assert bob.inner_text("#lobby-settings") == \
        "30 s per turn · Spectators welcome · Private table"
    screenshot(bob, "friend-lobby-phone")
    bob.fill("#sit-name", "Bob")
    bob.click("#sit-down")
    for page in (ann, bob):
        page.wait_for_selector(".gin .hand-card")
    ann.locator("#invite-link").wait_for(state="hidden")
    ann.wait_for_function("() => document.querySelector('.seat-chips').innerText.includes('Bob')")
    assert "Ann" in bob.inner_text(".seat-chips")

    players = {"ann": GinPlayer(ann), "bob": GinPlayer(bob)}
    turns: list[tuple[str, str]] = []
    for _ in range(8):
        mover = _whose_turn(players)
        if mover is None:
            break
        before = players[mover].version()
        # No knock: a spectator's "no one's cards" below holds only while the hand is in
        # play (at its end every hand is shown, to everyone).
        turns.append((mover, players[mover].play_turn(end_hand=False)))
        # The other player's page follows to the same version.
        other = players["bob" if mover == "ann" else "ann"]
        other.page.wait_for_function(
            "v => Number(document.querySelector('.table-page')?.dataset.version) > v", arg=before)
        assert other.version() == players[mover].version()
    assert {m for m, _ in turns} == {"ann", "bob"}, turns
    screenshot(ann, "friend-ann-desktop")
    screenshot(bob, "friend-bob-phone")

    # A third person with the link finds the table full and may watch.
    ctx_c, cleo = new_page(browser, DESKTOP)
    cleo.goto(link)
    cleo.wait_for_selector("#watch")
    assert cleo.query_selector("#sit-down") is None
    cleo.click("#watch")
    cleo.wait_for_selector(".gin")
    assert "Watching" in cleo.inner_text(".seat-chips")
    assert cleo.locator(".my-hand .hand-card[data-card]").count() == 0  # no one's cards
    cleo.wait_for_function(
        "v => Number(document.querySelector('.table-page')?.dataset.version) >= v",
        arg=players["ann"].version())
    screenshot(cleo, "friend-spectator")
    assert not problems, problems
    ctx_a.close()
    ctx_b.close()
    ctx_c.close()


def _whose_turn(players: dict[str, GinPlayer]) -> str | None:
    """Wait until one of the two may act; None once the hand is over."""
    return whose_turn({name: player.page for name, player in players.items()}, ".gin", 10)


def test_a_reload_resumes_the_same_hand(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    start_against_computer(page, base_url, "Cleo")
    player = GinPlayer(page)
    for _ in range(3):  # a few moves, so there is something to lose
        player.wait_until_ready()
        if player.hand_over():
            break
        player.play_turn(end_hand=False)
    player.wait_until_ready()
    if player.hand_over():  # the computer knocked: resume in the next hand instead (the
        player.next_hand()  # sort buttons are hidden at a showdown)
        player.wait_until_ready()
    page.click("#sort-rank")  # a client-side order, which the reload must keep too
    hand, version, url = player.hand(), player.version(), page.url
    assert version > 0

    page.reload()
    page.wait_for_selector(".gin .hand-card")
    # A selector wait, not a script: a script evaluated while the reloaded page is still
    # starting can be refused by the page's own Content-Security-Policy.
    page.locator(".table-page[data-version]").wait_for()
    assert page.url == url
    assert player.version() == version
    assert player.hand() == hand
    assert page.query_selector("#sit-down") is None  # still seated: the token was kept
    player.wait_until_ready()
    screenshot(page, "desktop-after-reload")
    assert not problems, problems
    context.close()


def test_keyboard_play_and_labels(browser: Browser, base_url: str) -> None:
    """S draws, arrows move the focus, Enter discards; cards carry spoken names."""
    context, page = new_page(browser, DESKTOP)
    start_against_computer(page, base_url, "Dev")
    player = GinPlayer(page)
    player.wait_until_ready()
    if player.phase() == "first_upcard":
        before = player.version()
        page.keyboard.press("x")
        player.wait_newer(before)
    player.until_my_draw()  # the computer may take the upcard: play on to a draw of mine
    before = player.version()
    page.keyboard.press("s")
    player.wait_newer(before)
    assert player.phase() == "discard"
    assert len(player.hand()) == 11
    page.focus(".my-hand .hand-card[tabindex='0']")
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("() => document.activeElement.dataset.card")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert focused and " of " in label
    playable = page.evaluate("() => document.activeElement.classList.contains('playable')")
    if not playable:
        page.keyboard.press("ArrowRight")
        focused = page.evaluate("() => document.activeElement.dataset.card")
    before = player.version()
    page.keyboard.press("Enter")
    player.wait_newer(before)
    assert focused not in player.hand()
    context.close()



NET_SCENARIO = """async () => {
  const { TableSocket } = await import('/static/net.js');
  const log = [];
  const delays = [];
  const socket = new TableSocket('t_1', { token: 'tok' }, {
    status: (state, detail) => {
      log.push(['status', state]);
      if (state === 'reconnecting') delays.push(detail);
    },
    welcome: (d, v) => log.push(['welcome', v]),
    view: (d, v) => log.push(['view', v, d.ack || null]),
    fatal: (message, code) => log.push(['fatal', code]),
  });
  const welcome = (v) => ({ t: 'welcome', v, d: { seat: 0, role: 'player', table: {} } });
  socket.connect();
  // The home page's lobby socket is there too: only the table's sockets count.
  const sockets = () => window.__sockets.filter((s) => s.url.endsWith('/ws/t_1'));
  const first = sockets()[0];
  first.open();
  first.receive(welcome(3));
  first.receive({ t: 'view', v: 3, d: { view: {}, events: [] } });
  const id = socket.act({ type: 'draw_stock' });
  first.serverClose(1006);                 // lost before the answer came
  socket.retryNow();
  const second = sockets()[1];
  second.open();
  second.receive(welcome(4));              // the act was applied meanwhile...
  const resent = second.sent[1];
  second.receive({ t: 'view', v: 4, d: { view: {}, events: [], ack: id } });
  const pendingAfterAck = socket.pending;
  second.receive({ t: 'view', v: 7, d: { view: {}, events: [] } });   // 5 and 6 were missed
  const afterGap = second.sent.slice(2);
  // Failures in a row: the wait doubles from 0.5 s up to 10 s.
  for (let i = 0; i < 7; i += 1) {
    const ws = sockets().at(-1);
    ws.serverClose(1006);
    socket.retryNow();
  }
  const last = sockets().at(-1);
  last.open();
  last.receive(welcome(7));
  last.serverClose(4003);                  // a refused token: give up, do not retry
  const count = sockets().length;
  socket.retryNow();
  return { url: first.url, hello: first.sent[0], act: first.sent[1], id, resent, pendingAfterAck,
           afterGap, delays, log, socketsBefore: count, socketsAfter: sockets().length };
}"""


def test_net_resends_syncs_and_backs_off(browser: Browser, base_url: str) -> None:
    """net.js against a fake socket: hello, act ids, resend after reconnect, sync, backoff."""
    context, page = new_page(browser, DESKTOP)
    page.add_init_script(FAKE_WEBSOCKET_JS)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    r = page.evaluate(NET_SCENARIO)
    assert r["url"].endswith("/ws/t_1")
    assert r["hello"] == {"t": "hello", "d": {"token": "tok"}}
    assert r["act"] == {"t": "act", "v": 3, "d": {"id": r["id"], "action": {"type": "draw_stock"}}}
    # After the reconnect the same act goes again, same id and version: applied at most once.
    assert r["resent"] == r["act"]
    assert r["pendingAfterAck"] is None
    assert r["afterGap"] == [{"t": "sync"}]
    first, *rest = r["delays"]
    assert 187.5 <= first <= 312.5  # 0.25 s, growing by half to 10 s, with jitter
    expected = [min(10_000, 250 * 1.5 ** attempt) for attempt in range(7)]
    assert len(rest) == len(expected)
    for got, base in zip(rest, expected, strict=True):
        assert base * 0.75 <= got <= base * 1.25, (got, base)
    assert ["fatal", 4003] in r["log"]
    assert r["socketsAfter"] == r["socketsBefore"]
    context.close()


RETRY_SCENARIO = """async () => {
  const { TableSocket } = await import('/static/net.js');
  const errors = [];
  const socket = new TableSocket('t_2', { token: 'tok' }, {
    error: (d) => errors.push({ code: d.code, retrying: Boolean(d.retrying) }),
  });
  socket.connect();
  const ws = window.__sockets.filter((s) => s.url.endsWith('/ws/t_2'))[0];
  ws.open();
  ws.receive({ t: 'welcome', v: 5, d: { seat: 0, role: 'player', table: {} } });
  ws.receive({ t: 'view', v: 5, d: { view: {}, events: [] } });
  const acts = () => ws.sent.filter((f) => f.t === 'act');
  const retry = (id) => ({ t: 'error', v: 5, d: { code: 'retry', message: 'not now', id } });
  // The database is away: the act is resent by itself, same id, until it is acknowledged.
  const id = socket.act({ type: 'draw_stock' });
  ws.receive(retry(id));
  const waits = [socket.pending.delay];
  const pendingWhileRetrying = socket.pending?.id;
  socket.retryActNow();
  ws.receive(retry(id));
  waits.push(socket.pending.delay);
  socket.retryActNow();
  ws.receive({ t: 'view', v: 6, d: { view: {}, events: [], ack: id } });
  const afterAck = { pending: socket.pending, acts: acts().length, timer: socket.actTimer };
  const errorsAfterAck = errors.length;
  // It stays away: the act is given up after about 15 s of waiting, and the page is told.
  const second = socket.act({ type: 'draw_discard' });
  let resends = 0;
  while (socket.pending) {
    ws.receive(retry(second));
    if (!socket.pending) break;
    waits.push(socket.pending.delay);
    socket.retryActNow();
    resends += 1;
  }
  return { id, second, acts: acts(), waits, pendingWhileRetrying, afterAck, errorsAfterAck,
           errors, resends };
}"""


def test_net_resends_an_act_the_server_could_not_save(browser: Browser, base_url: str) -> None:
    """An act answered ``retry`` goes again by itself (same id, 0.5 s doubling, ~15 s in
    all); the page hears of the first retry once, flagged, and of the last if it fails."""
    context, page = new_page(browser, DESKTOP)
    page.add_init_script(FAKE_WEBSOCKET_JS)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    r = page.evaluate(RETRY_SCENARIO)
    first = {"t": "act", "v": 5, "d": {"id": r["id"], "action": {"type": "draw_stock"}}}
    assert r["acts"][:3] == [first, first, first]  # sent, and resent twice with its id
    assert r["pendingWhileRetrying"] == r["id"]
    assert r["afterAck"] == {"pending": None, "acts": 3, "timer": None}
    assert r["errorsAfterAck"] == 1  # the first retry only, flagged
    assert r["errors"][0] == {"code": "retry", "retrying": True}
    # The second act: waits of 0.5, 1, 2, 4, 8 s (15.5 s would pass 15 s): given up.
    assert r["waits"][:2] == [500, 1000] and r["waits"][2:] == [500, 1000, 2000, 4000]
    assert r["resends"] == 4
    second = [a for a in r["acts"] if a["d"]["id"] == r["second"]]
    assert len(second) == 1 + 4 and all(a["v"] == 6 for a in second)
    assert r["errors"][1:] == [{"code": "retry", "retrying": True},
                               {"code": "retry", "retrying": False}]
    context.close()


def test_the_table_comes_back_after_a_server_crash(browser: Browser, tmp_path: Path) -> None:
    """kill -9 the server mid-hand: the page says so, reconnects by itself and resumes."""
    server = WebServer(tmp_path).start()
    try:
        context, page = new_page(browser, DESKTOP)
        start_against_computer(page, server.base_url, "Eve")
        player = GinPlayer(page)
        player.wait_until_ready()
        player.play_turn()
        player.wait_until_ready()
        hand, version = player.hand(), player.version()

        server.kill()
        page.wait_for_selector(".conn[data-state='reconnecting']")
        screenshot(page, "desktop-reconnecting")
        server.start()
        page.wait_for_selector(".conn[data-state='connected']", timeout=20_000)
        page.wait_for_function(
            "v => Number(document.querySelector('.table-page')?.dataset.version) >= v", arg=version)
        assert player.version() == version
        assert player.hand() == hand
        player.wait_until_ready()
        player.play_turn()  # and the game goes on, across the next deal
        player.play_until_hand_over()
        player.next_hand()
        assert len(player.hand()) in (10, 11)
        assert page.locator("#score-history tbody tr").count() >= 1
        context.close()
    finally:
        server.stop()


def drag(page: Page, source: str, target: str, source_x: float | None = None) -> None:
    """Press on source, move in steps, release over target: what a mouse or finger does."""
    # Where the card is now, not where a moving card passes through.
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running')", timeout=15_000)
    a = page.locator(source).bounding_box()
    b = page.locator(target).bounding_box()
    assert a and b
    page.mouse.move(a["x"] + (source_x if source_x is not None else a["width"] / 2), a["y"] + 30)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=12)
    page.mouse.up()


def test_drag_to_draw_reorder_and_discard(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    start_against_computer(page, base_url, "Flo")
    player = GinPlayer(page)
    player.until_my_draw()
    before = player.version()
    drag(page, "#stock", ".my-hand .hand-cards")
    player.wait_newer(before)
    assert player.phase() == "discard" and len(player.hand()) == 11

    # Reorder: the first card dropped past the last one goes to the end.
    first = player.hand()[0]
    last_card = player.hand()[-1]
    drag(page, f'.hand-card[data-card="{first}"]', f'.hand-card[data-card="{last_card}"]',
         source_x=8)
    page.wait_for_function(
        """c => [...document.querySelectorAll('.my-hand .hand-card')]
                 .map(e => e.dataset.card).indexOf(c) > 7""", arg=first)
    assert page.get_attribute("#arrange-melds", "aria-pressed") == "false"

    card = player.highest_deadwood_card()
    before = player.version()
    drag(page, f'.hand-card[data-card="{card}"]', "#pile", source_x=8)
    player.wait_newer(before)
    assert card not in player.hand()
    assert not problems, problems
    context.close()


def test_names_render_as_text_never_html(browser: Browser, base_url: str) -> None:
    payload = "<img src=x onerror=f()>"  # names are at most 24 characters
    grant = httpx.post(f"{base_url}/api/tables", json={"opponent": "friend", "name": payload})
    context, page = new_page(browser, DESKTOP)
    try:
        page.goto(f"{base_url}{grant.json()['invite_url']}")  # the invitee sees the host's name
        # A selector wait, not a script: the page's CSP can refuse a script run while it starts.
        page.locator("body", has_text="<img").wait_for()
        assert page.locator("img[src='x']").count() == 0
        assert payload in page.inner_text("body")
    finally:
        context.close()


def test_a_move_the_database_could_not_save_goes_through_by_itself(
        browser: Browser, tmp_path: Path) -> None:
    """The database is busy when I draw (a second writer holds SQLite's lock): the page
    says it is trying again, resends the same act by itself, and once the lock is gone the
    draw is made, once, with no click of mine and no error."""
    server = WebServer(tmp_path)
    server.env["CARDTABLE_SQLITE_BUSY_MS"] = "200"
    server.start()
    lock: sqlite3.Connection | None = None
    try:
        context, page = new_page(browser, DESKTOP)
        problems = watch_console(page)
        start_against_computer(page, server.base_url, "Ivy")
        player = GinPlayer(page)
        player.until_my_draw()  # to a turn of mine that starts with a draw from the stock
        hand, before = player.hand(), player.version()

        lock = sqlite3.connect(tmp_path / "cardtable.db", timeout=30, isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        page.click("#stock")
        page.locator(".toast-info", has_text="trying again").wait_for()
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            screenshot(page, f"retrying-{size}")
        page.set_viewport_size(DESKTOP)
        assert player.version() == before  # nothing was made while the lock is held
        lock.rollback()
        lock.close()
        lock = None

        player.wait_newer(before, timeout=20)
        assert player.version() == before + 1  # one draw, applied once
        assert player.phase() == "discard" and len(player.hand()) == len(hand) + 1
        assert page.locator(".toast-error").count() == 0
        assert not problems, problems
        context.close()
    finally:
        if lock is not None:
            lock.close()
        server.stop()
