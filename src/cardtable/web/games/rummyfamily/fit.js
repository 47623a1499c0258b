// Fitting a hand of overlapped cards into the room there is (hand.js): a
// phone held upright is about six cards wide, yet a Rommé hand holds 14 and a
// deep Rummy 500 pickup twenty. Each card keeps a strip a fingertip can hit
// (MIN_FACE px of its face); when one row cannot give every card that much,
// the cards go into as few rows as can, spread evenly (7 + 7, not 10 + 4).
//
// The CSS side (tablemelds/board.css, indian/board.css): every card in a row is pulled left by
// (1 - step) of its width, and the row's box is padded on the left by as much,
// so a row that wraps starts flush like the first one, and a row's width in
// cards is exactly `perRow * step`: a max-width on the box makes it wrap there.

/** Px of each overlapped card's face left showing, at least: a fingertip (the tests ask 32). */
export const MIN_FACE = 34;

/**
 * How to lay `n` cards `w` px wide in `room` px: {rows, perRow, step}, step being the px of each
 * card that shows (the last of a row shows whole). One row while every card shows `least` px,
 * else the fewest rows (up to `maxRows`) that allow it. `extra`: px the row needs besides the cards;
 * `wrappedMost`: the most to show once in rows (they have the room: show more of each card).
 */
export function layRows(n, w, room, { least, most, extra = 0, maxRows = 4, wrappedMost = most }) {
  if (n <= 1 || w <= 0) return { rows: 1, perRow: Math.max(n, 1), step: most };
  const stepFor = (per) => (per <= 1 ? most : (room - w - extra) / (per - 1));
  let rows = 1;
  while (rows < maxRows && stepFor(Math.ceil(n / rows)) < least) rows += 1;
  const perRow = Math.ceil(n / rows);
  // Never below `least`: a card too thin to tap is worse than a row a little too wide.
  const step = Math.max(least, Math.min(rows > 1 ? wrappedMost : most, stepFor(perRow)));
  return { rows, perRow, step };
}

/** The least and most px to show of a card `w` px wide: a fingertip, and a little over half. */
export function stepBounds(w, most = 0.56) {
  const top = Math.max(w * most, MIN_FACE);
  return { least: Math.min(MIN_FACE, top), most: top };
}

/**
 * Apply a layout to a row box: the step as a share of the card's width in the CSS `property`,
 * and, over several rows, the box's width in cards (`pads`: its own padding besides the overlap).
 */
export function applyRows(box, property, lay, w, pads) {
  box.style.setProperty(property, (lay.step / w).toFixed(4));
  box.classList.toggle("wrapped", lay.rows > 1);
  box.dataset.rows = String(lay.rows);
  box.style.maxWidth = lay.rows > 1 ? `${Math.ceil(lay.perRow * lay.step + (w - lay.step) + pads) + 1}px` : "";
}

/** The px taken beside `box` on its line by its siblings (a column layout: none). */
export function besideWidth(box) {
  const parent = box.parentElement;
  if (!parent) return 0;
  const r = box.getBoundingClientRect();
  const gap = parseFloat(getComputedStyle(parent).columnGap) || 0;
  return [...parent.children].filter((c) => c !== box).reduce((sum, c) => {
    const o = c.getBoundingClientRect();
    return o.width && o.top < r.bottom - 1 && o.bottom > r.top + 1 ? sum + o.width + gap : sum;
  }, 0);
}

/** Where a card dropped at `point` goes among `others` (cards in rows, overlapping to the left). */
export function dropIndex(others, point) {
  if (!others.length) return 0;
  const rects = others.map((el) => el.getBoundingClientRect());
  // The row under the point (or the nearest one): the cards sharing its top.
  const distance = (r) => (point.y < r.top ? r.top - point.y : point.y > r.bottom ? point.y - r.bottom : 0);
  const nearest = rects.reduce((best, r) => (distance(r) < distance(best) ? r : best), rects[0]);
  let last = -1;
  for (let i = 0; i < others.length; i += 1) {
    const rect = rects[i];
    if (Math.abs(rect.top - nearest.top) > rect.height / 2) continue;
    last = i;
    const next = rects[i + 1];
    const sameRow = next && Math.abs(next.top - rect.top) <= rect.height / 2;
    const visible = sameRow ? Math.min(rect.width, next.left - rect.left) : rect.width;
    if (point.x < rect.left + visible / 2) return i;
  }
  return last + 1;
}
