// The table-meld board for Rummy, Rummy 500 and Rommé (rummy/board.js,
// rummy500/board.js and romme/board.js mount it with their game's switches), in
// the shared frame (../board.js). It draws the view the server sent (state.py's
// `view(seat)`) and sends the actions of view.legal: a drop on a table meld is
// matched against the legal lay-offs and joker exchanges, a discard against the
// legal discards, and a choice that matches nothing gets a message instead of a
// move (nothing is lost).
// Melds are listed only as a bounded menu, so a meld or first meld that matches
// none is sent as staged and the server judges it; its refusal's reason comes back
// as an error frame (the page's renderer.error) and shows on the message line.
// No card values or meld rules live here: a staged first meld is totalled from
// view.candidates, and a group they do not list counts as "?".
//
// Layout: the others around the top, the stock and discard pile beside the
// melds on the table (grouped by who laid them), the status line and action
// buttons, the first-meld staging panel, your hand; the scorecard at the side
// (a drawer on a phone). A finished hand takes the middle until dismissed.

import { h, replace } from "../../dom.js";
import { distinctSeatNames, findLegal, isSeat, legalOf, mountBoard } from "../board.js";
import { keyed, shortOf, within } from "../rummyfamily/cards.js";
import { MeldHand } from "../rummyfamily/hand.js";
import { noteEvents } from "./events.js";
import { meldAction, Moves, placeAction } from "./moves.js";
import { finalPanel, handSummary, scorecard, winnersText } from "./score.js";
import { meldPanel, piles, seatBox, seatOrder, tableMelds } from "./table.js";

export const STYLES = ["board", "tablemelds/board"];

export const HELP = "Keys: ←/→ cards · Enter/Space select · M meld · A add group · L lay off · D discard · " +
  "S stock · P pile · X pass · Esc clear · N deal/continue · R rematch";
const OVER = new Set(["hand_over", "match_over"]);
const KNOWN = new Set(["draw_stock", "draw_discard", "meld", "lay_off", "swap_joker", "discard", "deal"]);

export function mountTableMelds(el, ctx, game) {
  let moves = null;
  const board = mountBoard(el, ctx, (frame) => {
    const spec = tableMeldBoard(frame, ctx, game);
    moves = spec.moves;
    return spec;
  });
  // An error frame for this table (the page hands it over; true: shown here, no toast).
  return { ...board, error: (d) => Boolean(moves?.refused(d)) };
}

