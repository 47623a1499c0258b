"""The frame's hint line and the last hand's leftovers (issue 14, items 3 and 4), in Chromium.

A new player sees a one-line tip on his turn (each board's ``spec.hint``), shown by the
frame (games/board.js) during his first hands in this browser, with a "Got it" that
turns the tips off for good. When a new hand is dealt, the last-move line and the
toasts of the hand before are cleared: they no longer describe the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from browser_harness import (
    DESKTOP,
    PHONE_LANDSCAPE,
    PHONE_PORTRAIT,
    GinPlayer,
    frames,
    resized,
    screenshot,
    watch_console,
)
from test_board_frame import sit_down
from test_browser_rummy import game_ready

pytestmark = pytest.mark.slow


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context: BrowserContext = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def stored_prefs(page: Page) -> dict[str, Any]:
    data = json.loads(page.evaluate("() => localStorage.getItem('cardtable.v1') || '{}'"))
    prefs: dict[str, Any] = data.get("prefs", {})
    return prefs


def gin_table(page: Page, base_url: str, prefs: dict[str, Any] | None = None) -> GinPlayer:
    game_ready(base_url, "gin")
    sit_down(page, base_url, "gin", 2, {})
    if prefs:
        page.evaluate("""p => { const d = JSON.parse(localStorage.getItem('cardtable.v1'));
          d.prefs = p; localStorage.setItem('cardtable.v1', JSON.stringify(d)); }""", prefs)
        page.reload()
    page.wait_for_selector(".gin[data-phase]")
    return GinPlayer(page)


def my_play_turn(player: GinPlayer) -> None:
    """Until my turn in a hand. A computer dealt a hand fit to knock may take the upcard
    and knock before my first turn: then the next hand."""
    for _ in range(3):
        player.wait_until_ready()
        if not player.hand_over():
            break
        player.next_hand()
    else:
        raise AssertionError("three hands ended before my first turn")
    player.page.wait_for_selector(".gin.my-turn")


def test_the_hint_line_shows_on_a_new_players_turn_until_got_it(page: Page, base_url: str) -> None:
    problems = watch_console(page)
    player = gin_table(page, base_url)
    my_play_turn(player)
    hint = page.locator("#hint-line")
    hint.wait_for(state="visible")
    assert page.get_attribute("#hint-line", "role") == "note"
    text = page.inner_text("#hint-text").strip()
    assert text and len(text) < 160, text
    sizes = (("portrait", PHONE_PORTRAIT), ("landscape", PHONE_LANDSCAPE), ("desktop", DESKTOP))
    for name, size in sizes:
        resized(page, size)
        assert hint.is_visible()
        screenshot(page, f"hint-gin-{name}")

    # "Got it": gone now, and after a reload, for good.
    page.click("#hint-dismiss")
    assert not hint.is_visible()
    assert stored_prefs(page).get("hintsOff") is True
    focused = page.evaluate("() => document.activeElement && document.activeElement.tagName")
    assert focused == "BUTTON", "the keyboard focus fell back to the page"
    page.reload()
    page.wait_for_selector(".gin[data-phase]")
    player.wait_until_ready()
    if not player.hand_over():
        page.wait_for_selector(".gin.my-turn")
        # The draw that marked my turn decided the hint line too (games/board.js): drawn.
        frames(page)
        assert not hint.is_visible()
    assert not problems, problems


def test_no_hint_once_three_hands_are_played(page: Page, base_url: str) -> None:
    player = gin_table(page, base_url, prefs={"handsPlayed": 3})
    my_play_turn(player)
    # The draw that marked my turn decided the hint line too (games/board.js): drawn.
    frames(page)
    assert page.locator("#hint-line").is_hidden()
    assert page.inner_text("#status").strip()  # the turn is still said in the status line


def test_a_new_hand_clears_the_last_move_and_the_toasts(page: Page, base_url: str) -> None:
    player = gin_table(page, base_url)
    player.play_until_hand_over()
    assert stored_prefs(page).get("handsPlayed") == 1
    # Something said during the hand, still up when it ends.
    page.evaluate("""() => import('/static/toast.js')
      .then(m => m.toast('That card cannot be discarded now.', 'info'))""")
    page.wait_for_selector("#toasts .toast")
    old_move = page.inner_text("#last-move").strip()

    player.next_hand()
    assert page.locator("#toasts .toast").count() == 0
    new_move = page.inner_text("#last-move").strip()
    assert not old_move or new_move != old_move, (old_move, new_move)
    assert stored_prefs(page).get("handsPlayed") == 1  # each finished hand counted once
