"""A rated table in the browser (issue 26, point 3): no Hint button and no hint by key,
and a player away past the seat grace loses the match: the others see it on his seat
chip and in a notice, he sees a banner when he is back. Real Chromium, a real
`cardtable serve` trusting 127.0.0.1 as a proxy (each browser from an address of its own)
with a two-second grace. Screenshots: artifacts/screenshots/rated-no-hint-*.png,
rated-forfeit-*.png."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browser_harness import (
    DESKTOP,
    SIZES,
    WebServer,
    rated_gin_table,
    resized,
    running_server,
    screenshot,
)
from cardtable.server.table.presence import DROPS_LOSE

WEB = Path(__file__).resolve().parents[2] / "src" / "cardtable" / "web"


def test_the_page_and_the_server_agree_on_the_drops_that_lose() -> None:
    found = re.search(r"export const DROPS_LOSE = (\d+);", (WEB / "table_life.js").read_text())
    assert found and int(found.group(1)) == DROPS_LOSE


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with running_server(tmp_path_factory.mktemp("rated-table"),
                        CARDTABLE_TRUSTED_PROXIES="127.0.0.1", CARDTABLE_SEAT_GRACE="2") as server:
        yield server


def test_a_rated_table_has_no_hints_and_shows_who_lost_by_being_away(
        browser: Browser, rated_server: WebServer) -> None:
    base = rated_server.base_url
    with rated_gin_table(browser, rated_server, turn_time=0) as table:
        ann, bob, code = table.ann, table.bob, table.grants[0]["code"]
        # No Hint button at any size; the H key says why instead of asking.
        for size, viewport in SIZES.items():
            resized(ann, viewport)
            assert ann.locator("#hint-button").count() == 0
            screenshot(ann, f"rated-no-hint-{size}")
        resized(ann, DESKTOP)
        ann.locator("body").press("h")
        ann.wait_for_function(
            "() => document.getElementById('announcer')?.textContent === "
            "'No hints at a rated table.'")

        # Bob's page goes away past the grace: he has lost the match, Ann is told.
        bob.close()
        chip = '.seat-chip[data-seat="1"] .forfeit-tag'
        ann.wait_for_selector(chip)
        notice = ann.locator(".life-notice", has_text="loses this rated match")
        notice.wait_for()
        assert "away longer than the grace period" in notice.inner_text()
        screenshot(ann, "rated-forfeit-others")
        # He comes back: the seat is his, and a banner says he lost the match.
        back = bob.context.new_page()
        back.set_default_timeout(15_000)
        back.goto(f"{base}/t/{code}")
        back.wait_for_selector(".gin[data-phase]")
        banner = back.locator("#forfeit-banner")
        banner.wait_for()
        assert "You lost this rated match" in banner.inner_text()
        for size, viewport in SIZES.items():
            resized(back, viewport)
            assert banner.is_visible()
            screenshot(back, f"rated-forfeit-{size}")
        assert table.problems == []
