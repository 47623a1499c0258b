"""The table-meld games (Rummy, Rummy 500, Rommé) in real Chromium against a real server.

The player acts only by clicks, drags and keys, reading what the page shows:
the melds it offers (the "Melds in your hand" chips), the cards marked as
fitting a table meld or as discardable, the pile cards that can be taken. It
never decides legality: the page offers only the server's legal moves, and
the tests check that a wrong choice gets a message and loses nothing.
Deals are random, so every test works for any deal (and skips the rare deal
where the situation it needs never comes up). Screenshots go to
artifacts/screenshots/rummy-*.png.
"""

from __future__ import annotations

import importlib
import json
import random
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Position
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser_harness import (
    DESKTOP,
    FAKE_WEBSOCKET_JS,
    PHONE_LANDSCAPE,
    new_page,
    screenshot,
    settle,
    wait_for_answer,
    watch_console,
)
from cardtable.bots.levels import BOT_MODULES as BOTS
from cardtable.engine.cards import parse
from cardtable.engine.games.rummy500.calls import Call
from cardtable.engine.melds import MeldRules
from cardtable.engine.tablemelds import Phase, lay

RANK_ORDER = "A23456789TJQK"
STRIP: Position = {"x": 6, "y": 30}  # overlapped cards show their left strip: click there
PLAY_ON = 400
"""Turns a test plays on (through hands and matches) for a deal that offers what it needs,
before it fails: the deals are the server's own, unseeded, as a player's are."""


def rank_of(code: str) -> int:
    return 99 if code.lower() == "jk" else RANK_ORDER.index(code[0])


