// Playing cards drawn by code as SVG: vector paths for the suits (no font
// glyphs, so they look the same everywhere and stay crisp at any size),
// standard pip layouts, framed court cards and a lattice back.
//
// Colours come from CSS (`currentColor`): the `.suit-c/d/h/s` classes and the
// body's `four-colour` class pick them, so switching decks needs no redraw.

import { svg } from "./dom.js";

export const RANKS = "A23456789TJQK";
export const SUITS = "cdhs"; // bridge order, as the engine
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const W = 100;
const H = 140;

// Suit shapes in a 100 × 100 box.
const SUIT_PATHS = {
  h: "M50 92C36 78 4 56 4 30C4 14 16 4 29 4C39 4 46 10 50 19C54 10 61 4 71 4C84 4 96 14 96 30C96 56 64 78 50 92Z",
  d: "M50 2Q64 28 86 50Q64 72 50 98Q36 72 14 50Q36 28 50 2Z",
  s: "M50 3C38 22 4 40 4 62C4 77 15 86 28 86C37 86 44 82 47 76C46 86 41 93 33 97L67 97C59 93 54 86 53 76C56 82 63 86 72 86C85 86 96 77 96 62C96 40 62 22 50 3Z",
  c: "M50 3A21 21 0 0 0 33 37A21 21 0 1 0 46 72C45 84 40 92 32 97L68 97C60 92 55 84 54 72A21 21 0 1 0 67 37A21 21 0 0 0 50 3Z",
};

// Pip centres for 2..10 (columns 35/50/65, clear of the corner indexes);
// pips below the middle are turned, as on a printed card.
const L = 35, M = 50, R = 65;
const T = 30, B = 110, Y3 = 56.7, Y4 = 83.3;
const PIPS = {
  2: [[M, T], [M, B]],
  3: [[M, T], [M, 70], [M, B]],
  4: [[L, T], [R, T], [L, B], [R, B]],
  5: [[L, T], [R, T], [M, 70], [L, B], [R, B]],
  6: [[L, T], [R, T], [L, 70], [R, 70], [L, B], [R, B]],
  7: [[L, T], [R, T], [M, 50], [L, 70], [R, 70], [L, B], [R, B]],
  8: [[L, T], [R, T], [M, 50], [L, 70], [R, 70], [M, 90], [L, B], [R, B]],
  9: [[L, T], [R, T], [L, Y3], [R, Y3], [M, 70], [L, Y4], [R, Y4], [L, B], [R, B]],
  10: [[L, T], [R, T], [M, 43], [L, Y3], [R, Y3], [L, Y4], [R, Y4], [M, 97], [L, B], [R, B]],
};

const FONT = "DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif";
const SERIF = "DejaVu Serif, Liberation Serif, Georgia, Times New Roman, serif";

/** {rank: "7", suit: "h"} from "7h"; accepts "10h" too. */
export function parseCard(code) {
  const text = String(code);
  const suit = text.slice(-1).toLowerCase();
  let rank = text.slice(0, -1).toUpperCase();
  if (rank === "10") rank = "T";
  return { rank, suit };
}

