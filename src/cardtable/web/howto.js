// How to play: one page per game (/how/GAME), and the same text in the table's
// "How to play" dialog. Everything about the rules comes from GET /api/games: the
// descriptor's rules summary, each preset's title, note and what it sets, each
// option's doc and allowed values (engine Options.describe()), so the page cannot
// drift from what the server plays. Only "Playing here" (taps and keys) is the
// browser's own, and the keys come from the board's HELP when it exports one.

import { listGames } from "./api.js";
import { h, replace } from "./dom.js";

const humanize = (name) => String(name).replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

/** An option value as a player reads it: yes/no, words for names, numbers as they are. */
export function valueText(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  return String(value).replace(/_/g, " ");
}

/** The preset's menu name: its title from the engine, else its key made readable. */
export function presetTitle(game, preset) {
  return game.preset_titles?.[preset] || humanize(preset);
}

// How a turn goes in this browser client, per board; the rules themselves are the server's.
const RUMMY_PLAY = [
  "Tap the stock or the discard pile to draw.",
  "Tap cards in your hand to select them, then press Meld; with one card selected, tap a meld on the table (or press Lay off) to add it there.",
  "Select one card and press Discard, or tap the discard pile, to end your turn. You can also drag cards onto the table or the pile.",
  "Sort your hand by suit or by rank with the buttons under it, or drag cards to where you want them.",
];
const PLAYING_HERE = {
  gin: [
    "On the first turn, take the upcard or pass.",
    "Tap the stock or the discard pile to draw.",
    "To discard, tap a card in your hand, then tap it again, press Discard or tap the pile; with a mouse one click discards. You can also drag it onto the pile.",
    "Your hand shows its best melds and counts your deadwood. Knock and Gin light up when you may; if several discards would do, you choose one.",
    "After a knock the showdown lays off for the defender at best and shows the score; the dealer deals the next hand.",
  ],
  rummy: RUMMY_PLAY,
  rummy500: [
    ...RUMMY_PLAY.slice(0, 1),
    "To take deeper cards, tap a card inside the discard pile: it comes with every card above it, and the deepest one must go on the table this turn.",
    ...RUMMY_PLAY.slice(1),
  ],
  romme: [
    ...RUMMY_PLAY.slice(0, 2),
    "To come out, add groups one by one (Add group) until they reach the minimum, then press Meld.",
    ...RUMMY_PLAY.slice(2),
  ],
  indian: [
    "Tap the closed deck or the open deck to draw.",
    "Select cards and press Group to keep them together, or Auto-arrange; each group says whether it is a pure sequence, a sequence or a set.",
    "Select one card and press Discard. When your hand is ready, press Declare and choose the card for the finish slot; the table warns you first if the show would be wrong.",
    "Drop leaves the deal at its price (shown on the button).",
  ],
  spades: [
    "Bid by tapping a number; Nil and Blind Nil ask you to confirm.",
    "Tap a card to play it; cards you may not play are dimmed, and a refused card says why.",
    "Everyone's bid and the tricks taken stay in view while the hand is played.",
  ],
};
const BOARD_OF = { rummy500: "rummy", romme: "rummy" };

async function keysLine(name) {
  const board = BOARD_OF[name] || name;
  try {
    const module = await import(`./games/${board.replace(/[^a-z0-9_]/g, "")}/board.js`);
    // H (a hint) is the table's, the same on every board (table_hint.js).
    if (typeof module.HELP === "string" && module.HELP) return `${module.HELP} · H hint`;
  } catch {
    // no board module for this game (a plug-in drawn only in the terminal): no key line
  }
  return "";
}

function playersText(counts) {
  const list = [...(counts || [])].sort((a, b) => a - b);
  if (!list.length) return "";
  if (list.length > 2 && list[list.length - 1] - list[0] === list.length - 1) return `${list[0]} to ${list[list.length - 1]} players`;
  return `${list.join(" or ").replace(/ or (?=.* or )/g, ", ")} players`;
}

/** The descriptor's summary: blank lines part paragraphs; "- " lines make a list. */
function rulesNodes(text) {
  return String(text || "").split(/\n\s*\n/).filter((p) => p.trim()).map((paragraph) => {
    const lines = paragraph.split("\n");
    if (!lines[0].startsWith("- ")) return h("p", null, lines.map((l) => l.trim()).join(" "));
    const items = [];
    for (const line of lines) {
      if (line.startsWith("- ")) items.push(line.slice(2).trim());
      else items[items.length - 1] += ` ${line.trim()}`;
    }
    return h("ul", null, items.map((item) => h("li", null, item)));
  });
}

function allowedText(option) {
  if (Array.isArray(option.range)) return `${option.range[0]} to ${option.range[1]}`;
  const choices = option.choices || [];
  if (choices.length === 2 && choices.every((c) => typeof c === "boolean")) return "yes or no";
  return choices.map(valueText).join(" · ");
}

function presetCard(game, preset, names, tag) {
  const sets = Object.entries(differences(game, preset));
  const isDefault = preset === game.default_preset;
  let what;
  if (isDefault && !sets.length) what = "Every option at its default, as listed below.";
  else if (!sets.length) what = "The options' defaults.";
  else what = `Sets ${sets.map(([k, v]) => `${(names.get(k) || humanize(k)).toLowerCase()}: ${valueText(v)}`).join(" · ")}.`;
  return h("li", { class: "howto-preset", dataset: { preset } },
    h(tag, null, presetTitle(game, preset), isDefault ? h("span", { class: "howto-badge" }, "default") : null),
    h("p", { class: "howto-note" }, game.preset_notes?.[preset] || ""),
    h("p", { class: "hint" }, what));
}

