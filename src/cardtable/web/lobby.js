// The home page's "Open tables": public tables waiting for players, kept live
// over /ws/lobby, with Join / Watch per table and a Quick join button.
// "Only <game>" (ticked by default) narrows both the list and Quick join to the
// game picked under New game; the tables it hides are counted, never silently lost.
//
// Every lobby frame carries the whole list, so the client never patches: it
// reconciles the rows by table id, keeping the existing buttons (and keyboard
// focus on them) when a row only changes.

import { ApiError, joinTable, quickJoin } from "./api.js";
import { h, replace } from "./dom.js";
import { rememberSeat, seatFor, setGuestName } from "./state.js";
import { announce, toast } from "./toast.js";

// The same reconnect rhythm as net.js and cardtable.client, with jitter: 0.25 s growing
// by half to 10 s. A table whose process died is playable at most a lease's time (3 s)
// after the kill, and tries at 0.25, 0.6, 1.2, 2, 3.3, 5.2 s find it within about a
// second, where doubling from 0.5 s could wait past 7 s.
const FIRST_DELAY = 250;
const GROWTH = 1.5;
const MAX_DELAY = 10_000;
const PING_EVERY = 25_000; // keeps idle proxies from dropping the socket

const humanize = (name) => String(name).replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

/** /ws/lobby: calls on.list(tables) for each fresh list, on.status(state). */
class LobbySocket {
  constructor(on) {
    this.on = on;
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    this.version = -1; // per connection: a frame older than the last one is dropped
    this.retryTimer = null;
    this.pingTimer = null;
  }

