// Table settings in the "Table" drawer. The host (seat 0) edits them — turn
// time, public/private, spectators, spectator chat, hints, computer levels (the
// server's list: GET /api/games levels), and the game options (preset, express)
// until the first move; everyone else reads them. Each change is sent at once as a partial `settings` frame; the
// server's `table` frame redraws the panel with what it accepted, and
// settingsNews() words the difference for everyone at the table.

import { listGames } from "./api.js";
import { h, replace } from "./dom.js";

export const TURN_TIMES = [0, 15, 30, 60];
const humanize = (name) => String(name).replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

/**
 * A game's computer levels, weakest first, as [level, name] pairs: the server's (GET
 * /api/games `levels`, `level_titles`), so a level added there is offered everywhere.
 * A server that lists none offers the two every server has had.
 */
export function levelChoices(game) {
  return (game?.levels || ["easy", "normal"]).map((level) => [level, game?.level_titles?.[level] || humanize(level)]);
}

let gamesPromise = null;
/** The game as /api/games describes it (presets, express), fetched once per page. */
export function gameInfo(name) {
  gamesPromise = gamesPromise || listGames().catch(() => { gamesPromise = null; return []; });
  return gamesPromise.then((games) => games.find((g) => g.name === name) || null);
}

export function turnTimeText(seconds) {
  return seconds ? `${seconds} seconds a turn` : "No turn timer";
}

const same = (a, b) => Object.keys(a).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));

/** The table's preset and express flag, read back from its full options. */
export function presetOf(game, options) {
  if (!game || !options) return { preset: null, express: false };
  const express = game.express && Object.keys(game.express).length ? game.express : null;
  const isExpress = Boolean(express) && same(express, options);
  for (const name of game.presets || []) {
    const values = { ...(game.preset_values?.[name] || {}), ...(isExpress ? express : {}) };
    if (same(values, options) && same(options, values)) return { preset: name, express: isExpress };
  }
  return { preset: null, express: isExpress };
}

/**
 * What changed between two table frames, as one sentence with the host as its
 * subject ("Ann set the turn time to 30 seconds and closed the table to
 * spectators."), or null. `game` (gameInfo) names the preset; without it a change
 * of rules is just "changed the rules".
 */
export function settingsNews(before, after, ctx, game = null) {
  if (!before || !after) return null;
  const was = before.settings || {};
  const now = after.settings || {};
  const done = [];
  if ((was.turn_time ?? 0) !== (now.turn_time ?? 0)) {
    done.push(now.turn_time ? `set the turn time to ${now.turn_time} seconds` : "turned the turn timer off");
  }
  if (Boolean(was.private) !== Boolean(now.private)) {
    done.push(now.private ? "took the table out of the public lobby" : "listed the table in the public lobby");
  }
  if ((was.spectators !== false) !== (now.spectators !== false)) {
    done.push(now.spectators === false ? "closed the table to spectators" : "let spectators watch");
  }
  if ((was.spectator_chat !== false) !== (now.spectator_chat !== false)) {
    done.push(now.spectator_chat === false ? "turned the spectators' chat off" : "turned the spectators' chat on");
  }
  if ((was.hints !== false) !== (now.hints !== false)) {
    done.push(now.hints === false ? "turned hints off" : "turned hints on");
  }
  const levels = Array.isArray(now.levels) ? now.levels : [];
  levels.forEach((level, seat) => {
    const old = Array.isArray(was.levels) ? was.levels[seat] : undefined;
    if (old === undefined || old === level) return;
    const info = ctx.seats[seat];
    const who = info?.kind === "bot" ? ctx.seatName(seat) : `the computer for seat ${seat + 1}`;
    done.push(`set ${who} to ${level}`);
  });
  if (JSON.stringify(before.options) !== JSON.stringify(after.options)) {
    const { preset, express } = presetOf(game, after.options);
    const sameRules = game && presetOf(game, before.options).preset === preset && preset;
    if (sameRules && Boolean(before.express) !== Boolean(after.express)) {
      done.push(after.express ? "made the match express: one hand" : "made the match a full one");
    } else if (preset) {
      done.push(`changed the rules to ${humanize(preset)}${express ? ", express: one hand" : ""}`);
    } else {
      done.push(after.express ? "changed the rules (express: one hand)" : "changed the rules");
    }
  }
  if (!done.length) return null;
  const host = after.host ?? 0;
  const who = ctx.seatName(host) || "The host";
  const list = done.length > 1 ? `${done.slice(0, -1).join(", ")} and ${done[done.length - 1]}` : done[0];
  return `${who} ${list}.`;
}

/**
 * @param ctx the table context (seat, role, table, seats, seatName)
 * @param {{settings(settings, options): boolean, start(): boolean,
 *          optionsEditable(): boolean, toast(text): void}} io
 */
