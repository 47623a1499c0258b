"""A guest's lasting identity in the browser (issue 17, items 1 and 5): a guest plays, comes
back, and sees his history; another browser does not; a name full of markup stays text.
Real Chromium against a real `cardtable serve`.
Screenshots: artifacts/screenshots/profile-<size>.png, my-matches-<size>.png.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from browser_harness import DESKTOP, SIZES, GinPlayer, new_page, resized, screenshot, watch_console
from test_browser_fairness import VERDICT

XSS = '<img src=x onerror=f()>A'  # 24 characters at most


@pytest.fixture
def guest(browser: Browser) -> Iterator[tuple[BrowserContext, Page]]:
    context, page = new_page(browser, DESKTOP)
    yield context, page
    context.close()


def play_one_hand(page: Page, base_url: str, name: str) -> str:
    """The page's browser creates a one-hand Gin table (so the cookie is its own), sits
    down and plays the hand to its end; returns the room code."""
    page.goto(f"{base_url}/")
    answer = page.request.post(f"{base_url}/api/tables", data={
        "game": "gin", "options": {"deals": 1}, "opponent": "computer", "name": name})
    assert answer.ok, answer.text()
    grant = answer.json()
    code = str(grant["code"])
    page.evaluate(
        """([code, g]) => localStorage.setItem('cardtable.v1', JSON.stringify({seats: {
             [code]: {table_id: g.table_id, seat: g.seat, token: g.token, at: Date.now()}}}))""",
        [code, grant])
    page.goto(f"{base_url}/t/{code}")
    page.wait_for_selector(".gin[data-phase]")
    GinPlayer(page).play_until_hand_over(max_turns=80)
    page.wait_for_selector(VERDICT)
    return code


def test_a_guest_comes_back_and_sees_his_history(guest: tuple[BrowserContext, Page],
                                                 browser: Browser, base_url: str) -> None:
    context, page = guest
    problems = watch_console(page)
    page.add_init_script("window.f = () => { window.__pwned = true; }")
    cookie = [c for c in context.cookies() if c["name"] == "cardtable_player"]
    assert cookie == []
    code = play_one_hand(page, base_url, XSS)
    [cookie] = [c for c in context.cookies() if c["name"] == "cardtable_player"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("() => document.cookie") == ""  # no script can read it

    page.goto(f"{base_url}/")  # he comes back
    panel = page.locator("#my-matches")
    panel.wait_for(state="visible")
    row = panel.locator(f'.match-row[data-code="{code}"]')
    assert row.count() == 1
    assert "Gin Rummy" in row.inner_text() and XSS in row.inner_text()
    assert row.locator(".match-result").inner_text() in ("Won", "Lost")
    for size, viewport in SIZES.items():
        resized(page, viewport)
        panel.scroll_into_view_if_needed()
        screenshot(page, f"my-matches-{size}")
    resized(page, DESKTOP)

    page.click("#my-profile")
    page.wait_for_selector("#profile-counts")
    assert page.inner_text("#profile-name") == XSS  # the name as text, never markup
    assert page.locator("main img").count() == 0
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator('#profile-counts tr[data-game="gin"] td').all_inner_texts()[:2] == \
        ["Gin Rummy", "1"]
    assert page.locator(f'#match-list .match-row[data-code="{code}"]').count() == 1
    figures = page.locator('#stats .stats-game[data-game="gin"] dt').all_inner_texts()
    assert figures[0] == "Hands won" and "Average deadwood at a knock" in figures
    profile_url = page.url
    for size, viewport in SIZES.items():
        resized(page, viewport)
        screenshot(page, f"profile-{size}")
    assert problems == []

    # Another browser is another guest: no history of his own, but the profile is public.
    other, stranger = new_page(browser, DESKTOP)
    try:
        stranger.goto(f"{base_url}/")
        stranger.wait_for_selector(".game-slot .game-card, .game-picker", timeout=15_000)
        assert stranger.locator("#my-matches").is_hidden()
        stranger.goto(profile_url)
        stranger.wait_for_selector("#profile-counts")
        assert "That is you" not in stranger.inner_text("main")
        stranger.goto(f"{base_url}/p/nosuchplayer")
        stranger.wait_for_selector(".form-error")
        assert "No player has that address" in stranger.inner_text(".form-error")
    finally:
        other.close()
