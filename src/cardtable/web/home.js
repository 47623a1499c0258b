// The home page: choose a game, a preset, table settings and (optionally)
// options, then play against the computer or invite friends; join a public
// table from the live lobby (lobby.js); or join a table by its code.
// The Play buttons must show without scrolling, on a phone held upright too (issue
// 14): the table settings and the seat plan for friends fold away on a small screen
// (open on a large one; then as the player last left them), and on a phone the games
// are a two-column grid.
// `/?game=NAME` picks a game (the how-to pages' Play button).

import { createTable, listGames, normalizeCode } from "./api.js";
import { h, replace } from "./dom.js";
import { presetTitle } from "./howto.js";
import { mountLobby } from "./lobby.js";
import { mountMyMatches } from "./profile.js";
import { guestName, prefs, rememberSeat, setGuestName, setPref } from "./state.js";
import { levelChoices } from "./table_settings.js";
import { suitIcon } from "./cards.js";

// A screen with room for the table settings open from the start (until the player
// folds or opens them himself: then as he left them).
const ROOMY = "(min-width: 760px) and (min-height: 700px)";


const humanize = (name) => String(name).replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

/** One input per option, generated from GET /api/games; `touched` holds changed values. */
function optionField(option, touched) {
  const id = `opt-${option.name}`;
  const label = h("label", { for: id }, humanize(option.name));
  const hint = h("span", { class: "hint", id: `${id}-hint` }, option.doc || "");
  let input;
  const choices = option.choices;
  if (Array.isArray(choices) && choices.length === 2 && choices.every((c) => typeof c === "boolean")) {
    input = h("input", { type: "checkbox", id, checked: Boolean(option.default), "aria-describedby": `${id}-hint` });
    input.addEventListener("change", () => { touched.set(option.name, input.checked); });
    return h("div", { class: "option option-check" }, input, label, hint);
  }
  if (Array.isArray(choices)) {
    input = h("select", { id, "aria-describedby": `${id}-hint` },
      choices.map((c) => h("option", { value: JSON.stringify(c), selected: c === option.default }, humanize(c))));
    input.addEventListener("change", () => { touched.set(option.name, JSON.parse(input.value)); });
  } else {
    const [low, high] = option.range || [];
    input = h("input", {
      type: "number", id, inputmode: "numeric", step: 1, min: low, max: high,
      placeholder: String(option.default), "aria-describedby": `${id}-hint`,
    });
    input.addEventListener("input", () => {
      if (input.value === "") touched.delete(option.name);
      else touched.set(option.name, Number(input.value));
    });
    hint.textContent = `${option.doc || ""}${option.range ? ` (${low}–${high})` : ""}`;
  }
  return h("div", { class: "option" }, label, input, hint);
}

function playersText(counts) {
  if (counts.length > 2) return `${Math.min(...counts)}–${Math.max(...counts)} players`;
  return `${counts.join(" or ")} players`;
}

function gamePicker(games, picked, onPick) {
  const group = h("div", { class: "game-picker", role: "radiogroup", "aria-label": "Game" });
  games.forEach((game) => {
    const id = `game-${game.name}`;
    const input = h("input", { type: "radio", name: "game", id, value: game.name, checked: game === picked });
    input.addEventListener("change", () => onPick(game));
    group.append(h("label", { class: "game-choice", for: id }, input,
      h("span", { class: "game-title" }, game.title || humanize(game.name)),
      h("span", { class: "hint" }, playersText(game.players || []))));
  });
  return group;
}

// Games played by several counts (Spades: 4, 3 or 2) choose one, and with friends
// say who sits in each other seat. Seats go clockwise from yours: seat 1 is on
// your left; with four, seat 2 is across the table (your partner in Spades).
/** A seat's label; `game` is the /api/games entry (partners sit across at `partnerships`). */
function seatLabel(game, count, seat) {
  if (count === 2) return "Opponent";
  if (count === 4 && game.partnerships === count) {
    return { 1: "Left opponent", 2: "Partner (across)", 3: "Right opponent" }[seat];
  }
  if (seat === 1) return `Seat ${seat + 1} (on your left)`;
  if (seat === count - 1) return `Seat ${seat + 1} (on your right)`;
  return `Seat ${seat + 1}`;
}

