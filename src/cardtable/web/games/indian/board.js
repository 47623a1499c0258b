// The Indian Rummy board, in the shared frame (../board.js). It draws the view the
// server sent (docs/rules/indian.md, "The view") and offers only actions found
// in view.legal: a button, card or key with no legal action behind it is
// disabled, never guessed at. A drop and a show ask first; a show with a card
// that is not one of me.finish_cards is a wrong show, and the confirm box says
// so plainly.
//
// Layout: the other seats across the top, the closed deck (the wild joker card
// under it) and the open deck in the middle, the status line and the action
// buttons, your hand in groups (hand.js), the scorecard at the side (a
// drawer on a phone). A finished deal takes the middle until it is dismissed.

import { h, replace } from "../../dom.js";
import { cardsFor, distinctSeatNames, findLegal, isSeat, mountBoard } from "../board.js";
import { INDIAN_DECK, plural, shortOf } from "../rummyfamily/cards.js";
import { closeDialog, confirmDialog, dialogOpen } from "./dialog.js";
import { noteEvents } from "./events.js";
import { GroupedHand } from "./hand.js";
import { dealResult, finalPanel, scorecard } from "./score.js";
import { centre, seatBox, seatOrder, STATUS_TEXT } from "./table.js";
import { chooserParts, declareQuestion, dropQuestion, statusLine } from "./words.js";

export const STYLES = ["board", "indian/board"];

export const HELP = "Keys: ←/→ cards · Enter/Space select · Shift+←/→ move a card · G group · U ungroup · A auto-arrange · " +
  "S closed deck · P open deck · D discard · C declare · X drop · Esc clear · N deal/continue · R rematch";
const OVER = new Set(["deal_over", "match_over"]);
const { miniCard, nameOf } = INDIAN_DECK;

export function mount(el, ctx) {
  return mountBoard(el, ctx, (frame) => indianBoard(frame, ctx));
}

