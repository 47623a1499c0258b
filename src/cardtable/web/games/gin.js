// The Gin Rummy board, in the shared frame (board.js). It draws the view the
// server sent and offers exactly the actions in view.legal: a button, card or
// key that has no legal action behind it is disabled, never guessed at.
//
// Layout: the opponent's hand (backs + the cards he picked up), the stock and
// the discard pile, the status line with the action buttons, your hand, and
// the scorecard; at a hand's end the showdown takes the middle.

import { cardFace, cardName } from "../cards.js";
import { h, replace } from "../dom.js";
import { cardsFor, findLegal, isSeat, mountBoard } from "./board.js";
import { noteEvents } from "./gin_events.js";
import { Hand } from "./gin_hand.js";
import { finalPanel, scorecard, showdownPanel } from "./gin_score.js";
import { drawCentre, drawOpponent, drawSpectatorHand } from "./gin_table.js";

export const STYLES = ["board", "gin"];

const HELP = "Keys: ←/→ choose a card · Shift+←/→ move it · Enter discard · S stock · P pile/take · " +
  "X pass · K knock · G gin · B big gin · N next hand · R rematch";
const OVER = new Set(["hand_over", "match_over"]);

export function mount(el, ctx) {
  return mountBoard(el, ctx, (frame) => ginBoard(frame, ctx));
}

