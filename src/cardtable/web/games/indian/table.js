// The Indian Rummy table around the hand: the other seats (cards held,
// status in the deal, whose turn, the dealer, the cards each picked from
// the open deck, pool totals) and the middle: the closed deck with the wild
// joker card face up under it, the open deck's top card, and the deal's facts.
// Only what the view says; the board passes in the legal moves.

import { h } from "../../dom.js";
import { isSeat } from "../board.js";
import { cardBack, INDIAN_DECK, plural, shortOf, wildText } from "../rummyfamily/cards.js";

const { face, miniCard, nameOf } = INDIAN_DECK;

export const STATUS_TEXT = {
  playing: "playing", dropped: "dropped", wrong_show: "wrong show", declared: "declared", out: "out",
};

/** The seats from the one after `me` round the table (seats are numbered clockwise). */
export function seatOrder(players, me) {
  const first = isSeat(me) ? me : 0;
  return Array.from({ length: players }, (_, i) => (first + i) % players);
}

/** What the table says about a seat, for its box and its aria-label. */
export function seatFacts(view, seat) {
  const info = view.hands?.[seat] || { count: 0, status: "playing", picked: [] };
  const fmt = view.format || {};
  return {
    count: info.count,
    status: info.status || "playing",
    penalty: info.penalty,
    picked: info.picked || [],
    dealer: view.dealer === seat,
    toAct: view.to_act === seat && !["deal_over", "match_over"].includes(view.phase),
    total: fmt.kind === "pool" || fmt.kind === "deals" ? fmt.totals?.[seat] ?? 0 : null,
    eliminated: Boolean(fmt.eliminated?.[seat]),
  };
}

/** One other player's box. */
export function seatBox(view, seat, names, ctx) {
  const f = seatFacts(view, seat);
  const name = names.seat(seat);
  const info = ctx.seatInfo(seat);
  const free = info && !info.taken;
  const away = info && info.taken && !info.connected && info.kind !== "bot";
  const fmt = view.format || {};
  const statusText = f.eliminated ? "out" : STATUS_TEXT[f.status] || f.status;
  const label = [
    name, info?.kind === "bot" ? "computer" : null, f.dealer ? "dealer" : null,
    f.status === "out" || f.eliminated ? "out of the pool" : plural(f.count, "card"),
    f.status !== "playing" && f.status !== "out" && !f.eliminated ? statusText : null,
    f.penalty ? `owes ${f.penalty}` : null,
    f.picked.length ? `picked up ${f.picked.map(nameOf).join(", ")}` : null,
    f.total !== null ? `total ${f.total}${fmt.kind === "pool" ? ` of ${fmt.target}` : ""}` : null,
    f.toAct ? "to play" : null, away ? "disconnected" : null, free ? "waiting for a player" : null,
  ].filter(Boolean).join(", ");
  const backs = Math.min(f.count, 5);
  return h("div", {
    class: ["in-seat", `status-${f.status}`, f.toAct && "to-act", f.eliminated && "eliminated", away && "away", free && "free"],
    dataset: { seat: String(seat), status: f.status }, role: "group", "aria-label": label,
  },
  h("div", { class: "seat-head", "aria-hidden": "true" },
    h("span", { class: "seat-title" }, name),
    f.dealer ? h("span", { class: "dealer-chip", title: "Dealer" }, "D") : null),
  h("div", { class: "seat-stats", "aria-hidden": "true" },
    f.status === "out" ? null : h("span", { class: "chip count-chip", dataset: { count: String(f.count) } },
      String(f.count), h("span", { class: "word" }, f.count === 1 ? " card" : " cards")),
    f.status !== "playing" || f.eliminated ? h("span", { class: `chip status-chip status-${f.status}`, title: f.eliminated ? "out of the pool" : null }, statusText) : null,
    f.penalty ? h("span", { class: "chip penalty-chip" }, `−${f.penalty}`) : null,
    f.total !== null ? h("span", { class: "chip total-chip" }, `${f.total}${fmt.kind === "pool" ? `/${fmt.target}` : ""}`) : null),
  f.status === "out" ? null : h("div", { class: "seat-cards", "aria-hidden": "true" },
    Array.from({ length: backs }, () => h("span", { class: "card small back-card" }, cardBack("")))),
  f.picked.length ? h("div", { class: "picked", "aria-hidden": "true" },
    h("span", { class: "picked-label" }, "Picked"), f.picked.map((c) => miniCard(c))) : null);
}

