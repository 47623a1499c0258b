"""The Gin table on a phone held upright (390 × 844), sideways (844 × 390) and on a
desktop (1280 × 800), in real Chromium against a real `cardtable serve` (issue 14).

At every size a person plays a whole express match (one hand) against the computer: on
a phone by taps (a first tap picks a card, then Discard, a second tap or the pile
discards it), on a desktop by clicks. On each of his turns nothing of the table reaches
past the screen's sides, the page does not scroll sideways and every card of his hand
(eleven while he discards) shows a strip a finger can tap. At the end the showdown and
the settlement fit too, the settlement's rows add up to its total, no card sticks out of
its panel and the Rematch button is on screen without scrolling.

Then what used to mislead: a shutout row said "yes" (rows that did not add up), a
laid-off card hid the card under it, an express match said "Game to 100", a match ended
by agreement left a blank status and "deals next" with no name, deadwood came unsorted.
Screenshots: artifacts/screenshots/phone-gin-<size>-<moment>.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from browser_harness import (
    PHONE_PORTRAIT,
    SHOWDOWN_ANSWERED,
    SIZES,
    GinPlayer,
    screen_context,
    screenshot,
    settle,
    watch_console,
)
from fit_checks import assert_fits, assert_tappable, untappable
from test_board_frame import sit_down

PLAYS_ANIMATIONS = True  # (browser fixture) taps meet cards in flight, as a player's do

HAND = ".my-hand .hand-card[data-card]"
APP = "#app"  # the page but the skip link, which waits off-screen until it is focused
RANKS = "A23456789TJQK"
STRIP = {"x": 8, "y": 30}  # where a finger taps an overlapped card: its visible left strip


def open_table(browser: Browser, base_url: str, size: str,
               options: dict[str, Any] | None = None) -> tuple[BrowserContext, Page]:
    """A Gin table against the computer; a phone is a touch screen that honours the page's
    viewport (a page wider than the phone would be zoomed out)."""
    context, page = screen_context(browser, size)
    sit_down(page, base_url, "gin", 2, options or {})
    page.wait_for_selector(".gin[data-phase]")
    return context, page


class Finger(GinPlayer):
    """A person who plays by tapping: a card is picked by a first tap and discarded by the
    Discard button, a second tap, or a tap on the pile (he uses each in turn)."""

    def __init__(self, page: Page, size: str) -> None:
        super().__init__(page)
        self.size = size
        self.discards = 0

    def tap_and_wait(self, selector: str, position: Any = None) -> None:
        before = self.version()
        self.page.tap(selector, position=position)
        self.wait_newer(before)

    def play_turn(self) -> str:
        phase = self.phase()
        if phase in ("first_upcard", "final_discard"):
            self.tap_and_wait("#pass")
            return "pass"
        if phase == "draw":
            self.tap_and_wait("#stock")
            return "draw"
        assert phase == "discard", phase
        if self.enabled("#big-gin"):
            self.tap_and_wait("#big-gin")
            return "big gin"
        for button in ("#gin", "#knock"):
            if self.enabled(button):
                before = self.version()
                self.page.tap(button)
                if self.offers_a_choice(before):
                    self.page.locator(".chooser .choice").first.tap()
                self.wait_newer(before)
                return button[1:]
        card = self.highest_deadwood_card()
        selector = f'.my-hand .hand-card[data-card="{card}"]'
        before = self.version()
        self.page.tap(selector, position=STRIP)
        self.page.wait_for_selector(f'.my-hand .hand-card.selected[data-card="{card}"]')
        assert self.version() == before, "one tap discarded the card"
        assert self.page.locator("#discard").is_visible()
        settle(self.page)
        assert_tappable(self.page, HAND)  # the raised card covers none of its neighbours
        if not self.discards:
            screenshot(self.page, f"phone-gin-{self.size}-selected")
        finish = ("#discard", selector, "#pile")[self.discards % 3]
        self.discards += 1
        self.page.tap(finish, position=STRIP if finish == selector else None)
        self.wait_newer(before)
        assert card not in self.hand()
        return f"discard {card} by {finish}"


def ranks_in_order(cards: list[str]) -> bool:
    ranks = [RANKS.index(c[0]) for c in cards]
    return ranks == sorted(ranks)


def settlement(page: Page) -> dict[str, list[int]]:
    """The settlement's rows as shown: {row key: [seat 0, seat 1]} (blank cells are 0)."""
    rows: dict[str, list[int]] = page.eval_on_selector_all(
        "#final-result tr[data-row]",
        """rows => Object.fromEntries(rows.map(r => [r.dataset.row, [0, 1].map(s => {
             const td = r.querySelector(`td[data-seat="${s}"]`);
             return td && td.dataset.points ? Number(td.dataset.points) : 0; })]))""")
    return rows


