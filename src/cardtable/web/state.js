// What the browser remembers between visits, in localStorage: the guest
// name, a seat token per table (so a reload or a lost tab resumes the seat),
// display preferences, the player's own ordering of his hand and the seats
// whose chat he muted at a table.

const KEY = "cardtable.v1";
const MAX_TABLES = 30; // old seats are dropped so storage never grows without bound

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "{}");
    return typeof data === "object" && data ? data : {};
  } catch {
    return {};
  }
}

function save(data) {
  try {
    localStorage.setItem(KEY, JSON.stringify(data));
  } catch {
    // Private mode or a full quota: the game still works, it just forgets.
  }
}

function update(fn) {
  const data = load();
  fn(data);
  save(data);
}

export function guestName() {
  return load().name || "";
}

export function setGuestName(name) {
  update((d) => { d.name = String(name || "").slice(0, 24); });
}

/** {table_id, seat, token} for a table code, or null. */
export function seatFor(code) {
  const seats = load().seats || {};
  return seats[code] || null;
}

export function rememberSeat(code, grant) {
  update((d) => {
    d.seats = d.seats || {};
    d.seats[code] = { table_id: grant.table_id, seat: grant.seat, token: grant.token, at: Date.now() };
    const codes = Object.keys(d.seats).sort((a, b) => d.seats[b].at - d.seats[a].at);
    for (const old of codes.slice(MAX_TABLES)) {
      delete d.seats[old];
      if (d.order) delete d.order[old];
      if (d.muted) delete d.muted[old];
    }
  });
}

export function forgetSeat(code) {
  update((d) => {
    if (d.seats) delete d.seats[code];
  });
}

export function prefs() {
  return { fourColour: false, arrange: "melds", ...(load().prefs || {}) };
}

export function setPref(name, value) {
  update((d) => { d.prefs = { ...(d.prefs || {}), [name]: value }; });
}

/** The player's own card order at a table (client-side only). */
export function handOrder(code) {
  return (load().order || {})[code] || [];
}

export function setHandOrder(code, cards) {
  update((d) => { d.order = { ...(d.order || {}), [code]: cards }; });
}

/** Seats whose chat this browser muted at a table (re-sent to the server after every welcome). */
export function mutedSeats(code) {
  const seats = (load().muted || {})[code];
  return Array.isArray(seats) ? seats.filter((s) => Number.isInteger(s)) : [];
}

export function setMuted(code, seat, muted) {
  update((d) => {
    d.muted = d.muted || {};
    const now = new Set(Array.isArray(d.muted[code]) ? d.muted[code] : []);
    if (muted) now.add(seat);
    else now.delete(seat);
    if (now.size) d.muted[code] = [...now].sort((a, b) => a - b);
    else delete d.muted[code];
    // Mutes of tables we no longer hold a seat at are not kept forever.
    const keep = new Set(Object.keys(d.seats || {}));
    const codes = Object.keys(d.muted);
    if (codes.length > MAX_TABLES) for (const old of codes) if (!keep.has(old) && old !== code) delete d.muted[old];
  });
}
