"""Hints and computer levels at the table (issue 16, items 2 and 3), in real Chromium
against a real `cardtable serve`.

The Hint button (and the H key) shows on my turn what the hard computer would play and
why, under the status line, read aloud, with the cards or the pile it names marked; the
next move takes it away. A host who turns hints off takes the button away from everyone
at the table. A computer's seat chip says its level ("Computer · Hard"). At a phone held
upright, one held sideways and a desktop, the button fits with the rest of the table.
Screenshots: artifacts/screenshots/hints-<game>-<size>.png.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    SIZES,
    new_page,
    round_trip,
    screen_context,
    screenshot,
    settle,
    watch_console,
)
from fit_checks import assert_fits, assert_tappable
from test_board_frame import sit_down
from test_browser_table_life import create_table, join_table, seated_page

pytestmark = pytest.mark.slow

APP = "#app"  # the page but the skip link, which waits off-screen until it is focused
ROOTS = {"gin": ".gin", "spades": ".spades"}


def computers_table(page: Page, base_url: str, game: str, players: int,
                    levels: list[str]) -> None:
    """A table against computers of ``levels`` (seat 0 is mine), the tips of a new player
    off (their line would sit where the hint's does), and wait for my turn."""
    grant = httpx.post(f"{base_url}/api/tables", json={
        "game": game, "opponent": "computer", "name": "Ann", "players": players,
        "settings": {"turn_time": 0, "levels": levels}}, timeout=10).json()
    page.goto(f"{base_url}/")
    page.evaluate("""([code, g]) => localStorage.setItem('cardtable.v1', JSON.stringify({
        prefs: {hintsOff: true},
        seats: {[code]: {table_id: g.table_id, seat: g.seat, token: g.token, at: Date.now()}}}))""",
                  [grant["code"], grant])
    page.goto(f"{base_url}/t/{grant['code']}")
    wait_my_turn(page, ROOTS[game])


def wait_my_turn(page: Page, root: str) -> None:
    page.wait_for_function("r => document.querySelector(r)?.classList.contains('my-turn')",
                           arg=root, timeout=60_000)


def version(page: Page) -> int:
    return int(page.get_attribute(".table-page", "data-version") or -1)


def reason(page: Page) -> str:
    page.wait_for_selector("#hint-reason:not([hidden])")
    return page.inner_text("#hint-reason")


def announced(page: Page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#announcer')?.textContent === t",
                           arg=text)


def test_a_hint_at_a_gin_table_by_button_and_key(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, SIZES["desktop"])
    problems = watch_console(page)
    try:
        computers_table(page, base_url, "gin", 2, ["normal", "hard"])
        # The computer's chip says its level; mine says none.
        chip = '.seat-chip[data-seat="1"]'
        assert page.inner_text(f"{chip} .level-tag") == "· Hard"
        assert page.get_attribute(chip, "data-level") == "hard"
        assert "computer, hard" in (page.get_attribute(chip, "aria-label") or "")
        assert page.locator('.seat-chip[data-seat="0"] .level-tag').count() == 0
        assert "H\u00a0hint" in page.inner_text("#help-line")
        before = version(page)
        page.click("#hint-button")
        said = reason(page)
        assert said.startswith("Hint: ") and len(said) > len("Hint: ")
        announced(page, said)
        assert version(page) == before  # a hint is no move
        # What it names is marked on the table: a card of my hand or a pile.
        marked = page.eval_on_selector_all(".gin .hinted",
                                           "els => els.map(e => e.dataset.card || e.dataset.pile)")
        legal = page.evaluate("() => document.querySelector('.gin').dataset.phase")
        assert marked or legal == "first_upcard", "nothing marked for a draw or a discard"
        # My move (the computer's answer follows): the hint is gone with the table it was for.
        move = "#pass:enabled, #stock:enabled"
        page.click(move)
        page.wait_for_function("v => Number(document.querySelector('.table-page')"
                               "?.dataset.version) > v", arg=before)
        page.wait_for_selector("#hint-reason", state="hidden")
        assert page.locator(".gin .hinted").count() == 0
        # H asks again on my next turn.
        wait_my_turn(page, ".gin")
        page.locator("body").click(position={"x": 5, "y": 300})  # the focus off any button
        page.keyboard.press("h")
        assert reason(page).startswith("Hint: ")
        assert not problems, problems
    finally:
        context.close()


def test_a_hint_at_a_spades_table(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, SIZES["desktop"])
    problems = watch_console(page)
    try:
        computers_table(page, base_url, "spades", 4, ["normal", "hard", "expert", "easy"])
        tags = page.eval_on_selector_all(".seat-chip[data-seat] .level-tag",
                                         "els => els.map(e => e.textContent)")
        assert tags == ["· Hard", "· Expert", "· Easy"]
        page.keyboard.press("H")
        said = reason(page)
        assert said.startswith("Hint: ")
        # The move it names is marked: the bid's button while I bid, else the card.
        marked = page.eval_on_selector_all(
            ".spades .hinted", "els => els.map(e => e.dataset.bid ?? e.dataset.card ?? e.id)")
        assert len(marked) == 1, marked
        if page.locator("#bid-panel").count():
            assert page.locator(f'.bid-button[data-bid="{marked[0]}"]').count() == 1
        # Not checked here that the announcer says it: three computers' moves are announced
        # too and may take its place at once (the Gin test checks the announcement).
        assert not problems, problems
    finally:
        context.close()


def test_the_host_turns_hints_off_for_the_guest(browser: Browser, base_url: str) -> None:
    grant = create_table(base_url)
    guest = join_table(base_url, grant["code"], "Bob")
    ann_context, ann, ann_problems = seated_page(browser, base_url, grant)
    bob_context, bob, bob_problems = seated_page(browser, base_url, guest)
    try:
        for page in (ann, bob):
            page.wait_for_selector("#hint-button")
        ann.click("#table-toggle")
        ann.locator("#set-hints").wait_for()
        assert ann.is_checked("#set-hints")
        screenshot(ann, "hints-settings-drawer")
        ann.uncheck("#set-hints")
        bob.wait_for_selector("#hint-button", state="detached")
        ann.wait_for_selector("#hint-button", state="detached")
        assert "H\u00a0hint" not in bob.inner_text("#help-line")
        assert httpx.get(f"{base_url}/api/tables/{grant['code']}").json()["settings"][
            "hints"] is False
        bob.click("#table-toggle")
        assert bob.inner_text('#settings-summary dd[data-setting="hints"]') == "Off"
        # The key asks nothing either: no error comes back, nothing is shown.
        bob.keyboard.press("Escape")
        bob.keyboard.press("h")
        # Had the key asked, the server's answer (a hint or an error) would come before its
        # answer to a ping sent after it (one socket, frames handled in order).
        round_trip(bob)
        assert bob.locator("#hint-reason").is_hidden()
        assert not bob.locator(".toast").count()
        ann.check("#set-hints")
        bob.wait_for_selector("#hint-button")
        assert not ann_problems and not bob_problems, ann_problems + bob_problems
    finally:
        ann_context.close()
        bob_context.close()


def test_spectators_get_no_hint_button(browser: Browser, base_url: str) -> None:
    grant = create_table(base_url)
    join_table(base_url, grant["code"], "Bob")
    context, page = new_page(browser, SIZES["desktop"])
    try:
        page.goto(f"{base_url}/t/{grant['code']}")
        page.click("#watch")
        page.wait_for_selector(".seat-chip.watching")
        page.wait_for_selector(".gin[data-phase]")
        assert page.locator("#hint-button").count() == 0
    finally:
        context.close()


@pytest.mark.parametrize("game", ["gin", "spades"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_hint_fits_every_screen(browser: Browser, base_url: str, game: str,
                                    size: str) -> None:
    context, page = screen_context(browser, size)
    try:
        players = 2 if game == "gin" else 4
        computers_table(page, base_url, game, players, ["normal"] + ["hard"] * (players - 1))
        button = page.locator("#hint-button")
        box = button.bounding_box()
        assert box is not None and box["height"] >= 24 and box["width"] >= 40
        button.tap() if size != "desktop" else button.click()
        reason(page)
        settle(page)
        screenshot(page, f"hints-{game}-{size}")
        assert_fits(page, APP)
        box = button.bounding_box()
        viewport: Any = page.viewport_size
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        if game == "gin":
            assert_tappable(page, ".my-hand .hand-card[data-card]")
        hit = page.evaluate("""() => {
            const b = document.querySelector('#hint-button').getBoundingClientRect();
            const el = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
            return el?.closest('#hint-button') !== null; }""")
        assert hit, "something covers the Hint button"
    finally:
        context.close()


def test_the_button_is_the_frames_on_every_board(browser: Browser, base_url: str) -> None:
    """The Hint button is the board frame's, not a game's: a Rummy table has it too."""
    context, page = new_page(browser, SIZES["desktop"])
    try:
        sit_down(page, base_url, "rummy", 2, {})
        page.wait_for_selector(".rummy[data-phase]")
        page.wait_for_selector("#hint-button")
    finally:
        context.close()
