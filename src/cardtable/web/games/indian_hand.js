// The player's own Indian Rummy hand, shown in groups (indian_groups.js keeps
// them): each group labelled, cards selected by click, Enter or Space, moved
// between groups by drag (or Shift+arrows), a selection grouped or ungrouped
// with the buttons, and Auto-arrange back to the engine's groups. A roving
// keyboard focus runs along the cards as shown. The board passes in which
// cards the legal actions mention; nothing here decides what is legal.

import { h, replace } from "../dom.js";
import { draggable } from "../drag.js";
import { Arrangement } from "./indian_groups.js";
import { face, isWild, nameOf } from "./indian_cards.js";

export class Hand {
  /**
   * @param {object} ctx  the table context (code, ...)
   * @param {object} on   select(key), drop(key, target), dragEnd(), changed()
   */
  constructor(ctx, on) {
    this.ctx = ctx;
    this.on = on;
    this.arrangement = new Arrangement(ctx.code);
    this.selected = new Set(); // keys
    this.focus = null; // key holding the roving tabindex
    this.shown = []; // [{code, key}] in display order
    this.groupsEl = h("div", { class: "in-groups", id: "hand-groups", dataset: { drop: "hand" } });
    this.infoEl = h("div", { class: "in-hand-info", id: "hand-info" });
    this.groupButton = h("button", {
      class: "small", id: "group-cards", "aria-keyshortcuts": "G", onclick: () => this.groupSelected(),
    }, "Group", h("kbd", { "aria-hidden": "true" }, "G"));
    this.ungroupButton = h("button", {
      class: "small", id: "ungroup-cards", "aria-keyshortcuts": "U", onclick: () => this.ungroupSelected(),
    }, "Ungroup", h("kbd", { "aria-hidden": "true" }, "U"));
    this.autoButton = h("button", {
      class: "small", id: "auto-arrange", "aria-keyshortcuts": "A", onclick: () => this.autoArrange(),
    }, "Auto-arrange", h("kbd", { "aria-hidden": "true" }, "A"));
    this.el = h("section", { class: "in-hand", id: "my-hand", "aria-label": "Your hand" },
      this.infoEl, this.groupsEl,
      h("div", { class: "hand-tools in-tools", role: "toolbar", "aria-label": "Arrange your hand" },
        this.groupButton, this.ungroupButton, this.autoButton));
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
  }

  destroy() {
    window.removeEventListener("resize", this.onResize);
  }

  codeOf(key) {
    return this.shown.find((c) => c.key === key)?.code ?? null;
  }

  selectedCodes() {
    return this.shown.filter((c) => this.selected.has(c.key)).map((c) => c.code);
  }

  toggle(key) {
    if (this.selected.has(key)) this.selected.delete(key);
    else this.selected.add(key);
  }

  clearSelection() {
    this.selected.clear();
  }

  // -- regrouping -------------------------------------------------------------------------

  groupSelected() {
    const keys = [...this.selected];
    if (!keys.length) return false;
    const focus = this.codeOf(this.focus);
    this.arrangement.move(keys, "new");
    this.selected.clear();
    this.changed(focus);
    return true;
  }

  /** The selected cards, or the focused card's whole group, back to the ungrouped ones. */
  ungroupSelected() {
    const focus = this.codeOf(this.focus);
    if (this.selected.size) this.arrangement.move([...this.selected], "loose");
    else {
      const at = this.focus && this.arrangement.find(this.focus);
      if (!at || !this.arrangement.ungroupGroup(at[0])) return false;
    }
    this.selected.clear();
    this.changed(focus);
    return true;
  }

  autoArrange() {
    this.arrangement.autoArrange();
    this.changed(this.codeOf(this.focus));
  }

  /** Shift+arrows: move the focused card one place (into the next group at an edge). */
  moveCard(delta) {
    if (!this.focus) return;
    const code = this.codeOf(this.focus);
    const at = this.arrangement.find(this.focus);
    if (!at || !this.arrangement.step(this.focus, delta)) return;
    this.changed(code, at);
  }

  /** Redraw, keeping the keyboard focus on the card moved (by its code near its old place). */
  changed(code, near = null) {
    const hadFocus = this.groupsEl.contains(document.activeElement);
    this.on.changed();
    if (!code) return;
    const same = this.shown.filter((c) => c.code === code);
    if (!same.length) return;
    const pick = near && same.length > 1 ? same.find((c) => c.key === this.focus) || same[0] : same[0];
    if (hadFocus) this.focusKey(pick.key);
    else this.focus = pick.key;
  }

  // -- drawing ----------------------------------------------------------------------------

  /**
   * @param {object} view   the Indian Rummy view
   * @param {object} marks  {discardable:Set, finish:Set, declarable:Set, taken, fresh:Set, info:Node[]}
   */
  render(view, marks) {
    const hadFocus = this.groupsEl.contains(document.activeElement);
    const oldIndex = this.shown.findIndex((c) => c.key === this.focus);
    const groups = this.arrangement.sync(view);
    this.shown = groups.flatMap((g) => g.cards);
    const keys = new Set(this.shown.map((c) => c.key));
    for (const k of [...this.selected]) if (!keys.has(k)) this.selected.delete(k);
    if (!keys.has(this.focus)) {
      const i = Math.min(Math.max(oldIndex, 0), this.shown.length - 1);
      this.focus = this.shown[i]?.key ?? null;
    }
    const wild = view.wild;
    replace(this.groupsEl,
      groups.map((g, i) => this.groupEl(g, i, marks, wild)),
      h("div", { class: "in-new-group", id: "new-group", dataset: { drop: "new-group" }, "aria-hidden": "true" },
        h("span", null, "+ new group")));
    this.groupsEl.dataset.count = String(this.shown.length);
    this.groupsEl.dataset.auto = String(this.arrangement.auto);
    replace(this.infoEl, marks.info || []);
    this.groupButton.disabled = this.selected.size === 0;
    this.ungroupButton.disabled = this.selected.size === 0 && !(this.focus && !groups[this.arrangement.find(this.focus)?.[0]]?.loose);
    this.autoButton.setAttribute("aria-pressed", String(this.arrangement.auto));
    this.fit();
    if (hadFocus) this.focusKey(this.focus);
  }

