// What happened at a Gin table, in words: the last-move line and the
// screen-reader announcements of the opponent's moves (and the card you drew
// from the stock, which only you are told).

import { cardName, cardShort } from "../../cards.js";

/** One event as a sentence ("" for nothing worth saying). */
export function describe(e, view, seatName) {
  const name = seatName(e.seat);
  const you = e.seat === view.seat;
  const c = e.card ? cardName(e.card) : "";
  switch (e.type) {
    case "draw_stock": return you && e.card ? `You drew the ${c} from the stock` : `${name} drew from the stock`;
    case "draw_discard": case "take_upcard": return `${name} took the ${c}`;
    case "discard": return `${name} discarded the ${c}`;
    case "pass": return `${name} passed`;
    case "knock": return `${name} knocked`;
    case "gin": return `${name} went gin`;
    case "big_gin": return `${name} went big gin`;
    case "deal": return `${name} dealt hand ${e.hand}`;
    default: return "";
  }
}

function short(e, view, seatName) {
  const text = describe(e, view, seatName);
  return e.card ? text.replace(`the ${cardName(e.card)}`, cardShort(e.card)) : text;
}

/**
 * Announce the opponent's moves (and the card you drew) and return the text for the
 * last-move line: his latest move, "" after a deal, or null to leave the line as it is.
 */
export function noteEvents(view, meta, seatName, announce) {
  const events = (meta && meta.events) || [];
  const others = events.filter((e) => e.seat !== view.seat && describe(e, view, seatName));
  const mineDrawn = events.filter((e) => e.seat === view.seat && e.type === "draw_stock" && e.card);
  const spoken = [...others, ...mineDrawn].map((e) => describe(e, view, seatName));
  if (view.phase === "hand_over" || view.phase === "match_over") {
    if (events.some((e) => e.type === "hand_over" || e.type === "match_over")) spoken.push("The hand is over.");
  }
  if (spoken.length) announce(`${spoken.join(". ")}.`);
  if (others.length) return short(others[others.length - 1], view, seatName);
  if (events.some((e) => e.type === "deal")) return "";
  return null;
}