export function createSettings(ctx, io) {
  const el = h("section", { class: "life-section settings-section", id: "table-settings", "aria-labelledby": "settings-title" });
  let game = null;
  let gameName = null;

  const isHost = () => ctx.role === "player" && ctx.seat === (ctx.table?.host ?? 0);
  const settings = () => ctx.table?.settings || {};

  function send(partial, options) {
    if (!io.settings(partial, options)) io.toast("Not connected — the change was not sent.");
  }

  function select(id, label, choices, value, onChange, disabled = false) {
    const input = h("select", { id, disabled }, choices.map(([v, text]) =>
      h("option", { value: String(v), selected: String(v) === String(value) }, text)));
    input.addEventListener("change", () => onChange(input.value));
    return h("div", { class: "setting" }, h("label", { for: id }, label), input);
  }

  function check(id, label, value, onChange, disabled = false) {
    const input = h("input", { type: "checkbox", id, checked: Boolean(value), disabled });
    input.addEventListener("change", () => onChange(input.checked));
    return h("div", { class: "setting setting-check" }, input, h("label", { for: id }, label));
  }

  function levelControls(s) {
    const levels = Array.isArray(s.levels) ? s.levels : ctx.seats.map(() => "normal");
    const seats = ctx.seats.filter((seat) => seat.kind === "bot" || !seat.taken || seat.standin);
    if (!seats.length) return null;
    // Until the game's levels are known, the levels in use (the server's list follows).
    const choices = game ? levelChoices(game) : [...new Set(levels)].map((l) => [l, humanize(l)]);
    return h("fieldset", { class: "setting-levels" }, h("legend", null, "Computer level"),
      seats.map((seat) => {
        const who = seat.kind === "bot" ? ctx.seatName(seat.seat) : seat.taken
          ? `${ctx.seatName(seat.seat)} (stand-in)` : `Free seat ${seat.seat + 1}`;
        return select(`set-level-${seat.seat}`, who, choices,
          levels[seat.seat] || seat.level || "normal", (value) => {
            const next = ctx.seats.map((x, i) => levels[i] || x.level || "normal");
            next[seat.seat] = value;
            send({ levels: next });
          });
      }));
  }

  function gameControls() {
    if (!game) return null;
    const { preset, express } = presetOf(game, ctx.table?.options);
    const editable = io.optionsEditable();
    const presets = (game.presets || []).map((p) => [p, humanize(p)]);
    if (!preset) presets.unshift(["", "Custom rules"]);
    const hasExpress = game.express && Object.keys(game.express).length > 0;
    // A known preset is sent by name; custom rules keep every option but the express ones.
    const options = (name, fast) => {
      if (name) return { preset: name, ...(fast ? game.express : {}) };
      const plain = Object.fromEntries(Object.keys(game.express || {}).map((k) =>
        [k, game.preset_values?.[game.default_preset]?.[k]]).filter(([, v]) => v !== undefined));
      return { ...(ctx.table?.options || {}), ...(fast ? game.express : plain) };
    };
    return h("fieldset", { class: "setting-game" }, h("legend", null, "Game"),
      select("set-preset", "Rules", presets, preset || "", (value) => send({}, options(value, express)), !editable),
      hasExpress ? check("set-express", "Express: one hand", express, (on) => send({}, options(preset, on)), !editable) : null,
      h("p", { class: "hint", id: "options-hint" }, editable
        ? "The rules can change until the match starts."
        : "The rules are fixed while the match is played; change them after it."));
  }

  function hostForm(s) {
    const free = ctx.seats.some((seat) => !seat.taken);
    return [
      select("set-turn-time", "Turn time", TURN_TIMES.map((t) => [t, t ? `${t} seconds` : "Off"]), s.turn_time ?? 0,
        (value) => send({ turn_time: Number(value) })),
      check("set-public", "Public: listed in the lobby", s.private === false, (on) => send({ private: !on })),
      check("set-spectators", "Spectators may watch", s.spectators !== false, (on) => send({ spectators: on })),
      check("set-spectator-chat", "Spectators may chat", s.spectator_chat !== false, (on) => send({ spectator_chat: on }),
        s.spectators === false),
      s.rated ? null : check("set-hints", "Players may ask for hints", s.hints !== false,
        (on) => send({ hints: on })),
      h("p", { class: "hint", id: "set-rated" }, s.rated ? "Rated: the match counts in the ratings (no hints)." : "Practice: no rating changes."),
      levelControls(s),
      gameControls(),
      free ? h("button", { class: "primary", id: "settings-start", onclick: () => io.start() }, "Start with computers") : null,
    ];
  }

  function summary(s) {
    const rows = [
      ["Turn time", s.turn_time ? `${s.turn_time} seconds` : "Off"],
      ["Spectators", s.spectators === false ? "Not allowed" : "Welcome"],
      ["Spectator chat", s.spectator_chat === false ? "Off" : "On"],
      ["Hints", s.rated ? "None at a rated table" : s.hints === false ? "Off" : "On"],
      ["Table", s.private === false ? "Public" : "Private"],
      ["Rated", s.rated ? "Yes: the match counts in the ratings" : "No: practice"],
    ];
    if (ctx.table?.express) rows.push(["Match", "Express: one hand"]);
    return h("dl", { class: "settings-summary", id: "settings-summary" },
      rows.flatMap(([k, v]) => [h("dt", null, k), h("dd", { dataset: { setting: k.toLowerCase().replace(/ /g, "-") } }, v)]));
  }

  function draw() {
    const focused = document.activeElement && el.contains(document.activeElement) ? document.activeElement.id : null;
    const s = settings();
    replace(el, h("h3", { id: "settings-title" }, isHost() ? "Settings (you are the host)" : "Settings"),
      isHost() ? hostForm(s) : summary(s));
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
    const name = ctx.table?.game;
    if (isHost() && name && name !== gameName) {
      gameName = name;
      gameInfo(name).then((info) => { game = info; draw(); });
    }
  }

  return { el, update: draw, isHost };
}
