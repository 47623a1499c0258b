// Drag and drop with pointer events, so mouse, pen and touch all work the
// same (HTML5 drag-and-drop does not work on phones). A press that moves
// less than a few pixels stays an ordinary click.
//
// Drop targets are elements with a `data-drop` attribute; onDrop receives
// the target element (or null) and the pointer position.
//
// holdWhilePressed() keeps a board from redrawing under a press: the boards
// rebuild their elements on every view, and a press whose element is replaced
// before the release clicks neither the old element nor the new one (the
// browser sends the click to their common ancestor), so the tap was lost.

const THRESHOLD = 6; // px of movement before a press becomes a drag
let active = null;

/** True while the user is dragging: renderers hold back redraws meanwhile. */
export const isDragging = () => active !== null;

function targetAt(x, y) {
  const el = document.elementFromPoint(x, y);
  return el ? el.closest("[data-drop]") : null;
}

/**
 * Make `el` draggable. `onDrop(target, {x, y})` runs after a real drag;
 * `onEnd()` runs after every drag (redraw what was held back).
 */
export function draggable(el, { onDrop, onEnd, enabled = () => true }) {
  el.addEventListener("pointerdown", (down) => {
    if (active || down.button !== 0 || !enabled()) return;
    const start = { x: down.clientX, y: down.clientY };
    let ghost = null;
    let over = null;
    let offset = null;

    const move = (event) => {
      if (event.pointerId !== down.pointerId) return;
      if (!ghost) {
        if (Math.hypot(event.clientX - start.x, event.clientY - start.y) < THRESHOLD) return;
        const rect = el.getBoundingClientRect();
        offset = { x: start.x - rect.left, y: start.y - rect.top };
        ghost = el.cloneNode(true);
        ghost.removeAttribute("id");
        ghost.classList.add("drag-ghost");
        ghost.setAttribute("aria-hidden", "true");
        ghost.style.width = `${rect.width}px`;
        ghost.style.height = `${rect.height}px`;
        document.body.append(ghost);
        el.classList.add("dragging");
        active = el;
        try { el.setPointerCapture(event.pointerId); } catch { /* already released */ }
      }
      ghost.style.transform = `translate(${event.clientX - offset.x}px, ${event.clientY - offset.y}px)`;
      const target = targetAt(event.clientX, event.clientY);
      if (target !== over) {
        over?.classList.remove("drop-over");
        target?.classList.add("drop-over");
        over = target;
      }
    };

    const finish = (event, dropped) => {
      if (event.pointerId !== down.pointerId) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", cancel);
      if (!ghost) return;
      ghost.remove();
      over?.classList.remove("drop-over");
      el.classList.remove("dragging");
      active = null;
      // The browser still fires a click after the release: swallow it once.
      const swallow = (e) => { e.stopPropagation(); e.preventDefault(); };
      window.addEventListener("click", swallow, { capture: true, once: true });
      setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 50);
      if (dropped) onDrop(targetAt(event.clientX, event.clientY), { x: event.clientX, y: event.clientY });
      onEnd?.();
    };
    const up = (event) => finish(event, true);
    const cancel = (event) => finish(event, false);

    // On the window: before the capture starts, the pointer may leave el.
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", cancel);
  });
}

const LONGEST_PRESS_MS = 800; // a press held longer is no tap: the board catches up anyway
const CLICK_WAIT_MS = 150; // after a release, how long its click may take to come

/**
 * While a press that began inside `root` is down, and until the click of its release has
 * run, `held()` is true; `onRelease()` then runs (draw what was held back). `stop()` removes
 * the window's listeners.
 */
export function holdWhilePressed(root, onRelease) {
  let pressed = null; // the pointerId of the press
  let clicking = false; // released: its click is still to come
  let timer = null;
  const end = () => {
    const was = pressed !== null || clicking;
    pressed = null;
    clicking = false;
    clearTimeout(timer);
    if (was) setTimeout(onRelease, 0); // after the click's own handlers
  };
  const down = (event) => {
    if (!event.isPrimary) return;
    pressed = event.pointerId;
    clicking = false;
    clearTimeout(timer);
    timer = setTimeout(end, LONGEST_PRESS_MS);
  };
  const up = (event) => {
    if (pressed === null || event.pointerId !== pressed) return;
    if (event.pointerType === "mouse") return end(); // its click comes in this same task
    // A finger's (or pen's) click comes as a task of its own after the release: a view
    // may come between them. Held until it comes (a press that moved away makes none).
    pressed = null;
    clicking = true;
    clearTimeout(timer);
    timer = setTimeout(end, CLICK_WAIT_MS);
  };
  const cancel = (event) => { if (event.pointerId === pressed) end(); };
  // Capture on the window: first of all listeners, so the click's own handler already
  // finds the board free to redraw (an action sent redraws at once).
  const click = () => { if (clicking) end(); };
  root.addEventListener("pointerdown", down, true);
  window.addEventListener("pointerup", up, true);
  window.addEventListener("pointercancel", cancel, true);
  window.addEventListener("click", click, true);
  return {
    held: () => pressed !== null || clicking,
    stop() {
      clearTimeout(timer);
      root.removeEventListener("pointerdown", down, true);
      window.removeEventListener("pointerup", up, true);
      window.removeEventListener("pointercancel", cancel, true);
      window.removeEventListener("click", click, true);
    },
  };
}
