// The player's own hand at a table-meld game: the client-side order (sort
// buttons, drag within the hand; remembered per table), the selection of
// cards to meld (click, Enter or Space), the groups staged for a first meld,
// marks from the legal actions (fits a table meld, can be discarded, must be
// used) and a roving keyboard focus. It decides nothing about legality: the
// board passes in which cards the legal actions mention.

import { h, replace } from "../dom.js";
import { draggable } from "../drag.js";
import { handOrder, setHandOrder } from "../state.js";
import { byRank, bySuit, codeOfKey, face, keyed, nameOf } from "./rummy_cards.js";

export class Hand {
  /**
   * @param {object} ctx  the table context (code, ...)
   * @param {object} on   click(key), drop(key, target, point), dragEnd(), changed()
   */
  constructor(ctx, on) {
    this.ctx = ctx;
    this.on = on;
    this.order = handOrder(ctx.code);
    this.sorted = this.order.length ? null : "suit";
    this.focus = null; // key holding the roving tabindex
    this.shown = []; // [{code, key}] in display order
    this.cardsEl = h("div", { class: "rm-hand-cards", dataset: { drop: "hand" }, role: "group", "aria-label": "Your cards" });
    this.infoEl = h("div", { class: "rm-hand-info" });
    this.el = h("section", { class: "rm-hand", id: "my-hand", "aria-label": "Your hand" },
      this.cardsEl,
      h("div", { class: "hand-tools" }, this.infoEl,
        h("button", { class: "small", id: "sort-suit", onclick: () => this.sort("suit") }, "Sort by suit"),
        h("button", { class: "small", id: "sort-rank", onclick: () => this.sort("rank") }, "Sort by rank")));
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
  }

  /** Keep the player's order, counting copies; new cards go to the end. */
  syncOrder(cards) {
    const left = new Map();
    for (const c of cards) left.set(c, (left.get(c) || 0) + 1);
    const kept = [];
    for (const c of this.order) {
      const n = left.get(c) || 0;
      if (n) {
        kept.push(c);
        left.set(c, n - 1);
      }
    }
    const extra = [];
    for (const c of cards) {
      const n = left.get(c) || 0;
      if (n) {
        extra.push(c);
        left.set(c, n - 1);
      }
    }
    this.order = [...kept, ...extra];
    if (this.sorted) this.order.sort(this.sorted === "rank" ? byRank : bySuit);
  }

  sort(kind) {
    this.sorted = kind;
    this.order.sort(kind === "rank" ? byRank : bySuit);
    setHandOrder(this.ctx.code, this.order);
    this.on.changed();
  }

  codeOf(key) {
    return this.shown.find((c) => c.key === key)?.code ?? codeOfKey(key);
  }

  /**
   * @param {string[]} cards  the hand (view.hands[seat].cards)
   * @param {object} marks    {selected:Set<key>, staged:Map<key,int>, fits:Set, discardable:Set,
   *                          must:string[], taken, fresh:Set, info:Node[]}
   */
  render(cards, marks) {
    const hadFocus = this.cardsEl.contains(document.activeElement);
    const oldIndex = this.shown.findIndex((c) => c.key === this.focus);
    this.syncOrder(cards);
    this.shown = keyed(this.order);
    if (!this.shown.some((c) => c.key === this.focus)) {
      const i = Math.min(Math.max(oldIndex, 0), this.shown.length - 1);
      this.focus = this.shown[i]?.key ?? null;
    }
    this.cardsEl.dataset.count = String(this.shown.length);
    // A card that must be used is marked once, even if a second copy is held.
    const must = new Map();
    for (const c of marks.must) must.set(c, (must.get(c) || 0) + 1);
    const mustKeys = new Set(this.shown.filter(({ code }) => {
      const n = must.get(code) || 0;
      if (n) must.set(code, n - 1);
      return n > 0;
    }).map((c) => c.key));
    let group = null;
    replace(this.cardsEl, this.shown.map(({ code, key }) => {
      const suit = code.slice(-1);
      const starts = group !== null && suit !== group;
      group = suit;
      return this.cardEl(code, key, { ...marks, mustHere: mustKeys.has(key) }, starts && this.sorted === "suit");
    }));
    replace(this.infoEl, marks.info || []);
    this.fit();
    if (hadFocus) this.focusKey(this.focus);
  }

