// Sound effects, synthesised with Web Audio (nothing to download): a deal, a card
// played, your turn, the turn clock running low, a match won or lost.
//
// Browsers let a page make sound only after the player has touched it, so the
// AudioContext is created on the first click, tap or key press (and never while
// muted); before that, sounds are silently skipped. A browser without Web Audio
// just stays quiet. Muting is a preference remembered per browser (state.js).
//
// window.__cardtableSound is a small read-only report for tests and for anyone
// wondering why the table is silent: whether the context exists, and the last
// sounds played.

import { svg } from "./dom.js";
import { prefs, setPref } from "./state.js";

const VOLUME = 0.22;
const REPORT_LENGTH = 40;
const report = { context: false, played: [] };
window.__cardtableSound = report;

let audio = null; // the AudioContext, once a gesture allowed it
let master = null;
let noise = null; // a short buffer of white noise: the rustle of a card
let touched = false; // the player has clicked, tapped or pressed a key
const lastAt = new Map(); // name -> time played, so a burst of views makes one sound

export const isMuted = () => Boolean(prefs().muted);

function onGesture() {
  touched = true;
  context();
  if (audio) {
    window.removeEventListener("pointerdown", onGesture, true);
    window.removeEventListener("keydown", onGesture, true);
  }
}
window.addEventListener("pointerdown", onGesture, true);
window.addEventListener("keydown", onGesture, true);

/** The AudioContext, created on demand once the player has touched the page and not muted it. */
function context() {
  if (audio) {
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }
  if (!touched || isMuted()) return null;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  try {
    audio = new Context();
    master = audio.createGain();
    master.gain.value = VOLUME;
    master.connect(audio.destination);
    report.context = true;
  } catch {
    audio = null; // no audio device, or a browser that refuses: stay quiet
  }
  return audio;
}

function tone(at, freq, length, { type = "sine", gain = 0.6, slide = 0 } = {}) {
  const osc = audio.createOscillator();
  const env = audio.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, at + length);
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(gain, at + 0.012);
  env.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(env).connect(master);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function rustle(at, length, { freq = 2400, gain = 0.5 } = {}) {
  if (!noise) {
    noise = audio.createBuffer(1, Math.floor(audio.sampleRate * 0.25), audio.sampleRate);
    const data = noise.getChannelData(0);
    for (let i = 0; i < data.length; i += 1) data[i] = Math.random() * 2 - 1;
  }
  const src = audio.createBufferSource();
  const filter = audio.createBiquadFilter();
  const env = audio.createGain();
  src.buffer = noise;
  filter.type = "bandpass";
  filter.frequency.value = freq;
  filter.Q.value = 0.9;
  env.gain.setValueAtTime(gain, at);
  env.gain.exponentialRampToValueAtTime(0.0001, at + length);
  src.connect(filter).connect(env).connect(master);
  src.start(at);
  src.stop(at + length + 0.02);
}

const SOUNDS = {
  deal(t) {
    for (let i = 0; i < 6; i += 1) rustle(t + i * 0.055, 0.05, { freq: 2600 + (i % 2) * 500, gain: 0.45 });
  },
  play(t) {
    rustle(t, 0.07, { freq: 1800, gain: 0.7 });
    tone(t, 190, 0.08, { gain: 0.25, slide: 0.7 });
  },
  turn(t) {
    tone(t, 660, 0.16, { gain: 0.35 });
    tone(t + 0.12, 880, 0.22, { gain: 0.35 });
  },
  warning(t) {
    tone(t, 440, 0.12, { type: "triangle", gain: 0.5 });
    tone(t + 0.2, 440, 0.12, { type: "triangle", gain: 0.5 });
  },
  win(t) {
    [523, 659, 784, 1047].forEach((f, i) => tone(t + i * 0.11, f, 0.3, { type: "triangle", gain: 0.4 }));
  },
  lose(t) {
    [392, 330, 262].forEach((f, i) => tone(t + i * 0.16, f, 0.34, { type: "triangle", gain: 0.35 }));
  },
};

/** Play a named sound (deal, play, turn, warning, win, lose) if the player may hear it now. */
export function playSound(name) {
  const recipe = SOUNDS[name];
  if (!recipe || isMuted() || !context()) return false;
  const now = performance.now();
  if (now - (lastAt.get(name) ?? -1e9) < 90) return false;
  lastAt.set(name, now);
  try {
    recipe(audio.currentTime + 0.01);
  } catch {
    return false;
  }
  report.played.push(name);
  if (report.played.length > REPORT_LENGTH) report.played.shift();
  return true;
}

export function setMuted(muted) {
  setPref("muted", Boolean(muted));
  if (muted && audio) audio.suspend().catch(() => {});
  else if (!muted) context();
}

/** A speaker, with sound waves or struck out when muted (the name "Mute" never changes). */
function speaker() {
  return svg("svg", { class: "speaker", viewBox: "0 0 24 24", width: "16", height: "16", "aria-hidden": "true" },
    svg("path", { d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor" }),
    svg("path", { class: "waves", d: "M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13", fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round" }),
    svg("path", { class: "cross", d: "M15 9l6 6M21 9l-6 6", fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round" }));
}

/** The mute toggle: a button whose aria-pressed says whether the table is muted. */
export function muteButton(id = "mute") {
  const button = document.createElement("button");
  button.type = "button";
  button.id = id;
  button.className = "small mute-toggle";
  button.title = "Turn the table's sounds off or on (remembered in this browser)";
  button.append(speaker(), "Mute");
  const show = () => button.setAttribute("aria-pressed", String(isMuted()));
  button.addEventListener("click", () => {
    setMuted(!isMuted());
    show();
  });
  show();
  return button;
}