class RummyPlayer:
    """One person at a table-meld game in one page.

    With ``touch`` (a page of a touch context) the player taps instead of clicking, and plays
    by tapping a card and then where it goes: the discard pile to discard it, the felt of the
    table to lay the selected meld, a meld to lay a card off on it.
    """

    def __init__(self, page: Page, touch: bool = False) -> None:
        self.page = page
        self.touch = touch
        self.tried_opening = -1  # the version at which a first meld was last tried
        self.swaps = 0  # jokers exchanged by a drop on the joker

    # -- reading the page ------------------------------------------------------------------

    def attr(self, name: str) -> str:
        return str(self.page.get_attribute(".rummy", name))

    def phase(self) -> str:
        return self.attr("data-phase")

    def version(self) -> int:
        return int(self.page.get_attribute(".table-page", "data-version") or -1)

    def my_turn(self) -> bool:
        return bool(self.page.evaluate(
            "() => document.querySelector('.rummy')?.classList.contains('my-turn') ?? false"))

    def hand_over(self) -> bool:
        return self.attr("data-mode") == "hand-over"

    def hand(self) -> list[str]:
        return [str(c) for c in self.page.eval_on_selector_all(
            ".rm-hand .hand-card[data-card]", "els => els.map(e => e.dataset.card)")]

    def card_keys(self, selector: str = "") -> list[str]:
        return [str(c) for c in self.page.eval_on_selector_all(
            f".rm-hand .hand-card{selector}", "els => els.map(e => e.dataset.key)")]

    def enabled(self, selector: str) -> bool:
        el = self.page.query_selector(selector)
        return el is not None and el.is_visible() and el.is_enabled()

    def message(self) -> str:
        return self.page.inner_text("#message")

    def wait_until_ready(self, timeout: float = 30.0) -> None:
        """Until it is my turn, or the hand is over."""
        self.page.wait_for_function(
            """() => { const g = document.querySelector('.rummy');
                       return g && (g.classList.contains('my-turn') ||
                                    g.dataset.mode === 'hand-over'); }""",
            timeout=timeout * 1000)

    def wait_newer(self, version: int, timeout: float = 15.0) -> None:
        wait_for_answer(self.page, version, timeout)

    # -- acting -------------------------------------------------------------------------------

    def press(self, selector: str, position: Position | None = None) -> None:
        """A click, or a tap on a touch screen."""
        if self.touch:
            self.page.tap(selector, position=position)
        else:
            self.page.click(selector, position=position)

    def click_and_wait(self, selector: str, position: Position | None = None) -> None:
        before = self.version()
        self.press(selector, position)
        self.wait_newer(before)

    def select(self, key: str) -> None:
        """Click a hand card where it shows, as a person does (cards overlap)."""
        selector = f'.rm-hand .hand-card[data-key="{key}"]'
        settle(self.page)  # a card still flying in is not where it will be clicked
        self.press(selector, position=self.visible_point(selector))

    def visible_point(self, selector: str) -> Position:
        """A point, relative to the card, that a click on it reaches: its left strip, or
        where a neighbour lying over that strip leaves it showing (:data:`STRIP` when
        none shows)."""
        spot = self.page.eval_on_selector(
            selector,
            """el => { const r = el.getBoundingClientRect();
                 for (const y of [30, r.height / 2, r.height - 10])
                   for (let x = 6; x < r.width; x += 4) {
                     const hit = document.elementFromPoint(r.x + x, r.y + y);
                     if (hit && hit.closest('.hand-card') === el) return {x, y};
                   }
                 return null; }""")
        return {"x": float(spot["x"]), "y": float(spot["y"])} if spot else STRIP

    def free_felt(self) -> Position:
        """A point of the table's felt that a tap reaches, relative to the table: to lay the
        selection. Clear of every meld by a finger's width on each side where the table has
        room: a tap picked 8 px from a meld once landed on it (a status line that grows moves
        the table; Chromium's touch adjustment moves a tap near a button onto it)."""
        spot = self.felt_spot()
        assert spot, "the table has no free felt to tap"
        return spot

    def felt_spot(self) -> Position | None:
        """:meth:`free_felt`, or None when melds cover the felt (a sideways phone late in a
        Rommé hand: a player then presses Meld, as :meth:`lay_by_touch` does)."""
        spot = self.page.evaluate(
            """() => { const t = document.querySelector('#table').getBoundingClientRect();
                 const felt = (x, y) => { const el = document.elementFromPoint(t.x + x, t.y + y);
                   return el && el.closest('#table') && !el.closest('.table-meld, button'); };
                 const clear = (x, y, r) => [-r, 0, r].every(
                   dx => [-r, 0, r].every(dy => felt(x + dx, y + dy)));
                 for (const r of [16, 8, 0])  // the widest margin the table has room for
                   for (let y = t.height - 4 - r; y >= 4 + r; y -= 8)
                     for (let x = t.width - 4 - r; x >= 4 + r; x -= 8)
                       if (clear(x, y, r)) return {x, y};
                 return null; }""")
        return {"x": float(spot["x"]), "y": float(spot["y"])} if spot else None

    def lay_by_touch(self) -> Position | None:
        """Tap the felt to lay what is selected or staged, or Meld where no felt is free;
        the point tapped, if any."""
        settle(self.page)  # the selection raises cards, the status line may grow: then look
        spot = self.felt_spot()
        if spot is None:
            self.press("#meld")
        else:
            self.press("#table", spot)
        return spot

    def lay_selection(self) -> None:
        """Lay the selected cards: the Meld button, or a tap on the felt."""
        before = self.version()
        if self.touch:
            spot = self.lay_by_touch()
            try:
                self.wait_newer(before)
            except (PlaywrightTimeout, AssertionError) as e:  # no answer (wait_for_answer)
                where = f"the felt at {spot}" if spot else "Meld (no free felt)"
                raise AssertionError(f"tapping {where} laid nothing: "
                                     f"{self.explain(spot or {'x': 0.0, 'y': 0.0})}") from e
        else:
            self.click_and_wait("#meld")

    def explain(self, spot: Position) -> str:
        """What is under a point of the table, what is selected, what the page says."""
        return str(self.page.evaluate(
            """([x, y]) => { const t = document.querySelector('#table').getBoundingClientRect();
                 const el = document.elementFromPoint(t.x + x, t.y + y);
                 return {under: el && (el.id || el.className),
                         selected: [...document.querySelectorAll('.rm-hand .selected')]
                           .map(e => e.dataset.card),
                         message: document.querySelector('#message')?.textContent,
                         toasts: [...document.querySelectorAll('.toast')]
                           .map(e => e.textContent)}; }""",
            [spot["x"], spot["y"]]))

    def clear(self) -> None:
        if self.card_keys(".selected") or self.page.query_selector("#staged-groups"):
            self.page.keyboard.press("Escape")

    def draw(self, deep: bool = False) -> str:
        if deep:
            depth = self.deepest_pick()
            if depth > 1:
                before = self.version()
                self.press(f'#pile .pile-card[data-depth="{depth}"]', position=STRIP)
                self.wait_newer(before)
                return f"take {depth}"
        if self.enabled("#stock"):
            self.click_and_wait("#stock")
            return "stock"
        for selector in ("#pile:not(.rm-fan)", '#pile .pile-card[data-depth="1"]'):
            if self.enabled(selector):
                self.click_and_wait(selector)
                return "pile"
        self.click_and_wait("#act-pass")
        return "pass"

    def deepest_pick(self) -> int:
        depths = self.page.eval_on_selector_all(
            "#pile .pile-card.can-take", "els => els.map(e => Number(e.dataset.depth))")
        return max([int(d) for d in depths], default=0)

    def first_meld(self) -> bool:
        """Stage melds worth most first until the total is reached, then lay them down."""
        if self.tried_opening == self.version():
            return False
        self.tried_opening = self.version()
        total = self.page.locator("#first-meld-total")
        need = int(total.get_attribute("data-need") or 0)
        for _ in range(6):
            chips = self.page.eval_on_selector_all(
                "#stage-panel .candidate:enabled",
                "els => els.map(e => [e.dataset.cards, Number(e.dataset.value)])")
            if not chips or int(total.get_attribute("data-total") or 0) >= need:
                break
            cards = max(chips, key=lambda c: c[1])[0]
            self.press(f'#stage-panel .candidate:enabled[data-cards="{cards}"]')
            self.press("#stage")
        if int(total.get_attribute("data-total") or 0) < need:
            self.clear()
            return False
        before = self.version()
        if self.touch:
            self.lay_by_touch()
        else:
            self.press("#meld")
        self.page.wait_for_function(
            """v => Number(document.querySelector('.table-page')?.dataset.version) > v ||
                   document.querySelector('#message')?.textContent""", arg=before)
        if self.version() > before:
            return True
        self.clear()
        return False

    def discard(self) -> str:
        cards = self.page.eval_on_selector_all(
            ".rm-hand .hand-card.discardable",
            "els => els.map(e => [e.dataset.key, e.dataset.card, e.classList.contains('fits')])")
        assert cards, "no discardable card although it is my turn to discard"
        key, code, _ = max(cards, key=lambda c: (not c[2], c[1] != "Jk", rank_of(c[1])))
        self.select(key)
        self.click_and_wait("#pile" if self.touch else "#discard")
        return f"discard {code}"

    def play(self) -> list[str]:
        """Meld what the page offers, lay off what fits, then discard."""
        moves: list[str] = []
        for _ in range(40):
            if self.hand_over() or not self.my_turn() or self.phase() != "play":
                return moves
            self.clear()
            if self.page.query_selector("#first-meld-total"):
                if self.first_meld():
                    moves.append("first meld")
                    continue
            elif self.enabled("#stage-panel .candidate.legal"):
                self.press("#stage-panel .candidate.legal >> nth=0")
                self.lay_selection()
                moves.append("meld")
                continue
            fits = self.card_keys(".fits")
            if fits:
                self.select(fits[0])
                swap = self.page.locator(".table-meld.swap-target .table-joker")
                if swap.count():  # a joker exchange: drop the natural card on the joker
                    joker = ".table-meld.swap-target .table-joker >> nth=0"
                    if self.touch:  # a finger taps the joker (the melds may scroll)
                        self.click_and_wait(joker)
                    else:
                        before = self.version()
                        drag(self.page, f'.rm-hand .hand-card[data-key="{fits[0]}"]', joker)
                        self.wait_newer(before)
                    self.swaps += 1
                    moves.append("swap joker")
                    continue
                self.click_and_wait(".table-meld.target >> nth=0")
                moves.append("lay off")
                continue
            moves.append(self.discard())
            return moves
        raise AssertionError(f"the turn did not end: {moves}")

    def play_turn(self, deep: bool = False) -> list[str]:
        phase = self.phase()
        if phase == "call":
            self.click_and_wait("#act-pass")
            return ["pass on the call"]
        if phase == "draw":
            moves = [self.draw(deep)]
            self.wait_until_ready()
            return moves + self.play()
        if phase == "play":
            return self.play()
        raise AssertionError(f"nothing to do in phase {phase}")

    def play_until_hand_over(self, max_turns: int = 120, deep: bool = False) -> list[str]:
        moves: list[str] = []
        for _ in range(max_turns):
            self.wait_until_ready()
            if self.hand_over():
                return moves
            moves += self.play_turn(deep)
        raise AssertionError(f"the hand did not end: {moves}")

    def next_hand(self) -> None:
        """Deal or continue, or a rematch when the hand ended the match (a test that waits
        for a turn of a kind plays on through matches)."""
        if self.phase() == "match_over":
            self.press("#rematch")
        elif self.page.query_selector("#next-hand:enabled"):
            self.click_and_wait("#next-hand")
        else:
            self.press("#continue")
        self.page.wait_for_function(
            "() => document.querySelector('.rummy')?.dataset.mode === 'play'")


