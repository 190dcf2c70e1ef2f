// The wire messages of docs/protocol.md section 3: their types, builders for what a client
// sends, and the strict check of what a server sends (the same refusals, in the same order,
// as protocol/codec.py: unknown fields, missing fields, wrong types, out-of-range values).

import { BAD_FIELD, MISSING_FIELD, UNKNOWN_FIELD, UNKNOWN_TYPE } from "./codes.js";
import { ProtocolError } from "./errors.js";
import { checkOp } from "./patch.js";
import { isMap } from "./plain.js";

/**
 * @typedef {import("./plain.js").Plain} Plain
 * @typedef {import("./plain.js").PlainMap} PlainMap
 * @typedef {"player" | "spectator"} Role
 * @typedef {PlainMap & {type: string}} GameCommand A game command, e.g. {type: "take", value: 5}.
 */

/**
 * @typedef {object} View A viewer's view (docs/protocol.md 11); unknown keys may appear.
 * @property {{[key: string]: any}} game the game's view for this viewer (game-specific)
 * @property {RoomView} room the room's part, the same for every game
 * @property {YouView} [you] present in a player's view only
 */
/**
 * @typedef {object} RoomView
 * @property {"waiting" | "playing" | "finished"} status
 * @property {{[seat: string]: number}} deadlines unix time each seat's clock runs out
 * @property {number} clock seconds per decision, 0: no clock
 * @property {RoomSeat[]} seats
 * @property {string | null} rematch the id of this table's rematch room
 * @property {{seat: number, by: "timeout" | "bot" | "takeover" | null} | null} last_move who moved last, and why
 */
/**
 * @typedef {object} RoomSeat
 * @property {number} seat
 * @property {string | null} name
 * @property {boolean} taken
 * @property {boolean} bot a hosted bot holds the seat
 * @property {boolean} away its player is gone (rooms with takeover_after)
 * @property {boolean} takeover a bot plays it for its absent player
 */
/**
 * @typedef {object} YouView
 * @property {number} seat your seat
 * @property {GameCommand[]} legal the commands you may send now, exactly as to send them
 */

/**
 * @typedef {object} Hello The first message of every connection.
 * @property {"hello"} type
 * @property {string} room the room's id
 * @property {Role} role player or spectator
 * @property {string | null} name 1..32 characters, or null
 * @property {string | null} seat_token the seat's secret, to rejoin it
 * @property {number | null} last_seq the last sequence applied, to resume from it
 * @property {string} [session] v2: the player's session token (sent only when there is one)
 * @property {string} [invite] v2: a private room's invite code (sent only when there is one)
 * @property {string} [new_seat_token] v2: the token of the free seat this hello may take, of
 *   the client's own making (22..128 of A-Z a-z 0-9 - _): the same hello sent again after its
 *   welcome was lost finds that seat again (sent only while the client has no seat token)
 * @property {string} [client] v2: the client's own id (8..64 of A-Z a-z 0-9 - _), the same on
 *   each of its connections
 * @property {number} [attempt] v2: which connection of that client this is (1, 2, 3...): a
 *   late copy of an earlier hello cannot take the seat from a later connection
 */
/**
 * @typedef {object} Act v2: something done to the room (a chat line, a host's action),
 *   answered by ack or reject like a command (docs/protocol.md 15.3).
 * @property {"act"} type
 * @property {string} id 1..64 characters, unique per player (or seat)
 * @property {PlainMap & {type: string}} act e.g. {type: "chat", text: "hi"}, {type: "lock", on: true}
 */
/**
 * @typedef {object} Command A game command with a client-chosen id (a retry reuses it).
 * @property {"command"} type
 * @property {string} id 1..64 characters, unique per seat
 * @property {GameCommand} command the game command
 */
/** @typedef {{type: "resync"}} Resync "I saw a gap; send me a snapshot." */
/** @typedef {{type: "ping", nonce: number | null}} Ping Keepalive; answered by pong. */
/** @typedef {Hello | Command | Act | Resync | Ping} ClientMessage */

/**
 * @typedef {object} Welcome The answer to hello.
 * @property {"welcome"} type
 * @property {string} room
 * @property {string} game
 * @property {Role} role
 * @property {number | null} seat the seat (null for a spectator)
 * @property {string | null} seat_token the seat's secret (null for a spectator)
 * @property {number} seq the sequence of `view`, or where patches resume when `view` is null
 * @property {View | null} view a full snapshot, or null: keep yours, patches follow
 * @property {number} server_time the server clock, unix seconds
 * @property {string | null} [player] v2: your player id, when the hello carried a valid session
 */
/**
 * @typedef {object} Snapshot A full view at `seq`, replacing yours.
 * @property {"snapshot"} type
 * @property {number} seq
 * @property {View} view
 */
