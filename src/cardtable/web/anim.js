// Cards that move (issue 14): every board is redrawn from scratch on each view,
// so motion is added afterwards, by card identity (FLIP). Before the frame
// redraws, snapshot() records where each card element ([data-card]) is on
// screen; after it, motion.play() pairs the old and new elements by their card
// and lets each paired card glide from its old place to its new one. A card
// that is new on screen flies in from where it most plausibly came from (the
// stock, the seat area of the player who played it, the deck for a deal), and a
// card that left the trick or the discard pile flies, as a clone, to the seat
// area of whoever took it. Only transforms and opacity are animated, on the
// real elements (or on clones that ignore the pointer), and nothing waits for
// an animation: input and the next view are never held up. A new view cancels
// the flights still running and starts from where the cards are seen to be.
//
// A card crossing the table (a draw, a discard, a deal, a trick card) lets the
// pointer through until it lands: flights are drawn above everything, and a
// press on the stock whose release came over a card flying past was a click on
// neither (the browser sends it to their common ancestor), so the tap was lost.
// A card sliding within its own place (a hand making room) keeps the pointer:
// it is still the card under the finger.
//
// prefers-reduced-motion: reduce turns it all off; play() still reports what
// moved, which the frame's sounds use. While anything flies, the board's root
// carries data-moving="true" (tests that measure the cards wait for it to go).

export const MOVE_MS = 240;
export const DEAL_MS = 220;
export const DEAL_STAGGER_MS = 28;
const MAX_FLIGHTS = 80; // more than this at once is a redraw, not a move
const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";
// Cards drawn in these places are copies (score tables, a choice of discards) or not on the felt.
const SKIP = ".side, .chooser, dialog, [hidden], .flight-layer";
const ZONES = "[data-pile], [data-trick-seat], [data-melds-seat], [data-seat]";
const HAND = ".hand-card, .my-hand, [data-drop='hand']";

export function reducedMotion() {
  try {
    return Boolean(window.matchMedia?.("(prefers-reduced-motion: reduce)").matches);
  } catch {
    return false;
  }
}

/** "pile:discard", "trick:2", "melds:1", "seat:3", "hand" or "other": where a card lies. */
function zoneOf(el) {
  const zone = el.closest(ZONES);
  const hand = el.closest(HAND);
  // The nearer of the two wins (a hand inside a seat area is still the hand).
  if (hand && (!zone || zone.contains(hand))) return "hand";
  if (!zone) return "other";
  const d = zone.dataset;
  if (d.pile !== undefined) return `pile:${d.pile}`;
  if (d.trickSeat !== undefined) return `trick:${d.trickSeat}`;
  if (d.meldsSeat !== undefined) return `melds:${d.meldsSeat}`;
  return `seat:${d.seat}`;
}

const seatOfZone = (zone) => {
  const n = Number(zone.split(":")[1]);
  return zone.includes(":") && Number.isInteger(n) ? n : null;
};

/** Page coordinates (so a scroll between two snapshots is not taken for a move). */
function pageRect(el) {
  const r = el.getBoundingClientRect();
  return { left: r.left + window.scrollX, top: r.top + window.scrollY, width: r.width, height: r.height };
}

function visibleRect(el) {
  if (!el) return null;
  const r = pageRect(el);
  return r.width && r.height ? r : null;
}

/** Where every card under `root` is now. */
export function snapshot(root) {
  const cards = [];
  for (const el of root.querySelectorAll("[data-card]")) {
    if (el.closest(SKIP) || el.parentElement?.closest("[data-card]")) continue;
    const rect = visibleRect(el);
    if (!rect) continue;
    cards.push({ el, code: el.dataset.card, key: el.dataset.key || null, zone: zoneOf(el), rect });
  }
  return { cards, width: window.innerWidth, height: window.innerHeight, stock: pileRect(root, "stock") };
}

/** The top card of a pile (or the pile itself): where a card drawn from it starts. */
function pileRect(root, name) {
  const pile = root.querySelector(`[data-pile="${name}"]`);
  if (!pile) return null;
  const cards = pile.querySelectorAll(".card");
  return visibleRect(cards[cards.length - 1]) || visibleRect(pile);
}

/**
 * Pair the cards of two snapshots: the same data-key first (a hand's own names for
 * its cards), then the same card in the same place, then the same card anywhere.
 * Two packs give two cards of a code; pairing within a place first keeps a queen
 * of hearts in the hand from swapping with the one on the pile.
 */
export function pairCards(before, after) {
  const moved = [];
  const left = new Set(before);
  const take = (a, test) => {
    for (const b of left) {
      if (b.code === a.code && test(b)) {
        left.delete(b);
        moved.push([b, a]);
        return true;
      }
    }
    return false;
  };
  const rest = after.filter((a) => !(a.key && take(a, (b) => b.key === a.key)));
  const rest2 = rest.filter((a) => !take(a, (b) => b.zone === a.zone));
  const arrived = rest2.filter((a) => !take(a, () => true));
  return { moved, arrived, vanished: [...left] };
}

