// Indian Rummy's own hand: shown in groups (groups.js keeps them), cards moved
// between groups by drag or Shift+arrows, a selection grouped or ungrouped with
// the buttons, and Auto-arrange back to the engine's. The keyboard focus, the
// dragging and the fitting to the width are the rummy family's (HandBase).

import { h, replace } from "../../dom.js";
import { HandBase } from "../rummyfamily/hand.js";
import { INDIAN_DECK, isWild } from "../rummyfamily/cards.js";
import { applyRows, besideWidth, dropIndex, layRows, stepBounds } from "../rummyfamily/fit.js";
import { Arrangement } from "./groups.js";

/** Indian Rummy's hand: in groups, with its own selection. */
export class GroupedHand extends HandBase {
  constructor(ctx, on) {
    super(ctx, on, h("div", { class: "in-groups", id: "hand-groups", dataset: { drop: "hand" } }));
    this.nameOf = INDIAN_DECK.nameOf;
    this.arrangement = new Arrangement(ctx.code);
    this.selected = new Set(); // keys
    this.infoEl = h("div", { class: "in-hand-info", id: "hand-info" });
    const tool = (id, label, key, run) => h("button", {
      class: "small", id, "aria-keyshortcuts": key, onclick: run,
    }, label, h("kbd", { "aria-hidden": "true" }, key));
    this.groupButton = tool("group-cards", "Group", "G", () => this.groupSelected());
    this.ungroupButton = tool("ungroup-cards", "Ungroup", "U", () => this.ungroupSelected());
    this.autoButton = tool("auto-arrange", "Auto-arrange", "A", () => this.autoArrange());
    this.el = h("section", { class: "in-hand", id: "my-hand", "aria-label": "Your hand" },
      this.infoEl, this.cardsEl,
      h("div", { class: "hand-tools in-tools", role: "toolbar", "aria-label": "Arrange your hand" },
        this.groupButton, this.ungroupButton, this.autoButton));
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
    const hadFocus = this.cardsEl.contains(document.activeElement);
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
   * @param {object} marks  {discardable:Set, finish:Set, taken, fresh:Set, info:Node[], deal}
   */
  render(view, marks) {
    const hadFocus = this.cardsEl.contains(document.activeElement);
    const oldIndex = this.shown.findIndex((c) => c.key === this.focus);
    const groups = this.arrangement.sync(view, marks.deal);
    this.shown = groups.flatMap((g) => g.cards);
    const keys = new Set(this.shown.map((c) => c.key));
    for (const k of [...this.selected]) if (!keys.has(k)) this.selected.delete(k);
    this.keepFocusPlace(oldIndex);
    replace(this.cardsEl,
      groups.map((g, i) => this.groupEl(g, i, marks, view.wild)),
      h("div", { class: "in-new-group", id: "new-group", dataset: { drop: "new-group" }, "aria-hidden": "true" },
        h("span", null, "+ new group")));
    this.cardsEl.dataset.count = String(this.shown.length);
    this.cardsEl.dataset.auto = String(this.arrangement.auto);
    replace(this.infoEl, marks.info || []);
    this.groupButton.disabled = this.selected.size === 0;
    this.ungroupButton.disabled = this.selected.size === 0 && !(this.focus && !groups[this.arrangement.find(this.focus)?.[0]]?.loose);
    this.autoButton.setAttribute("aria-pressed", String(this.arrangement.auto));
    this.fit();
    if (hadFocus) this.focusKey(this.focus);
  }

  groupEl(group, index, marks, wild) {
    const names = group.cards.map((c) => this.nameOf(c.code)).join(", ");
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

  cardEl(card, group, marks, wild) {
    const { code, key } = card;
    const selected = this.selected.has(key);
    const joker = isWild(code, wild);
    const notes = [];
    if (joker) notes.push("joker");
    notes.push(group.loose ? "ungrouped" : `in ${group.label.toLowerCase()}`);
    if (selected) notes.push("selected");
    if (marks.finish.has(code)) notes.push("finish card for a valid show");
    if (code === marks.taken) notes.push("just taken from the open deck");
    if (marks.discardable.has(code)) notes.push("can be discarded");
    return this.cardButton(card, INDIAN_DECK.face(code), {
      selected, notes,
      classes: [selected && "selected", joker && "wild", code === marks.taken && "taken", marks.fresh.has(code) && "fresh",
        marks.discardable.has(code) && "playable", marks.finish.has(code) && "finish"],
      badges: [joker ? h("span", { class: "in-wild-mark", "aria-hidden": "true" }, "J") : null,
        marks.finish.has(code) ? h("span", { class: "badge show", "aria-hidden": "true" }, "show") : null],
    });
  }

  /**
   * Overlap the cards just enough for the groups to fit one line; where even a fingertip's
   * strip per card would not, the groups wrap onto more lines and a long group into rows.
   */
  fit() {
    const box = this.cardsEl;
    const cards = box.querySelectorAll(".hand-card");
    if (!cards.length || this.el.hidden) return;
    const w = cards[0].getBoundingClientRect().width;
    box.classList.remove("wrapped"); // measured as one line: the new-group slot is a strip once wrapped
    const style = getComputedStyle(box);
    const room = this.el.clientWidth - besideWidth(box) - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
    const gap = parseFloat(style.columnGap) || 0;
    const slot = box.querySelector(".in-new-group")?.getBoundingClientRect().width || 0;
    const groups = [...box.querySelectorAll(".in-group")].map((g) => {
      const gs = getComputedStyle(g);
      return {
        cards: g.querySelector(".in-group-cards"), n: g.querySelectorAll(".hand-card").length,
        label: g.querySelector(".in-group-label")?.getBoundingClientRect().width || 0,
        pad: parseFloat(gs.paddingLeft) + parseFloat(gs.paddingRight) + parseFloat(gs.borderLeftWidth) + parseFloat(gs.borderRightWidth),
        empty: g.getBoundingClientRect().width,
      };
    });
    const width = (step) => groups.reduce((sum, g) => sum + gap +
      (g.n ? Math.max(g.label, (g.n - 1) * step + w) + g.pad : g.empty), slot);
    const { least, most } = stepBounds(w);
    let step = least;
    const oneLine = width(least) <= room;
    if (oneLine) {
      let high = most;
      for (let i = 0; i < 16 && high - step > 0.25; i += 1) {
        const mid = (step + high) / 2;
        if (width(mid) <= room) step = mid;
        else high = mid;
      }
    } else step = Math.max(least, Math.min(most, w * 0.6));
    box.style.setProperty("--in-step", (step / w).toFixed(4));
    box.classList.toggle("wrapped", !oneLine);
    for (const g of groups) {
      const lay = !oneLine && g.n > 1 ? layRows(g.n, w, room - g.pad, { least: step, most: step, wrappedMost: w * 0.7 })
        : { rows: 1, perRow: g.n, step };
      applyRows(g.cards, "--in-step", lay, w, 0);
    }
  }

  /** A drag: onto a group (at the place dropped), a new group, or elsewhere (the board). */
  dropped(key, target, point) {
    const kind = target?.dataset.drop;
    const keys = this.selected.has(key) ? [...this.selected] : [key];
    const code = this.codeOf(key);
    if (kind === "group") {
      const others = [...target.querySelectorAll(".hand-card")].filter((el) => !keys.includes(el.dataset.key));
      this.arrangement.move(keys, Number(target.dataset.group), dropIndex(others, point));
    } else if (kind === "new-group") {
      this.arrangement.move(keys, "new");
    } else {
      if (kind !== "hand") this.on.drop(key, target);
      return;
    }
    this.selected.clear();
    this.changed(code);
  }
}
