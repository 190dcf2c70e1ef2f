// The shared vectors (tests/vectors/) run through this SDK: the mirror, patches, codecs, error
// codes and outcomes, and reconnect-and-resume sessions. The Python SDK runs the same files
// (tests/clients/test_mirror_vectors.py, tests/clients/test_session_vectors.py,
// tests/protocol/test_vectors.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { JSON_CODEC, MSGPACK_CODEC } from "../src/codec.js";
import { CATALOGUE, outcome } from "../src/codes.js";
import { ProtocolError } from "../src/errors.js";
import { Mirror } from "../src/mirror.js";
import { applyPatch } from "../src/patch.js";
import { Session } from "../src/session.js";
import { MIRROR_OUTPUTS, MIRROR_STATE, SESSION_OUTPUTS, SESSION_STATE, load, loadAll, mismatches, plain } from "./vectors.js";

const hex = (/** @type {string} */ text) => Uint8Array.from(text.match(/../g) ?? [], (b) => parseInt(b, 16));
const toHex = (/** @type {Uint8Array} */ bytes) => Buffer.from(bytes).toString("hex");

/**
 * The mirror's state and one step's actions as plain data, named as in the vectors.
 * @param {Mirror} m the mirror
 * @param {import("../src/mirror.js").Action[]} actions the step's actions
 * @returns {{[key: string]: any}} the observed step
 */
function observeMirror(m, actions) {
  /** @type {{[key: string]: any}} */
  const seen = {
    seq: m.seq, view: m.view, seat: m.seat, seat_token: m.seatToken, game: m.game, role: m.role,
    presence: m.presence, resyncing: m.resyncing, resume_seq: m.resumeSeq,
    welcomed: false, changed: null, resync_requested: false, answers: {}, error: null,
  };
  for (const a of actions) {
    if (a.type === "welcomed") seen.welcomed = true;
    else if (a.type === "view") seen.changed = a.events;
    else if (a.type === "resync") {
      assert.equal(seen.resync_requested, false, "one resync per step");
      seen.resync_requested = true;
    } else if (a.type === "ack") seen.answers[a.id] = { ack: a.seq };
    else if (a.type === "reject") {
      const { code, message, details } = a.reject;
      seen.answers[a.id] = { reject: { code, message, details } };
    } else if (a.type === "error") seen.error = { code: a.error.code, fatal: a.error.fatal };
  }
  return seen;
}

/**
 * Every mismatch of a mirror vector, as "step N: ...".
 * @param {any} vector a mirror vector
 * @param {Mirror} [mirror] the mirror to run (a fresh one by default)
 * @returns {string[]} the failures
 */
function runMirror(vector, mirror = new Mirror()) {
  return vector.steps.flatMap((/** @type {any} */ step, /** @type {number} */ n) => {
    const msg = JSON_CODEC.decodeServer(JSON.stringify(step.receive)); // a vector holds real wire data
    const seen = observeMirror(mirror, mirror.receive(msg));
    return mismatches(step.expect, seen, MIRROR_STATE, MIRROR_OUTPUTS).map((m) => `step ${n}: ${m}`);
  });
}

describe("mirror vectors", () => {
  const vectors = loadAll("mirror");
  test("there are vectors", () => {
    const names = vectors.map((v) => v.name);
    for (const name of ["welcome-snapshot", "gap-then-resync", "bad-op-resyncs", "fatal-error"]) assert.ok(names.includes(name));
  });
  for (const vector of vectors) test(vector.name, () => assert.deepEqual(runMirror(vector), []));

  test("a broken mirror fails them", () => {
    /** Applies any patch that fits, ignoring from/to (never resyncs on a gap). */
    class AppliesEveryPatch extends Mirror {
      /**
       * @param {import("../src/messages.js").ServerMessage} msg a message
       * @returns {import("../src/mirror.js").Action[]} the actions
       */
      receive(msg) {
        if (msg.type !== "patch") return super.receive(msg);
        let view;
        try {
          view = applyPatch(/** @type {Mirror} */ (this).view, msg.ops);
        } catch {
          return [];
        }
        this.view = view;
        this.seq = msg.to;
        return [{ type: "view", seq: msg.to, events: msg.events, view: /** @type {any} */ (view), previous: null }];
      }
    }
    const failing = vectors.filter((v) => runMirror(v, new AppliesEveryPatch()).length > 0).map((v) => v.name);
    for (const name of ["gap-then-resync", "old-patch-ignored", "bad-op-resyncs"]) assert.ok(failing.includes(name), name);
  });
});

describe("patch vectors", () => {
  for (const c of load("patches/apply.json").cases) {
    test(c.name, () => {
      const view = structuredClone(c.view);
      const ops = structuredClone(c.ops);
      if (c.expect.error) {
        assert.throws(() => applyPatch(view, ops), (/** @type {any} */ e) => e instanceof ProtocolError && e.code === c.expect.error);
      } else {
        assert.deepEqual(plain(applyPatch(view, ops)), c.expect.view);
      }
      assert.deepEqual(view, c.view, "the view was not changed");
      assert.deepEqual(ops, c.ops, "the ops were not changed");
    });
  }
});

