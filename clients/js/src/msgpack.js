// MessagePack for plain data, both ways, with the protocol's strictness (no dependency).
//
// Why our own and not @msgpack/msgpack: the protocol uses a small, fixed part of msgpack
// (nil, bool, int, float, str, array, map) and refuses the rest, and the refusals must be
// the server's (docs/protocol.md 2): invalid UTF-8 and non-str map keys are
// protocol/malformed, bin and ext values protocol/bad_field, trailing bytes malformed.
// A general library decodes those leniently (replacement characters, numeric keys turned
// into strings, bin into Uint8Array) and would need a second pass that can no longer tell;
// and a dependency-free module runs in a browser as is, with no bundler or import map.
// The shared vectors in tests/vectors/codec pin the bytes both SDKs produce and accept.
//
// Encoding: a JavaScript integer (Number.isInteger) becomes the smallest msgpack int, as
// the Python msgpack package packs it; any other number a float 64; a bigint an int 64.
// Decoding: ints outside JavaScript's safe range become bigints (exact); floats numbers.

import { MALFORMED } from "./codes.js";
import { ProtocolError } from "./errors.js";
import { checkPlain } from "./plain.js";

/** A msgpack bin value, kept only so that checkPlain can refuse it in walk order. */
class Bin {
  /** @param {Uint8Array} bytes the bin's bytes */
  constructor(bytes) {
    this.bytes = bytes;
  }
}

/** A msgpack ext value (timestamps included), kept only to be refused. */
class Ext {
  /**
   * @param {number} type the ext type
   * @param {Uint8Array} bytes its payload
   */
  constructor(type, bytes) {
    this.type = type;
    this.bytes = bytes;
  }
}

const MAX_NESTING = 1024;
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const UTF8_OUT = new TextEncoder();
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The msgpack bytes of plain data (checked first: ProtocolError if it is not plain).
 * @param {unknown} value plain data
 * @returns {Uint8Array} its msgpack encoding
 */
export function encode(value) {
  checkPlain(value);
  const out = new Writer();
  out.value(value);
  return out.bytes();
}

/**
 * The plain data in msgpack `bytes`; ProtocolError (malformed or bad_field) otherwise.
 * @param {Uint8Array} bytes one msgpack value, nothing after it
 * @returns {unknown} plain data
 */
export function decode(bytes) {
  const value = parse(bytes);
  checkPlain(value);
  return value;
}

/**
 * The value in msgpack `bytes`, not yet checked as plain data (bin and ext values are
 * kept as objects that checkPlain refuses): the codec checks the top level first.
 * @param {Uint8Array} bytes one msgpack value, nothing after it
 * @returns {unknown} the value
 */
export function parse(bytes) {
  const reader = new Reader(bytes);
  const value = reader.value(0);
  if (reader.pos !== bytes.length) throw malformed("extra bytes after the value");
  return value;
}

/**
 * @param {string} why what is wrong
 * @returns {ProtocolError} a protocol/malformed error
 */
function malformed(why) {
  return new ProtocolError(MALFORMED, `invalid msgpack: ${why}`);
}

class Writer {
  constructor() {
    this.buf = new Uint8Array(256);
    this.view = new DataView(this.buf.buffer);
    this.pos = 0;
  }

  /** @returns {Uint8Array} what was written */
  bytes() {
    return this.buf.slice(0, this.pos);
  }

  /** @param {number} n bytes about to be written */
  room(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }

  /** @param {number[]} list bytes */
  raw(...list) {
    this.room(list.length);
    for (const b of list) this.buf[this.pos++] = b;
  }

  /**
   * @param {number} tag the type byte
   * @param {number} size 1, 2, 4 or 8 bytes of unsigned big-endian length or value
   * @param {number | bigint} n the number
   */
  sized(tag, size, n) {
    this.room(1 + size);
    this.buf[this.pos++] = tag;
    if (size === 1) this.view.setUint8(this.pos, Number(n));
    else if (size === 2) this.view.setUint16(this.pos, Number(n));
    else if (size === 4) this.view.setUint32(this.pos, Number(n));
    else this.view.setBigUint64(this.pos, BigInt.asUintN(64, BigInt(n)));
    this.pos += size;
  }