# Copies of the settlement's rows, enough to make its panel as tall as it may grow.
LENGTHEN_SETTLEMENT_JS = """() => {
  const panel = document.querySelector('#final-result');
  const body = panel.querySelector('tbody') || panel.querySelector('table');
  for (const row of [...body.querySelectorAll('tr')].slice(0, 5)) {
    for (let i = 0; i < 3; i++) body.append(row.cloneNode(true));
  }
}"""


def assert_adds_up(rows: dict[str, list[int]]) -> None:
    assert "total" in rows, rows
    for seat in (0, 1):
        assert sum(v[seat] for k, v in rows.items() if k != "total") == rows["total"][seat], rows


# Every card of the hand-end panels lies inside its panel, and none hides another's index.
PANEL_CARDS_JS = """() => {
  const out = [];
  for (const panel of document.querySelectorAll('#showdown, #final-result')) {
    const p = panel.getBoundingClientRect();
    for (const card of panel.querySelectorAll('.card[data-card]')) {
      const r = card.getBoundingClientRect();
      if (r.left < p.left - 1 || r.right > p.right + 1) out.push(card.dataset.card + ' sticks out');
    }
  }
  return out;
}"""


def assert_panels_fit(page: Page) -> None:
    assert not page.evaluate(PANEL_CARDS_JS)
    # Each showdown card shows its index (a 14 px strip at least) where nothing covers it;
    # upright on a phone the panel is taller than the screen, and is read by scrolling.
    assert not untappable(page, "#showdown .card[data-card]", least=14, scroll=True)


def assert_on_screen(page: Page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box and size and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], \
        f"{selector} at {box} is not on a {size} screen"


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_hand_fits_and_plays_at_every_size(browser: Browser, base_url: str,
                                                   size: str) -> None:
    context, page = open_table(browser, base_url, size, {"deals": 1})
    problems = watch_console(page)
    phone = size != "desktop"
    player: GinPlayer = Finger(page, size) if phone else GinPlayer(page)

    # An express match says so: one hand, never "Game to 100".
    page.wait_for_selector(".table-info")
    assert "One hand" in page.inner_text(".table-info")
    assert "Game to" not in page.inner_text(".gin")
    assert "one hand" in (page.text_content("#scorecard caption") or "")

    pictured: set[str] = set()
    for _ in range(80):
        player.wait_until_ready(60)
        if player.hand_over():
            break
        settle(page)
        assert_fits(page, APP)
        assert_tappable(page, HAND)
        # Sorted from the start: melds first, then the deadwood in rank order.
        deadwood = page.eval_on_selector_all(".my-hand .group-deadwood .hand-card",
                                             "els => els.map(e => e.dataset.card)")
        assert ranks_in_order(deadwood), deadwood
        # A new player's hint says what to do now, in the words of his pointer.
        hint = page.inner_text("#hint-line") if page.locator("#hint-line").is_visible() else ""
        expected = {"first_upcard": "upcard or pass", "draw": "the stock",
                    "discard": "tap it, then Discard" if phone else "click it"}.get(player.phase())
        assert hint or pictured, "no hint on a new player's first turn"
        if expected and hint and "knock" not in hint and "gin" not in hint.lower():
            assert expected in hint, (player.phase(), hint)
        moment = "discard" if player.phase() == "discard" and len(player.hand()) == 11 else "start"
        if moment not in pictured:
            screenshot(page, f"phone-gin-{size}-{moment}")
            pictured.add(moment)
        player.play_turn()
    else:
        raise AssertionError("the hand did not end")

    # The end: the showdown and the settlement fit the screen and add up.
    page.locator("#final-result").first.wait_for(state="visible")
    assert player.phase() == "match_over"
    settle(page)
    assert_fits(page, APP)
    assert_panels_fit(page)
    assert_adds_up(settlement(page))
    assert "yes" not in page.inner_text("#final-result")
    assert_on_screen(page, "#rematch")
    screenshot(page, f"phone-gin-{size}-match-over")
    # A long settlement leaves Rematch on screen too (seen in CI sideways: 6 px below it).
    # Sideways the panel stops at its tallest and scrolls inside; else the page grows below
    # the status bar.
    page.evaluate(LENGTHEN_SETTLEMENT_JS)
    if size == "landscape":
        page.wait_for_function(
            "() => { const p = document.querySelector('#final-result');"
            " return p.scrollHeight > p.clientHeight; }")
    assert_on_screen(page, "#rematch")
    assert not problems, problems
    context.close()


