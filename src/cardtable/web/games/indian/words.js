// The words of the Indian Rummy board: the status line, the questions asked
// before a drop or a show (a wrong show is named as such, with its cost), and
// the declare chooser, which lists the finish cards of the legal declares,
// those giving a valid show (view.me.finish_cards) first.

import { h } from "../../dom.js";
import { findLegal, isSeat } from "../board.js";
import { INDIAN_DECK, shortOf } from "../rummyfamily/cards.js";
import { winnersText } from "./score.js";

const { miniCard, nameOf } = INDIAN_DECK;

/**
 * The status line for the match's end, the deal's end, your own standing in the deal and
 * your turn; null while waiting for someone else (the frame says for whom).
 */
export function statusLine(v, myTurn, names) {
  if (v.phase === "match_over") return v.result ? `${winnersText(v.result.winners, names)} the match!` : "The match is over.";
  const mine = isSeat(v.seat) ? v.hands?.[v.seat] : null;
  if (v.phase === "deal_over") return myTurn ? "Deal over: deal the next one" : `${names.seat(v.to_act)} deals next`;
  if (mine?.status === "out") return "You are out of the pool — watching the others.";
  if (mine?.status === "dropped") return `You dropped (−${mine.penalty}) — waiting for the deal to end.`;
  if (mine?.status === "wrong_show") return `Wrong show (−${mine.penalty}) — waiting for the deal to end.`;
  if (myTurn) {
    if (v.phase === "draw") {
      const from = findLegal(v, "draw_discard") ? "draw from the closed or the open deck" : "draw from the closed deck";
      return `Your turn: ${from}${findLegal(v, "drop") ? ", or drop" : ""}`;
    }
    if ((v.me?.finish_cards || []).length) return "Your turn: you can declare a valid show!";
    return "Your turn: discard a card to the open deck";
  }
  return null;
}

/** The confirm box before a show with `card` in the finish slot. */
export function declareQuestion(v, card) {
  const finish = v.me?.finish_cards || [];
  if (finish.includes(card)) {
    return {
      id: "declare-confirm", title: `Declare with the ${shortOf(card)}?`,
      lines: [`The ${nameOf(card)} goes face down in the finish slot; your other 13 cards make a valid show.`],
      confirm: "Declare", cancel: "Not yet",
    };
  }
  const cost = v.options?.wrong_show ?? 80;
  return {
    id: "declare-confirm", danger: true, title: "Wrong show!",
    lines: [`With the ${nameOf(card)} as the finish card your other 13 cards do not make a valid show.`,
      `A wrong show costs you ${cost} points${v.options?.wrong_show_ends_deal ? " and ends the deal" : " and you leave the deal"}.`,
      finish.length ? `A valid show needs one of: ${finish.map(shortOf).join(", ")}.` : "No finish card gives a valid show now."],
    confirm: `Declare anyway (−${cost})`, cancel: "Cancel",
  };
}

/** The confirm box before a drop: first or middle, with its amount. */
export function dropQuestion(v) {
  const middle = Boolean(v.hands?.[v.seat]?.drawn);
  const amount = middle ? v.drop?.middle : v.drop?.first;
  return {
    id: "drop-confirm", danger: true, title: `${middle ? "Middle" : "First"} drop?`,
    lines: [`You leave this deal and pay ${amount} points.`, "The deal goes on for the others."],
    confirm: `Drop (−${amount})`, cancel: "Keep playing",
  };
}

/** The declare chooser's contents: the legal finish cards, valid shows first. */
export function chooserParts(v, cards, choose, cancel) {
  const finish = new Set(v.me?.finish_cards || []);
  const sorted = [...cards].sort((a, b) => Number(finish.has(b)) - Number(finish.has(a)));
  return [
    h("span", { class: "chooser-label", id: "chooser-label" }, finish.size ? "Declare with finish card:" : "Declare with (no valid show):"),
    h("div", { class: "chooser-cards", role: "group", "aria-labelledby": "chooser-label" }, sorted.map((c) => {
      const ok = finish.has(c);
      return h("button", {
        class: ["card", "mini", "choice", ok ? "valid" : "wrong"], dataset: { card: c },
        "aria-label": `Declare with ${nameOf(c)} as the finish card: ${ok ? "valid show" : "wrong show"}`,
        onclick: () => choose(c),
      }, miniCard(c), h("span", { class: "badge", "aria-hidden": "true" }, ok ? "show" : "wrong"));
    })),
    h("button", { class: "small", id: "chooser-cancel", onclick: cancel }, "Cancel"),
  ];
}
