"""The keyboard path through a whole hand, on every board (issue 14): a person who uses no
mouse and no finger sits down against computers and plays a hand to its end with Tab,
the arrow keys, Enter/Space and the letter keys of the board's help line, then deals or
continues to the next hand from the end-of-hand panel.

Reading the page (whose turn, which cards are playable) is done as a sighted keyboard
user does, from what is shown; every move is made with ``page.keyboard`` only — no
click, tap or drag. The Tab key must reach the hand from the top of the page, and the
end-of-hand panel's button.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    CARD_VALUE,
    DESKTOP,
    new_page,
    screenshot,
    wait_for_answer,
    watch_console,
)
from test_board_frame import sit_down
from test_browser_rummy import game_ready, rank_of

TAB_LIMIT = 80  # Tab presses allowed to reach a control from the top of the page
NEXT_HAND = "#next-hand:enabled, #continue, #next-deal:enabled"
TARGET_MELD = ".table-meld.target"  # a meld the selected card can go on
REMATCH = "#rematch:enabled, #life-rematch:enabled"
# Moves that take a card from my hand with the keys (not a draw, a pass or a bid).
CARD_MOVES = {"discard", "play", "meld", "lay", "declare", "knock", "gin", "big", "exchange"}

_FOCUS_INDEX = """([hand, wanted]) => {
  const cards = [...document.querySelectorAll(hand)];
  return [cards.indexOf(document.activeElement), cards.findIndex(e => e.matches(wanted))];
}"""


def settle(page: Page) -> None:
    """Until the cards in flight have landed (for a picture of where they are)."""
    page.evaluate("() => Promise.all(document.getAnimations()"
                  ".filter(a => a.effect?.getComputedTiming().iterations !== Infinity)"
                  ".map(a => a.finished.catch(() => null)))")


class KeyboardPlayer:
    """One person at a table in one page, moving by keys only."""

    root = ""  # the board's root selector
    hand = ""  # the hand's cards

    def __init__(self, page: Page) -> None:
        self.page = page
        self.tabbed_in = False

    # -- reading -----------------------------------------------------------------------------

    def attr(self, name: str) -> str:
        return str(self.page.get_attribute(self.root, name))

    def phase(self) -> str:
        return self.attr("data-phase")

    def version(self) -> int:
        return int(self.page.get_attribute(".table-page", "data-version") or -1)

    def hand_over(self) -> bool:
        return self.attr("data-mode") == "hand-over"

    def enabled(self, selector: str) -> bool:
        el = self.page.query_selector(selector)
        return el is not None and el.is_visible() and el.is_enabled()

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Until it is my turn, or the hand is over."""
        self.page.wait_for_function(
            """r => { const g = document.querySelector(r);
                      return g && (g.classList.contains('my-turn') ||
                                   g.dataset.mode === 'hand-over'); }""",
            arg=self.root, timeout=timeout * 1000)

    def wait_newer(self, version: int, timeout: float = 15.0) -> None:
        wait_for_answer(self.page, version, timeout)

    def answered(self, version: int, timeout: float = 1.5) -> bool:
        """Whether the server answered (a newer version) within ``timeout`` seconds."""
        try:
            self.wait_newer(version, timeout)
        except Exception:
            return False
        return True

    # -- keys ----------------------------------------------------------------------------------

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)

    def press_and_wait(self, key: str) -> None:
        before = self.version()
        self.press(key)
        self.wait_newer(before)

    def tab_to(self, selector: str) -> int:
        """Tab from the top of the page until ``selector`` has the focus: the presses."""
        self.page.evaluate("() => document.activeElement?.blur()")
        for presses in range(1, TAB_LIMIT + 1):
            self.press("Tab")
            if self.page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
                return presses
        where = self.page.evaluate("() => document.activeElement?.outerHTML.slice(0, 120)")
        raise AssertionError(f"Tab never reached {selector} (focus ended on {where})")

    def focus_card(self, wanted: str) -> None:
        """The arrow keys along the hand until the first card matching ``wanted`` has focus
        (the first time in a hand, Tab brings the keyboard into the hand)."""
        if not self.tabbed_in:
            self.tab_to(self.hand)
            self.tabbed_in = True
        for _ in range(40):
            at, target = self.page.evaluate(_FOCUS_INDEX, [self.hand, wanted])
            assert target >= 0, f"no card matches {wanted}"
            if at == target:
                return
            self.press("ArrowRight" if at < target else "ArrowLeft")
        raise AssertionError(f"the arrow keys never reached {wanted}")

    def next_hand(self) -> None:
        """From the end-of-hand panel: Tab to its button (deal, continue, or a rematch when
        the hand ended the match: the computers agree at once) and press Enter."""
        wanted = REMATCH if self.phase() == "match_over" else NEXT_HAND
        self.page.wait_for_selector(wanted)
        self.tab_to(wanted)
        self.press("Enter")
        self.page.wait_for_function(
            "r => document.querySelector(r)?.dataset.mode === 'play'", arg=self.root)

    def turn(self) -> str:
        raise NotImplementedError

    def play_hand(self, max_turns: int = 150) -> list[str]:
        moves: list[str] = []
        for _ in range(max_turns):
            self.wait_ready()
            if self.hand_over():
                return moves
            moves.append(self.turn())
        raise AssertionError(f"the hand did not end: {moves[-20:]}")


