// The middle of a table-meld board: the other players around the table, the
// stock and the discard pile (fanned for Rummy 500, where a deeper card can be
// taken), the melds on the table grouped by who laid them, and the panel
// where a first meld is staged group by group. Pure drawing: the board passes
// in the legal actions and what to do on a click.

import { h } from "../../dom.js";
import { isSeat } from "../board.js";
import { cardBack, isJoker, MELD_DECK, plural, shortOf, tableName } from "../rummyfamily/cards.js";

const { face, miniCard, nameOf } = MELD_DECK;
const PILE_PEEK = 4; // discards shown under the top one when only the top can be taken

/** Seats in table order from `first`: play goes to the left, so the next seat sits on your left. */
export function seatOrder(players, first) {
  return Array.from({ length: players }, (_, i) => (first + i) % players);
}

// -- the others around the table ---------------------------------------------------------------

export function seatBox(view, seat, names, ctx, over) {
  const info = ctx.seatInfo(seat);
  const hand = view.hands?.[seat] || { count: 0, picked: [] };
  const name = names.seat(seat);
  const toAct = view.to_act === seat && !over;
  const free = info && info.kind === "human" && !info.taken;
  const away = info && info.kind === "human" && info.taken && !info.connected;
  const picked = hand.cards ? [] : hand.picked || [];
  const gone = (view.eliminated || []).includes(seat);
  const onTable = names.onTable?.(view, seat);
  const label = [
    `${name}${info?.kind === "bot" ? ", computer" : ""}`, free ? "waiting for a friend to sit down" : null,
    away ? "disconnected" : null, plural(hand.count, "card"), view.dealer === seat ? "dealer" : null,
    names.comeOut && hand.melded ? "has come out" : null, onTable ? `${onTable} points on the table` : null,
    gone ? "out of the match" : null, toAct ? "to play" : null,
    picked.length ? `picked up ${picked.map(nameOf).join(", ")}` : null,
  ].filter(Boolean).join(", ");
  const cards = hand.cards
    ? hand.cards.map((c) => miniCard(c, { size: "small" }))
    : Array.from({ length: Math.min(hand.count, 14) }, () => h("span", { class: "card small back-card" }, cardBack("")));
  return h("div", {
    class: ["rm-seat", toAct && "to-act", free && "free", away && "away", hand.cards && "revealed", gone && "eliminated"],
    dataset: { seat: String(seat) }, role: "group", "aria-label": label,
  },
  h("div", { class: "seat-head", "aria-hidden": "true" },
    h("span", { class: "seat-title" }, name),
    info?.kind === "bot" ? h("span", { class: "bot-tag" }, "bot") : null,
    view.dealer === seat ? h("span", { class: "dealer-chip", title: "Dealer" }, "D") : null,
    h("span", { class: "chip count-chip", dataset: { count: String(hand.count) } },
      String(hand.count), h("span", { class: "word" }, hand.count === 1 ? " card" : " cards")),
    names.comeOut && hand.melded ? h("span", { class: "chip out-chip", title: "Has come out (laid a first meld)" }, "came out") : null,
    onTable ? h("span", { class: "chip table-chip", title: "Points on the table this hand" }, `${onTable} on table`) : null),
  gone ? h("p", { class: "seat-note" }, "Out of the match") : null,
  free ? h("p", { class: "seat-note" }, "Invited — not seated yet") : null,
  away ? h("p", { class: "seat-note" }, "Disconnected") : null,
  h("div", { class: ["seat-cards", hand.cards && "faces"], "aria-hidden": "true" }, cards),
  picked.length ? h("div", { class: "picked", "aria-hidden": "true" }, h("span", { class: "picked-label" }, "Picked up"),
    picked.map((c) => miniCard(c))) : null);
}

// -- stock and discard pile ----------------------------------------------------------------------

/**
 * opts: {stockAction, pickOf(depth) -> legal draw_discard or null, discardTarget: bool,
 *        fan: bool, act(action), discardSelected()}
 */
export function piles(view, opts) {
  const stockAction = opts.stockAction;
  const stock = h("button", {
    class: ["stock", stockAction && "active"], id: "stock", dataset: { pile: "stock" }, disabled: !stockAction,
    "aria-label": `Stock, ${plural(view.stock, "card")}${stockAction ? ": draw a card (S)" : ""}`,
    onclick: () => stockAction && opts.act(stockAction),
  },
  h("span", { class: "stack" }, view.stock ? h("span", { class: "card mid back-card" }, cardBack("")) : h("span", { class: "empty-pile" }, "empty")),
  h("span", { class: "pile-count", id: "stock-count" }, String(view.stock)));
  const pile = view.discard || [];
  const pileEl = opts.fan ? fannedPile(pile, opts) : topPile(pile, opts);
  return h("div", { class: "piles rm-piles" },
    h("div", { class: "pile-slot" }, stock, h("span", { class: "pile-label" }, "Stock")),
    h("div", { class: ["pile-slot", opts.fan && "fan-slot"] }, pileEl,
      opts.fan ? h("span", { class: "pile-label pick-note", id: "pick-note", "aria-live": "polite" },
        pile.length > 1 ? "A deeper card takes all above it" : "Discards") : h("span", { class: "pile-label" }, "Discards")));
}

