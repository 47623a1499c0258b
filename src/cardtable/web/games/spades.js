// The Spades board, for four players (partners), three (cutthroat) or two.
// It draws the view the server sent and offers exactly the actions in
// view.legal: a bid button, card or key with no legal action behind it is
// disabled, never guessed at. Nothing here knows the rules.
//
// Layout: you at the bottom, the others around the table (four: partner at
// the top, opponents left and right; three: left and right; two: across),
// the trick in the middle with who played what, the status line and action
// buttons, your hand, and at the side the scores, the last trick and the
// scorecard. Bidding, the blind nil decision, the two-card exchange, the
// two-player draw and the end of a hand take the middle of the table.

import { h, replace } from "../dom.js";
import { cardBack, face, groupOf, nameOf, orderHand, shortOf } from "./spades_cards.js";
import { bidText, finalPanel, handSummary, lastTrickPanel, miniCard, scoreboard, scorecard } from "./spades_score.js";

const HELP = "Keys: ←/→ choose a card · Enter play it · 0–9 bid · N nil · B blind nil · L look · " +
  "Space select · P pass cards · K keep · X reject · N next hand · R rematch";
// Seats go clockwise: the next seat is on your left.
const LAYOUT = { 4: ["bottom", "left", "top", "right"], 3: ["bottom", "left", "right"], 2: ["bottom", "top"] };
const COMPASS = { bottom: "South", left: "West", top: "North", right: "East" };
const OVER = new Set(["hand_over", "match_over"]);
const PLAYING = new Set(["exchange", "play", "hand_over", "match_over"]);
const DIGIT_WAIT = 900; // ms to wait for a second digit ("1" then "2" bids 12)

const legalOf = (view) => view.legal || [];
const findLegal = (view, type, test) => legalOf(view).find((a) => a.type === type && (!test || test(a))) || null;
const isSeat = (s) => s !== null && s !== undefined;

