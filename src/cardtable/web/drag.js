// Drag and drop with pointer events, so mouse, pen and touch all work the
// same (HTML5 drag-and-drop does not work on phones). A press that moves
// less than a few pixels stays an ordinary click.
//
// Drop targets are elements with a `data-drop` attribute; onDrop receives
// the target element (or null) and the pointer position.

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
