"""The table-meld board (Rummy, Rummy 500, Rommé) on a phone, in real Chromium.

Held upright (390 × 844), sideways (844 × 390) and on a desktop (1280 × 800): a hand is
played through against computers, and at every turn of mine the table must fit the
screen (nothing past its sides, no sideways scroll) and every card of my hand must show
a strip a finger can tap (fit_checks.py). On the phone sizes the page is a touch screen
and the player taps: a card, then where it goes (the discard pile, the felt of the table
to lay a meld, a meld to lay a card off). The words a player reads are checked on a
scripted table. Screenshots: artifacts/screenshots/phone-<game>-<size>-<moment>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, FloatRect, Page

from browser_harness import SIZES, screen_context, screenshot, settle, watch_console
from cardtable.engine.cards import parse
from cardtable.engine.tablemelds import Phase, lay
from fit_checks import assert_fits, untappable
from test_board_frame import sit_down
from test_browser_rummy import RummyPlayer, ScriptedTable, engine_state, game_ready

PLAYS_ANIMATIONS = True  # (browser fixture) taps meet cards in flight, as a player's do

GAMES = ["rummy", "rummy500", "romme"]
# The one-hand "express" match of each game (its Options.EXPRESS).
EXPRESS: dict[str, dict[str, int | str]] = {
    "rummy": {"deals": 1}, "rummy500": {"deals": 1}, "romme": {"end": "deals", "deals": 1}}
TABLE = ".table-page"  # the whole table: the top bar, the board, its drawers
HAND = ".rm-hand .hand-card"


@contextmanager
def phone_page(browser: Browser, size: str) -> Iterator[Page]:
    """A page at one of SIZES; the phone sizes are touch screens that honour the viewport tag."""
    context, page = screen_context(browser, size)
    try:
        yield page
    finally:
        context.close()


WHY_COVERED = """sel => [...document.querySelectorAll(sel)]
    .filter(e => getComputedStyle(e).transform !== 'none' || getComputedStyle(e).zIndex !== 'auto')
    .map(e => `${e.dataset.card} raised (${e.className})`)
    .concat(document.getAnimations()
      .map(a => `${a.playState} ${a.id || a.transitionProperty || ''}`))"""


def check_tappable(page: Page, selector: str) -> None:
    """assert_tappable, saying which cards are raised or moving when one is covered."""
    assert page.locator(selector).count(), f"no cards match {selector!r}"
    bad = untappable(page, selector)
    assert not bad, f"at {page.viewport_size}: {bad}; {page.evaluate(WHY_COVERED, selector)}"


def check_fits(page: Page, my_turn: bool) -> None:
    settle(page)
    assert_fits(page, TABLE)
    if my_turn:
        check_tappable(page, HAND)


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game", GAMES)
def test_a_hand_fits_every_screen_and_plays_by_taps(browser: Browser, base_url: str,
                                                     game: str, size: str) -> None:
    game_ready(base_url, game)
    express = size != "landscape"  # one-hand matches end on the final panel; the others deal on
    with phone_page(browser, size) as page:
        problems = watch_console(page)
        sit_down(page, base_url, game, 3, EXPRESS[game] if express else {})
        page.wait_for_selector(".rummy[data-phase]")
        player = RummyPlayer(page, touch=size != "desktop")
        player.wait_until_ready()
        if not player.hand_over() and player.phase() == "draw":
            # A new player's first turn: the hint says what a turn starts with.
            hint = page.locator("#hint-text")
            if hint.count():
                assert "stock" in hint.inner_text()
        screenshot(page, f"phone-{game}-{size}-start")
        turns = 0
        for hand in range(4):
            for _ in range(200):
                player.wait_until_ready()
                if player.hand_over():
                    break
                check_fits(page, my_turn=True)
                if player.phase() == "draw":
                    player.draw(deep=game == "rummy500")
                    continue
                if player.phase() == "play" and turns == 3:
                    screenshot(page, f"phone-{game}-{size}-play")
                turns += 1
                player.play_turn()
            else:
                raise AssertionError(f"the hand of {game} did not end")
            page.locator("#hand-summary").wait_for(state="visible")
            check_fits(page, my_turn=False)
            # Every button the end offers is on the screen (a phone's is not below the fold).
            for button in page.locator(".status-bar .buttons button:visible").all():
                box = button.bounding_box()
                bottom = SIZES[size]["height"]
                assert box and box["y"] + box["height"] <= bottom, button.inner_text()
            if not express or player.phase() == "match_over":
                break
            # A tie for the lead after the one hand plays on, a hand at a time (Rummy 500).
            assert hand < 3, "an express match still tied after four hands"
            player.next_hand()
        if express:
            assert player.phase() == "match_over"
            page.locator("#final-result").wait_for(state="visible")
            screenshot(page, f"phone-{game}-{size}-match-over")
            # One hand: the scorecard says so, and names no target to play to.
            if not page.locator("#scorecard").is_visible():
                player.press("#scores-toggle")
            caption = page.inner_text("#score-history caption")
            assert "one hand" in caption and "game to" not in caption and "first to" not in caption
            assert "reaches" not in caption, caption
            check_fits(page, my_turn=False)
        else:
            screenshot(page, f"phone-{game}-{size}-hand-over")
            player.next_hand()
            player.wait_until_ready()
            check_fits(page, my_turn=player.my_turn())
        assert not problems, problems


def overlaps(a: FloatRect, b: FloatRect) -> bool:
    return (a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]
            and a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"])


def player_hand(page: Page) -> list[str]:
    return [str(c) for c in page.eval_on_selector_all(HAND, "els => els.map(e => e.dataset.card)")]


def drag_to(page: Page, source: str, x: float, y: float) -> None:
    """Press on the source's visible strip, move in steps, release at (x, y)."""
    settle(page)
    box = page.locator(source).bounding_box()
    assert box
    page.mouse.move(box["x"] + 6, box["y"] + 30)
    page.mouse.down()
    page.mouse.move(x, y, steps=12)
    page.mouse.up()


