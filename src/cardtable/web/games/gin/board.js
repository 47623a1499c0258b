// The Gin Rummy board, in the shared frame (../board.js). It draws the view the
// server sent and offers exactly the actions in view.legal: a button, card or
// key that has no legal action behind it is disabled, never guessed at.
//
// Layout: the opponent's hand (backs + the cards he picked up), the stock and
// the discard pile, the status line with the action buttons, your hand, and
// the scorecard; at a hand's end the showdown takes the middle.
//
// Discarding: a mouse click or Enter on a card discards it; a finger's tap
// selects the card (a mis-tap on overlapped cards costs nothing) and a second
// tap, the Discard button or a tap on the pile discards it; or drag it there.

import { cardFace, cardName, cardShort } from "../../cards.js";
import { h, replace } from "../../dom.js";
import { cardsFor, findLegal, isSeat, mountBoard } from "../board.js";
import { noteEvents } from "./events.js";
import { Hand } from "./hand.js";
import { finalPanel, scorecard, showdownPanel } from "./score.js";
import { drawCentre, drawOpponent, drawSpectatorHand } from "./table.js";

export const STYLES = ["board", "gin/board"];

export const HELP = "Keys: ←/→ choose a card · Shift+←/→ move it · Enter discard · S stock · P pile/take · " +
  "X pass · K knock · G gin · B big gin · N next hand · R rematch";
const OVER = new Set(["hand_over", "match_over"]);

export function mount(el, ctx) {
  return mountBoard(el, ctx, (frame) => ginBoard(frame, ctx));
}

