// Spades' scores: the scoreboard (each side's score, bags, bid versus tricks
// this hand), the peek at the last trick, the scorecard (one row per hand),
// the itemised summary of a finished hand and the winner at the end.
// Everything shown is read from the view; nothing is scored here.
//
// `names` is {seat(s), side(side, short), plural(name)} from the board.

import { h } from "../../dom.js";
import { face, nameOf, shortOf } from "./cards.js";

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${Math.abs(n)}` : "0");
const number = (n) => (n < 0 ? `−${Math.abs(n)}` : String(n));
const sideSeats = (view, side) => (view.sides && view.sides[side]) || [side];
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * How long the match is: "one-hand match" (express: one deal), "5 hands", or "game to 500".
 * With a number of deals the target does not end the match, so it is not mentioned.
 */
export function matchLength(view) {
  const deals = view.options?.deals || 0;
  if (deals === 1) return "one-hand match";
  if (deals > 1) return `${deals} hands`;
  return `game to ${view.target}`;
}

/** "Bid 4", "Nil", "Blind nil", or null before the seat has bid. */
export function bidText(bid, blind) {
  if (bid === null || bid === undefined) return null;
  if (blind) return "Blind nil";
  return bid === 0 ? "Nil" : `Bid ${bid}`;
}

/** "4", "Nil", "Blind nil" in a table. */
function bidNumber(bid, blind) {
  if (bid === null || bid === undefined) return "—";
  return blind ? "Blind nil" : bid === 0 ? "Nil" : String(bid);
}

export function miniCard(code, joker) {
  const svgFace = face(code, joker, { compact: true });
  svgFace.setAttribute("aria-hidden", "true");
  return h("span", { class: "card mini", dataset: { card: code }, role: "img", "aria-label": nameOf(code, joker) }, svgFace);
}

/** Each side's score, bags, and its contract against the tricks taken this hand. */
export function scoreboard(view, names, me) {
  const started = ["exchange", "play", "hand_over", "match_over"].includes(view.phase);
  const rows = (view.scores || []).map((score, side) => {
    const seats = sideSeats(view, side);
    const bids = seats.map((s) => view.bids?.[s]);
    const anyBid = bids.some((b) => b !== null && b !== undefined);
    const nils = seats.filter((s) => view.bids?.[s] === 0).length;
    const won = seats.reduce((sum, s) => sum + (view.tricks_won?.[s] || 0), 0);
    const contract = view.contracts?.[side] ?? 0;
    const bidPart = anyBid ? `Bid ${contract}${nils ? ` + ${nils > 1 ? "2 nils" : "nil"}` : ""}` : "Bid —";
    const mine = me !== null && me !== undefined && seats.includes(me);
    const name = names.side(side, false);
    const bags = view.bags?.[side] ?? 0;
    return h("li", {
      class: ["side-row", mine && "mine"], dataset: { side: String(side) },
      "aria-label": `${name}: ${score} points, ${plural(bags, "bag")}; ${bidPart}${started ? `, won ${won}` : ""}`,
    },
    h("span", { class: "side-name" }, name),
    h("span", { class: "side-score" }, number(score)),
    h("span", { class: "side-detail", "aria-hidden": "true" },
      h("span", { class: "side-bid" }, bidPart),
      started ? h("span", { class: ["side-won", anyBid && won >= contract && contract > 0 && "made"] }, `Won ${won}`) : null,
      h("span", { class: "side-bags" }, plural(bags, "bag"))));
  });
  const removed = view.removed || [];
  return h("section", { class: "scoreboard", id: "scoreboard", "aria-label": "Scores" },
    h("h2", { class: "side-title", id: "scoreboard-title" }, `Hand ${view.hand}`,
      h("span", { class: "hint" }, ` · ${matchLength(view)}`)),
    h("ul", { class: "side-rows" }, rows),
    removed.length ? h("p", { class: "removed", id: "removed-cards", "aria-label": `Out of the pack: ${removed.map((c) => nameOf(c)).join(", ")}` },
      "Out of the pack: ", removed.map((c) => shortOf(c)).join(" ")) : null);
}

/** The last completed trick: who played what, and who won it. */
export function lastTrickPanel(view, names) {
  const trick = view.last_trick;
  const plays = trick ? trick.plays.map((p) => h("li", {
    class: ["last-play", p.seat === trick.winner && "winner"],
    "aria-label": `${names.seat(p.seat)}: ${nameOf(p.card, p.joker)}${p.seat === trick.winner ? ", won the trick" : ""}`,
  }, miniCard(p.card, p.joker), h("span", { class: "who", "aria-hidden": "true" }, names.seat(p.seat)))) : [];
  return h("section", { class: "last-trick", id: "last-trick", "aria-label": "Last trick" },
    h("h3", null, "Last trick", trick ? h("span", { class: "hint" }, ` · ${names.seat(trick.winner)} took it`) : null),
    trick ? h("ol", { class: "last-plays" }, plays) : h("p", { class: "hint" }, "No trick played yet."));
}

/** One row per finished hand: each side's points, bid and tricks, and the running score. */
export function scorecard(view, names) {
  const sides = (view.scores || []).map((_, i) => i);
  const rows = (view.history || []).map((row) => h("tr", { dataset: { hand: String(row.hand) } },
    h("th", { scope: "row" }, String(row.hand)),
    sides.map((side) => {
      const s = row.sides?.[side] || {};
      const seats = s.seats || sideSeats(view, side);
      const bid = seats.map((seat) => (row.blind?.[seat] ? "BN" : row.bids?.[seat] === 0 ? "N" : row.bids?.[seat])).join("+");
      const won = seats.map((seat) => row.tricks?.[seat] ?? 0).join("+");
      return h("td", { class: (s.points ?? 0) < 0 ? "minus" : "plus" },
        h("span", { class: "pts" }, signed(s.points ?? 0)),
        h("span", { class: "running" }, number(s.score ?? row.scores?.[side] ?? 0)),
        h("span", { class: "sub" }, `bid ${bid} · won ${won}${s.bags ? ` · ${plural(s.bags, "bag")}` : ""}`));
    })));
  return h("section", { class: "scorecard spades-scorecard", id: "spades-scorecard", "aria-label": "Scorecard" },
    h("table", { class: "score-table", id: "spades-history" },
      h("caption", null, `Scorecard · ${matchLength(view)}`),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"),
        sides.map((side) => h("th", { scope: "col" }, names.side(side, true))))),
      h("tbody", null, rows.length ? rows
        : h("tr", null, h("td", { colspan: sides.length + 1, class: "hint" }, "No hands finished yet."))),
      h("tfoot", null,
        h("tr", null, h("th", { scope: "row" }, "Score"), sides.map((side) => h("td", { class: "total" }, number(view.scores?.[side] ?? 0)))),
        h("tr", null, h("th", { scope: "row" }, "Bags"), sides.map((side) => h("td", null, String(view.bags?.[side] ?? 0)))))));
}

function sideOutcome(row, side, names) {
  const s = row.sides[side];
  const parts = [];
  if (s.contract > 0) parts.push(s.contract_points >= 0 ? `made ${s.contract}` : `set on ${s.contract} (took ${s.contract_tricks})`);
  for (const seat of s.seats) {
    if (row.bids?.[seat] !== 0) continue;
    const what = row.blind?.[seat] ? "blind nil" : "nil";
    const who = s.seats.length > 1 ? `${names.seat(seat)}'s ` : "";
    parts.push(`${who}${what} ${row.tricks?.[seat] ? "failed" : "made"}`);
  }
  return `${names.side(side, false)}: ${parts.join(", ") || "no contract"} (${signed(s.points)})`;
}

