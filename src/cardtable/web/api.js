// The HTTP half of docs/protocol.md: create, inspect and join tables, and
// quick-join a public one (the live lobby list itself comes over /ws/lobby).

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

/**
 * One JSON request with the server's refusal as the error: every page's fetches go
 * through here. Resolves to the body (null for 204); rejects with an ApiError whose
 * message is the server's detail (status 0 when the server cannot be reached).
 */
export async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "cannot reach the server");
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    // FastAPI validation errors carry a list in detail; show its first message.
    let detail = data.detail;
    if (Array.isArray(detail)) detail = detail.map((d) => d.msg || String(d)).join("; ");
    throw new ApiError(response.status, detail || `${response.status} ${response.statusText}`);
  }
  return data;
}

export const getJson = (path) => call("GET", path);

export const listGames = () => call("GET", "/api/games").then((d) => d.games || []);

/**
 * opponent: "computer" | "friend"; extra: {players, seats} for games played by
 * several counts (seats: "bot" | "human" for seats 1, 2, ...), and `settings`
 * (TableSettings: turn_time, private, spectators, spectator_chat, levels).
 */
export const createTable = (game, options, opponent, name, extra = {}) =>
  call("POST", "/api/tables", { game, options, opponent, name, ...extra });

export const getTable = (code) => call("GET", `/api/tables/${encodeURIComponent(code)}`);

/** seat: a particular free seat (a per-seat invite link), or omitted for the first free one. */
export const joinTable = (code, name, seat = null) =>
  call("POST", `/api/tables/${encodeURIComponent(code)}/join`,
    Number.isInteger(seat) ? { name, seat } : { name });

/**
 * A free seat at the oldest fitting public table; game / players null = any.
 * A 404 ApiError carries the server's "nothing fits" message.
 */
export const quickJoin = (name, game = null, players = null) =>
  call("POST", "/api/lobby/quick-join", { name, game, players });

/** Codes are case-insensitive; the server's alphabet avoids 0/O and 1/I/L. */
export function normalizeCode(text) {
  return String(text || "").trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
}
