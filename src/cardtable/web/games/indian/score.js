// Indian Rummy's end-of-deal and end-of-match panels: the deal result (every
// hand arranged in its groups with its points and finish card, the winner),
// the scorecard per format (points: net; pool: running totals toward the
// target and who is out; deals: totals) and the final result. Everything
// shown comes from the view (view.last, view.history, view.result).

import { h } from "../../dom.js";
import { isSeat } from "../board.js";
import { INDIAN_DECK, shortOf } from "../rummyfamily/cards.js";
import { headName } from "../tablemelds/score.js";
import { KIND_LABEL } from "./groups.js";
import { STATUS_TEXT } from "./table.js";

const { miniCard, nameOf } = INDIAN_DECK;
const verb = (name, you, other) => (name === "You" ? you : other);

/** "You win", "Ann wins", "Ann and Bob share". */
export function winnersText(winners, names) {
  const list = (winners || []).map(names.seat);
  if (!list.length) return "Nobody wins";
  if (list.length === 1) return `${list[0]} ${verb(list[0], "win", "wins")}`;
  return `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]} share`;
}

function headline(last, names) {
  if (!isSeat(last.winner)) return `Deal ${last.deal}: nobody wins it`;
  const who = names.seat(last.winner);
  if (last.shown) return `Deal ${last.deal}: ${who} ${verb(who, "win", "wins")} with a valid show`;
  return `Deal ${last.deal}: ${who} ${verb(who, "win", "wins")} — everyone else left the deal`;
}

function outcome(last, view, names) {
  const bits = [];
  const kind = view.format?.kind;
  if (isSeat(last.winner)) {
    const who = names.seat(last.winner);
    if (kind === "points") bits.push(`${who} ${verb(who, "collect", "collects")} ${last.collected} points.`);
    else bits.push(`${who} ${verb(who, "score", "scores")} 0.`);
  }
  if (last.half_rate) bits.push("A show on the first draw: the others pay half.");
  const out = last.eliminated || [];
  if (out.length) bits.push(`Out of the pool: ${out.map(names.seat).join(", ")}.`);
  return bits.join(" ");
}

function groupEl(group) {
  const label = KIND_LABEL[group.kind] || "Group";
  return h("div", {
    class: ["card-group", "in-result-group", `kind-${group.kind}`], role: "group",
    "aria-label": `${label}: ${group.cards.map(nameOf).join(", ")}`,
  },
  h("span", { class: "in-group-label", "aria-hidden": "true" }, label),
  h("span", { class: "group-cards" }, group.cards.map((c) => miniCard(c))));
}

function handRow(last, seat, names) {
  const hand = last.hands?.[seat];
  const name = names.seat(seat);
  const status = last.status?.[seat] || "playing";
  const points = last.points?.[seat];
  const won = last.winner === seat;
  if (!hand) {
    return h("li", { class: "in-result-hand not-dealt", dataset: { seat: String(seat) } },
      h("span", { class: "in-result-name" }, name), h("span", { class: "hint" }, "not dealt in"));
  }
  const statusText = won ? (last.shown ? "valid show" : "last one left") : status === "playing" ? "lost" : STATUS_TEXT[status] || status;
  return h("li", {
    class: ["in-result-hand", won && "winner", `status-${status}`], dataset: { seat: String(seat), points: String(points ?? "") },
  },
  h("div", { class: "in-result-head" },
    h("span", { class: "in-result-name" }, name),
    h("span", { class: "in-result-status" }, statusText),
    h("span", { class: "in-result-points", "aria-label": `${points ?? 0} points` }, won ? "0" : String(points ?? 0)),
    hand.lives || won || status !== "playing" ? null : h("span", { class: "hint" }, "no life: every card counts")),
  h("div", { class: "in-result-cards" },
    (hand.groups || []).map(groupEl),
    (hand.loose || []).length ? h("div", {
      class: "card-group in-result-group kind-loose", role: "group", "aria-label": `Loose: ${hand.loose.map(nameOf).join(", ")}`,
    }, h("span", { class: "in-group-label", "aria-hidden": "true" }, "Loose"),
    h("span", { class: "group-cards" }, hand.loose.map((c) => miniCard(c)))) : null,
    hand.finish ? h("div", { class: "card-group in-result-group in-finish", role: "group", "aria-label": `Finish card: ${nameOf(hand.finish)}` },
      h("span", { class: "in-group-label", "aria-hidden": "true" }, "Finish"), miniCard(hand.finish)) : null));
}

