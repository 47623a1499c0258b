// A match's replay (`/r/MATCH_ID`): step forward and back through every move, with every
// hand face up once the match is over (never before: a match still being played shows
// what a spectator sees), the cards on the table, the stock and the scores after each
// move. The deals' proofs are checked here too (fairness.js), and a finished match can be
// downloaded for `cardtable verify`.

import { cardFace, cardName } from "./cards.js";
import { h, replace, stylesheet } from "./dom.js";
import { checkShuffle } from "./fairness.js";
import { getJson } from "./api.js";

function mini(card) {
  return h("span", { class: "card mini", dataset: { card }, role: "img", "aria-label": cardName(card) },
    cardFace(card, { compact: true }));
}

function cards(list) {
  return h("span", { class: "replay-cards" }, list.length ? list.map(mini) : h("span", { class: "hint" }, "none"));
}

async function fairness(shuffles) {
  if (!shuffles.length) return null;
  if (!globalThis.crypto?.subtle) return { state: "unchecked", text: "This browser checks deals only over HTTPS." };
  const results = await Promise.all(shuffles.map((s) => checkShuffle(s, undefined)));
  const bad = results.find((r) => r !== "ok");
  return bad ? { state: "bad", text: `Deal check FAILED: ${bad}.` }
    : { state: "ok", text: `Fair deals: all ${shuffles.length} shuffles and draws match their commitments.` };
}

export function renderReplay(root, matchId) {
  stylesheet("/static/games/board.css");
  const main = h("main", { class: "home replay" }, h("p", { class: "hint" }, "Loading…"));
  root.append(main);
  let onKey = null;
  getJson(`/api/matches/${encodeURIComponent(matchId)}/replay`).then((r) => {
    document.title = `${r.title} replay · cardtable`;
    let at = r.over ? 0 : r.steps.length - 1;
    const stepEl = h("section", { class: "panel replay-step", id: "replay-step", "aria-live": "polite" });
    const slider = h("input", { type: "range", id: "replay-slider", min: 0, max: r.steps.length - 1, value: at,
      "aria-label": "Move" });
    const verdict = h("p", { class: "fair-deal", id: "replay-fair", hidden: true });
    const go = (n) => { at = Math.max(0, Math.min(r.steps.length - 1, n)); slider.value = String(at); draw(); };
    slider.addEventListener("input", () => go(Number(slider.value)));
    const button = (id, text, label, n) => h("button", { type: "button", id, "aria-label": label, onclick: () => go(n()) }, text);

    function draw() {
      const step = r.steps[at];
      const who = step.seat === null || step.seat === undefined ? null : r.seats[step.seat];
      replace(stepEl,
        h("p", { class: "replay-move", id: "replay-move" },
          h("strong", null, `Move ${step.n} of ${r.steps.length - 1}`), " ",
          step.action ? `${who}: ${step.action.replace(/_/g, " ")}` : "The deal"),
        h("div", { class: "replay-hands" }, r.seats.map((name, seat) => h("div", { class: ["replay-seat", step.to_act === seat ? "to-act" : null], dataset: { seat: String(seat) } },
          h("h3", null, name, Array.isArray(step.scores) && step.scores.length === r.seats.length
            ? h("span", { class: "hint" }, ` · ${step.scores[seat]} points`) : null),
          Array.isArray(step.hands[seat]) ? cards(step.hands[seat])
            : h("span", { class: "hint" }, `${step.hands[seat] ?? "?"} cards, face down`)))),
        h("p", null, h("strong", null, "On the table: "), cards(step.table)),
        h("p", { class: "hint" }, `Stock: ${step.stock} · ${step.phase.replace(/_/g, " ")}`,
          Array.isArray(step.scores) && step.scores.length !== r.seats.length ? ` · scores ${step.scores.join(" – ")}` : ""));
    }

    onKey = (event) => {
      if (event.target.closest?.("input, textarea, select")) return;
      if (event.key === "ArrowRight") go(at + 1);
      else if (event.key === "ArrowLeft") go(at - 1);
      else return;
      event.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    replace(main,
      h("header", { class: "home-head profile-head" },
        h("a", { href: "/", "data-route": "", class: "back-link" }, "← cardtable"),
        h("h1", null, `${r.title}: ${r.seats.join(" v ")}`),
        h("p", { class: "tagline", id: "replay-state" }, r.over
          ? (r.ended ? "Ended by agreement. Every hand is face up." : "The match is over. Every hand is face up.")
          : "This match is still being played: you see what a spectator sees."),
        verdict),
      h("nav", { class: "replay-controls", "aria-label": "Replay" },
        button("replay-first", "First", "First move", () => 0),
        button("replay-back", "◀ Back", "Back one move", () => at - 1),
        slider,
        button("replay-forward", "Forward ▶", "Forward one move", () => at + 1),
        button("replay-last", "Last", "Last move", () => r.steps.length - 1),
        r.over ? h("a", { href: `/api/matches/${encodeURIComponent(r.match_id)}/file`, download: "", id: "replay-download", class: "back-link" }, "Download") : null),
      stepEl);
    draw();
    fairness(r.shuffles).then((v) => {
      if (!v) return;
      verdict.hidden = false;
      verdict.dataset.fair = v.state;
      verdict.classList.add(`fair-${v.state}`);
      verdict.textContent = `${{ ok: "✓", bad: "✗", unchecked: "?" }[v.state]} ${v.text}`;
    });
  }).catch((e) => {
    replace(main, h("h1", null, "No such replay"), h("p", { class: "form-error", role: "alert" }, e.message));
  });
  return { destroy() { if (onKey) document.removeEventListener("keydown", onKey); } };
}
