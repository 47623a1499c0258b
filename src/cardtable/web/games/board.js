// The frame every game's board is drawn in. It owns what all boards share:
// whose turn it is (and whether I may move now), keeping a finished hand on
// screen until the player has seen it (a computer dealer deals on at once), the
// scores drawer, the status line with its buttons and the last-move line, the
// mode flags on the board's root (data-mode="play" or "hand-over", data-phase,
// data-held, data-players; .my-turn, .watching, .scores-open), keeping the
// keyboard focus across redraws, the cards that just arrived in my hand, the
// keys every board answers the same way (Esc, N, R), cards that move from where
// they were to where they go (anim.js: by their data-card, for every board),
// the table's sounds and mute toggle (sound.js), the first hands' hint line, the
// table's Hint button with its reason and marked cards (ctx.hint, table_hint.js: the
// same for every game), and clearing the last hand's leftovers (last-move line,
// toasts) when a new one is dealt.
//
// A game's board supplies only its layout and its moves: mountBoard(el, ctx,
// (frame) => spec) calls the game with the frame and takes back a spec:
//
//   name            the root's class ("gin", "rummy", ...); dataset: extra data-* on it
//   help            the keyboard help line
//   hint(view, turn)      a one-line tip for a new player on his turn ("Draw from the stock
//                         or take the upcard"), or null; shown during his first few hands
//   over            phases in which a hand is finished (default hand_over, match_over)
//   handWord        what a hand is called ("Hand"; Indian Rummy: "Deal")
//   deal            {id, label} of the button that deals the next hand
//   message         true: a message line (#message) under the status
//   sideClass       an extra class for the scores side panel
//   above, below    the game's elements before and after the status bar
//   statusParts     the game's elements inside the status bar (a chooser)
//   finished(view, meta)  the finished hand to hold ({hand, ...}); default view.last once over
//   handOf(record)  its number (default record.hand)
//   draw(view, turn)      draw the game's elements; turn = {myTurn, held, ended, watching}
//   status(view, turn)    the status line for the game's own phases, or null for "waiting for …"
//   buttons(view, turn)   the action buttons while a hand is played
//   scores(view)          the side panel's contents
//   events(view, meta)    announce what happened; the last-move text, or null to keep it
//   waitingFriend(seat, name), busy(view, name)  the words of the "waiting for …" line
//   dealerHint(view)      shown instead of the deal button when someone else deals
//   key(event, low, turn) the game's own keys; true when handled
//   clear()         Esc: drop a selection or a chooser; true if there was one
//   keysOff()       true while the game's own dialog has the keyboard
//   send(action)    how the game sends a move (default ctx.act)
//   update(view, meta)    called on every view before drawing
//   destroy()

import { createMotion } from "../anim.js";
import { localDeadline, URGENT_MS } from "../clock.js";
import { h, replace } from "../dom.js";
import { holdWhilePressed, isDragging } from "../drag.js";
import { muteButton, playSound } from "../sound.js";
import { prefs, setPref } from "../state.js";
import { clearHandToasts } from "../toast.js";

const HINT_HANDS = 3; // hands a browser plays with the hint line on

export const isSeat = (s) => s !== null && s !== undefined;
export const legalOf = (view) => view?.legal || [];

/** The first legal action of a type; `test` is a card code or a predicate on the action. */
export function findLegal(view, type, test) {
  const matches = typeof test === "function" ? test : test === undefined ? () => true : (a) => a.card === test;
  return legalOf(view).find((a) => a.type === type && matches(a)) || null;
}

/** The cards named by the legal actions of a type. */
export const cardsFor = (view, type) => new Set(legalOf(view).filter((a) => a.type === type).map((a) => a.card));

/** A multiset difference: the codes in `now` that were not in `before` (copies counted). */
function arrived(before, now) {
  const left = new Map();
  for (const c of before) left.set(c, (left.get(c) || 0) + 1);
  return now.filter((c) => {
    const n = left.get(c) || 0;
    if (n) left.set(c, n - 1);
    return !n;
  });
}

