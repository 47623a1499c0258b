// The Spades board, for four players (partners), three (cutthroat) or two, in
// the shared frame (../board.js). It draws the view the server sent and offers
// exactly the actions in view.legal: a bid button, card or key with no legal
// action behind it is disabled, never guessed at. Nothing here knows the rules.
//
// Layout: you at the bottom, the others around the table (four: partner at
// the top, opponents left and right; three: left and right; two: across),
// the trick in the middle with who played what (table.js), the status
// line and action buttons, your hand (hand.js), and at the side the
// scores, the last trick and the scorecard. Bidding (bidding.js), the
// blind nil exchange, the two-player draw and the end of a hand
// (panels.js) take the middle of the table.
//
// Playing a card: a click, Enter, or dragging it onto the trick plays it at
// once; on a touch screen the first tap only picks the card (raised, with a
// Play button) and a second tap on it, the trick or Play plays it, so a finger
// that lands on the wrong card of an overlapped hand costs nothing. A card
// that cannot be played is still sent: the server answers with the engine's
// reason ("you must follow hearts"), shown above that card and read out.

import { h, replace } from "../../dom.js";
import { findLegal, isSeat, mountBoard } from "../board.js";
import { Bidding, bidPanel, blindPanel, startingBid, waitPanel } from "./bidding.js";
import { noteEvents } from "./events.js";
import { SpadesHand } from "./hand.js";
import { nameOf, shortOf } from "./cards.js";
import { drawPanel, endPanel, exchangePanel } from "./panels.js";
import { lastTrickPanel, scoreboard, scorecard } from "./score.js";
import { COMPASS, drawSeats, drawTrick, position } from "./table.js";

export const STYLES = ["board", "spades/board"];

export const HELP = "Keys: ←/→ choose a card · Enter play it · 0–9 bid · N nil (twice) · B blind nil (twice) · L look · " +
  "Space select · P pass cards · K keep · X reject · N next hand · R rematch";
const OVER = new Set(["hand_over", "match_over"]);

export function mount(el, ctx) {
  let game = null;
  const board = mountBoard(el, ctx, (frame) => (game = spadesBoard(frame, ctx)));
  // An error frame for this table (the page hands it over; true: shown here, no toast).
  return { ...board, error: (d) => Boolean(game?.error(d)) };
}

const capital = (text) => String(text).charAt(0).toUpperCase() + String(text).slice(1);

