"""Helpers for the browser tests: a real server, Debian's Chromium, and a
player who clicks through a Gin table the way a person would.

The player reads only what the page shows (buttons, cards, ``data-*``
attributes) and acts only by clicking; it picks its discard by a plain
"highest deadwood" rule, and never decides legality: a disabled button or a
card without the ``playable`` class is simply not clicked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Position,
    ViewportSize,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from page_report import PAGE_STATE, socket_frames, watch_every_page, watch_sockets
from server_harness import PASSWORD, free_port, new_address

CHROMIUM = "/usr/bin/chromium"
SHOWDOWN_ANSWERED = """() =>
    !!document.querySelector('#next-hand, #continue, .gin #rematch:enabled')
    || document.querySelector('.gin')?.dataset.mode === 'play'"""
"""A Gin hand's end has its button (deal, continue, rematch), or the page is in the next hand."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE_LANDSCAPE: ViewportSize = {"width": 844, "height": 390}
PHONE_PORTRAIT: ViewportSize = {"width": 390, "height": 844}
SIZES: dict[str, ViewportSize] = {
    "portrait": PHONE_PORTRAIT, "landscape": PHONE_LANDSCAPE, "desktop": DESKTOP}
"""The screens every board is tested on (issue 14): a phone upright and sideways, a desktop."""
SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
CARD_VALUE = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10} | {str(n): n for n in range(2, 10)}


