// The player's own Gin hand: the client-side card order (sort buttons, drag,
// Shift+arrows; remembered per table), grouping by the melds the server
// computed (view.melding), live deadwood, and a roving keyboard focus.
// It decides nothing about legality: the board passes in which cards the
// legal actions mention.

import { cardFace, cardName, sortByRank, sortBySuit } from "../cards.js";
import { h, replace } from "../dom.js";
import { draggable } from "../drag.js";
import { handOrder, prefs, setHandOrder, setPref } from "../state.js";

export class Hand {
  /**
   * @param {object} ctx  the table context (code, ...)
   * @param {object} on   click(card), drop(card, target, point), dragEnd()
   */
  constructor(ctx, on) {
    this.ctx = ctx;
    this.on = on;
    this.order = handOrder(ctx.code);
    this.arrange = prefs().arrange === "free" ? "free" : "melds";
    this.focus = null; // card code holding the roving tabindex
    this.shown = []; // cards in display order, after the last render
    this.el = h("section", { class: "my-hand", "aria-label": "Your hand" });
    this.cardsEl = h("div", { class: "hand-cards", dataset: { drop: "hand" } });
    this.deadwoodEl = h("span", { class: "deadwood", "aria-live": "polite" });
    this.groupButton = h("button", {
      class: "small", id: "arrange-melds", onclick: () => this.setArrange(this.arrange === "melds" ? "free" : "melds"),
    }, "Group melds");
    this.el.append(this.cardsEl, h("div", { class: "hand-tools" },
      this.deadwoodEl,
      h("button", { class: "small", id: "sort-suit", onclick: () => this.sort(sortBySuit) }, "Sort by suit"),
      h("button", { class: "small", id: "sort-rank", onclick: () => this.sort(sortByRank) }, "Sort by rank"),
      this.groupButton));
  }

  /** Keep the player's order; new cards go to the end (where the eye expects them). */
  syncOrder(cards) {
    const held = new Set(cards);
    const kept = this.order.filter((c) => held.has(c));
    const known = new Set(kept);
    this.order = [...kept, ...cards.filter((c) => !known.has(c))];
  }

  saveOrder() {
    setHandOrder(this.ctx.code, this.order);
  }

  sort(compare) {
    this.order = compare(this.order);
    this.saveOrder();
    this.on.changed();
  }

  setArrange(mode) {
    this.arrange = mode;
    setPref("arrange", mode);
    this.on.changed();
  }

  /** Groups to show: the melds (server's melding), then deadwood in the player's order. */
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
    replace(this.cardsEl, ...groups.map((g) => this.groupEl(g, marks)));
    this.groupButton.setAttribute("aria-pressed", String(this.arrange === "melds"));
    this.deadwoodEl.textContent = melding
      ? `Deadwood ${melding.points}${cards.length === 11 ? " (11 cards)" : ""}` : "";
    this.el.hidden = !cards.length;
    if (hadFocus) this.focusCard(this.focus);
  }

  groupEl(group, marks) {
    const label = {
      meld: `Meld: ${group.cards.map(cardName).join(", ")}`,
      deadwood: "Deadwood",
      free: "Your cards",
      plain: "Your cards",
    }[group.kind];
    return h("div", { class: ["card-group", `group-${group.kind}`], role: "group", "aria-label": label },
      group.cards.map((card) => this.cardEl(card, group, marks)));
  }

  cardEl(card, group, marks) {
    const meldIndex = group.kind === "free" ? group.meldOf.get(card) : undefined;
    const inMeld = group.kind === "meld" || meldIndex !== undefined;
    const notes = [];
    if (inMeld) notes.push("in a meld");
    if (marks.gin.has(card)) notes.push("discard to go gin");
    else if (marks.knock.has(card)) notes.push("can knock");
    if (card === marks.taken) notes.push("just taken from the pile");
    const face = cardFace(card);
    face.setAttribute("aria-hidden", "true");
    const button = h("button", {
      class: ["card", "hand-card", inMeld ? "in-meld" : "is-deadwood",
        meldIndex !== undefined && `meld-${meldIndex % 4}`,
        marks.playable.has(card) && "playable", card === marks.taken && "taken",
        marks.fresh.has(card) && "fresh", marks.knock.has(card) && "knockable", marks.gin.has(card) && "ginable"],
      dataset: { card },
      tabindex: card === this.focus ? "0" : "-1",
      "aria-label": `${cardName(card)}${notes.length ? `, ${notes.join(", ")}` : ""}`,
      onclick: () => { this.focus = card; this.on.click(card); },
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
    this.order = order;
    this.saveOrder();
    this.arrange = "free";
    setPref("arrange", "free");
    this.on.changed();
    this.focusCard(this.focus);
  }

  /** A card dragged within the hand: put it where it was dropped. */
  dropped(card, target, point) {
    if (!target || target.dataset.drop !== "hand") {
      this.on.drop(card, target, point);
      return;
    }
    const others = [...this.cardsEl.querySelectorAll(".hand-card")].filter((el) => el.dataset.card !== card);
    let index = others.length;
    for (let i = 0; i < others.length; i += 1) {
      const rect = others[i].getBoundingClientRect();
      // Cards overlap: the visible strip of a card is its left part.
      const visible = i + 1 < others.length ? Math.min(rect.width, others[i + 1].getBoundingClientRect().left - rect.left) : rect.width;
      if (point.x < rect.left + visible / 2 && point.y < rect.bottom + 20) {
        index = i;
        break;
      }
    }
    const order = others.map((el) => el.dataset.card);
    order.splice(index, 0, card);
    this.order = order;
    this.saveOrder();
    // What you drag is where it stays: leave the meld grouping.
    this.arrange = "free";
    setPref("arrange", "free");
    this.on.changed();
  }
}
