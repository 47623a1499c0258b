// Your Spades hand: suits alternating red and black with spades (trumps) on
// the right, the cards you may play highlighted, the two chosen for the blind
// nil exchange raised, the ones passed to you marked; face down until you look
// when you may still bid blind nil. A roving keyboard focus runs along the
// cards (the first arrow press lands on a playable one). The board says which
// cards are playable; nothing here decides it.
//
// The hand always fits the width it is given: the cards overlap as much as
// needed but each keeps a strip wide enough to tap (MIN_STRIP), and when one
// row cannot do that (13 cards on a phone held upright) they go in two rows,
// split between suits where that keeps the rows even. A note can point at a
// card (why it cannot be played), above it.

import { draggable } from "../../drag.js";
import { h, replace } from "../../dom.js";
import { isSeat, legalOf } from "../board.js";
import { cardBack, face, groupOf, nameOf, orderHand } from "./cards.js";
import { PLAYING, seatStats, statChips } from "./table.js";

const MIN_STRIP = 36; // px of an overlapped card left showing: a fingertip, with a margin
const LEAST_STRIP = 33; // ... and when even two rows are tight (17 cards on a narrow phone)
const STEP = 0.56; // the visible share of an overlapped card when there is room
const STEP_TWO_ROWS = 0.7;
const SUIT_GAP = 0.16; // extra space before a new suit, in card widths, when there is room

/** Where to break a hand of `groups` (a suit per card) into two rows: after a suit, if even enough. */
export function splitAt(groups) {
  const n = groups.length;
  const half = Math.ceil(n / 2);
  let best = half;
  let bestOff = Infinity;
  for (let k = 1; k < n; k += 1) {
    if (groups[k] === groups[k - 1]) continue;
    const off = Math.abs(k - n / 2);
    if (Math.max(k, n - k) <= half + 1 && off < bestOff) {
      best = k;
      bestOff = off;
    }
  }
  return best;
}

export class SpadesHand {
  /**
   * on: {click(key, how) on a card (how: "touch", "mouse" or "key"), drop(key, target) a card dragged onto a [data-drop],
   * dragEnd(), canDrag(key)}
   */
  constructor(on) {
    this.on = on;
    this.focus = null; // key of the card holding the roving tabindex
    this.shown = []; // card keys in display order
    this.note = null; // {key, text}: a note shown above that card
    this.noteEl = h("p", { class: "sp-hand-note", id: "hand-note", hidden: true });
    this.cardsEl = h("div", { class: "sp-hand-cards", role: "group", "aria-label": "Your cards" });
    this.infoEl = h("div", { class: "sp-hand-info" });
    this.el = h("section", { class: "sp-hand", id: "my-hand", "aria-label": "Your hand" }, this.cardsEl, this.infoEl);
    this.pointer = "mouse"; // the kind of the last press on a card
    this.cardsEl.addEventListener("pointerdown", (event) => { this.pointer = event.pointerType; });
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
  }

  destroy() {
    window.removeEventListener("resize", this.onResize);
  }

  /** The card {code, joker, key} with this key in my hand, or null. */
  cardOf(view, key) {
    const mine = view?.hands?.[view.seat];
    return orderHand(mine?.cards || [], mine?.jokers).find((c) => c.key === key) || null;
  }

  /** opts: {myTurn, hidden, selected: [keys chosen for the exchange], chosen: key picked to play by touch} */
  render(view, opts) {
    const mine = (isSeat(view.seat) && view.hands?.[view.seat]) || { count: 0 };
    this.el.hidden = opts.hidden;
    if (isSeat(view.seat)) this.el.dataset.seat = String(view.seat);
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
      const backs = Array.from({ length: mine.count }, () => h("span", { class: "card hand-card back-card", "aria-hidden": "true" }, cardBack("")));
      replace(this.cardsEl, h("span", { class: "visually-hidden" }, `${mine.count} cards, face down until you look at them`),
        withBreak(backs, this.split(Math.ceil(backs.length / 2))));
      this.fit();
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
    if (this.note && !this.shown.includes(this.note.key)) this.note = null;
    this.cardsEl.dataset.count = String(list.length);
    let group = null;
    const buttons = list.map((c) => {
      const starts = group !== null && groupOf(c.code) !== group;
      group = groupOf(c.code);
      const selected = opts.selected.includes(c.key);
      const chosen = play && opts.chosen === c.key;
      const canPlay = playable.has(c.code);
      const refused = this.note?.key === c.key;
      const notes = [];
      if (canPlay) notes.push(chosen ? "playable, chosen: tap again to play it" : "playable");
      if (exchanging) notes.push(selected ? "chosen to pass" : "not chosen");
      if (received.has(c.code)) notes.push("passed to you");
      const cardFace = face(c.code, c.joker);
      cardFace.setAttribute("aria-hidden", "true");
      const button = h("button", {
        class: ["card", "hand-card", canPlay && "playable", selected && "selected", chosen && "chosen",
          received.has(c.code) && "received", starts && "suit-start", play && !canPlay && "unplayable", refused && "refused"],
        dataset: c.joker ? { card: c.code, key: c.key, joker: c.joker } : { card: c.code, key: c.key },
        tabindex: c.key === this.focus ? "0" : "-1",
        "aria-label": `${nameOf(c.code, c.joker)}${notes.length ? `, ${notes.join(", ")}` : ""}`,
        "aria-pressed": exchanging ? String(selected) : undefined,
        "aria-describedby": refused ? "hand-note" : undefined,
        onclick: (event) => { this.focus = c.key; this.on.click(c.key, this.how(event)); },
        onfocus: () => { this.focus = c.key; this.updateTabStops(); },
      }, cardFace, received.has(c.code) ? h("span", { class: "badge", "aria-hidden": "true" }, "passed") : null);
      if (canPlay) {
        draggable(button, {
          enabled: () => this.on.canDrag(c.key),
          onDrop: (target) => this.on.drop(c.key, target),
          onEnd: () => this.on.dragEnd(),
        });
      }
      return button;
    });
    replace(this.cardsEl, withBreak(buttons, this.split(splitAt(list.map((c) => groupOf(c.code))))), this.noteEl);
    this.fit();
    if (hadFocus) this.focusKey(this.focus);
  }

