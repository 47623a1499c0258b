// The player's own Gin hand: the client-side card order (sorted by rank or suit,
// or the player's own by drag and Shift+arrows; remembered), grouping by the
// melds the server computed (view.melding), live deadwood, a roving keyboard
// focus, the card a finger selected, and fitting the hand to the screen: the
// cards overlap as much as the width needs, and wrap into rows on a narrow
// phone, so that every card keeps a strip wide enough to tap.
// It decides nothing about legality: the board passes in which cards the
// legal actions mention.

import { cardBack, cardFace, cardName, sortByRank, sortBySuit } from "../../cards.js";
import { h, replace } from "../../dom.js";
import { draggable } from "../../drag.js";
import { handOrder, prefs, setHandOrder, setPref } from "../../state.js";

const MIN_STRIP = 36; // px of an overlapped card's face left showing: a fingertip (issue 14 asks >= 32)
const MAX_ROWS = 3;
const GROUP_GAP = 0.2; // the space between two groups (melds, deadwood), in card widths
const SORTS = { rank: sortByRank, suit: sortBySuit };

/**
 * Split the hand's groups into rows that fit `width`, as few rows as keep every
 * overlapped card's strip at least `minStrip` px (at most MAX_ROWS). A row breaks
 * between groups where it can, inside a group only when a group alone is too long.
 * groups: [{cards, ...}]; w: a card's width; step: the share of a card shown when
 * there is room. Returns {rows: [[{group, cards}]], step} with one step for all rows.
 */
export function fitRows(groups, { width, w, step, minStrip = MIN_STRIP, maxRows = MAX_ROWS }) {
  const gap = w * GROUP_GAP;
  const pieces = groups.filter((g) => g.cards.length);
  const whole = [pieces.map((group) => ({ group, cards: group.cards }))];
  if (!width || !w || !pieces.length) return { rows: whole, step };
  // The widest step a row allows (Infinity: nothing overlaps).
  const room = (row) => {
    const overlapped = row.reduce((n, s) => n + s.cards.length - 1, 0);
    const fixed = row.length * w + (row.length - 1) * gap;
    return overlapped ? (width - fixed) / (overlapped * w) : fixed <= width ? Infinity : -1;
  };
  const rowWidth = (row, f) => row.reduce((sum, s) => sum + w + (s.cards.length - 1) * f * w, 0) + (row.length - 1) * gap;
  const judge = (rows) => {
    const f = Math.min(step, ...rows.map(room));
    // Fine: the usual overlap, or a strip a finger can still tap.
    const ok = f * w >= Math.min(minStrip, step * w) - 0.01 || rows.every((r) => room(r) === Infinity);
    return { rows, step: f, ok, widest: Math.max(...rows.map((r) => rowWidth(r, f))) };
  };
  const better = (a, b) => !b || (a.ok && !b.ok) || (a.ok === b.ok && (a.step > b.step + 1e-6 ||
    (Math.abs(a.step - b.step) <= 1e-6 && a.widest < b.widest)));
  let best = null;
  for (let k = 1; k <= maxRows; k += 1) {
    for (const byCard of [false, true]) {
      let found = null;
      for (const rows of partitions(pieces, k, byCard)) {
        const option = judge(rows);
        if (better(option, found)) found = option;
      }
      if (found?.ok) return found;
      if (found && better(found, best)) best = found;
    }
  }
  return best || { rows: whole, step };
}

/** Every way to cut the groups into k rows: between groups, or (byCard) between any two cards. */
function* partitions(groups, k, byCard) {
  const units = byCard ? groups.flatMap((group) => group.cards.map((card) => ({ group, card }))) : groups;
  const cuts = (start, left) => {
    if (left === 1) return [[units.length]];
    const out = [];
    for (let end = start + 1; end <= units.length - left + 1; end += 1) {
      for (const rest of cuts(end, left - 1)) out.push([end, ...rest]);
    }
    return out;
  };
  if (units.length < k) return;
  for (const ends of cuts(0, k)) {
    let start = 0;
    yield ends.map((end) => {
      const part = units.slice(start, end);
      start = end;
      if (!byCard) return part.map((group) => ({ group, cards: group.cards }));
      const row = [];
      for (const { group, card } of part) {
        if (row.length && row[row.length - 1].group === group) row[row.length - 1].cards.push(card);
        else row.push({ group, cards: [card] });
      }
      return row;
    });
  }
}