function indianBoard(frame, ctx) {
  let chooserOpen = false; // the declare chooser
  const seatName = distinctSeatNames(ctx);
  ctx.seatName = seatName;
  const names = { seat: seatName };

  const seatsEl = h("section", { class: "in-seats", id: "seats", "aria-label": "Players" });
  const centreSlot = h("div", { class: "in-centre-slot" });
  // It scrolls on a small screen: a region the keyboard can reach (and scroll).
  const resultSlot = h("div", { class: "in-result-slot", id: "result-slot", tabindex: "0", role: "region", "aria-label": "Deal result" });
  const chooser = h("div", { class: "chooser in-chooser", id: "declare-chooser", hidden: true });
  const hand = new GroupedHand(ctx, {
    click: (key) => { hand.toggle(key); frame.say(""); frame.draw(); },
    drop: (key, target) => dropOn(key, target),
    dragEnd: () => frame.afterDrag(),
    changed: () => frame.draw(),
  });

  const discarding = () => frame.myTurn() && frame.view.phase === "discard";

  function send(action) {
    if (!action) return false;
    closeDialog();
    chooserOpen = false;
    if (!ctx.act(action)) return false;
    hand.clearSelection();
    frame.say("");
    return true;
  }

  /** The finished deal: from the view, or from the deal_over event (a computer dealer may
   * deal on before a view with phase deal_over reaches us). */
  function finished(v, meta) {
    const over = (meta?.events || []).filter((e) => e.type === "deal_over").pop();
    return OVER.has(v.phase) && v.last ? v.last : over || null;
  }

  function draw(v, turn) {
    const me = v.seat;
    const order = seatOrder(v.players, turn.watching ? 0 : me);
    replace(seatsEl, order.filter((s) => s !== me).map((s) => seatBox(v, s, names, ctx)));
    replace(centreSlot, centre(v, names, {
      closedAction: turn.myTurn ? findLegal(v, "draw_stock") : null,
      openAction: turn.myTurn ? findLegal(v, "draw_discard") : null,
      discardTarget: discarding() && Boolean(findLegal(v, "discard")),
      act: send, discardSelected: () => discardSelected(),
    }));
    replace(resultSlot, turn.ended ? endPanel(v, turn.held, order) : null);
    drawChooser(v);
    drawHand(v, turn);
  }

  function endPanel(v, held, order) {
    const last = held || v.last;
    return h("div", { class: "in-end" },
      v.phase === "match_over" && v.result && !held ? finalPanel(v, names, order) : null,
      last ? dealResult(last, v, names, order) : null,
      ctx.fairness?.line());
  }

  function drawHand(v, turn) {
    const mine = (isSeat(v.seat) && v.hands?.[v.seat]) || { count: 0 };
    hand.el.hidden = turn.watching || Boolean(turn.ended) || !mine.count;
    if (hand.el.hidden) return;
    const me = v.me || {};
    const play = turn.myTurn && v.phase === "discard";
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
      taken: play ? v.taken : null, fresh: frame.fresh, info, deal: v.hand,
    });
  }

  function drawChooser(v) {
    const cards = chooserOpen && discarding() ? [...cardsFor(v, "declare")] : [];
    const opening = chooser.hidden && cards.length > 0;
    chooser.hidden = !cards.length;
    if (!cards.length) {
      chooserOpen = false;
      chooser.replaceChildren();
      return;
    }
    replace(chooser, ...chooserParts(v, cards, declare, () => { chooserOpen = false; frame.draw(); }));
    if (opening) chooser.querySelector("button")?.focus();
  }

  // -- moves -----------------------------------------------------------------------------------

  function selectedOne() {
    const codes = hand.selectedCodes();
    return codes.length === 1 ? codes[0] : null;
  }

  function discardSelected() {
    if (!discarding()) return;
    const focused = hand.selected.size === 0 && document.activeElement?.closest?.(".hand-card");
    const card = selectedOne() || (focused ? hand.codeOf(hand.focus) : null);
    if (!card) {
      frame.say("Select one card to discard, then click the open deck (or drag the card there).");
      return;
    }
    const action = findLegal(frame.view, "discard", card);
    if (action) {
      hand.arrangement.release(selectedOne() ? [...hand.selected][0] : hand.focus);
      send(action);
    }
    else frame.say(`The ${nameOf(card)} cannot be discarded now.`);
  }

  function dropOn(key, target) {
    if (target?.dataset.drop !== "open" || !discarding()) return;
    const card = hand.codeOf(key);
    const action = card && findLegal(frame.view, "discard", card);
    if (action) {
      hand.arrangement.release(key);
      send(action);
    } else if (card) frame.say(`The ${nameOf(card)} cannot be discarded now.`);
  }

  async function declare(card) {
    const v = frame.view;
    const action = findLegal(v, "declare", card);
    if (!action || !discarding()) return;
    chooserOpen = false;
    frame.draw();
    const ok = await confirmDialog(frame.root, declareQuestion(v, card));
    if (ok && frame.view === v) send(action);
    else if (ok) frame.say("The table moved on; nothing was declared.");
  }

  function startDeclare() {
    const v = frame.view;
    if (!discarding() || !findLegal(v, "declare")) return;
    const card = selectedOne();
    if (card && findLegal(v, "declare", card)) {
      declare(card);
      return;
    }
    chooserOpen = !chooserOpen;
    frame.draw();
  }

  async function dropOut() {
    const v = frame.view;
    const action = frame.myTurn() ? findLegal(v, "drop") : null;
    if (!action) return;
    const ok = await confirmDialog(frame.root, dropQuestion(v));
    if (ok && frame.view === v) send(action);
  }

  function buttons(v, turn) {
    if ((v.phase !== "draw" && v.phase !== "discard") || turn.watching) return [];
    const one = selectedOne();
    const canDiscard = discarding() && one && findLegal(v, "discard", one);
    const canDeclare = discarding() && findLegal(v, "declare");
    const ready = canDeclare && (v.me?.finish_cards || []).length > 0;
    const list = [
      frame.button("discard", "Discard", canDiscard && (() => discardSelected()), "D"),
      frame.button("declare", ready ? "Declare!" : "Declare", canDeclare && startDeclare, "C", ready ? "primary" : null),
    ];
    if (v.drop) {
      const middle = Boolean(v.hands?.[v.seat]?.drawn);
      const drop = turn.myTurn && findLegal(v, "drop");
      list.push(frame.button("drop", `${middle ? "Middle" : "First"} drop (${middle ? v.drop.middle : v.drop.first})`, drop && dropOut, "X", "danger"));
    }
    return list;
  }

  /** The first deals' hint line (the frame shows it on my turn). */
  function hint(v, turn) {
    if (!turn.myTurn) return null;
    if (v.phase === "draw") {
      return findLegal(v, "draw_discard") ? "Draw from the closed deck or take the open card" : "Draw a card from the closed deck";
    }
    if (v.phase === "discard") {
      return "Discard to the open deck. Declare when all 13 cards are in valid groups with two sequences, one pure";
    }
    return null;
  }

  function key(event, low, turn) {
    const v = frame.view;
    const handShown = !hand.el.hidden;
    if ((low === "ArrowLeft" || low === "ArrowRight") && handShown) {
      const delta = low === "ArrowLeft" ? -1 : 1;
      if (event.shiftKey) hand.moveCard(delta);
      else hand.moveFocus(delta);
      return true;
    }
    switch (low) {
      case "g": return handShown && hand.groupSelected();
      case "u": return handShown && hand.ungroupSelected();
      case "a": if (!handShown) return false; hand.autoArrange(); return true;
      case "s": return turn.myTurn && send(findLegal(v, "draw_stock"));
      case "p": return turn.myTurn && send(findLegal(v, "draw_discard"));
      case "d": if (!discarding()) return false; discardSelected(); return true;
      case "c": if (!discarding()) return false; startDeclare(); return true;
      case "x": if (!turn.myTurn || !findLegal(v, "drop")) return false; dropOut(); return true;
      default: return false;
    }
  }

  return {
    name: "indian",
    help: HELP,
    over: OVER,
    handWord: "Deal",
    deal: { id: "next-deal", label: "Deal" },
    message: true,
    sideClass: "in-side",
    above: [seatsEl, centreSlot, resultSlot],
    below: [hand.el],
    statusParts: [chooser],
    finished,
    handOf: (record) => record.deal,
    update() {
      if (frame.myTurn()) return;
      chooserOpen = false;
      closeDialog(); // the question is moot once the turn has passed
    },
    draw,
    status: (v, turn) => statusLine(v, turn.myTurn, names),
    hint,
    buttons,
    scores: (v) => scorecard(v, names, seatOrder(v.players, isSeat(v.seat) ? v.seat : 0)),
    events: (v, meta) => noteEvents(v, meta, names, ctx.announce),
    waitingFriend: () => "Waiting for the other players to sit down…",
    busy: (v, name) => `${name} ${v.phase === "discard" ? "is discarding" : "is drawing"}…`,
    key,
    clear() {
      chooserOpen = false;
      hand.clearSelection();
      frame.say("");
      return true; // Esc always redraws: the selection may have been cleared already
    },
    keysOff: dialogOpen,
    send,
    destroy() {
      closeDialog();
      hand.destroy();
    },
  };
}
