"""An automated accessibility check (issue 14): axe-core on the home page and its lobby,
a table's door (the page before sitting down), each game's table against computers (on my
turn, and at the end of a hand played by keys), and the table's drawers and notices — on
a desktop (1280 × 800), a phone held upright (390 × 844) and sideways (844 × 390). No
serious or critical violation may be found, nor any of the lesser ones listed in ``HELD``.

axe-core comes from the axe-playwright-python wheel, which bundles axe.min.js: nothing is
fetched at run time. Moderate and minor findings are not failures, but each test prints
them (``-s``) for whoever polishes next.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

from browser_harness import (
    DESKTOP,
    PHONE_LANDSCAPE,
    PHONE_PORTRAIT,
    new_page,
    resized,
    settle,
    table_code,
    watch_console,
)
from test_board_frame import BOARDS, sit_down
from test_browser_rummy import game_ready
from test_keyboard import GAMES as KEY_PLAYERS  # players by keys: the quickest way to a hand's end

SIZES = {"desktop": DESKTOP, "phone": PHONE_PORTRAIT, "sideways": PHONE_LANDSCAPE}
BLOCKING = ("serious", "critical")
# Lesser findings fixed once and held to since: every page has its h1 (the table's is for
# screen readers), and a table's blank corner cell is no header.
HELD = ("page-has-heading-one", "empty-table-header")
AXE = Axe()


def violations(page: Page, context: Any = None) -> tuple[list[str], list[str]]:
    """(serious or critical, the rest): one line per rule, with up to five of its nodes."""
    # Web Animations in flight would be checked half-faded (colour contrast): let them end.
    page.evaluate("() => Promise.all(document.getAnimations()"
                  ".filter(a => a.effect?.getComputedTiming().iterations !== Infinity)"
                  ".map(a => a.finished.catch(() => null)))")
    found = AXE.run(page, context=context).response["violations"]
    lines: tuple[list[str], list[str]] = ([], [])
    for v in found:
        nodes = "; ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        line = f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes: {nodes}): {v['help']}"
        lines[0 if v["impact"] in BLOCKING or v["id"] in HELD else 1].append(line)
    return lines


def assert_accessible(page: Page, where: str, context: Any = None) -> None:
    blocking, rest = violations(page, context)
    for line in rest:
        print(f"[{where}] {line}")
    assert not blocking, f"{where}:\n" + "\n".join(blocking)


def public_table(base_url: str, game: str = "gin", players: int = 2) -> str:
    grant = httpx.post(f"{base_url}/api/tables", json={
        "game": game, "opponent": "friend", "name": "Rita", "players": players,
        "settings": {"private": False}}, timeout=10).json()
    return table_code(grant["invite_url"])


@pytest.mark.parametrize("size", list(SIZES))
def test_the_home_page_and_its_lobby(browser: Browser, base_url: str, size: str) -> None:
    code = public_table(base_url)
    context, page = new_page(browser, SIZES[size])
    problems = watch_console(page)
    page.goto(f"{base_url}/")
    page.wait_for_selector(".game-choice")
    page.locator(f'.open-table[data-code="{code}"]').wait_for()
    assert_accessible(page, f"home {size}")
    # The options opened and another game picked: the form as a newcomer fills it in.
    page.click("details.options summary")
    page.click("label[for=game-spades]")
    page.wait_for_function(
        """() => document.querySelector('#game-spades')?.checked
                 && document.querySelector('details.options')?.open
                 && document.querySelector('#howto-link')?.textContent === 'How to play Spades'""")
    settle(page)  # the options box has opened and filled in (no transition half-way)
    assert_accessible(page, f"home, Spades options {size}")
    assert not problems, problems
    context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_tables_door(browser: Browser, base_url: str, size: str) -> None:
    """/t/CODE before sitting down: the seats, the settings, Sit down / Watch."""
    code = public_table(base_url, "rummy", 3)
    context, page = new_page(browser, SIZES[size])
    problems = watch_console(page)
    page.goto(f"{base_url}/t/{code}")
    page.wait_for_selector("#sit-down")
    assert_accessible(page, f"door {size}")
    assert not problems, problems
    context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game", list(BOARDS))
def test_each_games_table(browser: Browser, base_url: str, game: str, size: str) -> None:
    sheet, _player, players, options = BOARDS[game]
    game_ready(base_url, game)
    context, page = new_page(browser, SIZES[size])
    problems = watch_console(page)
    sit_down(page, base_url, game, players, options)
    page.wait_for_selector(f".{sheet}[data-phase]")
    # The computers move first at some tables: check the table once it is my turn. Their
    # moves may end the hand before it (Indian: two computers drop): then in the next one.
    for _ in range(3):
        page.wait_for_selector(f".{sheet}.my-turn, .{sheet}[data-mode=hand-over]",
                               timeout=60_000)
        if page.get_attribute(f".{sheet}", "data-mode") != "hand-over":
            break
        assert_accessible(page, f"{game} {size}, a hand over before my turn")
        # A one-deal match (points rummy) is over with that hand: a rematch deals the next.
        onwards = "#next-hand:enabled, #next-deal:enabled, #continue, #rematch:enabled"
        page.wait_for_selector(onwards)
        page.click(onwards)
        page.wait_for_selector(f".{sheet}[data-mode=play]")
    page.wait_for_selector(f".{sheet}.my-turn")
    assert_accessible(page, f"{game} {size}")
    assert not problems, problems
    context.close()


@pytest.mark.slow
@pytest.mark.parametrize("game", list(BOARDS))
def test_the_end_of_a_hand(browser: Browser, base_url: str, game: str) -> None:
    """The end-of-hand panel (scores, melds shown, who won), reached by keys, at each size."""
    player_class, players, options = KEY_PLAYERS[game]
    game_ready(base_url, game)
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    sit_down(page, base_url, game, players, options)
    player = player_class(page)
    page.wait_for_selector(f"{player.root}[data-phase]")
    player.play_hand()
    # The panel settles: its button is up (mine to deal, Continue once a computer dealer
    # has dealt on, Rematch at the match's end), and nothing moves.
    page.wait_for_selector("#next-hand, #next-deal, #continue, #rematch")
    settle(page)
    for size, viewport in SIZES.items():
        resized(page, viewport)
        assert_accessible(page, f"{game} hand over {size}")
    assert not problems, problems
    context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_tables_drawers_and_notices(browser: Browser, base_url: str, size: str) -> None:
    """The Table drawer (the host's settings), the chat, the invite panel and a notice;
    the board under them is checked by test_each_games_table."""
    grant = httpx.post(f"{base_url}/api/tables", json={
        "game": "gin", "opponent": "friend", "name": "Ann", "settings": {"turn_time": 0}},
        timeout=10).json()
    code = table_code(grant["invite_url"])
    context, page = new_page(browser, SIZES[size])
    problems = watch_console(page)
    page.goto(f"{base_url}/")
    page.evaluate(
        """([code, g]) => localStorage.setItem('cardtable.v1', JSON.stringify({seats: {
             [code]: {table_id: g.table_id, seat: g.seat, token: g.token, at: Date.now()}}}))""",
        [code, grant])
    page.goto(f"{base_url}/t/{code}")
    page.wait_for_selector('.conn[data-state="connected"]')
    page.locator("#invite-link").wait_for()
    around = {"exclude": [["#board"]]}
    assert_accessible(page, f"invite {size}", around)
    page.click("#table-toggle")
    page.locator("#set-express").wait_for()
    page.select_option("#set-turn-time", "60")
    page.locator("#life-notices .life-notice").wait_for()
    assert_accessible(page, f"table drawer and a notice {size}", around)
    page.click("#chat-toggle")
    page.fill("#chat-input", "hello")
    page.click("#chat-send")
    page.locator("#chat-log .chat-msg").wait_for()
    assert_accessible(page, f"chat drawer {size}", around)
    assert not problems, problems
    context.close()
