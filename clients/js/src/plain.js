// Plain data, as docs/protocol.md section 2 defines it: null, booleans, integers in the
// signed 64-bit range (a bigint outside JavaScript's safe integers), finite floats, strings
// of valid Unicode, arrays, and maps with string keys, nested at most MAX_DEPTH deep.
// checkPlain refuses anything else with the code the server would answer (protocol/plain.py).

import { BAD_FIELD, MALFORMED } from "./codes.js";
import { ProtocolError } from "./errors.js";

/** Containers nest at most this deep (the top-level message is level 1). */
export const MAX_DEPTH = 32;
export const INT_MIN = -(2n ** 63n);
export const INT_MAX = 2n ** 63n - 1n;
const FLOAT_LIMIT = 2 ** 63;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * @typedef {null | boolean | number | bigint | string | PlainList | PlainMap} Plain
 * @typedef {Plain[]} PlainList
 * @typedef {{[key: string]: Plain}} PlainMap
 */

/**
 * Whether `value` is a map of plain data's kind: an object made by `{}`, JSON.parse or
 * Object.create(null), not an array, a Date or a class instance.
 * @param {unknown} value anything
 * @returns {value is {[key: string]: unknown}} whether it is a plain map
 */
export function isMap(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Throw a ProtocolError naming the first offending path unless `value` is plain data.
 * @param {unknown} value a decoded frame, or a message about to be encoded
 * @param {string} [path] where `value` sits ("" for the top level)
 * @param {number} [depth] how many containers hold it
 * @returns {void}
 */
export function checkPlain(value, path = "", depth = 0) {
  if (value === null || typeof value === "boolean") return;
  switch (typeof value) {
    case "string":
      if (LONE_SURROGATE.test(value)) throw err(BAD_FIELD, path, "invalid Unicode");
      return;
    case "number":
      if (!Number.isFinite(value)) throw err(BAD_FIELD, path, "NaN and Infinity are not allowed");
      if (Number.isInteger(value) && (value < -FLOAT_LIMIT || value >= FLOAT_LIMIT))
        throw err(BAD_FIELD, path, "integer out of 64-bit range");
      return;
    case "bigint":
      if (value < INT_MIN || value > INT_MAX) throw err(BAD_FIELD, path, "integer out of 64-bit range");
      return;
    default:
  }
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) throw err(MALFORMED, path, `nested deeper than ${MAX_DEPTH}`);
    value.forEach((item, i) => checkPlain(item, `${path}[${i}]`, depth + 1));
    return;
  }
  if (isMap(value)) {
    if (depth >= MAX_DEPTH) throw err(MALFORMED, path, `nested deeper than ${MAX_DEPTH}`);
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) throw err(BAD_FIELD, path, "invalid Unicode");
      checkPlain(item, path ? `${path}.${key}` : key, depth + 1);
    }
    return;
  }
  const kind = value === undefined ? "undefined" : value?.constructor?.name ?? typeof value;
  throw err(BAD_FIELD, path, `${kind} is not plain data`);
}

/**
 * @param {string} code the error code
 * @param {string} path the offending path
 * @param {string} message what is wrong
 * @returns {ProtocolError} the error to throw
 */
function err(code, path, message) {
  return new ProtocolError(code, path ? `${path}: ${message}` : message, path || null);
}
