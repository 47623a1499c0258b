// The router: `/` is the home page, `/t/CODE` a table, `/how/GAME` how to play a
// game (`/how`: every game), `/p/ID` a player's profile, `/account` signing in and out, `/leaderboard/GAME` a game's best, `/r/MATCH` a replay. Pages are plain functions that fill #app and return
// {destroy()}; moving between them uses history.pushState, so links work, reloads
// resume and Back behaves.

import { renderAccount } from "./account.js";
import { renderHome } from "./home.js";
import { renderLeaderboard } from "./leaderboard.js";
import { renderHowto } from "./howto.js";
import { renderProfile } from "./profile.js";
import { renderReplay } from "./replay.js";
import { openTable } from "./table.js";
import { prefs } from "./state.js";

let page = null;

export function navigate(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  route();
}

function route() {
  page?.destroy?.();
  page = null;
  const root = document.getElementById("app");
  root.replaceChildren();
  const path = location.pathname;
  const table = path.match(/^\/t\/([A-Za-z0-9]{1,16})\/?$/);
  const how = path.match(/^\/how(?:\/([a-z0-9_]{1,40}))?\/?$/);
  const player = path.match(/^\/p\/([A-Za-z0-9_-]{1,32})\/?$/);
  const board = path.match(/^\/leaderboard\/([a-z0-9_]{1,32})\/?$/);
  const replayed = path.match(/^\/r\/([A-Za-z0-9_%:-]{1,128})\/?$/);
  if (table) page = openTable(root, table[1], navigate);
  else if (player) page = renderProfile(root, player[1]);
  else if (/^\/account\/?$/.test(path)) page = renderAccount(root, navigate);
  else if (board) page = renderLeaderboard(root, board[1]);
  else if (replayed) page = renderReplay(root, decodeURIComponent(replayed[1]));
  else if (how) page = renderHowto(root, how[1] || null);
  else page = renderHome(root, navigate);
  if (!table) window.scrollTo(0, 0);
}

function applyPrefs() {
  document.body.classList.toggle("four-colour", Boolean(prefs().fourColour));
}

// Same-origin links are routed in place (no full reload).
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-route]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});

window.addEventListener("popstate", route);
window.addEventListener("cardtable:prefs", applyPrefs);
applyPrefs();
route();
