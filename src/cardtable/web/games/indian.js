// The Indian Rummy board. It draws the view the server sent (docs/rules/indian.md,
// "The view") and offers only actions found in view.legal: a button, card or
// key with no legal action behind it is disabled, never guessed at. A drop and
// a show ask first; a show with a card that is not one of me.finish_cards is
// a wrong show, and the confirm box says so plainly.
//
// Layout: the other seats across the top, the closed deck (the wild joker card
// under it) and the open deck in the middle, the status line and the action
// buttons, your hand in groups (indian_hand.js), the scorecard at the side (a
// drawer on a phone). A finished deal takes the middle until it is dismissed.

import { h, replace } from "../dom.js";
import { isDragging } from "../drag.js";
import { Bag, miniCard, nameOf, plural, shortOf } from "./indian_cards.js";
import { closeDialog, confirmDialog, dialogOpen } from "./indian_dialog.js";
import { noteEvents } from "./indian_events.js";
import { Hand } from "./indian_hand.js";
import { dealResult, finalPanel, scorecard } from "./indian_score.js";
import { centre, seatBox, seatOrder, STATUS_TEXT } from "./indian_table.js";
import { chooserParts, declareQuestion, dropQuestion, statusLine } from "./indian_words.js";

const HELP = "Keys: ←/→ cards · Enter/Space select · Shift+←/→ move a card · G group · U ungroup · A auto-arrange · " +
  "S closed deck · P open deck · D discard · C declare · X drop · Esc clear · N deal/continue · R rematch";
const OVER = new Set(["deal_over", "match_over"]);
const isSeat = (s) => s !== null && s !== undefined;
const legalOf = (view) => view.legal || [];
const findLegal = (view, type, card) =>
  legalOf(view).find((a) => a.type === type && (card === undefined || a.card === card)) || null;
const cardsFor = (view, type) => new Set(legalOf(view).filter((a) => a.type === type).map((a) => a.card));

