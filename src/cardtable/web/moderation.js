// Moderation basics (docs/players.md, "Moderation"): block or unblock a player, report
// one to the operator, and "Hide all chat". The server hides a blocked player's chat
// itself (and keeps him out of your private tables); this page also hides his lines by
// seat at once, for the lines already shown. Names and reasons go in as text only (h()).
//
// The list of blocked player ids is loaded once per page load (GET /api/blocks) and kept
// here; every change sends a "cardtable:blocks" event so the chat and the lists redraw.

import { call } from "./api.js";
import { h, replace } from "./dom.js";
import { prefs, setPref } from "./state.js";

export const MAX_REASON = 500; // the server's store/moderation.py MAX_REASON

let blocked = new Set();
let loading = null;
let isPlayer = false; // the browser has a player (its cookie): blocks and reports are his

function changed() {
  window.dispatchEvent(new Event("cardtable:blocks"));
}

/** Load the block list (once; `fresh` loads it again): true when the browser is a player. */
export function loadBlocks(fresh = false) {
  if (!loading || fresh) {
    loading = call("GET", "/api/blocks").then((d) => {
      blocked = new Set((d.blocks || []).map((b) => b.player_id));
      isPlayer = Boolean(d.player_id);
      changed();
      return isPlayer;
    }, () => { isPlayer = false; return false; });
  }
  return loading;
}

export const isBlocked = (playerId) => Boolean(playerId) && blocked.has(playerId);

export async function setBlocked(playerId, on) {
  await call(on ? "POST" : "DELETE", `/api/blocks/${encodeURIComponent(playerId)}`);
  if (on) blocked.add(playerId);
  else blocked.delete(playerId);
  changed();
}

export const sendReport = (playerId, reason, table = null) =>
  call("POST", "/api/reports", table ? { player_id: playerId, reason, table } : { player_id: playerId, reason });

/** The "Hide all chat" preference (every table). */
export const chatHidden = () => Boolean(prefs().hideChat);

export function setChatHidden(on) {
  setPref("hideChat", Boolean(on));
  window.dispatchEvent(new Event("cardtable:prefs"));
}

/**
 * Block/Unblock and Report buttons for one player ({player_id, name}); `table`: the room
 * code the report is about, if any. Redraws itself when blocks change; `toast(text)`
 * says what went wrong.
 */
export function playerActions(player, { table = null, toast = () => {}, idPrefix = "mod" } = {}) {
  const box = h("div", { class: "moderation", dataset: { player: player.player_id } });
  const status = h("p", { class: "moderation-status", role: "status" });
  let reporting = false;
  let sent = null; // the reason the server kept, once reported

  async function toggle() {
    const on = !isBlocked(player.player_id);
    try {
      await setBlocked(player.player_id, on);
      status.textContent = on ? `You blocked ${player.name}: you will not see their chat, and they cannot sit at your private tables.`
        : `You unblocked ${player.name}.`;
    } catch (e) {
      toast(e.message);
    }
  }

  function form() {
    const reason = h("textarea", {
      id: `${idPrefix}-reason`, class: "report-reason", maxlength: MAX_REASON, rows: 3,
      placeholder: "What happened?", "aria-describedby": `${idPrefix}-count ${idPrefix}-error`,
    });
    const count = h("span", { class: "chat-count", id: `${idPrefix}-count` }, `0/${MAX_REASON}`);
    const error = h("p", { class: "form-error report-error", id: `${idPrefix}-error`, role: "alert" });
    const submit = h("button", { type: "submit", class: "danger small", id: `${idPrefix}-send` }, "Send report");
    reason.addEventListener("input", () => {
      count.textContent = `${reason.value.length}/${MAX_REASON}`;
      error.textContent = "";
    });
    const el = h("form", {
      class: "report-form", "aria-label": `Report ${player.name}`,
      onsubmit: async (event) => {
        event.preventDefault();
        if (!reason.value.trim()) {
          error.textContent = "Say what happened first.";
          return;
        }
        submit.disabled = true;
        try {
          const kept = await sendReport(player.player_id, reason.value, table);
          sent = kept.reason;
          reporting = false;
          draw();
        } catch (e) {
          submit.disabled = false;
          error.textContent = e.message;
        }
      },
    },
    h("label", { for: `${idPrefix}-reason` }, `Why are you reporting ${player.name}? The operator reads reports.`),
    reason,
    h("div", { class: "report-foot" }, count,
      h("span", { class: "report-buttons" }, submit,
        h("button", { type: "button", class: "small", onclick: () => { reporting = false; draw(); } }, "Cancel"))),
    error);
    setTimeout(() => reason.focus({ preventScroll: true }), 0);
    return el;
  }

  function draw() {
    const on = isBlocked(player.player_id);
    const focused = box.contains(document.activeElement) ? document.activeElement.id : "";
    replace(box,
      h("div", { class: "moderation-buttons" },
        h("button", {
          class: ["small", "block-button", on && "blocked"], type: "button", id: `${idPrefix}-block`,
          dataset: { blocked: String(on) }, onclick: toggle, // the label says the state: no aria-pressed
        }, on ? "Unblock" : "Block"),
        sent === null ? h("button", {
          class: "small report-button", type: "button", id: `${idPrefix}-report`, "aria-expanded": String(reporting),
          onclick: () => { reporting = !reporting; draw(); },
        }, "Report…") : null),
      reporting ? form() : null,
      sent !== null ? h("p", { class: "report-sent", role: "status" }, "Report sent. You wrote: ",
        h("q", { class: "report-text" }, sent)) : null,
      status);
    if (focused) document.getElementById(focused)?.focus(); // a keyboard user stays put
  }

  draw();
  const redraw = () => {
    if (!box.isConnected) window.removeEventListener("cardtable:blocks", redraw); // its page is gone
    else if (!reporting) draw();
  };
  window.addEventListener("cardtable:blocks", redraw);
  return box;
}

