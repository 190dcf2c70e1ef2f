// The catalogue of wire error codes: the same list as protocol/errors.py (the server's),
// checked against tests/vectors/errors/catalogue.json by the unit tests (and that file
// against protocol/errors.py by tests/protocol/test_vectors.py).
//
// `via` says how a code arrives: "error" (an error message), "reject" (answering a command
// id), "error|reject", "close" (only as a websocket close reason), "http" (an HTTP error
// body or a refused handshake) or "client" (raised by a client itself, never sent). `fatal`:
// the server closes the connection after it. Game rejections (rollie/pile_empty, game/over,
// command/bad_field, ...) are the games' own codes and are not listed.

/**
 * @typedef {object} Code One wire error code.
 * @property {string} code the stable code, `<area>/<reason>`
 * @property {string} description what it means
 * @property {boolean} fatal whether the server closes the connection after it
 * @property {"error" | "reject" | "error|reject" | "close" | "http" | "client"} via how it arrives
 * @property {number | null} http the HTTP status when it answers an API request
 */

/** @type {readonly Code[]} */
export const CATALOGUE = Object.freeze([
  { code: "protocol/too_large", description: "the frame is larger than MAX_FRAME (65536 bytes)", fatal: false, via: "error", http: null },
  { code: "protocol/malformed", description: "not valid msgpack/JSON, not a map at the top, nested deeper than 32, or the wrong frame kind (text on msgpack, binary on JSON)", fatal: false, via: "error", http: null },
  { code: "protocol/unknown_type", description: "the message `type` is not one this side accepts", fatal: false, via: "error", http: null },
  { code: "protocol/bad_field", description: "a field has the wrong type or an out-of-range value (field named)", fatal: false, via: "error", http: null },
  { code: "protocol/unknown_field", description: "the message has a field its type does not define (field named)", fatal: false, via: "error", http: null },
  { code: "protocol/missing_field", description: "a required field is absent (field named)", fatal: false, via: "error", http: null },
  { code: "protocol/bad_patch", description: "client side only: a patch op does not fit the view; resync", fatal: false, via: "client", http: null },
  { code: "room/not_found", description: "no room with that id", fatal: true, via: "error", http: 404 },
  { code: "room/full", description: "a player asked to join but every seat is taken", fatal: true, via: "error", http: null },
  { code: "room/bad_seat_token", description: "the seat token belongs to no seat of this room", fatal: true, via: "error", http: null },
  { code: "room/read_only", description: "a spectator sent a command; spectators can never act", fatal: false, via: "reject", http: null },
  { code: "room/hello_required", description: "a message other than hello or ping arrived before hello", fatal: false, via: "error|reject", http: null },
  { code: "room/already_joined", description: "a second hello on the same connection", fatal: false, via: "error", http: null },
  { code: "room/not_started", description: "a command before the game started (seats still free)", fatal: false, via: "reject", http: null },
  { code: "room/rate_limited", description: "too many messages; this one was dropped, slow down", fatal: false, via: "error|reject", http: null },
  { code: "room/slow_consumer", description: "the connection's outbox overflowed; reconnect and resume with last_seq", fatal: true, via: "close", http: null },
  { code: "room/replaced", description: "a newer connection took this seat; do not reconnect automatically", fatal: true, via: "error", http: null },
  { code: "room/origin_forbidden", description: "the browser Origin is not allowed to connect (HTTP 403 at the handshake, no upgrade)", fatal: true, via: "http", http: 403 },
  { code: "room/unavailable", description: "the event store or the room failed; nothing changed unless acknowledged; retry later", fatal: true, via: "error|reject", http: 503 },
  { code: "room/moved", description: "the room moved to another node (drain, failover, fencing); reconnect (to any node) and resume with last_seq; not an error to show", fatal: true, via: "error", http: 503 },
  { code: "command/id_reused", description: "a command id this seat already used, sent with a different command; use a fresh id", fatal: false, via: "reject", http: null },
  { code: "room/unknown_game", description: "POST /api/rooms named a game this server does not have", fatal: false, via: "http", http: 404 },
  { code: "room/bad_options", description: "POST /api/rooms: seats or options the game does not accept", fatal: false, via: "http", http: 400 },
  { code: "http/bad_json", description: "an HTTP request body that is not a JSON object", fatal: false, via: "http", http: 400 },
  { code: "http/too_large", description: "an HTTP request body over the limit (64 KiB by default)", fatal: false, via: "http", http: 413 },
  { code: "http/rate_limited", description: "too many rooms or guest players created from this address; retry after the Retry-After seconds", fatal: false, via: "http", http: 429 },
  { code: "http/not_found", description: "no such HTTP route or file", fatal: false, via: "http", http: 404 },
  { code: "http/internal", description: "a server bug; reported, never expected", fatal: false, via: "http", http: 500 },
  { code: "http/bad_query", description: "a query parameter out of range or not a number (named)", fatal: false, via: "http", http: 400 },
  { code: "http/bad_import", description: "POST /api/rooms/import: not a complete Rollhouse export of a finished game whose dice verify", fatal: false, via: "http", http: 400 },
  { code: "room/not_finished", description: "the room's game is not over (an export, or a seed, waits for the end)", fatal: false, via: "http", http: 409 },
  { code: "room/too_many_rooms", description: "POST /api/rooms: this node holds as many live rooms as it may; retry later", fatal: false, via: "http", http: 429 },
  { code: "room/too_many_connections", description: "the websocket handshake from an address already holding the most connections allowed", fatal: true, via: "http", http: 429 },
  { code: "room/hello_timeout", description: "no hello arrived within the hello timeout (10 s by default)", fatal: true, via: "error", http: null },
  { code: "room/removed", description: "the host removed you from this room; you cannot come back to it", fatal: true, via: "error", http: 404 },
  { code: "room/locked", description: "the host locked the seats: no one new may sit down (watch instead)", fatal: true, via: "error", http: 409 },
  { code: "room/no_spectators", description: "this room does not take spectators (its host said so)", fatal: true, via: "error", http: null },
  { code: "room/not_host", description: "only the room's host may do this", fatal: false, via: "reject", http: 403 },
  { code: "room/already_started", description: "the game has begun: no host action may change it (chat moderation still may)", fatal: false, via: "reject", http: 409 },
  { code: "room/bad_action", description: "an `act` the room does not know, or one missing what it needs (field named)", fatal: false, via: "reject", http: 400 },
  { code: "chat/bad_text", description: "a chat message that is empty, over 500 characters, or holds control, bidi-override or zero-width characters", fatal: false, via: "reject", http: null },
  { code: "chat/rate_limited", description: "too many chat messages from you; wait a few seconds", fatal: false, via: "reject", http: null },
  { code: "chat/not_allowed", description: "this room keeps spectators out of the players' channel (or you may not write there)", fatal: false, via: "reject", http: null },
  { code: "player/bad_name", description: "a display name that is not 1-32 characters after NFKC normalisation, or holds control, bidi-override or zero-width characters", fatal: false, via: "error|reject", http: 400 },
  { code: "player/unauthorized", description: "no valid player session (missing, unknown, expired or signed out)", fatal: true, via: "error", http: 401 },
  { code: "player/bad_credentials", description: "that username and password do not match a player", fatal: false, via: "http", http: 401 },
  { code: "player/login_limited", description: "too many failed sign-ins for this account or address, or session tokens that open nothing from this address; retry after Retry-After seconds", fatal: false, via: "http", http: 429 },
  { code: "player/username_taken", description: "another player has that username", fatal: false, via: "http", http: 409 },
  { code: "player/bad_username", description: "a username must be 3-32 characters: a-z, 0-9, '.', '_' or '-'", fatal: false, via: "http", http: 400 },
  { code: "player/bad_password", description: "a password must be 10-256 characters", fatal: false, via: "http", http: 400 },
  { code: "player/already_registered", description: "this player has a username and password already", fatal: false, via: "http", http: 409 },
  { code: "room/closed", description: "an operator closed this room (the message says why); nobody may join it again", fatal: true, via: "error", http: 410 },
  { code: "server/banned", description: "an operator banned this address or player for a time (the message says until when): refused at the websocket handshake, at hello and on the HTTP API", fatal: true, via: "error", http: 403 },
  { code: "server/notice", description: "not a refusal: an operator's maintenance notice to every connection (the message is its text); the connection stays", fatal: false, via: "error", http: null },
  { code: "operator/unauthorized", description: "an operator console route without the operator token (or with a wrong one)", fatal: false, via: "http", http: 401 },
  { code: "operator/off", description: "the operator console is off: no operator token is set", fatal: false, via: "http", http: 404 },
  { code: "operator/rate_limited", description: "too many operator console requests, or wrong tokens, from this address; retry after Retry-After seconds", fatal: false, via: "http", http: 429 },
].map((entry) => Object.freeze(/** @type {Code} */ (entry))));