function topPile(pile, opts) {
  const top = pile[pile.length - 1];
  const take = opts.pickOf(1);
  return h("button", {
    class: ["pile", take && "active", opts.discardTarget && "drop-target"], id: "pile", dataset: { drop: "pile", pile: "discard" },
    disabled: !take && !opts.discardTarget,
    "aria-label": top ? `Discard pile, top card ${nameOf(top)}, ${plural(pile.length, "card")}` +
      (take ? ": take it (P)" : opts.discardTarget ? ": discard the selected card here" : "") : "Discard pile, empty",
    onclick: () => { if (take) opts.act(take); else if (opts.discardTarget) opts.discardSelected(); },
  },
  h("span", { class: "stack fanned" }, pile.slice(-PILE_PEEK - 1).map((c, i, list) =>
    h("span", { class: ["card", "mid", i === list.length - 1 && "top"], dataset: { card: c } }, face(c)))),
  pile.length ? null : h("span", { class: "empty-pile" }, "empty"));
}

/** Rummy 500: every discard visible; a card takes itself and all above it, and must be used. */
function fannedPile(pile, opts) {
  const el = h("div", {
    class: ["pile", "rm-fan", opts.discardTarget && "drop-target"], id: "pile",
    dataset: { drop: "pile", pile: "discard", count: String(pile.length) },
    role: "group", "aria-label": `Discard pile, ${plural(pile.length, "card")}, top card last`,
    onclick: (e) => { if (opts.discardTarget && !e.target.closest(".pile-card:enabled")) opts.discardSelected(); },
  });
  const mark = (depth) => {
    const cards = [...el.querySelectorAll(".pile-card")];
    cards.forEach((c) => {
      const d = Number(c.dataset.depth);
      c.classList.toggle("in-pick", depth > 0 && d <= depth);
      c.classList.toggle("deepest", depth > 1 && d === depth);
    });
    const note = document.getElementById("pick-note");
    if (note) {
      note.textContent = depth > 1 ? `Takes ${depth} cards: you must use the ${shortOf(pile[pile.length - depth])} this turn`
        : pile.length > 1 ? "A deeper card takes all above it" : "Discards";
    }
  };
  pile.forEach((code, i) => {
    const depth = pile.length - i;
    const take = opts.pickOf(depth);
    const f = face(code);
    f.setAttribute("aria-hidden", "true");
    const what = depth === 1 ? `take the ${nameOf(code)}`
      : `take the ${nameOf(code)} and the ${plural(depth - 1, "card")} above it; you must use the ${nameOf(code)} this turn`;
    el.append(h("button", {
      class: ["card", "mid", "pile-card", take && "can-take", depth === 1 && "top"], dataset: { card: code, depth: String(depth) },
      disabled: !take, tabindex: take ? "0" : "-1",
      "aria-label": take ? `${nameOf(code)}: ${what}` : `${nameOf(code)}, ${depth === 1 ? "top card" : `${depth - 1} above it`}`,
      onmouseenter: () => take && mark(depth), onmouseleave: () => mark(0),
      onfocus: () => take && mark(depth), onblur: () => mark(0),
      onclick: () => take && opts.act(take),
    }, f));
  });
  if (!pile.length) el.append(h("span", { class: "empty-pile" }, "empty"));
  return el;
}

// -- the melds on the table ------------------------------------------------------------------------

/**
 * opts: {order: seats, me: my seat (or null), names, target(meldId) -> "lay_off"|"swap"|null for the
 *        selected card, click(meldId, onJoker), dropMeld: a meld can be laid now, meldSelected(): tapping
 *        the table lays the selection, credit: bool (Rummy 500: lay-offs belong to who laid them)}
 */
export function tableMelds(view, opts) {
  const melds = view.table || [];
  const groups = opts.order.map((seat) => ({ seat, melds: melds.filter((m) => m.owner === seat) }))
    .filter((g) => g.melds.length);
  const empty = !melds.length;
  return h("section", {
    class: ["rm-table", empty && "empty", opts.dropMeld && "drop-target"], id: "table", dataset: { drop: "table" },
    "aria-label": `Melds on the table${empty ? ": none yet" : ""}`,
    // A tap on the felt (not on a meld) lays the selected cards down: the phone's "drop here".
    onclick: (e) => { if (opts.dropMeld && !e.target.closest?.(".table-meld")) opts.meldSelected(); },
  },
  empty ? h("p", { class: "hint table-empty" }, opts.dropMeld ? "No melds yet — select cards, then tap here or press Meld."
    : "No melds on the table yet.") : null,
  groups.map((g) => h("div", {
    class: "rm-owner", dataset: { owner: String(g.seat), meldsSeat: String(g.seat) }, role: "group",
    "aria-label": g.seat === opts.me ? "Your melds" : `${opts.names.seat(g.seat)}'s melds`,
  },
  h("h3", { class: "owner-name" }, opts.names.seat(g.seat)),
  h("div", { class: "rm-melds" }, g.melds.map((m) => meldEl(m, opts))))));
}