/** "7 of hearts", "queen of spades": for aria-labels and announcements. */
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit] || suit}`;
}

/** "7♥": for compact text (buttons, logs). */
export function cardShort(code) {
  const { rank, suit } = parseCard(code);
  return `${rank === "T" ? "10" : rank}${"♣♦♥♠"[SUITS.indexOf(suit)] || suit}`;
}

/** Display sort keys (a display order, not a rule). */
export const rankIndex = (code) => RANKS.indexOf(parseCard(code).rank);
export const suitIndex = (code) => SUITS.indexOf(parseCard(code).suit);

export const sortByRank = (cards) =>
  [...cards].sort((a, b) => rankIndex(a) - rankIndex(b) || suitIndex(a) - suitIndex(b));
export const sortBySuit = (cards) =>
  [...cards].sort((a, b) => suitIndex(a) - suitIndex(b) || rankIndex(a) - rankIndex(b));

function pip(suit, x, y, size, turned) {
  const s = size / 100;
  let transform = `translate(${x - size / 2} ${y - size / 2}) scale(${s})`;
  if (turned) transform = `rotate(180 ${x} ${y}) ${transform}`;
  return svg("path", { d: SUIT_PATHS[suit], transform });
}

function rankText(rank, x, y, size) {
  const ten = rank === "T";
  // "10" is squeezed to the width of one letter so every index lines up.
  return svg("text", {
    x, y, "text-anchor": "middle", "font-family": FONT, "font-weight": "700", "font-size": size,
    textLength: ten ? size * 0.95 : undefined, lengthAdjust: ten ? "spacingAndGlyphs" : undefined,
  }, ten ? "10" : rank);
}

function cornerIndex(rank, suit) {
  return svg("g", { class: "index" }, rankText(rank, 13, 27, 24), pip(suit, 13, 40, 15, false));
}

function centre(rank, suit) {
  if (rank === "A") return [pip(suit, 50, 70, suit === "s" ? 50 : 40, false)];
  if ("JQK".includes(rank)) {
    // Court cards: a framed panel with a big letter; no artwork to go blurry.
    return [
      svg("rect", { class: "court", x: 24, y: 20, width: 52, height: 100, rx: 5 }),
      pip(suit, 50, 38, 20, false),
      svg("text", {
        x: 50, y: 86, "text-anchor": "middle", "font-family": SERIF, "font-weight": "700",
        "font-size": 40,
      }, rank),
      pip(suit, 50, 104, 20, true),
    ];
  }
  const count = rank === "T" ? 10 : Number(rank);
  return PIPS[count].map(([x, y]) => pip(suit, x, y, 16, y > 70));
}

/** A face for small sizes: a big index and one big suit, readable at 30 px. */
function compactFace(code, rank, suit) {
  return svg("svg", {
    class: `card-svg face compact suit-${suit}`, viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": cardName(code), focusable: "false",
  },
  svg("rect", { class: "paper", x: 1, y: 1, width: W - 2, height: H - 2, rx: 10 }),
  // Rank and suit both sit in the left half, which stays visible when overlapped.
  svg("g", { class: "ink", fill: "currentColor" },
    rankText(rank, 25, 46, 42), pip(suit, 25, 73, 30, false), pip(suit, 68, 108, 44, false)));
}

/**
 * The face of a card as an <svg role="img" aria-label="7 of hearts">.
 * `compact` draws the small-size face (picked cards, showdown, choices).
 */
export function cardFace(code, { compact = false } = {}) {
  const { rank, suit } = parseCard(code);
  if (compact) return compactFace(code, rank, suit);
  const corner = cornerIndex(rank, suit);
  const turned = cornerIndex(rank, suit);
  turned.setAttribute("transform", `rotate(180 ${W / 2} ${H / 2})`);
  return svg("svg", {
    class: `card-svg face suit-${suit}`, viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": cardName(code), focusable: "false",
  },
  svg("rect", { class: "paper", x: 1, y: 1, width: W - 2, height: H - 2, rx: 8 }),
  svg("g", { class: "ink", fill: "currentColor" }, corner, turned, ...centre(rank, suit)));
}

/** Lines at ±45° clipped to the rectangle [x0,x1]×[y0,y1], as one path. */
function lattice(x0, y0, x1, y1, step) {
  const parts = [];
  for (let c = x0 - (y1 - y0); c <= x1; c += step) {
    // the line x - y = c - y0 (falling) and its mirror (rising)
    const a = [Math.max(x0, c), y0 + Math.max(x0, c) - c];
    const b = [Math.min(x1, c + (y1 - y0)), y0 + Math.min(x1, c + (y1 - y0)) - c];
    if (a[0] < b[0]) {
      parts.push(`M${a[0]} ${a[1]}L${b[0]} ${b[1]}`);
      parts.push(`M${x0 + x1 - a[0]} ${a[1]}L${x0 + x1 - b[0]} ${b[1]}`);
    }
  }
  return parts.join("");
}

const BACK_LATTICE = lattice(9, 9, 91, 131, 9);

/** A face-down card; an empty label makes it decoration (a pile that names itself). */
export function cardBack(label = "face-down card") {
  const named = label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" };
  return svg("svg", {
    class: "card-svg back", viewBox: `0 0 ${W} ${H}`, ...named, focusable: "false",
  },
  svg("rect", { class: "back-paper", x: 1, y: 1, width: W - 2, height: H - 2, rx: 8 }),
  svg("rect", { class: "back-field", x: 8, y: 8, width: W - 16, height: H - 16, rx: 4 }),
  svg("path", { class: "back-lattice", d: BACK_LATTICE }),
  svg("rect", { class: "back-frame", x: 8, y: 8, width: W - 16, height: H - 16, rx: 4 }));
}

/** A small suit symbol for text (e.g. the deck option's preview). */
export function suitIcon(suit) {
  return svg("svg", { class: `suit-icon suit-${suit}`, viewBox: "0 0 100 100", "aria-hidden": "true" },
    svg("path", { d: SUIT_PATHS[suit], fill: "currentColor" }));
}

const JOKER_FONT = "DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif";

function star(cx, cy, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const r = i % 2 ? inner : outer;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return svg("polygon", { points: points.join(" ") });
}

/** A joker's face ("JOKER" down the side and a star); `className` and `label` per game. */
export function jokerFace({ compact = false, className = "", label = "joker" } = {}) {
  const letters = [..."JOKER"].map((ch, i) => svg("text", {
    x: 13, y: 24 + i * 15, "text-anchor": "middle", "font-family": JOKER_FONT, "font-weight": "700", "font-size": 14,
  }, ch));
  return svg("svg", {
    class: `card-svg face joker ${className}${compact ? " compact" : ""}`, viewBox: `0 0 ${W} ${H}`,
    role: "img", "aria-label": label, focusable: "false",
  },
  svg("rect", { class: "paper", x: 1, y: 1, width: W - 2, height: H - 2, rx: 8 }),
  svg("g", { class: "ink", fill: "currentColor" }, ...letters, star(60, 70, compact ? 32 : 28, compact ? 13 : 11)));
}
