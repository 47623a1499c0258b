"""Does the table fit the screen? Checks every board's phone tests share (issue 14).

* :func:`overflow` lists the visible elements of the page that reach past the
  viewport's left or right edge, and whether the page scrolls sideways.  Nothing may:
  a phone held upright must show the whole table without sideways scrolling, and a
  card half off the edge cannot be played.
* :func:`untappable` lists the cards of a hand (a CSS selector) whose visible face is
  narrower than :data:`MIN_FACE_PX` or that another element covers where a finger
  would tap them: overlapping hands must leave each card a strip wide enough to tap.

Both read only what the page lays out (``getBoundingClientRect``,
``elementFromPoint``), so they hold for any board, whatever its markup.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

MIN_FACE_PX = 32
"""The least width of a hand card's face a player can tap (issue 14: at least 32 px)."""

_OVERFLOW_JS = """(root) => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const scope = root ? document.querySelector(root) : document.body;
  if (!scope) return {scrolls: false, out: ["no " + root]};
  for (const el of scope.querySelectorAll("*")) {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    if (el.closest("[hidden], .visually-hidden, dialog:not([open])")) continue;
    // The skip link waits off-screen until the keyboard reaches it (a standard pattern).
    if (el.matches(".skip-link:not(:focus)")) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // An element inside a box that clips or scrolls it is fine where the box is on screen.
    let clipped = false;
    for (let p = el.parentElement; p && p !== scope.parentElement; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === "hidden" || ox === "auto" || ox === "scroll" || ox === "clip") {
        const b = p.getBoundingClientRect();
        if (b.left >= -1 && b.right <= width + 1) { clipped = true; break; }
      }
    }
    if (clipped) continue;
    if (r.left < -1 || r.right > width + 1) {
      const classes = typeof el.className === "string" ? el.className.trim() : "";
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
        (classes ? "." + classes.split(/\\s+/).join(".") : "");
      out.push(`${name} [${Math.round(r.left)}, ${Math.round(r.right)}] of ${width}`);
    }
  }
  const scrolls = document.documentElement.scrollWidth > width + 1;
  return {scrolls, out: out.slice(0, 20)};
}"""

_TAPPABLE_JS = """([selector, least, scroll]) => {
  const bad = [];
  const was = [window.scrollX, window.scrollY];
  for (const el of document.querySelectorAll(selector)) {
    // elementFromPoint sees only the viewport: a card below the fold is first scrolled to.
    if (scroll) el.scrollIntoView({block: "nearest", inline: "nearest"});
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    // The part of the card no later sibling covers: where the face shows.
    let right = r.right;
    for (let s = el.nextElementSibling; s; s = s.nextElementSibling) {
      const o = s.getBoundingClientRect();
      if (o.width && o.left < right && o.right > r.left && o.top < r.bottom && o.bottom > r.top) {
        right = Math.max(r.left, Math.min(right, o.left));
      }
    }
    const face = right - r.left;
    const x = r.left + Math.min(face, least) / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    const name = el.dataset.card || el.getAttribute("aria-label") || el.textContent.trim();
    if (face < least) bad.push(`${name}: ${Math.round(face)} px showing`);
    else if (!hit || !(hit === el || el.contains(hit))) {
      bad.push(`${name}: covered at (${Math.round(x)}, ${Math.round(y)}) by ` +
               (hit ? hit.tagName.toLowerCase() + "." + String(hit.className) : "nothing"));
    }
    const width = document.documentElement.clientWidth;
    if (r.left < 0 || r.right > width) bad.push(`${name}: off-screen`);
  }
  if (scroll) window.scrollTo(...was);
  return bad;
}"""


def overflow(page: Page, root: str | None = None) -> dict[str, Any]:
    """``{"scrolls": bool, "out": [...]}``: whether the page scrolls sideways and the
    elements (under ``root``, a selector; default the whole page) past either edge."""
    found: dict[str, Any] = page.evaluate(_OVERFLOW_JS, root)
    return found


def assert_fits(page: Page, root: str | None = None) -> None:
    """Nothing reaches past the viewport's sides and the page does not scroll sideways."""
    found = overflow(page, root)
    size = page.viewport_size
    assert not found["scrolls"] and not found["out"], f"at {size}: {found}"


def untappable(page: Page, selector: str, least: int = MIN_FACE_PX,
               scroll: bool = False) -> list[str]:
    """The cards matching ``selector`` showing less than ``least`` px of face, covered
    where a finger would tap, or off-screen. ``scroll``: cards a player scrolls to (a panel
    taller than the screen) are each scrolled into view first; else all must be on screen."""
    bad: list[str] = page.evaluate(_TAPPABLE_JS, [selector, least, scroll])
    return bad


def assert_tappable(page: Page, selector: str, least: int = MIN_FACE_PX) -> None:
    # A mouse resting on a card lifts it over its neighbour (:hover): measure without it.
    page.mouse.move(0, 0)
    cards = page.locator(selector).count()
    assert cards, f"no cards match {selector!r}"
    bad = untappable(page, selector, least)
    assert not bad, f"at {page.viewport_size}: {bad}"
