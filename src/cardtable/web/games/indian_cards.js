// Cards for Indian Rummy on top of cards.js: the printed joker ("Jk" in the
// view), names for labels, keys for a two-pack hand where a card can be held
// twice (each copy gets its own key), and a multiset to re-validate a saved
// grouping against the hand. Nothing here knows the rules.

import { cardBack, cardFace, cardName, cardShort, jokerFace, parseCard } from "../cards.js";
import { h } from "../dom.js";

export { cardBack };

export const isJoker = (code) => String(code).toLowerCase() === "jk";

/** The face of any card, printed jokers included. */
export function face(code, opts = {}) {
  return isJoker(code) ? jokerFace({ compact: Boolean(opts.compact), className: "in-joker", label: "printed joker" }) : cardFace(code, opts);
}

/** "7 of hearts", "printed joker". */
export const nameOf = (code) => (isJoker(code) ? "printed joker" : cardName(code));

/** "7♥", "Joker". */
export const shortOf = (code) => (isJoker(code) ? "Joker" : cardShort(code));

const RANK_WORDS = { A: "aces", T: "10s", J: "jacks", Q: "queens", K: "kings" };

/** "7s", "jacks": the cards of a rank, for the wild-card line. */
export function rankPlural(rank) {
  if (!rank) return "";
  const r = String(rank).toUpperCase() === "10" ? "T" : String(rank).toUpperCase();
  return RANK_WORDS[r] || `${r}s`;
}

/** The wild rank as the table shows it: "wild: 7s" (and always the printed jokers). */
export function wildText(wild) {
  if (!wild) return "";
  if (!wild.rank) return "wild: printed jokers only";
  return `wild: ${rankPlural(wild.rank)}`;
}

/** Whether a card is a joker in this deal (printed, or of the wild rank): for labels only. */
export function isWild(code, wild) {
  if (isJoker(code)) return true;
  return Boolean(wild && wild.rank) && parseCard(code).rank === (wild.rank === "10" ? "T" : wild.rank);
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

/** A multiset of cards: take() removes one copy if there is one. */
export class Bag {
  constructor(codes) {
    this.left = new Map();
    for (const c of codes || []) this.left.set(c, (this.left.get(c) || 0) + 1);
  }

  take(code) {
    const n = this.left.get(code) || 0;
    if (!n) return false;
    this.left.set(code, n - 1);
    return true;
  }

  /** What is left, as a list (in the order first added). */
  rest() {
    return [...this.left.entries()].flatMap(([c, n]) => Array.from({ length: n }, () => c));
  }
}

/** The same multiset of cards? (order does not matter) */
export const sameCards = (a, b) => a.length === b.length && [...a].sort().join(" ") === [...b].sort().join(" ");

/** A small face for panels: role=img with the card's name. */
export function miniCard(code, { extra = null, label = null, size = "mini" } = {}) {
  const f = face(code, { compact: true });
  f.setAttribute("aria-hidden", "true");
  return h("span", { class: ["card", size, extra], dataset: { card: code }, role: "img", "aria-label": label || nameOf(code) }, f);
}

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
