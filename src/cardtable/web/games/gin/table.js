// The Gin table around your hand: the opponent (his backs, or his cards once
// shown, and what he picked up from the pile), the stock and the discard pile,
// the hand's facts, and a spectator's view of the bottom hand. Only what the
// view says; the board passes in the legal moves and what a click does.

import { cardBack, cardFace, cardName } from "../../cards.js";
import { h, replace } from "../../dom.js";
import { draggable } from "../../drag.js";
import { matchLength, miniCard } from "./score.js";

const PILE_PEEK = 4; // discards shown under the top one

/** The opponent's zone: name, count, dealer, his cards (backs) and his pickups. */
export function drawOpponent(zone, view, seat, seatName) {
  const info = view.hands[seat] || { count: 0, picked: [] };
  const name = seatName(seat);
  const faces = info.cards
    ? info.cards.map((c) => h("span", { class: "card small", dataset: { card: c } }, cardFace(c, { compact: true })))
    : Array.from({ length: info.count }, () => h("span", { class: "card small back-card" }, cardBack("")));
  const picked = (info.picked || []).filter(() => !info.cards);
  zone.dataset.seat = String(seat);
  zone.setAttribute("aria-label", `${name}'s hand: ${info.count} cards` +
    (picked.length ? `; picked up ${picked.map(cardName).join(", ")}` : ""));
  replace(zone,
    h("div", { class: "opp-label" },
      h("span", { class: "opp-name" }, name),
      h("span", { class: "count", id: "opp-count" }, `${info.count} cards`),
      view.dealer === seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "Dealer") : null),
    h("div", { class: "opp-cards fan", "aria-hidden": "true" }, faces),
    picked.length ? h("div", { class: "picked", id: "opp-picked" }, h("span", { class: "picked-label" }, "Picked up"),
      picked.map((c) => miniCard(c))) : null);
}

/**
 * The stock, the discard pile (also where a card is dropped to discard it) and the hand's facts.
 * opts: {stockAction, pileAction, discardTarget: bool, act(action), discardSelected(), dragEnd(), seatName}
 */
export function drawCentre(centre, view, opts) {
  const { stockAction, pileAction, discardTarget } = opts;
  const stock = h("button", {
    class: ["stock", stockAction && "active"], id: "stock", disabled: !stockAction, dataset: { pile: "stock" },
    "aria-label": `Stock, ${view.stock} cards${stockAction ? ": draw a card (S)" : ""}`,
    onclick: () => stockAction && opts.act(stockAction),
  },
  h("span", { class: "stack" }, [0, 1, 2].filter((i) => i < Math.ceil(view.stock / 10) || i === 0)
    .map(() => h("span", { class: "card mid back-card" }, cardBack("")))),
  h("span", { class: "pile-count", id: "stock-count" }, String(view.stock)));

  const pile = view.discard || [];
  const topCard = pile[pile.length - 1];
  const pileEl = h("button", {
    class: ["pile", pileAction && "active", discardTarget && "drop-target"], id: "pile",
    dataset: { drop: "pile", pile: "discard" }, disabled: !pileAction && !discardTarget,
    "aria-label": topCard ? `Discard pile, top card ${cardName(topCard)}, ${pile.length} cards` +
      (pileAction ? `: take it (P)` : discardTarget ? ": discard the selected card here" : "") : "Discard pile, empty",
    onclick: () => { if (pileAction) opts.act(pileAction); else if (discardTarget) opts.discardSelected(); },
  },
  h("span", { class: "stack fanned" }, pile.slice(-PILE_PEEK - 1).map((c, i, list) =>
    h("span", { class: ["card", "mid", i === list.length - 1 && "top"], dataset: { card: c } }, cardFace(c)))),
  pile.length ? null : h("span", { class: "empty-pile" }, "empty"));
  // A card can be drawn by dragging the stock or the pile onto the hand.
  for (const [node, action] of [[stock, stockAction], [pileEl, pileAction]]) {
    draggable(node, {
      enabled: () => Boolean(action),
      onDrop: (target) => { if (target && target.dataset.drop === "hand") opts.act(action); },
      onEnd: opts.dragEnd,
    });
  }
  const bits = [`Hand ${view.hand}`, `Dealer: ${opts.seatName(view.dealer)}`,
    view.knock_limit > 0 ? `Knock at ${view.knock_limit} or less` : "Gin only (no knocking)"];
  if (view.multiplier > 1) bits.push(`Spade hand: ×${view.multiplier}`);
  bits.push(matchLength(view));
  replace(centre,
    h("div", { class: "piles" }, h("div", { class: "pile-slot" }, stock, h("span", { class: "pile-label" }, "Stock")),
      h("div", { class: "pile-slot" }, pileEl, h("span", { class: "pile-label" }, view.phase === "first_upcard" ? "Upcard" : "Discards"))),
    h("ul", { class: "table-info" }, bits.map((b) => h("li", null, b))));
}

/** A spectator sees the bottom seat's hand as the table shows it (backs until the showdown). */
export function drawSpectatorHand(hand, view, seat, seatName) {
  const info = view.hands[seat] || { count: 0 };
  hand.renderWatched(info.cards || null, info.count, `${seatName(seat)}: ${info.count} cards`);
}