FIT_JS = """async ([width, w, sizes]) => {
  const { fitRows } = await import('/static/games/gin/hand.js');
  let n = 0;
  const groups = sizes.map((k) => ({ cards: Array.from({ length: k }, () => `c${n++}`) }));
  const { rows, step } = fitRows(groups, { width, w, step: 0.56 });
  const gap = w * 0.2;
  return { step, rows: rows.map((row) => ({
    cards: row.reduce((m, piece) => m + piece.cards.length, 0),
    pieces: row.length,
    width: row.reduce((m, piece) => m + w + (piece.cards.length - 1) * step * w, 0)
      + (row.length - 1) * gap,
  })) };
}"""


FIT_CASES = [  # (width, card width, group sizes, rows)
    (374, 74, [11], 2),          # upright phone, no meld: one group split in two rows
    (374, 74, [3, 3, 5], 2),     # melds stay whole: the row breaks between groups
    (374, 74, [3, 4, 3, 1], 2),
    (320, 58, [4, 3, 4], 2),     # a small phone
    (800, 88, [3, 3, 5], 1),     # sideways: one row
    (900, 107, [11], 1),         # desktop
    (150, 60, [11], 3),          # too narrow for two rows: three
]


def test_the_hand_fits_its_width(browser: Browser, base_url: str) -> None:
    """fitRows: as few rows as leave every overlapped card a 36 px strip (or the usual
    overlap), each row within the width, groups (melds) kept whole where rows allow."""
    context, page = open_table(browser, base_url, "desktop")
    for width, w, sizes, rows in FIT_CASES:
        fit = page.evaluate(FIT_JS, [width, w, sizes])
        assert len(fit["rows"]) == rows, (width, sizes, fit)
        assert sum(r["cards"] for r in fit["rows"]) == sum(sizes)
        assert fit["step"] * w >= min(36, 0.56 * w) or rows == 3, fit
        assert fit["step"] <= 0.56 + 1e-9
        assert all(r["width"] <= width + 0.5 for r in fit["rows"]), fit
        if len(sizes) > 1:  # a group is never split when whole groups fit
            assert sum(r["pieces"] for r in fit["rows"]) == len(sizes), fit
    context.close()


def test_shutout_rows_add_up_and_laid_off_cards_hide_nothing(browser: Browser,
                                                             base_url: str) -> None:
    """The hand-end panels drawn from set views: a shutout under each rule, and a run
    whose lowest card was laid off (it used to lie on top of the card above it)."""
    context, page = open_table(browser, base_url, "desktop")
    found = page.evaluate("""async () => {
      const { finalPanel, showdownPanel } = await import('/static/games/gin/score.js');
      const ctx = { seatName: (s) => (s === 0 ? 'You' : 'Computer') };
      const slot = document.querySelector('.gin .show-slot');
      document.querySelector('.gin').dataset.mode = 'hand-over';
      const out = {};
      for (const [rule, totals, bonus] of [['double_hand_points', [0, 193], 100],
          ['double_game_bonus', [0, 259], 200], ['double_total', [0, 318], 100]]) {
        const view = { options: { shutout: rule, game_bonus: 100, box_bonus: 25 }, result: {
          winner: 1, draw: false, shutout: true, points: [0, 34], boxes: [0, 1],
          box_points: [0, 25], game_bonus: bonus, totals, margin: totals[1] } };
        slot.replaceChildren(finalPanel(view, ctx));
        out[rule] = [...slot.querySelectorAll('tr[data-row]')].map((tr) => [tr.dataset.row,
          tr.querySelector('th').textContent,
          [0, 1].map((s) => Number(tr.querySelector(`td[data-seat="${s}"]`).dataset.points || 0))]);
      }
      const last = { hand: 1, kind: 'knock', knocker_seat: 1, winner: 1, points: 14, multiplier: 1,
        knocker: { melds: ['4h 5h 6h', 'Qc Qd Qs'], deadwood: 'Ac 2c', points: 3 },
        defender: { melds: ['9d 9h 9s'], deadwood: '2s 5c 7d Kh', points: 24 },
        layoffs: [{ card: '3h', meld: 0 }, { card: '7h', meld: 0 }] };
      slot.replaceChildren(showdownPanel({ last, result: null }, ctx));
      return out;
    }""")
    for rule, rows in found.items():
        shown = {key: values for key, _, values in rows}
        assert_adds_up(shown)
        assert shown["shutout"][1] > 0, (rule, rows)
        assert shown["bonus"] == [0, 100], (rule, rows)
        assert any(label.startswith("Shutout (") for _, label, _ in rows)
    assert_panels_fit(page)
    # The laid-off 3h is first in its run: the 4h over it shows its own index in full.
    order = page.eval_on_selector_all(
        '#showdown [data-melds-seat="1"] .group-meld:first-child .card',
        "els => els.map(e => e.dataset.card)")
    assert order == ["3h", "4h", "5h", "6h", "7h"]
    assert page.locator('#showdown .card.layoff').count() == 2
    screenshot(page, "phone-gin-desktop-layoff")
    context.close()