  groupEl(group, index, marks, wild) {
    const names = group.cards.map((c) => nameOf(c.code)).join(", ");
    const count = `${group.cards.length} card${group.cards.length === 1 ? "" : "s"}`;
    return h("div", {
      class: ["in-group", `kind-${group.kind}`, group.loose && "loose"],
      dataset: { drop: "group", group: String(index), kind: group.kind },
      role: "group", "aria-label": `${group.label}, ${count}${names ? `: ${names}` : ""}`,
    },
    h("span", { class: "in-group-label", "aria-hidden": "true" }, group.label),
    h("div", { class: "in-group-cards" },
      group.cards.length ? group.cards.map((c) => this.cardEl(c, group, marks, wild))
        : h("span", { class: "in-empty" }, "drop cards here")));
  }

  cardEl({ code, key }, group, marks, wild) {
    const selected = this.selected.has(key);
    const joker = isWild(code, wild);
    const notes = [];
    if (joker) notes.push("joker");
    notes.push(group.loose ? "ungrouped" : `in ${group.label.toLowerCase()}`);
    if (selected) notes.push("selected");
    if (marks.finish.has(code)) notes.push("finish card for a valid show");
    if (code === marks.taken) notes.push("just taken from the open deck");
    if (marks.discardable.has(code)) notes.push("can be discarded");
    const f = face(code);
    f.setAttribute("aria-hidden", "true");
    const button = h("button", {
      class: ["card", "hand-card", selected && "selected", joker && "wild", code === marks.taken && "taken",
        marks.fresh.has(code) && "fresh", marks.discardable.has(code) && "playable", marks.finish.has(code) && "finish"],
      dataset: { card: code, key },
      tabindex: key === this.focus ? "0" : "-1",
      "aria-pressed": String(selected),
      "aria-label": `${nameOf(code)}, ${notes.join(", ")}`,
      onclick: () => { this.focus = key; this.on.select(key); },
      onfocus: () => { this.focus = key; this.updateTabStops(); },
    }, f,
    joker ? h("span", { class: "in-wild-mark", "aria-hidden": "true" }, "J") : null,
    marks.finish.has(code) ? h("span", { class: "badge show", "aria-hidden": "true" }, "show") : null);
    draggable(button, {
      onDrop: (target, point) => this.dropped(key, target, point),
      onEnd: () => this.on.dragEnd(),
    });
    return button;
  }

  /** Overlap the cards more when the groups would not fit the width (never more than needed). */
  fit() {
    const cards = this.groupsEl.querySelectorAll(".hand-card");
    if (!cards.length || this.el.hidden) return;
    const w = cards[0].getBoundingClientRect().width;
    const groups = this.groupsEl.querySelectorAll(".in-group").length;
    const row = getComputedStyle(this.el).flexDirection.startsWith("row");
    const beside = row ? [...this.el.children].filter((c) => c !== this.groupsEl)
      .reduce((sum, c) => sum + c.getBoundingClientRect().width + 8, 0) : 0;
    const style = getComputedStyle(this.groupsEl);
    const gap = parseFloat(style.columnGap) || 14;
    const extra = 16; // each group's padding
    const slot = this.groupsEl.querySelector(".in-new-group")?.getBoundingClientRect().width || w;
    const room = this.el.getBoundingClientRect().width - beside - groups * (w + gap + extra) - slot - 16;
    const overlapped = cards.length - groups;
    if (w <= 0 || overlapped <= 0) return;
    const step = Math.max(0.2, Math.min(0.56, room / (overlapped * w)));
    this.groupsEl.style.setProperty("--in-step", step.toFixed(3));
  }

  updateTabStops() {
    for (const el of this.groupsEl.querySelectorAll(".hand-card")) el.tabIndex = el.dataset.key === this.focus ? 0 : -1;
  }

  focusKey(key) {
    const el = key && this.groupsEl.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!el) return;
    this.focus = key;
    this.updateTabStops();
    el.focus();
  }

  /** Arrow keys: along the cards as shown (the first press enters the hand). */
  moveFocus(delta) {
    if (!this.shown.length) return;
    const inHand = this.groupsEl.contains(document.activeElement);
    const i = this.shown.findIndex((c) => c.key === this.focus);
    if (!inHand) {
      this.focusKey(this.shown[i < 0 ? 0 : i].key);
      return;
    }
    const next = i < 0 ? 0 : (i + delta + this.shown.length) % this.shown.length;
    this.focusKey(this.shown[next].key);
  }

  /** A drag: onto a group (at the place dropped), a new group, or elsewhere (the board). */
  dropped(key, target, point) {
    const kind = target?.dataset.drop;
    const keys = this.selected.has(key) ? [...this.selected] : [key];
    const code = this.codeOf(key);
    if (kind === "group") {
      const g = Number(target.dataset.group);
      const others = [...target.querySelectorAll(".hand-card")].filter((el) => !keys.includes(el.dataset.key));
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
      this.arrangement.move(keys, g, index);
      this.selected.clear();
      this.changed(code);
    } else if (kind === "new-group") {
      this.arrangement.move(keys, "new");
      this.selected.clear();
      this.changed(code);
    } else if (kind !== "hand") {
      this.on.drop(key, target);
    }
  }
}
