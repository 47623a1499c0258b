"""The Spades table on a phone held upright (390 × 844), sideways (844 × 390) and on a
desktop (1280 × 800), in real Chromium against a real `cardtable serve` (issue 14).

At every size a person plays a whole hand against three computers: on a phone by taps
(a first tap picks a card, a second plays it), on a desktop by clicks and one drag onto
the trick. On each of his turns nothing of the table reaches past the screen's sides, the
page does not scroll sideways, every card of his hand shows a strip a finger can tap, and
during the play every seat's bid can be read: no trick card lies on it.

Then what used to mislead: Enter on the freshly opened bidding bids a middling number,
never Nil; Nil and Blind Nil need a second press; a card that cannot be played says the
engine's reason above it; an express (one-hand) match never says "game to 500".
Screenshots: artifacts/screenshots/phone-spades-<size>-<moment>.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from browser_harness import SIZES, round_trip, screen_context, screenshot, settle, watch_console
from fit_checks import assert_fits, assert_tappable
from test_board_frame import sit_down
from test_browser_spades import SpadesPlayer

PLAYS_ANIMATIONS = True  # (browser fixture) taps meet cards in flight, as a player's do

HAND = ".sp-hand .hand-card[data-card]"
SUITS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


def open_table(browser: Browser, base_url: str, size: str,
               options: dict[str, Any] | None = None) -> tuple[BrowserContext, Page]:
    """A 4-player table against computers; a phone is a touch screen that honours the
    page's viewport (a page wider than the phone would be zoomed out)."""
    context, page = screen_context(browser, size)
    sit_down(page, base_url, "spades", 4, options or {})
    page.wait_for_selector(".spades[data-phase]")
    return context, page


class Finger(SpadesPlayer):
    """A person who plays his cards by tapping: the first tap picks, the second plays."""

    def play_card(self) -> str:
        card = self.playable()[0]
        selector = f'.sp-hand .hand-card.playable[data-card="{card}"]'
        before = self.version()
        self.page.tap(selector, position={"x": 8, "y": 30})
        self.page.wait_for_selector(f'.sp-hand .hand-card.chosen[data-card="{card}"]')
        settle(self.page)
        assert self.version() == before, "one tap played the card"
        assert self.page.locator("#play-chosen").is_visible()
        self.page.tap(selector, position={"x": 8, "y": 30})
        self.wait_newer(before)
        return card


def drag_to_trick(player: SpadesPlayer) -> str:
    """Play the first playable card by dragging it onto the trick."""
    page = player.page
    card = player.playable()[0]
    box = page.locator(f'.sp-hand .hand-card.playable[data-card="{card}"]').bounding_box()
    trick = page.locator("#trick").bounding_box()
    assert box and trick
    before = player.version()
    page.mouse.move(box["x"] + 10, box["y"] + 30)
    page.mouse.down()
    page.mouse.move(box["x"] + 30, box["y"] - 20, steps=4)
    page.mouse.move(trick["x"] + trick["width"] / 2, trick["y"] + trick["height"] / 2, steps=6)
    page.mouse.up()
    player.wait_newer(before)
    return card


_BIDS_SEEN_JS = """() => {
  // Each seat's bid chip is on screen and nothing lies on it; no trick card touches a seat.
  const bad = [];
  const chips = [...document.querySelectorAll(
    '.seat-zone:not([hidden]) .bid-chip, .sp-hand-info .bid-chip')];
  for (const chip of chips) {
    const r = chip.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!r.width || r.right > innerWidth || r.left < 0 || r.bottom > innerHeight || r.top < 0) {
      bad.push(`${chip.textContent} off-screen`);
    } else if (!hit || !chip.contains(hit)) {
      const by = hit ? hit.className.baseVal ?? hit.className : 'nothing';
      bad.push(`${chip.textContent} covered by ${by}`);
    }
  }
  for (const card of document.querySelectorAll('#trick .trick-slot')) {
    const c = card.getBoundingClientRect();
    for (const zone of document.querySelectorAll('.seat-zone:not([hidden]) .seat-stats')) {
      const z = zone.getBoundingClientRect();
      if (c.left < z.right && c.right > z.left && c.top < z.bottom && c.bottom > z.top) {
        const seat = zone.parentElement.dataset.seat;
        bad.push(`trick card ${card.dataset.trickSeat} over seat ${seat}`);
      }
    }
  }
  return {bad, chips: chips.length};
}"""


