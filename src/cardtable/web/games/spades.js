// The Spades board, for four players (partners), three (cutthroat) or two, in
// the shared frame (board.js). It draws the view the server sent and offers
// exactly the actions in view.legal: a bid button, card or key with no legal
// action behind it is disabled, never guessed at. Nothing here knows the rules.
//
// Layout: you at the bottom, the others around the table (four: partner at
// the top, opponents left and right; three: left and right; two: across),
// the trick in the middle with who played what (spades_table.js), the status
// line and action buttons, your hand (spades_hand.js), and at the side the
// scores, the last trick and the scorecard. Bidding (spades_bidding.js), the
// blind nil exchange, the two-player draw and the end of a hand
// (spades_panels.js) take the middle of the table.

import { h, replace } from "../dom.js";
import { findLegal, isSeat, mountBoard } from "./board.js";
import { Bidding, bidPanel, blindPanel, waitPanel } from "./spades_bidding.js";
import { noteEvents } from "./spades_events.js";
import { SpadesHand } from "./spades_hand.js";
import { drawPanel, endPanel, exchangePanel } from "./spades_panels.js";
import { lastTrickPanel, scoreboard, scorecard } from "./spades_score.js";
import { COMPASS, drawSeats, drawTrick, position } from "./spades_table.js";

export const STYLES = ["board", "spades"];

const HELP = "Keys: ←/→ choose a card · Enter play it · 0–9 bid · N nil · B blind nil · L look · " +
  "Space select · P pass cards · K keep · X reject · N next hand · R rematch";
const OVER = new Set(["hand_over", "match_over"]);

export function mount(el, ctx) {
  return mountBoard(el, ctx, (frame) => spadesBoard(frame, ctx));
}

