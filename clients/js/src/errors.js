// The SDK's errors: one tree, each error with a stable wire `code` (codes.js is the
// catalogue), a human `message` and plain `details`. `String(err)` is "<code>: <message>".
//
//   RollhouseError           code, message, details
//   ├── ProtocolError        a frame or message the protocol refuses (field named)
//   │   └── PatchError       a patch op that does not fit the view (protocol/bad_patch)
//   └── ClientError          something the client could not do (an HTTP error, a timeout)
//       ├── CommandRejected  the room refused a command (a `reject`); nothing changed
//       └── ConnectionLost   the client gave up: a final error (room/replaced, room/not_found,
//                            ...), client/gave_up or client/closed
//
// The Python SDK has the same tree (clients/sdk/errors.py, protocol/errors.py).

import { BAD_PATCH } from "./codes.js";

/** @typedef {{[key: string]: unknown}} Details */

/** The root of the SDK's errors: a stable `code`, a human `message`, plain `details`. */
export class RollhouseError extends Error {
  /**
   * @param {string} code the stable wire code, e.g. "rollie/pile_empty"
   * @param {string} message for humans
   * @param {Details} [details] plain data, e.g. {value: 0}
   */
  constructor(code, message, details = {}) {
    super(message);
    this.name = new.target.name;
    /** @type {string} */
    this.code = code;
    /** @type {Details} */
    this.details = { ...details };
  }

  toString() {
    return `${this.code}: ${this.message}`;
  }
}

/** A frame or message refused by the protocol; `field` names the offending field. */
export class ProtocolError extends RollhouseError {
  /**
   * @param {string} code a protocol/* code
   * @param {string} message for humans
   * @param {string | null} [field] the offending field ("seq", "ops[0]")
   */
  constructor(code, message, field = null) {
    super(code, message, field === null ? {} : { field });
    /** @type {string | null} */
    this.field = field;
  }
}

/** A patch op that does not fit the view it is applied to (the client resyncs). */
export class PatchError extends ProtocolError {
  /**
   * @param {string} message for humans
   * @param {string | null} [field] the op's offending field
   */
  constructor(message, field = null) {
    super(BAD_PATCH, message, field);
  }
}

/** Something the client could not do; `code` is the wire code (room/full, http/404, ...). */
export class ClientError extends RollhouseError {}

/** The room refused a command: nothing changed; `code` says why, `details` holds data. */
export class CommandRejected extends ClientError {}
/** An act (v2: chat, a host's action) was refused; nothing changed. `code`: room/not_host,
 * room/already_started, room/bad_action, chat/bad_text, chat/rate_limited, chat/not_allowed. */
export class ActRejected extends CommandRejected {}

/** The client gave up: a final error (room/replaced, ...), client/gave_up or client/closed. */
export class ConnectionLost extends ClientError {}