def assert_table_fits(page: Page) -> None:
    """The whole table on the first screen: a mouse resting on a card would lift it over its
    neighbour, and a scroll would hide the top, so neither is left in place."""
    page.mouse.move(0, 0)
    page.evaluate("() => window.scrollTo(0, 0)")
    settle(page)
    assert_fits(page, "#app")
    if page.locator(HAND).count():
        assert_tappable(page, HAND)


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_hand_fits_and_plays(browser: Browser, base_url: str, size: str) -> None:
    context, page = open_table(browser, base_url, size)
    problems = watch_console(page)
    player: SpadesPlayer = Finger(page) if size != "desktop" else SpadesPlayer(page)
    shots: set[str] = set()
    moves: list[str] = []
    for _ in range(60):
        player.wait_until_ready()
        if player.hand_over():
            break
        phase = player.phase()
        assert_table_fits(page)
        if phase == "bid" and "bid" not in shots:
            assert len(player.hand()) == 13
            assert page.locator(".sp-hand-cards").evaluate(
                "el => el.classList.contains('two-rows')") == (size == "portrait")
            screenshot(page, f"phone-spades-{size}-bid")
            shots.add("bid")
        if phase == "play":
            seen = page.evaluate(_BIDS_SEEN_JS)
            assert seen["chips"] == 4 and not seen["bad"], seen
            if "trick" not in shots and player.trick_size() >= 2:
                screenshot(page, f"phone-spades-{size}-trick")
                shots.add("trick")
            if size == "desktop" and "drag" not in shots:
                moves.append(f"play {drag_to_trick(player)}")
                shots.add("drag")
                continue
        moves.append(player.play_turn())
    else:
        raise AssertionError(f"the hand did not end: {moves}")
    assert sum(m.startswith("play") for m in moves) == 13, moves
    page.locator("#hand-summary").wait_for(state="visible")
    settle(page)
    assert_fits(page, "#app")
    screenshot(page, f"phone-spades-{size}-hand-over")
    assert not problems, problems
    context.close()


def my_bid(page: Page) -> str:
    return page.inner_text(".sp-hand-info .bid-chip")


def test_enter_on_the_opened_bidding_never_bids_nil(browser: Browser, base_url: str) -> None:
    context, page = open_table(browser, base_url, "desktop")
    problems = watch_console(page)
    player = SpadesPlayer(page)
    player.wait_until_ready()
    assert player.phase() == "bid"
    page.wait_for_function("() => document.activeElement?.classList.contains('bid-button')")
    focused = page.evaluate("() => document.activeElement.dataset.bid")
    assert focused != "0", "the keyboard starts on Nil"
    # Bid how many tricks you expect: the first hand's hint line says what bidding is.
    assert "Bid how many tricks you expect to take" in page.inner_text(".spades")
    before = player.version()
    page.keyboard.press("Enter")
    player.wait_newer(before)
    assert my_bid(page) == f"Bid {focused}"
    assert not problems, problems
    context.close()


def test_nil_needs_a_second_press(browser: Browser, base_url: str) -> None:
    context, page = open_table(browser, base_url, "portrait")
    problems = watch_console(page)
    player = SpadesPlayer(page)
    player.wait_until_ready()
    assert player.phase() == "bid"
    version = player.version()

    # A tap on Nil only asks.
    page.tap("#bid-0")
    page.locator("#nil-confirm").wait_for(state="visible")
    assert "Bid Nil?" in page.inner_text("#nil-confirm")
    assert page.inner_text("#bid-0") == "Nil?"
    settle(page)
    assert_fits(page, "#app")
    screenshot(page, "phone-spades-portrait-nil-confirm")
    # A bid the tap sent would be answered before the server's answer to a ping sent after
    # it (one socket, frames handled in order): none came, none was sent.
    round_trip(page)
    assert player.version() == version and player.phase() == "bid"
    # Cancel, then the keys: N asks, Escape takes it back, a typed 0 asks too.
    page.tap("#cancel-nil")
    page.locator("#nil-confirm").wait_for(state="detached")
    page.keyboard.press("n")
    page.locator("#nil-confirm").wait_for(state="visible")
    page.keyboard.press("Escape")
    page.locator("#nil-confirm").wait_for(state="detached")
    page.keyboard.press("0")
    page.locator("#nil-confirm").wait_for(state="visible")
    round_trip(page)  # a bid sent by a key would have been answered by now
    assert player.version() == version, "a single key bid nil"
    # The second press bids it.
    page.keyboard.press("n")
    player.wait_newer(version)
    page.wait_for_function(
        "() => document.querySelector('.sp-hand-info .bid-chip')?.textContent === 'Nil'")
    assert page.locator("#nil-confirm").count() == 0
    assert not problems, problems
    context.close()