def game_ready(base_url: str, game: str) -> None:
    """The server plays ``game`` in the browser, with a computer player: a failure if not."""
    games = {g["name"]: g for g in httpx.get(f"{base_url}/api/games").json()["games"]}
    assert games.get(game, {}).get("browser"), f"{game} is not served in the browser"
    assert game in BOTS, f"{game} has no computer player"


def start(page: Page, base_url: str, game: str, name: str, players: int,
          options: dict[str, int | str] | None = None) -> RummyPlayer:
    game_ready(base_url, game)
    page.goto(f"{base_url}/")
    page.wait_for_selector(f"#game-{game}")
    page.click(f"#game-{game}")
    page.fill("#guest-name", name)
    page.click(f"#players-{players}")
    if options:
        page.click("details.options summary")
        for option, value in options.items():
            field = page.locator(f"#opt-{option}")
            if field.evaluate("el => el.tagName") == "SELECT":
                field.select_option(str(value))
            else:
                field.fill(str(value))
    page.click("#play-computer")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".rummy[data-phase]")
    return RummyPlayer(page)


def check_hand_end(page: Page, player: RummyPlayer, players: int) -> None:
    """The summary shows every hand's cards left and the scorecard has the row. The hand
    is the last one over: the computers may have dealt and ended another (a Hand-Rommé in
    one go) while the test waited for its turn."""
    page.locator("#hand-summary").wait_for(state="visible")
    title = page.inner_text("#hand-summary-title")
    number = re.match(r"Hand (\d+)", title)
    assert number, title
    hand = int(number.group(1))
    assert page.locator("#summary-table thead th").count() == players  # and a blank corner
    assert page.locator("#summary-table .left-cards").count() == players
    if not page.locator("#scorecard").is_visible():
        page.click("#scores-toggle")
    page.wait_for_selector(f'#score-history tbody tr[data-hand="{hand}"]')
    if page.query_selector("#scores-close"):
        page.click("#scores-close")


