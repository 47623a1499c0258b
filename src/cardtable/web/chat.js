// The chat drawer: players' channel for seated players, spectators' channel
// for spectators (who also see the players' chat, labelled). Every piece of
// chat text goes into the page with textContent only, never as markup.
//
// Messages carry ids: chat_history after each (re)connect merges without
// duplicates. Muting a seat hides its messages here, tells the server to stop
// sending them, and is remembered per table (state.js) and re-sent after
// every welcome. A blocked player's lines (moderation.js) are hidden like a muted
// seat's (the server stops sending them too), and "Hide all chat" hides the drawer and
// its button altogether.

import { h, replace } from "./dom.js";
import { chatHidden } from "./moderation.js";
import { mutedSeats, prefs, setMuted, setPref } from "./state.js";

export const MAX_CHARS = 300;
const KEEP = 200; // messages kept in the log
const QUICK = ["Good game", "Nice play", "Hurry up?"];
const ERROR_CODES = new Set(["chat_empty", "chat_too_long", "chat_rate", "chat_repeat", "chat_off"]);

/**
 * @param ctx the table context (seat, role, seats, table, seatName)
 * @param {{send(text): boolean, mute(seat, muted): boolean, code: string, onOpen?(): void,
 *          blockedSeat?(seat): boolean}} io
 */