export function mount(el, ctx) {
  const ui = {
    view: null, meta: null,
    // The finished hand stays on screen until the player has seen it, even if
    // the next hand was dealt meanwhile (a computer dealer deals at once).
    summary: null, summarySeen: true,
    showScores: false, // the scorecard drawer on a phone
    selected: [], // keys of the cards chosen for the exchange
    focus: null, // key of the hand card holding the roving tabindex
    shown: [], // hand card keys in display order
    digits: "", digitTimer: null, // a bid typed on the keyboard
    bidPanelOpen: false,
  };

  // -- who is who ---------------------------------------------------------------------------

  const players = () => ui.view?.players || ctx.seats.length || 4;
  const bottomSeat = () => (isSeat(ui.view?.seat) ? ui.view.seat : isSeat(ctx.seat) ? ctx.seat : 0);
  const positionOf = (seat) => {
    const n = players();
    return (LAYOUT[n] || LAYOUT[4])[(((seat - bottomSeat()) % n) + n) % n];
  };
  const sideOf = (view, seat) => (view.sides || []).findIndex((side) => side.includes(seat));

  /** People by their names; computers and empty seats by where they sit (you are South). */
  function seatName(s) {
    if (!isSeat(s)) return "";
    if (s === ctx.seat) return "You";
    const info = ctx.seatInfo(s);
    if (info && info.kind === "human" && info.taken && info.name) return info.name;
    return COMPASS[positionOf(s)] || `Seat ${s + 1}`;
  }

  function sideName(side, short) {
    const view = ui.view;
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

  // -- the page ------------------------------------------------------------------------------

  const zones = Object.fromEntries(["top", "left", "right", "bottom"].map((pos) =>
    [pos, h("section", { class: ["seat-zone", `pos-${pos}`], dataset: { pos } })]));
  const trickArea = h("div", { class: "trick-area", id: "trick", role: "group", "aria-label": "The trick" });
  const trickCaption = h("p", { class: "trick-caption", id: "trick-caption" });
  const centrePanel = h("div", { class: "centre-panel", id: "centre-panel" });
  const centre = h("section", { class: "sp-centre", "aria-label": "The table" },
    h("div", { class: "trick-wrap" }, trickArea, trickCaption), centrePanel);
  const statusText = h("p", { class: "status-text", id: "status", "aria-live": "polite" });
  const lastMove = h("p", { class: "last-move", id: "last-move" });
  const buttons = h("div", { class: "buttons", role: "toolbar", "aria-label": "Actions" });
  const status = h("section", { class: "status-bar", "aria-label": "Status" },
    h("div", { class: "status-lines" }, statusText, lastMove), buttons);
  const cardsEl = h("div", { class: "sp-hand-cards", role: "group", "aria-label": "Your cards" });
  const handInfo = h("div", { class: "sp-hand-info" });
  const handEl = h("section", { class: "sp-hand", id: "my-hand", "aria-label": "Your hand" }, cardsEl, handInfo);
  const side = h("aside", { class: "side sp-side" });
  const help = h("p", { class: "help-line", id: "help-line" }, HELP);
  const root = h("div", { class: "spades", dataset: { mode: "play" } },
    zones.top, zones.left, centre, zones.right, zones.bottom, status, handEl, help, side);
  el.append(root);

  // -- drawing ---------------------------------------------------------------------------------

  function update(view, meta) {
    ui.view = view;
    ui.meta = meta;
    if (OVER.has(view.phase) && view.last) {
      if (!ui.summary || ui.summary.hand !== view.last.hand) ui.summarySeen = false;
      ui.summary = view.last;
    }
    noteEvents(view, meta);
    draw();
  }

  /** The finished hand to keep showing after the next deal, if not yet dismissed. */
  function heldSummary(view) {
    const s = ui.summary;
    return !OVER.has(view.phase) && s && !ui.summarySeen && view.hand === s.hand + 1 ? s : null;
  }

  function dismissSummary() {
    ui.summarySeen = true;
    draw();
  }

  function myTurnNow() {
    const v = ui.view;
    return Boolean(v && isSeat(v.seat) && v.to_act === v.seat && !ctx.pending && ctx.online && !heldSummary(v));
  }

  function draw() {
    const view = ui.view;
    if (!view) return;
    const watching = !isSeat(view.seat);
    const held = heldSummary(view);
    const myTurn = myTurnNow();
    const ended = held || OVER.has(view.phase);
    root.dataset.players = String(view.players);
    root.dataset.phase = view.phase;
    root.dataset.mode = ended ? "summary" : "play";
    root.dataset.held = held ? "true" : "false";
    root.classList.toggle("my-turn", myTurn);
    root.classList.toggle("watching", watching);
    root.classList.toggle("scores-open", ui.showScores);
    if (!(myTurn && view.phase === "exchange")) ui.selected = [];
    if (!(myTurn && view.phase === "bid")) clearDigits();

    const keep = focusedId();
    drawSeats(view, watching);
    drawCentre(view, myTurn, held);
    statusText.textContent = statusLine(view, myTurn, held);
    drawButtons(view, myTurn, held);
    drawHand(view, myTurn);
    replace(side,
      ui.showScores ? h("button", { class: "small side-close", id: "scores-close", onclick: () => { ui.showScores = false; draw(); } }, "Close") : null,
      scoreboard(view, names, view.seat), lastTrickPanel(view, names), scorecard(view, names));
    restoreFocus(keep);
  }

  /** Redrawing replaces elements: keep the keyboard focus on the same control. */
  function focusedId() {
    const active = document.activeElement;
    return active && active.id && root.contains(active) && !cardsEl.contains(active) ? active.id : null;
  }

  function restoreFocus(id) {
    if (!id || document.activeElement?.id === id) return;
    const el = document.getElementById(id);
    if (el && !el.disabled) el.focus();
  }

  // -- the seats around the table -------------------------------------------------------------

  function drawSeats(view, watching) {
    const used = new Set();
    for (let seat = 0; seat < view.players; seat += 1) {
      const pos = positionOf(seat);
      if (pos === "bottom" && !watching) continue; // your own seat is your hand
      used.add(pos);
      seatZone(zones[pos], view, seat, pos);
    }
    for (const [pos, zone] of Object.entries(zones)) {
      zone.hidden = !used.has(pos);
      if (!used.has(pos)) zone.replaceChildren();
    }
  }

  /** "Bid 3" / "Nil" / "Bidding…" / null, and "Won 2" once the play is on. */
  function seatStats(view, seat) {
    const bid = bidText(view.bids?.[seat], view.blind?.[seat]);
    const bidding = (view.phase === "bid" || view.phase === "blind_nil") && view.to_act === seat;
    const won = view.tricks_won?.[seat] ?? 0;
    const nilBroken = view.bids?.[seat] === 0 && won > 0;
    return {
      bid: bid || (bidding ? "Bidding…" : null),
      won: PLAYING.has(view.phase) ? won : null,
      nil: view.bids?.[seat] === 0,
      nilBroken,
    };
  }

  function statChips(view, seat) {
    const st = seatStats(view, seat);
    return [
      h("span", { class: ["chip", "bid-chip", st.nil && "nil", !st.bid && "empty", st.bid === "Bidding…" && "thinking"] },
        st.bid || "No bid"),
      st.won === null ? null : h("span", { class: ["chip", "won-chip", st.nilBroken && "broken"] }, `Won ${st.won}`),
    ];
  }

  function seatZone(zone, view, seat, pos) {
    const info = ctx.seatInfo(seat);
    const name = seatName(seat);
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

  // -- the middle of the table -----------------------------------------------------------------

  function drawCentre(view, myTurn, held) {
    let panel = null;
    if (held || OVER.has(view.phase)) panel = endPanel(view, held);
    else if (view.phase === "blind_nil") panel = myTurn ? blindPanel(view) : waitPanel(view, "blind");
    else if (view.phase === "bid") panel = myTurn ? bidPanel(view) : waitPanel(view, "bid");
    else if (view.phase === "exchange") panel = exchangePanel(view, myTurn);
    else if (view.phase === "draw") panel = drawPanel(view, myTurn);
    const showTrick = view.phase === "play" && !held;
    centre.dataset.show = showTrick ? "trick" : "panel";
    trickArea.parentElement.hidden = !showTrick;
    if (showTrick) drawTrick(view);
    else {
      trickArea.replaceChildren();
      trickCaption.textContent = "";
    }
    const opening = panel && panel.classList.contains("bid-panel") && !ui.bidPanelOpen;
    ui.bidPanelOpen = Boolean(panel && panel.classList.contains("bid-panel"));
    centrePanel.hidden = !panel;
    replace(centrePanel, panel);
    // Keyboard users land on the bids when it is their turn to bid (unless busy in the hand).
    if (opening && (document.activeElement === document.body || document.activeElement === null)) {
      centrePanel.querySelector(".bid-button:not(:disabled)")?.focus();
    }
  }

  function drawTrick(view) {
    let plays = view.trick || [];
    let winner = null;
    const finished = !plays.length && view.last_trick && (view.tricks?.length ?? 0) > 0;
    if (finished) {
      plays = view.last_trick.plays;
      winner = view.last_trick.winner;
    }
    const number = (view.tricks?.length ?? 0) + (finished ? 0 : 1);
    trickArea.dataset.state = finished ? "done" : "live";
    trickArea.dataset.plays = String(plays.length);
    replace(trickArea, plays.map((p, i) => {
      const who = seatName(p.seat);
      const cardFace = face(p.card, p.joker);
      cardFace.setAttribute("aria-hidden", "true");
      return h("div", {
        class: ["trick-slot", `pos-${positionOf(p.seat)}`, p.seat === winner && "winner", i === 0 && "lead"],
        dataset: { seat: String(p.seat), card: p.card }, role: "img",
        "aria-label": `${who}: ${nameOf(p.card, p.joker)}${i === 0 ? ", led" : ""}${p.seat === winner ? ", won the trick" : ""}`,
      }, h("span", { class: "card mid" }, cardFace), h("span", { class: "trick-name", "aria-hidden": "true" }, who));
    }));
    let caption;
    if (finished) caption = `${seatName(winner)} ${winner === view.seat ? "win" : "wins"} trick ${number}`;
    else if (!plays.length) caption = `Trick ${number} of ${view.hand_size}: ${seatName(view.to_act)} ${view.to_act === view.seat ? "lead" : "leads"}`;
    else caption = `Trick ${number} of ${view.hand_size}`;
    replace(trickCaption, caption,
      view.spades_broken ? h("span", { class: "chip broken-chip", title: "Spades may be led" }, "♠ broken") : null);
  }

  /** The bids so far, in bidding order (from the dealer's left). */
  function bidsLine(view) {
    const n = view.players;
    const order = Array.from({ length: n }, (_, i) => (view.dealer + 1 + i) % n);
    return h("ol", { class: "bids-line", "aria-label": "Bids so far" }, order.map((s) => {
      const st = seatStats(view, s);
      return h("li", { class: [view.to_act === s && "now"] },
        h("span", { class: "who" }, seatName(s)), " ", h("strong", null, st.bid || "—"));
    }));
  }

  function waitPanel(view, kind) {
    const who = seatName(view.to_act);
    const line = kind === "blind" ? `${who} is deciding on blind nil…` : `${who} ${who === "You" ? "are" : "is"} bidding…`;
    const mine = isSeat(view.seat) && view.hands?.[view.seat] && !view.hands[view.seat].cards;
    return h("div", { class: "wait-panel", id: "wait-panel" },
      h("h2", null, "Bidding"), bidsLine(view), h("p", { class: "wait-line" }, line),
      mine ? h("p", { class: "hint" }, "You may bid blind nil when your turn comes: your cards stay face down until you decide.") : null);
  }

  function bidPanel(view) {
    const most = view.hand_size ?? 13;
    const partner = view.partner;
    const partnerBid = isSeat(partner) ? bidText(view.bids?.[partner], view.blind?.[partner]) : null;
    const bids = [];
    for (let n = 0; n <= most; n += 1) {
      const action = findLegal(view, "bid", (a) => a.number === n);
      bids.push(h("button", {
        class: ["bid-button", n === 0 && "nil-button"], id: `bid-${n}`, disabled: !action,
        dataset: { bid: String(n) },
        "aria-label": n === 0 ? `Nil: take no tricks (${signedValue(view.options?.nil_value)})` : `Bid ${n} trick${n === 1 ? "" : "s"}`,
        onclick: () => action && bid(action),
      }, n === 0 ? "Nil" : String(n)));
    }
    return h("div", { class: "bid-panel", id: "bid-panel", role: "group", "aria-labelledby": "bid-title" },
      h("h2", { id: "bid-title" }, "Your bid", partnerBid ? h("span", { class: "hint" }, ` · partner: ${partnerBid}`) : null),
      bidsLine(view),
      h("div", { class: "bid-buttons" }, bids),
      h("p", { class: "hint bid-typed", id: "bid-typed" }, ui.digits ? `Typed ${ui.digits}… (Enter to bid)` : "Type a number or press N for nil."));
  }

  function signedValue(n) {
    return n ? `±${n}` : "";
  }

  function blindPanel(view) {
    const value = view.options?.blind_nil_value ?? 200;
    const swap = view.players === 4 && view.options?.blind_nil_exchange;
    const blind = findLegal(view, "blind_nil");
    const look = findLegal(view, "look");
    return h("div", { class: "blind-panel", id: "blind-panel", role: "group", "aria-labelledby": "blind-title" },
      h("h2", { id: "blind-title" }, "Blind nil?"),
      h("p", null, `Bid Blind Nil before looking at your cards: +${value} if you take no tricks, −${value} if you take any.` +
        (swap ? " You and your partner then swap 2 cards." : "")),
      bidsLine(view),
      h("div", { class: "panel-buttons" },
        actionButton("blind-nil", "Blind Nil", blind, "B", "danger"),
        actionButton("look", "Look at my cards", look, "L", "primary")));
  }

  function exchangeTarget(view) {
    const giver = view.to_act;
    const side = (view.sides || []).find((s) => s.includes(giver)) || [];
    return side.find((s) => s !== giver);
  }

  function exchangePanel(view, myTurn) {
    const to = exchangeTarget(view);
    if (!myTurn) {
      const gave = view.exchange?.gave || [];
      return h("div", { class: "wait-panel", id: "wait-panel" }, h("h2", null, "Blind nil exchange"),
        h("p", { class: "wait-line" }, `${seatName(view.to_act)} ${view.to_act === view.seat ? "are" : "is"} passing 2 cards to ${seatName(to)}…`),
        gave.length ? h("p", { id: "gave-cards" }, "You passed ",
          h("span", { class: "received-cards" }, gave.map((c) => miniCard(c, null))), ".") : null);
    }
    const received = view.exchange?.received || [];
    const chosen = ui.selected.map((k) => cardOf(k)).filter(Boolean);
    const action = passAction(view);
    return h("div", { class: "exchange-panel", id: "exchange-panel", role: "group", "aria-labelledby": "exchange-title" },
      h("h2", { id: "exchange-title" }, received.length ? `Return 2 cards to ${seatName(to)}` : `Pass 2 cards to ${seatName(to)}`),
      received.length ? h("p", null, `${seatName(view.exchange.from)} passed you `,
        h("span", { class: "received-cards" }, received.map((c) => miniCard(c, null))), ".") : null,
      h("p", { class: "hint" }, "Choose 2 cards in your hand, then pass them."),
      h("div", { class: "panel-buttons" },
        h("span", { class: "chosen", id: "chosen-cards" }, chosen.length ? chosen.map((c) => shortOf(c.code, c.joker)).join(" ") : "No card chosen"),
        actionButton("pass-cards", `Pass ${chosen.length === 2 ? "these " : ""}2 cards`, action, "P", "primary")));
  }

  function drawPanel(view, myTurn) {
    const dead = view.dead || [];
    const deadRow = dead.length ? h("div", { class: "dead-cards" }, h("span", { class: "hint" }, "Your discards: "),
      dead.map((c) => miniCard(c, null))) : null;
    if (!myTurn || !view.offered) {
      return h("div", { class: "wait-panel draw-panel", id: "wait-panel" }, h("h2", null, "The draw"),
        h("p", { class: "wait-line" }, `${seatName(view.to_act)} ${view.to_act === view.seat ? "are" : "is"} drawing… · ${view.stock} cards in the stock`),
        deadRow);
    }
    const offered = face(view.offered, null);
    offered.setAttribute("aria-hidden", "true");
    return h("div", { class: "draw-panel", id: "draw-panel", role: "group", "aria-labelledby": "draw-title" },
      h("h2", { id: "draw-title" }, "Keep this card?"),
      h("div", { class: "draw-row" },
        h("div", { class: "stock-pile", "aria-label": `Stock, ${view.stock} cards`, role: "img" },
          h("span", { class: "card mid back-card" }, cardBack("")), h("span", { class: "pile-count" }, String(view.stock))),
        h("span", { class: "card mid offered", id: "offered", dataset: { card: view.offered }, role: "img", "aria-label": `Top card: ${nameOf(view.offered)}` }, offered),
        h("div", { class: "draw-buttons" },
          actionButton("keep", "Keep it", findLegal(view, "keep"), "K", "primary"),
          actionButton("reject", "Reject it", findLegal(view, "reject"), "X"),
          h("p", { class: "hint" }, "Keep: the next card is discarded unseen. Reject: this one is discarded and you take the next."))),
      deadRow);
  }

  function endPanel(view, held) {
    const row = held || view.last;
    const parts = [];
    if (view.phase === "match_over" && view.result) parts.push(finalPanel(view, names));
    if (row) parts.push(handSummary(row, view, names));
    return h("div", { class: "end-panel" }, parts);
  }

  // -- status and buttons -----------------------------------------------------------------------

  function actionButton(id, label, action, key, extra) {
    return h("button", {
      id, class: ["action", extra], disabled: !action, "aria-keyshortcuts": key,
      onclick: () => action && (typeof action === "function" ? action() : ctx.act(action)),
    }, label, key ? h("kbd", { "aria-hidden": "true" }, key) : null);
  }

  function drawButtons(view, myTurn, held) {
    const list = [];
    const watching = !isSeat(view.seat);
    if (held) {
      list.push(actionButton("continue", "Continue", dismissSummary, "N", "primary"));
    } else if (view.phase === "hand_over") {
      const deal = myTurn && findLegal(view, "deal");
      if (deal) list.push(actionButton("next-hand", "Next hand", () => { ui.summarySeen = true; ctx.act(deal); }, "N", "primary"));
    } else if (view.phase === "match_over" && !watching) {
      const votes = ui.meta?.rematch || [];
      const asked = votes.includes(view.seat);
      list.push(actionButton("rematch", asked ? "Rematch asked…" : "Rematch", asked ? null : rematch, "R", "primary"));
      const others = votes.filter((s) => s !== view.seat).map(seatName);
      if (others.length) list.push(h("span", { class: "hint", id: "rematch-votes" }, `${others.join(", ")} ${others.length > 1 ? "want" : "wants"} a rematch`));
    }
    list.push(h("button", {
      class: "small scores-toggle", id: "scores-toggle", "aria-expanded": String(ui.showScores),
      onclick: () => { ui.showScores = !ui.showScores; draw(); },
    }, ui.showScores ? "Hide scorecard" : "Scorecard"));
    replace(buttons, ...list);
  }

  function statusLine(view, myTurn, held) {
    if (held) return `Hand ${held.hand} is over. Continue when you are ready.`;
    if (view.phase === "match_over") {
      const r = view.result;
      if (!r) return "The match is over.";
      const winner = sideName(r.winner, false);
      return `${winner} ${names.plural(winner) ? "win" : "wins"} the match!`;
    }
    if (!ctx.online) return "Connection lost — reconnecting…";
    if (ctx.pending) return "Sending…";
    if (myTurn) {
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
    const other = view.to_act;
    if (!isSeat(other)) return "";
    const info = ctx.seatInfo(other);
    const name = seatName(other);
    if (info && info.kind === "human" && !info.taken) return `Waiting for a friend to sit down at ${name}…`;
    if (info && info.kind === "human" && !info.connected) return `${name} disconnected — waiting for them to come back`;
    if (view.phase === "hand_over") return `Hand over: waiting for ${name} to deal`;
    if (info && info.kind === "bot") return `${name} is thinking…`;
    if (other === view.seat) return "Your turn";
    return `Waiting for ${name}…`;
  }

  // -- your hand ---------------------------------------------------------------------------------

  function cardOf(key) {
    const mine = ui.view?.hands?.[ui.view.seat];
    return orderHand(mine?.cards || [], mine?.jokers).find((c) => c.key === key) || null;
  }

  function drawHand(view, myTurn) {
    const mine = (isSeat(view.seat) && view.hands?.[view.seat]) || { count: 0 };
    handEl.hidden = !isSeat(view.seat) || Boolean(heldSummary(view)) || (OVER.has(view.phase) && !mine.count);
    if (handEl.hidden) return;
    const hadFocus = cardsEl.contains(document.activeElement);
    const st = seatStats(view, view.seat);
    replace(handInfo,
      h("span", { class: "seat-title" }, "You"),
      ...statChips(view, view.seat),
      view.dealer === view.seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "D") : null);
    handEl.setAttribute("aria-label", `Your hand: ${mine.count} cards${st.bid ? `, ${st.bid}` : ""}` +
      `${st.won !== null ? `, ${st.won} won` : ""}`);

    if (!mine.cards) {
      // Still free to bid blind nil: the cards stay face down until you look.
      ui.shown = [];
      cardsEl.dataset.count = String(mine.count);
      cardsEl.classList.add("face-down");
      replace(cardsEl, h("span", { class: "visually-hidden" }, `${mine.count} cards, face down until you look at them`),
        Array.from({ length: mine.count }, () => h("span", { class: "card hand-card back-card", "aria-hidden": "true" }, cardBack(""))));
      return;
    }
    cardsEl.classList.remove("face-down");
    const list = orderHand(mine.cards, mine.jokers);
    const play = myTurn && view.phase === "play";
    const exchanging = myTurn && view.phase === "exchange";
    const playable = new Set(play ? legalOf(view).filter((a) => a.type === "play").map((a) => a.card) : []);
    const received = new Set(PLAYING.has(view.phase) ? view.exchange?.received || [] : []);
    ui.selected = ui.selected.filter((k) => list.some((c) => c.key === k));
    const oldIndex = ui.shown.indexOf(ui.focus);
    ui.shown = list.map((c) => c.key);
    if (!ui.shown.includes(ui.focus)) {
      ui.focus = ui.shown[Math.min(Math.max(oldIndex, 0), ui.shown.length - 1)] ?? null;
    }
    cardsEl.dataset.count = String(list.length);
    let group = null;
    replace(cardsEl, list.map((c) => {
      const starts = group !== null && groupOf(c.code) !== group;
      group = groupOf(c.code);
      const selected = ui.selected.includes(c.key);
      const canPlay = playable.has(c.code);
      const notes = [];
      if (canPlay) notes.push("playable");
      if (exchanging) notes.push(selected ? "chosen to pass" : "not chosen");
      if (received.has(c.code)) notes.push("passed to you");
      const cardFace = face(c.code, c.joker);
      cardFace.setAttribute("aria-hidden", "true");
      return h("button", {
        class: ["card", "hand-card", canPlay && "playable", selected && "selected", received.has(c.code) && "received",
          starts && "suit-start", play && !canPlay && "unplayable"],
        dataset: c.joker ? { card: c.code, key: c.key, joker: c.joker } : { card: c.code, key: c.key },
        tabindex: c.key === ui.focus ? "0" : "-1",
        "aria-label": `${nameOf(c.code, c.joker)}${notes.length ? `, ${notes.join(", ")}` : ""}`,
        "aria-pressed": exchanging ? String(selected) : undefined,
        onclick: () => { ui.focus = c.key; clickCard(c.key); },
        onfocus: () => { ui.focus = c.key; updateTabStops(); },
      }, cardFace, received.has(c.code) ? h("span", { class: "badge", "aria-hidden": "true" }, "passed") : null);
    }));
    if (hadFocus) focusKey(ui.focus);
  }

  function updateTabStops() {
    for (const el of cardsEl.querySelectorAll(".hand-card[data-key]")) el.tabIndex = el.dataset.key === ui.focus ? 0 : -1;
  }

  function focusKey(key) {
    const el = key && cardsEl.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!el) return;
    ui.focus = key;
    updateTabStops();
    el.focus();
  }

  /** Arrow keys: move along the hand; the first press goes to a playable card. */
  function moveFocus(delta) {
    if (!ui.shown.length) return;
    const inHand = cardsEl.contains(document.activeElement);
    let i = ui.shown.indexOf(ui.focus);
    if (!inHand || i < 0) {
      // Back into the hand: the remembered card if it can be played, else the first playable one.
      const remembered = i >= 0 ? cardsEl.querySelector(`[data-key="${CSS.escape(ui.focus)}"]`) : null;
      const playable = cardsEl.querySelector(".hand-card.playable");
      const target = remembered && (remembered.classList.contains("playable") || !playable) ? remembered : playable;
      focusKey(target?.dataset.key || ui.shown[0]);
      return;
    }
    i = (i + delta + ui.shown.length) % ui.shown.length;
    focusKey(ui.shown[i]);
  }

  function moveBidFocus(delta) {
    const list = [...centrePanel.querySelectorAll(".bid-button:not(:disabled)")];
    if (!list.length) return;
    const i = list.indexOf(document.activeElement);
    list[(i + delta + list.length) % list.length].focus();
  }

  // -- acting -------------------------------------------------------------------------------------

  function bid(action) {
    clearDigits();
    ctx.act(action);
  }

  function clickCard(key) {
    const view = ui.view;
    if (!myTurnNow()) return;
    const card = cardOf(key);
    if (!card) return;
    if (view.phase === "play") {
      const action = findLegal(view, "play", (a) => a.card === card.code);
      if (action) ctx.act(action);
      else ctx.toast("That card cannot be played now.", "info");
    } else if (view.phase === "exchange") {
      if (ui.selected.includes(key)) ui.selected = ui.selected.filter((k) => k !== key);
      else ui.selected = [...ui.selected, key].slice(-2);
      draw();
    }
  }

  /** The legal pass_cards action for the two chosen cards, if there is one. */
  function passAction(view) {
    if (ui.selected.length !== 2) return null;
    const codes = ui.selected.map((k) => cardOf(k)?.code).sort().join(" ");
    return findLegal(view, "pass_cards", (a) => [...(a.cards || [])].sort().join(" ") === codes);
  }

  function rematch() {
    ui.summarySeen = true;
    ctx.rematch();
    draw();
  }

  function clearDigits() {
    clearTimeout(ui.digitTimer);
    ui.digitTimer = null;
    ui.digits = "";
  }

  /** Digits bid: "5" at once; "1" waits a moment for "0"–"3" when such bids are legal. */
  function typeDigit(d) {
    const view = ui.view;
    const typed = ui.digits + d;
    clearTimeout(ui.digitTimer);
    const n = Number(typed);
    const longer = legalOf(view).some((a) => a.type === "bid" && a.number > n && String(a.number).startsWith(typed));
    if (longer) {
      ui.digits = typed;
      ui.digitTimer = setTimeout(commitDigits, DIGIT_WAIT);
      const note = document.getElementById("bid-typed");
      if (note) note.textContent = `Typed ${typed}… (Enter to bid)`;
      return;
    }
    ui.digits = typed;
    commitDigits();
  }

  function commitDigits() {
    const view = ui.view;
    const n = Number(ui.digits);
    clearDigits();
    if (!myTurnNow() || view.phase !== "bid") return;
    const action = findLegal(view, "bid", (a) => a.number === n);
    if (action) bid(action);
    else ctx.toast(`You cannot bid ${n} now.`, "info");
  }

  function key(event) {
    const view = ui.view;
    if (!view) return false;
    const k = event.key;
    if (k === "ArrowLeft" || k === "ArrowRight") {
      const delta = k === "ArrowLeft" ? -1 : 1;
      if (document.activeElement?.classList?.contains("bid-button")) moveBidFocus(delta);
      else moveFocus(delta);
      return true;
    }
    if (k === "Escape") {
      if (!ui.showScores && !ui.selected.length && !ui.digits) return false;
      ui.showScores = false;
      ui.selected = [];
      clearDigits();
      draw();
      return true;
    }
    const mine = myTurnNow();
    if (/^[0-9]$/.test(k)) {
      if (!mine || view.phase !== "bid") return false;
      typeDigit(k);
      return true;
    }
    if (k === "Enter" && ui.digits) {
      commitDigits();
      return true;
    }
    const act = (action) => {
      if (action) ctx.act(action);
      return Boolean(action);
    };
    const can = (type, test) => (mine ? findLegal(view, type, test) : null);
    switch (k.toLowerCase()) {
      case "n":
        if (heldSummary(view)) {
          dismissSummary();
          return true;
        }
        if (view.phase === "bid") return act(can("bid", (a) => a.number === 0));
        if (can("deal")) ui.summarySeen = true;
        return act(can("deal"));
      case "b": return act(can("blind_nil"));
      case "l": return act(can("look"));
      case "p": return act(mine && view.phase === "exchange" ? passAction(view) : null);
      case "k": return act(can("keep"));
      case "x": return act(can("reject"));
      case "r":
        if (view.phase === "match_over" && isSeat(view.seat) && !(ui.meta?.rematch || []).includes(view.seat)) {
          rematch();
          return true;
        }
        return false;
      default: return false;
    }
  }

  // -- what happened (the last-move line and screen readers) ------------------------------------

  function describe(e, view) {
    const name = seatName(e.seat);
    const you = e.seat === view.seat && isSeat(e.seat);
    switch (e.type) {
      case "bid": return `${name} bid ${e.blind ? "blind nil" : e.number === 0 ? "nil" : e.number}`;
      case "look": return you ? "" : `${name} looked at ${name === "You" ? "your" : "their"} cards`;
      case "play": return `${name} played ${nameOf(e.card, e.joker)}`;
      case "trick": return `${name} ${you ? "win" : "wins"} the trick`;
      case "pass_cards": return `${name} passed 2 cards to ${seatName(e.to)}`;
      case "receive_cards": return you && e.cards ? `You received ${e.cards.map((c) => nameOf(c)).join(" and ")}` : "";
      case "keep": return you ? (e.card ? `You kept ${nameOf(e.card)}` : "You kept the card") : `${name} kept a card`;
      case "reject": return you ? (e.card ? `You rejected ${nameOf(e.dead)} and took ${nameOf(e.card)}` : "You rejected the card")
        : `${name} rejected a card`;
      case "deal": return `${name} dealt hand ${e.hand}`;
      case "play_starts": return `${name} ${you ? "lead" : "leads"}`;
      case "hand_over": return "The hand is over";
      default: return "";
    }
  }

  function short(e, view) {
    if (e.type === "play") return `${seatName(e.seat)} played ${shortOf(e.card, e.joker)}`;
    return describe(e, view);
  }

  function noteEvents(view, meta) {
    const events = (meta && meta.events) || [];
    const mine = (e) => e.seat === view.seat && isSeat(view.seat);
    const spoken = events.filter((e) => (!mine(e) || ["trick", "receive_cards", "keep", "reject", "play_starts"].includes(e.type)) &&
      describe(e, view)).map((e) => describe(e, view));
    if (spoken.length) ctx.announce(`${spoken.join(". ")}.`);
    const others = events.filter((e) => !mine(e) && describe(e, view) && e.type !== "hand_over");
    if (others.length) lastMove.textContent = short(others[others.length - 1], view);
    else if (events.some((e) => e.type === "deal")) lastMove.textContent = "";
  }

  return {
    update,
    key,
    destroy() {
      clearDigits();
      el.replaceChildren();
    },
  };
}
