// The player's grouping of his Indian Rummy hand, kept in the browser only.
//
// It starts from the engine's arrangement (view.me.groups and me.loose) and
// follows it ("auto") until the player regroups by drag or with the Group /
// Ungroup buttons; from then on his groups are kept in localStorage per table
// and deal, and re-validated against the hand on every view: a card no longer
// held is dropped, a new card goes to the "ungrouped" group. Auto-arrange goes
// back to the engine's groups. The engine never sees these groups (it arranges
// the hand itself at a show), and nothing here judges whether a group is valid:
// a group is labelled only when it holds exactly the cards of an engine group.

import { Bag, keyed, sameCards } from "../rummyfamily/cards.js";

const STORE = "cardtable.indian.v1";
const MAX_TABLES = 30;

export const KIND_LABEL = { pure: "Pure sequence", impure: "Sequence", set: "Set" };

function loadAll() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE) || "{}");
    return data && typeof data === "object" && data.tables && typeof data.tables === "object" ? data : { tables: {} };
  } catch {
    return { tables: {} };
  }
}

function saveAll(data) {
  try {
    const codes = Object.keys(data.tables).sort((a, b) => (data.tables[b].at || 0) - (data.tables[a].at || 0));
    for (const old of codes.slice(MAX_TABLES)) delete data.tables[old];
    localStorage.setItem(STORE, JSON.stringify(data));
  } catch {
    // Private mode or a full quota: the grouping just is not remembered.
  }
}

/** A saved grouping: [{cards: [codes], loose: bool}], or null. */
function validSaved(groups) {
  if (!Array.isArray(groups)) return null;
  const ok = groups.every((g) => g && Array.isArray(g.cards) && g.cards.every((c) => typeof c === "string"));
  return ok ? groups.map((g) => ({ cards: [...g.cards], loose: Boolean(g.loose) })) : null;
}

export class Arrangement {
  constructor(code) {
    this.code = code;
    this.dealKey = null;
    this.custom = null; // null: follow the engine ("auto")
    this.groups = []; // the last display: [{kind, label, loose, cards: [{code, key}]}]
  }

  get auto() {
    return this.custom === null;
  }

  /** The groups to show for this view's hand in deal number `deal` (and remember the deal). */
  sync(view, deal) {
    const dealKey = `${deal}:${view.wild?.card ?? ""}`;
    if (dealKey !== this.dealKey) {
      this.dealKey = dealKey;
      const saved = loadAll().tables[this.code];
      this.custom = saved && saved.deal === dealKey ? validSaved(saved.groups) : null;
    }
    const hand = view.hands?.[view.seat]?.cards || [];
    const engine = (view.me?.groups || []).map((g) => ({ kind: g.kind, cards: g.cards || [] }));
    const raw = this.custom ? this.revalidate(hand) : this.fromEngine(hand, engine);
    // Label a group when it holds exactly an engine group's cards (the engine's reading).
    const shown = raw.map((g) => {
      const match = g.loose ? null : (g.kind ? g : engine.find((e) => sameCards(e.cards, g.cards)));
      const kind = g.loose ? "loose" : match ? match.kind : "free";
      return { loose: g.loose, kind, label: g.loose ? "Ungrouped" : KIND_LABEL[kind] || "Your group", codes: g.cards };
    });
    const keys = keyed(shown.flatMap((g) => g.codes));
    let i = 0;
    this.groups = shown.map((g) => ({
      kind: g.kind, label: g.label, loose: g.loose, cards: g.codes.map(() => keys[i++]),
    }));
    return this.groups;
  }

  /** The engine's groups, then its loose cards; checked against the hand all the same. */
  fromEngine(hand, engine) {
    const bag = new Bag(hand);
    const groups = engine.map((g) => ({ kind: g.kind, cards: g.cards.filter((c) => bag.take(c)), loose: false }))
      .filter((g) => g.cards.length);
    groups.push({ kind: null, cards: bag.rest(), loose: true });
    return groups;
  }