def test_a_match_ended_by_agreement_says_so_and_offers_a_rematch(browser: Browser,
                                                                 base_url: str) -> None:
    """Ended mid-hand, and ended while I was to deal the next hand (the status bar used to
    say " deals next" with no name, the status line nothing)."""
    context, page = open_table(browser, base_url, "portrait")
    problems = watch_console(page)
    player = GinPlayer(page)

    def end_by_agreement() -> None:
        page.click("#table-toggle")
        page.click("#propose-end")  # alone with a computer: ended at once
        page.locator("#ended-banner").wait_for()
        status = page.inner_text("#status")
        assert "ended by agreement" in status, status
        bar = page.inner_text(".gin .status-bar")
        assert "deals next" not in bar, bar
        assert page.locator(".gin #rematch").is_enabled()
        assert page.locator("#life-rematch").count() == 0  # one Rematch, the board's
        assert_fits(page, APP)

    player.wait_until_ready()
    end_by_agreement()
    settle(page)
    screenshot(page, "phone-gin-portrait-ended-mid-hand")
    page.tap(".gin #rematch")
    page.locator("#ended-banner").wait_for(state="hidden")
    page.wait_for_selector(".gin[data-mode='play'] .hand-card")

    # Play hands until one ends with me to deal (the dealer alternates: two at most; a
    # match that ends first is followed by a rematch).
    for _ in range(6):
        player.play_until_hand_over()
        # The showdown's button (deal or continue) is drawn a little after the hand ends.
        page.wait_for_function(SHOWDOWN_ANSWERED)
        if page.locator("#next-hand").count():
            break
        if page.locator(".gin #rematch:enabled").count():
            page.tap(".gin #rematch")
            page.wait_for_selector(".gin[data-mode='play'] .hand-card")
            continue
        player.next_hand()
    else:
        raise AssertionError("I was never the one to deal")
    end_by_agreement()
    settle(page)
    screenshot(page, "phone-gin-portrait-ended-at-deal")
    assert not problems, problems
    context.close()


def test_a_spectator_on_a_phone_sees_the_whole_table(browser: Browser, base_url: str) -> None:
    context, page = open_table(browser, base_url, "portrait")
    GinPlayer(page).wait_until_ready()
    watcher = browser.new_context(viewport=PHONE_PORTRAIT, has_touch=True, is_mobile=True)
    cleo = watcher.new_page()
    problems = watch_console(cleo)
    cleo.goto(page.url)
    cleo.tap("#watch")
    cleo.wait_for_selector(".gin.watching .my-hand .hand-card")
    assert cleo.locator(".my-hand .hand-card[data-card]").count() == 0  # backs: no one's cards
    assert cleo.locator(".my-hand .hand-card").count() >= 10
    settle(cleo)
    assert_fits(cleo, APP)
    screenshot(cleo, "phone-gin-portrait-spectator")
    assert not problems, problems
    watcher.close()
    context.close()
