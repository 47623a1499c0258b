"""The board frame (web/games/board.js) in real Chromium, on every board the browser draws.

Each game's board supplies only its layout and its moves; the frame gives them all the
same flags on the board's root (``data-mode`` "play" or "hand-over", ``data-held``,
``data-phase``, ``data-players``; ``.my-turn``, ``.scores-open``), the status line, the
scores drawer and its stylesheets (games/board.css and one per board, linked once).
A person plays one hand at each board by clicks; screenshots of every board mid-hand and
at the hand's end, held upright (390 × 844), sideways (844 × 390) and on a desktop
(1280 × 800), go to artifacts/screenshots/board-*.png for a human to compare.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    DESKTOP,
    PHONE_LANDSCAPE,
    SIZES,
    GinPlayer,
    centre,
    new_page,
    resized,
    screenshot,
    table_code,
    watch_console,
)
from cardtable.engine.games.gin import Phase as GinPhase
from test_browser_indian import IndianPlayer
from test_browser_rummy import RummyPlayer, ScriptedTable, engine_state, game_ready
from test_browser_spades import SpadesPlayer

# game: (the board's root class, its player, seats, table options)
BOARDS: dict[str, tuple[str, Any, int, dict[str, str]]] = {
    "gin": ("gin", GinPlayer, 2, {}),
    "rummy": ("rummy", RummyPlayer, 3, {}),
    "rummy500": ("rummy", RummyPlayer, 3, {}),
    "romme": ("rummy", RummyPlayer, 3, {}),
    "indian": ("indian", IndianPlayer, 3, {"preset": "points"}),
    "spades": ("spades", SpadesPlayer, 4, {}),
}
MY_MOVES_BEFORE_THE_PICTURE = 3
# Each board's own stylesheet (web/games/<folder>/board.css), by its root class: the
# table-meld games (.rummy) share theirs.
STYLESHEET = {"gin": "gin/board", "rummy": "tablemelds/board", "indian": "indian/board",
              "spades": "spades/board"}


def sit_down(page: Page, base_url: str, game: str, players: int, options: dict[str, str]) -> None:
    """A table with computers made through the API; the page takes the seat."""
    grant = httpx.post(f"{base_url}/api/tables", json={
        "game": game, "options": options, "opponent": "computer", "name": "Ann",
        "players": players}).json()
    code = table_code(grant["invite_url"])
    page.goto(f"{base_url}/")
    page.evaluate(
        """([code, g]) => localStorage.setItem('cardtable.v1', JSON.stringify({seats: {
             [code]: {table_id: g.table_id, seat: g.seat, token: g.token, at: Date.now()}}}))""",
        [code, grant])
    page.goto(f"{base_url}/t/{code}")


def pictures(page: Page, name: str) -> None:
    """The board at each size, in the same state (it is my move, or the hand is held)."""
    for size, viewport in SIZES.items():
        resized(page, viewport)  # the hands re-fit their overlap on resize
        screenshot(page, f"board-{name}-{size}")
    resized(page, DESKTOP)


def over(page: Page, root: str) -> bool:
    return page.get_attribute(root, "data-mode") == "hand-over"


def play_one_move(player: Any, game: str, moves: int) -> None:
    if game == "indian":
        player.play_turn(drop=moves >= 12)
    else:
        player.play_turn()


@pytest.mark.slow
@pytest.mark.parametrize("game", list(BOARDS))
def test_every_board_in_the_frame(browser: Browser, base_url: str, game: str) -> None:
    root_class, player_class, players, options = BOARDS[game]
    game_ready(base_url, game)
    root = f".{root_class}"
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    sit_down(page, base_url, game, players, options)
    page.wait_for_selector(f"{root}[data-phase]")
    player = player_class(page)

    # The frame's flags and parts, the same on every board.
    assert page.get_attribute(root, "data-players") == str(players)
    assert page.get_attribute(root, "data-held") == "false"
    assert page.locator(f"{root} #status").count() == 1
    assert page.locator(f"{root} #last-move").count() == 1
    assert page.locator(f"{root} #help-line").count() == 1
    hrefs = page.eval_on_selector_all("link[rel=stylesheet]",
                                      "els => els.map(e => e.getAttribute('href'))")
    assert hrefs.count("/static/games/board.css") == 1, hrefs
    assert hrefs.count(f"/static/games/{STYLESHEET[root_class]}.css") == 1, hrefs

    # On a phone the scorecard is a drawer that opens and closes the same way everywhere.
    resized(page, PHONE_LANDSCAPE)
    page.click("#scores-toggle")
    page.wait_for_selector(f"{root}.scores-open #scores-close")
    page.click("#scores-close")
    page.wait_for_selector(f"{root}:not(.scores-open)")
    resized(page, DESKTOP)

    # A computer may end the hand before my first move (a Gin knock on its first turn):
    # then a new table, as a person would open.
    moves = 0
    pictured = False
    for _ in range(3):
        for _ in range(300):
            player.wait_until_ready(120)
            if over(page, root):
                break
            assert page.get_attribute(root, "data-mode") == "play"
            ready = page.evaluate(
                f"() => document.querySelector('{root}').classList.contains('my-turn')")
            if ready and moves >= MY_MOVES_BEFORE_THE_PICTURE and not pictured and (
                    game != "spades" or player.phase() == "play"):
                assert page.inner_text("#status").strip()
                pictures(page, f"{game}-mid")
                pictured = True
            play_one_move(player, game, moves)
            moves += 1
        else:
            raise AssertionError(f"the hand at {game} did not end")
        if moves:
            break
        sit_down(page, base_url, game, players, options)
        page.wait_for_selector(f"{root}[data-phase]")
    assert moves, "I never got to move"

    # The finished hand: the same mode name on every board, and the status says so.
    assert over(page, root)
    assert page.inner_text("#status").strip()
    pictures(page, f"{game}-hand-over")
    assert not problems, problems
    context.close()


# The stock as it is drawn now: marked, so that a redraw (a new element) shows.
MARK_STOCK_JS = "() => { document.querySelector('#stock').__pressed = true; }"
STOCK_KEPT_JS = "() => document.querySelector('#stock').__pressed === true"


class Pointer:
    """A mouse, or a finger through the DevTools protocol (a real touch: the browser makes
    the tap's click itself, as a task of its own after the release)."""

    def __init__(self, page: Page, kind: str) -> None:
        self.page, self.kind = page, kind
        self.cdp = page.context.new_cdp_session(page) if kind == "touch" else None

    def down(self, x: float, y: float) -> None:
        if self.cdp is None:
            self.page.mouse.move(x, y)
            self.page.mouse.down()
        else:
            self.cdp.send("Input.dispatchTouchEvent",
                          {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})

    def up(self) -> None:
        if self.cdp is None:
            self.page.mouse.up()
        else:
            self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("pointer", ["mouse", "touch"])
def test_a_press_is_not_lost_when_a_view_comes_before_its_release(
        browser: Browser, base_url: str, pointer: str) -> None:
    """Every view redraws the board from scratch. A view that came between a press on the
    stock and its release replaced the stock, and the browser clicked neither element: the
    draw was lost. The frame now draws such a view after the press's click, and a view that
    came while the pointer was down on no control is drawn once it is released."""
    touch = pointer == "touch"
    context = browser.new_context(viewport=PHONE_LANDSCAPE if touch else DESKTOP,
                                  has_touch=touch, is_mobile=touch)
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems = watch_console(page)
    table = ScriptedTable(page, base_url, "gin")
    finger = Pointer(page, pointer)
    state = engine_state("gin", phase=GinPhase.DRAW, to_act=0)
    view = state.view(0)
    table.show(view)
    page.wait_for_selector(".gin.my-turn #stock:enabled")

    page.evaluate(MARK_STOCK_JS)
    finger.down(*centre(page, "#stock"))
    table.show({**view, "stock": view["stock"] - 1})  # say, a seat's connection changed
    assert page.evaluate(STOCK_KEPT_JS), "the board was redrawn under the press"
    finger.up()
    page.wait_for_function("() => window.__sockets[0].sent.some(f => f.t === 'act')")
    assert [a["action"] for a in table.acts()] == [{"type": "draw_stock"}]
    # The held view was drawn after the click ("Sending…" with the new stock count).
    page.wait_for_function(
        "n => document.querySelector('#stock-count')?.textContent === String(n)",
        arg=view["stock"] - 1)

    # A press on no control: the view that came meanwhile is drawn on the release.
    table.show(view, ack=table.acts()[0]["id"])
    page.wait_for_selector(".gin.my-turn #stock:enabled")
    page.evaluate(MARK_STOCK_JS)
    finger.down(*centre(page, ".table-info", dx=2))
    table.show({**view, "stock": view["stock"] - 2})
    assert page.evaluate(STOCK_KEPT_JS), "the board was redrawn under the press"
    finger.up()
    page.wait_for_function(
        "n => document.querySelector('#stock-count')?.textContent === String(n)",
        arg=view["stock"] - 2)
    assert len(table.acts()) == 1
    assert not problems, problems
    context.close()
