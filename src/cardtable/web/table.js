// The table page, for any game: the seat (or watch) decision, the top bar
// (seats, names, levels, scores, connection), the invite panel, error toasts and the
// keyboard; the board itself is drawn by games/<game>/board.js, loaded on demand.
// Table life (clocks, stand-ins, chat, settings, leaving, ending by agreement)
// lives in table_life.js, which gets every frame from here; hints (the Hint button
// and the H key, drawn by the board frame through ctx.hint) live in table_hint.js.
//
// A renderer module exports mount(el, ctx) -> {update(view, meta), key(event), destroy(),
// and optionally error(d): true when the board showed an error frame itself}
// and STYLES, the stylesheets it needs ("gin/board": games/gin/board.css), linked before it mounts.

import { ApiError, getTable, joinTable, listGames, normalizeCode } from "./api.js";
import { h, replace, stylesheet } from "./dom.js";
import { createFairness } from "./fairness.js";
import { howtoSections } from "./howto.js";
import { TableSocket } from "./net.js";
import { registeredMark } from "./profile.js";
import { createHints } from "./table_hint.js";
import { createTableLife } from "./table_life.js";
import { gameInfo } from "./table_settings.js";
import { forgetSeat, guestName, prefs, rememberSeat, seatFor, setGuestName, setPref } from "./state.js";
import { announce, toast } from "./toast.js";

const CONNECTION_TEXT = {
  connecting: "Connecting…", connected: "Connected", reconnecting: "Reconnecting…", closed: "Disconnected",
};
// Error codes that only mean "the table moved on"; the snapshot that follows fixes it.
// no_spectators, host_refuses: the 4005 / 4007 close that follows says it once.
const QUIET_ERRORS = new Set(["stale", "no_spectators", "host_refuses"]);

/**
 * Seat names as the join page and the seat chips both show them: a person's name, a
 * computer "Computer", and when two seats would read the same (two computers) each gets
 * its seat number ("Computer 3"), the rule of the boards' distinctSeatNames (board.js).
 * `me` (your own seat, named "You" elsewhere) does not count as a twin.
 */
export function seatNamer(seats, me = null) {
  const base = (s) => (!s || !s.taken ? "Free seat" : s.name || (s.kind === "bot" ? "Computer" : `Seat ${s.seat + 1}`));
  return (seat) => {
    const info = seats.find((s) => s.seat === seat);
    const name = base(info);
    if (!info || !info.taken) return name;
    const twin = seats.some((o) => o.seat !== seat && o.seat !== me && o.taken && base(o) === name);
    return twin ? `${name} ${seat + 1}` : name;
  };
}

/** A level's name for players: the server's (GET /api/games level_titles) once known. */
let levelTitles = {};
function levelTitle(level) {
  const name = String(level || "normal");
  return levelTitles[name] || name.replace(/^./, (c) => c.toUpperCase());
}
function learnLevelTitles(game) {
  return gameInfo(game).then((info) => { if (info?.level_titles) levelTitles = info.level_titles; }, () => null);
}

/** A computer seat's level, as both seat lists show it after the name: "· Hard". A person,
 * and a computer standing in for one (it plays as the server decides), has none. */
const levelOf = (s) => (s && s.kind === "bot" ? levelTitle(s.level) : null);
const levelTag = (title, attrs = {}) =>
  h("span", { class: "bot-tag level-tag", ...attrs }, h("span", { class: "level-sep" }, "· "), title);