function ginBoard(frame, ctx) {
  let chooserType = null; // "knock" | "gin" while the choice of discard is open
  let pointer = null; // "touch" | "mouse" | "pen": how the player last pressed on the board
  let listening = false;
  const hand = new Hand(ctx, {
    click: (card, event) => clickCard(card, event),
    drop: (card, target) => { if (target && target.dataset.drop === "pile") clickCard(card); },
    dragEnd: () => frame.afterDrag(),
    changed: () => frame.draw(),
  });
  const opp = h("section", { class: "opp-zone" });
  const centre = h("section", { class: "centre", "aria-label": "Stock and discard pile" });
  const show = h("div", { class: "show-slot" });
  const chooser = h("div", { class: "chooser", hidden: true });

  function draw(view, turn) {
    if (!listening && frame.root) {
      frame.root.addEventListener("pointerdown", (event) => { pointer = event.pointerType; }, true);
      listening = true;
    }
    const me = view.seat;
    const bottom = me ?? 0;
    const { myTurn, ended } = turn;
    drawOpponent(opp, view, 1 - bottom, ctx.seatName);
    drawCentre(centre, view, {
      stockAction: myTurn && findLegal(view, "draw_stock"),
      pileAction: myTurn && (findLegal(view, "draw_discard") || findLegal(view, "take_upcard")),
      discardTarget: myTurn && view.phase === "discard",
      act: (action) => ctx.act(action),
      discardSelected: () => discardSelected(),
      dragEnd: () => frame.afterDrag(),
      seatName: ctx.seatName,
    });
    replace(show, ended?.last ? showdownPanel(ended, ctx) : ended?.result ? finalPanel(ended, ctx) : null,
      ended ? ctx.fairness?.line() : null);
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
          // data-choice, not data-card: the card itself is in the hand, this only names it.
          class: "card mini choice", dataset: { choice: c }, "aria-label": `${type} with ${cardName(c)} face down`,
          onclick: () => { chooserType = null; ctx.act(findLegal(view, type, c)); },
        }, cardFace(c, { compact: true })))),
      h("button", { class: "small", onclick: () => { chooserType = null; frame.draw(); } }, "Cancel"));
    if (opening) chooser.querySelector("button")?.focus(); // keyboard users land on the choice
  }

  function buttons(view, turn) {
    if (turn.watching) return []; // a spectator has nothing to press but the scorecard
    if (endedByAgreement()) return [rematchButton()];
    const can = (type) => (turn.myTurn ? findLegal(view, type) : null);
    switch (view.phase) {
      case "first_upcard":
        return [frame.button("take", "Take upcard", can("take_upcard"), "P", "primary"), frame.button("pass", "Pass", can("pass"), "X")];
      case "final_discard":
        return [frame.button("take", "Take last discard", can("draw_discard"), "P", "primary"), frame.button("pass", "Pass", can("pass"), "X")];
      case "draw": case "discard": {
        const knock = can("knock") && (() => knockOrChoose("knock"));
        const gin = can("gin") && (() => knockOrChoose("gin"));
        const list = [];
        const chosen = hand.selected && can("discard") && findLegal(view, "discard", hand.selected);
        if (chosen) {
          const button = frame.button("discard", `Discard ${cardShort(hand.selected)}`, () => discard(chosen), null, "primary");
          button.setAttribute("aria-label", `Discard the ${cardName(hand.selected)}`);
          list.push(button);
        }
        list.push(frame.button("knock", "Knock", knock, "K", "primary"), frame.button("gin", "Gin", gin, "G", "primary"));
        if (view.options?.big_gin_bonus) list.push(frame.button("big-gin", "Big gin", can("big_gin"), "B", "primary"));
        return list;
      }
      default: return [];
    }
  }

  function status(view, turn) {
    if (endedByAgreement()) {
      return turn.watching ? "The players ended the match by agreement (not scored)."
        : "The match was ended by agreement (not scored). Ask for a rematch to play again.";
    }
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

  const endedByAgreement = () => frame.meta?.ended === "agreed";

  /** The board's own Rematch after a match ended by agreement (the frame has one at match_over). */
  function rematchButton() {
    const asked = (frame.meta?.rematch || []).includes(frame.view.seat);
    return frame.button("rematch", asked ? "Rematch asked…" : "Rematch", !asked && rematch, "R", "primary");
  }

  function rematch() {
    frame.seen();
    ctx.rematch();
    frame.draw();
  }

  function discard(action) {
    hand.selected = null;
    ctx.act(action);
  }

  /** A click or Enter discards at once; a finger's first tap only selects the card. */
  function clickCard(card, event) {
    const view = frame.view;
    if (!frame.myTurn()) return;
    const action = findLegal(view, "discard", card);
    if (!action) {
      if (view.phase !== "discard") return;
      ctx.toast(card === view.taken ? "The card you took from the pile cannot be discarded this turn."
        : "That card cannot be discarded now.", "info");
      return;
    }
    if (event?.pointerType === "touch" && hand.selected !== card) hand.select(card);
    else discard(action);
  }

  /** The pile tapped (or Enter on it) while discarding: the selected card goes there. */
  function discardSelected() {
    const action = hand.selected && findLegal(frame.view, "discard", hand.selected);
    if (action) discard(action);
    else ctx.toast(touchy() ? "Tap a card in your hand first, then the pile." : "Click a card in your hand to discard it.", "info");
  }

  /** Knock/gin with the selected (or, by key, the focused) card if that is legal, else offer the legal cards. */
  function knockOrChoose(type, useFocus = false) {
    const view = frame.view;
    if (!frame.myTurn()) return;
    const cards = [...cardsFor(view, type)];
    if (!cards.length) return;
    const focused = (hand.selected && findLegal(view, type, hand.selected)) ||
      (useFocus && hand.focus && findLegal(view, type, hand.focus));
    if (focused) {
      hand.selected = null;
      ctx.act(focused);
    } else if (type === "gin" && cards.length === 1) ctx.act(findLegal(view, "gin", cards[0]));
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
    if (low === "r" && endedByAgreement() && !turn.watching) {
      if (!(frame.meta?.rematch || []).includes(view.seat)) rematch();
      return true;
    }
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

  /** Touch or mouse: what the words of a hint should say. */
  const touchy = () => (pointer ? pointer === "touch" : Boolean(window.matchMedia?.("(pointer: coarse)").matches));

  /** A new player's next step, while it is his turn in his first hands (the frame shows it). */
  function hint(view, turn) {
    if (!turn.myTurn || endedByAgreement()) return null;
    const tap = touchy() ? "tap" : "click";
    switch (view.phase) {
      case "first_upcard": return "First turn: take the upcard or pass";
      case "draw": return findLegal(view, "draw_discard") ? `Draw: ${tap} the stock, or take the top discard` : `Draw: ${tap} the stock`;
      case "discard": {
        if (findLegal(view, "big_gin")) return "All eleven cards meld: press Big gin!";
        if (findLegal(view, "gin")) return "Your melds cover your hand: press Gin!";
        const act = touchy() ? "tap it, then Discard" : "click it, or drag it to the pile";
        return findLegal(view, "knock") ? `You may knock, or discard a card: ${act}` : `Discard a card: ${act}`;
      }
      case "final_discard": return "The stock is done: take the last discard only to knock with it, or pass";
      default: return null;
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
    dealerHint: (view) => (endedByAgreement() ? (frame.watching() ? null : rematchButton())
      : isSeat(view.to_act) ? h("span", { class: "hint" }, `${ctx.seatName(view.to_act)} deals next`) : null),
    hint,
    key,
    clear() {
      const open = Boolean(chooserType || hand.selected);
      chooserType = null;
      hand.selected = null;
      return open;
    },
    destroy: () => hand.destroy(),
  };
}