function spadesBoard(frame, ctx) {
  let selected = []; // keys of the cards chosen for the exchange
  let chosen = null; // key of the card a first tap picked to play
  let tried = null; // key of an unplayable card sent to learn the engine's reason
  let moment = ""; // the trick in hand: a picked or refused card is forgotten when it moves on
  let panelOpen = null; // "bid-panel" or "blind-panel" while that panel is up

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
  const trickWrap = centre.querySelector(".trick-wrap");
  trickWrap.dataset.drop = "trick"; // a card dragged here is played
  trickWrap.addEventListener("click", () => { if (chosen) playKey(chosen); });
  const hand = new SpadesHand({
    click: (key, how) => clickCard(key, how),
    drop: (key, target) => { if (target === trickWrap) playKey(key); },
    dragEnd: () => frame.afterDrag(),
    canDrag: (key) => Boolean(playFor(key)),
  });
  const bidding = new Bidding({
    send: (action) => ctx.act(action),
    mayBid: () => frame.myTurn() && ["bid", "blind_nil"].includes(frame.view.phase),
    view: () => frame.view,
    toast: ctx.toast,
    redraw: () => frame.draw(),
    say: ctx.announce,
  });

  function draw(view, turn) {
    const { myTurn, held } = turn;
    if (!(myTurn && view.phase === "exchange")) selected = [];
    if (!(myTurn && ["bid", "blind_nil"].includes(view.phase))) bidding.clear();
    if (!(myTurn && view.phase === "play") || !hand.cardOf(view, chosen)) chosen = null;
    selected = selected.filter((k) => hand.cardOf(view, k));
    drawSeats(zones, view, turn.watching, table);
    drawCentre(view, myTurn, held);
    const mine = (isSeat(view.seat) && view.hands?.[view.seat]) || { count: 0 };
    centre.classList.toggle("can-drop", Boolean(chosen));
    hand.render(view, {
      myTurn, selected, chosen,
      hidden: turn.watching || Boolean(held) || (OVER.has(view.phase) && !mine.count),
    });
  }

  /** A new trick, a card played, a new phase: what was picked or refused is old news. */
  function update(view) {
    const now = [view.hand, view.phase, view.tricks?.length ?? 0, view.trick?.length ?? 0, view.to_act].join(":");
    if (now === moment) return;
    moment = now;
    chosen = null;
    tried = null;
    hand.setNote(null);
  }

  function drawCentre(view, myTurn, held) {
    let panel = null;
    if (held || OVER.has(view.phase)) {
      panel = endPanel(view, held, names);
      const fair = ctx.fairness?.line();
      if (fair) panel.append(fair);
    }
    else if (view.phase === "blind_nil") panel = myTurn ? blindPanel(view, seatName, frame.button, bidding) : waitPanel(view, "blind", seatName);
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
    const kind = panel && ["bid-panel", "blind-panel"].find((c) => panel.classList.contains(c));
    const opening = kind && kind !== panelOpen;
    panelOpen = kind || null;
    centrePanel.hidden = !panel;
    replace(centrePanel, panel);
    // Keyboard users land on the decision when it is theirs (unless busy in the hand), on a
    // safe choice: a middling bid, or looking at the cards; never on Nil or Blind Nil.
    if (opening && (document.activeElement === document.body || document.activeElement === null)) {
      const start = kind === "bid-panel" ? `bid-${startingBid(view)}` : "look";
      document.getElementById(start)?.focus();
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

  /** The legal play of the card with this key, if it is my turn to play. */
  function playFor(key) {
    const view = frame.view;
    const card = key && hand.cardOf(view, key);
    return card && frame.myTurn() && view.phase === "play" ? findLegal(view, "play", (a) => a.card === card.code) : null;
  }

  function playKey(key) {
    const action = playFor(key);
    if (!action) return;
    chosen = null;
    hand.setNote(null);
    ctx.act(action);
  }

  /** how: "touch" (a first tap only picks the card), "mouse" or "key". */
  function clickCard(key, how) {
    const view = frame.view;
    if (!frame.myTurn()) return;
    const card = hand.cardOf(view, key);
    if (!card) return;
    if (view.phase === "play") {
      if (playFor(key)) {
        if (how === "touch" && chosen !== key) {
          chosen = key;
          hand.setNote(null);
          frame.draw();
        } else playKey(key);
      } else refuse(key, card);
    } else if (view.phase === "exchange") {
      if (selected.includes(key)) selected = selected.filter((k) => k !== key);
      else selected = [...selected, key].slice(-2);
      frame.draw();
    }
  }

  /**
   * A card that is not playable: the engine alone knows why, so ask it by playing the card;
   * the refusal comes back as an error frame (error() below). Until then, and if the page
   * cannot hand the answer over, a plain note says it cannot be played.
   */
  function refuse(key, card) {
    chosen = null;
    hand.setNote(key, `${shortOf(card.code, card.joker)} cannot be played now`);
    tried = ctx.act({ type: "play", card: card.code }) ? key : null;
    frame.draw();
  }

  /** The server's error frame: an illegal card's reason goes above the card. */
  function error(d) {
    if (!tried || d?.code !== "illegal") return false;
    const card = hand.cardOf(frame.view, tried);
    const reason = capital(d.message || "that card cannot be played now");
    hand.setNote(tried, reason);
    tried = null;
    if (card) ctx.announce(`${capital(nameOf(card.code, card.joker))}: ${reason}.`);
    frame.draw();
    return true;
  }

  /** The first-hand hint: what to do now, in a few words. */
  function hint(view, turn) {
    if (!turn.myTurn) return null;
    const tap = matchMedia("(pointer: coarse)").matches ? " · Tap a card twice to play it" : "";
    switch (view.phase) {
      case "blind_nil": return "Blind nil scores double but is bid before you look; most players look first";
      case "bid": return isSeat(view.partner)
        ? "Bid how many tricks you expect to take (with your partner's)" : "Bid how many tricks you expect to take";
      case "exchange": return "Pick 2 cards in your hand to pass to your partner";
      case "draw": return "Keep the top card, or reject it and take the next one";
      case "play": {
        if ((view.trick || []).length) return `Follow suit if you can; spades are trumps${tap}`;
        if (!(view.tricks || []).length) return `Lead one of the highlighted cards; spades are trumps${tap}`;
        const free = view.spades_broken || view.options?.spade_breaking === false;
        return `${free ? "Lead any suit; spades are trumps" : "Lead any suit; spades only once broken"}${tap}`;
      }
      default: return null;
    }
  }

  /** The status bar's Play button while a tapped card waits for its second tap. */
  function buttons(view, turn) {
    const action = turn.myTurn && chosen && playFor(chosen);
    if (!action) return [];
    const card = hand.cardOf(view, chosen);
    return [frame.button("play-chosen", `Play ${shortOf(card.code, card.joker)}`, () => playKey(chosen), null, "primary")];
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
      case "n": {
        const nil = turn.myTurn && view.phase === "bid" ? findLegal(view, "bid", (a) => a.number === 0) : null;
        if (nil) bidding.bid(nil);
        return Boolean(nil);
      }
      case "b": {
        const blind = turn.myTurn ? findLegal(view, "blind_nil") : null;
        if (blind) bidding.blindNil(blind);
        return Boolean(blind);
      }
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
    update,
    status,
    hint,
    error,
    buttons,
    scores: (view) => [scoreboard(view, names, view.seat), lastTrickPanel(view, names), scorecard(view, names)],
    events: (view, meta) => noteEvents(view, meta, seatName, ctx.announce),
    waitingFriend: (seat, name) => `Waiting for a friend to sit down at ${name}…`,
    key,
    clear() {
      const had = selected.length > 0 || Boolean(bidding.digits) || Boolean(bidding.armed) || Boolean(chosen);
      const armed = bidding.armed;
      selected = [];
      chosen = null;
      bidding.clear();
      if (armed) bidding.cancel(); // back on the button that asked
      return had;
    },
    destroy() {
      bidding.clear();
      hand.destroy();
    },
  };
}