function spadesBoard(frame, ctx) {
  let selected = []; // keys of the cards chosen for the exchange
  let bidPanelOpen = false;

  // -- who is who ---------------------------------------------------------------------------

  const players = () => frame.view?.players || ctx.seats.length || 4;
  const bottomSeat = () => (isSeat(frame.view?.seat) ? frame.view.seat : isSeat(ctx.seat) ? ctx.seat : 0);
  const positionOf = (seat) => position(seat, bottomSeat(), players());

  /** People by their names; computers and empty seats by where they sit (you are South). */
  function seatName(s) {
    if (!isSeat(s)) return "";
    if (s === ctx.seat) return "You";
    const info = ctx.seatInfo(s);
    if (info && info.kind === "human" && info.taken && info.name) return info.name;
    return COMPASS[positionOf(s)] || `Seat ${s + 1}`;
  }

  function sideName(side, short) {
    const view = frame.view;
    const seats = view?.sides?.[side] || [side];
    if (seats.length === 1) return seatName(seats[0]);
    const mine = isSeat(view?.seat) && seats.includes(view.seat);
    if (short) {
      if (isSeat(view?.seat)) return mine ? "Us" : "Them";
      const order = "NESW";
      return seats.map((s) => COMPASS[positionOf(s)][0]).sort((a, b) => order.indexOf(a) - order.indexOf(b)).join("–"); // "N–S"
    }
    const ordered = mine ? [view.seat, ...seats.filter((s) => s !== view.seat)] : seats;
    return ordered.map(seatName).join(" & ");
  }

  const names = { seat: seatName, side: sideName, plural: (name) => name === "You" || name.includes(" & ") };
  // The shell asks the board for names (seat chips, status) and invite labels.
  ctx.seatName = seatName;
  ctx.seatRole = (s) => {
    const pos = positionOf(s);
    const where = COMPASS[pos];
    if (players() === 4) return pos === "top" ? `${where} · your partner` : `${where} · opponent on your ${pos}`;
    if (players() === 3) return `${where} · on your ${pos}`;
    return `${where} · your opponent`;
  };
  const table = { positionOf, seatName, seatInfo: ctx.seatInfo };

  // -- the page ------------------------------------------------------------------------------

  const zones = Object.fromEntries(["top", "left", "right", "bottom"].map((pos) =>
    [pos, h("section", { class: ["seat-zone", `pos-${pos}`], dataset: { pos } })]));
  const trickArea = h("div", { class: "trick-area", id: "trick", role: "group", "aria-label": "The trick" });
  const trickCaption = h("p", { class: "trick-caption", id: "trick-caption" });
  const centrePanel = h("div", { class: "centre-panel", id: "centre-panel" });
  const centre = h("section", { class: "sp-centre", "aria-label": "The table" },
    h("div", { class: "trick-wrap" }, trickArea, trickCaption), centrePanel);
  const hand = new SpadesHand((key) => clickCard(key));
  const bidding = new Bidding({
    send: (action) => ctx.act(action),
    mayBid: () => frame.myTurn() && frame.view.phase === "bid",
    view: () => frame.view,
    toast: ctx.toast,
  });

  function draw(view, turn) {
    const { myTurn, held } = turn;
    if (!(myTurn && view.phase === "exchange")) selected = [];
    if (!(myTurn && view.phase === "bid")) bidding.clear();
    selected = selected.filter((k) => hand.cardOf(view, k));
    drawSeats(zones, view, turn.watching, table);
    drawCentre(view, myTurn, held);
    const mine = (isSeat(view.seat) && view.hands?.[view.seat]) || { count: 0 };
    hand.render(view, {
      myTurn, selected,
      hidden: turn.watching || Boolean(held) || (OVER.has(view.phase) && !mine.count),
    });
  }

  function drawCentre(view, myTurn, held) {
    let panel = null;
    if (held || OVER.has(view.phase)) panel = endPanel(view, held, names);
    else if (view.phase === "blind_nil") panel = myTurn ? blindPanel(view, seatName, frame.button) : waitPanel(view, "blind", seatName);
    else if (view.phase === "bid") panel = myTurn ? bidPanel(view, seatName, bidding) : waitPanel(view, "bid", seatName);
    else if (view.phase === "exchange") {
      panel = exchangePanel(view, {
        myTurn, seatName, button: frame.button, action: passAction(view),
        chosen: selected.map((k) => hand.cardOf(view, k)).filter(Boolean),
      });
    } else if (view.phase === "draw") panel = drawPanel(view, { myTurn, seatName, button: frame.button });
    const showTrick = view.phase === "play" && !held;
    centre.dataset.show = showTrick ? "trick" : "panel";
    trickArea.parentElement.hidden = !showTrick;
    if (showTrick) drawTrick(trickArea, trickCaption, view, table);
    else {
      trickArea.replaceChildren();
      trickCaption.textContent = "";
    }
    const opening = panel && panel.classList.contains("bid-panel") && !bidPanelOpen;
    bidPanelOpen = Boolean(panel && panel.classList.contains("bid-panel"));
    centrePanel.hidden = !panel;
    replace(centrePanel, panel);
    // Keyboard users land on the bids when it is their turn to bid (unless busy in the hand).
    if (opening && (document.activeElement === document.body || document.activeElement === null)) {
      centrePanel.querySelector(".bid-button:not(:disabled)")?.focus();
    }
  }

  function status(view, turn) {
    if (view.phase === "match_over") {
      const r = view.result;
      if (!r) return "The match is over.";
      const winner = sideName(r.winner, false);
      return `${winner} ${names.plural(winner) ? "win" : "wins"} the match!`;
    }
    if (!turn.myTurn) return null;
    switch (view.phase) {
      case "blind_nil": return "Your turn: bid blind nil, or look at your cards";
      case "bid": return "Your turn to bid";
      case "exchange": return view.exchange?.received?.length ? "Choose 2 cards to return to your partner" : "Choose 2 cards to pass to your partner";
      case "play": return (view.trick || []).length ? "Your turn: play a highlighted card" : "Your lead: play a highlighted card";
      case "draw": return "Your draw: keep the top card or reject it";
      case "hand_over": return "Hand over: deal the next hand";
      default: return "Your turn";
    }
  }

  // -- acting -------------------------------------------------------------------------------------

  function clickCard(key) {
    const view = frame.view;
    if (!frame.myTurn()) return;
    const card = hand.cardOf(view, key);
    if (!card) return;
    if (view.phase === "play") {
      const action = findLegal(view, "play", (a) => a.card === card.code);
      if (action) ctx.act(action);
      else ctx.toast("That card cannot be played now.", "info");
    } else if (view.phase === "exchange") {
      if (selected.includes(key)) selected = selected.filter((k) => k !== key);
      else selected = [...selected, key].slice(-2);
      frame.draw();
    }
  }

  /** The legal pass_cards action for the two chosen cards, if there is one. */
  function passAction(view) {
    if (selected.length !== 2) return null;
    const codes = selected.map((k) => hand.cardOf(view, k)?.code).sort().join(" ");
    return findLegal(view, "pass_cards", (a) => [...(a.cards || [])].sort().join(" ") === codes);
  }

  function moveBidFocus(delta) {
    const list = [...centrePanel.querySelectorAll(".bid-button:not(:disabled)")];
    if (!list.length) return;
    const i = list.indexOf(document.activeElement);
    list[(i + delta + list.length) % list.length].focus();
  }

  function key(event, low, turn) {
    const view = frame.view;
    if (low === "ArrowLeft" || low === "ArrowRight") {
      const delta = low === "ArrowLeft" ? -1 : 1;
      if (document.activeElement?.classList?.contains("bid-button")) moveBidFocus(delta);
      else hand.moveFocus(delta);
      return true;
    }
    if (/^[0-9]$/.test(low)) {
      if (!turn.myTurn || view.phase !== "bid") return false;
      bidding.type(low);
      return true;
    }
    if (low === "Enter" && bidding.digits) {
      bidding.commit();
      return true;
    }
    const act = (type, test) => {
      const action = turn.myTurn ? findLegal(view, type, test) : null;
      if (action) ctx.act(action);
      return Boolean(action);
    };
    switch (low) {
      case "n": return view.phase === "bid" && act("bid", (a) => a.number === 0);
      case "b": return act("blind_nil");
      case "l": return act("look");
      case "p": {
        const action = turn.myTurn && view.phase === "exchange" ? passAction(view) : null;
        if (action) ctx.act(action);
        return Boolean(action);
      }
      case "k": return act("keep");
      case "x": return act("reject");
      default: return false;
    }
  }

  return {
    name: "spades",
    help: HELP,
    sideClass: "sp-side",
    above: [zones.top, zones.left, centre, zones.right, zones.bottom],
    below: [hand.el],
    draw,
    status,
    buttons: () => [],
    scores: (view) => [scoreboard(view, names, view.seat), lastTrickPanel(view, names), scorecard(view, names)],
    events: (view, meta) => noteEvents(view, meta, seatName, ctx.announce),
    waitingFriend: (seat, name) => `Waiting for a friend to sit down at ${name}…`,
    key,
    clear() {
      const had = selected.length > 0 || Boolean(bidding.digits);
      selected = [];
      bidding.clear();
      return had;
    },
    destroy: () => bidding.clear(),
  };
}