export function createChat(ctx, io) {
  const messages = new Map(); // id -> message
  const muted = new Set(mutedSeats(io.code));
  let open = Boolean(prefs().chatOpen);
  const unreadIds = new Set(); // new lines not seen yet (a line hidden later no longer counts)
  let lastSent = { text: "", at: 0 };

  const badge = h("span", { class: "chat-badge", hidden: true, "aria-hidden": "true" });
  const toggle = h("button", {
    class: "small", id: "chat-toggle", "aria-controls": "chat-panel", "aria-expanded": String(open),
    onclick: () => setOpen(!open),
  }, "Chat", badge);

  // A list that is also a live region (role="log" would take the list's semantics away
  // from its items): each new message is read out.
  const log = h("ol", { class: "chat-log", id: "chat-log", "aria-live": "polite", "aria-relevant": "additions", "aria-label": "Chat messages" });
  const empty = h("p", { class: "hint chat-empty", id: "chat-empty" }, "No messages yet.");
  const mutedBox = h("div", { class: "chat-muted", id: "chat-muted", hidden: true });
  const note = h("p", { class: "hint chat-note", id: "chat-note", hidden: true });
  const input = h("input", {
    id: "chat-input", type: "text", maxlength: MAX_CHARS, autocomplete: "off", enterkeyhint: "send",
    placeholder: "Say something…", "aria-label": "Chat message", "aria-describedby": "chat-count chat-error",
  });
  const counter = h("span", { class: "chat-count", id: "chat-count", "aria-live": "off" }, `0/${MAX_CHARS}`);
  const error = h("p", { class: "chat-error", id: "chat-error", role: "alert" });
  const sendButton = h("button", { type: "submit", class: "primary small", id: "chat-send" }, "Send");
  const form = h("form", { class: "chat-form", id: "chat-form", onsubmit: (e) => { e.preventDefault(); post(input.value); } },
    input, sendButton);
  const quick = h("div", { class: "chat-quick", role: "group", "aria-label": "Quick phrases" },
    QUICK.map((text) => h("button", { type: "button", class: "small quick-phrase", onclick: () => post(text) }, text)));
  const panel = h("aside", { class: "life-drawer chat-panel", id: "chat-panel", "aria-label": "Chat", hidden: !open },
    h("div", { class: "drawer-head" }, h("h2", null, "Chat"),
      h("button", { class: "small drawer-close", id: "chat-close", "aria-label": "Close the chat", onclick: () => setOpen(false) }, "×")),
    log, empty, mutedBox, note, form,
    h("div", { class: "chat-foot" }, quick, counter), error);

  panel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.stopPropagation();
    setOpen(false);
    toggle.focus();
  });

  input.addEventListener("input", () => {
    counter.textContent = `${input.value.length}/${MAX_CHARS}`;
    counter.classList.toggle("near-limit", input.value.length > MAX_CHARS - 30);
    error.textContent = "";
  });

  function setOpen(value) {
    open = value && !chatHidden();
    setPref("chatOpen", open);
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    document.querySelector(".table-page")?.classList.toggle("chat-open", open);
    if (open) {
      io.onOpen?.(); // one drawer at a time
      unreadIds.clear();
      drawBadge();
      log.lastElementChild?.scrollIntoView?.({ block: "nearest" });
      // On a phone, focusing would throw the keyboard over the table: only on big screens.
      if (window.matchMedia?.("(min-height: 501px) and (min-width: 901px)").matches) input.focus({ preventScroll: true });
    }
  }

  function drawBadge() {
    const unread = [...unreadIds].filter((id) => log.querySelector(`.chat-msg[data-id="${id}"]:not([hidden])`)).length;
    badge.hidden = unread === 0;
    badge.textContent = unread > 9 ? "9+" : String(unread);
    toggle.setAttribute("aria-label", unread ? `Chat, ${unread} new` : "Chat");
  }

  function post(raw) {
    const text = String(raw).trim();
    error.textContent = "";
    if (!text) return;
    if (!canWrite()) return;
    if (!io.send(text)) {
      error.textContent = "Not connected — try again in a moment.";
      return;
    }
    lastSent = { text, at: Date.now() };
    if (raw === input.value) {
      input.value = "";
      counter.textContent = `0/${MAX_CHARS}`;
    }
  }

  function canWrite() {
    const settings = ctx.table?.settings;
    const closed = ctx.role === "spectator" && settings && settings.spectator_chat === false;
    return !closed;
  }

  // -- messages --------------------------------------------------------------------------

  function authorName(m) {
    if (m.seat !== null && m.seat !== undefined && m.seat === ctx.seat) return "You";
    if (m.name) return String(m.name);
    if (m.seat !== null && m.seat !== undefined) return ctx.seatName(m.seat);
    return "Spectator";
  }

  function item(m) {
    const seat = Number.isInteger(m.seat) ? m.seat : null;
    const mine = seat !== null && seat === ctx.seat;
    const tag = ctx.role === "spectator" ? (m.channel === "spectators" ? "watching" : "player") : null;
    const name = authorName(m);
    const li = h("li", {
      class: ["chat-msg", mine && "mine", `channel-${m.channel === "spectators" ? "spectators" : "players"}`],
      dataset: { id: String(m.id), seat: seat === null ? "" : String(seat) },
      hidden: !shown(seat),
    },
    h("span", { class: "chat-name" }, name),
    tag ? h("span", { class: "chat-tag" }, tag) : null,
    h("span", { class: "chat-text" }, String(m.text ?? "")),
    seat !== null && !mine ? h("button", {
      class: "small chat-mute", type: "button", dataset: { seat: String(seat) },
      "aria-label": `Mute ${name}`, title: `Mute ${name}`, onclick: () => setMute(seat, true),
    }, "Mute") : null);
    return li;
  }

  /** A seat's lines are shown unless it is muted or its player blocked. */
  function shown(seat) {
    return seat === null || seat === ctx.seat || (!muted.has(seat) && !io.blockedSeat?.(seat));
  }

  function refilter() {
    for (const li of log.querySelectorAll(".chat-msg")) {
      if (li.dataset.seat !== "") li.hidden = !shown(Number(li.dataset.seat));
    }
    drawBadge();
  }

  function applyHidden() {
    const off = chatHidden();
    toggle.hidden = off;
    if (off) {
      setOpen(false);
      panel.hidden = true;
    }
  }

  function add(m, fresh) {
    if (!m || messages.has(m.id)) return false;
    messages.set(m.id, m);
    const node = item(m);
    // Keep id order even if frames cross (history after a live message).
    const after = [...log.children].find((li) => Number(li.dataset.id) > Number(m.id));
    log.insertBefore(node, after || null);
    while (log.children.length > KEEP) {
      messages.delete(Number(log.firstElementChild.dataset.id));
      unreadIds.delete(Number(log.firstElementChild.dataset.id));
      log.firstElementChild.remove();
    }
    empty.hidden = messages.size > 0;
    const seen = !node.hidden && !node.classList.contains("mine");
    if (fresh && seen && !open) {
      unreadIds.add(m.id);
      drawBadge();
      toggle.title = `${authorName(m)}: ${String(m.text ?? "").slice(0, 80)}`;
    }
    if (open && !after) node.scrollIntoView?.({ block: "nearest" });
    return true;
  }

  function setMute(seat, value) {
    if (value) muted.add(seat);
    else muted.delete(seat);
    setMuted(io.code, seat, value);
    io.mute(seat, value);
    for (const li of log.querySelectorAll(`.chat-msg[data-seat="${seat}"]`)) li.hidden = !shown(seat);
    drawMuted();
    drawBadge();
  }

  let mutedKey = "";
  function drawMuted() {
    const list = [...muted].filter((s) => s !== ctx.seat).sort((a, b) => a - b);
    const key = JSON.stringify(list.map((seat) => [seat, ctx.seatName(seat)]));
    if (key === mutedKey) return;
    mutedKey = key;
    mutedBox.hidden = list.length === 0;
    replace(mutedBox, list.length ? h("span", { class: "hint" }, "Muted: ") : null,
      list.map((seat) => h("button", {
        class: "small chat-unmute", type: "button", dataset: { seat: String(seat) },
        "aria-label": `Unmute ${ctx.seatName(seat)}`, onclick: () => setMute(seat, false),
      }, `${ctx.seatName(seat)} ✕`)));
  }

  function drawNote() {
    const off = !canWrite();
    note.hidden = !off && ctx.role !== "spectator";
    note.textContent = off ? "The host turned spectator chat off." : "You are watching: your messages go to the other spectators only.";
    input.disabled = off;
    sendButton.disabled = off;
    for (const b of quick.children) b.disabled = off;
  }

  return {
    toggle,
    panel,
    welcome() {
      // A new connection knows nothing of our mutes: tell it again.
      for (const seat of muted) if (seat !== ctx.seat) io.mute(seat, true);
      drawMuted();
      drawNote();
      applyHidden();
      document.querySelector(".table-page")?.classList.toggle("chat-open", open);
    },
    history(d) {
      for (const m of (d && d.messages) || []) add(m, false);
    },
    message(d) {
      add(d, true);
    },
    update() {
      drawMuted();
      drawNote();
      refilter(); // the seats (and their players) may have changed
    },
    /** An error frame: true when it was about the chat (shown next to the input). */
    error(d) {
      const code = d && d.code;
      const recent = Date.now() - lastSent.at < 5000;
      if (!ERROR_CODES.has(code) && !(code === "not_allowed" && recent)) return false;
      error.textContent = d.message || code;
      if (recent && !input.value) {
        input.value = lastSent.text; // give the refused text back
        counter.textContent = `${input.value.length}/${MAX_CHARS}`;
      }
      if (!open) setOpen(true);
      return true;
    },
    isMuted: (seat) => muted.has(seat),
    refilter,
    applyHidden,
    close: () => { if (open) setOpen(false); },
    setMute,
  };
}