class WebServer:
    """``python -m cardtable serve`` on a free port, with a SQLite file in data_dir."""

    def __init__(self, data_dir: Path, bot_delay: float = 0.05):
        self.data_dir = data_dir
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "CARDTABLE_BOT_DELAY": str(bot_delay),
                    "CARDTABLE_CREATE_LIMIT": "100000",  # every page is on 127.0.0.1
                    "CARDTABLE_SOCKET_LIMIT": "100000"}
        self.env.pop("DATABASE_URL", None)  # always the SQLite file in data_dir
        self.log_path = data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WebServer:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cardtable", "serve", "--host", "127.0.0.1",
                 "--port", str(self.port), "--data-dir", str(self.data_dir)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited:\n{self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.base_url}/api/games", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                tail = self.log_path.read_text()[-3000:]
                raise RuntimeError(f"the server did not start:\n{tail}")
            time.sleep(0.1)

    def kill(self) -> None:
        """``kill -9``: no goodbye to the browsers, no flush."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def running_server(data_dir: Path, bot_delay: float = 0.05, **env: str) -> Iterator[WebServer]:
    """A started server with ``env`` in its environment; stopped at the end."""
    server = WebServer(data_dir, bot_delay)
    server.env.update(env)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def chromium_path(wait: float = 120.0) -> str:
    """Debian's chromium (Playwright's own download is not used); skip without it."""
    deadline = time.monotonic() + wait
    while not os.access(CHROMIUM, os.X_OK):
        if time.monotonic() > deadline:
            if os.environ.get("CI"):  # .ci/run installs it: missing there is a failure
                pytest.fail(f"{CHROMIUM} is not installed")
            pytest.skip(f"{CHROMIUM} is not installed")
        time.sleep(1)
    return CHROMIUM


def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def screenshot_sizes(page: Page, name: str) -> None:
    """Screenshots ``<name>-<size>`` of the page at each of :data:`SIZES` (each after the
    page re-fit itself: :func:`resized`), then the page back at :data:`DESKTOP`."""
    for size, viewport in SIZES.items():
        resized(page, viewport)
        screenshot(page, f"{name}-{size}")
    resized(page, DESKTOP)


def resized(page: Page, viewport: ViewportSize) -> None:
    """The page at ``viewport``, once it has it and has re-fit itself to it: the window
    reports the new size (its resize event and resize observers have had it), then the
    layout is quiet (:func:`settle`: a hand's re-fit runs in the frame of the resize)."""
    page.set_viewport_size(viewport)
    try:
        page.wait_for_function(
            "([w, h]) => window.innerWidth === w && window.innerHeight === h",
            arg=[viewport["width"], viewport["height"]], timeout=30_000)
    except PlaywrightTimeoutError:
        raise AssertionError(
            f"the page did not take the size {viewport['width']}x{viewport['height']}: it is "
            f"{page.evaluate('() => [window.innerWidth, window.innerHeight]')}") from None
    settle(page)


def watch_console(page: Page) -> list[str]:
    """Collect page errors and console errors (CSP violations show up here)."""
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" else None)
    return problems


class GinPlayer:
    """One person at a Gin table in one page."""

    def __init__(self, page: Page) -> None:
        self.page = page

    # -- reading the page ------------------------------------------------------------------

    def phase(self) -> str:
        return str(self.page.get_attribute(".gin", "data-phase"))

    def version(self) -> int:
        return int(self.page.get_attribute(".table-page", "data-version") or -1)

    def hand(self) -> list[str]:
        """My cards in the order shown."""
        return [str(c) for c in self.page.eval_on_selector_all(
            ".my-hand .hand-card[data-card]", "els => els.map(e => e.dataset.card)")]

    def enabled(self, selector: str) -> bool:
        el = self.page.query_selector(selector)
        return el is not None and el.is_visible() and el.is_enabled()

    def my_turn(self) -> bool:
        return bool(self.page.evaluate(
            "() => document.querySelector('.gin')?.classList.contains('my-turn') ?? false"))

    def hand_over(self) -> bool:
        """The end-of-hand panel is up (it stays up after a computer deals on)."""
        return self.page.get_attribute(".gin", "data-mode") == "hand-over"

    def wait_until_ready(self, timeout: float = 15.0) -> None:
        """Until it is my turn, or the hand is over."""
        self.page.wait_for_function(
            """() => { const g = document.querySelector('.gin');
                       return g && (g.classList.contains('my-turn') ||
                                    g.dataset.mode === 'hand-over'); }""",
            timeout=timeout * 1000)

    # -- acting -------------------------------------------------------------------------

    def wait_newer(self, version: int, timeout: float = 20.0) -> None:
        """Until the page shows a version above ``version`` (the server answered)."""
        wait_for_answer(self.page, version, timeout)

    def click_and_wait(self, selector: str, position: Position | None = None) -> None:
        """Click, then wait for the server's answer (a newer version)."""
        before = self.version()
        self.page.click(selector, position=position)
        self.wait_newer(before)

    def choose_first(self, button: str) -> None:
        """Knock/gin: press the button; if it offers a choice of cards, take the first."""
        before = self.version()
        self.page.click(button)
        if self.offers_a_choice(before):
            self.page.locator(".chooser .choice").first.click()
        self.wait_newer(before)

    def offers_a_choice(self, version: int) -> bool:
        """After a knock or gin press: True once the page offers a choice of cards, False
        once the server answered instead (it acted at once: e.g. the only gin discard)."""
        return bool(self.page.wait_for_function(
            """v => document.querySelector('.chooser:not([hidden]) .choice')
                   || Number(document.querySelector('.table-page').dataset.version) > v""",
            arg=version).evaluate("x => x instanceof Element"))

    def next_hand(self) -> None:
        """Deal if I am the dealer, or leave the showdown of a hand already redealt."""
        # The showdown's button comes a little after the hand's end: Deal if I am to deal,
        # Continue once a computer has dealt the next hand (unless the page went on to it).
        self.page.wait_for_function(SHOWDOWN_ANSWERED)
        if self.page.query_selector("#next-hand"):
            self.click_and_wait("#next-hand")
        elif self.page.query_selector("#continue"):
            self.page.click("#continue")
        elif self.page.query_selector(".gin #rematch:enabled"):  # the hand ended the match
            self.page.click(".gin #rematch")
        self.page.wait_for_function(
            "() => document.querySelector('.gin')?.dataset.mode === 'play'")

    def until_my_draw(self, max_turns: int = 200) -> None:
        """Play on (passing the upcard, discarding without ending the hand, into the next
        hand or a rematch when a computer ends one) until it is my turn to draw from the
        stock: a test that needs that turn waits for it, whatever the deal."""
        for _ in range(max_turns):
            self.wait_until_ready()
            if self.hand_over():
                self.next_hand()
                continue
            if self.phase() == "draw" and self.enabled("#stock"):
                return
            self.play_turn(end_hand=False)
        raise AssertionError(f"never my turn to draw in {max_turns} turns")

    def highest_deadwood_card(self, excluding: Collection[str] = ()) -> str:
        """The playable card worth most, preferring deadwood: a simple human habit."""
        cards = [c for c in self.page.eval_on_selector_all(
            ".my-hand .hand-card.playable",
            "els => els.map(e => [e.dataset.card, e.classList.contains('is-deadwood')])")
            if c[0] not in excluding]
        assert cards, "no playable card although it is my discard"
        return str(max(cards, key=lambda c: (c[1], CARD_VALUE[c[0][0]]))[0])

    def play_turn(self, end_hand: bool = True) -> str:
        """Make one move by clicks; returns what was done. ``end_hand=False`` discards
        even when a knock or gin is open, so a test's few turns never end the hand."""
        phase = self.phase()
        if phase in ("first_upcard", "final_discard"):
            self.click_and_wait("#pass")
            return "pass"
        if phase == "draw":
            self.click_and_wait("#stock")
            return "draw"
        if phase == "discard":
            for button, name in (("#big-gin", "big gin"), ("#gin", "gin"), ("#knock", "knock")):
                if end_hand and self.enabled(button):
                    if button == "#big-gin":
                        self.click_and_wait(button)
                    else:
                        self.choose_first(button)
                    return name
            card = self.highest_deadwood_card()
            # Hand cards overlap: click the visible strip at the left, as a person does.
            self.click_and_wait(f'.my-hand .hand-card[data-card="{card}"]',
                                position={"x": 6, "y": 30})
            return f"discard {card}"
        raise AssertionError(f"nothing to do in phase {phase}")

    def play_until_hand_over(self, max_turns: int = 60) -> list[str]:
        moves: list[str] = []
        for _ in range(max_turns):
            self.wait_until_ready()
            if self.hand_over():
                return moves
            moves.append(self.play_turn())
        raise AssertionError(f"the hand did not end: {moves}")


def table_code(url: str) -> str:
    match = re.search(r"/t/([A-Z0-9]+)$", url)
    assert match, url
    return match.group(1)


# A stand-in for the browser's WebSocket, installed before the page's scripts
# run, so net.js can be driven frame by frame (open, receive, close codes).
FAKE_WEBSOCKET_JS = """
window.__sockets = [];
class FakeWebSocket {
  constructor(url) {
    this.url = url; this.readyState = 0; this.sent = []; window.__sockets.push(this);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close(code = 1000) { this.serverClose(code); }
  open() { this.readyState = 1; this.onopen && this.onopen({}); }
  receive(frame) { this.onmessage && this.onmessage({ data: JSON.stringify(frame) }); }
  serverClose(code = 1006) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose && this.onclose({ code });
  }
}
Object.assign(FakeWebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
window.WebSocket = FakeWebSocket;
"""


# -- fixtures shared by the browser test modules (import them by name) ------------------------


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server for one test module, with computer players that move quickly."""
    with running_server(tmp_path_factory.mktemp("browser-server")) as server:
        yield server.base_url


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    """One Chromium for a module's tests (each makes contexts of its own). Not one for a
    worker's whole run: Playwright's sync API keeps its event loop set as the thread's
    running loop while it is started, and every asyncio test after it on that worker
    would then fail ("Runner.run() cannot be called from a running event loop").

    Its pages prefer reduced motion (cards move without flights), unless the module sets
    ``PLAYS_ANIMATIONS = True``: the motion tests and the phone tests, where a tap meets a
    card in flight as a player's does, play every animation."""
    animations = bool(getattr(request.module, "PLAYS_ANIMATIONS", False))
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        # A failing test's report shows its pages (page_report).
        watch_every_page(chromium, animations=animations)
        yield chromium
        chromium.close()


def screen_context(browser: Browser, size: str) -> tuple[BrowserContext, Page]:
    """A page on one of :data:`SIZES`; the phone sizes are touch screens that honour the
    page's viewport tag (a page wider than the phone would be zoomed out)."""
    phone = size != "desktop"
    context = browser.new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.add_init_script(KEEP_SOCKETS_JS)  # for round_trip()
    return context, page


def settle(page: Page) -> None:
    """Until the cards have landed (anim.js: each flight is under 300 ms). A view is drawn in
    the frame after it arrives, and a card flying in under the pointer ends its hover raise
    as it leaves: so, until a run of quiet frames. An endless animation (an urgent turn
    clock's pulse) never ends, and moves nothing: it does not count.

    Ten quiet frames where cards fly; three where the page prefers reduced motion (no
    flights, no transitions: the frame after a view's is drawn by then), which saves most
    browser tests a tenth of a second at every look."""
    page.wait_for_function("""() => new Promise(done => {
        const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
        const enough = still ? 3 : 10;
        let quiet = 0;
        const moving = a => a.playState === 'running'
          && a.effect?.getTiming().iterations !== Infinity;
        const tick = () => {
          quiet = document.getAnimations().some(moving) ? 0 : quiet + 1;
          if (quiet >= enough) done(true); else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      })""", timeout=15_000)  # a bound: a loaded machine draws its frames slowly


def frames(page: Page, count: int = 2) -> None:
    """Until ``count`` animation frames have begun from now: what the page was handling (a
    key, a click, a frame from its socket) is done, and what it drew after it is drawn."""
    page.evaluate("""n => new Promise(done => {
        const tick = () => (--n > 0 ? requestAnimationFrame(tick) : done());
        requestAnimationFrame(tick);
      })""", count)


def page_clock(page: Page, ms: float) -> None:
    """Until the page's own clock has run ``ms`` on, and every timer of the page that was
    due by then has fired: a timer set now in the page fires after those (timers run in
    the order they are due), then a frame for what they drew. For a check that something
    does not happen on a timer of the page's own (a reconnect, a countdown's tick)."""
    page.evaluate("ms => new Promise(done => setTimeout(done, ms))", ms)
    frames(page)


KEEP_SOCKETS_JS = """
(() => {
  const Real = window.WebSocket;
  window.__pageSockets = [];  // every socket the page opened, each counting pings and pongs
  window.WebSocket = class WebSocket extends Real {
    constructor(...args) {
      super(...args);
      this.pings = 0;
      this.pongs = 0;
      window.__pageSockets.push(this);
      this.addEventListener('message', (event) => {
        try { if (JSON.parse(event.data).t === 'pong') this.pongs += 1; } catch {}
      });
    }
    send(data) {
      try { if (JSON.parse(data).t === 'ping') this.pings += 1; } catch {}
      super.send(data);
    }
  };
})();
"""
"""Installed by :func:`new_page` and :func:`screen_context`: the page's sockets stay within
reach of the test (the page's own code uses them unchanged), for :func:`round_trip`."""


def round_trip(page: Page, timeout: float = 10.0) -> None:
    """A round trip to the server on the page's table socket, and the page done with what
    came back: every frame the page sent before (a move a key or a click may have sent) has
    been answered, and every frame the server had for the page (a chat line, a view) has
    arrived and been drawn. The server handles a table's frames one at a time, in order, and
    answers a ``ping`` with a ``pong`` on the same socket: so the pong comes after them all.
    Only for a page made by :func:`new_page` or :func:`screen_context` (it keeps its sockets)."""
    frames(page)  # anything the page sends from a frame after an event has been sent
    want = page.evaluate("""() => {
        const open = (window.__pageSockets || []).filter(
          (s) => s.readyState === 1 && !s.url.endsWith('/ws/lobby'));
        const ws = open.at(-1);
        if (!ws) return null;
        window.__roundTrip = ws;
        ws.send(JSON.stringify({ t: 'ping' }));
        return ws.pings;
      }""")
    if want is None:
        raise AssertionError(f"no open table socket on {page.url} for a round trip (a page "
                             "of new_page() or screen_context() keeps its sockets)")
    try:
        page.wait_for_function("n => window.__roundTrip.pongs >= n", arg=want,
                               timeout=timeout * 1000)
    except PlaywrightTimeoutError:
        raise AssertionError(f"no pong to ping {want} in {timeout} s: "
                             f"{page.evaluate(PAGE_STATE)}; the socket's last frames: "
                             f"{socket_frames(page)}") from None
    frames(page)


MAY_STILL_RUN = """() => { const URL_ATTRIBUTES = ['href', 'src', 'action', 'formaction',
                                                  'xlink:href', 'data'];
  return [...document.querySelectorAll('*')].filter((e) =>
    [...e.attributes].some((a) => a.name.startsWith('on') || (URL_ATTRIBUTES.includes(a.name)
                                  && /^\\s*javascript:/i.test(a.value)))
    || e.matches('script:not([src]), iframe, frame, object, embed'))
  .map((e) => e.outerHTML.slice(0, 120)); }"""


def script_left_to_run(page: Page) -> list[str]:
    """What in the page could still run script: inline handlers (``onload``, ``onerror``:
    the page's own code adds its handlers with addEventListener, never as attributes),
    ``javascript:`` addresses, inline scripts, frames. Empty, once the page has drawn a
    hostile text: no handler injected with it is left to fire (one that fired already
    raised its alert then)."""
    frames(page)  # a handler due at insertion (an inline svg's onload) has fired
    return [str(e) for e in page.evaluate(MAY_STILL_RUN)]


def whose_turn(players: Mapping[str, Page], root: str, timeout: float = 20.0) -> str | None:
    """Which of ``players`` (pages at one table, by name) is to act, once it is one of
    theirs; None once the hand is over. The page with the newest version shows whose turn
    it is (a seat chip ``to-act``; a computer's turn passes by itself), and that player's
    page shows it too (the board ``root`` is ``my-turn``) at a version as new."""
    versions = {name: int(page.get_attribute(".table-page", "data-version") or -1)
                for name, page in players.items()}
    newest = players[max(versions, key=lambda name: versions[name])]
    seats = {str(page.get_attribute(".seat-chip.me", "data-seat")): name
             for name, page in players.items()}
    try:
        shown = newest.wait_for_function(
            """([root, seats]) => {
                 const board = document.querySelector(root);
                 const version = Number(document.querySelector('.table-page')?.dataset.version);
                 if (!board) return null;
                 if (board.dataset.mode === 'hand-over') return {over: true, version};
                 const chip = document.querySelector('.seat-chip.to-act');
                 const seat = board.classList.contains('my-turn')
                   ? document.querySelector('.seat-chip.me')?.dataset.seat : chip?.dataset.seat;
                 return seats.includes(seat) ? {seat, version} : null;
               }""", arg=[root, list(seats)], timeout=timeout * 1000).json_value()
    except PlaywrightTimeoutError:
        raise AssertionError(f"nobody's turn of {sorted(players)} in {timeout} s: "
                             f"{newest.evaluate(PAGE_STATE)}") from None
    if shown.get("over"):
        return None
    name = seats[shown["seat"]]
    try:
        players[name].wait_for_function(
            """([root, v]) => {
                 const board = document.querySelector(root);
                 return Number(document.querySelector('.table-page')?.dataset.version) >= v
                   && (board?.classList.contains('my-turn') || board?.dataset.mode === 'hand-over');
               }""", arg=[root, shown["version"]], timeout=timeout * 1000)
    except PlaywrightTimeoutError:
        raise AssertionError(f"{name}'s page does not show his turn at version "
                             f"{shown['version']}: {players[name].evaluate(PAGE_STATE)}") from None
    mode = players[name].get_attribute(root, "data-mode")
    return None if mode == "hand-over" else name


def new_page(browser: Browser, viewport: ViewportSize) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.add_init_script(KEEP_SOCKETS_JS)  # for round_trip()
    watch_sockets(page)
    return context, page


STORAGE_KEY = "cardtable.v1"  # where the site keeps a browser's seats and preferences


def remember_seat(page: Page, base_url: str, grant: Mapping[str, Any]) -> None:
    """What the home page does after creating or joining a table: keep the seat's token
    (``grant``: code, table_id, seat, token) beside the seats the browser holds already.
    The table's page, opened next, sits in that seat."""
    page.goto(f"{base_url}/")  # localStorage is the site's own
    page.evaluate(
        """([key, grant]) => {
             const data = JSON.parse(localStorage.getItem(key) || "{}");
             data.seats = data.seats || {};
             data.seats[grant.code] = {table_id: grant.table_id, seat: grant.seat,
                                       token: grant.token, at: Date.now()};
             localStorage.setItem(key, JSON.stringify(data));
           }""", [STORAGE_KEY, grant])


def registered_page(browser: Browser, base_url: str, username: str
                    ) -> tuple[BrowserContext, Page]:
    """A browser of its own (a desktop context) from an address of its own, signed in to a
    new account ``username`` (with ``PASSWORD``): the server must trust 127.0.0.1 as a
    proxy (``CARDTABLE_TRUSTED_PROXIES``)."""
    context = browser.new_context(viewport=DESKTOP,
                                  extra_http_headers={"X-Forwarded-For": new_address()})
    page = context.new_page()
    page.set_default_timeout(15_000)
    made = page.request.post(f"{base_url}/api/account/register",
                             data={"username": username, "password": PASSWORD})
    assert made.ok, made.text()
    return context, page


@dataclass
class RatedGin:
    """Ann (the host) and Bob at a one-deal rated Gin table, each signed in to an account of
    his own in a browser of his own (from an address of his own), the table on his page."""

    ann: Page
    bob: Page
    grants: list[dict[str, Any]]  # Ann's seat, Bob's (each with the table's code)
    problems: list[str]  # what Ann's page logged as errors, from its first load


@contextmanager
def rated_gin_table(browser: Browser, server: WebServer, **settings: Any) -> Iterator[RatedGin]:
    """A :class:`RatedGin` at ``server``, which must trust 127.0.0.1 as a proxy (a rated
    table takes one player per address); the table has ``settings`` too. The accounts are
    ``Ann<port>`` and ``Bob<port>``; the browsers are closed at the end."""
    base, contexts = server.base_url, []
    try:
        for name in ("Ann", "Bob"):
            contexts.append(registered_page(browser, base, f"{name}{server.port}")[0])
        ann, bob = (context.pages[0] for context in contexts)
        problems = watch_console(ann)
        created = ann.request.post(f"{base}/api/tables", data={
            "game": "gin", "options": {"deals": 1}, "opponent": "friend", "name": "Ann",
            "settings": {"rated": True, **settings}})
        assert created.ok, created.text()
        grant = created.json()
        joined = bob.request.post(f"{base}/api/tables/{grant['code']}/join", data={"name": "Bob"})
        assert joined.ok, joined.text()
        grants = [grant, {**joined.json(), "code": grant["code"]}]
        for page, seat in ((ann, grant), (bob, grants[1])):
            remember_seat(page, base, seat)
            page.goto(f"{base}/t/{grant['code']}")
            page.wait_for_selector(".gin[data-phase]")
            page.wait_for_selector("#rated-tag:not([hidden])")
        yield RatedGin(ann, bob, grants, problems)
    finally:
        for context in contexts:
            context.close()


def centre(page: Page, selector: str, dx: float | None = None) -> tuple[float, float]:
    """The middle of the first element matching ``selector`` on screen (``dx``: that far
    from its left edge instead)."""
    box = page.locator(selector).first.bounding_box()
    assert box, f"{selector} is not on screen"
    return box["x"] + (box["width"] / 2 if dx is None else dx), box["y"] + box["height"] / 2


def wait_for_answer(page: Page, version: int, timeout: float) -> None:
    """Until the table page shows a version above ``version`` (the server answered); else
    fail saying what the page showed and its sockets' last frames: a click that never sent
    is another failure than an answer that never came, or an error the page kept quiet."""
    try:
        page.wait_for_function(
            "v => Number(document.querySelector('.table-page')?.dataset.version) > v",
            arg=version, timeout=timeout * 1000)
    except PlaywrightTimeoutError:
        raise AssertionError(f"no answer above version {version} in {timeout} s: "
                             f"{page.evaluate(PAGE_STATE)}; the socket's last frames: "
                             f"{socket_frames(page)}") from None