  /** @param {unknown} value plain data (already checked) */
  value(value) {
    if (value === null) return this.raw(0xc0);
    if (value === false) return this.raw(0xc2);
    if (value === true) return this.raw(0xc3);
    if (typeof value === "number") return Number.isInteger(value) ? this.int(BigInt(value)) : this.float(value);
    if (typeof value === "bigint") return this.int(value);
    if (typeof value === "string") return this.str(value);
    if (Array.isArray(value)) {
      this.length(value.length, 0x90, 0xdc, 0xdd);
      for (const item of value) this.value(item);
      return undefined;
    }
    const entries = Object.entries(/** @type {object} */ (value));
    this.length(entries.length, 0x80, 0xde, 0xdf);
    for (const [key, item] of entries) {
      this.str(key);
      this.value(item);
    }
    return undefined;
  }

  /** @param {bigint} n a signed 64-bit integer */
  int(n) {
    if (n >= 0n) {
      if (n < 128n) return this.raw(Number(n));
      if (n < 256n) return this.sized(0xcc, 1, n);
      if (n < 65536n) return this.sized(0xcd, 2, n);
      if (n < 4294967296n) return this.sized(0xce, 4, n);
      return this.sized(0xcf, 8, n);
    }
    if (n >= -32n) return this.raw(Number(n) & 0xff);
    this.room(9);
    if (n >= -128n) {
      this.buf[this.pos++] = 0xd0;
      this.view.setInt8(this.pos, Number(n));
      this.pos += 1;
    } else if (n >= -32768n) {
      this.buf[this.pos++] = 0xd1;
      this.view.setInt16(this.pos, Number(n));
      this.pos += 2;
    } else if (n >= -2147483648n) {
      this.buf[this.pos++] = 0xd2;
      this.view.setInt32(this.pos, Number(n));
      this.pos += 4;
    } else {
      this.buf[this.pos++] = 0xd3;
      this.view.setBigInt64(this.pos, n);
      this.pos += 8;
    }
    return undefined;
  }

  /** @param {number} x a finite float */
  float(x) {
    this.room(9);
    this.buf[this.pos++] = 0xcb;
    this.view.setFloat64(this.pos, x);
    this.pos += 8;
  }

  /** @param {string} text a string of valid Unicode */
  str(text) {
    const utf8 = UTF8_OUT.encode(text);
    const n = utf8.length;
    if (n < 32) this.raw(0xa0 | n);
    else if (n < 256) this.sized(0xd9, 1, n);
    else if (n < 65536) this.sized(0xda, 2, n);
    else this.sized(0xdb, 4, n);
    this.room(n);
    this.buf.set(utf8, this.pos);
    this.pos += n;
  }

  /**
   * @param {number} n a container's length
   * @param {number} fix the fix tag (length in its low 4 bits)
   * @param {number} tag16 the 16-bit length tag
   * @param {number} tag32 the 32-bit length tag
   */
  length(n, fix, tag16, tag32) {
    if (n < 16) this.raw(fix | n);
    else if (n < 65536) this.sized(tag16, 2, n);
    else this.sized(tag32, 4, n);
  }
}

