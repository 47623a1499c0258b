// Provably fair deals, checked by the browser (docs/fairness.md).
//
// Every view frame carries the current hand's shuffles: a SHA-256 commitment each while
// the hand is played, the order and salt too once it is over. This module remembers each
// commitment the first time it sees it (in sessionStorage, so a reload keeps them), and
// when the hand is revealed recomputes SHA-256(salt + ":" + order) and compares it with
// the commitment it saw before the cards, not with the one that came with the reveal. The
// score panels show the result (ctx.fairness.line()).

import { h } from "./dom.js";

const KEEP = 60; // commitments remembered per table (a few hands of every game)
const CHECK_TEXT = { ok: "✓ matches the commitment" };
/** A shuffled deck ("7h Ts ..."), not a number drawn (who deals first). */
const isDeck = (shuffle) => /\s/.test(shuffle.order || "");

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether this page can hash (WebCrypto needs HTTPS or this computer). */
const canHash = () => Boolean(globalThis.crypto?.subtle);

/**
 * One proof: "ok", or why it fails. `seen` is the commitment this browser saw before the
 * reveal (undefined when it joined after the hand ended).
 */
export async function checkShuffle(shuffle, seen) {
  if (seen !== undefined && seen !== shuffle.commit) return "the commitment changed after the deal";
  if (!/^[0-9a-f]{64}$/.test(shuffle.salt || "")) return "the salt is not 256 bits";
  const hash = await sha256Hex(`${shuffle.salt}:${shuffle.order}`);
  return hash === shuffle.commit ? "ok" : "the revealed order does not match its commitment";
}

export function createFairness(tableId, redraw, matchUrl) {
  const storeKey = `cardtable.fair.${tableId}`;
  let seen = new Map();
  try {
    seen = new Map(JSON.parse(sessionStorage.getItem(storeKey) || "[]"));
  } catch {
    seen = new Map();
  }
  let revealed = null; // the last revealed hand: {shuffles, results: Map id -> "ok" | why}

  function remember(shuffles) {
    let added = false;
    for (const s of shuffles) {
      if (!seen.has(s.id)) {
        seen.set(s.id, s.commit);
        added = true;
      }
    }
    if (!added) return;
    while (seen.size > KEEP) seen.delete(seen.keys().next().value);
    try {
      sessionStorage.setItem(storeKey, JSON.stringify([...seen]));
    } catch {
      // Storage full or off: the commitments stay in memory for this page.
    }
  }

  async function check(shuffles, key) {
    // Commitments first seen only now (this browser came after the deal) prove the order
    // matches what the table shows, not that it was fixed before the cards.
    const late = shuffles.filter((s) => !seen.has(s.id)).length;
    const hand = { shuffles, key, late, results: new Map() };
    revealed = hand;
    if (canHash()) {
      for (const s of shuffles) hand.results.set(s.id, await checkShuffle(s, seen.get(s.id)));
    }
    if (revealed === hand) redraw();
  }

  let matchOver = false;

  /** Every view frame's `fair` (null at a table made before fair deals); `over`: the match
   * is over (its file can be downloaded). */
  function receive(fair, over) {
    matchOver = over;
    if (!fair) return;
    const shuffles = fair.shuffles || [];
    if (!fair.revealed) {
      remember(shuffles);
      return;
    }
    const key = shuffles.map((s) => `${s.id}:${s.commit}:${s.order}:${s.salt}`).join("|");
    if (revealed?.key === key) return;
    check(shuffles, key);
    remember(shuffles);
  }

  function verdict() {
    if (!revealed) return null;
    const results = [...revealed.results.values()];
    if (!canHash()) return { state: "unchecked", text: "This browser checks deals only over HTTPS; the proof is below." };
    if (results.length < revealed.shuffles.length) return { state: "checking", text: "Checking the deal…" };
    const bad = results.find((r) => r !== "ok");
    if (bad) return { state: "bad", text: `Deal check FAILED: ${bad}.` };
    const decks = revealed.shuffles.filter(isDeck).length;
    const what = decks > 1 ? `all ${decks} shuffles` : "the shuffle";
    const draws = revealed.shuffles.length > decks ? " (and every draw)" : "";
    const text = `Fair deal: ${what}${draws} of this hand match${decks > 1 || draws ? "" : "es"} the commitments published before the cards.`;
    return { state: "ok", text: revealed.late ? `${text} (You came after the deal: checked against the commitment shown now.)` : text };
  }

  /** The line for a hand's summary: the verdict, and the proof to check by hand. */
  function line() {
    const v = verdict();
    if (!v) return null;
    const mark = { ok: "✓", bad: "✗", checking: "…", unchecked: "?" }[v.state];
    return h("details", { class: ["fair-deal", `fair-${v.state}`], id: "fair-deal", dataset: { fair: v.state } },
      h("summary", null, h("span", { class: "fair-mark", "aria-hidden": "true" }, mark), " ", v.text),
      h("p", { class: "fair-how" }, "Check it yourself: printf '%s:%s' SALT ORDER | sha256sum gives the commitment.",
        matchOver && matchUrl ? [" ", h("a", { href: matchUrl, download: "", id: "download-match" }, "Download the match"),
          " and check every deal and move with cardtable verify FILE."] : null),
      revealed.shuffles.map((s) => h("dl", { class: "fair-proof", dataset: { shuffle: s.id } },
        h("dt", null, "Commitment"), h("dd", null, s.commit),
        h("dt", null, "Salt"), h("dd", null, s.salt),
        h("dt", null, isDeck(s) ? "Deck, top first" : "Number drawn"), h("dd", { class: "fair-order" }, s.order),
        h("dt", null, "Check"), h("dd", { class: "fair-check" }, CHECK_TEXT[revealed.results.get(s.id)] ?? revealed.results.get(s.id) ?? "…"))));
  }

  return { receive, line, verdict };
}
