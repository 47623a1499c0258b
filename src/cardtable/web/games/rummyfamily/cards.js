// Cards for the rummy family (Rummy, Rummy 500, Rommé and Indian Rummy) on
// top of cards.js: the joker ("Jk" in the views), names for labels, display
// orders, two-pack hands where a card can be held twice (each copy gets its
// own key), and multisets to match a selection against a legal action or to
// re-validate a saved grouping. Nothing here knows the rules.
//
// The games differ only in what a joker is called: in Indian Rummy a card of
// the wild rank is a joker too, so the "Jk" is the printed joker. Each family
// takes its deck (face, nameOf, miniCard) from MELD_DECK or INDIAN_DECK.

import { cardBack, cardFace, cardName, cardShort, jokerFace, parseCard } from "../../cards.js";
import { h } from "../../dom.js";

export { cardBack };

export const isJoker = (code) => String(code).toLowerCase() === "jk";

/** One game's faces and names, its jokers called `joker` and drawn with the class `jokerClass`. */
function deck(joker, jokerClass) {
  /** The face of any card, jokers included. */
  const face = (code, opts = {}) => (isJoker(code)
    ? jokerFace({ compact: Boolean(opts.compact), className: jokerClass, label: joker }) : cardFace(code, opts));
  /** "7 of hearts", or the joker's name. */
  const nameOf = (code) => (isJoker(code) ? joker : cardName(code));
  /** A small face for panels and the table: role=img with the card's name. */
  const miniCard = (code, { extra = null, label = null, size = "mini" } = {}) => {
    const f = face(code, { compact: true });
    f.setAttribute("aria-hidden", "true");
    return h("span", { class: ["card", size, extra], dataset: { card: code }, role: "img", "aria-label": label || nameOf(code) }, f);
  };
  return { face, nameOf, miniCard };
}

/** Rummy, Rummy 500, Rommé. */
export const MELD_DECK = deck("joker", "rm-joker");
/** Indian Rummy. */
export const INDIAN_DECK = deck("printed joker", "in-joker");

/** "7♥", "Joker". */
export const shortOf = (code) => (isJoker(code) ? "Joker" : cardShort(code));

/** "joker as 7 of hearts" for a joker on the table (stands_for says what it plays as). */
export function tableName(code, standsFor) {
  return isJoker(code) && standsFor && !isJoker(standsFor) ? `joker as ${cardName(standsFor)}` : MELD_DECK.nameOf(code);
}

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// -- display orders (not rules) ---------------------------------------------------------------

const RANKS = "A23456789TJQK";
const SUIT_ORDER = "cdsh"; // display: black, red, black, red
const rankOf = (code) => (isJoker(code) ? 99 : RANKS.indexOf(parseCard(code).rank));
const suitOf = (code) => (isJoker(code) ? 9 : SUIT_ORDER.indexOf(parseCard(code).suit));

/** By suit then rank, or by rank then suit; jokers last. */
export const bySuit = (a, b) => suitOf(a) - suitOf(b) || rankOf(a) - rankOf(b);
export const byRank = (a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b);

// -- Indian Rummy's wild rank -------------------------------------------------------------------

// Words, not "8s": "wild: 8s" read as the eight of spades.
const RANK_WORDS = {
  A: "aces", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens", 8: "eights", 9: "nines",
  T: "tens", J: "jacks", Q: "queens", K: "kings",
};

/** "sevens", "jacks": the cards of a rank, in words. */
export function rankPlural(rank) {
  if (!rank) return "";
  const r = String(rank).toUpperCase() === "10" ? "T" : String(rank).toUpperCase();
  return RANK_WORDS[r] || `${r}s`;
}

/** The wild rank as a sentence: "Sevens are wild" (the printed jokers always are). */
export function wildText(wild) {
  if (!wild) return "";
  if (!wild.rank) return "Only the printed jokers are wild";
  const words = rankPlural(wild.rank);
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} are wild`;
}

/** Whether a card is a joker in this deal (printed, or of the wild rank): for labels only. */
export function isWild(code, wild) {
  if (isJoker(code)) return true;
  return Boolean(wild && wild.rank) && parseCard(code).rank === (wild.rank === "10" ? "T" : wild.rank);
}

// -- two-pack hands: copies, keys and multisets ---------------------------------------------------

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

/** Whether `part` fits inside `whole`, counting copies. */
export function within(part, whole) {
  const bag = new Bag(whole);
  return part.every((c) => bag.take(c));
}

/** One canonical text for a multiset of cards: to compare a selection with a legal action. */
export const cardsKey = (cards) => [...(cards || [])].map((c) => String(c)).sort().join(" ");

/** The same for several groups (a first meld laid in one move). */
export const groupsKey = (groups) => (groups || []).map(cardsKey).sort().join(" | ");

/** The same multiset of cards? (order does not matter) */
export const sameCards = (a, b) => a.length === b.length && cardsKey(a) === cardsKey(b);
