// Cards for the table-meld games (Rummy, Rummy 500, Rommé) on top of cards.js:
// the joker ("Jk" in the views: Rummy 500 and Rommé play with jokers), names
// for labels, two-pack hands where a card can be held twice (each copy gets
// its own key), and multiset comparisons used to find a legal action that
// names exactly the chosen cards. Nothing here knows the rules.

import { cardBack, cardFace, cardName, cardShort, jokerFace, parseCard } from "../cards.js";
import { h } from "../dom.js";

export { cardBack };

export const isJoker = (code) => String(code).toLowerCase() === "jk";

/** The face of any card, jokers included. */
export function face(code, opts = {}) {
  return isJoker(code) ? jokerFace({ compact: Boolean(opts.compact), className: "rm-joker", label: "joker" }) : cardFace(code, opts);
}

/** "7 of hearts", "joker". */
export const nameOf = (code) => (isJoker(code) ? "joker" : cardName(code));

/** "7♥", "Jk". */
export const shortOf = (code) => (isJoker(code) ? "Joker" : cardShort(code));

/** "joker as 7 of hearts" for a joker on the table (stands_for says what it plays as). */
export function tableName(code, standsFor) {
  return isJoker(code) && standsFor && !isJoker(standsFor) ? `joker as ${cardName(standsFor)}` : nameOf(code);
}

const RANKS = "A23456789TJQK";
const SUITS = "cdhs";
const SUIT_ORDER = "cdsh"; // display: black, red, black, red
const rankOf = (code) => (isJoker(code) ? 99 : RANKS.indexOf(parseCard(code).rank));
const suitOf = (code) => (isJoker(code) ? 9 : SUIT_ORDER.indexOf(parseCard(code).suit));

/** Display orders (not rules): by suit then rank, or by rank then suit; jokers last. */
export const bySuit = (a, b) => suitOf(a) - suitOf(b) || rankOf(a) - rankOf(b);
export const byRank = (a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b);
export const suitGroup = (code) => (isJoker(code) ? "j" : parseCard(code).suit);

/** One canonical text for a multiset of cards: to compare a selection with a legal action. */
export const cardsKey = (cards) => [...(cards || [])].map((c) => String(c)).sort().join(" ");

/** The same for several groups (a first meld laid in one move). */
export const groupsKey = (groups) => (groups || []).map(cardsKey).sort().join(" | ");

/** Whether `part` fits inside `whole`, counting copies (a two-pack hand holds a card twice). */
export function within(part, whole) {
  const left = new Map();
  for (const c of whole) left.set(c, (left.get(c) || 0) + 1);
  for (const c of part) {
    const n = left.get(c) || 0;
    if (!n) return false;
    left.set(c, n - 1);
  }
  return true;
}

/** Keys for a list of codes: "7h", and "7h~2" for the second copy. */
export function keyed(codes) {
  const seen = new Map();
  return codes.map((code) => {
    const n = (seen.get(code) || 0) + 1;
    seen.set(code, n);
    return { code, key: n === 1 ? code : `${code}~${n}` };
  });
}

export const codeOfKey = (key) => String(key).split("~")[0];

/** A small face for panels and the table: role=img with the card's name. */
export function miniCard(code, { extra = null, label = null, size = "mini" } = {}) {
  const f = face(code, { compact: true });
  f.setAttribute("aria-hidden", "true");
  return h("span", { class: ["card", size, extra], dataset: { card: code }, role: "img", "aria-label": label || nameOf(code) }, f);
}

export { SUITS };
