// What happened at an Indian Rummy table, in words: the last-move line and
// the screen-reader announcements of the other players' moves (and the card
// you drew from the closed deck, which only you are told).

import { isSeat } from "../board.js";
import { INDIAN_DECK, shortOf } from "../rummyfamily/cards.js";

const { nameOf } = INDIAN_DECK;

/** One event as a sentence ("" for nothing worth saying). `short` uses 7♥ for cards. */
export function describe(e, view, names, short = false) {
  const who = names.seat(e.seat);
  const you = isSeat(e.seat) && e.seat === view.seat;
  const card = (c) => (short ? shortOf(c) : `the ${nameOf(c)}`);
  switch (e.type) {
    case "draw_stock": return you && e.card ? `You drew ${card(e.card)}` : `${who} drew from the closed deck`;
    case "draw_discard": return `${who} took ${e.card ? card(e.card) : "the top card"} from the open deck`;
    case "discard": return `${who} discarded ${card(e.card)}`;
    case "drop": return `${who} dropped (${e.kind === "middle" ? "middle" : "first"} drop, ${e.points} points)`;
    case "declare": return e.valid ? `${who} declared a valid show!` : `${who} made a wrong show (${e.points} points)`;
    case "renew_closed": return "The open deck was shuffled into a new closed deck";
    case "deal_over": return dealOverText(e, names);
    case "match_over": return "The match is over";
    case "deal": return `${who} dealt deal ${e.deal}${e.wild ? `; the wild joker card is ${card(e.wild)}` : ""}`;
    default: return isSeat(e.seat) && e.type ? `${who}: ${String(e.type).replace(/_/g, " ")}` : "";
  }
}

function dealOverText(e, names) {
  if (!isSeat(e.winner)) return `Deal ${e.deal} is over: nobody wins it`;
  const who = names.seat(e.winner);
  const how = e.shown ? "with a valid show" : "as the last player left";
  return `Deal ${e.deal} is over: ${who} ${who === "You" ? "win" : "wins"} it ${how}`;
}

/**
 * Announce the others' moves (and the card you drew) and return the text for
 * the last-move line: the latest move by someone else, "" after a deal, or
 * null to leave the line as it is.
 */
export function noteEvents(view, meta, names, announce) {
  const events = (meta && meta.events) || [];
  const mine = (e) => isSeat(view.seat) && e.seat === view.seat;
  const spoken = events.filter((e) => !mine(e) || (e.type === "draw_stock" && e.card) || e.type === "declare")
    .map((e) => describe(e, view, names)).filter(Boolean);
  if (spoken.length) announce(`${spoken.join(". ")}.`);
  const others = events.filter((e) => isSeat(e.seat) && !mine(e) && e.type !== "deal" && describe(e, view, names));
  if (others.length) return describe(others[others.length - 1], view, names, true);
  if (events.some((e) => e.type === "deal")) return "";
  return null;
}
