// @rollhouse/client: the Rollhouse protocol for browsers and Node.
//
// Client (client.js) keeps one seat connected; Session and Mirror (session.js, mirror.js) are
// its sans-I/O core; the codecs (codec.js), messages (messages.js), patches (patch.js) and
// error codes (codes.js, errors.js) are the wire of docs/protocol.md.

export { Client, backoffDelay } from "./client.js";
export {
  JSON_CODEC,
  JSON_SUBPROTOCOL,
  JSON_SUBPROTOCOL_V2,
  MAX_FRAME,
  MAX_SERVER_FRAME,
  MSGPACK_CODEC,
  MSGPACK_SUBPROTOCOL,
  MSGPACK_SUBPROTOCOL_V2,
  codecFor,
  isV2,
} from "./codec.js";
export { BY_CODE, CATALOGUE, FINAL_CODES, describe, outcome } from "./codes.js";
export { ActRejected, ClientError, CommandRejected, ConnectionLost, PatchError, ProtocolError, RollhouseError } from "./errors.js";
export {
  createGuest,
  createRoom,
  getRoom,
  httpUrl,
  listRooms,
  me,
  myRooms,
  newInvite,
  quickMatch,
  register,
  rename,
  revokeInvite,
  signIn,
  signOut,
  wsUrl,
} from "./http.js";
export { act, command, hello, ping, resync, serverMessage } from "./messages.js";
export { Mirror } from "./mirror.js";
export { applyPatch, checkOp } from "./patch.js";
export { checkPlain } from "./plain.js";
export { Session } from "./session.js";

/**
 * @typedef {import("./messages.js").View} View
 * @typedef {import("./messages.js").RoomView} RoomView
 * @typedef {import("./messages.js").RoomSeat} RoomSeat
 * @typedef {import("./messages.js").YouView} YouView
 * @typedef {import("./messages.js").GameCommand} GameCommand
 * @typedef {import("./messages.js").Role} Role
 * @typedef {import("./messages.js").ClientMessage} ClientMessage
 * @typedef {import("./messages.js").ServerMessage} ServerMessage
 * @typedef {import("./messages.js").Hello} Hello
 * @typedef {import("./messages.js").Command} Command
 * @typedef {import("./messages.js").Act} Act
 * @typedef {import("./http.js").Player} Player
 * @typedef {import("./http.js").SignedIn} SignedIn
 * @typedef {import("./messages.js").Welcome} Welcome
 * @typedef {import("./messages.js").Snapshot} Snapshot
 * @typedef {import("./messages.js").Patch} Patch
 * @typedef {import("./messages.js").Op} Op
 * @typedef {import("./messages.js").Ack} Ack
 * @typedef {import("./messages.js").Reject} Reject
 * @typedef {import("./messages.js").Presence} Presence
 * @typedef {import("./messages.js").ErrorMessage} ErrorMessage
 * @typedef {import("./messages.js").Pong} Pong
 * @typedef {import("./client.js").ClientOptions} ClientOptions
 * @typedef {import("./codes.js").Outcome} Outcome
 */
