// A player's profile (`/p/ID`): his name, matches played and won per game, his latest
// matches; and the "Your matches" panel of the home page. Everything comes from
// /api/players/ID and /api/me (docs/protocol.md); names go in as text, never markup.

import { getJson } from "./api.js";
import { h, replace, svg } from "./dom.js";
import { profileModeration } from "./moderation.js";

/** The mark of a registered player beside his username (seats, profiles, leaderboards):
 * a guest's name never reads as an account's (the server refuses it), so the mark tells
 * the account's owner from anyone else. */
export const registeredMark = () =>
  h("span", { class: "registered-mark", role: "img", "aria-label": "registered player", title: "Registered player" }, "✓");

/** This browser's player (null until it has sat down somewhere). */
export const fetchMe = () => getJson("/api/me");

const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function outcome(match, playerId) {
  const mine = match.seats.find((s) => s.player_id === playerId);
  if (match.ended) return { text: "Ended by agreement", cls: "agreed" };
  if (!mine) return { text: "", cls: "" };
  return mine.won ? { text: "Won", cls: "won" } : { text: "Lost", cls: "lost" };
}

/** One row per match: the game, who sat there (with scores), won or lost, when. */
export function matchList(matches, playerId) {
  if (!matches.length) return h("p", { class: "hint" }, "No finished matches yet.");
  return h("ol", { class: "match-list", id: "match-list" }, matches.map((m) => {
    const result = outcome(m, playerId);
    return h("li", { class: ["match-row", result.cls], dataset: { match: m.match_id, code: m.code } },
      h("span", { class: "match-game" }, m.title, m.rated ? h("span", { class: "rated-tag" }, "Rated") : null),
      h("span", { class: "match-result" }, result.text),
      h("span", { class: "match-seats" }, m.seats.map((s, i) => [
        i ? " · " : null,
        s.player_id && s.player_id !== playerId
          ? h("a", { href: `/p/${encodeURIComponent(s.player_id)}`, "data-route": "" }, s.name)
          : h("span", { class: s.player_id === playerId ? "me" : null }, s.name),
        s.score === null || s.score === undefined ? null : h("span", { class: "match-score" }, ` ${s.score}`),
      ])),
      h("span", { class: "match-when" }, h("time", { datetime: m.ended_at }, when(m.ended_at)), " · ",
        h("a", { href: `/r/${encodeURIComponent(m.match_id)}`, "data-route": "", class: "replay-link" }, "Replay")));
  }));
}

function countsTable(counts) {
  if (!counts.length) return null;
  return h("table", { class: "score-table profile-counts", id: "profile-counts" },
    h("thead", null, h("tr", null, h("th", null, "Game"), h("th", null, "Played"), h("th", null, "Won"), h("th", null, "Share"))),
    h("tbody", null, counts.map((c) => h("tr", { dataset: { game: c.game } },
      h("td", null, c.title), h("td", null, String(c.played)), h("td", null, String(c.won)),
      h("td", null, c.played ? `${Math.round((100 * c.won) / c.played)}%` : "–")))));
}

/** A rating as players read it: one decimal, "?" while provisional. */
export const ratingText = (r) => `${r.rating.toFixed(1)}${r.provisional ? "?" : ""}`;

/** The rating after each rated match, drawn as a line (an SVG the page draws itself). */
export function ratingChart(points, label) {
  const width = 320, height = 110, pad = 24;
  if (points.length < 2) return h("p", { class: "hint" }, "The graph starts after two rated matches.");
  const values = points.map((p) => p.rating);
  const low = Math.min(...values), high = Math.max(...values);
  const span = high - low || 1;
  const x = (i) => pad + (i * (width - 2 * pad)) / (points.length - 1);
  const y = (v) => height - pad / 2 - ((v - low) * (height - pad)) / span;
  return svg("svg", { class: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label },
    svg("line", { x1: pad, y1: y(low), x2: width - pad, y2: y(low), class: "axis" }),
    svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }),
    points.map((p, i) => svg("circle", { cx: x(i), cy: y(p.rating), r: 2.5, class: "dot" })),
    svg("text", { x: 2, y: y(high) + 4, class: "tick" }, high.toFixed(0)),
    svg("text", { x: 2, y: y(low) + 4, class: "tick" }, low.toFixed(0)));
}

