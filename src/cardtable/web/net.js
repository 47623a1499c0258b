// The WebSocket half of docs/protocol.md, for one table.
//
// - `hello` with the seat token (or as a spectator) on every (re)connect;
// - `act` carries a unique id and the last version seen; while it is not
//   acknowledged it is kept, and resent with the SAME id after a reconnect,
//   so the server applies it at most once;
// - an act answered `retry` (the server could not save it just now) is resent by
//   itself, same id, after 0.5 s doubling, for about 15 s (as cardtable.client does);
//   the page hears of the first `retry` (flagged `retrying`) and, if it never takes,
//   of the last one;
// - a frame showing that a version was missed triggers one `sync`;
// - a lost socket reconnects with backoff 0.25 s growing by half to 10 s, with jitter;
// - table life (settings, start, chat, mute, resume, leave, end) and hints are
//   plain frames: sent when the socket is open, never queued (the page shows why not).

// 0.25 s growing by half to 10 s, as cardtable.client: a table whose process died is
// playable a lease's time (3 s) after the kill, and tries at 0.25, 0.6, 1.2, 2, 3.3, 5.2 s
// find it within about a second, where doubling from 0.5 s could wait past 7 s.
const FIRST_DELAY = 250;
const GROWTH = 1.5;
const MAX_DELAY = 10_000;
const PING_EVERY = 25_000;
const ACT_RETRY_FIRST = 500;
const ACT_RETRY_FOR = 15_000; // ms of waiting, in all, before a `retry` is given up
// Close codes after which retrying cannot help (docs/protocol.md).
const FATAL_CLOSES = {
  4003: "Your seat token was refused.", 4004: "This table does not exist.",
  4005: "The host does not allow spectators at this table.",
  4006: "This table has as many spectators as it can take. Try again later.",
  4007: "The host of this private table does not take you.",
};

// Unique per page load, so ids stay unique per seat across reloads too.
const SESSION = Math.random().toString(36).slice(2, 8);
let counter = 0;
const nextId = () => `c-${SESSION}-${++counter}`;

export class TableSocket {
  /**
   * @param {string} tableId
   * @param {{token?: string, spectate?: boolean, name?: string}} hello
   * @param {object} on  callbacks: welcome(d, v), view(d, v), seats(d, v),
   *   spectators(d, v), table(d, v), chat(d, v), chatHistory(d, v), left(d, v),
   *   hint(d, v), error(d, v), status(state, detail), fatal(message, closeCode)
   */
  constructor(tableId, hello, on) {
    this.tableId = tableId;
    this.hello = hello;
    this.on = on;
    this.version = null; // last version seen in a view
    this.pending = null; // {id, action, v}: an act not yet acknowledged
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    this.syncing = false;
    this.welcomed = false; // hello answered on the current socket
    this.baseline = false; // the next view is a fresh snapshot: no gap check
    this.retryTimer = null;
    this.pingTimer = null;
    this.actTimer = null; // the resend of an act answered `retry`
  }