  connect() {
    if (this.closed) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/lobby`);
    this.ws = ws;
    this.version = -1;
    // The server closes a socket that says no hello within 10 s (4008); then we reconnect.
    ws.onopen = () => this.send({ t: "hello" });
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = () => this.lost(ws);
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (!frame || frame.t !== "lobby" || !frame.d) return; // pong and anything new
    if (typeof frame.v === "number") {
      if (frame.v <= this.version) return;
      this.version = frame.v;
    }
    if (this.attempt || !this.pingTimer) {
      this.attempt = 0;
      this.on.status("connected");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ t: "ping" }), PING_EVERY);
    }
    this.on.list(Array.isArray(frame.d.tables) ? frame.d.tables : []);
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  lost(ws) {
    if (ws !== this.ws) return; // an old socket closing late
    clearInterval(this.pingTimer);
    this.pingTimer = null;
    if (this.closed) return;
    const base = Math.min(MAX_DELAY, FIRST_DELAY * GROWTH ** this.attempt);
    this.attempt += 1;
    this.on.status("reconnecting");
    this.retryTimer = setTimeout(() => this.connect(), Math.round(base * (0.75 + Math.random() * 0.5)));
  }

  /** Skip the wait (the browser says it is online again). */
  retryNow() {
    if (this.closed || (this.ws && this.ws.readyState <= WebSocket.OPEN)) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000);
  }
}

// -- one row ------------------------------------------------------------------------------

const hostName = (entry) => (entry.seats || [])[0]?.name || "someone";

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The table's options are resolved on the server (no preset name): name the
 * preset they equal, or say "Custom". Express keys are its own, not a change.
 */
function presetName(entry, game) {
  if (!game || !game.preset_values || !entry.options) return null;
  const skip = entry.express && game.express ? game.express : {};
  const fits = (values) => Object.entries(values).every(([k, v]) => k in skip || same(entry.options[k], v));
  const preset = (game.presets || []).find((p) => game.preset_values[p] && fits(game.preset_values[p]));
  return preset ? `${humanize(preset)} rules` : "Custom rules";
}

function rulesText(entry, game) {
  const parts = [];
  const preset = presetName(entry, game);
  if (entry.settings?.rated) parts.push("Rated");
  if (preset) parts.push(preset);
  if (entry.express) parts.push("Express: one hand");
  const turn = entry.settings?.turn_time;
  parts.push(turn ? `${turn} s a turn` : "No turn timer");
  parts.push(entry.settings?.spectators === false ? "No spectators" : "Spectators welcome");
  return parts.join(" · ");
}

function seatItem(seat) {
  if (!seat.taken) return h("li", { class: "ot-seat ot-free" }, "Free seat");
  let note = seat.seat === 0 ? "host" : null;
  if (seat.kind === "bot") {
    const level = seat.level || "normal";
    note = seat.name && seat.name !== "Computer" ? `computer, ${level}` : level;
  }
  const who = seat.name || (seat.kind === "bot" ? "Computer" : "Player");
  return h("li", { class: "ot-seat" }, who, // textContent: names are whatever people typed
    note ? h("span", { class: "hint" }, ` (${note})`) : null);
}

function rowInfo(entry, game) {
  const players = entry.players || (entry.seats || []).length;
  const free = entry.free ?? (entry.seats || []).filter((s) => !s.taken).length;
  const titleId = `ot-title-${entry.code}`;
  return [
    h("h3", { class: "ot-title", id: titleId }, entry.title || humanize(entry.game),
      h("span", { class: "ot-count" }, ` ${players - free} of ${players} seated`)),
    h("p", { class: "ot-rules hint" }, rulesText(entry, game)),
    h("ul", { class: "ot-seats", "aria-label": "Seats" }, (entry.seats || []).map(seatItem)),
  ];
}

/** The Open tables section. pickedGame(): {name, title} or null; name(): the typed guest name. */
export function mountLobby({ navigate, name, pickedGame }) {
  const rows = new Map(); // table_id -> {li, info, actions, join, watch, entry, sig}
  let games = new Map(); // name -> the game from /api/games (titles, presets, express)
  const list = h("ul", { class: "ot-list", id: "open-tables", "aria-labelledby": "open-tables-title" });
  const empty = h("p", { class: "ot-empty hint", id: "open-tables-empty", hidden: true },
    "No open tables right now. Create one with “List in the public lobby”, or play the computer.");
  const status = h("p", { class: "ot-status hint", id: "open-tables-status" }, "Looking for open tables…");
  const quickError = h("p", { class: "form-error", id: "quick-error", role: "alert" });
  const onlyGame = h("input", { type: "checkbox", id: "quick-game", checked: true, "aria-controls": "open-tables" });
  const onlyLabel = h("label", { for: "quick-game" }, "Only this game");
  const others = h("p", { class: "ot-others hint", id: "open-tables-others", hidden: true, "aria-live": "polite" });
  onlyGame.addEventListener("change", () => refilter());
  const quick = h("button", { class: "primary", id: "quick-join", onclick: quickSeat }, "Quick join");
  let destroyed = false;
  let seen = null; // table ids of the previous list (null before the first), for "a table opened"
  let latest = []; // the last full list from the server, to filter again when the game or box changes

  /** The game the list is narrowed to, or null for every game. */
  const filterGame = () => (onlyGame.checked ? pickedGame() || null : null);

  function guest() {
    const typed = name().trim();
    setGuestName(typed);
    return typed || "Guest";
  }

  function seated(grant) {
    rememberSeat(grant.code, grant);
    if (!destroyed) navigate(`/t/${grant.code}`);
  }

  async function quickSeat() {
    quickError.textContent = "";
    quick.disabled = true;
    const game = onlyGame.checked ? pickedGame()?.name ?? null : null;
    try {
      seated(await quickJoin(guest(), game, null));
    } catch (e) {
      // 404 is the server's own "nothing fits; create one" message: show it as is.
      quickError.textContent = e.message;
    } finally {
      quick.disabled = false;
    }
  }

  async function joinRow(row) {
    const { entry, join: button } = row;
    const mine = seatFor(entry.code);
    if (mine && mine.table_id === entry.table_id) {
      navigate(`/t/${entry.code}`); // already seated there: go back to the seat
      return;
    }
    button.disabled = true;
    try {
      seated(await joinTable(entry.code, guest()));
    } catch (e) {
      const full = e instanceof ApiError && e.status === 409;
      toast(full ? "That table just filled up." : `Could not join: ${e.message}`);
      button.disabled = false;
    }
  }

  function makeRow(entry) {
    const info = h("div", { class: "ot-info" });
    const join = h("button", { class: "primary ot-join" }, "Join");
    const watch = h("button", { class: "ot-watch" }, "Watch");
    const actions = h("div", { class: "ot-actions" }, join, watch);
    const li = h("li", { class: "open-table" }, info, actions);
    const row = { li, info, actions, join, watch, entry, sig: "" };
    join.addEventListener("click", () => joinRow(row));
    watch.addEventListener("click", () => navigate(`/t/${row.entry.code}`));
    return row;
  }

  function fillRow(row, entry) {
    row.entry = entry;
    const mine = seatFor(entry.code)?.table_id === entry.table_id;
    const sig = JSON.stringify([entry, mine]);
    if (sig === row.sig) return;
    row.sig = sig;
    Object.assign(row.li.dataset, { code: entry.code, tableId: entry.table_id, game: entry.game });
    row.li.setAttribute("aria-labelledby", `ot-title-${entry.code}`);
    replace(row.info, ...rowInfo(entry, games.get(entry.game)));
    const what = `${entry.title || entry.game} table of ${hostName(entry)}`;
    row.join.textContent = mine ? "Your seat" : "Join";
    row.join.setAttribute("aria-label", mine ? `Back to your seat at the ${what}` : `Join the ${what}`);
    // No Watch button at all where the host keeps spectators out.
    if (entry.settings?.spectators === false) row.watch.remove();
    else if (row.watch.parentNode !== row.actions) row.actions.append(row.watch);
    row.watch.setAttribute("aria-label", `Watch the ${what}`);
  }

  function show(tables) {
    latest = tables;
    const only = filterGame();
    const valid = tables.filter((entry) => entry && entry.table_id && entry.code);
    const shown = only ? valid.filter((entry) => entry.game === only.name) : valid;
    const hadFocus = list.contains(document.activeElement);
    let cursor = list.firstChild;
    const keep = new Set();
    for (const entry of shown) {
      keep.add(entry.table_id);
      let row = rows.get(entry.table_id);
      if (!row) {
        row = makeRow(entry);
        rows.set(entry.table_id, row);
      }
      fillRow(row, entry);
      // Move a row only when it is out of place: moving a node drops its focus.
      if (row.li === cursor) cursor = cursor.nextSibling;
      else list.insertBefore(row.li, cursor);
    }
    for (const [id, row] of rows) {
      if (keep.has(id)) continue;
      row.li.remove();
      rows.delete(id);
    }
    // The focused row went away (it filled up): keep the keyboard in the section.
    if (hadFocus && !list.contains(document.activeElement)) {
      (list.querySelector(".ot-join") || quick).focus();
    }
    drawCounts(only, valid.length - shown.length);
    const opened = seen ? shown.filter((t) => !seen.has(t.table_id)) : [];
    if (opened.length === 1) announce(`A table opened: ${opened[0].title || opened[0].game}, ${hostName(opened[0])}.`);
    // Every listed table counts as seen, so ticking the box off announces nothing.
    seen = new Set(valid.map((t) => t.table_id));
  }

  /** The same list again, narrowed anew (not before the first list: nothing to narrow). */
  function refilter() {
    if (seen !== null && !destroyed) show(latest);
  }

  function drawCounts(only, hidden) {
    empty.hidden = rows.size > 0;
    const title = only ? only.title || humanize(only.name) : "";
    empty.textContent = only
      ? `No open ${title} tables right now. Create one with “List in the public lobby”, or play the computer.`
      : "No open tables right now. Create one with “List in the public lobby”, or play the computer.";
    const text = hidden
      ? `${hidden} more ${hidden === 1 ? "table" : "tables"} of other games: untick “Only ${title}” to see ${hidden === 1 ? "it" : "them"}.`
      : "";
    others.hidden = !hidden;
    if (others.textContent !== text) others.textContent = text; // a live region: no repeats
  }

  const el = h("section", { class: "panel open-tables", "aria-labelledby": "open-tables-title" },
    h("div", { class: "ot-head" },
      h("h2", { id: "open-tables-title" }, "Open tables"),
      h("div", { class: "ot-quick" }, quick, onlyGame, onlyLabel)),
    h("p", { class: "hint" }, "Public tables waiting for players. Join a free seat, or watch."),
    status, quickError, list, empty, others);

  const socket = new LobbySocket({
    list: (tables) => { if (!destroyed) show(tables); },
    status: (state) => {
      status.textContent = state === "connected" ? "" : "Reconnecting to the lobby…";
      el.classList.toggle("ot-stale", state !== "connected");
    },
  });
  const online = () => socket.retryNow();
  window.addEventListener("online", online);
  socket.connect();

  return {
    el,
    /** The games from /api/games, to name each table's rules; redraws the rows. */
    setGames(list) {
      games = new Map(list.map((g) => [g.name, g]));
      for (const row of rows.values()) {
        row.sig = "";
        fillRow(row, row.entry);
      }
    },
    /** The home page picked another game: the list and Quick join follow it. */
    setGame(game) {
      onlyLabel.textContent = game ? `Only ${game.title || humanize(game.name)}` : "Only this game";
      refilter();
    },
    destroy() {
      destroyed = true;
      window.removeEventListener("online", online);
      socket.close();
    },
  };
}
