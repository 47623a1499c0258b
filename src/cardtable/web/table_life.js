// Table life around the board: turn clocks and reconnect countdowns on the seat
// chips, the stand-in banner ("The computer is playing for you" / I'm back),
// ending a match by agreement, leaving on purpose, the spectator count, and the
// two drawers: the chat (chat.js) and the table panel (match actions, the people at
// the table with Block and Report (moderation.js), and the settings of table_settings.js). Notices under the top bar say what happened
// around the board that the board itself does not show: a turn that timed out,
// the host changing the settings; they are a live region, read aloud too.
//
// table.js owns the socket and the seat chips; it hands every frame here and
// asks for the extra bits of each chip (chipExtras) when it redraws them.

import { h, replace } from "./dom.js";
import { countdown, localDeadline, spokenLeft, startTicker, URGENT_MS } from "./clock.js";
import { createChat } from "./chat.js";
import { createSettings, gameInfo, settingsNews } from "./table_settings.js";
import { createPeople, isBlocked, setChatHidden } from "./moderation.js";
import { forgetSeat } from "./state.js";

/** Timeouts in a match before a computer takes the seat: the server's STANDIN_AFTER
 * (server/table/replay.py, docs/protocol.md); tests/web/test_life_notices.py keeps them equal. */
export const STANDIN_AFTER = 3;
/** Drops of a person's connection that lose a rated match: the server's DROPS_LOSE
 * (server/table/presence.py, docs/players.md). */
export const DROPS_LOSE = 3;
const NOTICE_MS = 8000;
const MAX_NOTICES = 3;

/** The chip label's words for a held seat; the ticker rewrites them as time passes. */
const reconnectWords = (ms) => `reconnecting, ${spokenLeft(ms)} left`;
const RECONNECT_WORDS = /reconnecting, [^,]*? left/;

const STANDIN_TEXT = {
  disconnected: "computer playing (disconnected)",
  timeouts: "computer playing (timed out)",
  left: "computer playing (left)",
};

/**
 * @param ctx the table context of table.js
 * @param {{socket(): import("./net.js").TableSocket, navigate(path): void, code: string,
 *          page: HTMLElement, board: HTMLElement, toast(text, kind?): void,
 *          announce(text): void}} io
 */
