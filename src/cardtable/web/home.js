// The home page: choose a game, a preset and (optionally) options, then play
// against the computer or invite a friend; or join a table by its code.

import { createTable, listGames, normalizeCode } from "./api.js";
import { h, replace } from "./dom.js";
import { guestName, prefs, rememberSeat, setGuestName, setPref } from "./state.js";
import { suitIcon } from "./cards.js";

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

function gamePicker(games, onPick) {
  const group = h("div", { class: "game-picker", role: "radiogroup", "aria-label": "Game" });
  games.forEach((game, i) => {
    const id = `game-${game.name}`;
    const input = h("input", { type: "radio", name: "game", id, value: game.name, checked: i === 0 });
    input.addEventListener("change", () => onPick(game));
    group.append(h("label", { class: "game-choice", for: id }, input,
      h("span", { class: "game-title" }, game.title || humanize(game.name)),
      h("span", { class: "hint" }, `${(game.players || []).join(" or ")} players`)));
  });
  return group;
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
  const presetSelect = h("select", { id: "preset" });
  const optionsBox = h("div", { class: "options-grid" });
  const buttons = [];
  let game = null;
  let touched = new Map();

  function showGame(picked) {
    game = picked;
    touched = new Map();
    replace(presetSelect, ...(game.presets || []).map((p) =>
      h("option", { value: p, selected: p === game.default_preset }, humanize(p))));
    replace(optionsBox, ...(game.options || []).map((o) => optionField(o, touched)));
  }

  async function start(opponent) {
    if (!game) return;
    error.textContent = "";
    const guest = name.value.trim() || "Guest";
    setGuestName(name.value.trim());
    const options = { preset: presetSelect.value, ...Object.fromEntries(touched) };
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const grant = await createTable(game.name, options, opponent, guest);
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

  const newGame = h("section", { class: "panel new-game", "aria-labelledby": "new-game-title" },
    h("h2", { id: "new-game-title" }, "New game"),
    h("div", { class: "game-slot" }, h("p", { class: "hint" }, "Loading games…")),
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "preset" }, "Rules"), presetSelect),
      h("div", { class: "field" }, h("label", { for: "guest-name" }, "Your name"), name)),
    h("details", { class: "options" }, h("summary", null, "More options"),
      h("p", { class: "hint" }, "Changes apply on top of the chosen rules; empty fields keep the rules' value."),
      optionsBox),
    h("div", { class: "actions" }, vsComputer, vsFriend),
    error);

  root.append(h("div", { class: "home" },
    h("header", { class: "home-head" },
      h("h1", null, "cardtable"),
      h("p", { class: "tagline" }, "Card games in your browser, against the computer or with friends.")),
    newGame,
    h("section", { class: "panel join", "aria-labelledby": "join-title" },
      h("h2", { id: "join-title" }, "Join a friend"),
      h("p", { class: "hint" }, "Open the invite link you were sent, or type its six-letter code."),
      joinForm),
    h("footer", { class: "home-foot" }, deckToggle())));

  listGames().then((games) => {
    const slot = newGame.querySelector(".game-slot");
    if (!games.length) {
      replace(slot, h("p", { class: "hint" }, "No games on this server."));
      return;
    }
    replace(slot, gamePicker(games, showGame));
    showGame(games[0]);
  }).catch((e) => { error.textContent = `Could not load the games: ${e.message}`; });

  return { destroy() {} };
}
