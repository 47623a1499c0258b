// Gin's end-of-hand and end-of-match panels: the showdown (both spreads,
// lay-offs highlighted, points), the scorecard (history rows, totals, boxes)
// and the final settlement. Everything shown comes from the view.

import { cardFace, cardName, rankIndex } from "../cards.js";
import { h } from "../dom.js";

/** The engine writes melds as "4h 5h 6h" in showdown rows and as lists elsewhere. */
export const cardList = (x) => (Array.isArray(x) ? x : String(x || "").split(/\s+/).filter(Boolean));

const KIND_TEXT = { knock: "Knock", undercut: "Undercut", gin: "Gin", big_gin: "Big gin", void: "Void" };

export function miniCard(card, extra) {
  const face = cardFace(card, { compact: true });
  return h("span", { class: ["card", "mini", extra], dataset: { card }, role: "img", "aria-label": cardName(card) },
    face);
}

function spread(title, side, layoffs, layoffName) {
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
  return h("div", { class: "spread" },
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
      spread(`${name(k)} · ${knockWord}`, last.knocker, layoffs, name(1 - k)),
      spread(`${name(1 - k)}${layoffs.length ? " · laid off the marked cards" : ""}`, last.defender, [], ""));
  }
  if (!view.result) return panel;
  // At the match's end the settlement sits beside the last showdown.
  panel.classList.add("in-final");
  return h("div", { class: "showdown-final" }, panel, finalPanel(view, ctx));
}

/** The scorecard: one row per finished hand, then totals and boxes. */
export function scorecard(view, ctx) {
  const seats = [0, 1];
  const rows = (view.history || []).map((row) => h("tr", null,
    h("td", null, String(row.hand)),
    h("td", null, KIND_TEXT[row.kind] || row.kind),
    seats.map((s) => h("td", { class: row.winner === s ? "won" : null },
      row.winner === s ? `+${row.points}` : "",
      row.winner === s && row.boxes ? h("span", { class: "box", title: `${row.boxes} box${row.boxes > 1 ? "es" : ""}` }, " ▪".repeat(row.boxes)) : null))));
  const table = h("table", { class: "score-table", id: "score-history" },
    h("caption", null, view.options?.deals ? `Scorecard · ${view.options.deals === 1 ? "one deal" : `${view.options.deals} deals`}`
      : `Scorecard · game to ${view.target}`),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Hand"),
      seats.map((s) => h("th", { scope: "col" }, ctx.seatName(s))))),
    h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: 4, class: "hint" }, "No hands finished yet."))),
    h("tfoot", null,
      h("tr", null, h("th", { scope: "row", colspan: 2 }, "Score"), seats.map((s) => h("td", { class: "total" }, String(view.scores?.[s] ?? 0)))),
      h("tr", null, h("th", { scope: "row", colspan: 2 }, "Boxes"), seats.map((s) => h("td", null, String(view.boxes?.[s] ?? 0))))));
  return h("section", { class: "scorecard", id: "scorecard", "aria-label": "Scorecard" },
    table); // the settlement itself is shown with the last showdown
}

/** The match's settlement: game bonus, boxes, shutout, totals, margin. */
export function finalPanel(view, ctx, id = "final-result") {
  const r = view.result;
  const seats = [0, 1];
  const winner = ctx.seatName(r.winner);
  const line = (label, values) => h("tr", null, h("th", { scope: "row" }, label), seats.map((s) => h("td", null, values(s))));
  const boxBonus = view.options?.box_bonus;
  return h("div", { class: "final", id },
    h("h3", null, r.winner === null || r.winner === undefined ? "The match is drawn"
      : winner === "You" ? `You win the match by ${r.margin}!` : `${winner} wins the match by ${r.margin}`),
    h("table", { class: "score-table" },
      h("thead", null, h("tr", null, h("th", null, ""), seats.map((s) => h("th", { scope: "col" }, ctx.seatName(s))))),
      h("tbody", null,
        line("Hand points", (s) => String(r.points?.[s] ?? "")),
        line("Game bonus", (s) => (s === r.winner ? String(r.game_bonus) : "")),
        line(`Boxes${boxBonus ? ` (× ${boxBonus})` : ""}`, (s) => `${r.boxes?.[s] ?? 0} = ${r.box_points?.[s] ?? 0}`),
        r.shutout ? line("Shutout", (s) => (s === r.winner ? "yes" : "")) : null),
      h("tfoot", null, line("Total", (s) => String(r.totals?.[s] ?? "")))));
}
