// The HTTP side (docs/protocol.md 12): create and list rooms, and turn an HTTP base URL into
// the websocket URL and back. Uses the global fetch (browsers, Node 18+).

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
 * @param {{options?: PlainMap, room?: PlainMap, idempotencyKey?: string}} [more] the game's
 *   options, the room's settings ({clock, bots, bot_policy, bot_delay, takeover_after}), and an
 *   Idempotency-Key that makes a retry return the same room
 * @returns {Promise<RoomSummary>} the new room's summary
 */
export async function createRoom(baseUrl, game, seats, { options = {}, room = {}, idempotencyKey } = {}) {
  /** @type {Record<string, string>} */
  const headers = { "content-type": "application/json" };
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
 * GET /api/rooms/{id}: one room's summary (ClientError room/not_found otherwise).
 * @param {string} baseUrl http://host:port
 * @param {string} room the room's id
 * @returns {Promise<RoomSummary>} its summary
 */
export async function getRoom(baseUrl, room) {
  return json(await fetch(`${httpUrl(baseUrl)}/api/rooms/${encodeURIComponent(room)}`));
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