/**
 * @typedef {object} Ack Command `id` was accepted; `seq` is the sequence of its last event.
 * @property {"ack"} type
 * @property {string} id
 * @property {number} seq
 */
/**
 * @typedef {object} Reject Command `id` was refused; nothing changed.
 * @property {"reject"} type
 * @property {string} id
 * @property {string} code stable (docs/protocol.md 10, or the game's own)
 * @property {string} message for humans
 * @property {PlainMap} details data such as {value: 0}
 */
/**
 * @typedef {object} Op One patch op (docs/protocol.md 6).
 * @property {"replace" | "add" | "remove"} op
 * @property {(string | number)[]} path str steps into maps, int steps into lists
 * @property {Plain} [value] absent for remove
 */
/**
 * @typedef {object} Patch Moves your view from sequence `from` to `to`.
 * @property {"patch"} type
 * @property {number} from
 * @property {number} to
 * @property {Op[]} ops
 * @property {string[]} events public names of the events, for animation
 */
/**
 * @typedef {object} SeatPresence One seat in a presence message.
 * @property {number} seat
 * @property {string | null} name
 * @property {boolean} connected
 * @property {boolean} bot
 */
/**
 * @typedef {object} Presence Who is at the table.
 * @property {"presence"} type
 * @property {SeatPresence[]} seats
 * @property {number} spectators
 */
/**
 * @typedef {object} ErrorMessage Something not tied to a command id went wrong.
 * @property {"error"} type
 * @property {string} code
 * @property {string} message
 * @property {string | null} field the offending field, if any
 * @property {boolean} fatal the server closes the connection next
 */
/**
 * @typedef {object} Pong The answer to ping.
 * @property {"pong"} type
 * @property {number | null} nonce
 * @property {number} server_time
 */
/** @typedef {Welcome | Snapshot | Ack | Reject | Patch | Presence | ErrorMessage | Pong} ServerMessage */

// -- builders: every field, null where empty, in the order the Python SDK sends them ----------

/**
 * @param {{room: string, role?: Role, name?: string | null, seatToken?: string | null, lastSeq?: number | null, session?: string | null, invite?: string | null, newSeatToken?: string | null, client?: string | null, attempt?: number | null}} fields
 *   `session`, `invite`, `newSeatToken`, `client` and `attempt` are version 2 fields: left
 *   out when null (a v1 server refuses them)
 * @returns {Hello} a hello message
 */
export function hello({ room, role = "player", name = null, seatToken = null, lastSeq = null, session = null, invite = null, newSeatToken = null, client = null, attempt = null }) {
  if (name !== null && (name.length < 1 || name.length > 32))
    throw new ProtocolError(BAD_FIELD, `name: length must be 1..32, got ${name.length}`, "name");
  if (lastSeq !== null && !(Number.isInteger(lastSeq) && lastSeq >= 0))
    throw new ProtocolError(BAD_FIELD, `last_seq: must be an int >= 0, got ${lastSeq}`, "last_seq");
  /** @type {Hello} */
  const message = { type: "hello", room, role, name, seat_token: seatToken, last_seq: lastSeq };
  if (session !== null) message.session = session;
  if (invite !== null) message.invite = invite;
  if (newSeatToken !== null) {
    if (!/^[A-Za-z0-9_-]{22,128}$/.test(newSeatToken))
      throw new ProtocolError(BAD_FIELD, `new_seat_token: 22..128 characters of A-Z a-z 0-9 - _, got ${newSeatToken.length} characters`, "new_seat_token");
    message.new_seat_token = newSeatToken;
  }
  if (client !== null) {
    if (!/^[A-Za-z0-9_-]{8,64}$/.test(client))
      throw new ProtocolError(BAD_FIELD, `client: 8..64 characters of A-Z a-z 0-9 - _, got ${client.length} characters`, "client");
    message.client = client;
  }
  if (attempt !== null) {
    if (!(Number.isInteger(attempt) && attempt >= 1 && attempt <= Number.MAX_SAFE_INTEGER))
      throw new ProtocolError(BAD_FIELD, `attempt: must be 1..2**53-1, got ${attempt}`, "attempt");
    message.attempt = attempt;
  }
  return message;
}

/**
 * @param {string} id 1..64 characters
 * @param {PlainMap & {type: string}} act a map with a str `type` (chat, lock, remove, fill, host, admit, hide)
 * @returns {Act} an act message (version 2)
 */
export function act(id, act) {
  if (typeof id !== "string" || id.length < 1 || id.length > 64)
    throw new ProtocolError(BAD_FIELD, "id: length must be 1..64", "id");
  if (!isMap(act)) throw new ProtocolError(BAD_FIELD, "act: expected a map", "act");
  if (!("type" in act)) throw new ProtocolError(MISSING_FIELD, "act: missing field 'type'", "act.type");
  if (typeof act.type !== "string") throw new ProtocolError(BAD_FIELD, "act.type: expected str", "act.type");
  return { type: "act", id, act };
}

