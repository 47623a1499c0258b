// Hints at the table (issue 16): the "Hint" button and the H key ask the server what
// the hard computer would play for me now; the answer, sent to me alone, is one of my
// legal moves and a short reason ("take 5♣: it makes 4♣ 5♣ 6♣"). The reason is shown
// in the board's status lines and read aloud, and the cards the move names are marked
// on the table, until the table moves on (a hint is for one version of the table).
// The host may turn hints off (settings.hints): the button goes, the key says so. A rated
// table gives no hints at all (settings.rated: its result is what the players played).
//
// table.js owns the socket and hands every hint and error frame here; the board frame
// (games/board.js) draws the button, the reason and the marks through ctx.hint.

import { h } from "./dom.js";

/**
 * @param ctx the table context of table.js (role, table, pending, online)
 * @param {{socket(): import("./net.js").TableSocket, view(): object|null,
 *          version(): number|null, redraw(): void, announce(text): void}} io
 */
export function createHints(ctx, io) {
  let asked = null; // {id, v}: the question on its way
  let said = null; // {v, text, action}: the answer (or why none) for version v

  /** A rated table: no hints (the server refuses them too, hints_rated). */
  const rated = () => ctx.table?.settings?.rated === true;

  /** Hints offered at this table to me: I play here, it is not rated, the host left them on. */
  const offered = () => ctx.role === "player" && !rated() && ctx.table?.settings?.hints !== false;

  /** It is my move now (the board's own test adds a finished hand still on screen). */
  function myTurn() {
    const view = io.view();
    return Boolean(view && ctx.online && !ctx.pending && view.to_act === ctx.seat &&
      view.to_act !== null && view.to_act !== undefined && (view.legal || []).length);
  }

  /** What was said for the version on screen, else null. */
  function current() {
    return said && said.v === io.version() ? said : null;
  }

  function ask() {
    if (!offered()) return false;
    const known = current();
    if (known) { // asked already for this very table: say it again, do not ask again
      io.announce(`Hint: ${known.text}`);
      return true;
    }
    if (!myTurn()) {
      io.announce("A hint is given on your turn.");
      return true;
    }
    if (asked && asked.v === io.version()) return true; // on its way
    const id = io.socket()?.hint();
    if (!id) return false;
    asked = { id, v: io.version() };
    io.redraw();
    return true;
  }

  return {
    offered,
    ask,

    /** A (re)connect: a question asked on the old socket will not be answered. */
    reset() {
      asked = null;
    },

    /** The status bar's button (a fresh one each draw); null when hints are not offered. */
    button(enabled) {
      if (!offered()) return null;
      const waiting = Boolean(asked && asked.v === io.version());
      return h("button", {
        id: "hint-button", class: ["small", "hint-button"], disabled: !enabled || waiting,
        "aria-keyshortcuts": "H", title: "What would a strong player do here? (H)", onclick: ask,
      }, "Hint", h("kbd", { "aria-hidden": "true" }, "H"));
    },

    /** The reason to show under the status for the version on screen ({text, refused}), or null. */
    reason() {
      const known = offered() ? current() : null;
      return known ? { text: known.text, refused: !known.action } : null;
    },

    /** Mark the cards (and the pile) the hinted move names, inside the board's root. */
    mark(root) {
      const known = offered() ? current() : null;
      const action = known?.action;
      if (!action) return;
      const codes = [action.card, ...(Array.isArray(action.cards) ? action.cards : [])].filter(Boolean);
      const used = new Set();
      for (const code of codes) {
        // One element per named card: a second copy (two decks) marks the next one.
        const el = [...root.querySelectorAll(".hand-card[data-card]")]
          .find((e) => e.dataset.card === code && !used.has(e));
        if (!el) continue;
        used.add(el);
        el.classList.add("hinted");
      }
      const pile = { draw_stock: "stock", draw_discard: "discard", take_upcard: "discard" }[action.type];
      if (pile) root.querySelector(`[data-pile="${pile}"]`)?.classList.add("hinted");
      // A move that names no card: its button (a bid's number; else the button the board
      // names after the move, as #blind-nil for blind_nil, #knock, #drop).
      const button = action.type === "bid"
        ? root.querySelector(`.bid-button[data-bid="${Number(action.number)}"]`)
        : root.querySelector(`button#${CSS.escape(action.type.replace(/_/g, "-"))}`);
      if (button && !codes.length && !pile) button.classList.add("hinted");
    },

    /** The server's hint frame. */
    receive(d, v) {
      if (!d || !asked || d.id !== asked.id) return;
      asked = null;
      if (v !== io.version()) return; // the table moved on meanwhile: no longer true
      said = { v, text: String(d.text || ""), action: d.action || null };
      io.announce(`Hint: ${said.text}`);
      io.redraw();
    },

    /** An error frame: true when it answers our question (shown in place of the reason). */
    error(d) {
      if (!d || !asked || d.id !== asked.id) return false;
      const v = asked.v;
      asked = null;
      said = { v, text: `No hint: ${d.message || d.code}`, action: null };
      io.announce(said.text);
      io.redraw();
      return true;
    },

    /** H asks for a hint (the board's keys have no H). */
    key(event) {
      if (event.key !== "h" && event.key !== "H") return false;
      if (ctx.role === "player" && rated()) {
        io.announce("No hints at a rated table.");
        return true;
      }
      return offered() && ask();
    },
  };
}
