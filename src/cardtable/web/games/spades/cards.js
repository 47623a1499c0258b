// Spades' cards on top of cards.js: the Big and Little Joker (the jokers
// option makes them the two top trumps; the view names the Little "Jk" and the
// Big "Bj", and says it in words too in `jokers` / a play's `joker`), and the
// display order of a hand: suits alternating red and black, spades (trumps) on
// the right, aces high.

import { cardBack, cardFace, cardName, cardShort, parseCard } from "../../cards.js";
import { svg } from "../../dom.js";

export { cardBack };

const BIG = "Bj";
export const isJoker = (code) => String(code) === "Jk" || String(code) === BIG;

/** "big" or "little": the view's word for a joker if it gave one, else its name says it. */
const kindOf = (code, joker) => joker || (String(code) === BIG ? "big" : "little");

const W = 100;
const H = 140;
const FONT = "DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif";

function star(cx, cy, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const r = i % 2 ? inner : outer;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return svg("polygon", { points: points.join(" ") });
}

/** A joker's face: a star, "JOKER" down the corner, BIG or LITTLE in the middle. */
function jokerFace(kind, compact) {
  const big = kind === "big";
  const label = `${big ? "big" : "little"} joker`;
  const letters = [..."JOKER"].map((ch, i) => svg("text", {
    x: 13, y: 24 + i * 15, "text-anchor": "middle", "font-family": FONT, "font-weight": "700", "font-size": 14,
  }, ch));
  return svg("svg", {
    class: `card-svg face joker ${big ? "joker-big" : "joker-little"}${compact ? " compact" : ""}`,
    viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, focusable: "false",
  },
  svg("rect", { class: "paper", x: 1, y: 1, width: W - 2, height: H - 2, rx: 8 }),
  svg("g", { class: "ink", fill: "currentColor" },
    ...letters,
    star(60, 62, compact ? 30 : 26, compact ? 12 : 10.5),
    svg("text", {
      x: 60, y: 112, "text-anchor": "middle", "font-family": FONT, "font-weight": "700",
      "font-size": compact ? 20 : 16,
    }, big ? "BIG" : "LITTLE")));
}

/** The face of any card; `joker` ("big" / "little") may say which joker it is. */
export function face(code, joker, opts = {}) {
  return isJoker(code) ? jokerFace(kindOf(code, joker), Boolean(opts.compact)) : cardFace(code, opts);
}

/** "7 of hearts", "big joker". */
export function nameOf(code, joker) {
  return isJoker(code) ? `${kindOf(code, joker)} joker` : cardName(code);
}

/** "7♥", "Big joker". */
export function shortOf(code, joker) {
  return isJoker(code) ? `${kindOf(code, joker) === "big" ? "Big" : "Little"} joker` : cardShort(code);
}

const SUIT_ORDER = "dchs"; // red, black, red, black: neighbours never share a colour
const RANK_ORDER = "23456789TJQKA";

/** Sort key: suit group, then rank; jokers after the spades (little, then big). */
export function displayKey(code, joker) {
  if (isJoker(code)) return 4 * 20 + (kindOf(code, joker) === "big" ? 1 : 0);
  const { rank, suit } = parseCard(code);
  return SUIT_ORDER.indexOf(suit) * 20 + RANK_ORDER.indexOf(rank);
}

/** The suit group a card is shown in (jokers go with the spades, as trumps). */
export const groupOf = (code) => (isJoker(code) ? "s" : parseCard(code).suit);

/**
 * The hand as {code, joker, key} in display order (`jokers` names the hand's jokers in
 * the order listed); `key` stays unique whatever comes, so a selection or the focus
 * can follow a card.
 */
export function orderHand(cards, jokers) {
  const kinds = [...(jokers || [])];
  let j = 0;
  const list = (cards || []).map((code) => {
    const joker = isJoker(code) ? kindOf(code, kinds[j++]) : null;
    return { code, joker, key: joker ? `Jk-${joker}` : code };
  });
  // Two jokers of one kind cannot happen, but keep keys unique whatever comes.
  const seen = new Map();
  for (const card of list) {
    const n = seen.get(card.key) || 0;
    seen.set(card.key, n + 1);
    if (n) card.key = `${card.key}-${n}`;
  }
  return list.sort((a, b) => displayKey(a.code, a.joker) - displayKey(b.code, b.joker));
}