describe("codec vectors", () => {
  for (const c of load("codec/encode.json").cases) {
    test(`encode: ${c.name}`, () => {
      assert.equal(JSON_CODEC.encode(c.message), c.json);
      assert.equal(toHex(/** @type {Uint8Array} */ (MSGPACK_CODEC.encode(c.message))), c.msgpack);
    });
  }
  for (const c of load("codec/decode.json").cases) {
    test(`decode: ${c.name}`, () => {
      const codec = c.frame.codec === "json" ? JSON_CODEC : MSGPACK_CODEC;
      const frame = "text" in c.frame ? c.frame.text : hex(c.frame.hex);
      if (c.expect.error) {
        assert.throws(() => codec.decodeServer(frame), (/** @type {any} */ e) => {
          assert.ok(e instanceof ProtocolError, String(e));
          assert.equal(e.code, c.expect.error.code, e.message);
          if ("field" in c.expect.error) assert.equal(e.field, c.expect.error.field, e.message);
          return true;
        });
      } else {
        assert.deepEqual(plain(codec.decodeServer(frame)), c.expect.message);
      }
    });
  }
});

describe("error vectors", () => {
  test("the catalogue is protocol/errors.py's", () => {
    const theirs = load("errors/catalogue.json").codes;
    assert.deepEqual(plain(CATALOGUE), theirs);
  });
  for (const c of load("errors/outcomes.json").cases) {
    test(`${c.code} (fatal: ${c.fatal}) -> ${c.outcome}`, () => assert.equal(outcome(c.code, c.fatal), c.outcome));
  }
});

/**
 * Every mismatch of a session vector, as "step N: ...".
 * @param {any} vector a session vector
 * @param {typeof Session} [Kind] the session class to run
 * @returns {string[]} the failures
 */
function runSession(vector, Kind = Session) {
  const { room, role, name, seat_token: seatToken, new_seat_token: newSeatToken, client: clientId } = vector.session;
  const session = new Kind({ room, role, name, seatToken, newSeatToken, clientId });
  return vector.steps.flatMap((/** @type {any} */ step, /** @type {number} */ n) => {
    /** @type {import("../src/messages.js").ClientMessage[]} */
    let sent = [];
    /** @type {import("../src/mirror.js").Action[]} */
    let actions = [];
    /** @type {string | null} */
    let next = null;
    if (step.open) sent = session.opened();
    else if (step.send) sent = session.command(step.send.id, step.send.command);
    else if (step.drop) next = session.dropped(step.drop.reason);
    else {
      const result = session.receive(JSON_CODEC.decodeServer(JSON.stringify(step.receive)));
      sent = result.send;
      actions = result.actions;
      next = result.outcome;
    }
    const seen = observeMirror(session.mirror, actions);
    delete seen.resync_requested;
    Object.assign(seen, { sent, outcome: next, pending: [...session.pending.keys()], failure: session.failure?.code ?? null });
    return mismatches(step.expect, seen, SESSION_STATE, SESSION_OUTPUTS).map((m) => `step ${n}: ${m}`);
  });
}

/**
 * Every mismatch of a version 2 session vector (tests/vectors/sessions-v2): the session
 * also holds a player session and an invite code, a step may be an `act`, `pending` lists
 * unanswered commands and acts in send order, and `player` is the welcome's player id.
 * @param {any} vector a session vector
 * @returns {string[]} the failures
 */
function runSessionV2(vector) {
  const { room, role, name, seat_token: seatToken, session: token, invite, new_seat_token: newSeatToken, client: clientId } = vector.session;
  const session = new Session({ room, role, name, seatToken, session: token, invite, newSeatToken, clientId });
  return vector.steps.flatMap((/** @type {any} */ step, /** @type {number} */ n) => {
    /** @type {import("../src/messages.js").ClientMessage[]} */
    let sent = [];
    /** @type {import("../src/mirror.js").Action[]} */
    let actions = [];
    /** @type {string | null} */
    let next = null;
    if (step.open) sent = session.opened();
    else if (step.send) sent = session.command(step.send.id, step.send.command);
    else if (step.act) sent = session.act(step.act.id, step.act.act);
    else if (step.drop) next = session.dropped(step.drop.reason);
    else {
      const result = session.receive(JSON_CODEC.decodeServer(JSON.stringify(step.receive)));
      sent = result.send;
      actions = result.actions;
      next = result.outcome;
    }
    const seen = observeMirror(session.mirror, actions);
    delete seen.resync_requested;
    Object.assign(seen, {
      sent,
      outcome: next,
      pending: [...session.pending.keys()],
      failure: session.failure?.code ?? null,
      player: session.player,
    });
    return mismatches(step.expect, seen, [...SESSION_STATE, "player"], SESSION_OUTPUTS).map((m) => `step ${n}: ${m}`);
  });
}

describe("session vectors, version 2: sessions, invites, acts", () => {
  const vectors = loadAll("sessions-v2");
  test("there are vectors", () => assert.ok(vectors.length >= 2));
  for (const vector of vectors) test(vector.name, () => assert.deepEqual(runSessionV2(vector), []));
});

describe("session vectors: reconnect and resume", () => {
  const vectors = loadAll("sessions");
  test("there are vectors", () => assert.ok(vectors.length >= 8));
  for (const vector of vectors) test(vector.name, () => assert.deepEqual(runSession(vector), []));

  test("a broken session fails them", () => {
    /** Re-sends nothing after a reconnect. */
    class ForgetsCommands extends Session {
      opened() {
        this.open = true;
        return [this.hello()];
      }
    }
    const failing = vectors.filter((v) => runSession(v, ForgetsCommands).length > 0).map((v) => v.name);
    for (const name of ["drop-mid-game-resume", "command-while-away", "answered-commands-are-not-resent"]) assert.ok(failing.includes(name), name);
  });
});
