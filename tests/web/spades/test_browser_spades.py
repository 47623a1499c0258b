"""The Spades table in real Chromium against a real `cardtable serve`.

Players act only by clicks and keys, reading what the page shows (buttons,
cards, ``data-*`` attributes): a disabled bid button or a card without the
``playable`` class is simply not clicked; the page never decides legality
either, it shows the server's ``legal`` list. Screenshots of the key moments
go to artifacts/screenshots/spades-*.png for a human to look at.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser_harness import (
    DESKTOP,
    FAKE_WEBSOCKET_JS,
    PHONE_LANDSCAPE,
    new_page,
    screenshot,
    table_code,
    wait_for_answer,
    watch_console,
    whose_turn,
)

# A person's habit when bidding: a middling number if the server allows it.
BID_PREFERENCE = (3, 2, 4, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0)


class SpadesPlayer:
    """One person at a Spades table in one page."""

    def __init__(self, page: Page) -> None:
        self.page = page

    # -- reading the page ------------------------------------------------------------------

    def attr(self, name: str) -> str:
        return str(self.page.get_attribute(".spades", name))

    def phase(self) -> str:
        return self.attr("data-phase")

    def version(self) -> int:
        return int(self.page.get_attribute(".table-page", "data-version") or -1)

    def my_turn(self) -> bool:
        return bool(self.page.evaluate(
            "() => document.querySelector('.spades')?.classList.contains('my-turn') ?? false"))

    def hand_over(self) -> bool:
        """The end-of-hand summary is up (it stays up after a computer deals on)."""
        return self.attr("data-mode") == "hand-over"

    def hand(self) -> list[str]:
        return [str(c) for c in self.page.eval_on_selector_all(
            ".sp-hand .hand-card[data-card]", "els => els.map(e => e.dataset.card)")]

    def playable(self) -> list[str]:
        return [str(c) for c in self.page.eval_on_selector_all(
            ".sp-hand .hand-card.playable", "els => els.map(e => e.dataset.card)")]

    def trick_size(self) -> int:
        return int(self.page.get_attribute("#trick", "data-plays") or 0)

    def wait_until_ready(self, timeout: float = 20.0) -> None:
        """Until it is my turn, or the hand is over."""
        self.page.wait_for_function(
            """() => { const g = document.querySelector('.spades');
                       return g && (g.classList.contains('my-turn') ||
                                    g.dataset.mode === 'hand-over'); }""",
            timeout=timeout * 1000)

    # -- acting ------------------------------------------------------------------------------

    def wait_newer(self, version: int, timeout: float = 10.0) -> None:
        wait_for_answer(self.page, version, timeout)

    def click_and_wait(self, selector: str, position: dict[str, float] | None = None) -> None:
        before = self.version()
        if position is None:
            self.page.click(selector)
        else:
            self.page.click(selector, position={"x": position["x"], "y": position["y"]})
        self.wait_newer(before)

    def bid(self) -> int:
        enabled = {int(str(n)) for n in self.page.eval_on_selector_all(
            "#bid-panel .bid-button:enabled", "els => els.map(e => e.dataset.bid)")}
        assert enabled, "no bid button is enabled on my turn to bid"
        number = next(n for n in BID_PREFERENCE if n in enabled)
        if number == 0:  # nil asks first: a second press bids it
            self.page.click("#bid-0")
            self.click_and_wait("#confirm-nil")
        else:
            self.click_and_wait(f"#bid-{number}")
        return number

    def play_card(self) -> str:
        cards = self.playable()
        assert cards, "no playable card although it is my turn"
        card = cards[0]
        # Hand cards overlap: click the visible strip at the left, as a person does.
        self.click_and_wait(f'.sp-hand .hand-card.playable[data-card="{card}"]',
                            position={"x": 6, "y": 30})
        return card

    def pass_two(self) -> list[str]:
        cards = self.hand()[:2]
        for card in cards:
            self.page.click(f'.sp-hand .hand-card[data-card="{card}"]', position={"x": 6, "y": 30})
        self.page.wait_for_selector("#pass-cards:enabled")
        self.click_and_wait("#pass-cards")
        return cards

    def play_until_hand_over(self, max_turns: int = 80) -> list[str]:
        moves: list[str] = []
        for _ in range(max_turns):
            self.wait_until_ready()
            if self.hand_over():
                return moves
            moves.append(self.play_turn())
        raise AssertionError(f"the hand did not end: {moves}")

    def next_hand(self) -> None:
        """Deal if it is mine to deal, or leave the summary of a hand already redealt."""
        if self.phase() == "match_over":
            self.page.click("#rematch")
        elif self.page.query_selector("#next-hand"):
            self.click_and_wait("#next-hand")
        else:
            self.page.click("#continue")
        self.page.wait_for_function(
            "() => document.querySelector('.spades')?.dataset.mode === 'play'")

    def until_phase(self, phase: str, max_turns: int = 400) -> None:
        """Play on (into the next hand, or a rematch) until it is my turn in ``phase``: a
        test that needs a decision the deal may not offer me (blind nil, when a computer
        partner bid it first) waits for a deal that does."""
        for _ in range(max_turns):
            self.wait_until_ready()
            if self.hand_over():
                self.next_hand()
            elif self.phase() == phase:
                return
            else:
                self.play_turn()
        raise AssertionError(f"never my turn in phase {phase} in {max_turns} turns")

    def play_turn(self) -> str:
        """Make one move by clicks; returns what was done."""
        phase = self.phase()
        if phase == "blind_nil":
            self.click_and_wait("#look")
            return "look"
        if phase == "bid":
            return f"bid {self.bid()}"
        if phase == "exchange":
            return f"pass {self.pass_two()}"
        if phase == "draw":
            self.click_and_wait("#keep")
            return "keep"
        if phase == "play":
            return f"play {self.play_card()}"
        raise AssertionError(f"nothing to do in phase {phase}")


def start_spades(page: Page, base_url: str, name: str, *, players: int = 4,
                 options: dict[str, int] | None = None) -> None:
    page.goto(f"{base_url}/")
    page.wait_for_selector("#game-spades")
    page.click("#game-spades")
    page.fill("#guest-name", name)
    page.click(f"#players-{players}")
    if options:
        page.click("details.options summary")
        for option, value in options.items():
            page.fill(f"#opt-{option}", str(value))
    page.click("#play-computer")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".spades[data-phase]")


def face_up_outside(page: Page, allowed: str) -> int:
    """Face-up card faces on the page that are not inside `allowed` (a selector)."""
    return int(page.evaluate(
        """allowed => [...document.querySelectorAll('svg.card-svg.face')]
                       .filter(el => !el.closest(allowed)).length""", allowed))


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_whole_hand_against_three_computers(browser: Browser, base_url: str,
                                              viewport: str) -> None:
    size = DESKTOP if viewport == "desktop" else PHONE_LANDSCAPE
    context, page = new_page(browser, size)
    problems = watch_console(page)
    page.goto(f"{base_url}/")
    page.wait_for_selector("#game-spades")
    page.click("#game-spades")
    page.wait_for_selector("#players-4")
    screenshot(page, f"spades-{viewport}-home")
    # Blind nil at any score (margin 0), so the decision comes up in hand 1.
    start_spades(page, base_url, "Ann", options={"blind_nil_margin": 0})
    player = SpadesPlayer(page)
    assert page.locator(".seat-chip").count() == 4
    for pos in ("top", "left", "right"):
        assert page.locator(f".seat-zone.pos-{pos}").is_visible()
    assert page.locator(".seat-zone.pos-top .role-tag").count() == 1  # your partner, across

    moves: list[str] = []
    shots: set[str] = set()
    for _ in range(60):
        player.wait_until_ready()
        if player.hand_over():
            break
        phase = player.phase()
        if phase == "blind_nil" and "blind" not in shots:
            # Until you look, your hand is shown face down.
            assert page.locator(".sp-hand .hand-card.back-card").count() == 13
            assert player.hand() == []
            screenshot(page, f"spades-{viewport}-blind-nil")
            shots.add("blind")
        if phase == "bid" and "bid" not in shots:
            assert len(player.hand()) == 13
            screenshot(page, f"spades-{viewport}-bid")
            shots.add("bid")
        if phase == "play":
            # Only the server's legal cards are highlighted; never the whole hand mid-trick
            # unless the rules allow it: at least the highlighted ones are in the hand.
            assert set(player.playable()) <= set(player.hand())
            if "trick" not in shots and player.trick_size() >= 2:
                screenshot(page, f"spades-{viewport}-trick")
                shots.add("trick")
        moves.append(player.play_turn())
    else:
        raise AssertionError(f"the hand did not end: {moves}")
    assert sum(m.startswith("play") for m in moves) == 13, moves
    assert any(m.startswith("bid") for m in moves) or "blind" in str(moves)

    summary = page.locator("#hand-summary")
    summary.wait_for(state="visible")
    assert page.inner_text("#hand-summary-title").startswith("Hand 1")
    assert page.locator("#spades-history tbody tr[data-hand='1']").count() == 1
    if viewport == "phone":
        page.click("#scores-toggle")
        page.locator("#spades-scorecard").wait_for(state="visible")
        screenshot(page, "spades-phone-scorecard")
        page.click("#scores-close")
    screenshot(page, f"spades-{viewport}-hand-over")
    # Both sides' scores and bags are on the board.
    assert page.locator("#scoreboard .side-row").count() == 2
    assert "bag" in page.inner_text("#scoreboard")
    # The last trick can be looked at: four cards, the winner marked. Read in one go: a
    # computer dealer may deal hand 2 at any moment, and the peek empties with the deal.
    board = page.evaluate("""() => ({
        phase: document.querySelector('.spades')?.dataset.phase,
        plays: document.querySelectorAll('#last-trick .last-play').length,
        winners: document.querySelectorAll('#last-trick .last-play.winner').length})""")
    if board["phase"] == "hand_over":
        assert (board["plays"], board["winners"]) == (4, 1), board
    # On to the next hand (dealing, or leaving the summary if a computer dealt already).
    player.next_hand()
    assert not problems, problems
    context.close()


def test_keyboard_bid_and_play(browser: Browser, base_url: str) -> None:
    """Digits bid, arrows move along the hand, Enter plays; cards carry spoken names."""
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    start_spades(page, base_url, "Kay")
    player = SpadesPlayer(page)
    player.wait_until_ready()
    assert player.phase() == "bid"
    enabled = page.eval_on_selector_all("#bid-panel .bid-button:enabled",
                                        "els => els.map(e => Number(e.dataset.bid))")
    number = 2 if 2 in enabled else max(enabled)
    before = player.version()
    page.keyboard.press(str(number))
    player.wait_newer(before)
    assert f"Bid {number}" in page.inner_text(".sp-hand-info")

    for _ in range(30):  # until a play of mine (the computers bid and lead meanwhile)
        player.wait_until_ready()
        if player.phase() == "play":
            break
        player.play_turn()
    assert player.phase() == "play"
    page.keyboard.press("ArrowRight")  # into the hand, on a playable card
    focused = page.evaluate("() => document.activeElement.dataset.card")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert focused and " of " in label and "playable" in label, label
    before = player.version()
    page.keyboard.press("Enter")
    player.wait_newer(before)
    assert focused not in player.hand()
    assert not problems, problems
    context.close()


def test_an_invited_partner_bids_and_plays_a_trick(browser: Browser, base_url: str) -> None:
    ctx_a, ann = new_page(browser, DESKTOP)
    ctx_b, bob = new_page(browser, PHONE_LANDSCAPE)
    problems = watch_console(ann) + watch_console(bob)

    ann.goto(f"{base_url}/")
    ann.wait_for_selector("#game-spades")
    ann.click("#game-spades")
    ann.fill("#guest-name", "Ann")
    ann.click("#players-4")
    if ann.locator("#table-box:not([open]) > summary").count():  # who sits where is folded away
        ann.click("#table-box > summary")
    ann.select_option("#seat-kind-1", "bot")
    ann.select_option("#seat-kind-2", "human")
    ann.select_option("#seat-kind-3", "bot")
    ann.click("#play-friend")
    ann.wait_for_url("**/t/*")
    code = table_code(ann.url)
    invite = ann.locator("#invite-link-2")
    invite.wait_for(state="visible")
    link = invite.input_value()
    assert link == f"{base_url}/t/{code}?seat=2"
    assert ann.locator(".invite-row").count() == 1  # one link per human seat still free
    ann.wait_for_function(
        "() => document.querySelector('.invite-row[data-seat=\"2\"]')"
        ".innerText.includes('partner')")
    screenshot(ann, "spades-friend-invite")

    bob.goto(link)
    bob.wait_for_selector("#sit-down")
    assert "seat 3" in bob.inner_text("#lobby-hint")
    screenshot(bob, "spades-friend-lobby-phone")
    bob.fill("#sit-name", "Bob")
    bob.click("#sit-down")
    for page in (ann, bob):
        page.wait_for_selector(".spades[data-phase]")
    assert bob.url == f"{base_url}/t/{code}"
    ann.locator("#invite-link-2").wait_for(state="hidden")
    # Each sees the other across the table, as partner.
    ann.wait_for_function(
        "() => document.querySelector('.seat-zone.pos-top')?.innerText.includes('Bob')")
    assert bob.get_attribute(".seat-zone.pos-top", "data-seat") == "0"
    assert "Ann" in bob.inner_text(".seat-zone.pos-top")
    assert bob.get_attribute(".seat-chip.me", "data-seat") == "2"

    players = {"ann": SpadesPlayer(ann), "bob": SpadesPlayer(bob)}
    done: dict[str, list[str]] = {"ann": [], "bob": []}
    for _ in range(40):
        if ann.locator("#last-trick .last-play").count() == 4 and all(
                any(m.startswith("play") for m in moves) for moves in done.values()):
            break
        mover = _whose_turn(players)
        done[mover].append(players[mover].play_turn())
        if len(done[mover]) == 1 or done[mover][-1].startswith("play"):
            screenshot(players[mover].page, f"spades-friend-{mover}")
    else:
        raise AssertionError(f"no full trick with both partners: {done}")
    for name, moves in done.items():
        assert any(m.startswith(("bid", "look")) for m in moves), (name, moves)
        assert any(m.startswith("play") for m in moves), (name, moves)
    # Both pages agree on the table.
    bob.wait_for_function(
        "v => Number(document.querySelector('.table-page')?.dataset.version) >= v",
        arg=players["ann"].version())
    assert bob.locator("#last-trick .last-play").count() == 4
    screenshot(ann, "spades-friend-ann-desktop")
    screenshot(bob, "spades-friend-bob-phone")
    assert not problems, problems
    ctx_a.close()
    ctx_b.close()


def _whose_turn(players: dict[str, SpadesPlayer]) -> str:
    mover = whose_turn({name: player.page for name, player in players.items()}, ".spades", 20)
    assert mover is not None, "the hand ended before both partners played"
    return mover


def test_a_spectator_sees_no_hand(browser: Browser, base_url: str) -> None:
    ctx_a, ann = new_page(browser, DESKTOP)
    start_spades(ann, base_url, "Ann")
    player = SpadesPlayer(ann)
    while True:  # on until one trick is done and the next one is under way
        player.wait_until_ready()
        if ann.locator("#last-trick .last-play").count() == 4 or player.hand_over():
            break
        player.play_turn()

    ctx_c, cleo = new_page(browser, DESKTOP)
    problems = watch_console(cleo)
    cleo.goto(ann.url)
    cleo.wait_for_selector("#watch")
    assert cleo.query_selector("#sit-down") is None
    cleo.click("#watch")
    cleo.wait_for_selector(".spades.watching[data-phase]")
    assert "Watching" in cleo.inner_text(".seat-chips")
    cleo.wait_for_selector("#last-trick .last-play")
    # All four seats around the table (seat 0 at the bottom), as backs and counts.
    assert cleo.locator(".seat-zone:visible").count() == 4
    assert cleo.locator(".seat-zone .back-card").count() > 0
    assert cleo.locator(".sp-hand .hand-card[data-card]").count() == 0
    # Public cards only: the trick on the table and the last trick.
    assert face_up_outside(cleo, "#trick, #last-trick") == 0
    assert cleo.locator("#last-trick svg.card-svg.face").count() == 4
    assert cleo.locator(".buttons .action:enabled").count() == 0
    screenshot(cleo, "spades-spectator")
    assert not problems, problems
    ctx_a.close()
    ctx_c.close()


@pytest.mark.parametrize("players", [3, 2])
def test_three_and_two_player_tables(browser: Browser, base_url: str, players: int) -> None:
    viewport = DESKTOP if players == 3 else PHONE_LANDSCAPE
    context, page = new_page(browser, viewport)
    problems = watch_console(page)
    start_spades(page, base_url, "Ann", players=players)
    player = SpadesPlayer(page)
    assert page.locator(".seat-chip").count() == players
    visible = {pos for pos in ("top", "left", "right")
               if page.locator(f".seat-zone.pos-{pos}").is_visible()}
    assert visible == ({"left", "right"} if players == 3 else {"top"})
    if players == 2:
        # The draw: the top card face up, Keep or Reject, until each holds 13.
        kept = 0
        while player.phase() == "draw":
            player.wait_until_ready()
            if player.phase() != "draw":
                break
            page.wait_for_selector("#offered")
            if kept == 2:
                screenshot(page, "spades-two-player-draw")
            button = "#keep" if kept % 2 == 0 else "#reject"
            player.click_and_wait(button)
            kept += 1
        assert kept == 13
    player.wait_until_ready()
    assert player.phase() == "bid"
    assert len(player.hand()) == (17 if players == 3 else 13)
    player.play_turn()
    player.wait_until_ready()
    if player.phase() == "play":
        player.play_turn()
        player.wait_until_ready()
    screenshot(page, f"spades-{'three' if players == 3 else 'two'}-player")
    assert not problems, problems
    context.close()


def test_blind_nil_then_the_two_card_exchange(browser: Browser, base_url: str) -> None:
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    start_spades(page, base_url, "Nia", options={"blind_nil_margin": 0})
    player = SpadesPlayer(page)
    player.until_phase("blind_nil")  # not offered if a computer partner bid it first
    page.click("#blind-nil")  # asks first
    player.click_and_wait("#confirm-blind-nil")
    assert "Blind nil" in page.inner_text(".sp-hand-info")
    player.wait_until_ready()
    assert player.phase() == "exchange"
    assert len(player.hand()) == 13  # looked at now
    first, second = player.hand()[:2]
    page.click(f'.sp-hand .hand-card[data-card="{first}"]', position={"x": 6, "y": 30})
    assert page.get_attribute(f'.hand-card[data-card="{first}"]', "aria-pressed") == "true"
    assert page.locator("#pass-cards").is_disabled()  # one card is not a legal pass
    page.click(f'.sp-hand .hand-card[data-card="{second}"]', position={"x": 6, "y": 30})
    page.wait_for_selector("#pass-cards:enabled")
    screenshot(page, "spades-exchange")
    player.click_and_wait("#pass-cards")
    player.wait_until_ready()
    assert len(player.hand()) == 13  # (the partner may hand a passed card straight back)
    if player.phase() == "play":
        # The partner's two cards are marked in the hand.
        assert page.locator(".sp-hand .hand-card.received").count() == 2
    assert not problems, problems
    context.close()


def test_the_winner_at_the_end_and_a_rematch(browser: Browser, base_url: str) -> None:
    """A short match (game to 1 point) on a phone: the winner, then a rematch."""
    context, page = new_page(browser, PHONE_LANDSCAPE)
    problems = watch_console(page)
    start_spades(page, base_url, "Max", options={"target": 1})
    player = SpadesPlayer(page)
    for _ in range(6):  # a hand where both sides are set decides nothing
        player.play_until_hand_over()
        if player.phase() == "match_over":
            break
        player.next_hand()
    assert player.phase() == "match_over"
    final = page.locator("#final-result")
    final.wait_for(state="visible")
    assert "the match!" in page.inner_text("#final-title")
    assert page.locator("#final-result .final-scores li").count() == 2
    assert page.inner_text("#status").endswith("the match!")
    screenshot(page, "spades-phone-match-over")
    page.click("#rematch")
    page.wait_for_function("() => document.querySelector('.spades')?.dataset.mode === 'play'")
    assert page.locator("#spades-history tbody tr[data-hand]").count() == 0
    assert not problems, problems
    context.close()


# -- the jokers, by name: a fake socket fed a view the engine made ----------------------------


def view_holding_both_jokers() -> dict[str, Any]:
    """South's view of a first deal (jokers option) in which South holds both jokers."""
    from cardtable.engine.games import spades

    for seed in range(1000):
        state = spades.new_match(spades.Options(jokers="remove_2c_2d"), players=4,
                                 rng=random.Random(seed))
        view: dict[str, Any] = state.view(0)
        cards = view["hands"][0].get("cards") or []
        if "Jk" in cards and "Bj" in cards:
            return view
    raise AssertionError("no deal in 1000 gave South both jokers")


