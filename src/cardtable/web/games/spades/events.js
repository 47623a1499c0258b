// What happened at a Spades table, in words: the last-move line and the
// screen-reader announcements (the others' bids and plays, and what only you
// are told: the cards passed to you, the card you kept in the draw).

import { isSeat } from "../board.js";
import { nameOf, shortOf } from "./cards.js";

/** One event as a sentence ("" for nothing worth saying). */
function describe(e, view, seatName) {
  const name = seatName(e.seat);
  const you = e.seat === view.seat && isSeat(e.seat);
  switch (e.type) {
    case "bid": return `${name} bid ${e.blind ? "blind nil" : e.number === 0 ? "nil" : e.number}`;
    case "look": return you ? "" : `${name} looked at ${name === "You" ? "your" : "their"} cards`;
    case "play": return `${name} played ${nameOf(e.card, e.joker)}`;
    case "trick": return `${name} ${you ? "win" : "wins"} the trick`;
    case "pass_cards": return `${name} passed 2 cards to ${seatName(e.to)}`;
    case "receive_cards": return you && e.cards ? `You received ${e.cards.map((c) => nameOf(c)).join(" and ")}` : "";
    case "keep": return you ? (e.card ? `You kept ${nameOf(e.card)}` : "You kept the card") : `${name} kept a card`;
    case "reject": return you ? (e.card ? `You rejected ${nameOf(e.dead)} and took ${nameOf(e.card)}` : "You rejected the card")
      : `${name} rejected a card`;
    case "deal": return `${name} dealt hand ${e.hand}`;
    case "play_starts": return `${name} ${you ? "lead" : "leads"}`;
    case "hand_over": return "The hand is over";
    default: return "";
  }
}

function short(e, view, seatName) {
  if (e.type === "play") return `${seatName(e.seat)} played ${shortOf(e.card, e.joker)}`;
  return describe(e, view, seatName);
}

/**
 * Announce what happened and return the text for the last-move line: the others'
 * latest move, "" after a deal, or null to leave the line as it is.
 */
export function noteEvents(view, meta, seatName, announce) {
  const events = (meta && meta.events) || [];
  const mine = (e) => e.seat === view.seat && isSeat(view.seat);
  const spoken = events.filter((e) => (!mine(e) || ["trick", "receive_cards", "keep", "reject", "play_starts"].includes(e.type)) &&
    describe(e, view, seatName)).map((e) => describe(e, view, seatName));
  if (spoken.length) announce(`${spoken.join(". ")}.`);
  const others = events.filter((e) => !mine(e) && describe(e, view, seatName) && e.type !== "hand_over");
  if (others.length) return short(others[others.length - 1], view, seatName);
  if (events.some((e) => e.type === "deal")) return "";
  return null;
}
