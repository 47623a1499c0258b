// The Gin Rummy board. It draws the view the server sent and offers exactly
// the actions in view.legal: a button, card or key that has no legal action
// behind it is disabled, never guessed at.
//
// Layout: the opponent's hand (backs + the cards he picked up), the stock and
// the discard pile, the status line with the action buttons, your hand, and
// the scorecard; at a hand's end the showdown takes the middle.

import { cardBack, cardFace, cardName, cardShort } from "../cards.js";
import { h, replace } from "../dom.js";
import { draggable, isDragging } from "../drag.js";
import { Hand } from "./gin_hand.js";
import { finalPanel, miniCard, scorecard, showdownPanel } from "./gin_score.js";

const HELP = "Keys: ←/→ choose a card · Shift+←/→ move it · Enter discard · S stock · P pile/take · " +
  "X pass · K knock · G gin · B big gin · N next hand · R rematch";
const PILE_PEEK = 4; // discards shown under the top one

const legalOf = (view) => view.legal || [];
const findLegal = (view, type, card) =>
  legalOf(view).find((a) => a.type === type && (card === undefined || a.card === card)) || null;
const cardsFor = (view, type) => new Set(legalOf(view).filter((a) => a.type === type).map((a) => a.card));

export function mount(el, ctx) {
  const ui = {
    view: null, meta: null,
    chooser: null, // "knock" | "gin" while the choice of discard is open
    showScores: false, // the scorecard drawer on small screens
    redrawAfterDrag: false,
    // The last showdown stays on screen until the player has seen it, even if
    // the next hand was dealt meanwhile (a computer dealer deals at once).
    showdown: null, // the latest view with a finished hand
    showdownSeen: true,
  };
  const isOver = (view) => view.phase === "hand_over" || view.phase === "match_over";
  let previous = { hand: null, cards: new Set() }; // to highlight the card just drawn
  let fresh = new Set();

  const hand = new Hand(ctx, {
    click: (card) => clickCard(card),
    drop: (card, target) => dropCard(card, target),
    dragEnd: () => { if (ui.redrawAfterDrag) draw(); },
    changed: () => draw(),
  });

  const opp = h("section", { class: "opp-zone" });
  const centre = h("section", { class: "centre", "aria-label": "Stock and discard pile" });
  const show = h("div", { class: "show-slot" });
  const statusText = h("p", { class: "status-text", id: "status", "aria-live": "polite" });
  const lastMove = h("p", { class: "last-move", id: "last-move" });
  const buttons = h("div", { class: "buttons", role: "toolbar", "aria-label": "Actions" });
  const chooser = h("div", { class: "chooser", hidden: true });
  const status = h("section", { class: "status-bar", "aria-label": "Status" },
    h("div", { class: "status-lines" }, statusText, lastMove), buttons, chooser);
  const side = h("aside", { class: "side" });
  const help = h("p", { class: "help-line", id: "help-line" }, HELP);
  const root = h("div", { class: "gin", dataset: { mode: "play" } }, opp, centre, show, status, hand.el, help, side);
  el.append(root);

  // -- drawing ------------------------------------------------------------------------------

  function update(view, meta) {
    ui.view = view;
    ui.meta = meta;
    if (isOver(view) && (view.last || view.result)) {
      const same = ui.showdown && ui.showdown.last?.hand === view.last?.hand && ui.showdown.hand === view.hand;
      if (!same) ui.showdownSeen = false;
      ui.showdown = view;
    }
    noteEvents(view, meta);
    if (isDragging()) {
      ui.redrawAfterDrag = true; // not under the user's finger
      return;
    }
    draw();
  }

  /** The finished hand to keep showing after the next deal, if not yet dismissed. */
  function heldShowdown(view) {
    return !isOver(view) && ui.showdown && !ui.showdownSeen ? ui.showdown : null;
  }

  function dismissShowdown() {
    ui.showdownSeen = true;
    draw();
  }

  function draw() {
    ui.redrawAfterDrag = false;
    const view = ui.view;
    if (!view) return;
    const me = view.seat;
    const bottom = me ?? 0;
    const top = 1 - bottom;
    const held = heldShowdown(view);
    const myTurn = me !== null && me !== undefined && view.to_act === me && !ctx.pending && !held && ctx.online;
    const ended = isOver(view) ? view : held;
    const panel = ended?.last ? showdownPanel(ended, ctx) : ended?.result ? finalPanel(ended, ctx) : null;
    root.dataset.mode = panel ? "showdown" : "play";
    root.dataset.held = held ? "true" : "false";
    root.dataset.phase = view.phase;
    root.classList.toggle("my-turn", myTurn);
    root.classList.toggle("scores-open", ui.showScores);

    drawOpponent(view, top);
    drawCentre(view, myTurn);
    replace(show, panel);
    statusText.textContent = held ? `${ctx.seatName(view.dealer)} dealt hand ${view.hand}. Continue when you are ready.`
      : statusLine(view, myTurn);
    drawButtons(view, myTurn, held);
    drawChooser(view, myTurn);

    const marks = {
      playable: myTurn ? cardsFor(view, "discard") : new Set(),
      knock: myTurn ? cardsFor(view, "knock") : new Set(),
      gin: myTurn ? cardsFor(view, "gin") : new Set(),
      taken: view.taken,
      fresh,
      busy: !myTurn,
    };
    if (me !== null && me !== undefined) hand.render(view, marks);
    else drawSpectatorHand(view, bottom);
    root.classList.toggle("watching", me === null || me === undefined);
    replace(side, ui.showScores ? h("button", {
      class: "small side-close", id: "scores-close", onclick: () => { ui.showScores = false; draw(); },
    }, "Close") : null, scorecard(view, ctx));
    if (held) lastMove.textContent = "";
  }

  function drawOpponent(view, seat) {
    const info = view.hands[seat] || { count: 0, picked: [] };
    const name = ctx.seatName(seat);
    const faces = info.cards
      ? info.cards.map((c) => h("span", { class: "card small" }, cardFace(c, { compact: true })))
      : Array.from({ length: info.count }, () => h("span", { class: "card small back-card" }, cardBack("")));
    const picked = (info.picked || []).filter((c) => !info.cards);
    opp.setAttribute("aria-label", `${name}'s hand: ${info.count} cards` +
      (picked.length ? `; picked up ${picked.map(cardName).join(", ")}` : ""));
    replace(opp,
      h("div", { class: "opp-label" },
        h("span", { class: "opp-name" }, name),
        h("span", { class: "count", id: "opp-count" }, `${info.count} cards`),
        view.dealer === seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "Dealer") : null),
      h("div", { class: "opp-cards fan", "aria-hidden": "true" }, faces),
      picked.length ? h("div", { class: "picked", id: "opp-picked" }, h("span", { class: "picked-label" }, "Picked up"),
        picked.map((c) => miniCard(c))) : null);
  }

  function drawCentre(view, myTurn) {
    const stockAction = myTurn && findLegal(view, "draw_stock");
    const pileAction = myTurn && (findLegal(view, "draw_discard") || findLegal(view, "take_upcard"));
    const stock = h("button", {
      class: ["stock", stockAction && "active"], id: "stock", disabled: !stockAction,
      "aria-label": `Stock, ${view.stock} cards${stockAction ? ": draw a card (S)" : ""}`,
      onclick: () => stockAction && ctx.act(stockAction),
    },
    h("span", { class: "stack" }, [0, 1, 2].filter((i) => i < Math.ceil(view.stock / 10) || i === 0)
      .map(() => h("span", { class: "card mid back-card" }, cardBack("")))),
    h("span", { class: "pile-count", id: "stock-count" }, String(view.stock)));

    const pile = view.discard || [];
    const topCard = pile[pile.length - 1];
    const discardTarget = myTurn && view.phase === "discard";
    const pileEl = h("button", {
      class: ["pile", pileAction && "active", discardTarget && "drop-target"], id: "pile",
      dataset: { drop: "pile" }, disabled: !pileAction && !discardTarget,
      "aria-label": topCard ? `Discard pile, top card ${cardName(topCard)}, ${pile.length} cards` +
        (pileAction ? `: take it (P)` : discardTarget ? ": drop a card here to discard it" : "") : "Discard pile, empty",
      onclick: () => { if (pileAction) ctx.act(pileAction); else if (discardTarget && hand.focus) clickCard(hand.focus); },
    },
    h("span", { class: "stack fanned" }, pile.slice(-PILE_PEEK - 1).map((c, i, list) =>
      h("span", { class: ["card", "mid", i === list.length - 1 && "top"], dataset: { card: c } }, cardFace(c)))),
    pile.length ? null : h("span", { class: "empty-pile" }, "empty"));
    for (const [node, action] of [[stock, stockAction], [pileEl, pileAction]]) {
      draggable(node, {
        enabled: () => Boolean(action),
        onDrop: (target) => { if (target && target.dataset.drop === "hand") ctx.act(action); },
        onEnd: () => { if (ui.redrawAfterDrag) draw(); },
      });
    }
    const bits = [`Hand ${view.hand}`, `Dealer: ${ctx.seatName(view.dealer)}`,
      view.knock_limit > 0 ? `Knock at ${view.knock_limit} or less` : "Gin only (no knocking)"];
    if (view.multiplier > 1) bits.push(`Spade hand: ×${view.multiplier}`);
    bits.push(`Game to ${view.target}`);
    replace(centre,
      h("div", { class: "piles" }, h("div", { class: "pile-slot" }, stock, h("span", { class: "pile-label" }, "Stock")),
        h("div", { class: "pile-slot" }, pileEl, h("span", { class: "pile-label" }, view.phase === "first_upcard" ? "Upcard" : "Discards"))),
      h("ul", { class: "table-info" }, bits.map((b) => h("li", null, b))));
  }

  function drawSpectatorHand(view, seat) {
    const info = view.hands[seat] || { count: 0 };
    hand.el.hidden = false;
    replace(hand.cardsEl, h("div", { class: "card-group" }, (info.cards || Array.from({ length: info.count }))
      .map((c) => h("span", { class: "card hand-card" }, c ? cardFace(c) : cardBack("")))));
    hand.deadwoodEl.textContent = `${ctx.seatName(seat)}: ${info.count} cards`;
  }

  function button(id, label, action, key, extra) {
    return h("button", {
      id, class: ["action", extra], disabled: !action, "aria-keyshortcuts": key,
      onclick: () => action && (typeof action === "function" ? action() : ctx.act(action)),
    }, label, key ? h("kbd", { "aria-hidden": "true" }, key) : null);
  }

  function drawButtons(view, myTurn, held) {
    const can = (type) => (myTurn ? findLegal(view, type) : null);
    const list = [];
    const phase = view.phase;
    const watching = view.seat === null || view.seat === undefined;
    if (held) {
      list.push(button("continue", "Continue", dismissShowdown, "N", "primary"));
    } else if (watching) {
      // A spectator has nothing to press but the scorecard.
    } else if (phase === "first_upcard") {
      list.push(button("take", "Take upcard", can("take_upcard"), "P", "primary"), button("pass", "Pass", can("pass"), "X"));
    } else if (phase === "final_discard") {
      list.push(button("take", "Take last discard", can("draw_discard"), "P", "primary"), button("pass", "Pass", can("pass"), "X"));
    } else if (phase === "draw" || phase === "discard") {
      const knock = can("knock") && (() => knockOrChoose("knock"));
      const gin = can("gin") && (() => knockOrChoose("gin"));
      list.push(button("knock", "Knock", knock, "K", "primary"), button("gin", "Gin", gin, "G", "primary"));
      if (view.options?.big_gin_bonus) list.push(button("big-gin", "Big gin", can("big_gin"), "B", "primary"));
    } else if (phase === "hand_over") {
      const deal = can("deal");
      list.push(deal ? button("next-hand", "Next hand", () => { ui.showdownSeen = true; ctx.act(deal); }, "N", "primary")
        : h("span", { class: "hint" }, `${ctx.seatName(view.to_act)} deals next`));
    } else if (phase === "match_over" && view.seat !== null && view.seat !== undefined) {
      const votes = ui.meta?.rematch || [];
      const asked = votes.includes(view.seat);
      list.push(button("rematch", asked ? "Rematch asked…" : "Rematch", asked ? null : rematch, "R", "primary"));
      const others = votes.filter((s) => s !== view.seat).map(ctx.seatName);
      if (others.length) list.push(h("span", { class: "hint", id: "rematch-votes" }, `${others.join(", ")} wants a rematch`));
    }
    list.push(h("button", {
      class: "small scores-toggle", id: "scores-toggle", "aria-expanded": String(ui.showScores),
      onclick: () => { ui.showScores = !ui.showScores; draw(); },
    }, ui.showScores ? "Hide scores" : "Scores"));
    replace(buttons, ...list);
  }

  function drawChooser(view, myTurn) {
    const type = ui.chooser;
    const cards = type && myTurn ? [...cardsFor(view, type)] : [];
    const opening = chooser.hidden && cards.length > 0;
    chooser.hidden = !cards.length;
    if (!cards.length) {
      ui.chooser = null;
      chooser.replaceChildren();
      return;
    }
    replace(chooser,
      h("span", { class: "chooser-label", id: "chooser-label" }, type === "gin" ? "Go gin discarding:" : "Knock, discarding:"),
      h("div", { class: "chooser-cards", role: "group", "aria-labelledby": "chooser-label" }, cards.map((c) =>
        h("button", {
          class: "card mini choice", dataset: { card: c }, "aria-label": `${type} with ${cardName(c)} face down`,
          onclick: () => { ui.chooser = null; ctx.act(findLegal(view, type, c)); },
        }, cardFace(c, { compact: true })))),
      h("button", { class: "small", onclick: () => { ui.chooser = null; draw(); } }, "Cancel"));
    if (opening) chooser.querySelector("button")?.focus(); // keyboard users land on the choice
  }

  function statusLine(view, myTurn) {
    const other = view.to_act;
    if (view.phase === "match_over") {
      const r = view.result;
      if (r && (r.winner === null || r.winner === undefined)) return "The match is drawn.";
      return r ? (r.winner === view.seat ? `You win the match by ${r.margin}!` : `${ctx.seatName(r.winner)} wins the match by ${r.margin}.`) : "The match is over.";
    }
    if (!ctx.online) return "Connection lost — reconnecting…";
    if (ctx.pending) return "Sending…";
    if (myTurn) {
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
    if (other === null || other === undefined) return "";
    const info = ctx.seatInfo(other);
    const name = ctx.seatName(other);
    if (info && info.kind === "human" && !info.taken) return "Waiting for your friend to sit down…";
    if (info && info.kind === "human" && !info.connected) return `${name} disconnected — waiting for them to come back`;
    if (view.phase === "hand_over") return `Hand over: waiting for ${name} to deal`;
    if (info && info.kind === "bot") return `${name} is thinking…`;
    return `Waiting for ${name}…`;
  }

  // -- what happened (for the last-move line and screen readers) -----------------------------

  function describe(e, view) {
    const name = ctx.seatName(e.seat);
    const you = e.seat === view.seat;
    const c = e.card ? cardName(e.card) : "";
    switch (e.type) {
      case "draw_stock": return you && e.card ? `You drew the ${c} from the stock` : `${name} drew from the stock`;
      case "draw_discard": case "take_upcard": return `${name} took the ${c}`;
      case "discard": return `${name} discarded the ${c}`;
      case "pass": return `${name} passed`;
      case "knock": return `${name} knocked`;
      case "gin": return `${name} went gin`;
      case "big_gin": return `${name} went big gin`;
      case "deal": return `${name} dealt hand ${e.hand}`;
      default: return "";
    }
  }

  function short(e, view) {
    const text = describe(e, view);
    return e.card ? text.replace(`the ${cardName(e.card)}`, cardShort(e.card)) : text;
  }

  function noteEvents(view, meta) {
    const events = (meta && meta.events) || [];
    const others = events.filter((e) => e.seat !== view.seat && describe(e, view));
    const mineDrawn = events.filter((e) => e.seat === view.seat && e.type === "draw_stock" && e.card);
    const spoken = [...others, ...mineDrawn].map((e) => describe(e, view));
    if (view.phase === "hand_over" || view.phase === "match_over") {
      if (events.some((e) => e.type === "hand_over" || e.type === "match_over")) spoken.push("The hand is over.");
    }
    if (spoken.length) ctx.announce(`${spoken.join(". ")}.`);
    if (others.length) lastMove.textContent = short(others[others.length - 1], view);
    else if (events.some((e) => e.type === "deal")) lastMove.textContent = "";
    // The card(s) that just arrived in my hand get a highlight until my next move.
    const mine = view.hands?.[view.seat]?.cards || [];
    if (previous.hand === view.hand && mine.length > previous.cards.size) {
      fresh = new Set(mine.filter((c) => !previous.cards.has(c)));
    } else if (mine.length <= previous.cards.size || previous.hand !== view.hand) {
      fresh = new Set();
    }
    previous = { hand: view.hand, cards: new Set(mine) };
  }

  // -- acting -------------------------------------------------------------------------------

  function myTurnNow() {
    const v = ui.view;
    return v && v.seat !== null && v.seat !== undefined && v.to_act === v.seat && !ctx.pending &&
      !heldShowdown(v) && ctx.online;
  }

  function rematch() {
    ui.showdownSeen = true;
    ctx.rematch();
  }

  function clickCard(card) {
    const view = ui.view;
    if (!myTurnNow()) return;
    const discard = findLegal(view, "discard", card);
    if (discard) ctx.act(discard);
    else if (view.phase === "discard") ctx.toast("That card cannot be discarded now.", "info");
  }

  function dropCard(card, target) {
    if (target && target.dataset.drop === "pile") clickCard(card);
  }

  /** Knock/gin with the focused card if that is legal, else offer the legal cards. */
  function knockOrChoose(type, useFocus = false) {
    const view = ui.view;
    if (!myTurnNow()) return;
    const cards = [...cardsFor(view, type)];
    if (!cards.length) return;
    const focused = useFocus && hand.focus && findLegal(view, type, hand.focus);
    if (focused) ctx.act(focused);
    else if (type === "gin" && cards.length === 1) ctx.act(findLegal(view, "gin", cards[0]));
    else {
      ui.chooser = type;
      draw();
    }
  }

  function key(event) {
    const view = ui.view;
    if (!view) return false;
    const k = event.key;
    if (k === "ArrowLeft" || k === "ArrowRight") {
      const delta = k === "ArrowLeft" ? -1 : 1;
      if (event.shiftKey) hand.moveCard(delta);
      else hand.moveFocus(delta);
      return true;
    }
    if (k === "Escape" && (ui.chooser || ui.showScores)) {
      ui.chooser = null;
      ui.showScores = false;
      draw();
      return true;
    }
    const can = (type) => (myTurnNow() ? findLegal(view, type) : null);
    const act = (action) => { if (action) ctx.act(action); return Boolean(action); };
    switch (k.toLowerCase()) {
      case "s": return act(can("draw_stock"));
      case "p": return act(can("draw_discard") || can("take_upcard"));
      case "x": return act(can("pass"));
      case "k": knockOrChoose("knock", true); return true;
      case "g": knockOrChoose("gin", true); return true;
      case "b": return act(can("big_gin"));
      case "n":
        if (heldShowdown(view)) { dismissShowdown(); return true; }
        if (can("deal")) ui.showdownSeen = true;
        return act(can("deal"));
      case "r":
        if (view.phase === "match_over" && view.seat !== null) rematch();
        return true;
      default: return false;
    }
  }

  return { update, key, destroy() { el.replaceChildren(); } };
}