class GinKeys(KeyboardPlayer):
    root = ".gin"
    hand = ".my-hand .hand-card[data-card]"

    def chooser_or_wait(self, before: int) -> None:
        """K/G act at once with a legal focused card, or open the choice of discards (the
        focus lands on its first button): Enter takes it."""
        if self.answered(before):
            return
        assert self.page.evaluate("() => !!document.activeElement?.closest('.chooser')")
        self.press_and_wait("Enter")

    def turn(self) -> str:
        phase = self.phase()
        if phase in ("first_upcard", "final_discard"):
            self.press_and_wait("x")
            return "pass"
        if phase == "draw":
            self.press_and_wait("s")
            return "stock"
        assert phase == "discard", phase
        for button, key, name in (("#big-gin", "b", "big gin"), ("#gin", "g", "gin"),
                                  ("#knock", "k", "knock")):
            if self.enabled(button):
                before = self.version()
                self.press(key)
                self.chooser_or_wait(before)
                return name
        cards = self.page.eval_on_selector_all(
            ".my-hand .hand-card.playable",
            "els => els.map(e => [e.dataset.card, e.classList.contains('is-deadwood')])")
        assert cards, "nothing to discard on my discard"
        card = str(max(cards, key=lambda c: (c[1], CARD_VALUE[c[0][0]]))[0])
        self.focus_card(f'[data-card="{card}"]')
        self.press_and_wait("Enter")
        return f"discard {card}"