  connect() {
    if (this.closed) return;
    this.status("connecting");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.tableId)}`);
    this.ws = ws;
    ws.onopen = () => this.send({ t: "hello", d: this.hello });
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => this.lost(ws, event);
    // onerror is always followed by onclose; nothing to do there.
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.actTimer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000);
  }

  /** Send a game action; returns its id. Only one act is in flight at a time. */
  act(action) {
    clearTimeout(this.actTimer);
    this.pending = { id: nextId(), action, v: this.version, waited: 0, delay: 0 };
    this.sendPending();
    return this.pending.id;
  }

  rematch() {
    this.send({ t: "rematch" });
  }

  // -- table life (host settings, chat, seats); each returns whether it was sent ---------

  /** Host: change table settings (partial) and/or game options (before the first move). */
  settings(settings, options) {
    const d = { settings: settings || {} };
    if (options) d.options = options;
    return this.sendLive({ t: "settings", d });
  }

  /** Host: computers take every free seat and the match begins. */
  start() {
    return this.sendLive({ t: "start" });
  }

  chat(text) {
    return this.sendLive({ t: "chat", d: { text } });
  }

  mute(seat, muted) {
    return this.sendLive({ t: "mute", d: { seat, muted: Boolean(muted) } });
  }

  /** Take the seat back from the computer standing in. */
  resume() {
    return this.sendLive({ t: "resume" });
  }

  /** Leave on purpose: answered by `left`, then the server closes the socket. */
  leave() {
    return this.sendLive({ t: "leave" });
  }

  /** Propose / agree (true) or decline / withdraw (false) ending the match unscored. */
  end(agree) {
    return this.sendLive({ t: "end", d: { agree: Boolean(agree) } });
  }

  /** Ask what a strong player would do now; answered to us alone by `hint` (or `error`),
   * both carrying `id`. Returns the id, or null when not sent. */
  hint() {
    const id = `h-${SESSION}-${++counter}`;
    return this.sendLive({ t: "hint", v: this.version ?? 0, d: { id } }) ? id : null;
  }

  sync() {
    if (this.syncing) return;
    this.syncing = true;
    this.send({ t: "sync" });
  }

  get connected() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN && this.welcomed);
  }

  // -- internals ---------------------------------------------------------------------

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  /** Send only on a welcomed socket (a frame before hello would be refused). */
  sendLive(frame) {
    return this.welcomed ? this.send(frame) : false;
  }

  /** The act answered `retry` goes again after its wait; false once it has waited enough. */
  retryAct() {
    const p = this.pending;
    p.delay = p.delay ? p.delay * 2 : ACT_RETRY_FIRST;
    if (p.waited + p.delay > ACT_RETRY_FOR) return false;
    p.waited += p.delay;
    clearTimeout(this.actTimer);
    this.actTimer = setTimeout(() => this.sendPending(), p.delay);
    return true;
  }

  /** Resend the act waiting on a `retry` now (tests; a page may offer it too). */
  retryActNow() {
    if (!this.actTimer) return;
    clearTimeout(this.actTimer);
    this.actTimer = null;
    this.sendPending();
  }

  sendPending() {
    clearTimeout(this.actTimer);
    this.actTimer = null;
    const p = this.pending;
    if (p && this.welcomed) this.send({ t: "act", v: p.v ?? 0, d: { id: p.id, action: p.action } });
  }

  status(state, detail) {
    this.on.status?.(state, detail);
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    const { t, v, d } = frame;
    switch (t) {
      case "welcome":
        this.welcomed = true;
        this.baseline = true;
        this.attempt = 0;
        this.syncing = false;
        this.status("connected");
        this.startPing();
        this.on.welcome?.(d, v);
        // A reconnect: retry the act we never heard back about, same id.
        this.sendPending();
        break;
      case "view":
        this.receiveView(d, v);
        break;
      case "seats":
        this.noticeVersion(v);
        this.on.seats?.(d, v);
        break;
      case "spectators":
        this.on.spectators?.(d, v);
        break;
      case "table":
        this.noticeVersion(v);
        this.on.table?.(d, v);
        break;
      case "chat":
        this.on.chat?.(d, v);
        break;
      case "chat_history":
        this.on.chatHistory?.(d, v);
        break;
      case "hint":
        this.on.hint?.(d, v);
        break;
      case "left":
        // We gave the seat away: the close that follows is no reason to reconnect.
        this.closed = true;
        this.pending = null;
        clearTimeout(this.retryTimer);
        clearInterval(this.pingTimer);
        this.status("closed", "left");
        this.on.left?.(d, v);
        break;
      case "error":
        if (this.pending && d && d.id === this.pending.id) {
          if (d.code === "retry") {
            const first = !this.pending.waited;
            if (this.retryAct()) {
              if (first) this.on.error?.({ ...d, retrying: true }, v);
              break;
            }
          }
          this.pending = null;
        }
        this.on.error?.(d, v);
        // The server follows an error with a fresh view: no sync needed.
        break;
      case "pong":
        this.noticeVersion(v);
        break;
      default:
        break;
    }
  }

  receiveView(d, v) {
    this.syncing = false;
    if (typeof v === "number" && this.version !== null && v < this.version) return; // old news
    const gap = !this.baseline && typeof v === "number" && this.version !== null &&
      v > this.version + 1;
    this.baseline = false;
    this.version = typeof v === "number" ? v : this.version;
    if (d && d.ack && this.pending && d.ack === this.pending.id) this.pending = null;
    this.on.view?.(d, v, { gap });
    // The snapshot is complete, but events in between were missed: ask once
    // for a fresh snapshot so nothing the server meant us to see is skipped.
    if (gap) this.sync();
  }

  /** A non-view frame newer than our last view means a view went missing. */
  noticeVersion(v) {
    if (typeof v === "number" && this.version !== null && v > this.version) this.sync();
  }

  startPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => this.send({ t: "ping" }), PING_EVERY);
  }

  lost(ws, event) {
    if (ws !== this.ws) return; // an old socket closing late
    this.welcomed = false;
    clearInterval(this.pingTimer);
    if (this.closed) return;
    const fatal = FATAL_CLOSES[event.code];
    if (fatal) {
      this.closed = true;
      this.status("closed", fatal);
      this.on.fatal?.(fatal, event.code);
      return;
    }
    const base = Math.min(MAX_DELAY, FIRST_DELAY * GROWTH ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5)); // jitter ±25 %
    this.attempt += 1;
    this.status("reconnecting", delay);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** Skip the wait (e.g. the browser says it is online again). */
  retryNow() {
    if (this.closed || (this.ws && this.ws.readyState <= WebSocket.OPEN)) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }
}