/**
 * The middle of the table.
 * opts: {closedAction, openAction, discardTarget: bool, act(action), discardSelected()}
 */
export function centre(view, names, opts) {
  const open = view.open || { top: null, count: 0, takeable: false };
  const closedCount = view.closed ?? 0;
  const wild = view.wild || {};
  const closed = h("button", {
    class: ["stock", "in-closed", opts.closedAction && "active"], id: "closed-deck", dataset: { pile: "stock" },
    disabled: !opts.closedAction,
    "aria-label": `Closed deck, ${plural(closedCount, "card")}${opts.closedAction ? ": draw a card (S)" : ""}`,
    onclick: () => opts.closedAction && opts.act(opts.closedAction),
  },
  h("span", { class: "stack" }, [0, 1, 2].filter((i) => i === 0 || i < Math.ceil(closedCount / 20))
    .map(() => h("span", { class: "card mid back-card" }, cardBack("")))),
  h("span", { class: "pile-count", id: "closed-count" }, String(closedCount)));
  const wildFace = wild.card ? face(wild.card, { compact: true }) : null;
  wildFace?.setAttribute("aria-hidden", "true");
  const wildEl = wild.card ? h("span", {
    class: "card mid in-wild-card", id: "wild-card", dataset: { card: wild.card }, role: "img",
    "aria-label": `Wild joker card (the cut card): ${nameOf(wild.card)}. ${wildText(wild)}`,
  }, wildFace) : null;
  const openHint = opts.openAction ? ": take it (P)" : opts.discardTarget ? ": drop a card here to discard it"
    : open.top && !open.takeable ? ", cannot be taken" : "";
  const openEl = h("button", {
    class: ["pile", "in-open", opts.openAction && "active", opts.discardTarget && "drop-target", open.top && !open.takeable && "locked"],
    id: "open-deck", dataset: { drop: "open", pile: "discard", takeable: String(Boolean(open.takeable)) },
    disabled: !opts.openAction && !opts.discardTarget,
    "aria-label": open.top ? `Open deck, top card ${nameOf(open.top)}, ${plural(open.count, "card")}${openHint}`
      : `Open deck, empty${openHint}`,
    onclick: () => {
      if (opts.openAction) opts.act(opts.openAction);
      else if (opts.discardTarget) opts.discardSelected();
    },
  },
  open.top ? h("span", { class: "stack" }, h("span", { class: "card mid top", dataset: { card: open.top } }, face(open.top)))
    : h("span", { class: "empty-pile" }, "empty"),
  open.top && !open.takeable ? h("span", { class: "in-lock", "aria-hidden": "true" }, "no pickup") : null);
  const fmt = view.format || {};
  const facts = [`Deal ${view.hand}`, `Dealer: ${names.seat(view.dealer)}`, formatText(fmt)];
  if (view.drop) facts.push(`Drop ${view.drop.first} / ${view.drop.middle}`);
  else facts.push("No dropping");
  if (view.direction === "anticlockwise") facts.push("Play goes anticlockwise");
  return h("section", { class: "in-centre", id: "centre", "aria-label": "The table" },
    h("div", { class: "piles" },
      h("div", { class: "pile-slot in-closed-slot" },
        h("div", { class: "in-closed-wrap" }, wildEl, closed),
        h("span", { class: "pile-label" }, "Closed deck")),
      h("div", { class: "pile-slot" }, openEl, h("span", { class: "pile-label" }, "Open deck")),
      // The rank in words, the cut card apart: "wild: 8s" read as the eight of spades.
      wild.card ? h("div", { class: "in-wild-slot" },
        h("span", { class: "in-wild-text", id: "wild-text" }, wildText(wild)),
        h("span", { class: "in-cut-text", id: "cut-card-text" }, `cut card ${shortOf(wild.card)}`)) : null),
    h("ul", { class: "table-info", id: "table-info" }, facts.map((b) => h("li", null, b))));
}

/** "Points rummy: one deal", "Pool 101: out at 101", "2 deals: lowest total wins". */
export function formatText(fmt) {
  switch (fmt.kind) {
    case "pool": return `Pool ${fmt.target}: out at ${fmt.target}`;
    case "deals": return `${fmt.deals} deals: lowest total wins`;
    default: return "Points rummy: one deal";
  }
}