# -- Rummy ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_rummy_hand_against_computers_by_clicks(browser: Browser, base_url: str,
                                                 viewport: str) -> None:
    context, page = new_page(browser, DESKTOP if viewport == "desktop" else PHONE_LANDSCAPE)
    problems = watch_console(page)
    player = start(page, base_url, "rummy", "Ann", 3)
    assert page.locator(".seat-chip").count() == 3
    assert page.locator(".rm-seat").count() == 2  # the others; you are the hand
    assert page.locator(".rm-seat .dealer-chip").count() + page.locator(
        ".rm-hand-info .dealer-chip").count() == 1
    screenshot(page, f"rummy-{viewport}-start")
    moves = player.play_until_hand_over()
    assert moves, "I never got to move"
    screenshot(page, f"rummy-{viewport}-hand-over")
    check_hand_end(page, player, 3)
    player.next_hand()
    assert page.locator(".rm-hand .hand-card").count() >= 7
    assert not problems, problems
    context.close()


def test_rummy_match_over_and_rematch(browser: Browser, base_url: str) -> None:
    """Game to 1 on a phone: the first scored hand ends the match; the winners, a rematch."""
    context, page = new_page(browser, PHONE_LANDSCAPE)
    problems = watch_console(page)
    player = start(page, base_url, "rummy", "Max", 2, options={"target": 1})
    for _ in range(6):  # a blocked hand scores nothing and decides nothing
        player.play_until_hand_over()
        if player.phase() == "match_over":
            break
        player.next_hand()
    assert player.phase() == "match_over"
    page.locator("#final-result").wait_for(state="visible")
    assert page.inner_text("#final-title").endswith("the match!")
    assert page.locator("#final-result .final-scores li").count() == 2
    assert page.locator("#final-result .final-scores li.winner").count() >= 1
    assert page.inner_text("#status").endswith("the match!")
    screenshot(page, "rummy-phone-match-over")
    page.click("#rematch")
    page.wait_for_function("() => document.querySelector('.rummy')?.dataset.mode === 'play'")
    assert page.locator("#score-history tbody tr[data-hand]").count() == 0
    assert not problems, problems
    context.close()


def test_rummy_lay_off_by_drag(browser: Browser, base_url: str) -> None:
    """A card marked as fitting is dragged onto the meld it fits; a wrong drop only explains;
    a selected meld dragged onto the table is laid (when one comes up first)."""
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    player = start(page, base_url, "rummy", "Dee", 4)
    found = wrong = dragged_meld = False
    for _ in range(PLAY_ON):
        player.wait_until_ready()
        if player.hand_over():
            player.next_hand()
            continue
        if player.phase() == "draw":
            player.draw()
            player.wait_until_ready()
            continue
        if player.phase() != "play":
            player.play_turn()
            continue
        player.clear()
        melds = page.locator(".table-meld").count()
        fits = player.card_keys(".fits")
        if melds and not wrong:
            others = [k for k in player.card_keys() if k not in fits]
            if others:  # drop a card that fits nowhere: a message, and nothing is played
                before, count = player.version(), len(player.hand())
                drag(page, f'.rm-hand .hand-card[data-key="{others[0]}"]', ".table-meld >> nth=0")
                # (The line may hold an earlier message: wait for this drop's own.)
                page.wait_for_function("() => (document.querySelector('#message')"
                                       "?.textContent || '').includes('Nothing was played')")
                assert player.version() == before and len(player.hand()) == count
                wrong = True
        if not dragged_meld and player.enabled("#stage-panel .candidate.legal"):
            # Select a meld's cards (by its chip) and drag one of them onto the table.
            chip = page.locator("#stage-panel .candidate.legal").first
            size = len((chip.get_attribute("data-cards") or "").split())
            chip.click()
            selected = player.card_keys(".selected")
            assert len(selected) == size
            count, before = len(player.hand()), player.version()
            melds = page.locator(".table-meld").count()
            box = page.locator("#table").bounding_box()
            card = page.locator(f'.rm-hand .hand-card[data-key="{selected[0]}"]').bounding_box()
            assert box and card
            page.mouse.move(card["x"] + 6, card["y"] + 30)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] - 12, box["y"] + box["height"] - 12, steps=12)
            page.mouse.up()
            player.wait_newer(before)
            assert len(player.hand()) == count - size
            assert page.locator(".table-meld").count() == melds + 1
            dragged_meld = True
            continue
        if fits:
            key = fits[0]
            player.select(key)  # the meld(s) it fits light up
            target = page.locator(".table-meld.target").first
            meld_id = target.get_attribute("data-meld")
            size = page.locator(f"#meld-{meld_id} .card").count()
            count = len(player.hand())
            before = player.version()
            drag(page, f'.rm-hand .hand-card[data-key="{key}"]', f"#meld-{meld_id}")
            player.wait_newer(before)
            assert len(player.hand()) == count - 1
            assert page.locator(f"#meld-{meld_id} .card").count() == size + 1
            screenshot(page, "rummy-lay-off-drag")
            found = True
            break
        player.play()
    assert found, f"no card fitted a meld on the table in {PLAY_ON} turns"
    assert not problems, problems
    context.close()


