"""The Indian Rummy board on a phone, in real Chromium against a real server.

Held upright (390 × 844), sideways (844 × 390) and on a desktop (1280 × 800): a few turns
of a deal against two computers, then a drop, and the deal to its end. At every turn of
mine the table must fit the screen (nothing past its sides, no sideways scroll) and every
card of my hand, in its groups, must show a strip a finger can tap (fit_checks.py). On the
phone sizes the page is a touch screen and the player taps: a card, then the open deck to
discard it. Screenshots: artifacts/screenshots/phone-indian-<size>-<moment>.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from browser_harness import screenshot, watch_console
from fit_checks import assert_fits
from test_board_frame import sit_down
from test_browser_indian import IndianPlayer, bot_ready
from test_phone_rummy import SIZES, TABLE, check_tappable, phone_page, settle

PLAYS_ANIMATIONS = True  # (browser fixture) taps meet cards in flight, as a player's do

HAND = "#my-hand .hand-card"
MY_DRAWS_BEFORE_THE_DROP = 3


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_a_deal_fits_every_screen_and_plays_by_taps(browser: Browser, base_url: str,
                                                     size: str) -> None:
    bot_ready()
    with phone_page(browser, size) as page:
        problems = watch_console(page)
        sit_down(page, base_url, "indian", 3, {"preset": "points"})
        page.wait_for_selector(".indian[data-phase]")
        player = IndianPlayer(page, touch=size != "desktop")
        player.wait_until_ready()
        # The wild rank in words, the cut card named apart from it.
        wild = page.inner_text("#wild-text")
        assert wild.endswith(" are wild") and not any(c.isdigit() for c in wild), wild
        assert page.inner_text("#cut-card-text").startswith("cut card ")
        if not player.deal_over() and player.phase() == "draw":
            hint = page.locator("#hint-text")
            if hint.count():
                assert "closed deck" in hint.inner_text()
        moves: list[str] = []
        pictured = False
        for _ in range(60):
            player.wait_until_ready()
            if player.deal_over():
                break
            settle(page)
            assert_fits(page, TABLE)
            check_tappable(page, HAND)
            if player.phase() == "discard" and not pictured:
                screenshot(page, f"phone-indian-{size}-play")
                pictured = True
            moves.append(player.play_turn(drop=moves.count("draw") >= MY_DRAWS_BEFORE_THE_DROP))
            if moves[-1] == "drop":
                break
        else:
            raise AssertionError(f"the deal did not end: {moves}")
        # Both computers may drop before my first turn (a first drop of a hopeless hand):
        # the deal is then over with no move of mine, and its result must fit all the same.
        # A hand dealt nearly complete (wild cards) may be shown at my first discard.
        assert not moves or "drop" in moves or any(
            m.startswith(("discard", "declare")) for m in moves), moves

        # Dropped or not, the deal ends (the computers play it out) and its result fits too.
        page.locator("#deal-result").wait_for(state="visible", timeout=120_000)
        settle(page)
        assert_fits(page, TABLE)
        for button in page.locator(".status-bar .buttons button:visible").all():
            box = button.bounding_box()
            assert box and box["y"] + box["height"] <= SIZES[size]["height"], button.inner_text()
        screenshot(page, f"phone-indian-{size}-deal-over")
        # Points rummy is one deal: the scorecard and the final panel say so, with no target.
        page.locator("#final-result").wait_for(state="visible")
        if not page.locator("#scorecard").is_visible():
            player.press("#scores-toggle")
        caption = page.inner_text("#score-history caption")
        assert "Points rummy" in caption and " to " not in caption, caption
        assert_fits(page, TABLE)
        assert not problems, problems


@pytest.mark.parametrize("size", ["portrait", "landscape"])
def test_regrouping_by_taps_on_a_phone(browser: Browser, base_url: str, size: str) -> None:
    """Tap two cards, tap Group: a group of their own; every card still tappable after."""
    bot_ready()
    with phone_page(browser, size) as page:
        problems = watch_console(page)
        sit_down(page, base_url, "indian", 2, {"preset": "pool101"})
        page.wait_for_selector(".indian[data-phase]")
        player = IndianPlayer(page, touch=True)
        for _ in range(4):  # a computer may drop at once and end the deal: on to the next
            player.wait_until_ready()
            if not player.deal_over():
                break
            player.next_deal()
        loose = player.cards(".in-group.loose .hand-card")
        assert len(loose) >= 2
        for card in loose[:2]:
            player.select(card["key"])
        player.press("#group-cards")
        page.wait_for_selector("#my-hand .in-group.kind-free")
        settle(page)
        grouped = [c for kind, cards in player.groups() if kind == "free" for c in cards]
        assert sorted(grouped) == sorted(c["card"] for c in loose[:2])
        assert_fits(page, TABLE)
        check_tappable(page, HAND)
        screenshot(page, f"phone-indian-{size}-regrouped")
        assert not problems, problems
