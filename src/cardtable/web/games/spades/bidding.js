// Bidding at the Spades table: the bids so far, the panel that waits for
// someone else's bid, your bid buttons (0 is nil), the blind nil decision
// before you look at your cards, and a bid typed on the keyboard ("5" bids at
// once; "1" waits a moment for "0"–"3" when such bids are legal). Every button
// stands for a legal action; nothing here knows which bids are allowed.
//
// Nil and blind nil swing a hundred points or more, so neither is ever bid by
// one press: the first press (a tap, Enter on the button, N, B or a typed 0)
// asks "Bid Nil?" and only a second one bids it; Esc or any other bid cancels.
// The keyboard lands on a middling bid, never on Nil.

import { h } from "../../dom.js";
import { findLegal, isSeat, legalOf } from "../board.js";
import { bidText } from "./score.js";
import { seatStats } from "./table.js";

const DIGIT_WAIT = 900; // ms to wait for a second digit ("1" then "2" bids 12)

/** The bids so far, in bidding order (from the dealer's left). */
function bidsLine(view, seatName) {
  const n = view.players;
  const order = Array.from({ length: n }, (_, i) => (view.dealer + 1 + i) % n);
  return h("ol", { class: "bids-line", "aria-label": "Bids so far" }, order.map((s) => {
    const st = seatStats(view, s);
    return h("li", { class: [view.to_act === s && "now"] },
      h("span", { class: "who" }, seatName(s)), " ", h("strong", null, st.bid || "—"));
  }));
}

/** Someone else bids (or decides on blind nil): the bids so far, and who we wait for. */
export function waitPanel(view, kind, seatName) {
  const who = seatName(view.to_act);
  const line = kind === "blind" ? `${who} is deciding on blind nil…` : `${who} ${who === "You" ? "are" : "is"} bidding…`;
  const mine = isSeat(view.seat) && view.hands?.[view.seat] && !view.hands[view.seat].cards;
  return h("div", { class: "wait-panel", id: "wait-panel" },
    h("h2", null, "Bidding"), bidsLine(view, seatName), h("p", { class: "wait-line" }, line),
    mine ? h("p", { class: "hint" }, "You may bid blind nil when your turn comes: your cards stay face down until you decide.") : null);
}

const swing = (n) => `+${n} if you take no tricks, −${n} if you take any`;

/**
 * The bid the keyboard starts on: the legal bid nearest a fair share of the tricks
 * (13 cards, 4 players: 3), never nil. Enter on it is an ordinary bid.
 */
export function startingBid(view) {
  const bids = legalOf(view).filter((a) => a.type === "bid" && a.number > 0).map((a) => a.number);
  if (!bids.length) return null;
  const share = Math.max(1, Math.round((view.hand_size ?? 13) / (view.players || 4)));
  return bids.reduce((best, n) => (Math.abs(n - share) < Math.abs(best - share) ? n : best));
}

/** The "really?" bar under a nil or blind nil button that was pressed once. */
function confirmBar(kind, value, bidding) {
  const blind = kind === "blind";
  const what = blind ? "Blind Nil" : "Nil";
  const id = blind ? "blind-nil" : "nil";
  return h("div", { class: "nil-confirm", id: `${id}-confirm`, role: "group", "aria-labelledby": `${id}-confirm-text` },
    h("p", { id: `${id}-confirm-text` }, h("strong", null, `Bid ${what}?`), ` ${swing(value)}.`),
    h("div", { class: "panel-buttons" },
      h("button", { class: "danger", id: `confirm-${id}`, onclick: () => bidding.confirm() }, `Yes, bid ${what}`),
      h("button", { id: `cancel-${id}`, onclick: () => bidding.cancel() }, "Cancel")));
}

/** Your bid: one button per number, the legal ones enabled. */
export function bidPanel(view, seatName, bidding) {
  const most = view.hand_size ?? 13;
  const partner = view.partner;
  const partnerBid = isSeat(partner) ? bidText(view.bids?.[partner], view.blind?.[partner]) : null;
  const nilValue = view.options?.nil_value ?? 100;
  const armed = bidding.armed === "nil";
  const bids = [];
  for (let n = 0; n <= most; n += 1) {
    const action = findLegal(view, "bid", (a) => a.number === n);
    const nil = n === 0;
    bids.push(h("button", {
      class: ["bid-button", nil && "nil-button", nil && armed && "armed"], id: `bid-${n}`, disabled: !action,
      dataset: { bid: String(n) },
      "aria-label": nil ? (armed ? `Nil: press again to bid nil (${swing(nilValue)})` : `Nil: take no tricks (±${nilValue}), asks to confirm`)
        : `Bid ${n} trick${n === 1 ? "" : "s"}`,
      "aria-describedby": nil && armed ? "nil-confirm-text" : undefined,
      onclick: () => action && bidding.bid(action),
    }, nil ? (armed ? "Nil?" : "Nil") : String(n)));
  }
  return h("div", { class: "bid-panel", id: "bid-panel", role: "group", "aria-labelledby": "bid-title" },
    h("h2", { id: "bid-title" }, "Your bid", partnerBid ? h("span", { class: "hint" }, ` · partner: ${partnerBid}`) : null),
    bidsLine(view, seatName),
    h("div", { class: "bid-buttons" }, bids),
    armed ? confirmBar("nil", nilValue, bidding)
      : h("p", { class: "hint bid-typed", id: "bid-typed" }, bidding.digits ? `Typed ${bidding.digits}… (Enter to bid)` : "Type a number, or N for nil."));
}