/**
 * The player-count radios (`el`) and the per-seat Computer / Invite choices (`seatsEl`,
 * which only matter with friends: they go with the table settings).
 */
function seatPlanner(onChange) {
  const box = h("div", { class: "seat-plan", hidden: true });
  const plan = { game: null, players: null, kinds: [] };

  function show(game) {
    plan.game = game;
    const counts = game.players || [];
    const several = counts.length > 1 || Math.max(...counts, 2) > 2;
    box.hidden = !several;
    seatsBox.hidden = !several;
    if (!several) {
      plan.players = null;
      replace(box);
      onChange(plan);
      return;
    }
    plan.players = counts[0];
    plan.kinds = [];
    const notes = game.seat_notes || {}; // a word per seat count (Spades: 4 is "partners")
    // The radios stay put (keyboard focus with them); only the seat list follows the count.
    const radios = counts.length > 1 ? h("fieldset", { class: "player-count" },
      h("legend", null, "Players"),
      counts.map((n) => {
        const input = h("input", { type: "radio", name: "players", id: `players-${n}`, value: String(n), checked: n === plan.players });
        input.addEventListener("change", () => { plan.players = n; drawSeats(); });
        return h("label", { class: "count-choice", for: `players-${n}` }, input,
          h("span", null, `${n}`), notes[n] ? h("span", { class: "hint" }, notes[n]) : null);
      })) : null;
    replace(box, radios);
    drawSeats();
  }

  const seatsBox = h("fieldset", { class: "seat-kinds", hidden: true });

  function drawSeats() {
    const seats = [];
    for (let seat = 1; seat < plan.players; seat += 1) {
      const id = `seat-kind-${seat}`;
      const select = h("select", { id },
        h("option", { value: "bot", selected: plan.kinds[seat - 1] === "bot" }, "Computer"),
        h("option", { value: "human", selected: plan.kinds[seat - 1] !== "bot" }, "Invite a person"));
      plan.kinds[seat - 1] = select.value;
      select.addEventListener("change", () => { plan.kinds[seat - 1] = select.value; onChange(plan); });
      seats.push(h("div", { class: "seat-kind" }, h("label", { for: id }, seatLabel(plan.game, plan.players, seat)), select));
    }
    plan.kinds.length = plan.players - 1;
    replace(seatsBox,
      h("legend", null, "With friends, who sits where"),
      h("div", { class: "seat-kind-list" }, seats),
      h("p", { class: "hint" }, "Against the computer, every other seat is a computer."));
    onChange(plan);
  }

  return { el: box, seatsEl: seatsBox, show, plan };
}

const TURN_TIMES = [[0, "Off"], [15, "15 s"], [30, "30 s"], [60, "60 s"]];

function checkField(id, text, checked, hint) {
  const input = h("input", { type: "checkbox", id, checked, "aria-describedby": hint ? `${id}-hint` : null });
  return { input, el: h("div", { class: "option option-check" }, input, h("label", { for: id }, text),
    hint ? h("span", { class: "hint", id: `${id}-hint` }, hint) : null) };
}

/**
 * Turn time, lobby listing, spectators, hints, express and the computers' levels:
 * the TableSettings sent with POST /api/tables (docs/protocol.md).
 */