export function mount(el, ctx) {
  const ui = {
    view: null, meta: null,
    summary: null, summarySeen: true, // the finished deal stays up until seen
    showScores: false, redrawAfterDrag: false, chooser: false,
    mine: [], dealNo: null, fresh: new Set(),
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
  const names = { seat: seatName };

  // -- the page -----------------------------------------------------------------------------
  const seatsEl = h("section", { class: "in-seats", id: "seats", "aria-label": "Players" });
  const centreSlot = h("div", { class: "in-centre-slot" });
  const resultSlot = h("div", { class: "in-result-slot", id: "result-slot" });
  const statusText = h("p", { class: "status-text", id: "status", "aria-live": "polite" });
  const lastMove = h("p", { class: "last-move", id: "last-move" });
  const message = h("p", { class: "in-message", id: "message", role: "alert" });
  const buttons = h("div", { class: "buttons", role: "toolbar", "aria-label": "Actions" });
  const chooser = h("div", { class: "chooser in-chooser", id: "declare-chooser", hidden: true });
  const status = h("section", { class: "status-bar", "aria-label": "Status" },
    h("div", { class: "status-lines" }, statusText, lastMove, message), buttons, chooser);
  const hand = new Hand(ctx, {
    select: (key) => { hand.toggle(key); say(""); draw(); },
    drop: (key, target) => dropOn(key, target),
    dragEnd: () => { if (ui.redrawAfterDrag) draw(); },
    changed: () => draw(),
  });
  const side = h("aside", { class: "side in-side" });
  const help = h("p", { class: "help-line", id: "help-line" }, HELP);
  const root = h("div", { class: "indian", dataset: { mode: "play" } },
    seatsEl, centreSlot, resultSlot, status, hand.el, help, side);
  el.append(root);

  // -- state of the turn ---------------------------------------------------------------------
  const myTurnNow = () => {
    const v = ui.view;
    return Boolean(v && isSeat(v.seat) && v.to_act === v.seat && !ctx.pending && ctx.online && !heldSummary(v));
  };
  const discarding = () => myTurnNow() && ui.view.phase === "discard";
  const say = (text) => { message.textContent = text || ""; };

  function send(action) {
    if (!action) return false;
    closeDialog();
    ui.chooser = false;
    if (!ctx.act(action)) return false;
    hand.clearSelection();
    say("");
    return true;
  }

  // -- drawing -------------------------------------------------------------------------------
  function update(v, meta) {
    if ((v.history || []).length < (ui.view?.history || []).length) {
      ui.summary = null; // a rematch: a new match, its deals numbered from 1 again
      ui.summarySeen = true;
    }
    ui.view = v;
    ui.meta = meta;
    // The finished deal: from the view, or from the deal_over event (a computer dealer may
    // deal on before a view with phase deal_over reaches us).
    const over = (meta?.events || []).filter((e) => e.type === "deal_over").pop();
    const last = OVER.has(v.phase) && v.last ? v.last : over || null;
    if (last) {
      if (!ui.summary || ui.summary.deal !== last.deal) ui.summarySeen = false;
      ui.summary = last;
    }
    if (!myTurnNow()) {
      ui.chooser = false;
      closeDialog(); // the question is moot once the turn has passed
    }
    const line = noteEvents(v, meta, names, ctx.announce);
    if (line !== null) lastMove.textContent = line;
    noteFresh(v);
    if (isDragging()) {
      ui.redrawAfterDrag = true; // not under the user's finger
      return;
    }
    draw();
  }

  /** The card just drawn is marked until the next draw. */
  function noteFresh(v) {
    const mine = v.hands?.[v.seat]?.cards || [];
    if (ui.dealNo === v.deal && mine.length > ui.mine.length) {
      const bag = new Bag(ui.mine);
      ui.fresh = new Set(mine.filter((c) => !bag.take(c)));
    } else if (ui.dealNo !== v.deal || mine.length < ui.mine.length) ui.fresh = new Set();
    ui.mine = mine;
    ui.dealNo = v.deal;
  }

  function heldSummary(v) {
    const s = ui.summary;
    return !OVER.has(v.phase) && s && !ui.summarySeen && v.deal === s.deal + 1 ? s : null;
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
    root.dataset.mode = ended ? "result" : "play";
    root.dataset.held = held ? "true" : "false";
    root.classList.toggle("my-turn", myTurn);
    root.classList.toggle("watching", watching);
    root.classList.toggle("scores-open", ui.showScores);
    const keep = focusedId();

    replace(seatsEl, order.filter((s) => s !== me).map((s) => seatBox(v, s, names, ctx)));
    replace(centreSlot, centre(v, names, {
      closedAction: myTurn ? findLegal(v, "draw_stock") : null,
      openAction: myTurn ? findLegal(v, "draw_discard") : null,
      discardTarget: discarding() && Boolean(findLegal(v, "discard")),
      act: send, discardSelected: () => discardSelected(),
    }));
    replace(resultSlot, ended ? endPanel(v, held, order) : null);
    statusText.textContent = statusLine(v, { myTurn, held, ctx, names, findLegal });
    drawButtons(v, myTurn, held);
    drawChooser(v);
    drawHand(v, myTurn, watching, Boolean(ended));
    replace(side, ui.showScores ? h("button", { class: "small side-close", id: "scores-close", onclick: () => { ui.showScores = false; draw(); } }, "Close") : null,
      scorecard(v, names, order));
    restoreFocus(keep);
  }

  function endPanel(v, held, order) {
    const last = held || v.last;
    return h("div", { class: "in-end" },
      v.phase === "match_over" && v.result && !held ? finalPanel(v, names, order) : null,
      last ? dealResult(last, v, names, order) : null);
  }

  function drawHand(v, myTurn, watching, ended) {
    const mine = (isSeat(v.seat) && v.hands?.[v.seat]) || { count: 0 };
    hand.el.hidden = watching || ended || !mine.count;
    if (hand.el.hidden) return;
    const me = v.me || {};
    const play = myTurn && v.phase === "discard";
    const status = mine.status || "playing";
    const lives = me.lives ? "Lives: yes — two sequences, one pure"
      : (me.groups || []).some((g) => g.kind === "pure") ? "Lives: need a second sequence" : "Lives: need a pure sequence";
    const info = [
      h("span", { class: "seat-title" }, "You"),
      v.dealer === v.seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "D") : null,
      h("span", { class: "chip count-chip" }, plural(mine.count, "card")),
      status !== "playing" ? h("span", { class: `chip status-chip status-${status}` }, STATUS_TEXT[status] || status) : null,
      v.me ? h("span", { class: "chip points-chip", id: "my-points", title: "What your hand would pay if someone showed now" },
        `Count ${me.points}`) : null,
      v.me ? h("span", { class: ["chip", "lives-chip", me.lives ? "yes" : "no"], id: "my-lives" }, lives) : null,
      (mine.picked || []).length ? h("span", { class: "chip picked-chip" }, `picked ${mine.picked.map(shortOf).join(" ")}`) : null,
      mine.finish ? h("span", { class: "chip status-chip" }, "finish card ", miniCard(mine.finish)) : null,
    ];
    hand.render(v, {
      discardable: play ? cardsFor(v, "discard") : new Set(),
      finish: play ? new Set(me.finish_cards || []) : new Set(),
      taken: play ? v.taken : null, fresh: ui.fresh, info,
    });
  }

  function focusedId() {
    const a = document.activeElement;
    return a && a.id && root.contains(a) && !hand.groupsEl.contains(a) ? a.id : null;
  }

  function restoreFocus(id) {
    if (!id || document.activeElement?.id === id || dialogOpen()) return;
    const target = document.getElementById(id);
    if (target && !target.disabled) target.focus();
  }

  // -- moves -----------------------------------------------------------------------------------
  function selectedOne() {
    const codes = hand.selectedCodes();
    return codes.length === 1 ? codes[0] : null;
  }

  function discardSelected() {
    const v = ui.view;
    if (!discarding()) return;
    const card = selectedOne() || (hand.selected.size === 0 && document.activeElement?.closest?.(".hand-card") ? hand.codeOf(hand.focus) : null);
    if (!card) {
      say("Select one card to discard, then click the open deck (or drag the card there).");
      return;
    }
    const action = findLegal(v, "discard", card);
    if (!action) {
      say(`The ${nameOf(card)} cannot be discarded now.`);
      return;
    }
    send(action);
  }

  function dropOn(key, target) {
    if (target?.dataset.drop !== "open" || !discarding()) return;
    const card = hand.codeOf(key);
    const action = card && findLegal(ui.view, "discard", card);
    if (action) send(action);
    else if (card) say(`The ${nameOf(card)} cannot be discarded now.`);
  }

  async function declare(card) {
    const v = ui.view;
    const action = findLegal(v, "declare", card);
    if (!action || !discarding()) return;
    ui.chooser = false;
    draw();
    const ok = await confirmDialog(root, declareQuestion(v, card));
    if (ok && ui.view === v) send(action);
    else if (ok) say("The table moved on; nothing was declared.");
  }

  function startDeclare() {
    const v = ui.view;
    if (!discarding() || !findLegal(v, "declare")) return;
    const card = selectedOne();
    if (card && findLegal(v, "declare", card)) {
      declare(card);
      return;
    }
    ui.chooser = !ui.chooser;
    draw();
  }

  async function dropOut() {
    const v = ui.view;
    const action = myTurnNow() ? findLegal(v, "drop") : null;
    if (!action) return;
    const ok = await confirmDialog(root, dropQuestion(v));
    if (ok && ui.view === v) send(action);
  }

  const rematch = () => ctx.rematch();

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
    else if ((v.phase === "draw" || v.phase === "discard") && !watching) {
      const one = selectedOne();
      const canDiscard = discarding() && one && findLegal(v, "discard", one);
      list.push(button("discard", "Discard", canDiscard && (() => discardSelected()), "D"));
      const canDeclare = discarding() && findLegal(v, "declare");
      const ready = canDeclare && (v.me?.finish_cards || []).length > 0;
      list.push(button("declare", ready ? "Declare!" : "Declare", canDeclare && startDeclare, "C", ready ? "primary" : null));
      if (v.drop) {
        const middle = Boolean(v.hands?.[v.seat]?.drawn);
        const drop = myTurn && findLegal(v, "drop");
        list.push(button("drop", `${middle ? "Middle" : "First"} drop (${middle ? v.drop.middle : v.drop.first})`, drop && dropOut, "X", "danger"));
      }
    } else if (v.phase === "deal_over" && myTurn) {
      const deal = findLegal(v, "deal");
      list.push(button("next-deal", "Deal", deal && (() => { ui.summarySeen = true; send(deal); }), "N", "primary"));
    } else if (v.phase === "match_over" && !watching) {
      const votes = ui.meta?.rematch || [];
      const asked = votes.includes(v.seat);
      list.push(button("rematch", asked ? "Rematch asked…" : "Rematch", !asked && rematch, "R", "primary"));
      const others = votes.filter((s) => s !== v.seat).map(seatName);
      if (others.length) list.push(h("span", { class: "hint", id: "rematch-votes" }, `${others.join(", ")} ${others.length > 1 ? "want" : "wants"} a rematch`));
    }
    list.push(h("button", {
      class: "small scores-toggle", id: "scores-toggle", "aria-expanded": String(ui.showScores),
      onclick: () => { ui.showScores = !ui.showScores; draw(); },
    }, ui.showScores ? "Hide scorecard" : "Scorecard"));
    replace(buttons, ...list);
  }

  function drawChooser(v) {
    const cards = ui.chooser && discarding() ? [...cardsFor(v, "declare")] : [];
    const opening = chooser.hidden && cards.length > 0;
    chooser.hidden = !cards.length;
    if (!cards.length) {
      ui.chooser = false;
      chooser.replaceChildren();
      return;
    }
    replace(chooser, ...chooserParts(v, cards, declare, () => { ui.chooser = false; draw(); }));
    if (opening) chooser.querySelector("button")?.focus();
  }

  // -- keys ------------------------------------------------------------------------------------
  function key(event) {
    if (dialogOpen()) return false;
    const v = ui.view;
    if (!v) return false;
    const k = event.key;
    const low = k.length === 1 ? k.toLowerCase() : k;
    const handShown = !hand.el.hidden;
    if ((k === "ArrowLeft" || k === "ArrowRight") && handShown) {
      const delta = k === "ArrowLeft" ? -1 : 1;
      if (event.shiftKey) hand.moveCard(delta);
      else hand.moveFocus(delta);
      return true;
    }
    const myTurn = myTurnNow();
    switch (low) {
      case "Escape":
        if (ui.chooser) ui.chooser = false;
        hand.clearSelection();
        say("");
        draw();
        return true;
      case "g": return handShown && hand.groupSelected();
      case "u": return handShown && hand.ungroupSelected();
      case "a": if (!handShown) return false; hand.autoArrange(); return true;
      case "s": return myTurn && send(findLegal(v, "draw_stock"));
      case "p": return myTurn && send(findLegal(v, "draw_discard"));
      case "d": if (!discarding()) return false; discardSelected(); return true;
      case "c": if (!discarding()) return false; startDeclare(); return true;
      case "x": if (!myTurn || !findLegal(v, "drop")) return false; dropOut(); return true;
      case "n": {
        if (heldSummary(v)) { dismissSummary(); return true; }
        const deal = myTurn && findLegal(v, "deal");
        if (deal) { ui.summarySeen = true; return send(deal); }
        return false;
      }
      case "r":
        if (v.phase !== "match_over" || !isSeat(v.seat)) return false;
        rematch();
        return true;
      default: return false;
    }
  }

  return {
    update,
    key,
    destroy() {
      closeDialog();
      hand.destroy();
    },
  };
}