function meldEl(meld, opts) {
  const target = opts.target(meld.id);
  const others = [];
  const cards = meld.cards.map((code, i) => {
    const by = meld.laid_by?.[i];
    const foreign = isSeat(by) && by !== meld.owner;
    const stands = meld.stands_for?.[i];
    if (foreign) others.push(`${tableName(code, stands)} laid off by ${opts.names.seat(by)}`);
    const joker = isJoker(code);
    return h("span", {
      class: ["card", "mini", foreign && "laid-off", joker && "table-joker"],
      dataset: joker ? { card: code, stands: stands || "", drop: "joker", meld: String(meld.id) } : { card: code },
      title: foreign ? `laid off by ${opts.names.seat(by)}` : null,
    }, face(code, { compact: true }),
    joker && stands ? h("span", { class: "stands", "aria-hidden": "true" }, shortOf(stands)) : null,
    foreign && opts.credit ? h("span", { class: "credit", "aria-hidden": "true" }, initial(opts.names.seat(by))) : null);
  });
  const described = meld.cards.map((c, i) => tableName(c, meld.stands_for?.[i])).join(", ");
  const hint = target === "lay_off" ? ": lay off the selected card here" : target === "swap" ? ": exchange the joker for the selected card" : "";
  return h("button", {
    class: ["table-meld", `kind-${meld.kind}`, target && "target", target === "swap" && "swap-target"],
    id: `meld-${meld.id}`, dataset: { meld: String(meld.id), drop: "meld", owner: String(meld.owner) },
    "aria-label": `${meld.kind === "run" ? "Run" : "Set"} ${meld.id}: ${described}` +
      (others.length ? `; ${others.join("; ")}` : "") + hint,
    onclick: (e) => opts.click(meld.id, Boolean(e.target.closest?.(".table-joker"))),
  }, cards);
}

const initial = (name) => String(name || "?").trim().charAt(0).toUpperCase();

// -- staging a first meld, and the melds in hand -----------------------------------------------------

/**
 * opts: {need, staged: [{codes, value}], total, unsure, candidates: [{cards, value, legal, used}],
 *        showValues, pick(cards), unstage(i), clear()}
 * A staged group's value is null when view.candidates do not list it (more jokers than a
 * listed meld holds, or no meld): it shows "?", and the total (of the others) "+ ?".
 */
export function meldPanel(opts) {
  const parts = [];
  if (opts.need > 0) {
    const reached = opts.total >= opts.need;
    const total = opts.unsure ? `${opts.total} + ?` : String(opts.total);
    const hint = opts.unsure ? " — press Meld: the table counts the groups marked ?"
      : reached ? " — press Meld to lay them down" : opts.staged.length ? " — add another group" : " — stage groups, then press Meld";
    parts.push(h("div", { class: "stage-head" },
      h("strong", {
        class: ["first-total", reached && !opts.unsure && "reached", opts.unsure && "unsure"], id: "first-meld-total",
        dataset: { total: String(opts.total), need: String(opts.need), unsure: String(Boolean(opts.unsure)) },
      }, `First meld: ${total} of ${opts.need} points`),
      h("span", { class: "hint" }, hint),
      opts.staged.length ? h("button", { class: "small", id: "clear-stage", onclick: opts.clear }, "Clear") : null),
    opts.staged.length ? h("ol", { class: "staged-groups", id: "staged-groups", "aria-label": "Staged groups" },
      opts.staged.map((g, i) => h("li", { class: `stage-${i % 4}`, dataset: { value: g.value === null ? "?" : String(g.value) } },
        h("span", { class: "group-cards" }, g.codes.map((c) => miniCard(c))),
        g.value === null ? h("span", { class: "group-value unsure", title: "Counted by the table when you press Meld" }, "?")
          : h("span", { class: "group-value" }, `${g.value}`),
        h("button", { class: "small", "aria-label": `Take back group ${i + 1}`, onclick: () => opts.unstage(i) }, "×")))) : null);
  }
  // The legal ones first; the list stays short (a long hand can hold many melds).
  const shown = opts.candidates.filter((c) => c.legal || opts.need > 0)
    .sort((a, b) => Number(a.used) - Number(b.used) || b.value - a.value).slice(0, 16);
  if (shown.length) {
    parts.push(h("div", { class: "candidates", role: "group", "aria-label": "Melds you can make" },
      h("span", { class: "hint" }, "Melds in your hand:"),
      shown.map((c) => h("button", {
        class: ["small", "candidate", c.legal && "legal"], dataset: { cards: c.cards.join(" "), value: String(c.value) },
        disabled: c.used, "aria-label": `Select ${c.cards.map(nameOf).join(", ")}${opts.showValues ? `, worth ${c.value}` : ""}`,
        onclick: () => opts.pick(c.cards),
      }, c.cards.map(shortOf).join(" "), opts.showValues ? h("span", { class: "value" }, ` ${c.value}`) : null))));
  }
  return parts.length ? h("section", { class: "rm-stage", id: "stage-panel", "aria-label": "Melding" }, parts) : null;
}