class RummyKeys(KeyboardPlayer):
    root = ".rummy"
    hand = ".rm-hand .hand-card[data-key]"

    def __init__(self, page: Page) -> None:
        super().__init__(page)
        self.given_up = -1  # the version at which melding by keys last failed

    def select(self, codes: list[str]) -> None:
        """Enter on each card of ``codes`` (copies of a card: a free one each time)."""
        for code in codes:
            self.focus_card(f'.hand-card[data-card="{code}"]:not(.selected):not(.staged)')
            self.press("Enter")

    def meld(self) -> bool:
        """Lay the first meld the page offers (a first meld with a minimum: groups added
        with A until the total is reached), by selecting its cards and pressing M."""
        if self.given_up == self.version():
            return False
        total = self.page.query_selector("#first-meld-total")
        before = self.version()
        if total is None:
            chips = self.page.eval_on_selector_all(
                "#stage-panel .candidate.legal", "els => els.map(e => e.dataset.cards)")
            if not chips:
                return False
            self.select(str(chips[0]).split())
        else:
            need = int(total.get_attribute("data-need") or 0)
            for _ in range(6):
                reached = int(self.page.get_attribute("#first-meld-total", "data-total") or 0)
                chips = self.page.eval_on_selector_all(
                    "#stage-panel .candidate:enabled",
                    "els => els.map(e => [e.dataset.cards, Number(e.dataset.value)])")
                if reached >= need or not chips:
                    break
                self.select(str(max(chips, key=lambda c: c[1])[0]).split())
                self.press("a")
        self.press("m")
        if self.answered(before):
            return True
        self.given_up = self.version()
        self.press("Escape")  # what was selected or staged goes back to the hand
        self.press("Escape")
        return False

    def lay_off(self) -> str | None:
        """Lay off (or exchange a joker with) the first card that fits, a card the table is
        owed first. L plays it where it goes; where it goes on more than one meld, the
        page highlights them and Tab reaches the first, where Enter plays it."""
        owed = self.page.eval_on_selector_all(
            f"{self.hand}.must-place", "els => els.map(e => e.dataset.key)")
        fits = owed or self.page.eval_on_selector_all(
            f"{self.hand}.fits", "els => els.map(e => e.dataset.key)")
        if not fits or self.given_up == self.version():
            return None
        before = self.version()
        self.focus_card(f'[data-key="{fits[0]}"]')
        self.press("Enter")
        self.press("l")
        if self.answered(before):
            return "lay off"
        if self.page.locator(TARGET_MELD).count():
            self.tab_to(TARGET_MELD)
            self.tabbed_in = False  # the focus left the hand: Tab brings it back next time
            self.press("Enter")
            if self.answered(before):
                return "lay off, on the meld Tab reached"
        self.given_up = self.version()
        self.press("Escape")
        return None

    def wait_discard_or_turn_over(self, timeout: float = 15.0) -> None:
        """Until my hand shows a card to discard, or my turn is over; on a timeout, what the
        page said (its status line and my hand) for the failure's report."""
        try:
            self.page.wait_for_function(
                """([root, hand]) => { const g = document.querySelector(root);
                    return !g || !g.classList.contains('my-turn') || g.dataset.mode !== 'play'
                           || document.querySelector(hand + '.discardable') !== null; }""",
                arg=[self.root, self.hand], timeout=timeout * 1000)
        except Exception as timed_out:
            status = self.page.evaluate(
                "() => document.querySelector('.status-bar')?.innerText ?? ''")
            raise AssertionError(f"no discard offered in my play: status {status!r}, "
                                 f"hand {self.page.inner_text('.rm-hand')!r}") from timed_out

    def turn(self) -> str:
        phase = self.phase()
        if phase == "draw":
            self.press_and_wait("s" if self.enabled("#stock") else "p")
            return "draw"
        if phase == "call":
            self.press_and_wait("x")
            return "pass"
        assert phase == "play", phase
        if self.meld():
            return "meld"
        laid = self.lay_off()
        if laid:
            return laid
        # After a meld or lay-off the next view marks the discards: wait for it to be drawn.
        # A meld the server answered after ``answered`` gave up on it may have ended my turn
        # (my last cards melded: the hand is over): then there is nothing to discard.
        if not self.page.locator(f"{self.hand}.discardable").count():
            self.wait_discard_or_turn_over()
            if not self.page.locator(f"{self.hand}.discardable").count():
                return "meld, answered late"
        cards = self.page.eval_on_selector_all(
            f"{self.hand}.discardable",
            "els => els.map(e => [e.dataset.key, e.dataset.card, e.classList.contains('fits')])")
        assert cards, "nothing to discard in my play"
        key, code, _ = max(cards, key=lambda c: (not c[2], c[1] != "Jk", rank_of(c[1])))
        self.focus_card(f'[data-key="{key}"]')
        self.press("Enter")  # select it
        assert self.page.evaluate("() => document.activeElement.getAttribute('aria-pressed')") \
            == "true"
        self.press_and_wait("d")
        return f"discard {code}"


class IndianKeys(KeyboardPlayer):
    root = ".indian"
    hand = "#my-hand .hand-card[data-key]"
    DROP_AFTER = 10  # draws before dropping out (a deal against computers can run long)

    def __init__(self, page: Page) -> None:
        super().__init__(page)
        self.draws = 0

    def confirm(self, dialog: str) -> None:
        """A confirm box (focus starts on Cancel for a costly move): Tab to confirm, Enter."""
        self.page.locator(f"#{dialog}").wait_for(state="visible")
        for _ in range(4):
            if self.page.evaluate("d => document.activeElement?.id === d", f"{dialog}-confirm"):
                break
            self.press("Tab")
        self.press_and_wait("Enter")

    def turn(self) -> str:
        phase = self.phase()
        if phase == "draw":
            if self.draws >= self.DROP_AFTER and self.enabled("#drop"):
                self.press("x")
                self.confirm("drop-confirm")
                return "drop"
            self.draws += 1
            self.press_and_wait("s")
            return "draw"
        assert phase == "discard", phase
        finish = self.page.eval_on_selector_all(
            f"{self.hand}.finish", "els => els.map(e => e.dataset.key)")
        if finish:
            self.focus_card(f'[data-key="{finish[0]}"]')
            self.press("Enter")
            self.press("c")
            self.confirm("declare-confirm")
            return "declare"
        playable = self.page.eval_on_selector_all(
            f"{self.hand}.playable",
            "els => els.map(e => [e.dataset.key, e.classList.contains('wild'),"
            " !!e.closest('.in-group.loose'), e.dataset.card])")
        assert playable, "nothing to discard on my discard"
        key, _, _, code = max(playable, key=lambda c: (not c[1], c[2], rank_of(c[3])))
        self.focus_card(f'[data-key="{key}"]')
        self.press("Enter")  # select it
        self.press_and_wait("d")
        return f"discard {code}"


