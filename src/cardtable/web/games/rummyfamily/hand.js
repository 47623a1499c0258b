// The player's own hand at a rummy-family board, in two arrangements:
//
// - MeldHand (Rummy, Rummy 500, Rommé): one row in the player's order (sort
//   buttons, drag within the hand; remembered per table), the selection and the
//   groups staged for a first meld held by the board;
// - GroupedHand (Indian Rummy, in indian/hand.js): the hand shown in groups,
//   built on HandBase here.
//
// Both share HandBase: a roving keyboard focus along the cards as shown, cards
// as buttons that can be dragged, the place a dropped card lands, overlapping
// the cards more, or laying them in rows, when they would not fit the width
// (fit.js). The board passes in which cards the legal actions mention;
// nothing here decides what is legal.

import { h, replace } from "../../dom.js";
import { draggable } from "../../drag.js";
import { handOrder, setHandOrder } from "../../state.js";
import { Bag, byRank, bySuit, codeOfKey, keyed, MELD_DECK } from "./cards.js";
import { applyRows, besideWidth, dropIndex, layRows, stepBounds } from "./fit.js";

export class HandBase {
  /**
   * @param {object} ctx  the table context (code, ...)
   * @param {object} on   click(key), drop(key, target, point), dragEnd(), changed()
   * @param {Element} cardsEl  the element holding the cards (a drop target "hand")
   */
  constructor(ctx, on, cardsEl) {
    this.ctx = ctx;
    this.on = on;
    this.cardsEl = cardsEl;
    this.focus = null; // key holding the roving tabindex
    this.shown = []; // [{code, key}] in display order
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
  }

  destroy() {
    window.removeEventListener("resize", this.onResize);
  }

  codeOf(key) {
    if (key === null || key === undefined) return null;
    return this.shown.find((c) => c.key === key)?.code ?? codeOfKey(key);
  }

  /** After `shown` changed: the focus stays at the same place if its card left. */
  keepFocusPlace(oldIndex) {
    if (this.shown.some((c) => c.key === this.focus)) return;
    const i = Math.min(Math.max(oldIndex, 0), this.shown.length - 1);
    this.focus = this.shown[i]?.key ?? null;
  }

