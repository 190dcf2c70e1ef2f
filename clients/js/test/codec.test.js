// What the shared codec vectors cannot hold: frames over the caps, 64-bit ints, values
// JavaScript has and the protocol refuses, and keys that are special to JavaScript.

import assert from "node:assert/strict";
import { test } from "node:test";

import { JSON_CODEC, MAX_FRAME, MAX_SERVER_FRAME, MSGPACK_CODEC, codecFor } from "../src/codec.js";
import { ProtocolError } from "../src/errors.js";
import { decode, encode } from "../src/msgpack.js";

const code = (/** @type {string} */ c) => (/** @type {any} */ e) => e instanceof ProtocolError && e.code === c;

test("64-bit ints: exact as bigints past 2^53, numbers below", () => {
  const big = { a: 2n ** 62n, b: -(2n ** 63n), c: 2 ** 53 - 1, d: -(2 ** 40) };
  assert.deepEqual(decode(encode(big)), big);
  assert.throws(() => encode({ a: 2n ** 63n }), code("protocol/bad_field"));
  assert.throws(() => encode({ a: 2 ** 64 }), code("protocol/bad_field"));
});

test("what JavaScript has and plain data does not is refused before sending", () => {
  for (const value of [NaN, Infinity, undefined, new Date(0), new Uint8Array(1), "\ud800", () => 1]) {
    assert.throws(() => JSON_CODEC.encode({ type: "command", id: "x", command: { type: "t", v: value } }), code("protocol/bad_field"));
    assert.throws(() => MSGPACK_CODEC.encode({ type: "command", id: "x", command: { type: "t", v: value } }), code("protocol/bad_field"));
  }
  let deep = {};
  for (let i = 0; i < 40; i++) deep = { d: deep };
  assert.throws(() => MSGPACK_CODEC.encode({ type: "command", id: "x", command: { type: "t", deep } }), code("protocol/malformed"));
});

test("a client frame over 64 KiB is refused before sending, as the server would", () => {
  const text = "é".repeat(MAX_FRAME / 2); // 2 UTF-8 bytes each: the JSON frame is over the cap
  assert.throws(() => JSON_CODEC.encode({ type: "command", id: "x", command: { type: "say", text } }), code("protocol/too_large"));
  assert.throws(() => MSGPACK_CODEC.encode({ type: "command", id: "x", command: { type: "say", text } }), code("protocol/too_large"));
});

test("a server frame over 1 MiB is refused unread; up to 1 MiB is read", () => {
  const fits = JSON.stringify({ type: "snapshot", seq: 1, view: { s: "x".repeat(MAX_SERVER_FRAME - 60) } });
  assert.equal(JSON_CODEC.decodeServer(fits).type, "snapshot");
  const over = JSON.stringify({ type: "snapshot", seq: 1, view: { s: "é".repeat(MAX_SERVER_FRAME / 2) } });
  assert.throws(() => JSON_CODEC.decodeServer(over), code("protocol/too_large"));
  assert.throws(() => MSGPACK_CODEC.decodeServer(new Uint8Array(MAX_SERVER_FRAME + 1)), code("protocol/too_large"));
});

test("a __proto__ key is an ordinary key, never the prototype", () => {
  const frame = encode({ type: "snapshot", seq: 1, view: JSON.parse('{"__proto__": {"polluted": true}}') });
  const msg = /** @type {any} */ (MSGPACK_CODEC.decodeServer(frame));
  assert.deepEqual(Object.keys(msg.view), ["__proto__"]);
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
  assert.equal(Object.getPrototypeOf(msg.view), Object.prototype);
});

test("the subprotocol picks the codec; none means JSON", () => {
  assert.equal(codecFor("rollhouse.v1.msgpack"), MSGPACK_CODEC);
  assert.equal(codecFor(""), JSON_CODEC);
  assert.throws(() => codecFor("rollhouse.v2.cbor"), code("protocol/malformed"));
});