class SpadesKeys(KeyboardPlayer):
    root = ".spades"
    hand = ".sp-hand .hand-card[data-key]"

    def bid(self) -> str:
        enabled = [int(str(n)) for n in self.page.eval_on_selector_all(
            "#bid-panel .bid-button:enabled", "els => els.map(e => e.dataset.bid)")]
        assert enabled, "no bid on my bid"
        # A fair bid, never nil (nil asks to be confirmed: another test's business).
        number = min((n for n in enabled if n > 0), key=lambda n: (abs(n - 3), n))
        before = self.version()
        for digit in str(number):
            self.press(digit)
        if not self.answered(before, 2.5):  # "1" waits for a second digit: Enter bids it
            self.press_and_wait("Enter")
        return f"bid {number}"

    def turn(self) -> str:
        phase = self.phase()
        if phase == "blind_nil":
            self.press_and_wait("l")
            return "look"
        if phase == "bid":
            return self.bid()
        if phase == "draw":
            self.press_and_wait("k")
            return "keep"
        if phase == "exchange":
            keys = self.page.eval_on_selector_all(self.hand, "els => els.map(e => e.dataset.key)")
            for key in keys[:2]:
                self.focus_card(f'[data-key="{key}"]')
                self.press("Space")
            self.press_and_wait("p")
            return "exchange two"
        assert phase == "play", phase
        playable = self.page.eval_on_selector_all(
            f"{self.hand}.playable", "els => els.map(e => e.dataset.key)")
        assert playable, "nothing playable on my play"
        self.focus_card(f'[data-key="{playable[0]}"]')
        self.press_and_wait("Enter")
        return "play"


# game: (player, seats, table options)
GAMES: dict[str, tuple[type[KeyboardPlayer], int, dict[str, Any]]] = {
    "gin": (GinKeys, 2, {}),
    "rummy": (RummyKeys, 3, {}),
    "rummy500": (RummyKeys, 3, {}),
    "romme": (RummyKeys, 3, {}),
    "indian": (IndianKeys, 3, {"preset": "points"}),
    "spades": (SpadesKeys, 4, {}),
}


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_hand_by_keyboard(browser: Browser, base_url: str, game: str) -> None:
    player_class, players, options = GAMES[game]
    game_ready(base_url, game)
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    sit_down(page, base_url, game, players, options)
    player = player_class(page)
    page.wait_for_selector(f"{player.root}[data-phase]")
    clicks: list[str] = []
    page.expose_function("__clicked", lambda where: clicks.append(where))
    # Any pointer event would be a test bug: the keyboard is the only input here.
    page.evaluate("""() => ['pointerdown', 'mousedown', 'touchstart'].forEach(type =>
        document.addEventListener(type, e => window.__clicked(type + ' ' + e.target.tagName),
                                  { capture: true }))""")

    # A computer may end a hand before I have played a card from mine, or I may knock at
    # once through the choice of discards, never tabbing into my hand: then the next one.
    moves: list[str] = []
    for _ in range(4):
        moves += player.play_hand()
        settle(page)
        screenshot(page, f"keyboard-{game}-hand-over")
        player.next_hand()  # the next hand is under way, reached by Tab and Enter too
        if any(m.split()[0] in CARD_MOVES for m in moves) and player.tabbed_in:
            break
    print(game, moves)
    assert any(m.split()[0] in CARD_MOVES for m in moves), f"no card played from my hand: {moves}"
    assert player.tabbed_in, "the hand was never reached by Tab"
    assert clicks == [], clicks
    assert not problems, problems
    context.close()
