// The table-meld board: Rummy, and through rummy500.js / romme.js Rummy 500
// and Rommé. It draws the view the server sent (state.py's `view(seat)`) and
// sends only actions found in view.legal: a selection is matched against the
// legal melds, a drop on a table meld against the legal lay-offs and joker
// exchanges, and a selection that matches nothing gets a message instead of a
// move (nothing is lost). No card values or meld rules live here: a staged
// first meld is totalled from view.candidates.
//
// Layout: the others around the top, the stock and discard pile beside the
// melds on the table (grouped by who laid them), the status line and action
// buttons, the first-meld staging panel, your hand; the scorecard at the side
// (a drawer on a phone). A finished hand takes the middle until dismissed.

import { h, replace } from "../dom.js";
import { isDragging } from "../drag.js";
import { keyed, shortOf, within } from "./rummy_cards.js";
import { noteEvents } from "./rummy_events.js";
import { GAMES } from "./rummy_games.js";
import { Hand } from "./rummy_hand.js";
import { findLegal, legalOf, meldAction, Moves, placeAction } from "./rummy_moves.js";
import { finalPanel, handSummary, scorecard, winnersText } from "./rummy_score.js";
import { meldPanel, piles, seatBox, seatOrder, tableMelds } from "./rummy_table.js";

const HELP = "Keys: ←/→ cards · Enter/Space select · M meld · A add group · L lay off · D discard · " +
  "S stock · P pile · X pass · Esc clear · N deal/continue · R rematch";
const OVER = new Set(["hand_over", "match_over"]);
const KNOWN = new Set(["draw_stock", "draw_discard", "meld", "lay_off", "swap_joker", "discard", "deal"]);
const isSeat = (s) => s !== null && s !== undefined;

export function mount(el, ctx) {
  return mountTableMelds(el, ctx, GAMES.rummy);
}