/**
 * @param {string} id 1..64 characters
 * @param {GameCommand} command a map with a str `type`
 * @returns {Command} a command message
 */
export function command(id, command) {
  if (typeof id !== "string" || id.length < 1 || id.length > 64)
    throw new ProtocolError(BAD_FIELD, "id: length must be 1..64", "id");
  if (!isMap(command)) throw new ProtocolError(BAD_FIELD, "command: expected a map", "command");
  if (!("type" in command))
    throw new ProtocolError(MISSING_FIELD, "command: missing field 'type'", "command.type");
  if (typeof command.type !== "string")
    throw new ProtocolError(BAD_FIELD, "command.type: expected str", "command.type");
  return { type: "command", id, command };
}

/** @returns {Resync} a resync message */
export function resync() {
  return { type: "resync" };
}

/**
 * @param {number | null} [nonce] echoed by the pong
 * @returns {Ping} a ping message
 */
export function ping(nonce = null) {
  return { type: "ping", nonce };
}

// -- the check of server messages -------------------------------------------------------------

/** @typedef {(value: unknown, where: string) => unknown} Kind checks a value, returns it */
/** @typedef {[name: string, kind: Kind, fallback?: unknown]} Field a field, with its default */

const NO_DEFAULT = Symbol("required");

/**
 * @param {string} where the field
 * @param {string} expected its type
 * @param {unknown} got the value
 * @returns {ProtocolError} a protocol/bad_field error
 */
function bad(where, expected, got) {
  const kind = got === null ? "null" : Array.isArray(got) ? "list" : typeof got;
  return new ProtocolError(BAD_FIELD, `${where}: expected ${expected}, got ${kind}`, where);
}

/** @type {Kind} */
const str = (v, where) => {
  if (typeof v !== "string") throw bad(where, "str", v);
  return v;
};
/** @type {Kind} */
const int = (v, where) => {
  if (!(Number.isInteger(v) || typeof v === "bigint")) throw bad(where, "int", v);
  return v;
};
/** @type {Kind} */
const bool = (v, where) => {
  if (typeof v !== "boolean") throw bad(where, "bool", v);
  return v;
};
/** @type {Kind} */
const map = (v, where) => {
  if (!isMap(v)) throw bad(where, "map", v);
  return v;
};
/** @type {Kind} */
const role = (v, where) => {
  if (v !== "player" && v !== "spectator") throw bad(where, "one of ['player', 'spectator']", v);
  return v;
};
/**
 * @param {Kind} kind a kind
 * @returns {Kind} the kind, or null
 */
const orNull = (kind) => (v, where) => (v === null ? null : kind(v, where));
/** @type {Kind} */
const seats = (v, where) => {
  if (!Array.isArray(v)) throw bad(where, "list", v);
  v.forEach((item, i) => structure(SEAT_FIELDS, item, `${where}[${i}]`, false));
  return v;
};

/** @type {Field[]} */
const SEAT_FIELDS = [["seat", int], ["name", orNull(str)], ["connected", bool], ["bot", bool]];

/** @type {{[type: string]: {fields: Field[], floats?: string[], nonNegative?: string[], optional?: Field[]}}} */
const SERVER = {
  welcome: {
    fields: [["room", str], ["game", str], ["role", role], ["seat", orNull(int)],
      ["seat_token", orNull(str)], ["seq", int], ["view", orNull(map)]],
    optional: [["player", orNull(str)]],
    floats: ["server_time"],
    nonNegative: ["seq"],
  },
  snapshot: { fields: [["seq", int], ["view", map]], nonNegative: ["seq"] },
  ack: { fields: [["id", str], ["seq", int]], nonNegative: ["seq"] },
  reject: { fields: [["id", str], ["code", str], ["message", str], ["details", map, {}]] },
  presence: { fields: [["seats", seats], ["spectators", int]], nonNegative: ["spectators"] },
  error: { fields: [["code", str], ["message", str], ["field", orNull(str), null], ["fatal", bool, false]] },
  pong: { fields: [["nonce", orNull(int), null]], floats: ["server_time"] },
};

/** The message types a server sends. */
export const SERVER_TYPES = Object.freeze(["welcome", "snapshot", "ack", "reject", "patch", "presence", "error", "pong"]);

/**
 * A server message from checked plain data (codec.js has checked the frame's plain data),
 * every field present (defaults filled in); ProtocolError naming the field otherwise.
 * @param {{[key: string]: unknown}} data the frame's top-level map
 * @returns {ServerMessage} the message
 */
