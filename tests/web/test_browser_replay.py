"""A finished match's replay in the browser (issue 17, item 6), real Chromium against a real
`cardtable serve`: from the profile's match list to the replay, every hand face up, steps
forward and back by buttons, keys and the slider, the deals proved, the file downloadable.
Screenshots: artifacts/screenshots/replay-<size>.png."""

from __future__ import annotations

from playwright.sync_api import Browser

from browser_harness import DESKTOP, SIZES, new_page, resized, screenshot, watch_console
from cardtable.match_file import verify
from test_browser_players import play_one_hand


def move_number(text: str) -> int:
    return int(text.split()[1])


def test_a_replay_steps_through_the_match_face_up(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    try:
        problems = watch_console(page)
        code = play_one_hand(page, base_url, "Rita")
        me = page.request.get(f"{base_url}/api/me").json()
        page.goto(f"{base_url}/p/{me['player_id']}")
        page.click(f'.match-row[data-code="{code}"] .replay-link')
        page.wait_for_selector("#replay-step")
        assert "Every hand is face up" in page.inner_text("#replay-state")
        page.wait_for_selector('#replay-fair[data-fair="ok"]')
        assert move_number(page.inner_text("#replay-move")) == 0
        assert page.locator('.replay-seat[data-seat="0"] .card').count() == 10
        assert page.locator('.replay-seat[data-seat="1"] .card').count() == 10  # face up

        page.click("#replay-forward")
        page.click("#replay-forward")
        assert move_number(page.inner_text("#replay-move")) == 2
        page.keyboard.press("ArrowLeft")
        assert move_number(page.inner_text("#replay-move")) == 1
        page.click("#replay-last")
        last = page.inner_text("#replay-move")
        total = int(last.split()[3])
        # Every move of the match, however short the deal made it (a knock at move 4 once).
        href = page.get_attribute("#replay-download", "href")
        assert href is not None
        document = page.request.get(f"{base_url}{href}").json()
        assert move_number(last) == total == len(document["record"]["actions"]) >= 2
        page.click("#replay-back")
        assert move_number(page.inner_text("#replay-move")) == total - 1
        page.locator("#replay-slider").fill(str(total // 2))
        assert move_number(page.inner_text("#replay-move")) == total // 2
        for size, viewport in SIZES.items():
            resized(page, viewport)
            screenshot(page, f"replay-{size}")
        assert verify(document).ok
        assert problems == []
    finally:
        context.close()
