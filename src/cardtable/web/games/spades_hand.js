// Your Spades hand: suits alternating red and black with spades (trumps) on
// the right, the cards you may play highlighted, the two chosen for the blind
// nil exchange raised, the ones passed to you marked; face down until you look
// when you may still bid blind nil. A roving keyboard focus runs along the
// cards (the first arrow press lands on a playable one). The board says which
// cards are playable; nothing here decides it.

import { h, replace } from "../dom.js";
import { isSeat, legalOf } from "./board.js";
import { cardBack, face, groupOf, nameOf, orderHand } from "./spades_cards.js";
import { PLAYING, seatStats, statChips } from "./spades_table.js";

export class SpadesHand {
  /** @param {function} click  click(key) on a card */
  constructor(click) {
    this.click = click;
    this.focus = null; // key of the card holding the roving tabindex
    this.shown = []; // card keys in display order
    this.cardsEl = h("div", { class: "sp-hand-cards", role: "group", "aria-label": "Your cards" });
    this.infoEl = h("div", { class: "sp-hand-info" });
    this.el = h("section", { class: "sp-hand", id: "my-hand", "aria-label": "Your hand" }, this.cardsEl, this.infoEl);
  }

  /** The card {code, joker, key} with this key in my hand, or null. */
  cardOf(view, key) {
    const mine = view?.hands?.[view.seat];
    return orderHand(mine?.cards || [], mine?.jokers).find((c) => c.key === key) || null;
  }

  /** opts: {myTurn, hidden, selected: [keys chosen for the exchange]} */
  render(view, opts) {
    const mine = (isSeat(view.seat) && view.hands?.[view.seat]) || { count: 0 };
    this.el.hidden = opts.hidden;
    if (this.el.hidden) return;
    const hadFocus = this.cardsEl.contains(document.activeElement);
    const st = seatStats(view, view.seat);
    replace(this.infoEl,
      h("span", { class: "seat-title" }, "You"),
      ...statChips(view, view.seat),
      view.dealer === view.seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "D") : null);
    this.el.setAttribute("aria-label", `Your hand: ${mine.count} cards${st.bid ? `, ${st.bid}` : ""}` +
      `${st.won !== null ? `, ${st.won} won` : ""}`);

    if (!mine.cards) {
      // Still free to bid blind nil: the cards stay face down until you look.
      this.shown = [];
      this.cardsEl.dataset.count = String(mine.count);
      this.cardsEl.classList.add("face-down");
      replace(this.cardsEl, h("span", { class: "visually-hidden" }, `${mine.count} cards, face down until you look at them`),
        Array.from({ length: mine.count }, () => h("span", { class: "card hand-card back-card", "aria-hidden": "true" }, cardBack(""))));
      return;
    }
    this.cardsEl.classList.remove("face-down");
    const list = orderHand(mine.cards, mine.jokers);
    const play = opts.myTurn && view.phase === "play";
    const exchanging = opts.myTurn && view.phase === "exchange";
    const playable = new Set(play ? legalOf(view).filter((a) => a.type === "play").map((a) => a.card) : []);
    const received = new Set(PLAYING.has(view.phase) ? view.exchange?.received || [] : []);
    const oldIndex = this.shown.indexOf(this.focus);
    this.shown = list.map((c) => c.key);
    if (!this.shown.includes(this.focus)) {
      this.focus = this.shown[Math.min(Math.max(oldIndex, 0), this.shown.length - 1)] ?? null;
    }
    this.cardsEl.dataset.count = String(list.length);
    let group = null;
    replace(this.cardsEl, list.map((c) => {
      const starts = group !== null && groupOf(c.code) !== group;
      group = groupOf(c.code);
      const selected = opts.selected.includes(c.key);
      const canPlay = playable.has(c.code);
      const notes = [];
      if (canPlay) notes.push("playable");
      if (exchanging) notes.push(selected ? "chosen to pass" : "not chosen");
      if (received.has(c.code)) notes.push("passed to you");
      const cardFace = face(c.code, c.joker);
      cardFace.setAttribute("aria-hidden", "true");
      return h("button", {
        class: ["card", "hand-card", canPlay && "playable", selected && "selected", received.has(c.code) && "received",
          starts && "suit-start", play && !canPlay && "unplayable"],
        dataset: c.joker ? { card: c.code, key: c.key, joker: c.joker } : { card: c.code, key: c.key },
        tabindex: c.key === this.focus ? "0" : "-1",
        "aria-label": `${nameOf(c.code, c.joker)}${notes.length ? `, ${notes.join(", ")}` : ""}`,
        "aria-pressed": exchanging ? String(selected) : undefined,
        onclick: () => { this.focus = c.key; this.click(c.key); },
        onfocus: () => { this.focus = c.key; this.updateTabStops(); },
      }, cardFace, received.has(c.code) ? h("span", { class: "badge", "aria-hidden": "true" }, "passed") : null);
    }));
    if (hadFocus) this.focusKey(this.focus);
  }

  updateTabStops() {
    for (const el of this.cardsEl.querySelectorAll(".hand-card[data-key]")) el.tabIndex = el.dataset.key === this.focus ? 0 : -1;
  }

  focusKey(key) {
    const el = key && this.cardsEl.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!el) return;
    this.focus = key;
    this.updateTabStops();
    el.focus();
  }

  /** Arrow keys: move along the hand; the first press goes to a playable card. */
  moveFocus(delta) {
    if (!this.shown.length) return;
    const inHand = this.cardsEl.contains(document.activeElement);
    let i = this.shown.indexOf(this.focus);
    if (!inHand || i < 0) {
      // Back into the hand: the remembered card if it can be played, else the first playable one.
      const remembered = i >= 0 ? this.cardsEl.querySelector(`[data-key="${CSS.escape(this.focus)}"]`) : null;
      const playable = this.cardsEl.querySelector(".hand-card.playable");
      const target = remembered && (remembered.classList.contains("playable") || !playable) ? remembered : playable;
      this.focusKey(target?.dataset.key || this.shown[0]);
      return;
    }
    i = (i + delta + this.shown.length) % this.shown.length;
    this.focusKey(this.shown[i]);
  }
}