export function mountTableMelds(el, ctx, game) {
  const ui = {
    view: null, meta: null,
    selected: [], // hand keys, in the order chosen
    staged: [], // groups of hand keys staged for a first meld
    summary: null, summarySeen: true, // the finished hand stays up until seen
    showScores: false, redrawAfterDrag: false,
    mine: [], handNo: null, fresh: new Set(),
  };

  // -- names --------------------------------------------------------------------------------
  const baseName = (s) => {
    const info = ctx.seatInfo(s);
    if (info && !info.taken) return `Seat ${s + 1}`;
    return (info && info.name) || (info && info.kind === "bot" ? "Computer" : `Seat ${s + 1}`);
  };
  function seatName(s) {
    if (!isSeat(s)) return "";
    if (s === ctx.seat) return "You";
    const base = baseName(s);
    const twin = ctx.seats.some((o) => o.seat !== s && o.seat !== ctx.seat && baseName(o.seat) === base);
    return twin ? `${base} ${s + 1}` : base;
  }
  ctx.seatName = seatName;
  const names = { seat: seatName, comeOut: game.comeOut, onTable: game.onTable };

  // -- the page -----------------------------------------------------------------------------
  const seatsEl = h("section", { class: "rm-seats", id: "seats", "aria-label": "Players" });
  const centre = h("section", { class: "rm-centre", "aria-label": "The table" });
  const summarySlot = h("div", { class: "rm-summary-slot", id: "summary-slot" });
  const statusText = h("p", { class: "status-text", id: "status", "aria-live": "polite" });
  const lastMove = h("p", { class: "last-move", id: "last-move" });
  const message = h("p", { class: "rm-message", id: "message", role: "alert" });
  const buttons = h("div", { class: "buttons", role: "toolbar", "aria-label": "Actions" });
  const status = h("section", { class: "status-bar", "aria-label": "Status" },
    h("div", { class: "status-lines" }, statusText, lastMove, message), buttons);
  const stageSlot = h("div", { class: "rm-stage-slot" });
  const hand = new Hand(ctx, {
    click: (key) => moves.clickCard(key),
    drop: (key, target) => moves.drop(key, target),
    dragEnd: () => { if (ui.redrawAfterDrag) draw(); },
    changed: () => draw(),
  });
  const side = h("aside", { class: "side rm-side" });
  const help = h("p", { class: "help-line", id: "help-line" }, HELP);
  const root = h("div", { class: "rummy", dataset: { game: game.name, mode: "play" } },
    seatsEl, centre, summarySlot, status, stageSlot, hand.el, help, side);
  el.append(root);

  // -- state of the turn ---------------------------------------------------------------------
  const myTurnNow = () => {
    const v = ui.view;
    return Boolean(v && isSeat(v.seat) && v.to_act === v.seat && !ctx.pending && ctx.online && !heldSummary(v));
  };
  const playing = () => myTurnNow() && ui.view.phase === "play";
  const need = () => (playing() ? ui.view.first_meld || 0 : 0);
  const myCards = () => ui.view?.hands?.[ui.view.seat]?.cards || [];
  const moves = new Moves({ ui, hand, ctx, draw: () => draw(), playing, need, message });
  const send = (action) => moves.send(action);

  // -- drawing -------------------------------------------------------------------------------
  function update(v, meta) {
    ui.view = v;
    ui.meta = meta;
    if (OVER.has(v.phase) && v.last) {
      if (!ui.summary || ui.summary.hand !== v.last.hand) ui.summarySeen = false;
      ui.summary = v.last;
    }
    const line = noteEvents(v, meta, names, ctx.announce);
    if (line !== null) lastMove.textContent = line;
    if ((meta?.events || []).some((e) => isSeat(v.seat) && e.seat === v.seat)) moves.say("");
    noteFresh(v);
    if (isDragging()) {
      ui.redrawAfterDrag = true;
      return;
    }
    draw();
  }

  function noteFresh(v) {
    const mine = v.hands?.[v.seat]?.cards || [];
    if (ui.handNo === v.hand && mine.length > ui.mine.length) {
      const old = [...ui.mine];
      ui.fresh = new Set(mine.filter((c) => { const i = old.indexOf(c); if (i < 0) return true; old.splice(i, 1); return false; }));
    } else if (ui.handNo !== v.hand || mine.length < ui.mine.length) ui.fresh = new Set();
    ui.mine = mine;
    ui.handNo = v.hand;
  }

  function heldSummary(v) {
    const s = ui.summary;
    return !OVER.has(v.phase) && s && !ui.summarySeen && v.hand === s.hand + 1 ? s : null;
  }

  function dismissSummary() {
    ui.summarySeen = true;
    draw();
  }

  function draw() {
    ui.redrawAfterDrag = false;
    const v = ui.view;
    if (!v) return;
    const me = v.seat;
    const watching = !isSeat(me);
    const held = heldSummary(v);
    const myTurn = myTurnNow();
    const ended = held || (OVER.has(v.phase) && (v.last || v.result));
    const order = seatOrder(v.players, watching ? 0 : me);
    root.dataset.players = String(v.players);
    root.dataset.phase = v.phase;
    root.dataset.mode = ended ? "summary" : "play";
    root.dataset.held = held ? "true" : "false";
    root.classList.toggle("my-turn", myTurn);
    root.classList.toggle("watching", watching);
    root.classList.toggle("scores-open", ui.showScores);
    if (!playing()) ui.staged = [];
    const heldKeys = new Set(keyed(myCards()).map((c) => c.key)); // the same keys in any order
    ui.selected = ui.selected.filter((k) => heldKeys.has(k));
    ui.staged = ui.staged.filter((g) => g.every((k) => heldKeys.has(k)));
    const keep = focusedId();

    replace(seatsEl, order.filter((s) => s !== me).map((s) => seatBox(v, s, names, ctx, OVER.has(v.phase))));
    drawCentre(v, myTurn, order);
    replace(summarySlot, ended ? endPanel(v, held, order) : null);
    statusText.textContent = statusLine(v, myTurn, held);
    drawButtons(v, myTurn, held);
    replace(stageSlot, ended || watching ? null : stagePanel(v));
    drawHand(v, myTurn, watching);
    replace(side, ui.showScores ? h("button", { class: "small side-close", id: "scores-close", onclick: () => { ui.showScores = false; draw(); } }, "Close") : null,
      scorecard(v, names, game, order));
    restoreFocus(keep);
  }

  function drawCentre(v, myTurn, order) {
    const play = myTurn && v.phase === "play";
    const oneSelected = ui.selected.length === 1 ? hand.codeOf(ui.selected[0]) : null;
    replace(centre,
      piles(v, {
        stockAction: myTurn ? findLegal(v, "draw_stock") : null,
        pickOf: (depth) => (myTurn ? findLegal(v, "draw_discard", (a) => (a.number ?? 1) === depth) : null),
        discardTarget: play && Boolean(findLegal(v, "discard")),
        fan: game.fan || legalOf(v).some((a) => a.type === "draw_discard" && (a.number ?? 1) > 1),
        act: send, discardSelected: () => moves.discard(),
      }),
      tableMelds(v, {
        order, names, credit: game.credit, dropMeld: play && Boolean(findLegal(v, "meld")),
        target: (id) => (!play || !oneSelected ? null : placeAction(v, "lay_off", oneSelected, id) ? "lay_off"
          : placeAction(v, "swap_joker", oneSelected, id) ? "swap" : null),
        click: (id, onJoker) => moves.placeOn(id, onJoker),
      }));
  }

  function endPanel(v, held, order) {
    const row = held || v.last;
    return h("div", { class: "rm-end" },
      v.phase === "match_over" && v.result && !held ? finalPanel(v, names, game) : null,
      row ? handSummary(row, v, names, game, order) : null);
  }

  function stagePanel(v) {
    if (!playing()) return null;
    const n = need();
    const staged = moves.stagedGroups();
    const stagedCodes = staged.flatMap((g) => g.codes);
    const free = [...myCards()];
    for (const c of stagedCodes) if (free.includes(c)) free.splice(free.indexOf(c), 1);
    const candidates = (v.candidates || []).map((c) => ({
      cards: c.cards, value: c.value, legal: n > 0 ? true : Boolean(meldAction(v, c.cards)), used: !within(c.cards, free),
    }));
    return meldPanel({
      need: n, staged, total: moves.stagedTotal(), candidates, showValues: game.showValues || n > 0,
      pick: (cards) => moves.pickCards(cards), unstage: (i) => { ui.staged.splice(i, 1); draw(); },
      clear: () => { ui.staged = []; draw(); },
    });
  }

  function drawHand(v, myTurn, watching) {
    const mine = (isSeat(v.seat) && v.hands?.[v.seat]) || { count: 0 };
    hand.el.hidden = watching || Boolean(heldSummary(v)) || (OVER.has(v.phase) && !mine.count);
    if (hand.el.hidden) return;
    const play = myTurn && v.phase === "play";
    const set = (type) => new Set(play ? legalOf(v).filter((a) => a.type === type).map((a) => a.card) : []);
    const fits = set("lay_off");
    for (const c of set("swap_joker")) fits.add(c);
    const staged = new Map();
    ui.staged.forEach((g, i) => g.forEach((k) => staged.set(k, i)));
    const info = [
      h("span", { class: "seat-title" }, "You"),
      v.dealer === v.seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "D") : null,
      h("span", { class: "chip count-chip" }, `${mine.count} card${mine.count === 1 ? "" : "s"}`),
      game.comeOut && mine.melded ? h("span", { class: "chip out-chip" }, "came out") : null,
      game.onTable?.(v, v.seat) ? h("span", { class: "chip table-chip", id: "my-table-points" }, `${game.onTable(v, v.seat)} on the table`) : null,
      (mine.picked || []).length ? h("span", { class: "chip picked-chip" }, `picked up ${mine.picked.map(shortOf).join(" ")}`) : null,
    ];
    hand.render(mine.cards || [], {
      selected: new Set(ui.selected), staged, fits, discardable: set("discard"),
      must: play ? v.must_place || [] : [], taken: play ? v.taken : null, fresh: ui.fresh, info,
    });
  }

  function focusedId() {
    const a = document.activeElement;
    return a && a.id && root.contains(a) && !hand.cardsEl.contains(a) ? a.id : null;
  }

  function restoreFocus(id) {
    if (!id || document.activeElement?.id === id) return;
    const target = document.getElementById(id);
    if (target && !target.disabled) target.focus();
  }

  // -- status and buttons -----------------------------------------------------------------------
  function button(id, label, run, key, extra) {
    return h("button", {
      id, class: ["action", extra], disabled: !run, "aria-keyshortcuts": key,
      onclick: () => run && (typeof run === "function" ? run() : send(run)),
    }, label, key ? h("kbd", { "aria-hidden": "true" }, key) : null);
  }

  function drawButtons(v, myTurn, held) {
    const list = [];
    const watching = !isSeat(v.seat);
    if (held) list.push(button("continue", "Continue", dismissSummary, "N", "primary"));
    else if (v.phase === "play" && myTurn) {
      const any = (type) => Boolean(findLegal(v, type));
      const n = need();
      const selected = ui.selected.length > 0;
      const canMeld = any("meld") && (selected || ui.staged.length > 0);
      const total = moves.stagedTotal();
      list.push(button("meld", n > 0 && total >= n ? `Meld ${total}` : "Meld", canMeld && (() => moves.meld()), "M", "primary"));
      if (n > 0) list.push(button("stage", "Add group", selected && (v.candidates || []).length > 0 && (() => moves.stage()), "A"));
      if (any("lay_off") || any("swap_joker")) list.push(button("lay-off", "Lay off", ui.selected.length === 1 && (() => moves.layOff()), "L"));
      list.push(button("discard", "Discard", any("discard") && ui.selected.length === 1 && (() => moves.discard()), "D"));
    } else if (v.phase === "hand_over" && myTurn) {
      const deal = findLegal(v, "deal");
      list.push(button("next-hand", "Deal", deal && (() => { ui.summarySeen = true; send(deal); }), "N", "primary"));
    } else if (v.phase === "match_over" && !watching) {
      const votes = ui.meta?.rematch || [];
      const asked = votes.includes(v.seat);
      list.push(button("rematch", asked ? "Rematch asked…" : "Rematch", !asked && rematch, "R", "primary"));
      const others = votes.filter((s) => s !== v.seat).map(seatName);
      if (others.length) list.push(h("span", { class: "hint", id: "rematch-votes" }, `${others.join(", ")} ${others.length > 1 ? "want" : "wants"} a rematch`));
    }
    if (myTurn && !held) {
      // Moves a game adds (Rummy 500's pass when the stock is empty, ...): one button each.
      const extra = [...new Set(legalOf(v).map((a) => a.type).filter((t) => !KNOWN.has(t)))];
      for (const type of extra) {
        const label = type.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
        const keys = { pass: "X", call: "C" };
        list.push(button(`act-${type.replace(/[^a-z0-9_]/gi, "")}`, label, findLegal(v, type), keys[type] || null, type === "call" ? "primary" : null));
      }
    }
    list.push(h("button", {
      class: "small scores-toggle", id: "scores-toggle", "aria-expanded": String(ui.showScores),
      onclick: () => { ui.showScores = !ui.showScores; draw(); },
    }, ui.showScores ? "Hide scorecard" : "Scorecard"));
    replace(buttons, ...list);
  }

  function statusLine(v, myTurn, held) {
    if (held) return `Hand ${held.hand} is over. Continue when you are ready.`;
    if (v.phase === "match_over") return v.result ? `${winnersText(v.result.winners, names)} the match!` : "The match is over.";
    if (!ctx.online) return "Connection lost — reconnecting…";
    if (ctx.pending) return "Sending…";
    if (myTurn) {
      const must = v.must_place || [];
      switch (v.phase) {
        case "draw":
          if (!v.stock && findLegal(v, "pass")) return "The stock is empty: take from the discard pile, or pass";
          return findLegal(v, "draw_discard") ? "Your turn: draw from the stock or the discard pile" : "Your turn: draw from the stock";
        case "play":
          if (must.length) return `Use the ${must.map(shortOf).join(" and ")} on the table this turn: meld it or lay it off`;
          if (need() > 0) return `Come out with ${need()} points or more (stage your melds), or discard`;
          return findLegal(v, "discard") ? "Meld or lay off if you can, then discard" : "Meld or lay off";
        case "hand_over": return "Hand over: deal the next hand";
        case "call": return v.call ? `${seatName(v.call.discarder)} discarded the ${shortOf(v.call.card)}: call it to play it now, or pass`
          : "Call the discard, or pass";
        default: return "Your turn";
      }
    }
    const other = v.to_act;
    if (!isSeat(other)) return "";
    const info = ctx.seatInfo(other);
    const name = seatName(other);
    if (info && info.kind === "human" && !info.taken) return `Waiting for a friend to sit down at seat ${other + 1}…`;
    if (info && info.kind === "human" && !info.connected) return `${name} disconnected — waiting for them to come back`;
    if (v.phase === "hand_over") return `Hand over: waiting for ${name} to deal`;
    if (info && info.kind === "bot") return `${name} is thinking…`;
    return `Waiting for ${name}…`;
  }

  function rematch() {
    ui.summarySeen = true;
    ctx.rematch();
    draw();
  }

  function key(event) {
    const v = ui.view;
    if (!v) return false;
    const k = event.key;
    if (k === "ArrowLeft" || k === "ArrowRight") {
      if (event.shiftKey) hand.moveCard(k === "ArrowLeft" ? -1 : 1);
      else hand.moveFocus(k === "ArrowLeft" ? -1 : 1);
      return true;
    }
    if (k === "Escape") {
      if (!ui.selected.length && !ui.staged.length && !ui.showScores) return false;
      ui.selected = [];
      ui.staged = [];
      ui.showScores = false;
      draw();
      return true;
    }
    const can = (type, test) => (myTurnNow() ? findLegal(v, type, test) : null);
    const act = (action) => Boolean(action) && send(action);
    switch (k.toLowerCase()) {
      case "s": return act(can("draw_stock"));
      case "p": return act(can("draw_discard", (a) => (a.number ?? 1) === 1));
      case "m": moves.meld(); return true;
      case "a": moves.stage(); return true;
      case "l": moves.layOff(); return true;
      case "d": moves.discard(); return true;
      case "x": return act(can("pass"));
      case "c": return act(can("call"));
      case "n":
        if (heldSummary(v)) { dismissSummary(); return true; }
        if (can("deal")) ui.summarySeen = true;
        return act(can("deal"));
      case "r":
        if (v.phase === "match_over" && isSeat(v.seat) && !(ui.meta?.rematch || []).includes(v.seat)) { rematch(); return true; }
        return false;
      default: return false;
    }
  }

  return {
    update,
    key,
    destroy() {
      hand.destroy();
      el.replaceChildren();
    },
  };
}
