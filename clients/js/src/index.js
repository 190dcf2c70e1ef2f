// @rollhouse/client: the Rollhouse protocol for browsers and Node.
//
// Client (client.js) keeps one seat connected; Session and Mirror (session.js, mirror.js) are
// its sans-I/O core; the codecs (codec.js), messages (messages.js), patches (patch.js) and
// error codes (codes.js, errors.js) are the wire of docs/protocol.md.

export { Client, backoffDelay } from "./client.js";
export {
  JSON_CODEC,
  JSON_SUBPROTOCOL,
  MAX_FRAME,
  MAX_SERVER_FRAME,
  MSGPACK_CODEC,
  MSGPACK_SUBPROTOCOL,
  codecFor,
} from "./codec.js";
export { BY_CODE, CATALOGUE, FINAL_CODES, describe, outcome } from "./codes.js";
export { ClientError, CommandRejected, ConnectionLost, PatchError, ProtocolError, RollhouseError } from "./errors.js";
export { createRoom, getRoom, httpUrl, listRooms, wsUrl } from "./http.js";
export { command, hello, ping, resync, serverMessage } from "./messages.js";
export { Mirror } from "./mirror.js";
export { applyPatch, checkOp } from "./patch.js";
export { checkPlain } from "./plain.js";
export { Session } from "./session.js";
