// A game's leaderboard (`/leaderboard/GAME`): the top 100 established players (10 rated
// matches or more) by rating, and where this browser's player stands.

import { h, replace } from "./dom.js";
import { getJson } from "./api.js";
import { ratingText, registeredMark } from "./profile.js";

export function renderLeaderboard(root, game) {
  const main = h("main", { class: "home leaderboard" }, h("p", { class: "hint" }, "Loading…"));
  root.append(main);
  getJson(`/api/leaderboard/${encodeURIComponent(game)}`).then((board) => {
    document.title = `${board.title} leaderboard · cardtable`;
    const you = board.you;
    replace(main,
      h("header", { class: "home-head profile-head" },
        h("a", { href: "/", "data-route": "", class: "back-link" }, "← cardtable"),
        h("h1", null, `${board.title} leaderboard`),
        h("p", { class: "tagline", id: "board-you" }, you
          ? (you.rank ? `You are #${you.rank} with ${ratingText(you)}.`
            : `Your rating is ${ratingText(you)}: ${board.established - you.matches} more rated matches to be listed.`)
          : `Players are listed after ${board.established} rated matches.`)),
      h("section", { class: "panel" }, board.rows.length
        ? h("table", { class: "score-table profile-counts board-table", id: "board" },
          h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, "Player"), h("th", null, "Rating"), h("th", null, "Matches"))),
          h("tbody", null, board.rows.map((r) => h("tr", { dataset: { player: r.player_id } },
            h("td", null, String(r.rank)),
            h("td", null, h("a", { href: `/p/${encodeURIComponent(r.player_id)}`, "data-route": "" }, r.name),
              r.registered ? [" ", registeredMark()] : null),
            h("td", null, r.rating.toFixed(1)), h("td", null, String(r.matches))))))
        : h("p", { class: "hint", id: "board-empty" }, "No one has played enough rated matches yet.")));
  }).catch((e) => {
    replace(main, h("h1", null, "No such leaderboard"), h("p", { class: "form-error", role: "alert" }, e.message));
  });
  return { destroy() {} };
}