@pytest.mark.parametrize("size", ["portrait", "landscape"])
def test_a_long_hand_wraps_into_rows_a_finger_can_tap(browser: Browser, base_url: str,
                                                       size: str) -> None:
    """Twenty cards (a deep Rummy 500 pickup) on a phone: rows, each card a tappable strip,
    the rows as even as they can be; a tap selects, a tap on the pile discards."""
    with phone_page(browser, size) as page:
        problems = watch_console(page)
        table = ScriptedTable(page, base_url, "rummy500")
        mine = parse("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ad 2d 3d 4d 5d 6d 7d")
        state = engine_state("rummy500", hands=[mine, parse("3h 4h 8h Qs")], table=[],
                             to_act=0, phase=Phase.PLAY, discard=parse("9s"))
        table.show(state.view(0))
        page.wait_for_selector(".rummy.my-turn")
        assert page.locator(HAND).count() == 20
        check_fits(page, my_turn=True)
        tops = page.eval_on_selector_all(
            HAND, "els => els.map(e => Math.round(e.getBoundingClientRect().top))")
        rows = sorted(set(tops))
        if size == "portrait":
            assert len(rows) >= 2, rows
            counts = [tops.count(t) for t in rows]
            assert max(counts) - min(counts) <= 1, counts
            # A card dragged onto the left half of the second row's first card goes before it.
            first_of_row = player_hand(page)[counts[0]]
            box = page.locator(f'{HAND}[data-card="{first_of_row}"]').bounding_box()
            assert box
            drag_to(page, f'{HAND}[data-card="Ac"]', box["x"] + 4, box["y"] + box["height"] / 2)
            page.wait_for_function(
                "c => document.querySelector('.rm-hand .hand-card').dataset.card !== c", arg="Ac")
            order = player_hand(page)
            assert order.index("Ac") == order.index(first_of_row) - 1, order
        screenshot(page, f"phone-rummy500-{size}-long-hand")
        page.tap(f'{HAND}[data-card="Kc"]', position={"x": 6, "y": 30})
        assert page.get_attribute(f'{HAND}[data-card="Kc"]', "aria-pressed") == "true"
        page.tap("#pile")
        page.wait_for_function("() => window.__sockets[0].sent.some(f => f.t === 'act')")
        assert table.acts()[0]["action"] == {"type": "discard", "card": "Kc"}
        assert not problems, problems