export function createTableLife(ctx, io) {
  const life = {
    clock: null, // {seat, local, key}
    reconnect: new Map(), // seat -> local deadline
    endVotes: [],
    ended: null,
    rematch: [],
    dealt: false, // the match is dealt (its rules are fixed until it is over)
    over: false,
    phase: null,
    spectators: 0,
  };
  let announcedClock = null;
  let lastStandin = null;
  let timeoutsSeen = null; // seat -> timeouts as last told (null before the first frame)
  let awaySeen = null; // seat -> [drops, forfeited] as last told (rated tables)
  let tableSeen = null; // the last table frame's settings, options, express and host
  const sock = () => io.socket();

  const chat = createChat(ctx, {
    code: io.code,
    send: (text) => sock().chat(text),
    mute: (seat, muted) => sock().mute(seat, muted),
    onOpen: () => setPanel(false),
    blockedSeat: (seat) => isBlocked(ctx.seats[seat]?.player_id),
  });
  const people = createPeople(ctx, { toast: io.toast, hideChat: setChatHidden });
  const onBlocks = () => chat.refilter();
  const onPrefs = () => { chat.applyHidden(); people.update(); };
  window.addEventListener("cardtable:blocks", onBlocks);
  window.addEventListener("cardtable:prefs", onPrefs);
  const settings = createSettings(ctx, {
    settings: (s, o) => sock().settings(s, o),
    start: () => startWithComputers(),
    // Before the match is dealt (the table waits for players) or once it is over: a dealt
    // match keeps its rules. The server has the last word (match_started).
    optionsEditable: () => life.over || !life.dealt,
    toast: io.toast,
  });

  // -- the top bar ------------------------------------------------------------------------

  const watchers = h("span", { class: "watchers", id: "spectator-count", hidden: true, "aria-live": "off" });
  const turnTag = h("span", { class: "turn-time-tag", id: "turn-time-tag", hidden: true });
  const tableToggle = h("button", {
    class: "small", id: "table-toggle", "aria-controls": "table-panel", "aria-expanded": "false",
    onclick: () => setPanel(tablePanel.hidden),
  }, "Table");

  // -- the table drawer -------------------------------------------------------------------

  const matchBox = h("section", { class: "life-section match-section", "aria-label": "This match" });
  const tablePanel = h("aside", { class: "life-drawer table-panel", id: "table-panel", "aria-label": "Table", hidden: true },
    h("div", { class: "drawer-head" }, h("h2", null, "Table"),
      h("button", { class: "small drawer-close", id: "table-close", "aria-label": "Close the table panel", onclick: () => setPanel(false) }, "×")),
    matchBox, people.el, settings.el);
  let confirmLeave = false;

  tablePanel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.stopPropagation();
    setPanel(false);
    tableToggle.focus();
  });

  function setPanel(open) {
    tablePanel.hidden = !open;
    tableToggle.setAttribute("aria-expanded", String(open));
    if (open) {
      chat.close(); // one drawer at a time
      drawMatchBox();
      people.update();
      settings.update();
    }
  }

  const isPlayer = () => ctx.role === "player" && ctx.seat !== null && ctx.seat !== undefined;
  const mySeat = () => (isPlayer() ? ctx.seats[ctx.seat] || null : null);
  const persons = () => ctx.seats.filter((s) => s.kind === "human" && s.taken && s.standin !== "left");
  const namesOf = (seats) => seats.map((s) => ctx.seatName(s)).join(" and ");

  function drawMatchBox() {
    if (!isPlayer()) {
      replace(matchBox, h("p", { class: "hint" }, "You are watching this table."));
      return;
    }
    const voted = life.endVotes.includes(ctx.seat);
    const playing = !life.over && !life.ended && ctx.seats.every((s) => s.taken);
    const propose = h("button", {
      id: "propose-end", disabled: !playing || voted,
      onclick: () => { if (sock().end(true)) setPanel(false); },
    }, voted ? "You proposed ending the match" : "Propose ending the match");
    const leave = confirmLeave
      ? h("div", { class: "leave-confirm", role: "group", "aria-label": "Leave the table?" },
        h("p", null, "Leave for good? A computer plays your seat for the rest of the match and this link stops working for you."),
        h("div", { class: "actions" },
          h("button", { class: "danger", id: "leave-confirm", onclick: leaveTable }, "Leave the table"),
          h("button", { id: "leave-cancel", onclick: () => { confirmLeave = false; drawMatchBox(); } }, "Stay")))
      : h("button", { id: "leave-table", onclick: () => { confirmLeave = true; drawMatchBox(); document.getElementById("leave-cancel")?.focus(); } },
        "Leave table");
    replace(matchBox, h("h3", null, "This match"),
      h("div", { class: "actions" }, propose), h("p", { class: "hint" }, "Ending by agreement leaves the match unscored."),
      h("div", { class: "actions" }, leave));
  }

  function leaveTable() {
    if (!sock().leave()) io.toast("Not connected — try again in a moment.");
  }

  function startWithComputers() {
    if (!sock().start()) io.toast("Not connected — try again in a moment.");
  }

  // -- banners under the top bar ----------------------------------------------------------

  const banners = h("div", { class: "life-banners", id: "life-banners" });
  let bannersKey = "";

  function drawBanners() {
    const me = mySeat();
    // Redraw only when something shown changes (keeps keyboard focus on the buttons).
    const key = JSON.stringify([me?.standin, me?.forfeited, life.over, life.ended, life.endVotes, life.rematch, ctx.seat,
      Boolean(io.board.querySelector("#rematch")), ctx.seats.map((s) => [s.name, s.kind, s.taken])]);
    if (key === bannersKey) return;
    bannersKey = key;
    const items = [];
    if (me && (me.standin === "timeouts" || me.standin === "disconnected")) {
      items.push(h("div", { class: "banner standin-banner", id: "standin-banner", role: "status" },
        h("span", null, "The computer is playing for you"),
        h("button", { class: "primary", id: "resume", onclick: () => sock().resume() }, "I'm back")));
    }
    if (me?.forfeited && !life.over && !life.ended) {
      items.push(h("div", { class: "banner forfeit-banner", id: "forfeit-banner", role: "status" },
        h("span", null, `You lost this rated match: ${lostWhy(me)}. You may still play it out.`)));
    }
    if (me?.standin !== lastStandin) {
      if (me?.standin === "timeouts" || me?.standin === "disconnected") io.announce("The computer is playing for you.");
      lastStandin = me?.standin ?? null;
    }
    if (life.ended === "agreed") {
      const votes = life.rematch;
      const asked = isPlayer() && votes.includes(ctx.seat);
      const rendererHasOne = Boolean(io.board.querySelector("#rematch"));
      items.push(h("div", { class: "banner ended-banner", id: "ended-banner", role: "status" },
        h("span", null, "Match ended by agreement (not scored)"),
        isPlayer() && !rendererHasOne ? h("button", {
          class: "primary", id: "life-rematch", disabled: asked, onclick: () => { ctx.rematch(); },
        }, asked ? "Rematch asked…" : "Rematch") : null));
    } else if (life.endVotes.length) {
      const voters = life.endVotes.filter((s) => s !== ctx.seat);
      const who = namesOf(voters);
      const verb = voters.length > 1 ? "propose" : "proposes";
      if (isPlayer() && life.endVotes.includes(ctx.seat)) {
        const waiting = persons().filter((s) => !life.endVotes.includes(s.seat)).map((s) => s.seat);
        items.push(h("div", { class: "banner end-banner", id: "end-banner", role: "status" },
          h("span", null, `You proposed to end the match unscored${waiting.length ? ` — waiting for ${namesOf(waiting)}` : ""}`),
          h("button", { id: "end-withdraw", onclick: () => sock().end(false) }, "Withdraw")));
      } else if (isPlayer() && mySeat()?.standin !== "left") {
        items.push(h("div", { class: "banner end-banner", id: "end-banner", role: "status" },
          h("span", null, `${who} ${verb} to end the match unscored`),
          h("button", { class: "primary", id: "end-agree", onclick: () => sock().end(true) }, "Agree"),
          h("button", { id: "end-decline", onclick: () => sock().end(false) }, "Decline")));
      } else {
        items.push(h("div", { class: "banner end-banner", id: "end-banner", role: "status" },
          h("span", null, `${who} ${verb} to end the match unscored`)));
      }
    }
    replace(banners, ...items);
  }

  // -- notices: what happened around the board -------------------------------------------

  // A log region: each notice added is read once; the board's layout never moves for it
  // (it floats under the top bar) and a tap dismisses it early.
  const notices = h("div", { class: "life-notices", id: "life-notices", role: "log", "aria-live": "polite", "aria-label": "Table notices" });

  // Under the top bar and the banners (never over "I'm back" or "Agree"), whose heights
  // change as chips, clocks and banners come and go, and which scroll away on a phone.
  let barWatch = null;
  function placeNotices() {
    const bar = io.page.querySelector(".topbar");
    if (bar && !barWatch && typeof ResizeObserver === "function") {
      barWatch = new ResizeObserver(placeNotices);
      barWatch.observe(bar);
      barWatch.observe(banners);
    }
    const bottom = Math.max(bar?.getBoundingClientRect().bottom ?? 0, banners.getBoundingClientRect().bottom, 0);
    notices.style.top = `${Math.round(bottom + 6)}px`;
  }
  window.addEventListener("scroll", placeNotices, { passive: true });

  /** Show `text` for `ms`; a notice with the same `key` (one seat's timeouts) replaces the last. */
  function notice(text, kind, { ms = NOTICE_MS, key = null } = {}) {
    if (!text) return;
    placeNotices();
    if (key) for (const old of notices.querySelectorAll(".life-notice")) if (old.dataset.key === key) old.remove();
    const item = h("div", { class: ["life-notice", `notice-${kind}`], dataset: { kind, key: key || "" }, title: "Tap to dismiss" }, text);
    item.addEventListener("click", () => item.remove());
    notices.append(item);
    while (notices.children.length > MAX_NOTICES) notices.firstElementChild.remove();
    setTimeout(() => item.remove(), ms);
  }

  function noteTimeouts(seats) {
    const before = timeoutsSeen;
    timeoutsSeen = new Map((seats || []).map((s) => [s.seat, s.timeouts || 0]));
    if (!before) return;
    for (const s of seats || []) {
      const count = s.timeouts || 0;
      if (count <= (before.get(s.seat) ?? 0)) continue; // a rematch forgives: fewer is no news
      if (isPlayer() && s.seat === ctx.seat) {
        const more = STANDIN_AFTER - count;
        const next = s.standin || more <= 0
          ? "The computer now plays your seat until you press “I'm back”."
          : `${more} more ${more === 1 ? "timeout" : "timeouts"} and the computer plays your seat until you are back.`;
        notice(`Your turn timed out: the computer played for you. ${next}`, "timeout", { ms: 12000, key: "timeout-me" });
      } else {
        notice(`Time ran out for ${ctx.seatName(s.seat)}: the computer played that turn.`, "timeout-other",
          { ms: 5000, key: `timeout-${s.seat}` });
      }
    }
  }

  /** Why a seat lost its rated match (the server's reasons: server/table/presence.py). */
  const lostWhy = (s) => ((s.drops || 0) >= DROPS_LOSE
    ? `the connection dropped ${DROPS_LOSE} times` : "away longer than the grace period");

  /** A rated match: a person's connection dropping, and losing the match by being away. */
  function noteAway(seats) {
    const before = awaySeen;
    awaySeen = new Map((seats || []).map((s) => [s.seat, [s.drops || 0, Boolean(s.forfeited)]]));
    for (const s of seats || []) {
      const [drops, forfeited] = before?.get(s.seat) ?? [0, false];
      const mine = isPlayer() && s.seat === ctx.seat;
      if (s.forfeited && !forfeited && before && !mine) { // (the chip says it after a reconnect)
        notice(`${ctx.seatName(s.seat)} loses this rated match: ${lostWhy(s)}.`, "timeout-other",
          { ms: 12000, key: `away-${s.seat}` });
      } else if (!s.forfeited && (s.drops || 0) > drops && mine) {
        // Told when he is back (a welcome): the drop happened while he was away.
        const more = DROPS_LOSE - s.drops;
        notice(`Your connection dropped (${s.drops} of ${DROPS_LOSE} at this rated match): ` +
          `${more} more and you lose it.`, "timeout", { ms: 12000, key: "away-me" });
      } else if (!s.forfeited && (s.drops || 0) > drops && before && !mine) {
        notice(`${ctx.seatName(s.seat)}'s connection dropped (${s.drops} of ${DROPS_LOSE}).`, "timeout-other",
          { ms: 5000, key: `away-${s.seat}` });
      }
    }
  }

  /** Announce what the host changed since the last table frame (a reconnect included). */
  function noteTable(info) {
    if (!info) return;
    const before = tableSeen;
    tableSeen = JSON.parse(JSON.stringify({
      settings: info.settings || {}, options: info.options || {}, express: Boolean(info.express), host: info.host ?? 0,
    }));
    if (!before) return;
    const after = tableSeen;
    if (before.host !== after.host && after.host !== null && after.host !== undefined) {
      notice(after.host === ctx.seat && isPlayer() ? "You are the host now: the table's settings are yours to change."
        : `${ctx.seatName(after.host)} is the host now.`, "settings");
    }
    const say = (game) => notice(settingsNews(before, after, ctx, game), "settings");
    const rules = JSON.stringify(before.options) !== JSON.stringify(after.options);
    if (rules && ctx.table?.game) gameInfo(ctx.table.game).then(say, () => say(null));
    else say(null);
  }

  // -- the top bar facts ------------------------------------------------------------------

  function drawTop() {
    watchers.hidden = life.spectators <= 0;
    watchers.textContent = `${life.spectators} watching`;
    const seconds = ctx.table?.settings?.turn_time || 0;
    turnTag.hidden = !seconds;
    turnTag.textContent = `${seconds} s turns`;
    turnTag.title = seconds ? `${seconds} seconds a turn; then the server moves for you` : "";
  }

  function noteSeats(seats, now) {
    life.reconnect = new Map();
    for (const s of seats || []) {
      if (typeof s.reconnect_deadline === "number") life.reconnect.set(s.seat, localDeadline(s.reconnect_deadline, now));
    }
  }

  function refresh() {
    drawTop();
    drawBanners();
    chat.update();
    if (!tablePanel.hidden) {
      drawMatchBox();
      people.update();
      settings.update();
    }
  }

  // -- the ticker: countdowns repaint themselves; one announcement at 10 s ---------------

  const stopTicker = startTicker(io.page, (now) => {
    // The chips' spoken labels were drawn once: keep their "reconnecting, … left" current.
    for (const [seat, back] of life.reconnect) {
      const chip = io.page.querySelector(`.seat-chip[data-seat="${seat}"]`);
      const label = chip?.getAttribute("aria-label");
      if (!label || !RECONNECT_WORDS.test(label)) continue;
      const fresh = label.replace(RECONNECT_WORDS, reconnectWords(back - now));
      if (fresh !== label) chip.setAttribute("aria-label", fresh);
    }
    const c = life.clock;
    if (!c || c.seat !== ctx.seat || !isPlayer()) return;
    const left = c.local - now;
    if (left <= URGENT_MS && left > 0 && announcedClock !== c.key) {
      announcedClock = c.key;
      io.announce(`${spokenLeft(left)} left for your turn.`);
    }
  });

  return {
    topbarItems: [watchers, turnTag, chat.toggle, tableToggle],
    banners,
    drawers: [chat.panel, tablePanel, notices],

    welcome(d) {
      life.spectators = d.table?.spectators ?? 0;
      noteSeats(d.table?.seats, d.table?.now);
      noteTimeouts(d.table?.seats);
      noteAway(d.table?.seats);
      noteTable(d.table);
      if (d.table?.game) gameInfo(d.table.game).catch(() => null); // ready to name a new preset
      chat.welcome();
      refresh();
    },
    view(d, view) {
      const c = d.clock;
      life.clock = c && typeof c.deadline === "number"
        ? { seat: c.seat, local: localDeadline(c.deadline, c.now), key: `${c.seat}:${c.deadline}` } : null;
      const over = d.ended === "agreed" || view?.phase === "match_over";
      life.over = over;
      life.dealt = Boolean(view);
      life.phase = view?.phase ?? null;
      life.endVotes = Array.isArray(d.end_votes) ? d.end_votes : [];
      life.ended = d.ended || null;
      life.rematch = d.rematch || [];
      refresh();
    },
    boardDrawn() {
      if (life.ended === "agreed") drawBanners();
    },
    seats(d) {
      if (typeof d.spectators === "number") life.spectators = d.spectators;
      noteSeats(d.seats, d.now);
      noteTimeouts(d.seats);
      noteAway(d.seats);
      refresh();
    },
    /** Spectators come and go as a count, not as seats frames. */
    spectators(d) {
      if (typeof d.count === "number") life.spectators = d.count;
      refresh();
    },
    table(d, previous) {
      if (typeof d.spectators === "number") life.spectators = d.spectators;
      noteSeats(d.seats, d.now);
      noteTimeouts(d.seats);
      noteAway(d.seats);
      noteTable(d);
      refresh();
      if (!tablePanel.hidden) settings.update();
    },
    chat: (d) => chat.message(d),
    chatHistory: (d) => chat.history(d),
    left() {
      forgetSeat(io.code);
      io.toast("You left the table. A computer plays your seat.", "info");
      io.navigate("/");
    },
    /** True when the error was shown here (chat errors go next to the chat input). */
    error: (d) => chat.error(d),

    /** Extra nodes for a seat chip: the turn clock, reconnecting countdown, stand-in, timeouts. */
    chipExtras(s) {
      const out = [];
      const c = life.clock;
      if (c && c.seat === s.seat) {
        out.push(countdown(c.local, { urgent: true, cls: "turn-clock", id: `turn-clock-${s.seat}` }));
      }
      const back = life.reconnect.get(s.seat);
      if (back !== undefined && !s.standin) {
        out.push(countdown(back, { prefix: "reconnecting… ", cls: "reconnecting", id: `reconnect-${s.seat}` }));
      }
      if (s.standin) out.push(h("span", { class: "standin-tag", dataset: { reason: s.standin } }, STANDIN_TEXT[s.standin] || "computer playing"));
      if (s.forfeited) out.push(h("span", { class: "standin-tag forfeit-tag", title: `Lost this rated match: ${lostWhy(s)}` }, "lost (away)"));
      if (s.timeouts > 0) {
        const title = `${s.timeouts} turn${s.timeouts > 1 ? "s" : ""} timed out this match; ` +
          `after ${STANDIN_AFTER} the computer plays the seat until its player is back`;
        out.push(h("span", { class: "timeouts", title, dataset: { count: String(s.timeouts) } },
          `${s.timeouts} timeout${s.timeouts > 1 ? "s" : ""}`));
      }
      return out;
    },
    /** Words for the chip's aria-label. */
    chipLabel(s) {
      const parts = [];
      const back = life.reconnect.get(s.seat);
      if (back !== undefined && !s.standin) parts.push(reconnectWords(back - Date.now()));
      if (s.standin) parts.push(STANDIN_TEXT[s.standin] || "computer playing");
      if (s.timeouts > 0) parts.push(`${s.timeouts} timed out`);
      if (s.forfeited) parts.push(`lost this rated match: ${lostWhy(s)}`);
      if (life.clock && life.clock.seat === s.seat) parts.push("turn timer running");
      return parts.length ? `, ${parts.join(", ")}` : "";
    },
    /** The host's "Start with computers" (shown in the invite panel while seats are free). */
    startButton() {
      if (!settings.isHost()) return null;
      return h("button", { id: "start-computers", onclick: startWithComputers }, "Start with computers");
    },
    destroy() {
      stopTicker();
      barWatch?.disconnect();
      window.removeEventListener("scroll", placeNotices);
      window.removeEventListener("cardtable:blocks", onBlocks);
      window.removeEventListener("cardtable:prefs", onPrefs);
    },
  };
}
