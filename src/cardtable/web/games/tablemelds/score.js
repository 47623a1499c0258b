// The end of a hand and of the match, and the scorecard, for the table-meld
// games. The numbers all come from the view (`last`, `history`, `result`);
// a game's module says how to read its scorecard row (Rummy: penalties or the
// winner's take; Rummy 500: melded minus in hand; Rommé: penalties, doubled
// after a Hand-Rommé) through a small descriptor, see GAMES in games.js.

import { h } from "../../dom.js";
import { isSeat } from "../board.js";
import { MELD_DECK } from "../rummyfamily/cards.js";

const { miniCard } = MELD_DECK;
export const signed = (n) => (typeof n === "number" ? (n > 0 ? `+${n}` : String(n)) : "");
const num = (n) => (typeof n === "number" ? String(n) : "");

/** "You win", "Ann wins", "Ann and Bob win". */
export function winnersText(seats, names) {
  const list = (seats || []).map(names.seat);
  if (!list.length) return "Nobody wins";
  const text = list.length === 1 ? list[0] : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
  return `${text} ${list.length === 1 && list[0] !== "You" ? "wins" : "win"}`;
}

/** The finished hand: who went out, everyone's cards left, the points and totals. */
export function handSummary(row, view, names, game, order) {
  const lines = game.summary(row, view);
  const left = row.left || [];
  const title = `Hand ${row.hand}: ${game.headline(row, names)}`;
  // Focusable: on a small screen the summary scrolls, and keyboard users must reach it.
  return h("section", { class: "hand-summary rm-summary", id: "hand-summary", "aria-labelledby": "hand-summary-title", tabindex: "0" },
    h("h2", { id: "hand-summary-title" }, title),
    game.detail ? h("p", { class: "outcome", id: "hand-outcome" }, game.detail(row, names)) : null,
    h("table", { class: "score-table summary-table", id: "summary-table" },
      h("thead", null, h("tr", null, h("td", null, ""),
        order.map((s) => h("th", { scope: "col", class: row.winner === s ? "won" : null }, names.seat(s))))),
      h("tbody", null,
        h("tr", { class: "left-row" }, h("th", { scope: "row" }, "Cards left"),
          order.map((s) => h("td", { class: "left-cards", dataset: { seat: String(s) } },
            (left[s] || []).length ? h("span", { class: "group-cards" }, left[s].map((c) => miniCard(c)))
              : h("span", { class: "hint" }, row.winner === s ? "out" : "none")))),
        lines.map((line) => h("tr", { class: line.cls || null }, h("th", { scope: "row" }, line.label),
          order.map((s) => h("td", null, line.value(s)))))),
      h("tfoot", null, h("tr", { class: "total" }, h("th", { scope: "row" }, "Total"),
        order.map((s) => h("td", null, num(row.totals?.[s])))))));
}

/** The match's end: the winners and the final totals, best first. */
export function finalPanel(view, names, game) {
  const r = view.result;
  const totals = r.totals || view.scores || [];
  const seats = totals.map((_, s) => s);
  const low = game.lowWins(view);
  seats.sort((a, b) => (low ? totals[a] - totals[b] : totals[b] - totals[a]));
  const winners = new Set(r.winners || []);
  return h("section", { class: "rm-final", id: "final-result", "aria-labelledby": "final-title" },
    h("h2", { id: "final-title" }, `${winnersText(r.winners, names)} the match!`),
    h("ol", { class: "final-scores" }, seats.map((s) => h("li", { class: winners.has(s) ? "winner" : null },
      h("span", null, names.seat(s)), h("strong", null, String(totals[s]))))),
    h("p", { class: "hint" }, low ? "The lowest total wins." : "The highest total wins."));
}

/** One row per finished hand, each seat's points for it and the running total. */
export function scorecard(view, names, game, order) {
  const rows = (view.history || []).map((row) => h("tr", { dataset: { hand: String(row.hand) } },
    h("td", null, String(row.hand)),
    order.map((s) => {
      const pts = game.points(row, s);
      return h("td", { class: [row.winner === s && "won", typeof pts === "number" && pts < 0 && "minus"] },
        h("span", { class: "pts" }, pts === "" ? "–" : signed(pts)),
        game.mark?.(row, s) ? h("span", { class: "mark" }, ` ${game.mark(row, s)}`) : null,
        h("span", { class: "running" }, num(row.totals?.[s])));
    })));
  return h("section", { class: "scorecard rm-scorecard", id: "scorecard", "aria-label": "Scorecard" },
    h("table", { class: "score-table", id: "score-history" },
      h("caption", null, "Scorecard", h("span", { class: "hint" }, ` · ${game.caption(view)}`)),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), order.map((s) => headName(names.seat(s), order.length > 2)))),
      h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: order.length + 1, class: "hint" }, "No hands finished yet."))),
      h("tfoot", null, h("tr", null, h("th", { scope: "row" }, "Total"),
        order.map((s) => h("td", { class: "total" }, String(view.scores?.[s] ?? 0)))))));
}

/** A column head; with many players "Computer 2" is shown as "C2" (the full name is read out). */
export function headName(name, short) {
  const m = /^(.+?)\s+(\d+)$/.exec(name);
  if (!short || !m) return h("th", { scope: "col", title: name }, name);
  return h("th", { scope: "col", title: name },
    h("span", { "aria-hidden": "true" }, `${m[1].charAt(0)}${m[2]}`), h("span", { class: "visually-hidden" }, name));
}

/** Who went out, or why nobody did. */
export function outText(row, names) {
  if (isSeat(row.winner)) {
    const who = names.seat(row.winner);
    return `${who} went out${row.rummy ? " in one turn" : ""}`;
  }
  return "Nobody went out";
}