function ginBoard(frame, ctx) {
  let chooserType = null; // "knock" | "gin" while the choice of discard is open

  const hand = new Hand(ctx, {
    click: (card) => clickCard(card),
    drop: (card, target) => { if (target && target.dataset.drop === "pile") clickCard(card); },
    dragEnd: () => frame.afterDrag(),
    changed: () => frame.draw(),
  });
  const opp = h("section", { class: "opp-zone" });
  const centre = h("section", { class: "centre", "aria-label": "Stock and discard pile" });
  const show = h("div", { class: "show-slot" });
  const chooser = h("div", { class: "chooser", hidden: true });

  function draw(view, turn) {
    const me = view.seat;
    const bottom = me ?? 0;
    const { myTurn, ended } = turn;
    drawOpponent(opp, view, 1 - bottom, ctx.seatName);
    drawCentre(centre, view, {
      stockAction: myTurn && findLegal(view, "draw_stock"),
      pileAction: myTurn && (findLegal(view, "draw_discard") || findLegal(view, "take_upcard")),
      discardTarget: myTurn && view.phase === "discard",
      act: (action) => ctx.act(action),
      discardFocused: () => { if (hand.focus) clickCard(hand.focus); },
      dragEnd: () => frame.afterDrag(),
      seatName: ctx.seatName,
    });
    replace(show, ended?.last ? showdownPanel(ended, ctx) : ended?.result ? finalPanel(ended, ctx) : null);
    drawChooser(view, myTurn);
    if (!isSeat(me)) {
      drawSpectatorHand(hand, view, bottom, ctx.seatName);
      return;
    }
    hand.render(view, {
      playable: myTurn ? cardsFor(view, "discard") : new Set(),
      knock: myTurn ? cardsFor(view, "knock") : new Set(),
      gin: myTurn ? cardsFor(view, "gin") : new Set(),
      taken: view.taken,
      fresh: frame.fresh,
      busy: !myTurn,
    });
  }

  function drawChooser(view, myTurn) {
    const type = chooserType;
    const cards = type && myTurn ? [...cardsFor(view, type)] : [];
    const opening = chooser.hidden && cards.length > 0;
    chooser.hidden = !cards.length;
    if (!cards.length) {
      chooserType = null;
      chooser.replaceChildren();
      return;
    }
    replace(chooser,
      h("span", { class: "chooser-label", id: "chooser-label" }, type === "gin" ? "Go gin discarding:" : "Knock, discarding:"),
      h("div", { class: "chooser-cards", role: "group", "aria-labelledby": "chooser-label" }, cards.map((c) =>
        h("button", {
          class: "card mini choice", dataset: { card: c }, "aria-label": `${type} with ${cardName(c)} face down`,
          onclick: () => { chooserType = null; ctx.act(findLegal(view, type, c)); },
        }, cardFace(c, { compact: true })))),
      h("button", { class: "small", onclick: () => { chooserType = null; frame.draw(); } }, "Cancel"));
    if (opening) chooser.querySelector("button")?.focus(); // keyboard users land on the choice
  }

  function buttons(view, turn) {
    if (turn.watching) return []; // a spectator has nothing to press but the scorecard
    const can = (type) => (turn.myTurn ? findLegal(view, type) : null);
    switch (view.phase) {
      case "first_upcard":
        return [frame.button("take", "Take upcard", can("take_upcard"), "P", "primary"), frame.button("pass", "Pass", can("pass"), "X")];
      case "final_discard":
        return [frame.button("take", "Take last discard", can("draw_discard"), "P", "primary"), frame.button("pass", "Pass", can("pass"), "X")];
      case "draw": case "discard": {
        const knock = can("knock") && (() => knockOrChoose("knock"));
        const gin = can("gin") && (() => knockOrChoose("gin"));
        const list = [frame.button("knock", "Knock", knock, "K", "primary"), frame.button("gin", "Gin", gin, "G", "primary")];
        if (view.options?.big_gin_bonus) list.push(frame.button("big-gin", "Big gin", can("big_gin"), "B", "primary"));
        return list;
      }
      default: return [];
    }
  }

  function status(view, turn) {
    if (view.phase === "match_over") {
      const r = view.result;
      if (r && !isSeat(r.winner)) return "The match is drawn.";
      return r ? (r.winner === view.seat ? `You win the match by ${r.margin}!` : `${ctx.seatName(r.winner)} wins the match by ${r.margin}.`) : "The match is over.";
    }
    if (!turn.myTurn) return null;
    switch (view.phase) {
      case "first_upcard": return "Your turn: take the upcard or pass";
      case "draw": return findLegal(view, "draw_discard") ? "Your turn: draw from the stock or the pile" : "Your turn: draw from the stock";
      case "discard": {
        if (findLegal(view, "big_gin")) return "Your turn: you can go big gin!";
        if (findLegal(view, "gin")) return "Your turn: discard — you can go gin!";
        if (!findLegal(view, "discard")) return "Your turn: knock or go gin";
        return findLegal(view, "knock") ? "Your turn: discard, or knock" : "Your turn: discard a card";
      }
      case "final_discard": return "Last discard: take it to knock, or pass";
      case "hand_over": return "Hand over: deal the next hand";
      default: return "Your turn";
    }
  }

  // -- acting -------------------------------------------------------------------------------

  function clickCard(card) {
    const view = frame.view;
    if (!frame.myTurn()) return;
    const discard = findLegal(view, "discard", card);
    if (discard) ctx.act(discard);
    else if (view.phase === "discard") ctx.toast("That card cannot be discarded now.", "info");
  }

  /** Knock/gin with the focused card if that is legal, else offer the legal cards. */
  function knockOrChoose(type, useFocus = false) {
    const view = frame.view;
    if (!frame.myTurn()) return;
    const cards = [...cardsFor(view, type)];
    if (!cards.length) return;
    const focused = useFocus && hand.focus && findLegal(view, type, hand.focus);
    if (focused) ctx.act(focused);
    else if (type === "gin" && cards.length === 1) ctx.act(findLegal(view, "gin", cards[0]));
    else {
      chooserType = type;
      frame.draw();
    }
  }

  function key(event, low, turn) {
    const view = frame.view;
    if (low === "ArrowLeft" || low === "ArrowRight") {
      const delta = low === "ArrowLeft" ? -1 : 1;
      if (event.shiftKey) hand.moveCard(delta);
      else hand.moveFocus(delta);
      return true;
    }
    const act = (type) => {
      const action = turn.myTurn ? findLegal(view, type) : null;
      if (action) ctx.act(action);
      return Boolean(action);
    };
    switch (low) {
      case "s": return act("draw_stock");
      case "p": return act("draw_discard") || act("take_upcard");
      case "x": return act("pass");
      case "k": knockOrChoose("knock", true); return true;
      case "g": knockOrChoose("gin", true); return true;
      case "b": return act("big_gin");
      default: return false;
    }
  }

  return {
    name: "gin",
    help: HELP,
    above: [opp, centre, show],
    below: [hand.el],
    statusParts: [chooser],
    finished: (view) => (OVER.has(view.phase) && (view.last || view.result) ? view : null),
    draw,
    status,
    buttons,
    scores: (view) => scorecard(view, ctx),
    events: (view, meta) => noteEvents(view, meta, ctx.seatName, ctx.announce),
    waitingFriend: () => "Waiting for your friend to sit down…",
    dealerHint: (view) => h("span", { class: "hint" }, `${ctx.seatName(view.to_act)} deals next`),
    key,
    clear() {
      const open = Boolean(chooserType);
      chooserType = null;
      return open;
    },
  };
}
