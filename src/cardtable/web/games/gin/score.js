// Gin's end-of-hand and end-of-match panels: the showdown (both spreads,
// lay-offs highlighted, points), the scorecard (history rows, totals, boxes)
// and the final settlement. Everything shown comes from the view.

import { cardFace, cardName, rankIndex } from "../../cards.js";
import { h } from "../../dom.js";

/** The engine writes melds as "4h 5h 6h" in showdown rows and as lists elsewhere. */
export const cardList = (x) => (Array.isArray(x) ? x : String(x || "").split(/\s+/).filter(Boolean));

/**
 * How long the match is: an express match is one hand (options.deals = 1), a fixed
 * number of deals, or a game to the target score.
 */
export function matchLength(view) {
  const deals = view.options?.deals;
  if (deals === 1) return "One hand";
  if (deals > 1) return `${deals} hands`;
  return `Game to ${view.target}`;
}

const KIND_TEXT = { knock: "Knock", undercut: "Undercut", gin: "Gin", big_gin: "Big gin", void: "Void" };

export function miniCard(card, extra) {
  const face = cardFace(card, { compact: true });
  return h("span", { class: ["card", "mini", extra], dataset: { card }, role: "img", "aria-label": cardName(card) },
    face);
}

function spread(title, side, seat, layoffs, layoffName) {
  if (!side) return null;
  const melds = (side.melds || []).map(cardList);
  const groups = melds.map((meld, i) => {
    const added = layoffs.filter((l) => l.meld === i).flatMap((l) => cardList(l.card));
    return h("div", { class: "card-group group-meld", role: "group", "aria-label": `Meld: ${[...meld, ...added].map(cardName).join(", ")}` +
      (added.length ? `; laid off by ${layoffName}: ${added.map(cardName).join(", ")}` : "") },
    // Laid-off cards are shown where they fit: a run is shown in rank order.
    [...meld, ...added].sort((x, y) => rankIndex(x) - rankIndex(y))
      .map((c) => miniCard(c, added.includes(c) ? "layoff" : null)));
  });
  const deadwood = cardList(side.deadwood);
  if (deadwood.length) {
    groups.push(h("div", { class: "card-group group-deadwood", role: "group", "aria-label": `Deadwood: ${deadwood.map(cardName).join(", ")}` },
      deadwood.map((c) => miniCard(c))));
  }
  return h("div", { class: "spread", dataset: { meldsSeat: String(seat) } },
    h("h3", null, title, h("span", { class: "spread-points" }, `deadwood ${side.points}`)),
    h("div", { class: "spread-cards" }, groups));
}

/** "You knocked", "Computer went gin", ... */
function headline(last, name) {
  const k = last.knocker_seat;
  const d = k === undefined || k === null ? null : 1 - k;
  const verb = (seatName, you, other) => `${seatName} ${seatName === "You" ? you : other}`;
  switch (last.kind) {
    case "gin": return `${verb(name(k), "went gin!", "went gin")}`;
    case "big_gin": return `${verb(name(k), "went big gin!", "went big gin")}`;
    case "undercut": return `${verb(name(d), "undercut the knock!", "undercut the knock")}`;
    case "void": return "Void hand: the stock ran out";
    default: return `${verb(name(k), "knocked", "knocked")}`;
  }
}

function outcome(last, name) {
  if (last.kind === "void") return "No score. The same dealer deals again.";
  if (last.winner === null || last.winner === undefined) return "A tie: nobody scores.";
  const who = name(last.winner);
  const pts = `${last.points} point${last.points === 1 ? "" : "s"}`;
  const doubled = last.multiplier > 1 ? ` (×${last.multiplier}: spade hand)` : "";
  return `${who} ${who === "You" ? "score" : "scores"} ${pts}${doubled}.`;
}

/** The showdown of view.last (shown until the next deal). */
export function showdownPanel(view, ctx) {
  const last = view.last;
  const name = ctx.seatName;
  const k = last.knocker_seat;
  const panel = h("section", { class: "showdown", id: "showdown", "aria-labelledby": "showdown-title" },
    h("h2", { id: "showdown-title" }, `Hand ${last.hand}: ${headline(last, name)}`),
    h("p", { class: "outcome", id: "showdown-outcome" }, outcome(last, name)));
  if (last.kind !== "void" && k !== undefined && k !== null) {
    const layoffs = last.layoffs || [];
    const knockWord = { gin: "gin", big_gin: "big gin" }[last.kind] || "knocked";
    panel.append(
      spread(`${name(k)} · ${knockWord}`, last.knocker, k, layoffs, name(1 - k)),
      spread(`${name(1 - k)}${layoffs.length ? " · laid off the marked cards" : ""}`, last.defender, 1 - k, [], ""));
  }
  if (!view.result) return panel;
  // At the match's end the settlement comes first, the last hand's showdown after it.
  panel.classList.add("in-final");
  return h("div", { class: "showdown-final" }, finalPanel(view, ctx), panel);
}

