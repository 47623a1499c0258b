// Turning what the player chose into one of view.legal, or into a message.
// A selection of cards is matched against the legal melds, a card dropped on a
// table meld against the legal lay-offs and joker exchanges, staged groups
// against the legal first melds; when nothing matches, the player is told why
// in plain words and nothing is sent (the cards stay where they were).

import { findLegal, isSeat, legalOf } from "./board.js";
import { cardsKey, groupsKey, keyed, shortOf, within } from "./rummy_cards.js";

/** The legal meld of exactly `cards` (a later meld: `cards`, not `melds`). */
export const meldAction = (view, cards) =>
  findLegal(view, "meld", (a) => !(a.melds || []).length && cardsKey(a.cards) === cardsKey(cards));

/** The legal first meld made of exactly these groups, as listed in legal. */
export const openingAction = (view, groups) =>
  findLegal(view, "meld", (a) => (a.melds || []).length > 0 && groupsKey(a.melds) === groupsKey(groups));

export const placeAction = (view, type, code, id) => findLegal(view, type, (a) => a.card === code && a.meld === id);

export const candidateOf = (view, cards) =>
  (view?.candidates || []).find((c) => cardsKey(c.cards) === cardsKey(cards)) || null;

export class Moves {
  /**
   * @param {object} board  {ui, hand, ctx, draw(), playing(), need(), say(text): the message line}
   */
  constructor(board) {
    this.b = board;
  }

  get ui() { return this.b.ui; }
  get view() { return this.b.ui.view; }
  codes(keys) { return keys.map((k) => this.b.hand.codeOf(k)); }

  stagedGroups() {
    return this.ui.staged.map((keys) => {
      const codes = this.codes(keys);
      return { keys, codes, value: candidateOf(this.view, codes)?.value ?? 0 };
    });
  }

  stagedTotal() {
    return this.stagedGroups().reduce((t, g) => t + g.value, 0);
  }

  say(text) {
    this.b.say(text);
    if (text) this.b.ctx.toast(text, "info");
  }

  /** Send a legal action; the selection and staging go with it. */
  send(action) {
    if (!action) return false;
    const ui = this.ui;
    const keep = [ui.selected, ui.staged];
    ui.selected = [];
    ui.staged = [];
    if (!this.b.ctx.act(action)) {
      [ui.selected, ui.staged] = keep;
      return false;
    }
    this.say("");
    return true;
  }

  clickCard(key) {
    const ui = this.ui;
    if (!ui.view || !isSeat(ui.view.seat)) return;
    const group = ui.staged.findIndex((g) => g.includes(key));
    if (group >= 0) {
      ui.selected = [...ui.selected, ...ui.staged[group]]; // back to the selection, to change it
      ui.staged.splice(group, 1);
    } else if (ui.selected.includes(key)) ui.selected = ui.selected.filter((k) => k !== key);
    else ui.selected = [...ui.selected, key];
    this.b.draw();
  }

  /** A "meld in your hand" chip: select exactly those cards (free copies of them). */
  pickCards(cards) {
    const ui = this.ui;
    const staged = new Set(ui.staged.flat());
    const pool = keyed(this.b.hand.order).filter((c) => !staged.has(c.key));
    const chosen = [];
    for (const code of cards) {
      const hit = pool.find((c) => c.code === code && !chosen.includes(c.key));
      if (hit) chosen.push(hit.key);
    }
    ui.selected = chosen;
    this.b.draw();
  }

  explainMeld(cards) {
    const v = this.view;
    const must = v.must_place || [];
    const text = cards.map(shortOf).join(" ");
    if (cards.length < 3) return "A meld needs at least 3 cards: a set of one rank, or a run in one suit. Nothing was played.";
    if (candidateOf(v, cards)) {
      if (must.length && !within(must, cards)) return `First use the ${must.map(shortOf).join(" ")}: your meld must include it.`;
      if (!findLegal(v, "meld")) return "You cannot lay another meld this turn.";
      return `You cannot lay ${text} now. Nothing was played.`;
    }
    return `${text} is not a meld you can lay. Nothing was played.`;
  }