export function openTable(root, rawCode, navigate) {
  const code = normalizeCode(rawCode);
  let socket = null;
  let destroyed = false;
  const page = h("div", { class: "table-page" });
  root.append(page);

  // A per-seat invite link (/t/CODE?seat=N) asks for that seat when sitting down.
  const wanted = seatParam();
  const seat = seatFor(code);
  if (seat) connect(page, code, seat.table_id, { token: seat.token }, navigate, (s) => { socket = s; });
  else showLobby();

  // -- not seated yet: look at the table, then sit down or watch --------------------------

  async function showLobby() {
    replace(page, h("p", { class: "loading" }, "Looking for the table…"));
    let info;
    try {
      info = await getTable(code);
    } catch (e) {
      if (destroyed) return;
      const text = e instanceof ApiError && e.status === 404
        ? `There is no table with the code ${code}.` : `Could not load the table: ${e.message}`;
      replace(page, h("section", { class: "panel lobby" }, h("h1", null, "Table not found"),
        h("p", null, text), h("a", { href: "/", "data-route": "", class: "button" }, "Back to the home page")));
      return;
    }
    if (destroyed) return;
    await learnLevelTitles(info.game);
    if (destroyed) return;
    replace(page, lobbyPanel(info));
  }

  function lobbyPanel(info) {
    const free = info.seats.some((s) => !s.taken) && info.status === "waiting";
    const invited = wanted !== null ? info.seats.find((s) => s.seat === wanted) : null;
    const invitedFree = Boolean(invited && !invited.taken && free);
    const error = h("p", { class: "form-error", role: "alert" });
    const name = h("input", { id: "sit-name", maxlength: 24, value: guestName(), placeholder: "Guest" });
    const canWatch = !info.settings || info.settings.spectators !== false;
    const watch = canWatch ? h("button", { id: "watch", onclick: () => startWatching() }, "Watch") : null;
    const sit = h("button", { class: "primary big", id: "sit-down", onclick: sitDown }, "Sit down");

    async function sitDown() {
      sit.disabled = true;
      error.textContent = "";
      setGuestName(name.value.trim());
      try {
        const grant = await joinTable(code, name.value.trim() || "Guest", invitedFree ? wanted : null);
        rememberSeat(code, grant);
        if (location.search) history.replaceState(null, "", `/t/${code}`); // seated: the link did its job
        connect(page, code, grant.table_id, { token: grant.token }, navigate, (s) => { socket = s; });
      } catch (e) {
        sit.disabled = false;
        error.textContent = e.status === 409 ? "The table is full — you can still watch." : e.message;
        if (e.status === 409) sit.hidden = true;
      }
    }

    function startWatching() {
      const who = (free ? name.value.trim() : "") || guestName();
      if (free) setGuestName(name.value.trim());
      const hello = who ? { spectate: true, name: who } : { spectate: true };
      connect(page, code, info.table_id, hello, navigate, (s) => { socket = s; });
    }

    const nameOf = seatNamer(info.seats);
    const seats = h("ul", { class: "lobby-seats" }, info.seats.map((s) =>
      h("li", { class: s === invited && invitedFree ? "invited-seat" : null, dataset: { seat: String(s.seat) } },
        info.seats.length > 2 ? `Seat ${s.seat + 1}: ` : "",
        h("span", { class: "seat-name" }, nameOf(s.seat)),
        s.taken && levelOf(s) ? [" ", levelTag(levelOf(s))] : "",
        s === invited && invitedFree ? " ← your seat" : "")));
    let hint = free ? "You are invited to play." : "This table is full; you can watch the game.";
    if (!free && !canWatch) hint = "This table is full, and the host does not allow spectators.";
    if (invitedFree) hint = `You are invited to play in seat ${wanted + 1}.`;
    else if (invited && free) hint = `Seat ${wanted + 1} is taken; you can sit in a free seat.`;
    return h("section", { class: "panel lobby", "aria-labelledby": "lobby-title" },
      h("h1", { id: "lobby-title" }, `${info.title || info.game} · table ${info.code}`),
      h("p", { class: "hint", id: "lobby-hint" }, hint),
      seats,
      settingsSummary(info),
      optionsSummary(info.options),
      free ? h("div", { class: "row" }, h("div", { class: "field" }, h("label", { for: "sit-name" }, "Your name"), name)) : null,
      h("div", { class: "actions" }, free ? sit : null, watch),
      error);
  }

  return {
    destroy() {
      destroyed = true;
      socket?.close();
      page.dispatchEvent(new Event("table:destroy"));
    },
  };
}