def test_blind_nil_needs_a_second_press(browser: Browser, base_url: str) -> None:
    # Blind nil at any score (margin 0), so the decision comes up in the first hand.
    context, page = open_table(browser, base_url, "desktop", {"blind_nil_margin": 0})
    problems = watch_console(page)
    player = SpadesPlayer(page)
    player.until_phase("blind_nil")  # not offered if a computer partner bid it first
    # The keyboard starts on looking at the cards, the safe choice.
    page.wait_for_function("() => document.activeElement?.id === 'look'")
    version = player.version()
    page.click("#blind-nil")
    page.locator("#blind-nil-confirm").wait_for(state="visible")
    round_trip(page)  # a bid sent by the click would have been answered by now
    assert player.version() == version and player.phase() == "blind_nil"
    player.click_and_wait("#confirm-blind-nil")
    page.wait_for_function(
        "() => document.querySelector('.sp-hand-info .bid-chip')?.textContent === 'Blind nil'")
    assert not problems, problems
    context.close()


def test_an_illegal_card_says_why_above_it(browser: Browser, base_url: str) -> None:
    """A card that does not follow suit: the engine's reason, next to the card, read out."""
    context, page = open_table(browser, base_url, "portrait")
    problems = watch_console(page)
    player = Finger(page)
    refused = None
    for _ in range(400):  # through as many hands as it takes
        player.wait_until_ready()
        if player.hand_over():
            player.next_hand()
            continue
        live = page.get_attribute("#trick", "data-state") != "done"
        if player.phase() == "play" and player.trick_size() and live:
            led = page.get_attribute("#trick .trick-slot.lead .card", "data-card") or ""
            unplayable = page.eval_on_selector_all(
                ".sp-hand .hand-card.unplayable", "els => els.map(e => e.dataset.card)")
            if unplayable and any(c[-1] == led[-1] for c in player.hand()):
                refused, suit = unplayable[-1], SUITS[led[-1]]
                break
        player.play_turn()
    assert refused is not None, "no turn with a card that does not follow suit came up"
    card = page.locator(f'.sp-hand .hand-card[data-card="{refused}"]')
    card.tap(position={"x": 8, "y": 30})
    reason = f"You must follow {suit}"
    note = page.locator("#hand-note")
    page.wait_for_function("text => document.getElementById('hand-note')?.textContent === text",
                           arg=reason)
    assert note.is_visible()
    assert card.get_attribute("aria-describedby") == "hand-note"
    # Above that very card, on screen.
    settle(page)
    n, c = note.bounding_box(), card.bounding_box()
    assert n and c
    assert n["y"] + n["height"] <= c["y"] + 2, (n, c)
    assert n["x"] < c["x"] + c["width"] and n["x"] + n["width"] > c["x"], (n, c)
    assert_fits(page, "#app")
    # Read out to screen readers too, and no toast in a far corner.
    page.wait_for_function(
        "text => document.getElementById('announcer')?.textContent.includes(text)", arg=reason)
    assert reason not in page.inner_text("#toasts")
    screenshot(page, "phone-spades-portrait-refused")
    # Still my turn; a legal card plays and the note goes.
    assert player.my_turn()
    player.play_card()
    page.wait_for_selector("#hand-note", state="hidden")
    assert not problems, problems
    context.close()


def test_an_express_match_says_one_hand(browser: Browser, base_url: str) -> None:
    context, page = open_table(browser, base_url, "landscape", {"deals": 1})
    problems = watch_console(page)
    player = SpadesPlayer(page)
    page.click("#scores-toggle")
    page.locator("#scoreboard").wait_for(state="visible")
    assert "one-hand match" in page.inner_text("#scoreboard-title")
    assert "game to" not in page.inner_text("#spades-scorecard")
    page.click("#scores-close")
    player.play_until_hand_over()
    page.wait_for_function(
        "() => document.querySelector('.spades')?.dataset.phase === 'match_over'")
    page.locator("#final-result").wait_for(state="visible")
    assert page.inner_text("#final-length") == "A one-hand match."
    assert "game to" not in page.inner_text(".spades")
    assert "500" not in page.inner_text("#final-result")
    settle(page)
    screenshot(page, "phone-spades-landscape-express-over")
    assert not problems, problems
    context.close()
