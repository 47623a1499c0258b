// Turning what the player chose into a move, or into a message.
// A card dropped on a table meld is matched against the legal lay-offs and joker
// exchanges, a discard against the legal discards; when nothing matches, the
// player is told why in plain words and nothing is sent.
//
// Melds are different: view.legal lists only a bounded menu of them (first melds of
// up to three groups, melds of up to two jokers), and the server judges a submitted
// meld by its content. So a selection or the staged groups go as the listed action
// when one matches, and otherwise as they are ({type: "meld", cards} or, for a first
// meld, {type: "meld", melds}); a refusal's reason (the server's error frame) is
// shown on the message line and the cards go back to where they were staged.

import { findLegal, isSeat, legalOf } from "../board.js";
import { cardsKey, groupsKey, keyed, shortOf } from "../rummyfamily/cards.js";

/** The legal meld of exactly `cards` (a later meld: `cards`, not `melds`). */
export const meldAction = (view, cards) =>
  findLegal(view, "meld", (a) => !(a.melds || []).length && cardsKey(a.cards) === cardsKey(cards));

/** The legal first meld made of exactly these groups, as listed in legal. */
export const openingAction = (view, groups) =>
  findLegal(view, "meld", (a) => (a.melds || []).length > 0 && groupsKey(a.melds) === groupsKey(groups));

export const placeAction = (view, type, code, id) => findLegal(view, type, (a) => a.card === code && a.meld === id);

export const candidateOf = (view, cards) =>
  (view?.candidates || []).find((c) => cardsKey(c.cards) === cardsKey(cards)) || null;

/** The fewest cards of any meld: fewer is no meld in any of these games (said at once, not sent). */
const MELD_SIZE = 3;

const capital = (text) => String(text).charAt(0).toUpperCase() + String(text).slice(1);

export class Moves {
  /**
   * @param {object} board  {ui, hand, ctx, draw(), playing(), need(), say(text): the message line,
   *                        version(): the version of the view shown}
   */
  constructor(board) {
    this.b = board;
    this.tried = null; // {keep: [selected, staged], version}: a meld sent and not answered yet
  }

  get ui() { return this.b.ui; }
  get view() { return this.b.ui.view; }
  codes(keys) { return keys.map((k) => this.b.hand.codeOf(k)); }

  /** The staged groups; a group the candidates do not list (three jokers, say) has the
   *  value null: only the server counts it, when the groups are sent. */
  stagedGroups() {
    return this.ui.staged.map((keys) => {
      const codes = this.codes(keys);
      return { keys, codes, value: candidateOf(this.view, codes)?.value ?? null };
    });
  }

  /** The points of the staged groups whose value is known. */
  stagedTotal() {
    return this.stagedGroups().reduce((t, g) => t + (g.value ?? 0), 0);
  }

  /** Whether a staged group's value is unknown here (the total is then "at least"). */
  stagedUnsure() {
    return this.stagedGroups().some((g) => g.value === null);
  }

  say(text) {
    this.b.say(text);
    if (text) this.b.ctx.toast(text, "info");
  }

  /** Send an action; the selection and staging go with it. A meld's are kept (`tried`) until
   *  the server answers: a refusal puts them back (refused). */
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
    this.tried = action.type === "meld" ? { keep, version: this.b.version() } : null;
    this.say("");
    return true;
  }

  /** A newer view: the meld sent was taken (or the table moved on); nothing to put back. */
  answered(version) {
    if (this.tried && version > this.tried.version) this.tried = null;
  }

  /** The server's error frame: a meld it refused gets its reason, and its cards go back to
   *  the selection or the staged groups they came from. True when shown here. */
  refused(d) {
    const tried = this.tried;
    this.tried = null;
    if (!tried || d?.code !== "illegal") return false;
    [this.ui.selected, this.ui.staged] = tried.keep;
    this.say(`${capital(d.message || "that meld cannot be laid now")}. Nothing was played.`);
    this.b.draw();
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

  /** Too few cards for any meld: said at once. (Anything longer the server judges.) */
  tooFew(cards) {
    return cards.length < MELD_SIZE
      ? `A meld needs at least ${MELD_SIZE} cards: a set of one rank, or a run in one suit. Nothing was played.` : null;
  }

  /** Put the selection into the first-meld staging area: a group of 3 or more cards. One the
   *  candidates list shows its value; another (three jokers, or no meld at all) shows "?" and
   *  the server judges it when the groups are sent. */
  stage() {
    const ui = this.ui;
    if (!this.b.playing() || this.b.need() <= 0) return false;
    const cards = this.codes(ui.selected);
    if (!cards.length) {
      this.say("Select the cards of a meld first, then add them as a group.");
      return false;
    }
    const few = this.tooFew(cards);
    if (few) {
      this.say(few);
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
      if (total < n && !this.stagedUnsure()) return this.say(`Your first meld is ${total} of ${n} points: add another group.`);
      const groups = this.stagedGroups().map((g) => g.codes);
      this.send(openingAction(this.view, groups) || { type: "meld", melds: groups });
      return;
    }
    const cards = this.codes(ui.selected);
    if (!cards.length) return this.say("Select the cards of a meld first (click them, or Enter/Space).");
    const few = this.tooFew(cards);
    if (few) return this.say(few);
    this.send(meldAction(this.view, cards) || { type: "meld", cards });
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