def test_the_words_and_the_marks_for_animations(browser: Browser, base_url: str) -> None:
    """My melds are "Your melds" to a screen reader; piles and melds areas carry the marks
    the card animations find them by; a tap on the felt lays the selected meld."""
    with phone_page(browser, "portrait") as page:
        problems = watch_console(page)
        table = ScriptedTable(page, base_url, "rummy")
        state = engine_state(
            "rummy", hands=[parse("7d 7h 7s 2c Kd"), parse("3c 4c 8h Qs")],
            table=[lay(1, 0, parse("8c 8h 8s")), lay(2, 1, parse("4s 5s 6s"))],
            to_act=0, phase=Phase.PLAY, discard=parse("3d 9c"))
        view = state.view(0)
        table.show(view)
        page.wait_for_selector(".rummy.my-turn")
        assert page.get_attribute('[data-melds-seat="0"]', "aria-label") == "Your melds"
        assert page.get_attribute('[data-melds-seat="1"]', "aria-label") == "Computer's melds"
        assert "You's" not in page.content()
        assert page.locator('[data-pile="stock"]').count() == 1
        assert page.locator('[data-pile="discard"]').count() == 1
        assert page.locator('[data-pile="discard"] [data-card="9c"]').count() == 1
        assert page.locator("[data-melds-seat] .table-meld [data-card]").count() == 6
        assert page.locator(".rm-seat[data-seat='1']").count() == 1
        check_fits(page, my_turn=True)
        # Tap three sevens, then the felt: the meld is laid (exactly the legal action).
        for card in ("7d", "7h", "7s"):
            page.tap(f'{HAND}[data-card="{card}"]', position={"x": 6, "y": 30})
        player = RummyPlayer(page, touch=True)
        page.tap("#table", position=player.free_felt())
        page.wait_for_function("() => window.__sockets[0].sent.some(f => f.t === 'act')")
        sent = table.acts()[0]["action"]
        assert sent["type"] == "meld" and sorted(sent["cards"]) == ["7d", "7h", "7s"]
        assert not problems, problems


@pytest.mark.parametrize("game", GAMES)
def test_express_scorecards_name_no_target(browser: Browser, base_url: str, game: str) -> None:
    """A one-hand match says "one hand", never "game to 100" or "first to 500"."""
    with phone_page(browser, "desktop") as page:
        problems = watch_console(page)
        table = ScriptedTable(page, base_url, game)
        state = engine_state(game, EXPRESS[game])
        table.show(state.view(0))
        caption = page.inner_text("#score-history caption")
        assert "one hand" in caption, caption
        assert not any(word in caption for word in ("game to", "first to", "reaches")), caption
        # And a match to a target still names it.
        table.show(engine_state(game).view(0))
        caption = page.inner_text("#score-history caption")
        assert "one hand" not in caption, caption
        assert not problems, problems


@pytest.mark.parametrize("size", ["portrait", "landscape"])
def test_many_melds_scroll_and_none_hides_under_the_controls(browser: Browser, base_url: str,
                                                               size: str) -> None:
    """A table full of melds on a phone: the melds scroll inside their own area, and that
    area ends where the controls begin, so the last meld can be scrolled into full view
    and a tap on the felt reaches the felt (not the status line drawn over it)."""
    with phone_page(browser, size) as page:
        problems = watch_console(page)
        table = ScriptedTable(page, base_url, "romme")
        runs = ["Ac 2c 3c", "4d 5d 6d", "7h 8h 9h", "Ts Js Qs", "5c 5d 5h", "9c 9d 9s",
                "2h 3h 4h", "Jc Qc Kc", "6s 7s 8s", "Kd Kh Ks"]
        melds = [lay(i + 1, i % 2, parse(cards)) for i, cards in enumerate(runs)]
        state = engine_state("romme", hands=[parse("2d 3d 7c Qd Qh"), parse("4c 8d Th")],
                             table=melds, to_act=0, phase=Phase.PLAY, discard=parse("9h"),
                             opened=[True, True])
        table.show(state.view(0))
        page.wait_for_selector(".rummy.my-turn")
        settle(page)
        area = page.locator("#table").bounding_box()
        assert area
        controls = [box for box in (page.locator(sel).bounding_box()
                                    for sel in (".rummy .status-bar", ".rm-hand")) if box]
        for box in controls:  # the melds' area stops above (or beside) the controls
            assert not overlaps(area, box), (area, box)
        last = page.locator(".table-meld").last
        last.scroll_into_view_if_needed()
        box = last.bounding_box()
        assert box and area["y"] - 1 <= box["y"]
        assert box["y"] + box["height"] <= area["y"] + area["height"] + 1
        screenshot(page, f"phone-romme-{size}-many-melds")
        assert not problems, problems