/** The seat asked for by a per-seat invite link (?seat=N), or null. */
function seatParam() {
  const raw = new URLSearchParams(location.search).get("seat");
  return raw !== null && /^\d{1,2}$/.test(raw) ? Number(raw) : null;
}

/** What the host decided, shown before anyone sits down. */
function settingsSummary(info) {
  const settings = info.settings || {};
  const turn = settings.turn_time ? `${settings.turn_time} s per turn` : "No turn timer";
  const parts = [turn, info.express ? "Express: one hand" : null,
    settings.spectators === false ? "No spectators" : "Spectators welcome",
    settings.private === false ? "Listed in the lobby" : "Private table"];
  return h("p", { class: "hint", id: "lobby-settings" }, parts.filter(Boolean).join(" · "));
}

function optionsSummary(options) {
  const entries = Object.entries(options || {});
  if (!entries.length) return null;
  return h("details", { class: "options-summary" }, h("summary", null, "Table rules"),
    h("dl", null, entries.flatMap(([k, v]) => [h("dt", null, k.replace(/_/g, " ")), h("dd", null, String(v))])));
}

// -- seated (or watching): the live table -------------------------------------------------

function connect(page, code, tableId, hello, navigate, setSocket) {
  const ctx = {
    code, seat: null, role: hello.spectate ? "spectator" : "player", seats: [], table: null,
    pending: false, // an act is on its way: no second one until it is answered
    online: false, // welcomed on a live socket: actions can be sent
  };
  let renderer = null;
  let lastView = null;
  let lastMeta = null;

  const status = h("span", { class: "conn", dataset: { state: "connecting" }, role: "status" }, "Connecting…");
  const seatsBar = h("div", { class: "seat-chips", "aria-label": "Players" });
  const invite = h("section", { class: "invite", hidden: true, "aria-label": "Invite a friend" });
  const board = h("main", { class: "board", id: "board" }, h("p", { class: "loading" }, "Joining the table…"));
  // Shown instead of the board until the match is dealt (once every seat is taken).
  const undealt = h("section", { class: "undealt", id: "undealt", hidden: true, role: "status" },
    h("p", null, "The cards are dealt when every seat is taken."));
  const deck = h("button", {
    class: "small", id: "deck-toggle", "aria-pressed": String(prefs().fourColour),
    title: "Four-colour deck: clubs green, diamonds blue", onclick: toggleDeck,
  }, "4-colour");
  const life = createTableLife(ctx, {
    socket: () => socket, navigate, code, page, board, toast, announce,
  });
  const howto = howtoDialog(() => ctx.table?.game);
  const ratedTag = h("span", { class: "rated-tag", id: "rated-tag", hidden: true, title: "The match counts in the ratings" }, "Rated");
  // The page's one h1, for screen readers (the board shows the game itself).
  const heading = h("h1", { class: "visually-hidden", id: "table-heading" }, `Table ${code}`);
  const showRated = () => {
    ratedTag.hidden = !ctx.table?.settings?.rated;
    if (ctx.table?.title) heading.textContent = `${ctx.table.title}, table ${code}`;
  };
  const top = h("header", { class: "topbar" },
    h("a", { class: "brand", href: "/", "data-route": "" }, "cardtable"), heading,
    h("span", { class: "table-code", title: "Table code" }, code),
    ratedTag, seatsBar, ...life.topbarItems, status, deck, howto.button);
  replace(page, top, life.banners, invite, undealt, board, ...life.drawers, howto.dialog);

  function toggleDeck() {
    const on = !prefs().fourColour;
    setPref("fourColour", on);
    deck.setAttribute("aria-pressed", String(on));
    window.dispatchEvent(new Event("cardtable:prefs"));
  }

  ctx.seatName = (s) => {
    if (s === null || s === undefined) return "";
    if (s === ctx.seat) return "You";
    const info = ctx.seats[s];
    if (info && !info.taken) return "Opponent";
    return seatNamer(ctx.seats, ctx.seat)(s);
  };
  ctx.seatInfo = (s) => ctx.seats[s] || null;
  ctx.act = (action) => {
    if (ctx.pending || !socket.connected) return false;
    ctx.pending = true;
    socket.act(action);
    rerender();
    return true;
  };
  ctx.rematch = () => socket.rematch();
  ctx.toast = toast;
  ctx.announce = announce;
  const hints = createHints(ctx, {
    socket: () => socket, view: () => lastView, version: () => lastMeta?.version ?? null,
    redraw: () => rerender(), announce,
  });
  ctx.hint = hints;
  ctx.fairness = createFairness(tableId, () => rerender(), `/api/tables/${encodeURIComponent(code)}/match`);

  const socket = new TableSocket(tableId, hello, {
    status(state, detail) {
      status.dataset.state = state;
      status.textContent = CONNECTION_TEXT[state] || state;
      if (state === "reconnecting") status.title = `retrying in ${Math.round(detail / 100) / 10} s`;
      ctx.pending = Boolean(socket?.pending);
      ctx.online = state === "connected";
      rerender();
    },
    welcome(d) {
      ctx.seat = d.seat;
      ctx.role = d.role;
      ctx.table = d.table;
      ctx.seats = d.table.seats || [];
      showRated();
      hints.reset();
      life.welcome(d);
      drawSeats();
      learnLevelTitles(d.table.game).then(drawSeats);
      loadRenderer(d.table.game);
    },
    view(d, v) {
      ctx.pending = Boolean(socket.pending);
      // No view: the table waits for players and nothing is dealt yet.
      // Ended by agreement: the engine's match is not over, but nobody is to act any more.
      lastView = !d.view ? null : d.ended ? { ...d.view, to_act: null, legal: [] } : d.view;
      lastMeta = {
        events: d.events || [], rematch: d.rematch || [], version: v, ack: d.ack,
        clock: d.clock || null, endVotes: d.end_votes || [], ended: d.ended || null,
      };
      page.dataset.version = String(v);
      page.dataset.ended = d.ended || "";
      page.dataset.dealt = String(Boolean(lastView));
      undealt.hidden = Boolean(lastView);
      board.hidden = !lastView;
      ctx.fairness.receive(d.fair, lastView?.phase === "match_over" || Boolean(d.ended));
      life.view(d, lastView);
      drawSeats();
      if (lastView) renderer?.update(lastView, lastMeta);
      life.boardDrawn(); // our rematch button only if the board shows none
    },
    seats(d) {
      ctx.seats = d.seats || [];
      life.seats(d);
      drawSeats();
      rerender();
    },
    spectators: (d) => life.spectators(d),
    table(d) {
      const previous = ctx.table;
      ctx.table = d;
      ctx.seats = d.seats || ctx.seats;
      showRated();
      life.table(d, previous);
      drawSeats();
      rerender();
    },
    chat: (d) => life.chat(d),
    chatHistory: (d) => life.chatHistory(d),
    left: (d) => life.left(d),
    hint: (d, v) => hints.receive(d, v),
    error(d) {
      ctx.pending = Boolean(socket.pending);
      if (hints.error(d)) return; // no hint: said where the hint would have been
      if (d.code === "bad_token") return; // the 4003 close that follows says it once
      if (renderer?.error?.(d)) return; // the board shows it where it belongs (a refused card)
      if (life.error(d)) return; // chat errors are shown next to the chat input
      if (d.retrying) return toast("The server could not save your move yet; trying again…", "info");
      if (!QUIET_ERRORS.has(d.code)) toast(d.message || d.code);
    },
    fatal(message, closeCode) {
      if (closeCode === 4003) {
        // A seat token the server no longer knows: forget it and offer the lobby.
        forgetSeat(code);
        toast(message);
        navigate(`/t/${code}`);
        return;
      }
      replace(board, h("section", { class: "panel lobby" }, h("h1", null, "Cannot join this table"),
        h("p", null, message), h("a", { href: "/", "data-route": "", class: "button" }, "Back to the home page")));
      renderer = null;
    },
  });
  setSocket(socket);
  socket.connect();

  function rerender() {
    if (renderer && lastView) renderer.update(lastView, lastMeta);
  }

  async function loadRenderer(game) {
    if (renderer) return;
    const safe = String(game).replace(/[^a-z0-9_]/g, "");
    try {
      const module = await import(`./games/${safe}/board.js`);
      await Promise.all((module.STYLES || []).map((name) => stylesheet(`/static/games/${name}.css`)));
      if (renderer) return;
      board.replaceChildren();
      renderer = module.mount(board, ctx);
      drawSeats(); // the board may name the seats (ctx.seatName / ctx.seatRole)
      rerender();
    } catch (e) {
      replace(board, h("p", { class: "loading" }, `This browser client cannot show ${game} yet.`));
      console.error(e);
    }
  }

  function drawSeats() {
    const scores = lastView && Array.isArray(lastView.scores) ? lastView.scores : null;
    // Partnership games score by side (view.sides lists each side's seats).
    const sides = lastView && Array.isArray(lastView.sides) ? lastView.sides : null;
    const scoreOf = (seat) => (sides ? scores[sides.findIndex((side) => side.includes(seat))] : scores[seat]);
    const toAct = lastView && !lastMeta?.ended ? lastView.to_act : null; // ended by agreement: nobody
    replace(seatsBar, ...ctx.seats.map((s) => {
      const name = s.taken ? ctx.seatName(s.seat) : "Free seat";
      const away = s.taken && !s.connected && s.kind !== "bot";
      const level = levelOf(s);
      const registered = s.taken && s.registered; // his name is his account's username
      return h("span", {
        class: ["seat-chip", s.seat === toAct && "to-act", registered && "registered", away && "away", s.seat === ctx.seat && "me", s.standin && "standin"],
        dataset: { seat: String(s.seat), standin: s.standin || "", timeouts: String(s.timeouts || 0), level: level ? s.level : "" },
        "aria-label": `${name}${registered ? ", registered player" : ""}${level ? `, computer, ${level.toLowerCase()}` : ""}${away ? ", disconnected" : ""}` +
          `${scores ? `, ${scoreOf(s.seat)} points` : ""}${s.seat === toAct ? ", to play" : ""}${life.chipLabel(s)}`,
      },
      h("span", { class: "dot", "aria-hidden": "true" }),
      h("span", { class: "seat-name" }, name),
      registered ? registeredMark() : null,
      level ? levelTag(level, { "aria-hidden": "true" }) : null,
      scores ? h("span", { class: "seat-score" }, String(scoreOf(s.seat) ?? "")) : null,
      ...life.chipExtras(s));
    }), ctx.role === "spectator" ? h("span", { class: "seat-chip watching" }, "Watching") : null);
    drawInvite();
  }

  let inviteKey = "";
  function drawInvite() {
    const waiting = ctx.role === "player" && ctx.seats.some((s) => !s.taken);
    invite.hidden = !waiting;
    if (!waiting) return;
    // Two seats: one link. More: one link per free seat (/t/CODE?seat=N), labelled by
    // the renderer's ctx.seatRole(seat) when it has one ("North, your partner").
    const open = ctx.seats.length > 2 ? ctx.seats.filter((s) => !s.taken).map((s) => s.seat) : [null];
    const key = `${open.join(",")}|${Boolean(ctx.seatRole)}|${ctx.seat}`;
    if (key === inviteKey && invite.childElementCount) return;
    inviteKey = key;
    const rows = open.map((seat) => {
      const url = `${location.origin}/t/${code}${seat === null ? "" : `?seat=${seat}`}`;
      const suffix = seat === null ? "" : `-${seat}`;
      const label = seat === null ? "Invite link" : (ctx.seatRole?.(seat) || `Seat ${seat + 1}`);
      const link = h("input", {
        id: `invite-link${suffix}`, readonly: true, value: url, "aria-label": `${label}: invite link`,
        onfocus: (e) => e.target.select(),
      });
      const copy = h("button", { class: "primary", id: `copy-invite${suffix}`, "aria-label": `Copy the link for ${label}`, onclick: async () => {
        try {
          await navigator.clipboard.writeText(url);
        } catch {
          link.select();
          document.execCommand?.("copy"); // older browsers / insecure origins
        }
        copy.textContent = "Copied";
        setTimeout(() => { copy.textContent = "Copy"; }, 1500);
      } }, "Copy");
      return h("div", { class: "invite-row", dataset: seat === null ? {} : { seat: String(seat) } },
        seat === null ? null : h("span", { class: "invite-seat" }, label), link, copy);
    });
    const several = open.length > 1;
    replace(invite,
      h("h2", null, several ? "Invite your friends" : "Invite a friend"),
      h("p", null, several ? "Send each friend the link for their seat — the game starts when everyone has sat down."
        : "Send this link — the game starts when your friend sits down."),
      ...rows,
      h("p", { class: "hint" }, "Or tell them the table code: ", h("strong", { class: "invite-code", id: "invite-code" }, code)),
      startRow());
  }

  function startRow() {
    const start = life.startButton();
    return start ? h("p", { class: "invite-start" }, start, " ",
      h("span", { class: "hint" }, "Don't want to wait? Computers take the free seats.")) : null;
  }

  // The keyboard belongs to the renderer, except while typing in a field.
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    if (howto.dialog.open) return; // reading the rules: keys scroll and close it, never play
    if (renderer?.key?.(event) || (renderer && hints.key(event))) event.preventDefault();
  }
  const onOnline = () => socket.retryNow();
  document.addEventListener("keydown", onKey);
  window.addEventListener("online", onOnline);
  page.addEventListener("table:destroy", () => {
    document.removeEventListener("keydown", onKey);
    window.removeEventListener("online", onOnline);
    renderer?.destroy?.();
    life.destroy();
  });
}