export function createMotion(root) {
  let running = []; // the animations of the board's own cards started by the last play()
  let ghosts = []; // the clones' animations: they outlive a redraw (they are not the board's)
  let layer = null; // holds the clones of cards that left the table
  let live = 0; // animations not yet over: root[data-moving] while any is
  // The window's size at the last play(): the first redraw after a resize re-fits the
  // board to the new size, which is not a move.
  let size = `${window.innerWidth}x${window.innerHeight}`;

  /**
   * Where the cards are seen now (mid-flight included), then stop their flights: the
   * redraw replaces them, and play() goes on from where they were seen.
   */
  function before() {
    const shot = snapshot(root);
    for (const a of running) a.cancel();
    running = [];
    return shot;
  }

  /** Everything off (the board goes away). */
  function stop() {
    for (const a of [...running, ...ghosts]) a.cancel();
    running = [];
    ghosts = [];
    layer?.remove();
    layer = null;
  }

  function track(animation) {
    live += 1;
    root.dataset.moving = "true";
    let over = false;
    const done = () => {
      if (over) return;
      over = true;
      live -= 1;
      if (!live) delete root.dataset.moving;
    };
    animation.addEventListener("finish", done);
    animation.addEventListener("cancel", done);
    return animation;
  }

  /** A seat's place on the table: its area on the board, my hand, or its chip in the top bar. */
  function seatRect(seat, mySeat) {
    if (seat === null || seat === undefined) return null;
    for (const el of root.querySelectorAll(`[data-seat="${seat}"]`)) {
      if (el.matches("[data-card], [data-trick-seat], td, th, tr, li") || el.closest(`${SKIP}, [data-trick-seat]`)) continue;
      const r = visibleRect(el);
      if (r) return r;
    }
    if (seat === mySeat) {
      const hand = visibleRect(root.querySelector(".my-hand, [data-drop='hand']"));
      if (hand) return hand;
    }
    return visibleRect(document.querySelector(`.seat-chip[data-seat="${seat}"]`));
  }

  /**
   * After the redraw: animate what changed since `shot`. info: {deal (a new hand is on
   * the table), actor (the seat that moved since), winner (of a trick just collected),
   * dealer, mySeat}. Returns {moved, arrived, vanished, changedPlace}: what the sounds need.
   */
  function play(shot, info = {}) {
    const now = snapshot(root);
    const found = pairCards(shot ? shot.cards : [], now.cards);
    found.changedPlace = found.moved.some(([b, a]) => b.zone !== a.zone);
    const resized = size !== `${now.width}x${now.height}`;
    size = `${now.width}x${now.height}`;
    if (!shot || resized || shot.width !== now.width || shot.height !== now.height) return found;
    if (reducedMotion() || typeof Element.prototype.animate !== "function") return found;
    const flights = [];
    if (!info.deal) {
      for (const [b, a] of found.moved) {
        flights.push(() => fly(a.el, b.rect, a.rect, { id: "card-move", crossing: b.zone !== a.zone }));
      }
      for (const b of found.vanished) {
        const to = leaveTo(b, info);
        if (to) flights.push(() => flyAway(b, to));
      }
    }
    let dealt = 0;
    // A deal gives the players their hands first, then turns up the card on the felt.
    const order = info.deal ? [...found.arrived].sort((x, y) => (y.zone === "hand") - (x.zone === "hand")) : found.arrived;
    for (const a of order) {
      const from = info.deal ? dealFrom(now, shot, info) : arriveFrom(a, now, shot, info);
      if (!from) continue;
      const delay = info.deal ? Math.min(dealt++, 16) * DEAL_STAGGER_MS : 0;
      flights.push(() => fly(a.el, cardSized(from, a.rect), a.rect, {
        id: info.deal ? "card-deal" : "card-in", delay, ms: info.deal ? DEAL_MS : MOVE_MS, fade: info.deal ? 0 : 0.35,
        crossing: true,
      }));
    }
    if (flights.length > MAX_FLIGHTS) return found;
    for (const start of flights) start();
    return found;
  }

  /** A card new on screen: from the stock into a hand, from its player's seat onto the felt. */
  function arriveFrom(card, now, shot, info) {
    if (card.zone === "hand") return now.stock || shot.stock;
    if (card.zone.startsWith("trick:") || card.zone.startsWith("melds:")) return seatRect(seatOfZone(card.zone), info.mySeat);
    if (card.zone === "pile:discard") return seatRect(info.actor, info.mySeat);
    // A card shown in a seat's own area (cards it shows, a trick slot marked only with its seat) comes from that seat.
    if (card.zone.startsWith("seat:")) return seatRect(seatOfZone(card.zone), info.mySeat);
    return null;
  }

  function dealFrom(now, shot, info) {
    return now.stock || shot.stock || seatRect(info.dealer, info.mySeat) || centreOf(root);
  }

  /** A card gone from the table: a trick to its winner, a discard to whoever took it. */
  function leaveTo(card, info) {
    if (card.zone.startsWith("trick:")) return seatRect(info.winner ?? info.actor, info.mySeat);
    if (card.zone === "pile:discard") return seatRect(info.actor, info.mySeat);
    return null;
  }

  /**
   * Animate `el` from the box `from` to where it is (`to`); fade: the opacity it starts with;
   * crossing: it comes from another place on the table, and lets the pointer through until it lands.
   */
  function fly(el, from, to, { id, delay = 0, ms = MOVE_MS, fade = null, crossing = false }) {
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    const sx = from.width / to.width;
    const sy = from.height / to.height;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && Math.abs(sx - 1) < 0.02 && Math.abs(sy - 1) < 0.02) return null;
    const base = getComputedStyle(el).transform;
    const end = base && base !== "none" ? base : "none";
    const start = `translate(${round(dx)}px, ${round(dy)}px) scale(${round(sx, 3)}, ${round(sy, 3)})` +
      (end === "none" ? "" : ` ${end}`);
    const frames = [{ transform: start, zIndex: 30, offset: 0 }, { transform: end, zIndex: 30, offset: 1 }];
    if (fade !== null) {
      frames[0].opacity = fade;
      frames[1].opacity = 1;
      frames.splice(1, 0, { opacity: 1, offset: 0.35 }); // visible well before it lands
    }
    const animation = el.animate(frames, { duration: ms, delay, easing: EASE, fill: "backwards" });
    animation.id = id;
    if (crossing) passThrough(el, animation);
    running.push(track(animation));
    return animation;
  }

  /** A clone of a card that left the table flies to `to` and fades there. */
  function flyAway(card, to) {
    if (!layer) {
      layer = document.createElement("div");
      layer.className = "flight-layer";
      layer.setAttribute("aria-hidden", "true");
      layer.inert = true; // copies of cards: nothing in them to focus or press
      root.append(layer);
    }
    const ghost = card.el.cloneNode(true);
    ghost.removeAttribute("id");
    for (const el of ghost.querySelectorAll("[id]")) el.removeAttribute("id");
    const box = layer.getBoundingClientRect();
    const from = card.rect;
    Object.assign(ghost.style, {
      position: "absolute", margin: "0", right: "auto", bottom: "auto", transform: "none",
      left: `${from.left - window.scrollX - box.left}px`, top: `${from.top - window.scrollY - box.top}px`,
      width: `${from.width}px`, height: `${from.height}px`,
    });
    ghost.classList.add("in-flight");
    layer.append(ghost);
    const end = cardSized(to, from, 0.6);
    const dx = end.left + end.width / 2 - (from.left + from.width / 2);
    const dy = end.top + end.height / 2 - (from.top + from.height / 2);
    const animation = ghost.animate([
      { transform: "none", opacity: 1 },
      { transform: `translate(${round(dx)}px, ${round(dy)}px) scale(0.6)`, opacity: 0.15 },
    ], { duration: MOVE_MS + 40, easing: "ease-in", fill: "forwards" });
    animation.id = "card-collect";
    ghosts.push(track(animation));
    const done = () => {
      ghost.remove();
      ghosts = ghosts.filter((a) => a !== animation);
      if (layer && !layer.childElementCount) {
        layer.remove();
        layer = null;
      }
    };
    animation.addEventListener("finish", done);
    animation.addEventListener("cancel", done);
    return animation;
  }

  return { before, play, stop };
}

// The crossing flight each element is in: a card kept across redraws may start its next
// flight before the last one's (queued) cancel event arrives, which must not undo it.
const crossingFlight = new WeakMap();

/** `el` ignores the pointer while `animation` runs (presses go to what lies under it). */
function passThrough(el, animation) {
  crossingFlight.set(el, animation);
  el.style.pointerEvents = "none";
  const back = () => {
    if (crossingFlight.get(el) !== animation) return;
    crossingFlight.delete(el);
    el.style.removeProperty("pointer-events");
  };
  animation.addEventListener("finish", back);
  animation.addEventListener("cancel", back);
}

/** A card-sized box (`card`'s size times `scale`) centred on `place`. */
function cardSized(place, card, scale = 0.85) {
  const width = card.width * scale;
  const height = card.height * scale;
  return {
    left: place.left + place.width / 2 - width / 2, top: place.top + place.height / 2 - height / 2, width, height,
  };
}

function centreOf(el) {
  const r = visibleRect(el);
  return r ? { left: r.left + r.width / 2 - 1, top: r.top + r.height / 3, width: 2, height: 2 } : null;
}

const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