export function serverMessage(data) {
  if (!("type" in data)) throw new ProtocolError(MISSING_FIELD, "missing field 'type'", "type");
  const tag = data.type;
  if (typeof tag !== "string") throw new ProtocolError(BAD_FIELD, "type: expected str", "type");
  if (tag === "patch") return /** @type {Patch} */ (patch(data));
  const spec = Object.hasOwn(SERVER, tag) ? SERVER[tag] : undefined;
  if (spec === undefined)
    throw new ProtocolError(UNKNOWN_TYPE, `unknown message type '${tag}'; known: ${SERVER_TYPES.join(", ")}`);
  /** @type {{[key: string]: unknown}} */
  const floats = {};
  for (const name of spec.floats ?? []) {
    if (!(name in data)) throw new ProtocolError(MISSING_FIELD, `missing field '${name}'`, name);
    if (typeof data[name] !== "number" && typeof data[name] !== "bigint")
      throw new ProtocolError(BAD_FIELD, `${name}: expected a number`, name);
    floats[name] = Number(data[name]);
  }
  const optional = spec.optional ?? [];
  const message = structure(spec.fields, data, tag, true, [...(spec.floats ?? []), ...optional.map(([name]) => name)]);
  for (const name of spec.nonNegative ?? []) nonNegative(message[name], name);
  // version 2 fields: checked when present, never filled in (a v1 message stays as it was)
  for (const [name, kind] of optional) if (name in data) message[name] = kind(data[name], name);
  return /** @type {ServerMessage} */ ({ ...message, ...floats });
}

/**
 * @param {Field[]} fields the fields, in order
 * @param {unknown} data the value
 * @param {string} where its name (the message type, or a path)
 * @param {boolean} top whether it is a message (its `type` and float fields are known)
 * @param {string[]} [extra] other known fields
 * @returns {{[key: string]: unknown}} the value, defaults filled in, `type` first
 */
function structure(fields, data, where, top, extra = []) {
  if (!isMap(data)) throw bad(where, "map", data);
  const known = new Set([...fields.map(([name]) => name), ...extra, ...(top ? ["type"] : [])]);
  for (const key of Object.keys(data)) {
    if (!known.has(key)) throw new ProtocolError(UNKNOWN_FIELD, `${where}: unknown field '${key}'`, key);
  }
  /** @type {{[key: string]: unknown}} */
  const out = top ? { type: data.type } : {};
  for (const [name, kind, fallback = NO_DEFAULT] of fields) {
    const path = top ? name : `${where}.${name}`;
    if (!(name in data)) {
      if (fallback === NO_DEFAULT) throw new ProtocolError(MISSING_FIELD, `${where}: missing field '${name}'`, name);
      out[name] = fallback;
      continue;
    }
    out[name] = kind(data[name], path);
  }
  return out;
}

/**
 * @param {unknown} value an int
 * @param {string} name its field
 */
function nonNegative(value, name) {
  if (/** @type {number} */ (value) < 0)
    throw new ProtocolError(BAD_FIELD, `${name}: must be >= 0, got ${value}`, name);
}

const PATCH_FIELDS = new Set(["type", "from", "to", "ops", "events"]);

/**
 * A patch, checked field by field as protocol/codec.py's _load_patch does.
 * @param {{[key: string]: unknown}} data the frame's top-level map
 * @returns {Patch} the patch
 */
function patch(data) {
  for (const key of Object.keys(data)) {
    if (!PATCH_FIELDS.has(key)) throw new ProtocolError(UNKNOWN_FIELD, `patch: unknown field '${key}'`, key);
  }
  for (const key of ["from", "to"]) {
    if (!(key in data)) throw new ProtocolError(MISSING_FIELD, `patch: missing field '${key}'`, key);
    if (!Number.isInteger(data[key]) && typeof data[key] !== "bigint")
      throw new ProtocolError(BAD_FIELD, `patch.${key}: expected int`, key);
    nonNegative(data[key], key);
  }
  if (!("ops" in data)) throw new ProtocolError(MISSING_FIELD, "patch: missing field 'ops'", "ops");
  const ops = data.ops;
  const events = "events" in data ? data.events : [];
  if (!Array.isArray(ops) || !ops.every(isMap))
    throw new ProtocolError(BAD_FIELD, "patch.ops: expected a list of maps", "ops");
  if (!Array.isArray(events) || !events.every((e) => typeof e === "string"))
    throw new ProtocolError(BAD_FIELD, "patch.events: expected a list of str", "events");
  ops.forEach((op, i) => {
    try {
      checkOp(op);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ProtocolError(BAD_FIELD, `ops[${i}]: ${why}`, `ops[${i}]`);
    }
  });
  return /** @type {Patch} */ ({ type: "patch", from: data.from, to: data.to, ops, events });
}