/** The itemised score of a finished hand (view.last or a held copy). */
export function handSummary(row, view, names) {
  const sides = row.sides.map((_, i) => i);
  const seatList = (side, fn) => row.sides[side].seats.map(fn).join(" · ");
  const line = (label, cell, cls) => h("tr", { class: cls }, h("th", { scope: "row" }, label),
    sides.map((side) => h("td", null, cell(side))));
  const any = (key) => row.sides.some((s) => s[key]);
  const many = row.sides.some((s) => s.seats.length > 1);
  // Focusable: on a small screen the summary scrolls, and keyboard users must reach it.
  return h("section", { class: "hand-summary", id: "hand-summary", "aria-labelledby": "hand-summary-title", tabindex: "0" },
    h("h2", { id: "hand-summary-title" }, `Hand ${row.hand} is over`),
    h("ul", { class: "outcomes", id: "hand-outcome" }, sides.map((side) => h("li", {
      class: row.sides[side].points < 0 ? "lost" : "won" }, sideOutcome(row, side, names)))),
    h("table", { class: "score-table summary-table" },
      h("thead", null, h("tr", null, h("td", null, ""), sides.map((side) => h("th", { scope: "col" }, names.side(side, true))))),
      h("tbody", null,
        line("Bids", (side) => seatList(side, (seat) =>
          `${many ? `${names.seat(seat)} ` : ""}${bidNumber(row.bids?.[seat], row.blind?.[seat])}`)),
        line("Tricks", (side) => seatList(side, (seat) => `${many ? `${names.seat(seat)} ` : ""}${row.tricks?.[seat] ?? 0}`)),
        line("Contract", (side) => signed(row.sides[side].contract_points)),
        any("nil_points") ? line("Nil", (side) => signed(row.sides[side].nil_points)) : null,
        line("Bags", (side) => `${row.sides[side].bags}${row.sides[side].bag_points ? ` (${signed(row.sides[side].bag_points)})` : ""}`),
        any("penalty") ? line("Bag penalty", (side) => signed(row.sides[side].penalty), "penalty") : null),
      h("tfoot", null,
        line("This hand", (side) => signed(row.sides[side].points)),
        line("Score", (side) => number(row.sides[side].score ?? row.scores?.[side] ?? 0), "total"),
        line("Bags carried", (side) => String(row.sides[side].bags_after ?? row.bags?.[side] ?? 0)))));
}

/** The winner at the end of the match. */
export function finalPanel(view, names) {
  const r = view.result;
  const winner = names.side(r.winner, false);
  const verb = names.plural(winner) ? "win" : "wins";
  const scores = (r.scores || view.scores || []).map((score, side) =>
    h("li", { class: side === r.winner ? "winner" : null },
      h("span", { class: "side-name" }, names.side(side, false)), h("span", { class: "side-score" }, number(score))));
  return h("section", { class: "final spades-final", id: "final-result", "aria-labelledby": "final-title" },
    h("h2", { id: "final-title" }, `${winner} ${verb} the match!`),
    h("ol", { class: "final-scores" }, scores),
    h("p", { class: "hint", id: "final-length" }, finalLength(view, r.hands ?? view.hand)));
}

function finalLength(view, hands) {
  const deals = view.options?.deals || 0;
  if (deals === 1) return "A one-hand match.";
  if (deals > 1) return `After ${plural(hands, "hand")} of ${deals}.`;
  return `After ${plural(hands, "hand")}, game to ${view.target}.`;
}
