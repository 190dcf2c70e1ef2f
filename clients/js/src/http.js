// The HTTP side (docs/protocol.md 12): create and list rooms, players and sessions (12.1),
// quick match and invite codes (12.2), and turn an HTTP base URL into the websocket URL and
// back. Uses the global fetch (browsers, Node 18+). A session token is a secret: keep it as
// a password is kept (a file only you may read, the browser's storage). Refusals are
// ClientErrors with the catalogue's code (player/unauthorized, room/not_host, ...).

import { ClientError } from "./errors.js";

/**
 * @typedef {import("./plain.js").PlainMap} PlainMap
 * @typedef {PlainMap & {room: string, game: string, status: string, seats: number}} RoomSummary
 *   a room's summary (GET /api/rooms/{id}); `room` is its id
 */

/**
 * @param {Response} reply an HTTP answer
 * @returns {Promise<any>} its JSON body, or a ClientError with the body's error code
 */
async function json(reply) {
  const text = await reply.text();
  /** @type {any} */
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the status speaks
  }
  if (!reply.ok) {
    const error = body?.error ?? {};
    throw new ClientError(error.code ?? `http/${reply.status}`, error.message ?? (text || reply.statusText), error.field ? { field: error.field } : {});
  }
  return body;
}

/**
 * POST /api/rooms: a new room.
 * @param {string} baseUrl http://host:port
 * @param {string} game "rollie", "roll-player", "roll-builder"
 * @param {number} seats how many seats
 * @param {{options?: PlainMap, room?: PlainMap, idempotencyKey?: string, session?: string | null}} [more] the game's
 *   options, the room's settings ({clock, bots, bot_policy, bot_delay, takeover_after; v2:
 *   visibility, watch, spectator_chat, fill_bots_after, host_grace}), an Idempotency-Key
 *   that makes a retry return the same room, and a session (v2: you are the room's host)
 * @returns {Promise<RoomSummary>} the new room's summary (a private room's has its `invite` code, once)
 */
export async function createRoom(baseUrl, game, seats, { options = {}, room = {}, idempotencyKey, session = null } = {}) {
  /** @type {Record<string, string>} */
  const headers = { "content-type": "application/json", ...auth(session) };
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  const reply = await fetch(`${httpUrl(baseUrl)}/api/rooms`, {
    method: "POST",
    headers,
    body: JSON.stringify({ game, seats, options, room }),
  });
  return json(reply);
}

/**
 * GET /api/rooms: one page of rooms, newest first.
 * @param {string} baseUrl http://host:port
 * @param {{cursor?: number, limit?: number}} [page] where to start, how many (1..500)
 * @returns {Promise<{rooms: RoomSummary[], next: number | null}>} the page and the next cursor
 */
export async function listRooms(baseUrl, { cursor = 0, limit = 100 } = {}) {
  return json(await fetch(`${httpUrl(baseUrl)}/api/rooms?cursor=${cursor}&limit=${limit}`));
}

/**
 * GET /api/rooms/{id}: one room's summary (ClientError room/not_found otherwise, also for a
 * private room you may not see).
 * @param {string} baseUrl http://host:port
 * @param {string} room the room's id
 * @param {{session?: string | null, invite?: string | null}} [who] v2: your session, an invite code
 * @returns {Promise<RoomSummary>} its summary
 */
export async function getRoom(baseUrl, room, { session = null, invite = null } = {}) {
  const query = invite ? `?invite=${encodeURIComponent(invite)}` : "";
  return json(await fetch(`${httpUrl(baseUrl)}/api/rooms/${encodeURIComponent(room)}${query}`, { headers: auth(session) }));
}

// -- players and sessions (v2, docs/protocol.md 12.1) ------------------------------------------

/**
 * @typedef {{id: string, name: string, created_at: number, username: string | null}} Player
 * @typedef {{player: Player, session: string, expires_in: number}} SignedIn a player and a new session
 */

/**
 * @param {string | null | undefined} session a session token
 * @returns {Record<string, string>} its Authorization header (none without one)
 */
function auth(session) {
  return session ? { authorization: `Bearer ${session}` } : {};
}

/**
 * A request with a JSON body (or none) and the session; the answer's JSON (null for 204).
 * @param {string} method GET, POST, PATCH, DELETE
 * @param {string} url the full URL
 * @param {string | null} session the session token, or null
 * @param {PlainMap} [body] the JSON body
 * @returns {Promise<any>} the answer's body
 */
async function call(method, url, session, body) {
  /** @type {Record<string, string>} */
  const headers = { ...auth(session) };
  if (body !== undefined) headers["content-type"] = "application/json";
  const reply = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (reply.status === 204) return null;
  return json(reply);
}

/**
 * POST /api/players: a new guest player and its session.
 * @param {string} baseUrl http://host:port
 * @param {string | null} [name] the display name (1..32; "Guest xxxx" without one)
 * @returns {Promise<SignedIn>} the player and its session
 */
export async function createGuest(baseUrl, name = null) {
  return call("POST", `${httpUrl(baseUrl)}/api/players`, null, name === null ? {} : { name });
}

