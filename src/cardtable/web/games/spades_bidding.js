// Bidding at the Spades table: the bids so far, the panel that waits for
// someone else's bid, your bid buttons (0 is nil), the blind nil decision
// before you look at your cards, and a bid typed on the keyboard ("5" bids at
// once; "1" waits a moment for "0"–"3" when such bids are legal). Every button
// stands for a legal action; nothing here knows which bids are allowed.

import { h } from "../dom.js";
import { findLegal, isSeat, legalOf } from "./board.js";
import { bidText } from "./spades_score.js";
import { seatStats } from "./spades_table.js";

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

const signedValue = (n) => (n ? `±${n}` : "");

/** Your bid: one button per number, the legal ones enabled. */
export function bidPanel(view, seatName, bidding) {
  const most = view.hand_size ?? 13;
  const partner = view.partner;
  const partnerBid = isSeat(partner) ? bidText(view.bids?.[partner], view.blind?.[partner]) : null;
  const bids = [];
  for (let n = 0; n <= most; n += 1) {
    const action = findLegal(view, "bid", (a) => a.number === n);
    bids.push(h("button", {
      class: ["bid-button", n === 0 && "nil-button"], id: `bid-${n}`, disabled: !action,
      dataset: { bid: String(n) },
      "aria-label": n === 0 ? `Nil: take no tricks (${signedValue(view.options?.nil_value)})` : `Bid ${n} trick${n === 1 ? "" : "s"}`,
      onclick: () => action && bidding.bid(action),
    }, n === 0 ? "Nil" : String(n)));
  }
  return h("div", { class: "bid-panel", id: "bid-panel", role: "group", "aria-labelledby": "bid-title" },
    h("h2", { id: "bid-title" }, "Your bid", partnerBid ? h("span", { class: "hint" }, ` · partner: ${partnerBid}`) : null),
    bidsLine(view, seatName),
    h("div", { class: "bid-buttons" }, bids),
    h("p", { class: "hint bid-typed", id: "bid-typed" }, bidding.digits ? `Typed ${bidding.digits}… (Enter to bid)` : "Type a number or press N for nil."));
}

/** Blind nil before looking at your cards, or look. `button` is the frame's action button. */
export function blindPanel(view, seatName, button) {
  const value = view.options?.blind_nil_value ?? 200;
  const swap = view.players === 4 && view.options?.blind_nil_exchange;
  return h("div", { class: "blind-panel", id: "blind-panel", role: "group", "aria-labelledby": "blind-title" },
    h("h2", { id: "blind-title" }, "Blind nil?"),
    h("p", null, `Bid Blind Nil before looking at your cards: +${value} if you take no tricks, −${value} if you take any.` +
      (swap ? " You and your partner then swap 2 cards." : "")),
    bidsLine(view, seatName),
    h("div", { class: "panel-buttons" },
      button("blind-nil", "Blind Nil", findLegal(view, "blind_nil"), "B", "danger"),
      button("look", "Look at my cards", findLegal(view, "look"), "L", "primary")));
}

/** A bid typed digit by digit; `send(action)` bids, `mayBid()` says whether it is still my bid. */
export class Bidding {
  constructor({ send, mayBid, view, toast }) {
    this.send = send;
    this.mayBid = mayBid;
    this.view = view;
    this.toast = toast;
    this.digits = "";
    this.timer = null;
  }

  bid(action) {
    this.clear();
    this.send(action);
  }

  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.digits = "";
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
    this.clear();
    if (!this.mayBid()) return;
    const action = findLegal(view, "bid", (a) => a.number === n);
    if (action) this.bid(action);
    else this.toast(`You cannot bid ${n} now.`, "info");
  }
}