def drag(page: Page, source: str, target: str) -> None:
    """Press on the source's visible strip, move in steps, release over the target (once the
    cards have landed: a card in flight is not where it will be)."""
    settle(page)
    page.locator(target).scroll_into_view_if_needed()  # the melds on the table may scroll
    a = page.locator(source).bounding_box()
    b = page.locator(target).bounding_box()
    assert a and b
    page.mouse.move(a["x"] + 6, a["y"] + 30)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=12)
    page.mouse.up()


def test_rummy_invalid_selection_gets_a_message(browser: Browser, base_url: str) -> None:
    """Two cards are no meld, and the card just taken from the pile cannot be discarded:
    the page says so, sends nothing, and the hand and selection stay as they were."""
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    player = start(page, base_url, "rummy", "Eve", 2)
    for _ in range(PLAY_ON):  # to a turn of mine that takes the pile's card
        player.wait_until_ready()
        if player.hand_over():
            player.next_hand()
        elif player.phase() == "draw" and player.enabled("#pile"):
            taken = page.get_attribute("#pile .card.top", "data-card")
            player.click_and_wait("#pile")
            player.wait_until_ready()
            if player.phase() == "play":
                break
        else:
            player.play_turn()
    else:
        raise AssertionError(f"never a turn to take from the pile in {PLAY_ON} turns")
    keys = player.card_keys(f'[data-card="{taken}"].taken')
    assert keys, "the card taken from the pile is marked"
    player.select(keys[0])
    before, cards = player.version(), sorted(player.hand())
    page.click("#discard")
    page.wait_for_function("() => document.querySelector('#message')?.textContent")
    assert "discard another card" in player.message()
    assert player.version() == before and sorted(player.hand()) == cards
    assert player.card_keys(".selected") == keys

    # Two cards: no meld. The Meld button only says why.
    player.clear()
    two = player.card_keys()[:2]
    for key in two:
        player.select(key)
    assert page.get_attribute(f'.rm-hand .hand-card[data-key="{two[0]}"]', "aria-pressed") == "true"
    if player.enabled("#meld"):
        page.click("#meld")
        page.wait_for_function(
            "() => /at least 3 cards/.test(document.querySelector('#message')?.textContent)")
        assert player.version() == before and sorted(player.hand()) == cards
        assert sorted(player.card_keys(".selected")) == sorted(two)
    screenshot(page, "rummy-invalid-selection")
    player.clear()
    player.play()
    assert not problems, problems
    context.close()


