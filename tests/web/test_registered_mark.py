"""A registered player's mark in the browser (issue 26, point 4): at a table, his seat chip
carries a small check badge ("registered player" to a screen reader) beside his username,
a guest's chip none; his profile's heading carries it too. Real Chromium against a real
`cardtable serve`. Screenshots: artifacts/screenshots/registered-seat-<size>.png,
registered-profile-desktop.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    DESKTOP,
    SIZES,
    WebServer,
    registered_page,
    remember_seat,
    running_server,
    screen_context,
    screenshot,
    watch_console,
)

MARK = ".registered-mark"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """Trusting 127.0.0.1 as a proxy: Rosa's browser registers from an address of its own."""
    with running_server(tmp_path_factory.mktemp("registered"),
                        CARDTABLE_TRUSTED_PROXIES="127.0.0.1") as server:
        yield server


def sit(page: Page, base: str, grant: dict[str, object]) -> None:
    remember_seat(page, base, grant)
    page.goto(f"{base}/t/{grant['code']}")


def test_the_seat_chips_mark_the_registered_player(browser: Browser, server: WebServer) -> None:
    base, username = server.base_url, f"Rosa{server.port}"
    owner, host = registered_page(browser, base, username)
    grant = host.request.post(f"{base}/api/tables", data={
        "game": "gin", "opponent": "friend", "name": "Rosa", "settings": {"turn_time": 0}}).json()
    guest_context = browser.new_context(viewport=DESKTOP)
    guest = guest_context.new_page()
    guest.goto(f"{base}/")
    joined = guest.request.post(f"{base}/api/tables/{grant['code']}/join",
                                data={"name": "Gus"})
    assert joined.ok, joined.text()
    try:
        sit(host, base, grant)  # Rosa's own page: her chip ("You") carries it too
        host.wait_for_selector(f'.seat-chip.me {MARK}')
        for size in SIZES:
            context, page = screen_context(browser, size)
            try:
                problems = watch_console(page)
                sit(page, base, {**joined.json(), "code": grant["code"]})
                rosa = page.locator('.seat-chip[data-seat="0"]')
                rosa.locator(f'.seat-name:text("{username}")').wait_for()
                page.wait_for_selector(".gin[data-phase]")  # the board drawn, for the picture
                assert rosa.locator(MARK).get_attribute("aria-label") == "registered player"
                assert "registered player" in (rosa.get_attribute("aria-label") or "")
                gus = page.locator('.seat-chip[data-seat="1"]')  # "You"
                assert gus.locator(MARK).count() == 0
                assert "registered" not in (gus.get_attribute("aria-label") or "")
                screenshot(page, f"registered-seat-{size}")
                # Read at once: a new seats frame redraws the chips (a locator read
                # twice may find the old chip gone in between).
                mark, name = page.evaluate(f"""() => {{
                    const chip = document.querySelector('.seat-chip[data-seat="0"]');
                    const box = (el) => {{ const r = el.getBoundingClientRect();
                                           return {{x: r.x, width: r.width}}; }};
                    return [box(chip.querySelector('{MARK}')),
                            box(chip.querySelector('.seat-name'))]; }}""")
                assert mark["width"] > 6  # drawn, not collapsed
                assert mark["x"] >= name["x"] + name["width"] - 1  # beside, not over, the name
                assert problems == []
            finally:
                context.close()
        me = host.request.get(f"{base}/api/me").json()
        host.goto(f"{base}/p/{me['player_id']}")
        host.wait_for_selector(f"#profile-name {MARK}")
        assert host.inner_text("#profile-name").startswith(username)
        screenshot(host, "registered-profile-desktop")
        other = guest.request.get(f"{base}/api/me").json()
        guest.goto(f"{base}/p/{other['player_id']}")
        guest.wait_for_selector("#profile-name")
        assert guest.locator(f"#profile-name {MARK}").count() == 0
    finally:
        owner.close()
        guest_context.close()