def test_the_two_jokers_are_told_apart(browser: Browser, base_url: str) -> None:
    """The Big Joker ("Bj") and the Little ("Jk") are drawn, named and sorted as themselves:
    after the spades, the Little then the Big."""
    context, page = new_page(browser, DESKTOP)
    problems = watch_console(page)
    page.add_init_script(FAKE_WEBSOCKET_JS)
    grant = {"table_id": "t_script", "seat": 0, "token": "tok", "at": 1}
    page.add_init_script(
        f"localStorage.setItem('cardtable.v1', JSON.stringify({{seats: {{JOKERS: "
        f"{json.dumps(grant)}}}}}))")
    page.goto(f"{base_url}/t/JOKERS")
    page.wait_for_function("() => window.__sockets && window.__sockets.length === 1")
    seats = [{"seat": s, "name": name, "kind": "human" if s == 0 else "bot", "taken": True,
              "connected": True} for s, name in enumerate(["Ann", "West", "North", "East"])]
    hello = {"seat": 0, "role": "player", "table": {
        "table_id": "t_script", "code": "JOKERS", "game": "spades", "options": {},
        "status": "playing", "seats": seats}}
    page.evaluate("""d => { const s = window.__sockets[0]; s.open();
                            s.receive({t: 'welcome', v: 0, d}); }""", hello)
    page.wait_for_selector(".spades")
    frame = {"t": "view", "v": 1, "d": {"view": view_holding_both_jokers(), "events": [],
                                        "rematch": []}}
    page.evaluate("frame => window.__sockets[0].receive(frame)", frame)
    page.wait_for_selector('.sp-hand .hand-card[data-card="Bj"]')

    cards = page.eval_on_selector_all(
        ".sp-hand .hand-card",
        "els => els.map(e => [e.dataset.card, e.getAttribute('aria-label')])")
    assert [c for c, _ in cards[-2:]] == ["Jk", "Bj"], cards
    labels = dict(cards)
    assert labels["Jk"].startswith("little joker"), labels
    assert labels["Bj"].startswith("big joker"), labels
    assert page.locator('.sp-hand .hand-card[data-card="Bj"] svg.joker-big').count() == 1
    assert page.locator('.sp-hand .hand-card[data-card="Jk"] svg.joker-little').count() == 1
    assert not problems, problems
    context.close()