def test_rummy_keyboard_select_and_discard(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    player = start(page, base_url, "rummy", "Kay", 2)
    for _ in range(PLAY_ON):  # to a turn of mine that draws from the stock by its key
        player.wait_until_ready()
        if player.hand_over():
            player.next_hand()
        elif player.phase() == "draw" and player.enabled("#stock"):
            before = player.version()
            page.keyboard.press("s")
            player.wait_newer(before)
            player.wait_until_ready()
            if player.phase() == "play":
                break
        else:
            player.play_turn()
    else:
        raise AssertionError(f"never a draw of mine from the stock in {PLAY_ON} turns")
    discardable = set(player.card_keys(".discardable"))
    page.keyboard.press("ArrowRight")  # into the hand
    for _ in range(len(player.hand())):
        focused = page.evaluate("() => document.activeElement.dataset.key")
        if focused in discardable:
            break
        page.keyboard.press("ArrowRight")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert " of " in label and "can be discarded" in label, label
    page.keyboard.press("Enter")  # select
    assert page.evaluate("() => document.activeElement.getAttribute('aria-pressed')") == "true"
    code = page.evaluate("() => document.activeElement.dataset.card")
    count = player.hand().count(code)
    before = player.version()
    page.keyboard.press("d")
    player.wait_newer(before)
    assert player.hand().count(code) == count - 1
    # The table melds and the pile carry spoken labels too.
    assert "Discard pile" in (page.get_attribute("#pile", "aria-label") or "")
    assert not problems, problems
    context.close()


def test_hostile_name_renders_as_text(browser: Browser, base_url: str) -> None:
    payload = "<img src=x onerror=f()>"
    grant = httpx.post(f"{base_url}/api/tables", json={
        "game": "rummy", "opponent": "friend", "name": payload, "players": 3,
        "seats": ["human", "bot"]}).json()
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    page.goto(f"{base_url}{grant['invite_url']}")
    page.fill("#sit-name", "Bob")
    page.click("#sit-down")
    page.wait_for_selector(".rummy[data-phase]")
    page.wait_for_function("() => document.querySelector('.rm-seats').innerText.includes('<img')")
    assert page.locator("img").count() == 0
    assert payload in page.inner_text(".rm-seats")
    assert payload in page.inner_text(".seat-chips")
    screenshot(page, "rummy-hostile-name")
    assert not problems, problems
    context.close()


# -- Rummy 500 -----------------------------------------------------------------------------------


def test_rummy500_hand_with_a_deep_pickup(browser: Browser, base_url: str) -> None:
    """The pile is fanned; taking a deeper card shows what it takes and that the deepest
    must be used; then the turn is played with it, and the hand is played out."""
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    player = start(page, base_url, "rummy500", "Rae", 3)
    assert page.locator("#pile.rm-fan").count() == 1
    deep = False
    for _ in range(PLAY_ON):
        player.wait_until_ready()
        if player.hand_over():
            if deep:
                break
            # no deeper card could be used in this hand: try the next (or a new match)
            player.next_hand()
            continue
        depth = player.deepest_pick() if player.phase() == "draw" else 0
        if depth > 1 and not deep:
            card = page.locator(f'#pile .pile-card[data-depth="{depth}"]')
            code = card.get_attribute("data-card")
            card.hover(position=STRIP)
            assert page.locator("#pile .pile-card.in-pick").count() == depth
            assert page.locator("#pile .pile-card.deepest").get_attribute("data-card") == code
            assert "must use" in page.inner_text("#pick-note").lower()
            assert "must use" in (card.get_attribute("aria-label") or "")
            screenshot(page, "rummy500-deep-pickup")
            before = player.version()
            card.click(position=STRIP)
            player.wait_newer(before)
            player.wait_until_ready()
            assert page.locator(f'.rm-hand .hand-card.must-place[data-card="{code}"]').count() >= 1
            assert "this turn" in page.inner_text("#status")
            assert not player.enabled("#discard") or not player.card_keys(".selected")
            moves = player.play()
            assert moves and moves[0] in ("meld", "lay off"), moves
            deep = True
            continue
        player.play_turn()
    assert deep, f"no deeper card could be used in {PLAY_ON} turns"
    check_hand_end(page, player, 3)
    assert "Melded" in page.inner_text("#summary-table")
    screenshot(page, "rummy500-hand-over")
    assert not problems, problems
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_rummy500_hand_against_computers_by_clicks(browser: Browser, base_url: str,
                                                    viewport: str) -> None:
    context, page = new_page(browser, DESKTOP if viewport == "desktop" else PHONE_LANDSCAPE)
    problems = watch_console(page)
    player = start(page, base_url, "rummy500", "Ann", 4 if viewport == "desktop" else 2)
    player.play_until_hand_over(deep=True)
    check_hand_end(page, player, 4 if viewport == "desktop" else 2)
    screenshot(page, f"rummy500-{viewport}-summary")
    player.next_hand()
    assert not problems, problems
    context.close()


# -- Rommé ---------------------------------------------------------------------------------------


def test_romme_first_meld_total_while_staging(browser: Browser, base_url: str) -> None:
    """Groups are staged one by one and the running total shows; a wrong group is refused
    with a message; at the minimum one Meld lays them all down."""
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    player = start(page, base_url, "romme", "Uwe", 2)
    staged = False
    for _ in range(PLAY_ON):
        player.wait_until_ready()
        if player.hand_over():
            player.next_hand()  # no meld came in this hand: the next
            continue
        if player.phase() == "draw":
            player.draw()
            player.wait_until_ready()
            continue
        if player.phase() != "play" or not page.query_selector("#first-meld-total"):
            player.play_turn()
            continue
        total = page.locator("#first-meld-total")
        need = int(total.get_attribute("data-need") or 0)
        assert need > 0 and f"0 of {need}" in total.inner_text()
        chips = page.eval_on_selector_all(
            "#stage-panel .candidate:enabled",
            "els => els.map(e => [e.dataset.cards, Number(e.dataset.value)])")
        if not chips:
            player.play()
            continue
        # A wrong group first: two loose cards. Refused, nothing staged, nothing sent.
        before = player.version()
        for key in player.card_keys()[:2]:
            player.select(key)
        page.click("#stage")
        page.wait_for_function("() => document.querySelector('#message')?.textContent")
        assert total.get_attribute("data-total") == "0" and player.version() == before
        player.clear()
        cards, value = chips[0]
        page.click(f'#stage-panel .candidate:enabled[data-cards="{cards}"]')
        assert len(player.card_keys(".selected")) == len(cards.split())
        page.click("#stage")
        assert total.get_attribute("data-total") == str(value)
        assert f"{value} of {need}" in total.inner_text()
        assert page.locator("#staged-groups li").count() == 1
        assert len(player.card_keys(".staged")) == len(cards.split())
        screenshot(page, "romme-staging")
        staged = True
        player.clear()
        player.play()  # stage enough to come out if possible, else discard
        break
    assert staged, f"no meld was ever in hand in {PLAY_ON} turns"
    assert not problems, problems
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_romme_hand_against_computers_by_clicks(browser: Browser, base_url: str,
                                                 viewport: str) -> None:
    context, page = new_page(browser, DESKTOP if viewport == "desktop" else PHONE_LANDSCAPE)
    problems = watch_console(page)
    players = 3 if viewport == "desktop" else 2
    player = start(page, base_url, "romme", "Ann", players)
    moves = player.play_until_hand_over(max_turns=200)
    screenshot(page, f"romme-{viewport}-hand-over")
    check_hand_end(page, player, players)
    assert "Penalty" in page.inner_text("#summary-table")
    assert moves or player.hand_over()
    player.next_hand()
    assert not problems, problems
    context.close()


# -- scripted tables: a fake socket fed views the engines made, for the moves a random
#    deal seldom offers (a joker exchange, a first meld, a deep pickup, an empty stock) ---------

SCRIPT_CODE = "SCRPTA"
SEATS = [{"seat": 0, "name": "Ann", "kind": "human", "taken": True, "connected": True},
         {"seat": 1, "name": "Computer", "kind": "bot", "taken": True, "connected": True}]


def engine_state(game: str, options: dict[str, Any] | None = None, **changes: Any) -> Any:
    """A fresh two-player match of ``game``, then the given fields set (hands, table, ...)."""
    module = importlib.import_module(f"cardtable.engine.games.{game}")
    state = module.new_match(module.Options(**(options or {})), players=2,
                             rng=random.Random(1))
    for name, value in changes.items():
        setattr(state, name, value)
    state._legal = None
    return state


class ScriptedTable:
    """The real page at a table whose server is a fake socket in the page."""

    def __init__(self, page: Page, base_url: str, game: str, seat: int | None = 0) -> None:
        self.page = page
        self.version = 0
        page.add_init_script(FAKE_WEBSOCKET_JS)
        seat = {"table_id": "t_script", "seat": 0, "token": "tok", "at": 1}
        page.add_init_script(
            f"localStorage.setItem('cardtable.v1', JSON.stringify({{seats: {{{SCRIPT_CODE}: "
            f"{json.dumps(seat)}}}}}))")
        page.goto(f"{base_url}/t/{SCRIPT_CODE}")
        page.wait_for_function("() => window.__sockets && window.__sockets.length === 1")
        table = {"table_id": "t_script", "code": SCRIPT_CODE, "game": game, "options": {},
                 "status": "playing", "seats": SEATS}
        hello = {"seat": seat, "role": "player" if seat is not None else "spectator",
                 "table": table}
        page.evaluate("""d => { const s = window.__sockets[0]; s.open();
            s.receive({t: 'welcome', v: 0, d}); }""", hello)
        # The game's module is loaded (its board's root is up): views draw at once.
        page.wait_for_selector({"gin": ".gin", "indian": ".indian", "spades": ".spades"}.get(
            game, ".rummy"))

    def show(self, view: dict[str, Any], ack: str | None = None) -> None:
        self.version += 1
        frame = {"t": "view", "v": self.version,
                 "d": {"view": view, "events": [], "rematch": [], "ack": ack}}
        self.page.evaluate("frame => window.__sockets[0].receive(frame)", frame)
        self.page.wait_for_function(
            "v => Number(document.querySelector('.table-page')?.dataset.version) === v",
            arg=self.version)

    def acts(self) -> list[dict[str, Any]]:
        return list(self.page.evaluate(
            "() => window.__sockets[0].sent.filter(f => f.t === 'act').map(f => f.d)"))


def test_joker_exchange_by_dropping_the_natural_card_on_it(browser: Browser,
                                                            base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    table = ScriptedTable(page, base_url, "romme")
    state = engine_state(
        "romme", hands=[parse("7d 2c 5h 9s Kd"), parse("3c 4c 8h Qs")],
        table=[lay(1, 1, parse("7c 7h Jk"), MeldRules(ace_high=True))],
        has_melded=[True, True], to_act=0, phase=Phase.PLAY, discard=parse("3d"))
    view = state.view(0)
    assert {"type": "swap_joker", "card": "7d", "meld": 1} in view["legal"]
    table.show(view)
    page.wait_for_selector(".rummy.my-turn")
    assert "joker as 7 of diamonds" in (page.get_attribute("#meld-1", "aria-label") or "")
    assert page.locator('.rm-hand .hand-card.fits[data-card="7d"]').count() == 1
    page.click('.rm-hand .hand-card[data-card="7d"]', position=STRIP)
    assert "target" in (page.get_attribute("#meld-1", "class") or "")
    screenshot(page, "romme-joker-swap")
    drag(page, '.rm-hand .hand-card[data-card="7d"]', "#meld-1 .table-joker")
    page.wait_for_function("() => window.__sockets[0].sent.some(f => f.t === 'act')")
    first = table.acts()[0]
    assert first["action"] == {"type": "swap_joker", "card": "7d", "meld": 1}
    # Answered; then the same card dropped on the meld itself is a lay-off.
    table.show(view, ack=first["id"])
    page.wait_for_selector(".rummy.my-turn")
    drag(page, '.rm-hand .hand-card[data-card="7d"]', '#meld-1 .card[data-card="7c"]')
    page.wait_for_function(
        "() => window.__sockets[0].sent.filter(f => f.t === 'act').length === 2")
    assert table.acts()[1]["action"] == {"type": "lay_off", "card": "7d", "meld": 1}
    assert not problems, problems
    context.close()


def test_first_meld_staged_to_the_minimum_goes_down_in_one_move(browser: Browser,
                                                                  base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    table = ScriptedTable(page, base_url, "romme")
    state = engine_state(
        "romme", hands=[parse("Qh Kh Ah 7c 7d 7s 2c 4d 9s"), parse("3c 4c 8h Qs")],
        table=[], has_melded=[False, False], to_act=0, phase=Phase.PLAY, discard=parse("3d"))
    view = state.view(0)
    openings = [a for a in view["legal"] if a["type"] == "meld"]
    assert view["first_meld"] == 40 and len(openings) == 1
    table.show(view)
    total = page.locator("#first-meld-total")
    assert total.inner_text() == "First meld: 0 of 40 points"
    page.click('#stage-panel .candidate[data-cards="Ah Qh Kh"]')
    page.click("#stage")
    assert total.inner_text() == "First meld: 31 of 40 points"
    page.click("#meld")  # 31 is not enough: it says so and sends nothing
    page.wait_for_function("() => /31 of 40/.test(document.querySelector('#message').textContent)")
    assert table.acts() == []
    assert page.locator(".rm-hand .hand-card.staged").count() == 3
    page.click('#stage-panel .candidate[data-cards="7c 7d 7s"]')
    page.click("#stage")
    assert total.inner_text() == "First meld: 52 of 40 points"
    assert page.inner_text("#meld").startswith("Meld 52")
    screenshot(page, "romme-first-meld-staged")
    page.click("#meld")
    page.wait_for_function("() => window.__sockets[0].sent.some(f => f.t === 'act')")
    assert [a["action"] for a in table.acts()] == openings  # exactly as listed in legal
    assert not problems, problems
    context.close()


def test_rummy500_deep_pickup_and_pass_on_an_empty_stock(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, PHONE_LANDSCAPE)
    problems = watch_console(page)
    table = ScriptedTable(page, base_url, "rummy500")
    state = engine_state("rummy500", hands=[parse("9s 9h 2c Kd 5h"), parse("3c 4c 8h Qs")],
                         discard=parse("4c 9d 5s Jh 2d"), to_act=0, phase=Phase.DRAW, table=[])
    view = state.view(0)
    assert {"type": "draw_discard", "number": 4} in view["legal"]
    table.show(view)
    # Only the top card and the 9d (usable with 9s 9h) can be taken.
    takes = page.eval_on_selector_all("#pile .pile-card.can-take",
                                      "els => els.map(e => [e.dataset.card, e.dataset.depth])")
    assert sorted(takes) == [["2d", "1"], ["9d", "4"]]
    deep = page.locator('#pile .pile-card[data-depth="4"]')
    deep.hover(position=STRIP)
    picked = page.eval_on_selector_all("#pile .pile-card.in-pick",
                                       "els => els.map(e => e.dataset.card)")
    assert picked == ["9d", "5s", "Jh", "2d"]
    assert page.get_attribute("#pile .pile-card.deepest", "data-card") == "9d"
    screenshot(page, "rummy500-phone-deep-pickup")
    deep.click(position=STRIP)
    page.wait_for_function("() => window.__sockets[0].sent.some(f => f.t === 'act')")
    first = table.acts()[0]
    assert first["action"] == {"type": "draw_discard", "number": 4}

    # The stock is empty: take from the pile, or pass (the hand ends).
    state = engine_state("rummy500", hands=[parse("9s 9h 2c Kd 5h"), parse("3c 4c 8h Qs")],
                         discard=parse("4c 9d 5s Jh 2d"), to_act=0, phase=Phase.DRAW,
                         table=[], stock=[])
    view = state.view(0)
    assert {"type": "pass"} in view["legal"]
    table.show(view, ack=first["id"])
    page.wait_for_selector("#act-pass:enabled")
    assert page.locator("#stock").is_disabled()
    assert "pass" in page.inner_text("#status")
    page.click("#act-pass")
    page.wait_for_function(
        "() => window.__sockets[0].sent.filter(f => f.t === 'act').length === 2")
    assert table.acts()[1]["action"] == {"type": "pass"}

    # Calling Rummy: the discard on offer can be called (and played at once) or let go.
    state = engine_state("rummy500", {"calling_rummy": True},
                         hands=[parse("9s 9h 2c Kd 5h"), parse("3c 4c 8h Qs")],
                         discard=parse("4c 9d"), to_act=0, phase=Phase.CALL, table=[],
                         call=Call(parse("9d")[0], 1, (0,)))
    view = state.view(0)
    assert view["legal"] == [{"type": "call"}, {"type": "pass"}]
    table.show(view, ack=table.acts()[1]["id"])
    page.wait_for_selector("#act-call:enabled")
    assert "discarded the 9♦" in page.inner_text("#status")
    page.keyboard.press("c")
    page.wait_for_function(
        "() => window.__sockets[0].sent.filter(f => f.t === 'act').length === 3")
    assert table.acts()[2]["action"] == {"type": "call"}
    assert not problems, problems
    context.close()


def test_a_spectator_sees_the_table_but_no_hand(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    table = ScriptedTable(page, base_url, "rummy", seat=None)
    state = engine_state("rummy", hands=[parse("7d 2c 5h 9s Kd"), parse("3c 4c 8h Qs 2d")],
                         table=[lay(1, 1, parse("8c 8h 8s"))], to_act=0, phase=Phase.PLAY,
                         discard=parse("3d 9c"))
    view = state.view(None)
    assert view["legal"] == [] and all("cards" not in hand for hand in view["hands"])
    table.show(view)
    page.wait_for_selector(".rummy.watching")
    assert page.locator(".rm-seat").count() == 2  # both players around the table
    assert not page.locator(".rm-hand").is_visible()
    assert page.locator(".rm-hand .hand-card").count() == 0
    # Face up: only the meld on the table and the discard pile.
    faces = page.evaluate("""() => [...document.querySelectorAll('svg.card-svg.face')]
        .filter(el => !el.closest('#table, #pile')).length""")
    assert faces == 0
    assert page.locator(".buttons .action:enabled").count() == 0
    assert not problems, problems
    context.close()