function tableMeldBoard(frame, ctx, game) {
  const ui = {
    get view() { return frame.view; },
    selected: [], // hand keys, in the order chosen
    staged: [], // groups of hand keys staged for a first meld
  };
  const seatName = distinctSeatNames(ctx);
  ctx.seatName = seatName;
  const names = { seat: seatName, comeOut: game.comeOut, onTable: game.onTable };

  const seatsEl = h("section", { class: "rm-seats", id: "seats", "aria-label": "Players" });
  const centre = h("section", { class: "rm-centre", "aria-label": "The table" });
  const summarySlot = h("div", { class: "rm-summary-slot", id: "summary-slot" });
  const stageSlot = h("div", { class: "rm-stage-slot" });
  const hand = new MeldHand(ctx, {
    click: (key) => moves.clickCard(key),
    drop: (key, target) => moves.drop(key, target),
    dragEnd: () => frame.afterDrag(),
    changed: () => frame.draw(),
  });

  const playing = () => frame.myTurn() && frame.view.phase === "play";
  const need = () => (playing() ? frame.view.first_meld || 0 : 0);
  const myCards = () => frame.view?.hands?.[frame.view.seat]?.cards || [];
  const moves = new Moves({
    ui, hand, ctx, draw: () => frame.draw(), playing, need, say: (text) => frame.say(text),
    version: () => frame.meta?.version ?? -1,
  });

  function draw(v, turn) {
    const me = v.seat;
    const order = seatOrder(v.players, turn.watching ? 0 : me);
    if (!playing()) ui.staged = [];
    const heldKeys = new Set(keyed(myCards()).map((c) => c.key)); // the same keys in any order
    ui.selected = ui.selected.filter((k) => heldKeys.has(k));
    ui.staged = ui.staged.filter((g) => g.every((k) => heldKeys.has(k)));

    replace(seatsEl, order.filter((s) => s !== me).map((s) => seatBox(v, s, names, ctx, OVER.has(v.phase))));
    drawCentre(v, turn.myTurn, order);
    replace(summarySlot, turn.ended ? endPanel(v, turn.held, order) : null);
    replace(stageSlot, turn.ended || turn.watching ? null : stagePanel(v));
    drawHand(v, turn);
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
        act: (action) => moves.send(action), discardSelected: () => moves.discard(),
      }),
      tableMelds(v, {
        // the felt takes a meld when one is listed, or cards are chosen (the server judges those)
        order, names, me: isSeat(v.seat) ? v.seat : null, credit: game.credit,
        dropMeld: play && (Boolean(findLegal(v, "meld")) || ui.selected.length > 0 || ui.staged.length > 0),
        meldSelected: () => { if (ui.selected.length || ui.staged.length) moves.meld(); },
        target: (id) => (!play || !oneSelected ? null : placeAction(v, "lay_off", oneSelected, id) ? "lay_off"
          : placeAction(v, "swap_joker", oneSelected, id) ? "swap" : null),
        click: (id, onJoker) => moves.placeOn(id, onJoker),
      }));
  }

  function endPanel(v, held, order) {
    const row = held || v.last;
    return h("div", { class: "rm-end" },
      v.phase === "match_over" && v.result && !held ? finalPanel(v, names, game) : null,
      row ? handSummary(row, v, names, game, order) : null,
      ctx.fairness?.line());
  }

  function stagePanel(v) {
    if (!playing()) return null;
    const n = need();
    const staged = moves.stagedGroups();
    const free = [...myCards()];
    for (const c of staged.flatMap((g) => g.codes)) if (free.includes(c)) free.splice(free.indexOf(c), 1);
    const candidates = (v.candidates || []).map((c) => ({
      cards: c.cards, value: c.value, legal: n > 0 ? true : Boolean(meldAction(v, c.cards)), used: !within(c.cards, free),
    }));
    return meldPanel({
      need: n, staged, total: moves.stagedTotal(), unsure: moves.stagedUnsure(), candidates, showValues: game.showValues || n > 0,
      pick: (cards) => moves.pickCards(cards), unstage: (i) => { ui.staged.splice(i, 1); frame.draw(); },
      clear: () => { ui.staged = []; frame.draw(); },
    });
  }

  function drawHand(v, turn) {
    const mine = (isSeat(v.seat) && v.hands?.[v.seat]) || { count: 0 };
    hand.el.hidden = turn.watching || Boolean(turn.held) || (OVER.has(v.phase) && !mine.count);
    if (hand.el.hidden) return;
    const play = turn.myTurn && v.phase === "play";
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
      must: play ? v.must_place || [] : [], taken: play ? v.taken : null, fresh: frame.fresh, info,
    });
  }

  // -- status and buttons -----------------------------------------------------------------------

  function buttons(v, turn) {
    const list = [];
    if (!turn.myTurn) return list;
    if (v.phase === "play") {
      const any = (type) => Boolean(findLegal(v, type));
      const n = need();
      const selected = ui.selected.length > 0;
      // Any chosen cards may be offered as a meld: the listed ones are a menu, not all of them.
      const canMeld = selected || ui.staged.length > 0;
      const total = moves.stagedTotal();
      const sure = !moves.stagedUnsure();
      list.push(frame.button("meld", n > 0 && sure && total >= n ? `Meld ${total}` : "Meld", canMeld && (() => moves.meld()), "M", "primary"));
      if (n > 0) list.push(frame.button("stage", "Add group", selected && (() => moves.stage()), "A"));
      if (any("lay_off") || any("swap_joker")) list.push(frame.button("lay-off", "Lay off", ui.selected.length === 1 && (() => moves.layOff()), "L"));
      list.push(frame.button("discard", "Discard", any("discard") && ui.selected.length === 1 && (() => moves.discard()), "D"));
    }
    // Moves a game adds (Rummy 500's pass when the stock is empty, ...): one button each.
    const extra = [...new Set(legalOf(v).map((a) => a.type).filter((t) => !KNOWN.has(t)))];
    for (const type of extra) {
      const label = type.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
      const keys = { pass: "X", call: "C" };
      list.push(frame.button(`act-${type.replace(/[^a-z0-9_]/gi, "")}`, label, findLegal(v, type), keys[type] || null, type === "call" ? "primary" : null));
    }
    return list;
  }

  function status(v, turn) {
    if (v.phase === "match_over") return v.result ? `${winnersText(v.result.winners, names)} the match!` : "The match is over.";
    if (!turn.myTurn) return null;
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

  /** The first hands' hint line (the frame shows it on my turn): what a turn is made of. */
  function hint(v, turn) {
    if (!turn.myTurn) return null;
    switch (v.phase) {
      case "draw":
        if (legalOf(v).some((a) => a.type === "draw_discard" && (a.number ?? 1) > 1)) {
          return "Draw from the stock, or take from the discards: a deeper card takes every card above it and must be used this turn";
        }
        return findLegal(v, "draw_discard") ? "Draw from the stock or take the top discard" : "Draw a card from the stock";
      case "play":
        if ((v.must_place || []).length) return null; // the status line says what to do
        if (need() > 0) return `A meld: 3+ of a kind, or a run of 3+ in one suit. Add group for each until ${need()} points, then Meld`;
        return "Meld 3+ of a kind or a run of 3+ in one suit, or add a card to a meld on the table; then discard";
      case "call": return "Call to take that discard and play it now, or pass";
      default: return null;
    }
  }

  function key(event, low, turn) {
    const v = frame.view;
    if (low === "ArrowLeft" || low === "ArrowRight") {
      if (event.shiftKey) hand.moveCard(low === "ArrowLeft" ? -1 : 1);
      else hand.moveFocus(low === "ArrowLeft" ? -1 : 1);
      return true;
    }
    const act = (type, test) => {
      const action = turn.myTurn ? findLegal(v, type, test) : null;
      return Boolean(action) && moves.send(action);
    };
    switch (low) {
      case "s": return act("draw_stock");
      case "p": return act("draw_discard", (a) => (a.number ?? 1) === 1);
      case "m": moves.meld(); return true;
      case "a": moves.stage(); return true;
      case "l": moves.layOff(); return true;
      case "d": moves.discard(); return true;
      case "x": return act("pass");
      case "c": return act("call");
      default: return false;
    }
  }

  return {
    name: "rummy",
    dataset: { game: game.name },
    help: HELP,
    deal: { id: "next-hand", label: "Deal" },
    message: true,
    sideClass: "rm-side",
    above: [seatsEl, centre, summarySlot],
    below: [stageSlot, hand.el],
    draw,
    status,
    hint,
    buttons,
    scores: (v) => scorecard(v, names, game, seatOrder(v.players, isSeat(v.seat) ? v.seat : 0)),
    update(v, meta) {
      moves.answered(meta?.version ?? -1);
      if ((meta?.events || []).some((e) => isSeat(v.seat) && e.seat === v.seat)) moves.say("");
    },
    events: (v, meta) => noteEvents(v, meta, names, ctx.announce),
    waitingFriend: (seat) => `Waiting for a friend to sit down at seat ${seat + 1}…`,
    key,
    clear() {
      const had = ui.selected.length > 0 || ui.staged.length > 0;
      ui.selected = [];
      ui.staged = [];
      return had;
    },
    send: (action) => moves.send(action),
    destroy: () => hand.destroy(),
    moves,
  };
}
