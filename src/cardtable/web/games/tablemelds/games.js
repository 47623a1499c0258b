// What differs between the table-meld games on the screen: how to read a
// hand's scorecard row and a few switches (fan the discard pile, show meld
// values, credit lay-offs, "come out"). The rules themselves are the
// server's: these only say how its numbers are labelled.

import { isSeat } from "../board.js";
import { outText, signed } from "./score.js";

const num = (n) => (typeof n === "number" ? String(n) : "");
const at = (list, s) => (Array.isArray(list) ? list[s] : undefined);

/** "one hand", "3 hands": a match of a fixed number of hands (Express is one). */
const handsText = (n) => (n === 1 ? "one hand" : `${n} hands`);

// A match of a fixed number of hands ends after them whatever the totals: no "game to N" then.
function targetText(view, low) {
  const o = view.options || {};
  if (o.deals) return `${handsText(o.deals)}, ${low ? "lowest" : "highest"} total wins`;
  if (o.target) return low ? `lowest total wins when someone reaches ${o.target}` : `game to ${o.target}`;
  return low ? "lowest total wins" : "highest total wins";
}

export const RUMMY = {
  name: "rummy",
  fan: false,
  showValues: false,
  credit: false,
  comeOut: false,
  lowWins: (view) => view.options?.scoring !== "winner_takes",
  caption(view) {
    const low = this.lowWins(view);
    return `${low ? "penalty points" : "points"}; ${targetText(view, low)}`;
  },
  headline: (row, names) => (row.blocked ? "the stock ran out (blocked)" : outText(row, names)),
  detail(row, names) {
    const bits = [];
    if (isSeat(row.scorer)) {
      const delta = at(row.points, row.scorer);
      if (typeof delta === "number" && delta > 0) bits.push(`${names.seat(row.scorer)} ${names.seat(row.scorer) === "You" ? "score" : "scores"} ${delta}.`);
      else bits.push("The others add their hands to their totals.");
    } else bits.push("No score this hand.");
    if (row.multiplier > 1) bits.push(`Rummy: ×${row.multiplier}.`);
    return bits.join(" ");
  },
  summary: (row) => [
    { label: "In hand", value: (s) => num(at(row.values, s)) },
    { label: "Points", cls: "points-row", value: (s) => signed(at(row.points, s)) },
  ],
  points: (row, s) => at(row.points, s) ?? "",
};

/** Rummy 500: each player scores what he melded and laid off minus what he holds. */
export const RUMMY500 = {
  ...RUMMY,
  name: "rummy500",
  fan: true,
  showValues: true,
  credit: true,
  lowWins: () => false,
  caption(view) {
    const o = view.options || {};
    return `melded minus held; ${o.deals ? `${handsText(o.deals)}, highest total wins` : `first to ${o.target ?? 500} wins`}`;
  },
  headline: (row, names) => (isSeat(row.winner) ? outText(row, names) : "the hand ended with nobody out"),
  detail: () => "Everyone scores the cards they melded and laid off, minus the cards left in hand.",
  summary: (row) => [
    { label: "Melded", value: (s) => num(at(row.melded, s)) },
    { label: "In hand", value: (s) => (at(row.values, s) ? `−${at(row.values, s)}` : num(at(row.values, s))) },
    (row.bonus || []).some(Boolean) ? { label: "Going out", value: (s) => (at(row.bonus, s) ? signed(at(row.bonus, s)) : "") } : null,
    { label: "Points", cls: "points-row", value: (s) => signed(at(row.points, s)) },
  ].filter(Boolean),
  points: (row, s) => at(row.points, s) ?? "",
  /** Live: the points each seat has on the table this hand (view.table_points). */
  onTable: (view, s) => at(view.table_points, s),
};

/** Rommé: losers pay their hands (×2 after a Hand-Rommé); the lowest total wins. */
export const ROMME = {
  ...RUMMY,
  name: "romme",
  showValues: true,
  comeOut: true,
  lowWins: () => true,
  caption(view) {
    const o = view.options || {};
    if (o.end === "elimination") return `penalty points; at ${o.eliminate_at} a player is out, the last one left wins`;
    if (o.end === "limit") return `penalty points; lowest total wins once someone passes ${o.target}`;
    const deals = o.deals || view.players; // 0: one round, each player deals once
    return `penalty points; ${handsText(deals)}, lowest total wins`;
  },
  headline(row, names) {
    if (!isSeat(row.winner)) return "the stock ran out";
    const who = names.seat(row.winner);
    return row.hand_romme ? `${who} went out in one go — Hand-Rommé!` : `${who} went out`;
  },
  detail(row, names) {
    const bits = [row.multiplier > 1 ? `Hand-Rommé: every penalty counts ×${row.multiplier}.`
      : "The others pay the cards left in their hands."];
    const never = (row.came_out || []).map((out, s) => (out || s === row.winner ? null : names.seat(s))).filter(Boolean);
    if (never.length && isSeat(row.winner)) bits.push(`Never came out: ${never.join(", ")}.`);
    const gone = row.eliminated || [];
    if (gone.length) bits.push(`Out of the match: ${gone.map(names.seat).join(", ")}.`);
    return bits.join(" ");
  },
  summary: (row) => [
    { label: "In hand", value: (s) => num(at(row.values, s)) },
    { label: "Penalty", cls: "points-row", value: (s) => signed(at(row.points, s)) },
  ],
  points: (row, s) => at(row.points, s) ?? "",
  mark: (row, s) => (row.hand_romme && row.winner === s ? "HR" : ""),
};

export const GAMES = { rummy: RUMMY, rummy500: RUMMY500, romme: ROMME };
