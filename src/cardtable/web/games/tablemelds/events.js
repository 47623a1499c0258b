// What happened at a table-meld game, in words: the last-move line and the
// screen-reader announcements of the other players' moves.

import { isSeat } from "../board.js";
import { MELD_DECK, shortOf } from "../rummyfamily/cards.js";

const { nameOf } = MELD_DECK;
const list = (cards, name) => (cards || []).map(name).join(" ");

/** One event as a sentence ("" for nothing worth saying). `short` uses 7♥ for cards. */
export function describe(e, view, names, short = false) {
  const who = names.seat(e.seat);
  const you = isSeat(e.seat) && e.seat === view.seat;
  const card = (c) => (short ? shortOf(c) : `the ${nameOf(c)}`);
  const meldText = (m) => list(m?.cards, shortOf);
  switch (e.type) {
    case "draw_stock": return you && e.card ? `You drew ${card(e.card)}` : `${who} drew from the stock`;
    case "draw_discard": {
      const cards = e.cards || (e.card ? [e.card] : []);
      if (cards.length <= 1) return `${who} took ${cards.length ? card(cards[0]) : "the top discard"} from the pile`;
      return `${who} took ${cards.length} cards from the pile: ${list(cards, shortOf)}`;
    }
    case "meld": return `${who} melded ${(e.melds || []).map(meldText).join(" and ")}`;
    case "lay_off": return `${who} laid off ${card(e.card)} on ${meldText(e.meld)}`;
    case "swap_joker": return `${who} exchanged ${card(e.card)} for a joker`;
    case "discard": return `${who} discarded ${card(e.card)}`;
    case "renew_stock": return e.shuffled ? "The discard pile was shuffled into a new stock" : "The discard pile was turned over as the new stock";
    case "deal": return `${who} dealt hand ${e.hand}`;
    case "pass": return e.card ? `${who} let ${card(e.card)} go` : `${who} passed`;
    case "call": return `${who} called ${card(e.card)}`;
    case "stock_out": return "The stock is out: the hand is over";
    case "hand_over": return isSeat(e.winner) ? `${names.seat(e.winner)} went out: the hand is over` : "The hand is over";
    case "match_over": return "The match is over";
    default: return isSeat(e.seat) && e.type ? `${who}: ${String(e.type).replace(/_/g, " ")}` : "";
  }
}

/**
 * Announce the others' moves (and the card you drew) and return the text for
 * the last-move line: the latest move by someone else, "" after a deal, or null
 * to leave the line as it is.
 */
export function noteEvents(view, meta, names, announce) {
  const events = (meta && meta.events) || [];
  const mine = (e) => isSeat(view.seat) && e.seat === view.seat;
  const spoken = events.filter((e) => !mine(e) || (e.type === "draw_stock" && e.card))
    .map((e) => describe(e, view, names)).filter(Boolean);
  if (spoken.length) announce(`${spoken.join(". ")}.`);
  const others = events.filter((e) => isSeat(e.seat) && !mine(e) && describe(e, view, names) && e.type !== "deal");
  if (others.length) return describe(others[others.length - 1], view, names, true);
  if (events.some((e) => e.type === "deal")) return "";
  return null;
}