/** The scorecard: one row per finished hand, then totals and boxes. */
export function scorecard(view, ctx) {
  const seats = [0, 1];
  const rows = (view.history || []).map((row) => h("tr", null,
    h("td", null, String(row.hand)),
    h("td", null, KIND_TEXT[row.kind] || row.kind),
    seats.map((s) => h("td", { class: row.winner === s ? "won" : null },
      row.winner === s ? `+${row.points}` : "",
      row.winner === s && row.boxes ? h("span", { class: "box", title: `${row.boxes} box${row.boxes > 1 ? "es" : ""} (hands won)` }, " ▪".repeat(row.boxes)) : null))));
  const table = h("table", { class: "score-table", id: "score-history" },
    h("caption", null, `Scorecard · ${matchLength(view).toLowerCase()}`),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Hand"),
      seats.map((s) => h("th", { scope: "col" }, ctx.seatName(s))))),
    h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: 4, class: "hint" }, "No hands finished yet."))),
    h("tfoot", null,
      h("tr", null, h("th", { scope: "row", colspan: 2 }, "Score"), seats.map((s) => h("td", { class: "total" }, String(view.scores?.[s] ?? 0)))),
      h("tr", null, h("th", { scope: "row", colspan: 2 }, "Hands won"), seats.map((s) => h("td", null, String(view.boxes?.[s] ?? 0))))));
  return h("section", { class: "scorecard", id: "scorecard", "aria-label": "Scorecard" },
    table); // the settlement itself is shown with the last showdown
}

/** What the shutout rule doubles, in words. */
const SHUTOUT_TEXT = {
  double_hand_points: "hand points doubled", double_game_bonus: "game bonus doubled", double_total: "total doubled",
};

/**
 * The settlement's rows, each seat's points in each, so that the rows add up to the
 * engine's totals: the game bonus at its option's value and whatever a shutout doubled
 * as a row of its own (the engine folds the doubling into the bonus or the total).
 * [{key, label, values: [seat 0, seat 1] (null: nothing shown)}], the total last.
 */
export function settlementRows(view) {
  const r = view.result;
  const o = view.options || {};
  const w = r.winner;
  const won = w === 0 || w === 1;
  const base = won ? Math.min(r.game_bonus ?? 0, o.game_bonus ?? r.game_bonus ?? 0) : 0;
  const per = (f) => [0, 1].map(f);
  const points = per((s) => r.points?.[s] ?? 0);
  const boxes = per((s) => r.box_points?.[s] ?? 0);
  const bonus = per((s) => (s === w ? base : 0));
  const totals = per((s) => r.totals?.[s] ?? 0);
  const extra = per((s) => totals[s] - points[s] - bonus[s] - boxes[s]);
  const rows = [
    { key: "points", label: "Hand points", values: points },
    { key: "bonus", label: "Game bonus", values: per((s) => (s === w ? base : null)) },
    { key: "boxes", label: `Hands won${o.box_bonus ? ` × ${o.box_bonus}` : ""}`, values: boxes,
      notes: per((s) => (r.boxes?.[s] ? `(${r.boxes[s]})` : "")) },
  ];
  if (extra.some(Boolean)) {
    const how = SHUTOUT_TEXT[o.shutout];
    rows.push({ key: "shutout", label: `Shutout${how ? ` (${how})` : ""}`, values: per((s) => (extra[s] || s === w ? extra[s] : null)) });
  }
  rows.push({ key: "total", label: "Total", values: totals });
  return rows;
}

/** The match's settlement: hand points, game bonus, boxes, shutout; they add up to the total. */
export function finalPanel(view, ctx, id = "final-result") {
  const r = view.result;
  const seats = [0, 1];
  const winner = ctx.seatName(r.winner);
  const rows = settlementRows(view);
  const cell = (row, s) => {
    const v = row.values[s];
    if (v === null || v === undefined) return h("td", { dataset: { seat: String(s) } });
    const shown = row.key === "total" || row.key === "points" || !v ? String(v) : `+${v}`;
    return h("td", { dataset: { seat: String(s), points: String(v) } },
      shown, row.notes?.[s] ? h("span", { class: "note" }, ` ${row.notes[s]}`) : null);
  };
  const line = (row) => h("tr", { dataset: { row: row.key } },
    h("th", { scope: "row" }, row.label), seats.map((s) => cell(row, s)));
  const body = rows.slice(0, -1);
  const total = rows[rows.length - 1];
  return h("div", { class: "final", id },
    h("h3", null, r.winner === null || r.winner === undefined ? "The match is drawn"
      : winner === "You" ? `You win the match by ${r.margin}!` : `${winner} wins the match by ${r.margin}`),
    h("table", { class: "score-table settlement" },
      h("thead", null, h("tr", null, h("th", null, ""), seats.map((s) => h("th", { scope: "col" }, ctx.seatName(s))))),
      h("tbody", null, body.map(line)),
      h("tfoot", null, line(total))));
}