function tableSettings(onExpress) {
  // "auto" follows the spec's defaults, which depend on the button pressed.
  const turn = h("select", { id: "turn-time", "aria-describedby": "turn-time-hint" },
    h("option", { value: "auto", selected: true }, "Usual"),
    TURN_TIMES.map(([value, text]) => h("option", { value: String(value) }, text)));
  const express = checkField("express", "Express: one hand", false, "One deal instead of a whole match.");
  const listed = checkField("public", "List in the public lobby", false);
  const spectators = checkField("spectators", "Spectators may watch", true);
  const hints = checkField("hints", "Players may ask for hints", true);
  // One line, in the switches' cell: the Play buttons stay on a desktop's first screen.
  const rated = checkField("rated", "Rated (signed-in players)", false);
  express.input.addEventListener("change", () => onExpress(express.input.checked));
  const levelsBox = h("div", { class: "levels" });
  const levels = []; // chosen per seat, kept while the player count changes

  /** One level choice per other seat (Easy … Expert): the level of a computer playing it. */
  function showSeats(game, count) {
    const selects = [];
    for (let seat = 1; seat < count; seat += 1) {
      const id = `level-${seat}`;
      const select = h("select", { id },
        levelChoices(game).map(([value, text]) => h("option", { value, selected: (levels[seat] || "normal") === value }, text)));
      select.addEventListener("change", () => { levels[seat] = select.value; });
      const text = count === 2 ? "Computer level" : seatLabel(game, count, seat);
      selects.push(h("div", { class: "seat-kind" }, h("label", { for: id }, text), select));
    }
    replace(levelsBox, count > 2 ? h("p", { class: "levels-title" }, "Computer level, seat by seat") : null,
      h("div", { class: "seat-kind-list" }, selects));
  }

  function value(anyPerson, count) {
    const chosen = turn.value === "auto" ? (anyPerson ? 30 : 0) : Number(turn.value);
    return {
      turn_time: chosen,
      private: !listed.input.checked,
      spectators: spectators.input.checked,
      hints: hints.input.checked,
      rated: rated.input.checked,
      levels: Array.from({ length: count }, (_, seat) => (seat && levels[seat]) || "normal"),
    };
  }

  /** The choices that differ from the usual ones, in a few words (the folded box's summary). */
  function summary() {
    const parts = [];
    if (turn.value !== "auto") parts.push(Number(turn.value) ? `${turn.value} s turns` : "no turn timer");
    if (express.input.checked && !express.el.hidden) parts.push("express");
    if (listed.input.checked) parts.push("in the lobby");
    if (!spectators.input.checked) parts.push("no spectators");
    if (!hints.input.checked) parts.push("no hints");
    if (rated.input.checked) parts.push("rated");
    for (const level of new Set(levels.filter((l) => l && l !== "normal"))) parts.push(`${level} computer`);
    return parts.length ? parts.join(" · ") : "usual settings";
  }

  const el = h("div", { class: "table-settings" },
    h("div", { class: "settings-grid" },
      h("div", { class: "option" }, h("label", { for: "turn-time" }, "Turn time"), turn,
        h("span", { class: "hint", id: "turn-time-hint" }, "Usual: 30 s with people, off against the computer.")),
      express.el,
      // two one-line switches share a cell: the grid keeps its rows, the Play buttons
      // stay on a desktop's first screen
      h("div", { class: "option-stack" }, listed.el, rated.el),
      h("div", { class: "option-stack" }, spectators.el, hints.el)),
    levelsBox);
  return {
    el, showSeats, value, summary,
    get express() { return express.input.checked; },
    /** Only games with an `express` object from /api/games offer it. */
    offerExpress(available) { express.el.hidden = !available; },
  };
}

function deckToggle() {
  const box = h("input", { type: "checkbox", id: "four-colour", checked: prefs().fourColour });
  box.addEventListener("change", () => {
    setPref("fourColour", box.checked);
    window.dispatchEvent(new Event("cardtable:prefs"));
  });
  return h("div", { class: "deck-pref" }, box,
    h("label", { for: "four-colour" }, "Four-colour deck "),
    h("span", { class: "suit-preview", "aria-hidden": "true" }, [..."cdhs"].map(suitIcon)));
}