  /** Where the rows would best break (fit() may break them evenly instead, if tight). */
  split(at) {
    this.cardsEl.dataset.split = String(at);
    return at;
  }

  /** What made a click: Enter or Space ("key"), a finger ("touch") or a mouse or pen. */
  how(event) {
    if (event.detail === 0) return "key";
    return (event.pointerType || this.pointer) === "touch" ? "touch" : "mouse";
  }

  /** Say `text` above the card `key` (null: take the note away). The board redraws after. */
  setNote(key, text) {
    this.note = key ? { key, text } : null;
  }

  /**
   * Overlap the cards so the hand fits its width: as little as the room allows, never
   * leaving less than MIN_STRIP of a card; two rows when one row cannot.
   */
  fit() {
    const box = this.cardsEl;
    const cards = [...box.querySelectorAll(":scope > .card")];
    box.style.removeProperty("--card-w");
    if (!cards.length || !box.isConnected || box.clientWidth === 0) return;
    const style = getComputedStyle(box);
    const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
    let w = cards[0].getBoundingClientRect().width;
    const n = cards.length;
    const starts = cards.map((el) => el.classList.contains("suit-start"));
    const gapsIn = (from, to) => starts.slice(from + 1, to).filter(Boolean).length;
    // The step between cards that lets the rows ([from, to) each) fit the room.
    const stepFor = (rows, gap) => Math.min(...rows.map(([from, to]) =>
      (to - from < 2 ? Infinity : (room - w - gapsIn(from, to) * gap) / (to - from - 1))));
    const layout = (rows) => {
      const roomy = { rows, gap: w * SUIT_GAP, step: stepFor(rows, w * SUIT_GAP) };
      return roomy.step >= MIN_STRIP ? roomy : { rows, gap: 4, step: stepFor(rows, 4) };
    };
    let best = layout([[0, n]]);
    const rowBreak = box.querySelector(":scope > .row-break");
    if (best.step < MIN_STRIP && rowBreak && Number(style.getPropertyValue("--sp-rows")) >= 2) {
      // Two rows, split between suits if that leaves room enough, else evenly.
      const bySuit = Number(box.dataset.split) || Math.ceil(n / 2);
      best = layout([[0, bySuit], [bySuit, n]]);
      const even = Math.ceil(n / 2);
      if (best.step < MIN_STRIP && bySuit !== even) {
        const evenly = layout([[0, even], [even, n]]);
        if (evenly.step > best.step) best = evenly;
      }
      cards[best.rows[1][0]].before(rowBreak);
    }
    if (best.step < MIN_STRIP) {
      // Still too tight (a long hand in a narrow room): smaller cards, each strip still a fingertip.
      best.step = LEAST_STRIP;
      const widest = Math.min(...best.rows.map(([from, to]) => room - (to - from - 1) * LEAST_STRIP - gapsIn(from, to) * best.gap));
      w = Math.max(LEAST_STRIP + 8, Math.floor(widest));
      box.style.setProperty("--card-w", `${w}px`);
    }
    // Two short rows may spread wider: more of each card to read and to tap.
    const most = w * (best.rows.length === 2 ? STEP_TWO_ROWS : STEP);
    const step = Math.min(best.step, Math.max(most, MIN_STRIP));
    box.classList.toggle("two-rows", best.rows.length === 2);
    box.style.setProperty("--sp-overlap", `${Math.floor(step - w)}px`);
    box.style.setProperty("--sp-gap", `${Math.floor(best.gap)}px`);
    this.placeNote();
  }

  /** The note above its card, kept inside the hand's box. */
  placeNote() {
    const el = this.note && this.cardsEl.querySelector(`.hand-card[data-key="${CSS.escape(this.note.key)}"]`);
    this.noteEl.hidden = !el;
    if (!el) {
      this.noteEl.textContent = "";
      return;
    }
    this.noteEl.textContent = this.note.text;
    const half = this.noteEl.offsetWidth / 2;
    const centre = el.offsetLeft + el.offsetWidth / 2;
    const left = Math.max(half, Math.min(this.cardsEl.clientWidth - half, centre));
    this.noteEl.style.setProperty("--note-x", `${Math.round(left)}px`);
    this.noteEl.style.setProperty("--note-y", `${Math.round(el.offsetTop)}px`);
    this.noteEl.style.setProperty("--arrow-x", `${Math.round(centre - left + half)}px`);
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

/** The cards with a row break after the first `at` (it only breaks the line in two-row mode). */
function withBreak(cards, at) {
  if (cards.length < 2 || at <= 0 || at >= cards.length) return cards;
  return [...cards.slice(0, at), h("span", { class: "row-break", "aria-hidden": "true" }), ...cards.slice(at)];
}