/** How rows were cut: the number of cards of each piece, row by row ("3.3|5"). */
const rowsKey = (rows) => rows.map((row) => row.map((piece) => piece.cards.length).join(".")).join("|");

export class Hand {
  /**
   * @param {object} ctx  the table context (code, ...)
   * @param {object} on   click(card, event), drop(card, target, point), dragEnd(), changed()
   */
  constructor(ctx, on) {
    this.ctx = ctx;
    this.on = on;
    this.order = handOrder(ctx.code);
    this.arrange = prefs().arrange === "free" ? "free" : "melds";
    // Sorted by rank unless the player sorted by suit or arranged the cards himself.
    this.sortMode = ["suit", "custom"].includes(prefs().ginSort) ? prefs().ginSort : "rank";
    this.focus = null; // card code holding the roving tabindex
    this.selected = null; // the card a finger tapped: raised, waiting for Discard or a second tap
    this.shown = []; // cards in display order, after the last render
    this.fittedWidth = 0;
    this.el = h("section", { class: "my-hand", "aria-label": "Your hand" });
    this.cardsEl = h("div", { class: "hand-cards", dataset: { drop: "hand" } });
    this.deadwoodEl = h("span", { class: "deadwood", "aria-live": "polite" });
    this.groupButton = h("button", {
      class: "small", id: "arrange-melds", onclick: () => this.setArrange(this.arrange === "melds" ? "free" : "melds"),
    }, "Group melds");
    this.sortButtons = {
      suit: h("button", { class: "small", id: "sort-suit", onclick: () => this.sort("suit") }, "Sort by suit"),
      rank: h("button", { class: "small", id: "sort-rank", onclick: () => this.sort("rank") }, "Sort by rank"),
    };
    this.el.append(this.cardsEl, h("div", { class: "hand-tools" },
      this.deadwoodEl, this.sortButtons.suit, this.sortButtons.rank, this.groupButton));
    this.drawn = null; // {groups, key}: what the rows were cut from, and how
    // A new width (a phone turned, a window resized, the piles beside it grown): fit again.
    this.resizer = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.refit()) : null;
    this.resizer?.observe(this.el);
  }

  destroy() {
    this.resizer?.disconnect();
  }

  /** Sorted: the cards in that order. The player's own order: kept, new cards at the end (where the eye expects them). */
  syncOrder(cards) {
    const sorted = SORTS[this.sortMode];
    if (sorted) {
      this.order = sorted(cards);
      return;
    }
    const held = new Set(cards);
    const kept = this.order.filter((c) => held.has(c));
    const known = new Set(kept);
    this.order = [...kept, ...cards.filter((c) => !known.has(c))];
  }

  saveOrder() {
    setHandOrder(this.ctx.code, this.order);
  }

  sort(mode) {
    this.sortMode = mode;
    setPref("ginSort", mode);
    this.on.changed();
  }

  /** The player placed a card himself: his order from now on, and no meld grouping over it. */
  keepOwnOrder(order) {
    this.order = order;
    this.saveOrder();
    this.sortMode = "custom";
    setPref("ginSort", "custom");
    this.arrange = "free";
    setPref("arrange", "free");
  }

  setArrange(mode) {
    this.arrange = mode;
    setPref("arrange", mode);
    this.on.changed();
  }

  /** Groups to show: the melds (server's melding), then deadwood in the hand's order. */
  groups(cards, melding) {
    if (!melding) return [{ kind: "plain", cards: this.order }];
    const position = new Map(this.order.map((c, i) => [c, i]));
    const byOrder = (list) => [...list].sort((a, b) => position.get(a) - position.get(b));
    if (this.arrange === "free") {
      const meldOf = new Map();
      melding.melds.forEach((meld, i) => meld.forEach((c) => meldOf.set(c, i)));
      return [{ kind: "free", cards: this.order, meldOf }];
    }
    return [
      ...melding.melds.map((meld) => ({ kind: "meld", cards: meld })),
      { kind: "deadwood", cards: byOrder(melding.deadwood) },
    ];
  }

  /**
   * @param {object} view   the Gin view
   * @param {object} marks  {playable:Set, knock:Set, gin:Set, taken, fresh:Set, busy}
   */
  render(view, marks) {
    const mine = view.hands?.[view.seat];
    const cards = mine?.cards || [];
    const hadFocus = this.cardsEl.contains(document.activeElement);
    const oldIndex = this.shown.indexOf(this.focus);
    this.syncOrder(cards);
    const melding = view.melding && cards.length ? view.melding : null;
    const groups = this.groups(cards, melding);
    this.shown = groups.flatMap((g) => g.cards);
    if (!this.shown.includes(this.focus)) {
      // The focused card left the hand (discarded): stay at the same place.
      this.focus = this.shown[Math.min(Math.max(oldIndex, 0), this.shown.length - 1)] ?? null;
    }
    if (!marks.playable.has(this.selected)) this.selected = null;
    this.el.hidden = !cards.length;
    this.drawRows(groups, (piece) => this.groupEl(piece, marks));
    this.groupButton.setAttribute("aria-pressed", String(this.arrange === "melds"));
    for (const [mode, button] of Object.entries(this.sortButtons)) button.setAttribute("aria-pressed", String(this.sortMode === mode));
    this.deadwoodEl.textContent = melding
      ? `Deadwood ${melding.points}${cards.length === 11 ? " (11 cards)" : ""}` : "";
    if (hadFocus) this.focusCard(this.focus);
  }

  /** A spectator's view of the bottom seat: its faces once shown, else backs, fitted the same way. */
  renderWatched(cards, count, label) {
    this.el.hidden = !count;
    // Backs have no code: numbered keys stand in for them while the rows are cut.
    const keys = cards || Array.from({ length: count }, (_, i) => `back-${i}`);
    this.drawRows([{ kind: "plain", cards: keys }], (piece) => h("div", { class: "card-group" }, piece.cards.map((key) =>
      (cards ? h("span", { class: "card hand-card", dataset: { card: key } }, cardFace(key))
        : h("span", { class: "card hand-card" }, cardBack(""))))));
    this.deadwoodEl.textContent = label;
  }

  /** The groups cut into rows that fit the width; pieceEl(piece) draws a row's piece of a group. */
  drawRows(groups, pieceEl) {
    const fit = this.fit(groups);
    replace(this.cardsEl, ...fit.rows.map((row) => h("div", { class: "hand-row" }, row.map(pieceEl))));
    this.spaceRows(fit);
    this.drawn = { groups, key: rowsKey(fit.rows) };
  }

  spaceRows(fit) {
    for (const rowEl of this.cardsEl.children) {
      if (fit.step) rowEl.style.setProperty("--hand-step", fit.step.toFixed(3));
      if (fit.gap) rowEl.style.gap = `${fit.gap}px`;
    }
    this.cardsEl.dataset.rows = String(fit.rows.length);
  }

  /**
   * The width changed: the same rows only overlap more or less (the cards stay the same
   * elements: a click under way is not lost to a redraw); other rows redraw the board.
   */
  refit() {
    const width = this.el.clientWidth;
    if (!width || Math.abs(width - this.fittedWidth) <= 1) return;
    const fit = this.drawn && this.fit(this.drawn.groups);
    if (fit && rowsKey(fit.rows) === this.drawn.key) this.spaceRows(fit);
    else this.on.changed();
  }

  /** The rows and the overlap that fit the hand's width now. */
  fit(groups) {
    const width = this.el.clientWidth;
    this.fittedWidth = width;
    const probe = h("span", { class: "card hand-card", "aria-hidden": "true" });
    this.cardsEl.append(probe);
    const w = probe.getBoundingClientRect().width;
    const step = parseFloat(getComputedStyle(probe).getPropertyValue("--hand-step")) || 0.56;
    probe.remove();
    const pad = parseFloat(getComputedStyle(this.cardsEl).paddingLeft) || 0;
    // A few px to spare: a raised card's shadow, rounding.
    const fit = fitRows(groups, { width: width - 2 * pad - 4, w, step });
    return { ...fit, gap: w ? Math.round(w * GROUP_GAP) : 0 };
  }

  groupEl(piece, marks) {
    const group = piece.group;
    const label = {
      meld: `Meld: ${group.cards.map(cardName).join(", ")}`,
      deadwood: "Deadwood",
      free: "Your cards",
      plain: "Your cards",
    }[group.kind];
    return h("div", { class: ["card-group", `group-${group.kind}`], role: "group", "aria-label": label },
      piece.cards.map((card) => this.cardEl(card, group, marks)));
  }

  cardEl(card, group, marks) {
    const meldIndex = group.kind === "free" ? group.meldOf.get(card) : undefined;
    const inMeld = group.kind === "meld" || meldIndex !== undefined;
    const notes = [];
    if (inMeld) notes.push("in a meld");
    if (marks.gin.has(card)) notes.push("discard to go gin");
    else if (marks.knock.has(card)) notes.push("can knock");
    if (card === marks.taken) notes.push("just taken from the pile");
    if (card === this.selected) notes.push("selected");
    const face = cardFace(card);
    face.setAttribute("aria-hidden", "true");
    const button = h("button", {
      class: ["card", "hand-card", inMeld ? "in-meld" : "is-deadwood",
        meldIndex !== undefined && `meld-${meldIndex % 4}`,
        marks.playable.has(card) && "playable", card === marks.taken && "taken",
        marks.fresh.has(card) && "fresh", marks.knock.has(card) && "knockable", marks.gin.has(card) && "ginable",
        card === this.selected && "selected"],
      dataset: { card },
      tabindex: card === this.focus ? "0" : "-1",
      "aria-label": `${cardName(card)}${notes.length ? `, ${notes.join(", ")}` : ""}`,
      onclick: (event) => { this.focus = card; this.on.click(card, event); },
      onfocus: () => { this.focus = card; this.updateTabStops(); },
    }, face, marks.gin.has(card) ? h("span", { class: "badge gin", "aria-hidden": "true" }, "gin")
      : marks.knock.has(card) ? h("span", { class: "badge", "aria-hidden": "true" }, "knock") : null);
    draggable(button, {
      onDrop: (target, point) => this.dropped(card, target, point),
      onEnd: () => this.on.dragEnd(),
      enabled: () => !marks.busy,
    });
    return button;
  }

  /** A finger's tap: select the card (or drop the selection); the board redraws. */
  select(card) {
    this.selected = card;
    this.on.changed();
  }

  updateTabStops() {
    for (const el of this.cardsEl.querySelectorAll(".hand-card")) {
      el.tabIndex = el.dataset.card === this.focus ? 0 : -1;
    }
  }

  focusCard(card) {
    const el = card && this.cardsEl.querySelector(`[data-card="${CSS.escape(card)}"]`);
    if (el) {
      this.focus = card;
      this.updateTabStops();
      el.focus();
    }
  }

  /** Arrow keys: move the focus along the cards as shown. */
  moveFocus(delta) {
    if (!this.shown.length) return;
    const i = this.shown.indexOf(this.focus);
    const next = i < 0 ? 0 : (i + delta + this.shown.length) % this.shown.length;
    this.focusCard(this.shown[next]);
  }

  /** Shift+arrows: move the focused card itself (the order becomes the shown one). */
  moveCard(delta) {
    const i = this.shown.indexOf(this.focus);
    if (i < 0) return;
    const j = i + delta;
    if (j < 0 || j >= this.shown.length) return;
    const order = [...this.shown];
    [order[i], order[j]] = [order[j], order[i]];
    this.keepOwnOrder(order);
    this.on.changed();
    this.focusCard(this.focus);
  }

  /** A card dragged within the hand: put it where it was dropped (in the row under the finger). */
  dropped(card, target, point) {
    if (!target || target.dataset.drop !== "hand") {
      this.on.drop(card, target, point);
      return;
    }
    const others = [...this.cardsEl.querySelectorAll(".hand-card")].filter((el) => el.dataset.card !== card);
    const rows = [...this.cardsEl.querySelectorAll(".hand-row")];
    const distance = (row) => {
      const r = row.getBoundingClientRect();
      return point.y < r.top ? r.top - point.y : point.y > r.bottom ? point.y - r.bottom : 0;
    };
    const row = rows.reduce((a, b) => (distance(b) < distance(a) ? b : a), rows[0]);
    const inRow = others.filter((el) => row && row.contains(el));
    let index = inRow.length ? others.indexOf(inRow[inRow.length - 1]) + 1 : others.length;
    for (let i = 0; i < inRow.length; i += 1) {
      const rect = inRow[i].getBoundingClientRect();
      const next = inRow[i + 1]?.getBoundingClientRect();
      // Cards overlap: the visible strip of a card is its left part.
      const visible = next && next.left > rect.left ? Math.min(rect.width, next.left - rect.left) : rect.width;
      if (point.x < rect.left + visible / 2) {
        index = others.indexOf(inRow[i]);
        break;
      }
    }
    const order = others.map((el) => el.dataset.card);
    order.splice(index, 0, card);
    // What you drag is where it stays: your order, no meld grouping.
    this.keepOwnOrder(order);
    this.on.changed();
  }
}