/** @type {ReadonlyMap<string, Code>} */
export const BY_CODE = new Map(CATALOGUE.map((entry) => [entry.code, entry]));

export const TOO_LARGE = "protocol/too_large";
export const MALFORMED = "protocol/malformed";
export const UNKNOWN_TYPE = "protocol/unknown_type";
export const BAD_FIELD = "protocol/bad_field";
export const UNKNOWN_FIELD = "protocol/unknown_field";
export const MISSING_FIELD = "protocol/missing_field";
export const BAD_PATCH = "protocol/bad_patch";
export const RATE_LIMITED = "room/rate_limited";
export const MOVED = "room/moved";
export const REPLACED = "room/replaced";
export const ORIGIN_FORBIDDEN = "room/origin_forbidden";
export const TOO_MANY_CONNECTIONS = "room/too_many_connections";

/** Fatal errors that reconnecting cannot cure: the client gives up (the Python SDK's
 * FINAL_CODES plus room/replaced: another tab or device holds the seat). */
export const FINAL_CODES = new Set([
  "room/not_found",
  "room/full",
  "room/bad_seat_token",
  "room/removed",
  "room/locked",
  "room/no_spectators",
  "player/unauthorized",
  "room/closed",
  "server/banned",
  ORIGIN_FORBIDDEN,
  REPLACED,
]);

/**
 * @typedef {"continue" | "reconnect" | "reconnect_now" | "give_up"} Outcome What a client
 *   does after an error: keep the connection (a non-fatal error), reconnect with backoff,
 *   reconnect at once to the next node (room/moved) or give up (a final code).
 */

/**
 * What a client does after an `error` message, a close with code 4000 (the reason is the
 * code; always fatal) or a refused handshake (fatal). The rule of docs/protocol.md 7 and
 * 10, pinned by tests/vectors/errors/outcomes.json.
 * @param {string} code the error code
 * @param {boolean} fatal whether the connection ends
 * @returns {Outcome} what to do next
 */
export function outcome(code, fatal) {
  if (!fatal) return "continue";
  if (code === MOVED) return "reconnect_now";
  if (FINAL_CODES.has(code)) return "give_up";
  return "reconnect";
}

/**
 * The one-line description of a catalogued code (undefined for game codes).
 * @param {string} code a wire error code
 * @returns {string | undefined} its description
 */
export function describe(code) {
  return BY_CODE.get(code)?.description;
}