  /** Put the selection into the first-meld staging area (it must be one of view.candidates). */
  stage() {
    const ui = this.ui;
    if (!this.b.playing() || this.b.need() <= 0) return false;
    const cards = this.codes(ui.selected);
    if (!cards.length) {
      this.say("Select the cards of a meld first, then add them as a group.");
      return false;
    }
    if (!candidateOf(this.view, cards)) {
      this.say(this.explainMeld(cards));
      return false;
    }
    ui.staged.push([...ui.selected]);
    ui.selected = [];
    this.say("");
    this.b.draw();
    return true;
  }

  /** Meld the selection; for a first meld with a minimum, the staged groups in one move. */
  meld() {
    const ui = this.ui;
    if (!this.b.playing()) return;
    const n = this.b.need();
    if (n > 0) {
      if (ui.selected.length && !this.stage()) return;
      const total = this.stagedTotal();
      if (!ui.staged.length) return this.say("Select the cards of a meld first (click them, or Enter/Space).");
      if (total < n) return this.say(`Your first meld is ${total} of ${n} points: add another group.`);
      const action = openingAction(this.view, this.stagedGroups().map((g) => g.codes));
      if (action) this.send(action);
      else this.say("Those groups cannot go down together now (too many groups, or no card left to discard). Take one back.");
      return;
    }
    const cards = this.codes(ui.selected);
    if (!cards.length) return this.say("Select the cards of a meld first (click them, or Enter/Space).");
    const action = meldAction(this.view, cards);
    if (action) this.send(action);
    else this.say(this.explainMeld(cards));
  }

  /** Lay a card off on a table meld, or exchange a joker there (the selected card, or one dragged). */
  placeOn(id, onJoker, dragged = null) {
    const ui = this.ui;
    if (!this.b.playing()) return;
    if (!dragged && ui.selected.length !== 1) {
      this.say(ui.selected.length ? "Select just one card to lay off." : "Select a card in your hand first, then choose the meld.");
      return;
    }
    const code = this.b.hand.codeOf(dragged || ui.selected[0]);
    const order = onJoker ? ["swap_joker", "lay_off"] : ["lay_off", "swap_joker"];
    const action = placeAction(this.view, order[0], code, id) || placeAction(this.view, order[1], code, id);
    if (action) this.send(action);
    else this.say(`The ${shortOf(code)} does not go on that meld now. Nothing was played.`);
  }

  layOff() {
    const ui = this.ui;
    if (!this.b.playing()) return;
    if (ui.selected.length !== 1) return this.say("Select one card to lay off.");
    const code = this.b.hand.codeOf(ui.selected[0]);
    const mine = (type) => legalOf(this.view).filter((a) => a.type === type && a.card === code);
    const lays = mine("lay_off");
    const swaps = mine("swap_joker");
    if (lays.length === 1) this.send(lays[0]);
    else if (!lays.length && swaps.length === 1) this.send(swaps[0]);
    else if (lays.length || swaps.length) {
      this.say(`The ${shortOf(code)} can go on more than one meld: click the one you want (highlighted; Tab reaches it, Enter plays there), or drop it on a joker to exchange it.`);
    } else this.say(`The ${shortOf(code)} does not fit any meld on the table now.`);
  }

  discard(dragged = null) {
    const ui = this.ui;
    if (!this.b.playing()) return;
    if (!dragged && ui.selected.length !== 1) return this.say("Select one card to discard.");
    const v = this.view;
    const code = this.b.hand.codeOf(dragged || ui.selected[0]);
    const action = findLegal(v, "discard", (a) => a.card === code);
    if (action) return this.send(action);
    const must = v.must_place || [];
    if (must.length) this.say(`First use the ${must.map(shortOf).join(" ")} on the table; then discard.`);
    else if (code === v.taken) this.say(`You just took the ${shortOf(code)} from the pile: discard another card.`);
    else this.say(`You cannot discard the ${shortOf(code)} now.`);
  }

  /** A hand card dropped outside the hand: on a meld, a joker, the pile or the table. */
  drop(key, target) {
    if (!target || !this.b.playing()) return;
    const kind = target.dataset.drop;
    if (kind === "meld" || kind === "joker") this.placeOn(Number(target.dataset.meld), kind === "joker", key);
    else if (kind === "pile") this.discard(key);
    else if (kind === "table") {
      if (!this.ui.selected.includes(key)) this.ui.selected = [...this.ui.selected, key];
      this.meld();
      this.b.draw();
    }
  }
}
