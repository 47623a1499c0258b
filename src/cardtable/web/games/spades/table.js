// The Spades table around your hand: who sits where (you at the bottom, seats
// going clockwise so the next seat is on your left), the other seats with
// their bids, tricks won and cards, and the trick in the middle with who
// played what (the last one stays up, its winner marked, until the next lead).
// Only what the view says.

import { h, replace } from "../../dom.js";
import { isSeat } from "../board.js";
import { cardBack, face, nameOf } from "./cards.js";
import { bidText } from "./score.js";

const LAYOUT = { 4: ["bottom", "left", "top", "right"], 3: ["bottom", "left", "right"], 2: ["bottom", "top"] };
export const COMPASS = { bottom: "South", left: "West", top: "North", right: "East" };
const OVER = new Set(["hand_over", "match_over"]);
export const PLAYING = new Set(["exchange", "play", "hand_over", "match_over"]);

/** Where `seat` sits on screen when `bottom` is at the bottom of a table of `players`. */
export function position(seat, bottom, players) {
  return (LAYOUT[players] || LAYOUT[4])[(((seat - bottom) % players) + players) % players];
}

/** "Bid 3" / "Nil" / "Bidding…" / null, and "Won 2" once the play is on. */
export function seatStats(view, seat) {
  const bid = bidText(view.bids?.[seat], view.blind?.[seat]);
  const bidding = (view.phase === "bid" || view.phase === "blind_nil") && view.to_act === seat;
  const won = view.tricks_won?.[seat] ?? 0;
  return {
    bid: bid || (bidding ? "Bidding…" : null),
    won: PLAYING.has(view.phase) ? won : null,
    nil: view.bids?.[seat] === 0,
    nilBroken: view.bids?.[seat] === 0 && won > 0,
  };
}

export function statChips(view, seat) {
  const st = seatStats(view, seat);
  return [
    h("span", { class: ["chip", "bid-chip", st.nil && "nil", !st.bid && "empty", st.bid === "Bidding…" && "thinking"] },
      st.bid || "No bid"),
    st.won === null ? null : h("span", { class: ["chip", "won-chip", st.nilBroken && "broken"] }, `Won ${st.won}`),
  ];
}

/**
 * The other seats in their zones (a spectator sees the bottom seat too); unused zones hidden.
 * table: {positionOf(seat), seatName(seat), seatInfo(seat)}
 */
export function drawSeats(zones, view, watching, table) {
  const used = new Set();
  for (let seat = 0; seat < view.players; seat += 1) {
    const pos = table.positionOf(seat);
    if (pos === "bottom" && !watching) continue; // your own seat is your hand
    used.add(pos);
    seatZone(zones[pos], view, seat, pos, table);
  }
  for (const [pos, zone] of Object.entries(zones)) {
    zone.hidden = !used.has(pos);
    if (!used.has(pos)) zone.replaceChildren();
  }
}

function seatZone(zone, view, seat, pos, table) {
  const info = table.seatInfo(seat);
  const name = table.seatName(seat);
  const count = view.hands?.[seat]?.count ?? 0;
  const toAct = view.to_act === seat && !OVER.has(view.phase);
  const partner = isSeat(view.seat) && seat === view.partner;
  const free = info && info.kind === "human" && !info.taken;
  const away = info && info.kind === "human" && info.taken && !info.connected;
  const st = seatStats(view, seat);
  zone.className = ["seat-zone", `pos-${pos}`, toAct && "to-act", partner && "partner", free && "free", away && "away"]
    .filter(Boolean).join(" ");
  zone.dataset.seat = String(seat);
  zone.setAttribute("aria-label", [
    `${name}${info?.kind === "bot" ? ", computer" : ""}${partner ? ", partner" : ""}`,
    free ? "waiting for a friend to sit down" : null, away ? "disconnected" : null,
    st.bid || "no bid yet", st.won === null ? null : `${st.won} trick${st.won === 1 ? "" : "s"} won`,
    `${count} card${count === 1 ? "" : "s"}`, view.dealer === seat ? "dealer" : null, toAct ? "to play" : null,
  ].filter(Boolean).join(", "));
  const backs = Array.from({ length: Math.min(count, 17) }, () => h("span", { class: "card small back-card" }, cardBack("")));
  replace(zone,
    h("div", { class: "seat-head" },
      h("span", { class: "seat-title" }, name),
      info?.kind === "bot" ? h("span", { class: "bot-tag", "aria-hidden": "true" }, "bot") : null,
      partner ? h("span", { class: "role-tag", "aria-hidden": "true" }, "partner") : null,
      view.dealer === seat ? h("span", { class: "dealer-chip", title: "Dealer", "aria-hidden": "true" }, "D") : null),
    h("div", { class: "seat-stats", "aria-hidden": "true" }, ...statChips(view, seat),
      h("span", { class: "chip count-chip" }, `${count}`, h("span", { class: "count-word" }, " cards"))),
    free ? h("p", { class: "seat-note" }, "Invited — not seated yet") : null,
    away ? h("p", { class: "seat-note" }, "Disconnected") : null,
    h("div", { class: "seat-cards", "aria-hidden": "true" }, backs));
}

/** The trick being played, or the last one (its winner marked) until the next card is led. */
export function drawTrick(area, caption, view, table) {
  let plays = view.trick || [];
  let winner = null;
  const finished = !plays.length && view.last_trick && (view.tricks?.length ?? 0) > 0;
  if (finished) {
    plays = view.last_trick.plays;
    winner = view.last_trick.winner;
  }
  const number = (view.tricks?.length ?? 0) + (finished ? 0 : 1);
  area.dataset.state = finished ? "done" : "live";
  area.dataset.plays = String(plays.length);
  replace(area, plays.map((p, i) => {
    const who = table.seatName(p.seat);
    const cardFace = face(p.card, p.joker);
    cardFace.setAttribute("aria-hidden", "true");
    return h("div", {
      class: ["trick-slot", `pos-${table.positionOf(p.seat)}`, p.seat === winner && "winner", i === 0 && "lead"],
      dataset: { trickSeat: String(p.seat) }, role: "img",
      "aria-label": `${who}: ${nameOf(p.card, p.joker)}${i === 0 ? ", led" : ""}${p.seat === winner ? ", won the trick" : ""}`,
    }, h("span", { class: "card mid", dataset: { card: p.card } }, cardFace),
    h("span", { class: "trick-name", "aria-hidden": "true" }, who));
  }));
  let text;
  if (finished) text = `${table.seatName(winner)} ${winner === view.seat ? "win" : "wins"} trick ${number}`;
  else if (!plays.length) text = `Trick ${number} of ${view.hand_size}: ${table.seatName(view.to_act)} ${view.to_act === view.seat ? "lead" : "leads"}`;
  else text = `Trick ${number} of ${view.hand_size}`;
  replace(caption, text,
    view.spades_broken ? h("span", { class: "chip broken-chip", title: "Spades may be led" }, "♠ broken") : null);
}
