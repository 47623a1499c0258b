"""What a failing browser test's pages showed, in its report.

Every browser context the ``browser`` fixture opens is watched: each page keeps its
sockets' last frames, and a context closed while a test runs (a ``finally`` closes it
before pytest reports) leaves a snapshot of its pages. When a test that used the
fixture fails, its report gets a section per page: the address, the table page's state
(version, connection, phase, whose turn, status, toasts), the start of the visible
text, the last frames, and a screenshot of each page still open in
``artifacts/failures/``. No test has to ask for it.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, WebSocket

PAGE_STATE = """() => { const q = (s) => document.querySelector(s);
    const board = q('.table-page [data-phase]');
    return {version: q('.table-page')?.dataset.version, connection: q('.conn')?.dataset.state,
            phase: board?.dataset.phase, mode: board?.dataset.mode,
            myTurn: board?.classList.contains('my-turn'), status: q('#status')?.textContent,
            toasts: [...document.querySelectorAll('.toast')].map((t) => t.textContent)}; }"""
"""What a table page shows of itself, for a failure's message."""

FAILURES = Path(__file__).resolve().parents[1] / "artifacts" / "failures"
FRAMES_KEPT = 12

SOCKET_FRAMES: dict[int, deque[str]] = {}
"""The last frames each open page's sockets sent (``>``) and got (``<``), by ``id(page)``."""

CLOSED_PAGES: list[str] = []
"""What the pages of contexts closed since the current test began showed as they closed."""


def watch_sockets(page: Page) -> None:
    """Keep the page's last :data:`FRAMES_KEPT` socket frames in :data:`SOCKET_FRAMES`."""
    if id(page) in SOCKET_FRAMES:
        return
    frames: deque[str] = deque(maxlen=FRAMES_KEPT)
    SOCKET_FRAMES[id(page)] = frames

    def watch(socket: WebSocket) -> None:
        socket.on("framesent", lambda text: frames.append(f"> {str(text)[:160]}"))
        socket.on("framereceived", lambda text: frames.append(f"< {str(text)[:160]}"))

    page.on("websocket", watch)
    page.on("close", lambda _: SOCKET_FRAMES.pop(id(page), None))


def socket_frames(page: Page) -> list[str]:
    return list(SOCKET_FRAMES.get(id(page), ()))


def describe(page: Page) -> str:
    """The page's address, table state, visible text (its start) and last socket frames."""
    try:
        state: Any = page.evaluate(PAGE_STATE)
        text = page.evaluate("() => (document.body?.innerText || '').slice(0, 600)")
    except Exception as error:  # a crashed or closing page still gets its line
        state, text = f"(not readable: {type(error).__name__})", ""
    lines = [page.url, f"  state: {state}", f"  text: {' '.join(str(text).split())!r}"]
    lines += [f"  {frame}" for frame in socket_frames(page)]
    return "\n".join(lines)


def watch_every_page(browser: Browser, animations: bool = True) -> None:
    """Make every context the tests open from ``browser`` watched and snapshotted on close.
    Without ``animations`` a context asks for reduced motion unless it says otherwise (the
    pages then move cards without flights: a quarter less of Chromium's time)."""
    open_context = browser.new_context

    def new_context(**options: Any) -> BrowserContext:
        if not animations:
            options.setdefault("reduced_motion", "reduce")
        context = open_context(**options)
        context.on("page", watch_sockets)
        close = context.close

        def close_with_snapshot(**close_options: Any) -> None:
            CLOSED_PAGES.extend(f"(closed) {describe(page)}" for page in context.pages)
            close(**close_options)

        context.close = close_with_snapshot  # type: ignore[method-assign]
        return context

    browser.new_context = new_context  # type: ignore[method-assign]


def report(browser: Browser, test_name: str) -> str:
    """Every page of ``browser`` still open (each with a screenshot), then those closed
    during the test."""
    FAILURES.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]+", "_", test_name)[:120]
    parts = []
    for number, page in enumerate(p for c in browser.contexts for p in c.pages):
        shot = FAILURES / f"{stem}-{number}.png"
        try:
            page.screenshot(path=str(shot), timeout=5000)
            where = f"  screenshot: {shot}"
        except Exception as error:
            where = f"  (no screenshot: {type(error).__name__})"
        parts.append(f"{describe(page)}\n{where}")
    parts += CLOSED_PAGES
    return "\n\n".join(parts) or "(no page was open)"