  /** A hand card: a button with the card's name and notes, draggable. */
  cardButton({ code, key }, face, { classes, notes, badges, selected }) {
    face.setAttribute("aria-hidden", "true");
    const button = h("button", {
      class: ["card", "hand-card", ...classes],
      dataset: { card: code, key },
      tabindex: key === this.focus ? "0" : "-1",
      "aria-pressed": String(selected),
      "aria-label": [this.nameOf(code), ...notes].join(", "),
      onclick: () => { this.focus = key; this.on.click(key); },
      onfocus: () => { this.focus = key; this.updateTabStops(); },
    }, face, badges);
    draggable(button, {
      onDrop: (target, point) => this.dropped(key, target, point),
      onEnd: () => this.on.dragEnd(), // rearranging is always allowed; the board checks the rest
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

}

/** The table-meld games' hand: one row in the player's order. */
export class MeldHand extends HandBase {
  constructor(ctx, on) {
    super(ctx, on, h("div", { class: "rm-hand-cards", dataset: { drop: "hand" }, role: "group", "aria-label": "Your cards" }));
    this.nameOf = MELD_DECK.nameOf;
    this.order = handOrder(ctx.code);
    this.sorted = this.order.length ? null : "suit";
    this.infoEl = h("div", { class: "rm-hand-info" });
    this.el = h("section", { class: "rm-hand", id: "my-hand", "aria-label": "Your hand" },
      this.cardsEl,
      h("div", { class: "hand-tools" }, this.infoEl,
        h("button", { class: "small", id: "sort-suit", onclick: () => this.sort("suit") }, "Sort by suit"),
        h("button", { class: "small", id: "sort-rank", onclick: () => this.sort("rank") }, "Sort by rank")));
  }

  /** Keep the player's order, counting copies; new cards go to the end. */
  syncOrder(cards) {
    const held = new Bag(cards);
    const kept = this.order.filter((c) => held.take(c));
    this.order = [...kept, ...cards.filter((c) => held.take(c))];
    if (this.sorted) this.order.sort(this.sorted === "rank" ? byRank : bySuit);
  }

  sort(kind) {
    this.sorted = kind;
    this.order.sort(kind === "rank" ? byRank : bySuit);
    setHandOrder(this.ctx.code, this.order);
    this.on.changed();
  }

  reorder(order) {
    this.order = order;
    this.sorted = null;
    setHandOrder(this.ctx.code, this.order);
    this.on.changed();
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
    this.keepFocusPlace(oldIndex);
    this.cardsEl.dataset.count = String(this.shown.length);
    // A card that must be used is marked once, even if a second copy is held.
    const must = new Bag(marks.must);
    const mustKeys = new Set(this.shown.filter(({ code }) => must.take(code)).map((c) => c.key));
    let suit = null;
    replace(this.cardsEl, this.shown.map((card) => {
      const starts = suit !== null && card.code.slice(-1) !== suit;
      suit = card.code.slice(-1);
      return this.cardEl(card, marks, mustKeys.has(card.key), starts && this.sorted === "suit");
    }));
    replace(this.infoEl, marks.info || []);
    this.fit();
    if (hadFocus) this.focusKey(this.focus);
  }

  cardEl(card, marks, mustHere, gap) {
    const { code, key } = card;
    const selected = marks.selected.has(key);
    const staged = marks.staged.get(key);
    const notes = [];
    if (selected) notes.push("selected");
    if (staged !== undefined) notes.push(`staged in group ${staged + 1}`);
    if (mustHere) notes.push("must be used this turn");
    if (code === marks.taken) notes.push("just taken from the pile, cannot be discarded now");
    if (marks.fits.has(code)) notes.push("fits a meld on the table");
    if (marks.discardable.has(code)) notes.push("can be discarded");
    return this.cardButton(card, MELD_DECK.face(code), {
      selected, notes,
      classes: [selected && "selected", staged !== undefined && `staged stage-${staged % 4}`, mustHere && "must-place",
        code === marks.taken && "taken", marks.fresh.has(code) && "fresh", marks.fits.has(code) && "fits",
        marks.discardable.has(code) && "discardable", gap && "suit-start"],
      badges: [mustHere ? h("span", { class: "badge must", "aria-hidden": "true" }, "use") : null,
        staged !== undefined ? h("span", { class: "badge staged-badge", "aria-hidden": "true" }, `G${staged + 1}`) : null],
    });
  }

  /** Overlap the cards more when a long hand would not fit the width, and past a fingertip's strip wrap them. */
  fit() {
    const cards = this.cardsEl.querySelectorAll(".hand-card");
    if (!cards.length || this.el.hidden) return;
    const w = cards[0].getBoundingClientRect().width;
    const pads = 2 * (parseFloat(getComputedStyle(this.cardsEl).paddingRight) || 0);
    const gaps = this.cardsEl.querySelectorAll(".suit-start").length * 8;
    const room = this.el.clientWidth - besideWidth(this.cardsEl) - pads;
    const lay = layRows(cards.length, w, room, { ...stepBounds(w, 0.5), extra: gaps, wrappedMost: w * 0.7 });
    applyRows(this.cardsEl, "--rm-step", lay, w, pads);
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

  /** A card dropped in the hand goes where it was dropped; elsewhere the board decides. */
  dropped(key, target, point) {
    if (!target || target.dataset.drop !== "hand") {
      this.on.drop(key, target, point);
      return;
    }
    const others = [...this.cardsEl.querySelectorAll(".hand-card")].filter((el) => el.dataset.key !== key);
    const order = others.map((el) => el.dataset.card);
    order.splice(dropIndex(others, point), 0, this.codeOf(key));
    this.reorder(order);
  }
}