export function renderHome(root, navigate) {
  const error = h("p", { class: "form-error", role: "alert" });
  const name = h("input", {
    id: "guest-name", maxlength: 24, autocomplete: "nickname", value: guestName(),
    placeholder: "Guest",
  });
  const presetNote = h("p", { class: "hint preset-note", id: "preset-note" });
  const presetSelect = h("select", { id: "preset", "aria-describedby": "preset-note" });
  const howtoLink = h("a", { class: "howto-link", id: "howto-link", href: "/how", "data-route": "" }, "How to play");
  const optionsBox = h("div", { class: "options-grid" });
  const buttons = [];
  let game = null;
  let touched = new Map();
  let fields = new Map(); // option name -> its field, to hide what express decides
  const seatCount = () => planner.plan.players || Math.min(...(game?.players || [2]));
  const planner = seatPlanner((plan) => {
    const many = plan.players && plan.players > 2;
    vsFriend.textContent = many ? "Play with friends" : "Play with a friend";
    if (game) settings.showSeats(game, seatCount());
  });
  const settings = tableSettings(() => showExpress());
  const lobby = mountLobby({ navigate, name: () => name.value, pickedGame: () => game });

  /** Express decides the match length: the target (and its own options) would be ignored. */
  function expressOptions() {
    return settings.express && game?.express ? game.express : null;
  }

  function showExpress() {
    const express = expressOptions();
    for (const [option, field] of fields) {
      field.hidden = Boolean(express) && (option === "target" || option in express);
    }
  }

  function showPresetNote() {
    presetNote.textContent = game?.preset_notes?.[presetSelect.value] || "";
  }
  presetSelect.addEventListener("change", showPresetNote);

  function showGame(picked) {
    game = picked;
    touched = new Map();
    replace(presetSelect, ...(game.presets || []).map((p) =>
      h("option", { value: p, selected: p === game.default_preset }, presetTitle(game, p))));
    showPresetNote();
    howtoLink.href = `/how/${game.name}`;
    howtoLink.textContent = `How to play ${game.title || humanize(game.name)}`;
    fields = new Map((game.options || []).map((o) => [o.name, optionField(o, touched)]));
    replace(optionsBox, ...fields.values());
    settings.offerExpress(Boolean(game.express && Object.keys(game.express).length));
    planner.show(game);
    settings.showSeats(game, seatCount());
    showExpress();
    lobby.setGame(game);
  }

  async function start(opponent) {
    if (!game) return;
    error.textContent = "";
    const guest = name.value.trim() || "Guest";
    setGuestName(name.value.trim());
    const express = expressOptions();
    const changed = Object.fromEntries([...touched].filter(([k]) => !(express && (k === "target" || k in express))));
    const options = { preset: presetSelect.value, ...changed, ...express };
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const extra = {};
      const plan = planner.plan;
      if (plan.players) {
        extra.players = plan.players;
        if (opponent === "friend") extra.seats = [...plan.kinds];
      }
      // With friends a person may take a seat, unless every other seat was given to a computer.
      const anyPerson = opponent === "friend" && (!extra.seats || extra.seats.includes("human"));
      extra.settings = settings.value(anyPerson, seatCount());
      const grant = await createTable(game.name, options, opponent, guest, extra);
      rememberSeat(grant.code, grant);
      navigate(`/t/${grant.code}`);
    } catch (e) {
      error.textContent = e.message;
      buttons.forEach((b) => { b.disabled = false; });
    }
  }

  const vsComputer = h("button", { class: "primary big", id: "play-computer", onclick: () => start("computer") },
    "Play against the computer");
  const vsFriend = h("button", { class: "big", id: "play-friend", onclick: () => start("friend") },
    "Play with a friend");
  buttons.push(vsComputer, vsFriend);

  const codeInput = h("input", {
    id: "join-code", maxlength: 8, autocomplete: "off", autocapitalize: "characters",
    spellcheck: "false", placeholder: "K7PX3M", class: "code-input",
  });
  const joinForm = h("form", { class: "join-form" },
    h("label", { for: "join-code" }, "Table code"), codeInput,
    h("button", { type: "submit" }, "Join"));
  joinForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const code = normalizeCode(codeInput.value);
    if (code) navigate(`/t/${code}`);
  });

  const tableSummary = h("span", { class: "hint details-summary", id: "table-summary" });
  const stored = prefs().tableBoxOpen;
  const open = typeof stored === "boolean" ? stored : window.matchMedia?.(ROOMY).matches ?? false;
  const tableBox = h("details", { class: "table-box", id: "table-box", open },
    h("summary", null, "Table settings ", tableSummary),
    planner.seatsEl,
    settings.el);
  const showTableSummary = () => { tableSummary.textContent = settings.summary(); };
  tableBox.addEventListener("change", showTableSummary);
  tableBox.addEventListener("toggle", () => setPref("tableBoxOpen", tableBox.open));

  const newGame = h("section", { class: "panel new-game", "aria-labelledby": "new-game-title" },
    h("h2", { id: "new-game-title" }, "New game"),
    h("div", { class: "new-game-pick" },
      h("div", { class: "game-slot" }, h("p", { class: "hint" }, "Loading games…")),
      planner.el),
    h("div", { class: "new-game-setup" },
      h("div", { class: "row" },
        h("div", { class: "field field-rules" },
          h("div", { class: "label-row" }, h("label", { for: "preset" }, "Rules"), howtoLink),
          presetSelect, presetNote),
        h("div", { class: "field field-name" }, h("label", { for: "guest-name" }, "Your name"), name)),
      tableBox,
      h("details", { class: "options" }, h("summary", null, "More options ",
        h("span", { class: "hint details-summary" }, "change any rule")),
      h("p", { class: "hint" }, "Changes apply on top of the chosen rules; empty fields keep the rules' value."),
      optionsBox),
      h("div", { class: "actions" }, vsComputer, vsFriend),
      error));

  const howtoNav = h("nav", { class: "home-howto", "aria-label": "How to play" });
  const accountCorner = h("a", { href: "/account", "data-route": "", class: "back-link account-corner", id: "account-corner" }, "Sign in");

  root.append(h("main", { class: "home" },
    h("header", { class: "home-head" },
      accountCorner,
      h("h1", null, "cardtable"),
      h("p", { class: "tagline" }, "Card games in your browser, against the computer or with friends.")),
    newGame,
    mountMyMatches((me) => {
      if (me?.username) accountCorner.textContent = me.username;
    }),
    lobby.el,
    h("section", { class: "panel join", "aria-labelledby": "join-title" },
      h("h2", { id: "join-title" }, "Join a friend"),
      h("p", { class: "hint" }, "Open the invite link you were sent, or type its six-letter code."),
      joinForm),
    h("footer", { class: "home-foot" }, howtoNav, deckToggle())));

  listGames().then((all) => {
    // Only the games this client can draw (the server says which: `browser`).
    const games = all.filter((g) => g.browser !== false);
    lobby.setGames(all);
    const slot = newGame.querySelector(".game-slot");
    if (!games.length) {
      replace(slot, h("p", { class: "hint" }, "No games on this server."));
      return;
    }
    const asked = new URLSearchParams(location.search).get("game");
    const first = games.find((g) => g.name === asked) || games[0];
    replace(slot, gamePicker(games, first, showGame));
    replace(howtoNav, h("h2", null, "How to play"), h("ul", null, games.map((g) =>
      h("li", null, h("a", { href: `/how/${g.name}`, "data-route": "" }, g.title || humanize(g.name))))));
    showGame(first);
    showTableSummary();
  }).catch((e) => { error.textContent = `Could not load the games: ${e.message}`; });

  return { destroy() { lobby.destroy(); } };
}