/** Blind nil before looking at your cards, or look. `button` is the frame's action button. */
export function blindPanel(view, seatName, button, bidding) {
  const value = view.options?.blind_nil_value ?? 200;
  const swap = view.players === 4 && view.options?.blind_nil_exchange;
  const armed = bidding.armed === "blind";
  const blind = findLegal(view, "blind_nil");
  return h("div", { class: "blind-panel", id: "blind-panel", role: "group", "aria-labelledby": "blind-title" },
    h("h2", { id: "blind-title" }, "Blind nil?"),
    h("p", null, `Bid Blind Nil before looking at your cards: +${value} if you take no tricks, −${value} if you take any.` +
      (swap ? " You and your partner then swap 2 cards." : "")),
    bidsLine(view, seatName),
    h("div", { class: "panel-buttons" },
      button("blind-nil", armed ? "Blind Nil?" : "Blind Nil", blind && (() => bidding.blindNil(blind)), "B", armed ? "danger armed" : "danger"),
      button("look", "Look at my cards", findLegal(view, "look"), "L", "primary")),
    armed ? confirmBar("blind", value, bidding) : null);
}

/**
 * A bid typed digit by digit, and the nil confirmation. `send(action)` bids, `mayBid()` says
 * whether it is still my bid, `redraw()` shows a changed confirmation, `say(text)` tells
 * screen readers.
 */
export class Bidding {
  constructor({ send, mayBid, view, toast, redraw, say }) {
    this.send = send;
    this.mayBid = mayBid;
    this.view = view;
    this.toast = toast;
    this.redraw = redraw;
    this.say = say;
    this.digits = "";
    this.timer = null;
    this.armed = null; // "nil" or "blind": pressed once, waiting for the second press
  }

  /** A bid; nil only on the second press. */
  bid(action) {
    const nil = action.type === "bid" && action.number === 0;
    if (nil && this.armed !== "nil") {
      this.arm("nil", "Bid nil? Press Nil again, or Yes, to bid it. Escape cancels.");
      return;
    }
    this.clear();
    this.send(action);
  }

  /** Blind nil, on the second press. */
  blindNil(action) {
    if (this.armed !== "blind") {
      this.arm("blind", "Bid blind nil? Press Blind Nil again, or Yes, to bid it. Escape cancels.");
      return;
    }
    this.clear();
    this.send(action);
  }

  /** The second press, from the confirmation bar. */
  confirm() {
    const view = this.view();
    if (!this.mayBid()) return;
    const action = this.armed === "blind" ? findLegal(view, "blind_nil") : findLegal(view, "bid", (a) => a.number === 0);
    if (!action) return;
    this.clear();
    this.send(action);
  }

  cancel() {
    const had = this.armed;
    this.armed = null;
    this.redraw();
    if (had) document.getElementById(had === "blind" ? "look" : "bid-0")?.focus();
  }

  arm(kind, words) {
    this.clearDigits();
    this.armed = kind;
    this.redraw();
    this.say(words);
  }

  clearDigits() {
    clearTimeout(this.timer);
    this.timer = null;
    this.digits = "";
  }

  clear() {
    this.clearDigits();
    this.armed = null;
  }

  /** "5" bids at once; "1" waits a moment for "0"–"3" when such bids are legal. */
  type(digit) {
    const typed = this.digits + digit;
    clearTimeout(this.timer);
    const n = Number(typed);
    const longer = legalOf(this.view()).some((a) => a.type === "bid" && a.number > n && String(a.number).startsWith(typed));
    this.digits = typed;
    if (!longer) {
      this.commit();
      return;
    }
    this.timer = setTimeout(() => this.commit(), DIGIT_WAIT);
    const note = document.getElementById("bid-typed");
    if (note) note.textContent = `Typed ${typed}… (Enter to bid)`;
  }

  commit() {
    const view = this.view();
    const n = Number(this.digits);
    this.clearDigits();
    if (!this.mayBid()) return;
    const action = findLegal(view, "bid", (a) => a.number === n);
    if (action) this.bid(action);
    else this.toast(`You cannot bid ${n} now.`, "info");
  }
}