/** What a preset changes, read from the full values /api/games lists for each preset. */
function differences(game, preset) {
  const defaults = Object.fromEntries((game.options || []).map((o) => [o.name, o.default]));
  const values = game.preset_values?.[preset] || {};
  return Object.fromEntries(Object.entries(values).filter(([k, v]) => defaults[k] !== v));
}

function optionRow(option) {
  return h("div", { class: "howto-option", dataset: { option: option.name } },
    h("dt", null, humanize(option.name)),
    h("dd", null, h("span", { class: "howto-doc" }, option.doc || ""),
      h("span", { class: "hint" }, `Values: ${allowedText(option)}; default ${valueText(option.default)}.`)));
}

/**
 * The how-to sections for one /api/games entry; `headingLevel` 2 on the page, 3 in a
 * dialog that has its own title. Returns {nodes, ready}: `ready` resolves when the keys
 * line (read from the board module) is in.
 */
export function howtoSections(game, { headingLevel = 2 } = {}) {
  const hx = (text, id) => h(`h${headingLevel}`, { id }, text);
  const names = new Map((game.options || []).map((o) => [o.name, humanize(o.name)]));
  const keys = h("p", { class: "howto-keys hint" });
  const ready = keysLine(game.name).then((line) => { keys.textContent = line; keys.hidden = !line; });
  const here = PLAYING_HERE[game.name];
  const express = game.express && Object.keys(game.express).length
    ? h("p", { class: "hint" }, `Express tables play one hand: they set ${Object.entries(game.express)
      .map(([k, v]) => `${(names.get(k) || humanize(k)).toLowerCase()}: ${valueText(v)}`).join(" · ")} on top of the chosen rules.`)
    : null;
  const nodes = [
    h("section", { class: "howto-section howto-rules", "aria-labelledby": `howto-rules-${game.name}` },
      hx("The rules in brief", `howto-rules-${game.name}`), rulesNodes(game.rules)),
    h("section", { class: "howto-section howto-here", "aria-labelledby": `howto-here-${game.name}` },
      hx("Playing here", `howto-here-${game.name}`),
      here ? h("ul", null, here.map((line) => h("li", null, line))) : null,
      h("p", null, "On a computer every move also has a key; the buttons show theirs."),
      keys,
      h("p", { class: "hint" }, "At the table, Hint (H) shows what a strong player would do on your turn, and why; Scorecard shows the score sheet; Chat talks to the other players; Table holds the table's settings, ending the match by agreement and leaving; ? brings this page back.")),
    h("section", { class: "howto-section howto-presets", "aria-labelledby": `howto-presets-${game.name}` },
      hx("Rule sets", `howto-presets-${game.name}`),
      h("p", { class: "hint" }, "Choose one under Rules when you create a table; any option below can be changed on top of it."),
      h("ul", { class: "howto-preset-list" }, (game.presets || []).map((p) => presetCard(game, p, names, `h${headingLevel + 1}`))),
      express),
    h("section", { class: "howto-section howto-options", "aria-labelledby": `howto-options-${game.name}` },
      hx("Every option", `howto-options-${game.name}`),
      h("dl", { class: "howto-option-list" }, (game.options || []).map(optionRow))),
  ];
  return { nodes, ready };
}

function gameNav(games, current) {
  return h("nav", { class: "howto-nav", "aria-label": "How to play each game" },
    h("ul", null, games.map((g) => h("li", null,
      h("a", { href: `/how/${g.name}`, "data-route": "", "aria-current": g.name === current ? "page" : null },
        g.title || humanize(g.name))))));
}

/** The page at /how/GAME (or /how: the list of games). */
export function renderHowto(root, name) {
  const main = h("main", { class: "howto-body" }, h("p", { class: "loading" }, "Loading…"));
  const page = h("div", { class: "howto" },
    h("header", { class: "howto-head" },
      h("a", { class: "brand", href: "/", "data-route": "" }, "cardtable"),
      h("span", { class: "howto-crumb" }, "How to play")),
    main);
  root.append(page);
  let gone = false;

  listGames().then((all) => {
    if (gone) return;
    const games = all.filter((g) => g.browser !== false);
    const game = name ? all.find((g) => g.name === name) : null;
    document.title = game ? `How to play ${game.title} · cardtable` : "How to play · cardtable";
    if (!game) {
      replace(main, h("section", { class: "panel howto-main" },
        h("h1", null, name ? "No such game" : "How to play"),
        h("p", null, name ? `This server has no game called “${name}”. Here are the ones it has:` : "Pick a game:"),
        h("ul", { class: "howto-index" }, games.map((g) => h("li", null,
          h("a", { href: `/how/${g.name}`, "data-route": "" }, g.title), " — ", playersText(g.players)))),
        h("p", null, h("a", { href: "/", "data-route": "" }, "Back to the home page"))));
      return;
    }
    const { nodes } = howtoSections(game);
    replace(main, gameNav(games, game.name), h("article", { class: "panel howto-main", "aria-labelledby": "howto-title" },
      h("h1", { id: "howto-title" }, `How to play ${game.title}`),
      h("p", { class: "howto-lede" }, playersText(game.players),
        game.browser !== false ? [h("a", { class: "button primary", id: "howto-play", href: `/?game=${game.name}`, "data-route": "" }, `Play ${game.title}`)] : null),
      nodes));
  }).catch((e) => {
    if (!gone) replace(main, h("p", { class: "loading" }, `Could not load the games: ${e.message}`));
  });

  return { destroy() { gone = true; document.title = "cardtable"; } };
}
