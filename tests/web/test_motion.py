"""Cards that move and the table's sounds (issue 14, item 2), in real Chromium.

The board frame animates every card by its identity (web/anim.js): a card drawn
from the stock flies in from the stock, a discard glides from the hand to the
pile, a trick card comes from the seat that played it and the collected trick
flies to its winner. These tests read the animations the page starts: a recorder
installed before the page's scripts notes each ``Element.animate`` call (the
element's card and place, its first keyframe, its timing) and where the element
sits when the animation is made, so the direction of a flight can be checked
without racing it; ``document.getAnimations()`` shows the live ones.

Sounds are synthesised with Web Audio (web/sound.js); ``window.__cardtableSound``
reports whether an AudioContext exists and which sounds were played.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from browser_harness import (
    DESKTOP,
    PHONE_LANDSCAPE,
    GinPlayer,
    centre,
    screenshot,
    table_code,
    watch_console,
)
from test_board_frame import sit_down
from test_browser_rummy import game_ready
from test_browser_spades import SpadesPlayer

PLAYS_ANIMATIONS = True  # (browser fixture) the cards' flights are what this module tests

pytestmark = pytest.mark.slow

MAX_MS = 300  # issue 14: each card animation is fast
NEAR_PX = 14  # a flight's start within this of the place it came from

# Before the page's own scripts: note every animation started, with the element's place
# at that moment (its final place: the frame cancels older flights before it redraws).
RECORDER_JS = """
window.__flights = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const r = this.getBoundingClientRect();
  const animation = animate.call(this, keyframes, options);
  const trick = this.closest('[data-trick-seat]');
  window.__flights.push({
    animation,
    card: this.dataset ? (this.dataset.card || null) : null,
    inPile: this.closest('[data-pile]')?.dataset.pile || (this.closest('#pile') ? 'discard' : null),
    inHand: Boolean(this.closest('.hand-card, .my-hand, [data-drop="hand"]')),
    trickSeat: trick ? trick.dataset.trickSeat
      : (this.closest('#trick') ? (this.dataset.seat ?? null) : null),
    clone: Boolean(this.closest('.flight-layer')),
    first: (keyframes[0] || {}).transform || null,
    opacity: (keyframes[keyframes.length - 1] || {}).opacity ?? null,
    centre: [r.left + r.width / 2, r.top + r.height / 2],
    duration: options && options.duration,
  });
  return animation;
};
"""

FLIGHTS_JS = """() => window.__flights.map(f => ({
  id: f.animation.id, card: f.card, inPile: f.inPile, inHand: f.inHand, trickSeat: f.trickSeat,
  clone: f.clone, first: f.first, opacity: f.opacity, centre: f.centre, duration: f.duration }))"""

# Card animations running now, as the page has them.
RUNNING_JS = """() => document.getAnimations()
  .filter(a => String(a.id).startsWith('card-') && a.playState === 'running')
  .map(a => ({id: a.id, duration: a.effect.getTiming().duration,
              card: a.effect.target?.dataset?.card || null}))"""

TRANSLATE = re.compile(r"translate\((-?[\d.]+)px, (-?[\d.]+)px\)")


def shift(first: str | None) -> tuple[float, float]:
    """The translation of a first keyframe: where the card starts, from where it ends."""
    match = TRANSLATE.search(first or "")
    assert match, f"no translation in the first keyframe {first!r}"
    return float(match.group(1)), float(match.group(2))


def start_of(flight: dict[str, Any]) -> tuple[float, float]:
    dx, dy = shift(flight["first"])
    return flight["centre"][0] + dx, flight["centre"][1] + dy


def near(a: tuple[float, float], b: tuple[float, float], within: float = NEAR_PX) -> bool:
    return abs(a[0] - b[0]) <= within and abs(a[1] - b[1]) <= within


def flights(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(FLIGHTS_JS)
    return found


def forget_flights(page: Page) -> None:
    page.evaluate("() => { window.__flights = []; }")


@pytest.fixture
def desk(browser: Browser) -> Iterator[tuple[BrowserContext, Page]]:
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(RECORDER_JS)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield context, page
    context.close()


def gin_table(page: Page, base_url: str) -> GinPlayer:
    game_ready(base_url, "gin")
    sit_down(page, base_url, "gin", 2, {})
    page.wait_for_selector(".gin[data-phase]")
    return GinPlayer(page)


def test_gin_draw_and_discard_fly_from_where_the_card_was(
        desk: tuple[BrowserContext, Page], base_url: str) -> None:
    _, page = desk
    problems = watch_console(page)
    player = gin_table(page, base_url)
    player.until_my_draw()

    # The draw: the new card flies into the hand from the stock, the hand makes room.
    stock = centre(page, "#stock .card:last-child")
    hand_before = player.hand()
    forget_flights(page)
    before = player.version()
    page.click("#stock")
    live = page.wait_for_function(
        f"() => {{ const a = ({RUNNING_JS})(); return a.length ? a : null; }}").json_value()
    assert all(a["duration"] <= MAX_MS for a in live), live
    player.wait_newer(before)
    drawn = [c for c in player.hand() if c not in hand_before]
    assert len(drawn) == 1, (hand_before, player.hand())
    came = [f for f in flights(page) if f["card"] == drawn[0] and f["inHand"]]
    assert [f["id"] for f in came] == ["card-in"], came
    assert near(start_of(came[0]), stock), (came[0], stock)
    assert all(f["duration"] <= MAX_MS for f in flights(page))
    screenshot(page, "motion-gin-after-draw")

    # The discard: the card glides from its place in the hand to the pile (above the hand).
    page.wait_for_function("() => !document.querySelector('.gin').dataset.moving")
    card = player.highest_deadwood_card()
    was = centre(page, f'.my-hand .hand-card[data-card="{card}"]')
    forget_flights(page)
    player.click_and_wait(f'.my-hand .hand-card[data-card="{card}"]', position={"x": 6, "y": 30})
    # (The computer may move at once: later flights of the pile follow; the first is the discard.)
    went = [f for f in flights(page) if f["card"] == card and f["inPile"] == "discard"]
    assert went and went[0]["id"] == "card-move", flights(page)
    assert shift(went[0]["first"])[1] > 40, f"it should start in the hand: {went[0]}"
    assert near(start_of(went[0]), was, within=40), (went[0], was)
    assert all(f["duration"] <= MAX_MS for f in flights(page))

    # The opponent's discard comes from his side of the table, above the pile.
    player.wait_until_ready()
    if not player.hand_over():
        top = page.eval_on_selector("#pile .card.top", "el => el.dataset.card")
        theirs = [f for f in flights(page)
                  if f["card"] == top and f["inPile"] == "discard" and not f["clone"]]
        assert theirs and shift(theirs[-1]["first"])[1] < 0, flights(page)
    assert not problems, problems


def test_a_click_during_a_flight_is_not_blocked(
        desk: tuple[BrowserContext, Page], base_url: str) -> None:
    _, page = desk
    player = gin_table(page, base_url)
    player.until_my_draw()
    # Slow every animation down twentyfold (their timing stays the same) so the click
    # surely lands while cards are in the air.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.05})
    page.evaluate(f"""() => {{ window.__runningAtClick = [];
      addEventListener('pointerdown',
        () => window.__runningAtClick.push(({RUNNING_JS})().length), true); }}""")

    before = player.version()
    held = player.hand()
    page.click("#stock")
    player.wait_newer(before)
    assert len(player.hand()) == 11

    # Tap a card while the hand makes room for the drawn one (it slides under the finger;
    # the drawn card itself lets the pointer through until it has landed).
    page.wait_for_function(f"() => ({RUNNING_JS})().length > 0")
    card = player.highest_deadwood_card(excluding=set(player.hand()) - set(held))
    point = page.evaluate("""card => {
      const el = document.querySelector(`.my-hand .hand-card[data-card="${card}"]`);
      const r = el.getBoundingClientRect(), y = r.top + r.height / 2;
      for (let x = r.left + 4; x < r.right - 4; x += 4) {
        const hit = document.elementFromPoint(x, y);
        if (hit && el.contains(hit)) return [x, y];
      }
      return null; }""", card)
    assert point, f"the {card} cannot be hit where it is drawn"
    before = player.version()
    page.mouse.click(point[0], point[1])
    player.wait_newer(before)
    assert card not in player.hand()
    assert page.evaluate("() => window.__runningAtClick")[-1] > 0, "the tap came after the flights"
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})


# Whether a card in flight covers the point (x, y): elementFromPoint cannot tell, since a card
# crossing the table lets the pointer through; its box can.
COVERED_JS = """([x, y]) => document.getAnimations().some(a => {
  if (!String(a.id).startsWith('card-') || a.playState !== 'running') return false;
  const r = a.effect.target.getBoundingClientRect();
  return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom; })"""


def draw_under_a_flight(page: Page, player: GinPlayer) -> bool:
    """Discard; at my next draw press on the stock, release once a card flying past covers
    it (or its flights are over), and check the draw was answered. Whether one did cover it."""
    player.play_turn()  # my discard; the computer answers with its draw and discard
    player.wait_until_ready()
    if player.hand_over():
        return False
    point = centre(page, "#stock")
    page.mouse.move(*point)
    if page.evaluate(COVERED_JS, point):
        return False  # already under a card: no press can start on the stock
    before = player.version()
    page.mouse.down()
    try:
        page.wait_for_function(COVERED_JS, arg=point, timeout=8_000)
        covered = True
    except PlaywrightTimeoutError:
        covered = False  # nothing flew over the stock this time: an ordinary click
    page.mouse.up()
    player.wait_newer(before)
    assert player.phase() == "discard" or player.hand_over(), player.phase()
    return covered


def test_a_press_on_the_stock_is_not_lost_when_a_card_flies_over_it(
        browser: Browser, base_url: str) -> None:
    """Sideways on a phone the opponent's discard flies over the stock on its way to the
    pile. A press on the stock released while it passed used to land on the flying card;
    the browser then clicked their common ancestor, and the draw was lost (seen in CI).
    Animations run fifty times slower, so the press surely straddles the flight."""
    context = browser.new_context(viewport=PHONE_LANDSCAPE)
    page = context.new_page()
    page.set_default_timeout(15_000)
    player = gin_table(page, base_url)
    cdp = context.new_cdp_session(page)
    cdp.send("Animation.enable")
    straddled = 0
    for _ in range(8):
        player.until_my_draw()
        player.click_and_wait("#stock")
        player.wait_until_ready()
        if player.hand_over() or player.phase() != "discard":
            continue
        page.wait_for_function("() => !document.querySelector('.gin').dataset.moving")
        cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.02})
        try:
            straddled += draw_under_a_flight(page, player)
        finally:
            cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})
        if straddled >= 2:
            break
    assert straddled, "no card flew over the stock while it was pressed: the test proves nothing"
    context.close()


def test_reduced_motion_moves_nothing(browser: Browser, base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    context.add_init_script(RECORDER_JS)
    page = context.new_page()
    page.set_default_timeout(15_000)
    player = gin_table(page, base_url)
    player.until_my_draw()
    player.play_turn()  # draw
    player.wait_until_ready()
    player.play_turn()  # discard
    player.wait_until_ready()
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    assert flights(page) == [], flights(page)
    assert page.evaluate("() => document.getAnimations().map(a => a.id || String(a))") == []
    context.close()


def spades_until_play(player: SpadesPlayer) -> None:
    for _ in range(40):
        player.wait_until_ready()
        if player.hand_over():
            player.next_hand()
            continue
        if player.phase() == "play":
            return
        player.play_turn()
    raise AssertionError("never my turn to play a card")


def test_spades_trick_cards_come_from_their_seats_and_go_to_the_winner(
        desk: tuple[BrowserContext, Page], base_url: str) -> None:
    _, page = desk
    problems = watch_console(page)
    game_ready(base_url, "spades")
    sit_down(page, base_url, "spades", 4, {})
    page.wait_for_selector(".spades[data-phase]")
    player = SpadesPlayer(page)
    spades_until_play(player)

    # My card goes from my hand up to the trick.
    card = player.playable()[0]
    was = centre(page, f'.sp-hand .hand-card[data-card="{card}"]')
    forget_flights(page)
    player.play_card()
    mine = [f for f in flights(page) if f["card"] == card and not f["clone"] and not f["inHand"]]
    assert mine and mine[0]["id"] == "card-move", flights(page)  # (later ones: the trick moving on)
    assert shift(mine[0]["first"])[1] > 40, mine[0]
    assert near(start_of(mine[0]), was, within=40), (mine[0], was)

    # The others' cards come in from their seats, and a finished trick flies to its winner.
    shown = page.eval_on_selector_all(".seat-zone[data-seat]:not([hidden])",
                                      "els => els.map(e => e.dataset.seat)")
    seats = {str(s): centre(page, f'.seat-zone[data-seat="{s}"]') for s in shown}
    for _ in range(6):
        player.wait_until_ready()
        if player.hand_over() or any(f["id"] == "card-collect" for f in flights(page)):
            break
        player.play_card()
    seen = flights(page)
    arrivals = [f for f in seen if f["id"] == "card-in" and f["trickSeat"] in seats]
    assert arrivals, seen
    for f in arrivals:
        assert near(start_of(f), seats[f["trickSeat"]], within=30), (f, seats)
    collected = [f for f in seen if f["id"] == "card-collect"]
    assert collected and all(f["clone"] and f["opacity"] < 0.5 for f in collected), seen
    assert all(f["duration"] <= MAX_MS for f in seen), [f for f in seen if f["duration"] > MAX_MS]
    assert not problems, problems


# -- sound ---------------------------------------------------------------------------------------


def sound_report(page: Page) -> dict[str, Any]:
    report: dict[str, Any] = page.evaluate("() => ({...window.__cardtableSound})")
    return report


def test_sound_starts_after_a_click_and_the_mute_toggle_is_remembered(
        desk: tuple[BrowserContext, Page], base_url: str) -> None:
    _, page = desk
    problems = watch_console(page)
    player = gin_table(page, base_url)
    page.wait_for_selector(".gin #mute")
    # The deal was on screen, but nobody touched the page: browsers forbid sound before that.
    assert sound_report(page) == {"context": False, "played": []}
    assert page.get_attribute("#mute", "aria-pressed") == "false"

    player.until_my_draw()  # clicks (passing the upcard or discarding) are gestures
    player.play_turn()  # draw
    report = sound_report(page)
    assert report["context"] is True, report
    assert "play" in report["played"], report

    page.click("#mute")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    stored = json.loads(page.evaluate("() => localStorage.getItem('cardtable.v1')"))
    assert stored["prefs"]["muted"] is True
    page.reload()
    page.wait_for_selector(".gin #mute")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    # Muted: a click creates no AudioContext and no sound is played.
    player.wait_until_ready()
    if not player.hand_over():
        player.play_turn()
        player.wait_until_ready()
    assert sound_report(page) == {"context": False, "played": []}
    page.click("#mute")
    assert page.get_attribute("#mute", "aria-pressed") == "false"
    assert sound_report(page)["context"] is True  # the unmuting click is the gesture
    assert not problems, problems


def test_sounds_for_my_turn_the_clock_and_the_match_end(
        desk: tuple[BrowserContext, Page], base_url: str) -> None:
    """A one-hand Gin match with a 15 s turn clock: "turn" when my turn comes, "warning"
    when 10 s are left, "win" or "lose" when the match ends."""
    _, page = desk
    problems = watch_console(page)
    game_ready(base_url, "gin")
    grant = httpx.post(f"{base_url}/api/tables", json={
        "game": "gin", "options": {"deals": 1}, "opponent": "computer", "name": "Ann",
        "settings": {"turn_time": 15}}).json()
    assert "table_id" in grant, grant
    code = table_code(grant["invite_url"])
    page.goto(f"{base_url}/")
    page.evaluate(
        """([code, g]) => localStorage.setItem('cardtable.v1', JSON.stringify({seats: {
             [code]: {table_id: g.table_id, seat: g.seat, token: g.token, at: Date.now()}}}))""",
        [code, grant])
    page.goto(f"{base_url}/t/{code}")
    page.wait_for_selector(".gin[data-phase]")
    page.click("#status")  # a touch that asks nothing: the browser now lets the page sound
    player = GinPlayer(page)
    player.until_my_draw()
    # My turn to draw, and I wait: the clock runs down to its last 10 seconds.
    page.wait_for_function("() => window.__cardtableSound.played.includes('warning')",
                           timeout=12_000)
    # "turn" sounds when the turn passes to me: not for the turn I had when the page opened
    # (who starts is dealt at random), so at the latest on my next turn.
    player.play_turn()
    if page.get_attribute(".gin", "data-mode") != "hand-over":
        player.until_my_draw()
        assert "turn" in sound_report(page)["played"]
    player.play_until_hand_over()
    page.wait_for_function(
        "() => document.querySelector('.gin')?.dataset.phase === 'match_over'", timeout=15_000)
    played = sound_report(page)["played"]
    won = page.evaluate("() => document.querySelector('#status').textContent.startsWith('You win')")
    drawn = page.evaluate("() => /drawn/.test(document.querySelector('#status').textContent)")
    if not drawn:
        assert played[-1] == ("win" if won else "lose"), played
    assert not problems, problems


def test_a_browser_without_web_audio_plays_on_in_silence(browser: Browser, base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script("delete window.AudioContext; delete window.webkitAudioContext;")
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems = watch_console(page)
    player = gin_table(page, base_url)
    player.until_my_draw()
    player.play_turn()
    page.click("#mute")
    page.click("#mute")
    assert sound_report(page) == {"context": False, "played": []}
    assert not problems, problems
    context.close()