class Reader {
  /** @param {Uint8Array} bytes what to read */
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
  }

  /**
   * @param {number} n bytes wanted
   * @returns {number} where they start
   */
  take(n) {
    const at = this.pos;
    if (at + n > this.bytes.length) throw malformed("truncated");
    this.pos = at + n;
    return at;
  }

  /**
   * @param {number} depth how many containers hold this value
   * @returns {unknown} the next value
   */
  value(depth) {
    const tag = this.bytes[this.take(1)];
    if (tag < 0x80) return tag;
    if (tag >= 0xe0) return tag - 256;
    if (tag < 0x90) return this.map(tag & 0x0f, depth);
    if (tag < 0xa0) return this.array(tag & 0x0f, depth);
    if (tag < 0xc0) return this.str(tag & 0x1f);
    const v = this.view;
    switch (tag) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return new Bin(this.blob(v.getUint8(this.take(1))));
      case 0xc5: return new Bin(this.blob(v.getUint16(this.take(2))));
      case 0xc6: return new Bin(this.blob(v.getUint32(this.take(4))));
      case 0xc7: return this.ext(v.getUint8(this.take(1)));
      case 0xc8: return this.ext(v.getUint16(this.take(2)));
      case 0xc9: return this.ext(v.getUint32(this.take(4)));
      case 0xca: return v.getFloat32(this.take(4));
      case 0xcb: return v.getFloat64(this.take(8));
      case 0xcc: return v.getUint8(this.take(1));
      case 0xcd: return v.getUint16(this.take(2));
      case 0xce: return v.getUint32(this.take(4));
      case 0xcf: return big(v.getBigUint64(this.take(8)));
      case 0xd0: return v.getInt8(this.take(1));
      case 0xd1: return v.getInt16(this.take(2));
      case 0xd2: return v.getInt32(this.take(4));
      case 0xd3: return big(v.getBigInt64(this.take(8)));
      case 0xd4: return this.ext(1);
      case 0xd5: return this.ext(2);
      case 0xd6: return this.ext(4);
      case 0xd7: return this.ext(8);
      case 0xd8: return this.ext(16);
      case 0xd9: return this.str(v.getUint8(this.take(1)));
      case 0xda: return this.str(v.getUint16(this.take(2)));
      case 0xdb: return this.str(v.getUint32(this.take(4)));
      case 0xdc: return this.array(v.getUint16(this.take(2)), depth);
      case 0xdd: return this.array(v.getUint32(this.take(4)), depth);
      case 0xde: return this.map(v.getUint16(this.take(2)), depth);
      case 0xdf: return this.map(v.getUint32(this.take(4)), depth);
      default: throw malformed(`reserved byte 0x${tag.toString(16)}`);
    }
  }

  /**
   * @param {number} n its length in bytes
   * @returns {Uint8Array} the bytes
   */
  blob(n) {
    const at = this.take(n);
    return this.bytes.subarray(at, at + n);
  }

  /**
   * @param {number} n the payload's length
   * @returns {Ext} the ext value (refused later, in walk order)
   */
  ext(n) {
    const type = this.view.getInt8(this.take(1));
    return new Ext(type, this.blob(n));
  }

  /**
   * @param {number} n its length in bytes
   * @returns {string} the decoded string
   */
  str(n) {
    try {
      return UTF8.decode(this.blob(n));
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw malformed("a str that is not valid UTF-8");
    }
  }

  /**
   * @param {number} n items
   * @param {number} depth containers around it
   * @returns {unknown[]} the array
   */
  array(n, depth) {
    if (depth >= MAX_NESTING) throw malformed("nested too deep");
    if (n > this.bytes.length - this.pos) throw malformed("truncated");
    const list = new Array(n);
    for (let i = 0; i < n; i++) list[i] = this.value(depth + 1);
    return list;
  }

  /**
   * @param {number} n entries
   * @param {number} depth containers around it
   * @returns {{[key: string]: unknown}} the map
   */
  map(n, depth) {
    if (depth >= MAX_NESTING) throw malformed("nested too deep");
    if (2 * n > this.bytes.length - this.pos) throw malformed("truncated");
    /** @type {{[key: string]: unknown}} */
    const map = {};
    for (let i = 0; i < n; i++) {
      const key = this.value(depth + 1);
      if (typeof key !== "string") throw malformed("a map key that is not a str");
      const item = this.value(depth + 1);
      if (key === "__proto__") Object.defineProperty(map, key, { value: item, enumerable: true, writable: true, configurable: true });
      else map[key] = item;
    }
    return map;
  }
}

/**
 * A 64-bit int as a number when that is exact, else as a bigint.
 * @param {bigint} n the int
 * @returns {number | bigint} its value
 */
function big(n) {
  return n >= -SAFE && n <= SAFE ? Number(n) : n;
}
