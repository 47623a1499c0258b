"""Accounts in the browser (issue 17, item 2), real Chromium against a real `cardtable serve`:
a guest who played registers on the account page and keeps his matches; a weak password
is refused with the server's reason (the common list's, or zxcvbn's warning and
suggestions: issue 26, item 4); he signs out, and signs in again in another browser,
where his matches are. Screenshots: artifacts/screenshots/account-<size>.png and
account-weak-<size>.png."""

from __future__ import annotations

from playwright.sync_api import Browser

from browser_harness import DESKTOP, new_page, screenshot_sizes, watch_console
from test_browser_players import play_one_hand

PASSWORD = "violets are blue"


def test_a_guest_registers_signs_out_and_signs_in_elsewhere(browser: Browser,
                                                           base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    other, elsewhere = new_page(browser, DESKTOP)
    try:
        problems = watch_console(page)
        code = play_one_hand(page, base_url, "Ivy")
        page.goto(f"{base_url}/")
        page.wait_for_selector("#my-matches:not([hidden])")
        assert page.inner_text("#account-corner") == "Sign in"
        page.click("#account-corner")
        page.wait_for_selector("#register")
        assert "guest Ivy" in page.inner_text("#account-state")
        screenshot_sizes(page, "account")

        page.fill("#register-username", "Ivy")
        page.fill("#register-password", "password123")
        page.click("#register button[type=submit]")
        page.wait_for_selector("#register-error:has-text('most common')")
        page.fill("#register-password", "aaaaaaaaaa")
        page.click("#register button[type=submit]")
        page.wait_for_selector("#register-error:has-text('too easy to guess')")
        assert "Avoid repeated words" in page.inner_text("#register-error")
        screenshot_sizes(page, "account-weak")
        page.fill("#register-password", PASSWORD)
        page.click("#register button[type=submit]")
        page.wait_for_selector("#account-state:has-text('Signed in as Ivy')")
        page.click("#account-profile")
        page.wait_for_selector(f'#match-list .match-row[data-code="{code}"]')  # kept

        page.goto(f"{base_url}/")
        page.wait_for_selector("#account-corner:has-text('Ivy')")
        page.goto(f"{base_url}/account")
        page.click("#sign-out")
        page.wait_for_selector("#sign-in")
        assert "not played here yet" in page.inner_text("#account-state")

        elsewhere.goto(f"{base_url}/account")
        elsewhere.fill("#sign-in-username", "ivy")
        elsewhere.fill("#sign-in-password", PASSWORD + "?")
        elsewhere.click("#sign-in button[type=submit]")
        elsewhere.wait_for_selector("#sign-in-error:has-text('wrong username or password')")
        elsewhere.fill("#sign-in-password", PASSWORD)
        elsewhere.click("#sign-in button[type=submit]")
        elsewhere.wait_for_selector("#account-state:has-text('Signed in as Ivy')")
        elsewhere.click("#account-profile")
        elsewhere.wait_for_selector(f'#match-list .match-row[data-code="{code}"]')
        assert [p for p in problems if "401" not in p and "422" not in p] == []
    finally:
        context.close()
        other.close()
