// What takes the middle of the Spades table when no trick is being played:
// the blind nil exchange (two cards to your partner and two back), the
// two-player draw (keep the top card or reject it), and the end of a hand and
// of the match. Every button stands for a legal action.

import { h } from "../../dom.js";
import { findLegal } from "../board.js";
import { cardBack, face, nameOf, shortOf } from "./cards.js";
import { finalPanel, handSummary, miniCard } from "./score.js";

/** Who the seat to act passes its cards to: its partner. */
function exchangeTarget(view) {
  const giver = view.to_act;
  const side = (view.sides || []).find((s) => s.includes(giver)) || [];
  return side.find((s) => s !== giver);
}

/**
 * The blind nil exchange. opts: {myTurn, seatName, chosen: [{code, joker}], action (the legal
 * pass_cards for the chosen cards, or null), button (the frame's action button)}
 */
export function exchangePanel(view, opts) {
  const { seatName } = opts;
  const to = exchangeTarget(view);
  if (!opts.myTurn) {
    const gave = view.exchange?.gave || [];
    return h("div", { class: "wait-panel", id: "wait-panel" }, h("h2", null, "Blind nil exchange"),
      h("p", { class: "wait-line" }, `${seatName(view.to_act)} ${view.to_act === view.seat ? "are" : "is"} passing 2 cards to ${seatName(to)}…`),
      gave.length ? h("p", { id: "gave-cards" }, "You passed ",
        h("span", { class: "received-cards" }, gave.map((c) => miniCard(c, null))), ".") : null);
  }
  const received = view.exchange?.received || [];
  const chosen = opts.chosen;
  return h("div", { class: "exchange-panel", id: "exchange-panel", role: "group", "aria-labelledby": "exchange-title" },
    h("h2", { id: "exchange-title" }, received.length ? `Return 2 cards to ${seatName(to)}` : `Pass 2 cards to ${seatName(to)}`),
    received.length ? h("p", null, `${seatName(view.exchange.from)} passed you `,
      h("span", { class: "received-cards" }, received.map((c) => miniCard(c, null))), ".") : null,
    h("p", { class: "hint" }, "Choose 2 cards in your hand, then pass them."),
    h("div", { class: "panel-buttons" },
      h("span", { class: "chosen", id: "chosen-cards" }, chosen.length ? chosen.map((c) => shortOf(c.code, c.joker)).join(" ") : "No card chosen"),
      opts.button("pass-cards", `Pass ${chosen.length === 2 ? "these " : ""}2 cards`, opts.action, "P", "primary")));
}

/** The two-player draw: keep the offered card or reject it. opts: {myTurn, seatName, button} */
export function drawPanel(view, opts) {
  const dead = view.dead || [];
  const deadRow = dead.length ? h("div", { class: "dead-cards", dataset: { pile: "discard" } }, h("span", { class: "hint" }, "Your discards: "),
    dead.map((c) => miniCard(c, null))) : null;
  if (!opts.myTurn || !view.offered) {
    return h("div", { class: "wait-panel draw-panel", id: "wait-panel" }, h("h2", null, "The draw"),
      h("p", { class: "wait-line" }, `${opts.seatName(view.to_act)} ${view.to_act === view.seat ? "are" : "is"} drawing… · ${view.stock} cards in the stock`),
      deadRow);
  }
  const offered = face(view.offered, null);
  offered.setAttribute("aria-hidden", "true");
  return h("div", { class: "draw-panel", id: "draw-panel", role: "group", "aria-labelledby": "draw-title" },
    h("h2", { id: "draw-title" }, "Keep this card?"),
    h("div", { class: "draw-row" },
      h("div", { class: "stock-pile", dataset: { pile: "stock" }, "aria-label": `Stock, ${view.stock} cards`, role: "img" },
        h("span", { class: "card mid back-card" }, cardBack("")), h("span", { class: "pile-count" }, String(view.stock))),
      h("span", { class: "card mid offered", id: "offered", dataset: { card: view.offered }, role: "img", "aria-label": `Top card: ${nameOf(view.offered)}` }, offered),
      h("div", { class: "draw-buttons" },
        opts.button("keep", "Keep it", findLegal(view, "keep"), "K", "primary"),
        opts.button("reject", "Reject it", findLegal(view, "reject"), "X"),
        h("p", { class: "hint" }, "Keep: the next card is discarded unseen. Reject: this one is discarded and you take the next."))),
    deadRow);
}

/** The finished hand (held, or the view's last) and, at the match's end, the winner. */
export function endPanel(view, held, names) {
  const row = held || view.last;
  const parts = [];
  if (view.phase === "match_over" && view.result) parts.push(finalPanel(view, names));
  if (row) parts.push(handSummary(row, view, names));
  return h("div", { class: "end-panel" }, parts);
}