function statsPanel(p) {
  if (!p.stats?.length) return null;
  const shown = (v) => (v === null ? "–" : Number.isInteger(v) ? String(v) : v.toFixed(1));
  return h("section", { class: "panel", "aria-labelledby": "stats-title", id: "stats" },
    h("h2", { id: "stats-title" }, "Statistics"),
    p.stats.map((g) => h("div", { class: "stats-game", dataset: { game: g.game } },
      h("h3", null, g.title),
      h("dl", { class: "stats-list" }, g.figures.flatMap((f) => [
        h("dt", null, f.label),
        h("dd", null, `${shown(f.value)}${f.value !== null && f.percent ? "%" : ""}`)])))));
}

function ratingsPanel(p) {
  if (!p.ratings.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "ratings-title", id: "ratings" },
    h("h2", { id: "ratings-title" }, "Ratings"),
    h("p", { class: "hint" }, "A rating is the skill the system is sure of (mean − 3 deviations); “?” until 10 rated matches."),
    p.ratings.map((r) => {
      const chart = h("div", { class: "chart-slot" });
      getJson(`/api/players/${encodeURIComponent(p.player_id)}/ratings/${r.game}`)
        .then((points) => replace(chart, ratingChart(points, `${r.title} rating after each rated match`)))
        .catch(() => {});
      return h("div", { class: "rating-row", dataset: { game: r.game } },
        h("h3", null, r.title, " ", h("span", { class: "rating-value" }, ratingText(r))),
        h("p", { class: "hint" }, `${r.matches} rated match${r.matches === 1 ? "" : "es"}`,
          r.rank ? [" · ", h("a", { href: `/leaderboard/${r.game}`, "data-route": "" }, `#${r.rank} on the leaderboard`)]
            : [" · ", h("a", { href: `/leaderboard/${r.game}`, "data-route": "" }, "leaderboard")]),
        chart);
    }));
}

/** The home page's panel: this browser's latest matches, when it has any; `onMe(me)`
 * hears who this browser is (null: nobody yet). */
export function mountMyMatches(onMe = () => {}) {
  const el = h("section", { class: "panel my-matches", id: "my-matches", "aria-labelledby": "my-matches-title", hidden: true });
  fetchMe().then((me) => {
    onMe(me);
    if (!me || !me.recent.length) return;
    replace(el,
      h("h2", { id: "my-matches-title" }, "Your matches"),
      matchList(me.recent.slice(0, 5), me.player_id),
      h("p", null, h("a", { href: `/p/${encodeURIComponent(me.player_id)}`, "data-route": "", id: "my-profile" },
        "Your profile and every match")));
    el.hidden = false;
  }).catch(() => {});
  return el;
}

export function renderProfile(root, playerId) {
  const main = h("main", { class: "home profile" },
    h("p", { class: "hint" }, "Loading…"));
  root.append(main);
  getJson(`/api/players/${encodeURIComponent(playerId)}`).then((p) => {
    document.title = `${p.name} · cardtable`;
    replace(main,
      h("header", { class: "home-head profile-head" },
        h("a", { href: "/", "data-route": "", class: "back-link" }, "← cardtable"),
        h("h1", { id: "profile-name" }, p.name, p.username ? [" ", registeredMark()] : null),
        h("p", { class: "tagline" }, `${p.you ? "That is you. " : ""}Playing since ${when(p.since)}.`,
          p.you ? [" ", h("a", { href: "/account", "data-route": "", class: "back-link", id: "account-link" },
            p.username ? "Your account" : "Register or sign in")] : null),
        profileModeration(p)), // Block / Report (moderation.js): not on your own profile
      ratingsPanel(p),
      h("section", { class: "panel", "aria-labelledby": "counts-title" },
        h("h2", { id: "counts-title" }, "Matches"),
        countsTable(p.counts) || h("p", { class: "hint" }, "No finished matches yet.")),
      statsPanel(p),
      h("section", { class: "panel", "aria-labelledby": "recent-title" },
        h("h2", { id: "recent-title" }, "Latest matches"),
        matchList(p.recent, p.player_id)));
  }).catch((e) => {
    replace(main, h("header", { class: "home-head" }, h("h1", null, "No such player")),
      h("p", { class: "form-error", role: "alert" }, e.status === 404 ? "No player has that address." : `Could not load the profile: ${e.message}`),
      h("p", null, h("a", { href: "/", "data-route": "" }, "Back to the card room")));
  });
  return { destroy() {} };
}
