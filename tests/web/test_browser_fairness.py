"""Provably fair deals in the browser (issue 17, item 7), in real Chromium against a real
`cardtable serve`.

A person plays a one-hand Gin match against the computer. At the showdown the page has
checked the hand's shuffles itself (WebCrypto SHA-256 of salt + ":" + order against the
commitment it was sent when the cards were dealt) and says "Fair deal", with the proof
folded under it. Then the same with a server that lies: a proxy in the page's WebSocket
(Playwright's route_web_socket) swaps two cards of the revealed order, or swaps them and
sends a commitment recomputed to fit; the page says the check FAILED, and why.
Screenshots: artifacts/screenshots/fair-deal-<size>.png, fair-deal-tampered.png.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute

from browser_harness import DESKTOP, SIZES, GinPlayer, new_page, resized, screenshot, watch_console
from cardtable.match_file import verify
from test_board_frame import sit_down

VERDICT = "#fair-deal"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context: BrowserContext
    context, page = new_page(browser, DESKTOP)
    yield page
    context.close()


def play_the_hand(page: Page, base_url: str) -> None:
    sit_down(page, base_url, "gin", 2, {"deals": 1})
    page.wait_for_selector(".gin[data-phase]")
    GinPlayer(page).play_until_hand_over(max_turns=80)


def test_the_showdown_says_the_deal_was_fair(page: Page, base_url: str) -> None:
    problems = watch_console(page)
    play_the_hand(page, base_url)
    page.wait_for_selector(f'{VERDICT}[data-fair="ok"]')
    verdict = page.locator(VERDICT)
    assert "Fair deal" in verdict.inner_text()
    verdict.locator("summary").click()
    proofs = page.eval_on_selector_all(
        ".fair-proof", "els => els.map(e => [...e.querySelectorAll('dd')].map(d => d.textContent))")
    assert proofs, "no proof under the verdict"
    decks = [p for p in proofs if " " in p[2]]
    assert decks and all(len(d[2].split()) == 52 for d in decks)  # Gin's whole deck, in order
    for commit, salt, order, check in proofs:
        assert hashlib.sha256(f"{salt}:{order}".encode()).hexdigest() == commit
        assert check == "✓ matches the commitment"
    # The match is over (one hand): its file is offered, and it verifies.
    href = page.get_attribute("#download-match", "href")
    assert href is not None
    verdict = verify(page.request.get(f"{base_url}{href}").json())
    assert verdict.ok and verdict.shuffles == len(proofs), verdict.problems
    for size, viewport in SIZES.items():
        resized(page, viewport)
        page.locator(VERDICT).scroll_into_view_if_needed()
        screenshot(page, f"fair-deal-{size}")
    assert problems == []


def swap_two_cards(recommit: bool) -> Callable[[dict], dict]:
    """What a cheating server would send: the revealed deck with two cards swapped (and, if
    ``recommit``, a commitment recomputed to fit)."""
    def tamper(frame: dict) -> dict:
        fair = frame.get("d", {}).get("fair") if frame.get("t") == "view" else None
        if not fair:
            return frame
        for shuffle in fair["shuffles"]:
            order = shuffle.get("order")
            if order and " " in order:
                cards = order.split()
                cards[0], cards[1] = cards[1], cards[0]
                shuffle["order"] = " ".join(cards)
            if order and recommit:
                shuffle["commit"] = hashlib.sha256(
                    f"{shuffle['salt']}:{shuffle['order']}".encode()).hexdigest()
        return frame
    return tamper


@pytest.mark.parametrize(("recommit", "why"), [
    (False, "the revealed order does not match its commitment"),
    (True, "the commitment changed after the deal"),
])
def test_a_tampered_reveal_fails_visibly(page: Page, base_url: str, recommit: bool,
                                         why: str) -> None:
    tamper = swap_two_cards(recommit)

    def proxy(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)
        server.on_message(lambda message: ws.send(
            json.dumps(tamper(json.loads(message))) if isinstance(message, str) else message))

    page.route_web_socket("**/ws/**", proxy)
    play_the_hand(page, base_url)
    page.wait_for_selector(f'{VERDICT}[data-fair="bad"]')
    text = page.inner_text(VERDICT)
    assert "Deal check FAILED" in text and why in text
    if not recommit:
        screenshot(page, "fair-deal-tampered")