/**
 * Seat names for boards that name every seat: "You", a player's name, "Computer";
 * twins (two "Computer"s) get their seat number ("Computer 3").
 */
export function distinctSeatNames(ctx) {
  const baseName = (s) => {
    const info = ctx.seatInfo(s);
    if (info && !info.taken) return `Seat ${s + 1}`;
    return (info && info.name) || (info && info.kind === "bot" ? "Computer" : `Seat ${s + 1}`);
  };
  return (s) => {
    if (!isSeat(s)) return "";
    if (s === ctx.seat) return "You";
    const base = baseName(s);
    const twin = ctx.seats.some((o) => o.seat !== s && o.seat !== ctx.seat && baseName(o.seat) === base);
    return twin ? `${base} ${s + 1}` : base;
  };
}

export function mountBoard(el, ctx, makeGame) {
  const state = {
    view: null, meta: null,
    record: null, seen: true, // the last finished hand, and whether the player has dismissed it
    handNo: null, mine: [], fresh: new Set(),
    showScores: false, drawAfterDrag: false,
    drawn: null, // {view, hand}: what the last draw put on the table (the hand shown may be a held one)
    clock: { key: null, timer: null }, // my turn clock's warning
  };

  const statusText = h("p", { class: "status-text", id: "status", "aria-live": "polite" });
  const lastMove = h("p", { class: "last-move", id: "last-move" });
  const buttons = h("div", { class: "buttons", role: "toolbar", "aria-label": "Actions" });
  const mute = muteButton();
  const hintText = h("span", { class: "hint-text", id: "hint-text" });
  const hintLine = h("p", { class: "hint-line", id: "hint-line", role: "note", hidden: true },
    hintText, h("button", { class: "small", id: "hint-dismiss", onclick: hintsOff }, "Got it"));
  // The table's hint (ctx.hint): what a strong player would do, asked with Hint or H.
  const hintReason = h("p", { class: "hint-reason", id: "hint-reason", hidden: true });
  const side = h("aside", { class: "side" });
  let message = null;

  const frame = {
    ctx,
    root: null,
    get view() { return state.view; },
    get meta() { return state.meta; },
    get fresh() { return state.fresh; },
    watching: () => !isSeat(state.view?.seat),
    held: () => heldHand(state.view),
    /** It is my move and I may make it now (online, nothing pending, no finished hand held). */
    myTurn() {
      const v = state.view;
      return Boolean(v && isSeat(v.seat) && v.to_act === v.seat && !ctx.pending && ctx.online && !heldHand(v));
    },
    draw: () => draw(),
    /** After a drag or a press ends: the redraw held back while it was under the user's finger. */
    afterDrag() { if (state.drawAfterDrag) draw(); },
    say(text) { if (message) message.textContent = text || ""; },
    setLastMove(text) { lastMove.textContent = text; },
    /** The player has seen the finished hand (he deals on, or asks for a rematch). */
    seen() { state.seen = true; },
    send: (action) => send(action),
    /** An action button: `run` is a legal action to send, a function, or falsy (disabled). */
    button(id, label, run, key, extra) {
      return h("button", {
        id, class: ["action", extra], disabled: !run, "aria-keyshortcuts": key,
        onclick: () => run && (typeof run === "function" ? run() : send(run)),
      }, label, key ? h("kbd", { "aria-hidden": "true" }, key) : null);
    },
  };

  const game = makeGame(frame);
  const over = game.over || new Set(["hand_over", "match_over"]);
  const isOver = (view) => over.has(view.phase);
  const handOf = game.handOf || ((record) => record.hand);
  const finished = game.finished || ((view) => (isOver(view) && view.last ? view.last : null));
  const handWord = game.handWord || "Hand";
  const deal = game.deal || { id: "next-hand", label: "Next hand" };
  const send = (action) => (game.send ? game.send(action) : ctx.act(action));

  if (game.message) message = h("p", { class: "board-message", id: "message", role: "alert" });
  const status = h("section", { class: "status-bar", "aria-label": "Status" },
    h("div", { class: "status-lines" }, statusText, lastMove, hintReason, hintLine, message), buttons, game.statusParts || []);
  if (game.sideClass) side.classList.add(game.sideClass);
  const help = h("p", { class: "help-line", id: "help-line" }, game.help);
  const root = h("div", { class: game.name, dataset: { ...(game.dataset || {}), mode: "play" } },
    game.above || [], status, game.below || [], help, side);
  frame.root = root;
  el.append(root);
  const motion = createMotion(root);
  const press = holdWhilePressed(root, () => frame.afterDrag());

  // -- the finished hand -------------------------------------------------------------------

  /** The finished hand still shown after the next deal, until the player has seen it. */
  function heldHand(view) {
    const r = state.record;
    return view && !isOver(view) && r && !state.seen && view.hand === handOf(r) + 1 ? r : null;
  }

  function dismiss() {
    state.seen = true;
    draw();
  }

  function rematch() {
    state.seen = true;
    ctx.rematch();
    draw();
  }

  // -- a new view ----------------------------------------------------------------------------

  function update(view, meta) {
    const prev = state.view;
    if (prev && view.hand < prev.hand) {
      state.record = null; // a rematch: a new match, its hands numbered from 1 again
      state.seen = true;
    }
    if (prev && view.hand !== prev.hand) lastMove.textContent = ""; // the last hand's moves are not news in this one
    state.view = view;
    state.meta = meta;
    const record = finished(view, meta);
    if (record) {
      if (!state.record || handOf(state.record) !== handOf(record)) {
        state.seen = false;
        countHand(view, record);
      }
      state.record = record;
    }
    soundsOf(prev, view, meta);
    game.update?.(view, meta);
    const line = game.events(view, meta);
    if (line !== null && line !== undefined) lastMove.textContent = line;
    noteFresh(view);
    if (isDragging() || press.held()) {
      state.drawAfterDrag = true; // not under the user's finger
      return;
    }
    draw();
  }

  /** The cards that just arrived in my hand stay marked until it shrinks or a new hand. */
  function noteFresh(view) {
    const mine = view.hands?.[view.seat]?.cards || [];
    if (state.handNo === view.hand && mine.length > state.mine.length) state.fresh = new Set(arrived(state.mine, mine));
    else if (state.handNo !== view.hand || mine.length < state.mine.length) state.fresh = new Set();
    state.mine = mine;
    state.handNo = view.hand;
  }

  // -- drawing -------------------------------------------------------------------------------

  function draw() {
    state.drawAfterDrag = false;
    const view = state.view;
    if (!view) return;
    const shot = motion.before(); // first: the mode flags below change what the board shows
    const held = heldHand(view);
    const turn = {
      myTurn: frame.myTurn(), held, watching: !isSeat(view.seat),
      ended: held || (isOver(view) && (view.last || view.result) ? view : null),
    };
    root.dataset.players = String(view.players ?? ctx.seats.length);
    root.dataset.phase = view.phase;
    root.dataset.mode = turn.ended ? "hand-over" : "play";
    root.dataset.held = held ? "true" : "false";
    root.classList.toggle("my-turn", turn.myTurn);
    root.classList.toggle("watching", turn.watching);
    root.classList.toggle("scores-open", state.showScores);
    const keep = focusedId();

    game.draw(view, turn);
    statusText.textContent = statusLine(view, turn);
    replace(buttons, ...buttonList(view, turn));
    replace(side, state.showScores ? h("button", {
      class: "small side-close", id: "scores-close", onclick: () => { state.showScores = false; draw(); },
    }, "Close") : null, game.scores(view));
    if (held) lastMove.textContent = ""; // the moves of the next hand wait until it is on screen
    drawHint(view, turn);
    drawTableHint();
    restoreFocus(keep);
    moveCards(shot, view, held);
  }

  // -- cards that move, and their sounds ---------------------------------------------------------

  function moveCards(shot, view, held) {
    const before = state.drawn;
    const hand = held ? handOf(held) : view.hand;
    state.drawn = { view, hand };
    if (!before) return; // the first picture of the table: nothing moved
    const deal = before.hand !== hand;
    if (deal) clearHandToasts(); // a new hand on the table: what was said about the last one is stale
    const found = motion.play(shot, {
      deal,
      actor: before.view !== view ? before.view.to_act : null,
      winner: view.last_trick?.winner ?? null,
      dealer: view.dealer,
      mySeat: view.seat,
    });
    // The end of a match is heard as its fanfare alone (soundsOf), not as cards laid down.
    if (deal && found.arrived.length) playSound("deal");
    else if (!deal && view.phase !== "match_over" && (found.changedPlace || found.arrived.length ||
      found.vanished.some((c) => c.zone.startsWith("trick:") || c.zone.startsWith("pile:")))) playSound("play");
  }

  /** Your turn, the turn clock running low, a match won or lost: heard, not only seen. */
  function soundsOf(prev, view, meta) {
    const me = view.seat;
    warnClock(isSeat(me) && meta?.clock?.seat === me ? meta.clock : null);
    if (!prev || !isSeat(me) || meta?.ended) return;
    if (view.phase === "match_over" && prev.phase !== "match_over") {
      const won = matchWon(view);
      if (won !== null) playSound(won ? "win" : "lose");
    } else if (view.to_act === me && prev.to_act !== me && !isOver(view)) playSound("turn");
  }

  /** true / false, or null for a draw (or a result this frame cannot read). */
  function matchWon(view) {
    const r = view.result;
    if (!r) return null;
    if (Array.isArray(r.winners)) return r.winners.length ? r.winners.includes(view.seat) : null;
    if (!isSeat(r.winner)) return null;
    if (Array.isArray(view.sides) && Array.isArray(view.sides[r.winner])) return view.sides[r.winner].includes(view.seat);
    return r.winner === view.seat;
  }

  function warnClock(clock) {
    const key = clock ? `${clock.seat}:${clock.deadline}` : null;
    if (key === state.clock.key) return;
    clearTimeout(state.clock.timer);
    state.clock = { key, timer: null };
    if (!clock) return;
    const local = localDeadline(clock.deadline, clock.now);
    if (local <= Date.now()) return;
    state.clock.timer = setTimeout(() => {
      if (state.clock.key === key && state.view?.to_act === clock.seat) playSound("warning");
    }, Math.max(0, local - URGENT_MS - Date.now()));
  }

  // -- the hint line of a new player's first hands -----------------------------------------------

  function drawHint(view, turn) {
    const p = prefs();
    const mine = !turn.watching && !turn.ended && isSeat(view.seat) && view.to_act === view.seat;
    const text = mine && !p.hintsOff && (Number(p.handsPlayed) || 0) < HINT_HANDS ? game.hint?.(view, turn) : null;
    hintText.textContent = text || "";
    hintLine.hidden = !text;
  }

  /** The table's hint: its reason under the status, its cards marked, H in the key line. */
  function drawTableHint() {
    const reason = ctx.hint?.reason();
    hintReason.textContent = reason ? (reason.refused ? reason.text : `Hint: ${reason.text}`) : "";
    hintReason.hidden = !reason;
    hintReason.classList.toggle("refused", Boolean(reason?.refused));
    ctx.hint?.mark(root);
    help.textContent = ctx.hint?.offered() ? `${game.help} · H\u00a0hint` : game.help;
  }

  function hintsOff() {
    setPref("hintsOff", true);
    hintLine.hidden = true;
    // The button is gone: keyboard users go on from the hand (or the first action), not from the page's top.
    const next = root.querySelector(".hand-card[tabindex='0']") || buttons.querySelector("button:not(:disabled)");
    next?.focus();
  }

  /** One more hand played in this browser (each finished hand once, even across reloads). */
  function countHand(view, record) {
    if (!isSeat(view.seat)) return;
    const tag = `${ctx.code}:${handOf(record)}`;
    const p = prefs();
    if (p.lastHandCounted === tag) return;
    setPref("handsPlayed", (Number(p.handsPlayed) || 0) + 1);
    setPref("lastHandCounted", tag);
  }

  function statusLine(view, turn) {
    if (turn.held) return `${handWord} ${handOf(turn.held)} is over. Continue when you are ready.`;
    if (view.phase === "match_over") return game.status(view, turn) ?? "The match is over.";
    if (!ctx.online) return "Connection lost — reconnecting…";
    if (ctx.pending) return "Sending…";
    return game.status(view, turn) ?? waitingLine(view);
  }

  /** Whose move we are waiting for, and why it may take a while. */
  function waitingLine(view) {
    const other = view.to_act;
    if (!isSeat(other)) return "";
    const info = ctx.seatInfo(other);
    const name = ctx.seatName(other);
    if (info && info.kind === "human" && !info.taken) return game.waitingFriend(other, name);
    if (info && info.kind === "human" && !info.connected) return `${name} disconnected — waiting for them to come back`;
    const busy = game.busy?.(view, name);
    if (busy) return busy;
    if (isOver(view)) return `${handWord} over: waiting for ${name} to deal`;
    if (info && info.kind === "bot") return `${name} is thinking…`;
    return `Waiting for ${name}…`;
  }

  function buttonList(view, turn) {
    const list = [];
    if (turn.held) list.push(frame.button("continue", "Continue", dismiss, "N", "primary"));
    else if (view.phase === "match_over") {
      if (!turn.watching) {
        const votes = state.meta?.rematch || [];
        const asked = votes.includes(view.seat);
        list.push(frame.button("rematch", asked ? "Rematch asked…" : "Rematch", !asked && rematch, "R", "primary"));
        const others = votes.filter((s) => s !== view.seat).map(ctx.seatName);
        if (others.length) {
          list.push(h("span", { class: "hint", id: "rematch-votes" },
            `${others.join(", ")} ${others.length > 1 ? "want" : "wants"} a rematch`));
        }
      }
    } else if (isOver(view)) {
      const next = turn.myTurn && findLegal(view, "deal");
      if (next) list.push(frame.button(deal.id, deal.label, () => { state.seen = true; send(next); }, "N", "primary"));
      else if (!turn.myTurn && !turn.watching) list.push(game.dealerHint?.(view));
    } else list.push(...(game.buttons(view, turn) || []));
    if (view.phase !== "match_over") list.push(ctx.hint?.button(turn.myTurn && !isOver(view)) || null);
    list.push(h("button", {
      class: "small scores-toggle", id: "scores-toggle", "aria-expanded": String(state.showScores),
      onclick: () => { state.showScores = !state.showScores; draw(); },
    }, state.showScores ? "Hide scorecard" : "Scorecard"), mute);
    return list;
  }

  // -- keyboard focus across redraws -----------------------------------------------------------

  function focusedId() {
    const a = document.activeElement;
    return a && a.id && root.contains(a) ? a.id : null;
  }

  /** A redraw replaced the focused control: focus its successor (same id), if focus was lost. */
  function restoreFocus(id) {
    const a = document.activeElement;
    if (!id || (a && a !== document.body && a.isConnected)) return;
    const target = document.getElementById(id);
    if (target && !target.disabled) target.focus();
  }

  // -- keys ------------------------------------------------------------------------------------

  function key(event) {
    const view = state.view;
    if (!view || game.keysOff?.()) return false;
    const k = event.key;
    const low = k.length === 1 ? k.toLowerCase() : k;
    if (k === "Escape") {
      const cleared = game.clear?.() || false;
      if (!cleared && !state.showScores) return false;
      state.showScores = false;
      draw();
      return true;
    }
    const held = heldHand(view);
    if (low === "n" && held) {
      dismiss();
      return true;
    }
    const turn = { myTurn: frame.myTurn(), held, watching: !isSeat(view.seat) };
    if (game.key?.(event, low, turn)) return true;
    if (low === "n") {
      const next = turn.myTurn && findLegal(view, "deal");
      if (!next) return false;
      state.seen = true;
      return Boolean(send(next));
    }
    if (low === "r" && view.phase === "match_over" && !turn.watching && !(state.meta?.rematch || []).includes(view.seat)) {
      rematch();
      return true;
    }
    return false;
  }

  return {
    update,
    key,
    destroy() {
      clearTimeout(state.clock.timer);
      press.stop();
      motion.stop();
      game.destroy?.();
      el.replaceChildren();
    },
  };
}