/**
 * The table menu's "How to play": the game's how-to page (howto.js) in a dialog, so a
 * player reads the rules without leaving his seat; a link opens the full page in a new tab.
 */
function howtoDialog(gameName) {
  const title = h("h2", { id: "howto-dialog-title" }, "How to play");
  const pageLink = h("a", { href: "/how", target: "_blank", rel: "noopener", class: "howto-page-link" }, "Open as a page");
  const body = h("div", { class: "howto-dialog-body" }, h("p", { class: "loading" }, "Loading…"));
  const dialog = h("dialog", { class: "howto-dialog", id: "howto-dialog", "aria-labelledby": "howto-dialog-title" },
    h("div", { class: "howto-dialog-head" }, title, pageLink,
      h("button", { class: "small", id: "howto-close", "aria-label": "Close how to play", onclick: () => dialog.close() }, "Close")),
    body);
  // A tap on the backdrop (outside the box) closes it, as on most phone sheets.
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
  let shown = null;

  async function open() {
    const name = gameName();
    if (!name) return;
    dialog.showModal();
    if (shown === name) return;
    try {
      const game = (await listGames()).find((g) => g.name === name);
      if (!game) throw new Error(`no game ${name}`);
      title.textContent = `How to play ${game.title}`;
      pageLink.href = `/how/${game.name}`;
      replace(body, howtoSections(game, { headingLevel: 3 }).nodes);
      shown = name;
    } catch (e) {
      replace(body, h("p", null, `Could not load the rules: ${e.message}`));
    }
  }

  const button = h("button", {
    class: "small", id: "howto-open", "aria-haspopup": "dialog", "aria-label": "How to play",
    title: "How to play", onclick: open,
  }, "?");
  return { button, dialog };
}
