// Countdowns driven by server deadlines: the turn clock on the seat chip of the
// seat to act and the "reconnecting… 1:45" of a seat held for a lost player.
//
// The server sends absolute deadlines with its own `now`; the local deadline is
// Date.now() + (deadline - now), so the two clocks need not agree. A countdown
// is a <span class="countdown" data-deadline=…> anywhere under the ticker's
// root: the ticker rewrites every such span four times a second, so the spans
// can be thrown away and redrawn freely (the seat chips are).

import { h } from "./dom.js";

const TICK = 250;
export const URGENT_MS = 10_000;

/** A server deadline as a local Date.now() time; null stays null. */
export function localDeadline(deadline, now) {
  if (typeof deadline !== "number") return null;
  const serverNow = typeof now === "number" ? now : deadline;
  return Date.now() + (deadline - serverNow);
}

/** Milliseconds as m:ss (rounded up: "0:01" until it is really over). */
export function formatLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

/** Words for screen readers: "1 minute 5 seconds". */
export function spokenLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  const parts = [];
  if (m) parts.push(`${m} minute${m === 1 ? "" : "s"}`);
  if (s || !m) parts.push(`${s} second${s === 1 ? "" : "s"}`);
  return parts.join(" ");
}

/**
 * A countdown span. `urgent` adds the class "urgent" under 10 s; `prefix` is
 * text before the time ("reconnecting… ").
 */
export function countdown(deadline, { prefix = "", urgent = false, cls = "", id } = {}) {
  const el = h("span", {
    class: ["countdown", cls], id,
    dataset: { deadline: String(Math.round(deadline)), prefix, urgent: urgent ? "1" : "" },
  });
  paint(el, Date.now());
  return el;
}

function paint(el, now) {
  const left = Number(el.dataset.deadline) - now;
  const text = `${el.dataset.prefix || ""}${formatLeft(left)}`;
  if (el.textContent !== text) el.textContent = text;
  el.dataset.left = String(Math.max(0, Math.ceil(left / 1000)));
  if (el.dataset.urgent) el.classList.toggle("urgent", left < URGENT_MS);
  el.classList.toggle("expired", left <= 0);
}

/**
 * Repaint every countdown under `root` every 250 ms; `onTick(now)` runs after
 * each repaint (announcements). Returns stop().
 */
export function startTicker(root, onTick) {
  const timer = setInterval(() => {
    const now = Date.now();
    for (const el of root.querySelectorAll(".countdown[data-deadline]")) paint(el, now);
    onTick?.(now);
  }, TICK);
  return () => clearInterval(timer);
}
