// The two wire codecs (docs/protocol.md 1-2): msgpack on binary frames
// ("rollhouse.v1.msgpack"), JSON on text frames ("rollhouse.v1.json"). Decoding is strict and
// total, as protocol/codec.py's: any frame either becomes a checked server message or throws a
// ProtocolError whose code is the one the server would answer for such a frame, in order:
// 1. frame kind (text on msgpack, binary on JSON) and syntax: protocol/malformed; size over
//    the limit: protocol/too_large;
// 2. a map at the top (else malformed), then plain data: depth (malformed), 64-bit ints,
//    finite floats, valid Unicode, no bin/ext (protocol/bad_field);
// 3. the message (messages.js): unknown_type, unknown_field, missing_field, bad_field.
// Encoding checks the message is plain data and refuses a frame over MAX_FRAME (the server
// would refuse it: protocol/too_large).
//
// What JavaScript cannot tell apart: a float with no fraction (1.0) arrives as the number 1,
// so a float where an int belongs is accepted here (the Python SDK refuses it); and JSON
// integers beyond 2^53 lose precision (msgpack ones arrive exact, as bigints).

import { BAD_FIELD, MALFORMED, TOO_LARGE } from "./codes.js";
import { ProtocolError } from "./errors.js";
import { serverMessage } from "./messages.js";
import * as msgpack from "./msgpack.js";
import { checkPlain, isMap } from "./plain.js";

/** @typedef {import("./messages.js").ClientMessage} ClientMessage */
/** @typedef {import("./messages.js").ServerMessage} ServerMessage */
/** @typedef {string | ArrayBuffer | ArrayBufferView} Frame what a websocket delivers */

export const MSGPACK_SUBPROTOCOL = "rollhouse.v1.msgpack";
export const JSON_SUBPROTOCOL = "rollhouse.v1.json";
/** Version 2 (docs/protocol.md 15): the same encodings, plus players, invites and acts. */
export const MSGPACK_SUBPROTOCOL_V2 = "rollhouse.v2.msgpack";
export const JSON_SUBPROTOCOL_V2 = "rollhouse.v2.json";
/** The largest frame a server accepts (64 KiB). */
export const MAX_FRAME = 65536;
/** The largest frame a server sends, and a client accepts (1 MiB). */
export const MAX_SERVER_FRAME = 1 << 20;

const UTF8 = new TextEncoder();

/**
 * @typedef {object} Codec One wire encoding.
 * @property {string} name its subprotocol
 * @property {boolean} binary whether its frames are binary
 * @property {(message: ClientMessage | {[key: string]: unknown}) => string | Uint8Array} encode
 *   the frame of a message (throws ProtocolError if it is not plain data or too large)
 * @property {(frame: Frame, limit?: number) => {[key: string]: unknown}} decodeData the
 *   checked plain-data map in a frame (steps 1-2)
 * @property {(frame: Frame) => ServerMessage} decodeServer a checked server message
 */

/**
 * @param {Frame} frame a frame
 * @returns {Uint8Array | null} its bytes, or null for a text frame
 */
function bytesOf(frame) {
  if (typeof frame === "string") return null;
  if (frame instanceof ArrayBuffer) return new Uint8Array(frame);
  return new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength);
}

/**
 * @param {unknown} data a parsed frame
 * @returns {{[key: string]: unknown}} the frame's map, checked as plain data
 */
function topMap(data) {
  if (!isMap(data)) throw new ProtocolError(MALFORMED, "a frame must hold a map at the top level");
  checkPlain(data);
  return data;
}

/**
 * @param {number} size the frame's size in bytes
 * @param {number} limit the largest allowed
 */
function checkSize(size, limit) {
  if (size > limit) throw new ProtocolError(TOO_LARGE, `frame of ${size} bytes > ${limit}`);
}

/** @type {Codec} */
export const JSON_CODEC = Object.freeze({
  name: JSON_SUBPROTOCOL,
  binary: false,
  encode(message) {
    checkPlain(message);
    let text;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      throw new ProtocolError(BAD_FIELD, `not JSON: ${String(error)}`);
    }
    checkSize(utf8Length(text), MAX_FRAME);
    return text;
  },
  decodeData(frame, limit = MAX_SERVER_FRAME) {
    if (typeof frame !== "string") throw new ProtocolError(MALFORMED, "binary frame on the JSON subprotocol");
    if (frame.length > limit) checkSize(frame.length, limit);
    else if (frame.length * 3 > limit) checkSize(utf8Length(frame), limit);
    let data;
    try {
      data = JSON.parse(frame);
    } catch (error) {
      throw new ProtocolError(MALFORMED, `invalid JSON: ${error instanceof Error ? error.name : "error"}`);
    }
    return topMap(data);
  },
  decodeServer(frame) {
    return serverMessage(JSON_CODEC.decodeData(frame));
  },
});

/** @type {Codec} */
export const MSGPACK_CODEC = Object.freeze({
  name: MSGPACK_SUBPROTOCOL,
  binary: true,
  encode(message) {
    const bytes = msgpack.encode(message);
    checkSize(bytes.length, MAX_FRAME);
    return bytes;
  },
  decodeData(frame, limit = MAX_SERVER_FRAME) {
    const bytes = bytesOf(frame);
    if (bytes === null) throw new ProtocolError(MALFORMED, "text frame on the msgpack subprotocol");
    checkSize(bytes.length, limit);
    return topMap(msgpack.parse(bytes));
  },
  decodeServer(frame) {
    return serverMessage(MSGPACK_CODEC.decodeData(frame));
  },
});

/**
 * @param {string} text a string
 * @returns {number} its length in UTF-8 bytes
 */
function utf8Length(text) {
  return UTF8.encode(text).length;
}

/** @type {Codec} version 2 on text frames: JSON, as version 1 */
export const JSON_CODEC_V2 = Object.freeze({ ...JSON_CODEC, name: JSON_SUBPROTOCOL_V2 });
/** @type {Codec} version 2 on binary frames: MessagePack, as version 1 */
export const MSGPACK_CODEC_V2 = Object.freeze({ ...MSGPACK_CODEC, name: MSGPACK_SUBPROTOCOL_V2 });

/**
 * Whether a subprotocol is version 2 (acts, sessions and invites may be sent on it).
 * @param {string | null | undefined} subprotocol what the server answered
 * @returns {boolean} true for rollhouse.v2.*
 */
export function isV2(subprotocol) {
  return subprotocol === JSON_SUBPROTOCOL_V2 || subprotocol === MSGPACK_SUBPROTOCOL_V2;
}

/**
 * The codec of a negotiated subprotocol ("" or null: none was chosen, which means JSON).
 * @param {string | null | undefined} subprotocol what the server answered
 * @returns {Codec} the codec
 */
export function codecFor(subprotocol) {
  if (!subprotocol || subprotocol === JSON_SUBPROTOCOL) return JSON_CODEC;
  if (subprotocol === MSGPACK_SUBPROTOCOL) return MSGPACK_CODEC;
  if (subprotocol === JSON_SUBPROTOCOL_V2) return JSON_CODEC_V2;
  if (subprotocol === MSGPACK_SUBPROTOCOL_V2) return MSGPACK_CODEC_V2;
  throw new ProtocolError(MALFORMED, `unknown subprotocol '${subprotocol}'`);
}