  /** The player's groups: cards no longer held dropped, new cards ungrouped. */
  revalidate(hand) {
    const bag = new Bag(hand);
    const groups = this.custom.map((g) => ({ kind: null, cards: g.cards.filter((c) => bag.take(c)), loose: g.loose }))
      .filter((g) => g.cards.length || g.loose);
    let loose = groups.find((g) => g.loose);
    if (!loose) {
      loose = { kind: null, cards: [], loose: true };
      groups.push(loose);
    }
    loose.cards.push(...bag.rest());
    // The ungrouped cards stay last.
    return [...groups.filter((g) => !g.loose), loose];
  }

  save() {
    const data = loadAll();
    if (this.custom) data.tables[this.code] = { deal: this.dealKey, groups: this.custom, at: Date.now() };
    else delete data.tables[this.code];
    saveAll(data);
  }

  /** Back to the engine's groups. */
  autoArrange() {
    this.custom = null;
    this.save();
  }

  /** Where a card key is now: [group index, position] or null. */
  find(key) {
    for (let g = 0; g < this.groups.length; g += 1) {
      const i = this.groups[g].cards.findIndex((c) => c.key === key);
      if (i >= 0) return [g, i];
    }
    return null;
  }

  /**
   * Move cards (by key) into a group: `target` is a group index, "new" (a new
   * group before the ungrouped cards) or "loose"; `index` the place in it
   * (counted without the moved cards; default: the end).
   */
  move(keys, target, index = null) {
    const moving = new Set(keys);
    if (!moving.size) return false;
    const work = this.groups.map((g) => ({
      loose: g.loose, cards: g.cards.filter((c) => !moving.has(c.key)).map((c) => c.code),
      id: g,
    }));
    const codes = this.groups.flatMap((g) => g.cards).filter((c) => moving.has(c.key)).map((c) => c.code);
    if (!codes.length) return false;
    let dest;
    if (target === "new") {
      dest = { loose: false, cards: [] };
      const at = work.findIndex((g) => g.loose);
      work.splice(at < 0 ? work.length : at, 0, dest);
    } else if (target === "loose") {
      dest = work.find((g) => g.loose);
    } else {
      dest = work[target];
    }
    if (!dest) return false;
    const at = index === null || index === undefined ? dest.cards.length : Math.max(0, Math.min(index, dest.cards.length));
    dest.cards.splice(at, 0, ...codes);
    this.custom = work.filter((g) => g.cards.length || g.loose).map((g) => ({ cards: g.cards, loose: g.loose }));
    if (!this.custom.some((g) => g.loose)) this.custom.push({ cards: [], loose: true });
    this.save();
    return true;
  }

  /** Move a card one place left or right, into the next group at a group's edge. */
  step(key, delta) {
    const at = this.find(key);
    if (!at) return false;
    const [g, i] = at;
    const size = this.groups[g].cards.length;
    if (i + delta >= 0 && i + delta < size) return this.move([key], g, i + delta);
    const next = g + delta;
    if (next < 0 || next >= this.groups.length) return false;
    return this.move([key], next, delta > 0 ? 0 : this.groups[next].cards.length);
  }

  /**
   * The card `key` leaves the hand (it is being discarded): out of its group now. Two
   * decks deal twin cards; matched by code alone, the twin left in the hand would take
   * the discarded one's place in its group.
   */
  release(key) {
    if (!this.custom || !this.find(key)) return;
    this.custom = this.groups
      .map((g) => ({ loose: g.loose, cards: g.cards.filter((c) => c.key !== key).map((c) => c.code) }))
      .filter((g) => g.cards.length || g.loose);
    this.save();
  }

  /** All the cards of group g back to the ungrouped ones. */
  ungroupGroup(g) {
    const group = this.groups[g];
    if (!group || group.loose) return false;
    return this.move(group.cards.map((c) => c.key), "loose");
  }
}