  /** Overlap the cards more when a long hand (a deep pickup) would not fit the width. */
  fit() {
    const cards = this.cardsEl.querySelectorAll(".hand-card");
    if (cards.length < 2 || this.el.hidden) return;
    const w = cards[0].getBoundingClientRect().width;
    const row = getComputedStyle(this.el).flexDirection.startsWith("row");
    const tools = row ? this.el.lastElementChild.getBoundingClientRect().width + 12 : 0;
    const gaps = this.cardsEl.querySelectorAll(".suit-start").length * 8 + 16;
    const room = this.el.getBoundingClientRect().width - tools - gaps - w;
    const step = Math.max(0.18, Math.min(0.5, room / ((cards.length - 1) * w)));
    if (w > 0 && room > 0) this.cardsEl.style.setProperty("--rm-step", step.toFixed(3));
  }

  destroy() {
    window.removeEventListener("resize", this.onResize);
  }

  cardEl(code, key, marks, gap) {
    const selected = marks.selected.has(key);
    const staged = marks.staged.get(key);
    const notes = [];
    if (selected) notes.push("selected");
    if (staged !== undefined) notes.push(`staged in group ${staged + 1}`);
    if (marks.mustHere) notes.push("must be used this turn");
    if (code === marks.taken) notes.push("just taken from the pile, cannot be discarded now");
    if (marks.fits.has(code)) notes.push("fits a meld on the table");
    if (marks.discardable.has(code)) notes.push("can be discarded");
    const f = face(code);
    f.setAttribute("aria-hidden", "true");
    const button = h("button", {
      class: ["card", "hand-card", selected && "selected", staged !== undefined && `staged stage-${staged % 4}`,
        marks.mustHere && "must-place", code === marks.taken && "taken", marks.fresh.has(code) && "fresh",
        marks.fits.has(code) && "fits", marks.discardable.has(code) && "discardable", gap && "suit-start"],
      dataset: { card: code, key },
      tabindex: key === this.focus ? "0" : "-1",
      "aria-pressed": String(selected),
      "aria-label": `${nameOf(code)}${notes.length ? `, ${notes.join(", ")}` : ""}`,
      onclick: () => { this.focus = key; this.on.click(key); },
      onfocus: () => { this.focus = key; this.updateTabStops(); },
    }, f,
    marks.mustHere ? h("span", { class: "badge must", "aria-hidden": "true" }, "use") : null,
    staged !== undefined ? h("span", { class: "badge staged-badge", "aria-hidden": "true" }, `G${staged + 1}`) : null);
    draggable(button, {
      onDrop: (target, point) => this.dropped(key, target, point),
      onEnd: () => this.on.dragEnd(), // reordering is always allowed; the board checks the rest
    });
    return button;
  }

  updateTabStops() {
    for (const el of this.cardsEl.querySelectorAll(".hand-card")) el.tabIndex = el.dataset.key === this.focus ? 0 : -1;
  }

  focusKey(key) {
    const el = key && this.cardsEl.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!el) return;
    this.focus = key;
    this.updateTabStops();
    el.focus();
  }

  /** Arrow keys: along the cards as shown (the first press enters the hand). */
  moveFocus(delta) {
    if (!this.shown.length) return;
    const inHand = this.cardsEl.contains(document.activeElement);
    const i = this.shown.findIndex((c) => c.key === this.focus);
    if (!inHand) {
      this.focusKey(this.shown[i < 0 ? 0 : i].key);
      return;
    }
    const next = i < 0 ? 0 : (i + delta + this.shown.length) % this.shown.length;
    this.focusKey(this.shown[next].key);
  }

  /** Shift+arrows: move the focused card itself. */
  moveCard(delta) {
    const i = this.shown.findIndex((c) => c.key === this.focus);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= this.shown.length) return;
    const order = this.shown.map((c) => c.code);
    [order[i], order[j]] = [order[j], order[i]];
    this.reorder(order);
    this.focusKey(keyed(order)[j].key);
  }

  reorder(order) {
    this.order = order;
    this.sorted = null;
    setHandOrder(this.ctx.code, this.order);
    this.on.changed();
  }

  /** A card dropped in the hand goes where it was dropped; elsewhere the board decides. */
  dropped(key, target, point) {
    if (!target || target.dataset.drop !== "hand") {
      this.on.drop(key, target, point);
      return;
    }
    const els = [...this.cardsEl.querySelectorAll(".hand-card")];
    const others = els.filter((el) => el.dataset.key !== key);
    let index = others.length;
    for (let i = 0; i < others.length; i += 1) {
      const rect = others[i].getBoundingClientRect();
      const next = others[i + 1]?.getBoundingClientRect();
      const visible = next ? Math.min(rect.width, next.left - rect.left) : rect.width;
      if (point.x < rect.left + visible / 2) {
        index = i;
        break;
      }
    }
    const order = others.map((el) => el.dataset.card);
    order.splice(index, 0, this.codeOf(key));
    this.reorder(order);
  }
}