/** The profile page's part (profile.js): nothing for your own profile, nor for a browser
 * that is no player yet (it has never sat down: it has nobody to block for). */
export function profileModeration(profile) {
  const slot = h("div", { class: "profile-moderation", id: "profile-moderation" });
  if (profile.you) return slot;
  loadBlocks(true).then((player) => {
    if (player && slot.isConnected) replace(slot, playerActions(profile, { idPrefix: "profile" }));
  });
  return slot;
}

/**
 * The table panel's "People" section: every other person at the table with a link to his
 * profile, Block and Report, and the "Hide all chat" switch.
 * @param ctx the table context (seats, seat, code)
 * @param {{toast(text): void, hideChat(on): void}} io
 */
export function createPeople(ctx, io) {
  const el = h("section", { class: "life-section people-section", id: "people", "aria-label": "People at this table" });
  const rows = new Map(); // player id and name -> node (kept between redraws: an open report stays)
  const rowKey = (s) => `${s.player_id}\n${s.name}`;
  let key = "";

  function others() {
    const mine = ctx.seats[ctx.seat]?.player_id ?? null;
    return ctx.seats.filter((s) => s.kind === "human" && s.taken && s.player_id && s.seat !== ctx.seat && s.player_id !== mine);
  }

  function row(s) {
    const name = String(s.name ?? "Player");
    return h("li", { class: "person", dataset: { seat: String(s.seat), player: s.player_id } },
      h("a", { href: `/p/${encodeURIComponent(s.player_id)}`, target: "_blank", rel: "noopener", class: "person-name" }, name),
      isPlayer ? playerActions({ player_id: s.player_id, name }, { table: ctx.code, toast: io.toast, idPrefix: `seat-${s.seat}` }) : null);
  }

  function update() {
    const list = others();
    const next = JSON.stringify([isPlayer, chatHidden(), list.map((s) => [s.seat, s.player_id, s.name])]);
    if (next === key) return;
    key = next;
    for (const id of [...rows.keys()]) if (!list.some((s) => rowKey(s) === id)) rows.delete(id);
    const items = list.map((s) => {
      if (!rows.has(rowKey(s))) rows.set(rowKey(s), row(s));
      return rows.get(rowKey(s));
    });
    const hide = h("input", { type: "checkbox", id: "hide-chat", checked: chatHidden() });
    hide.addEventListener("change", () => io.hideChat(hide.checked));
    replace(el, h("h3", null, "People"),
      items.length ? h("ul", { class: "people-list" }, items) : h("p", { class: "hint" }, "Nobody else here yet."),
      h("div", { class: "setting setting-check" }, hide, h("label", { for: "hide-chat" }, "Hide all chat")));
  }

  loadBlocks(true).then(() => { key = ""; rows.clear(); update(); });
  return { el, update };
}