/**
 * POST /api/sessions: sign in with a username and password (a new session).
 * @param {string} baseUrl http://host:port
 * @param {string} username the username
 * @param {string} password the password
 * @returns {Promise<SignedIn>} the player and the new session
 */
export async function signIn(baseUrl, username, password) {
  return call("POST", `${httpUrl(baseUrl)}/api/sessions`, null, { username, password });
}

/**
 * POST /api/me/credentials: the guest keeps the account with a username and password.
 * @param {string} baseUrl http://host:port
 * @param {string} session the player's session
 * @param {string} username 3-32 of a-z 0-9 . _ -
 * @param {string} password 10-256 characters
 * @returns {Promise<Player>} the player, with its username
 */
export async function register(baseUrl, session, username, password) {
  return (await call("POST", `${httpUrl(baseUrl)}/api/me/credentials`, session, { username, password })).player;
}

/**
 * GET /api/me: the session's player (ClientError player/unauthorized for a dead session).
 * @param {string} baseUrl http://host:port
 * @param {string} session the player's session
 * @returns {Promise<Player>} the player
 */
export async function me(baseUrl, session) {
  return (await call("GET", `${httpUrl(baseUrl)}/api/me`, session)).player;
}

/**
 * PATCH /api/me: a new display name.
 * @param {string} baseUrl http://host:port
 * @param {string} session the player's session
 * @param {string} name 1..32 characters (player/bad_name otherwise)
 * @returns {Promise<Player>} the player
 */
export async function rename(baseUrl, session, name) {
  return (await call("PATCH", `${httpUrl(baseUrl)}/api/me`, session, { name })).player;
}

/**
 * DELETE /api/sessions/current (or every session of the player, `everywhere`): sign out.
 * @param {string} baseUrl http://host:port
 * @param {string} session the player's session
 * @param {{everywhere?: boolean}} [how] every session of the player, not just this one
 * @returns {Promise<void>} done
 */
export async function signOut(baseUrl, session, { everywhere = false } = {}) {
  await call("DELETE", `${httpUrl(baseUrl)}/api/sessions${everywhere ? "" : "/current"}`, session);
}

/**
 * GET /api/me/rooms: "My games", the rooms the player joined, newest first.
 * @param {string} baseUrl http://host:port
 * @param {string} session the player's session
 * @param {{cursor?: number, limit?: number}} [page] where to start, how many (1..50)
 * @returns {Promise<{rooms: {room: string, joined_at: number, summary: RoomSummary | null}[], next: number | null}>} the page
 */
export async function myRooms(baseUrl, session, { cursor = 0, limit = 20 } = {}) {
  return call("GET", `${httpUrl(baseUrl)}/api/me/rooms?cursor=${cursor}&limit=${limit}`, session);
}

// -- tables people share (v2, docs/protocol.md 12.2) -------------------------------------------

/**
 * POST /api/match: a seat held for the player at a game (send a hello with the session to
 * claim it within `hold_seconds`).
 * @param {string} baseUrl http://host:port
 * @param {string} session the player's session
 * @param {string} game the game
 * @param {number} seats the table's size
 * @param {PlainMap} [room] settings for a new room: fill_bots_after, clock, bot_policy, bot_delay, takeover_after
 * @returns {Promise<{room: string, seat: number, hold_seconds: number, summary: RoomSummary}>} the held seat
 */
export async function quickMatch(baseUrl, session, game, seats, room = undefined) {
  return call("POST", `${httpUrl(baseUrl)}/api/match`, session, room === undefined ? { game, seats } : { game, seats, room });
}

/**
 * POST /api/rooms/{id}/invite: the host's new invite code (the old one stops working).
 * @param {string} baseUrl http://host:port
 * @param {string} session the host's session (room/not_host otherwise)
 * @param {string} room the room's id
 * @returns {Promise<string>} the new code
 */
export async function newInvite(baseUrl, session, room) {
  return (await call("POST", `${httpUrl(baseUrl)}/api/rooms/${encodeURIComponent(room)}/invite`, session)).invite;
}

/**
 * DELETE /api/rooms/{id}/invite: the invite code revoked (members keep their way in).
 * @param {string} baseUrl http://host:port
 * @param {string} session the host's session
 * @param {string} room the room's id
 * @returns {Promise<void>} done
 */
export async function revokeInvite(baseUrl, session, room) {
  await call("DELETE", `${httpUrl(baseUrl)}/api/rooms/${encodeURIComponent(room)}/invite`, session);
}

/**
 * ws://host:port/ws -> http://host:port (an http URL is returned as is, less a final /).
 * @param {string} url a websocket or HTTP URL
 * @returns {string} the HTTP base URL
 */
export function httpUrl(url) {
  const base = url.replace(/^wss:\/\//, "https://").replace(/^ws:\/\//, "http://").replace(/\/+$/, "");
  return base.endsWith("/ws") ? base.slice(0, -3) : base;
}

/**
 * http://host:port -> ws://host:port/ws.
 * @param {string} url an HTTP or websocket URL
 * @returns {string} the websocket URL
 */
export function wsUrl(url) {
  const base = url.replace(/\/+$/, "").replace(/^https:\/\//, "wss://").replace(/^http:\/\//, "ws://");
  return base.endsWith("/ws") ? base : `${base}/ws`;
}