/** The deal just finished: every hand, arranged, with its points. */
export function dealResult(last, view, names, order) {
  const seats = order.filter((s) => s < (last.hands?.length ?? 0));
  return h("section", { class: "in-result", id: "deal-result", "aria-labelledby": "deal-result-title" },
    h("h2", { id: "deal-result-title" }, headline(last, names)),
    h("p", { class: "outcome", id: "deal-result-outcome" }, outcome(last, view, names)),
    last.wild ? h("p", { class: "hint in-result-wild" }, `Wild joker card: ${shortOf(last.wild)}`) : null,
    h("ol", { class: "in-result-hands", id: "deal-result-hands" }, seats.map((s) => handRow(last, s, names))));
}

/** The match's end: the winners and everyone's score. */
export function finalPanel(view, names, order) {
  const r = view.result;
  const kind = view.format?.kind;
  const scores = kind === "points" ? r.scores : r.totals;
  const word = kind === "points" ? "net" : "total";
  return h("section", { class: "in-final", id: "final-result", "aria-labelledby": "final-title" },
    h("h2", { id: "final-title" }, `${winnersText(r.winners, names)} the match!`),
    h("ul", { class: "final-scores" }, order.map((s) => h("li", {
      class: (r.winners || []).includes(s) ? "winner" : null, dataset: { seat: String(s) },
    }, h("span", null, names.seat(s)), h("span", null, `${scores?.[s] ?? 0} ${word}`)))),
    kind === "points" ? h("p", { class: "hint" }, "Points rummy: the winner collects the others' points.")
      : h("p", { class: "hint" }, kind === "pool" ? `Pool ${view.format.target}: the last player under ${view.format.target} wins.`
        : "Deals: the lowest total wins."));
}

function cell(row, seat, kind) {
  const points = row.points?.[seat];
  const status = row.status?.[seat];
  if (points === null || points === undefined) return h("td", { class: "hint" }, status === "out" ? "out" : "—");
  const won = row.winner === seat;
  const mark = won ? "★" : status === "dropped" ? "D" : status === "wrong_show" ? "WS" : "";
  const value = kind === "points" ? (won ? `+${row.collected}` : `−${points}`) : String(points);
  const title = won ? "won the deal" : status === "dropped" ? "dropped" : status === "wrong_show" ? "wrong show" : null;
  return h("td", { class: [won ? "won" : points > 0 && "minus"], title },
    h("span", { class: "pts" }, value), mark ? h("span", { class: "mark" }, ` ${mark}`) : null,
    kind === "points" ? null : h("span", { class: "running" }, String(row.scores?.[seat] ?? "")));
}

/** The scorecard: one row per deal, then the totals. */
export function scorecard(view, names, order) {
  const fmt = view.format || {};
  const kind = fmt.kind || "points";
  const caption = kind === "pool" ? `Pool ${fmt.target}: out at ${fmt.target}`
    : kind === "deals" ? `Deals: ${fmt.deals_played || 0} of ${fmt.deals} played` : "Points rummy: net points";
  const rows = (view.history || []).map((row) => h("tr", { dataset: { deal: String(row.deal) } },
    h("th", { scope: "row" }, String(row.deal)), order.map((s) => cell(row, s, kind))));
  const eliminated = fmt.eliminated || [];
  return h("section", { class: "scorecard in-scorecard", id: "scorecard", "aria-label": "Scorecard" },
    h("table", { class: "score-table", id: "score-history" },
      h("caption", null, caption),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Deal"),
        order.map((s) => headName(names.seat(s), order.length > 2)))),
      h("tbody", null, rows.length ? rows
        : h("tr", null, h("td", { colspan: order.length + 1, class: "hint" }, "No deal finished yet."))),
      h("tfoot", null, h("tr", null, h("th", { scope: "row" }, kind === "points" ? "Net" : "Total"),
        order.map((s) => h("td", { class: ["total", eliminated[s] && "eliminated"], dataset: { seat: String(s) } },
          String(view.scores?.[s] ?? 0), eliminated[s] ? h("span", { class: "mark" }, " out") : null))))),
    h("p", { class: "hint in-score-key" }, "★ won the deal · D dropped · WS wrong show"));
}
