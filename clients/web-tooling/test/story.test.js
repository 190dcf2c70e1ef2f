// The story's pure parts (clients/web/js/story.js): history entries cut into the steps the live
// table saw, seat names as the log says them, and one step's lines.

import assert from "node:assert/strict";
import { test } from "node:test";

import { addStrings } from "../../web/js/i18n.js";
import tableStrings from "../../web/js/i18n/table.js";
import { cutSteps, describeStep, seatNameIn } from "../../web/js/story.js";

addStrings(tableStrings); // as the table and the replay pages do ("bot {n}" is the table's)

const ev = (/** @type {number} */ seq, /** @type {string} */ name, /** @type {object} */ more = {}) => ({ kind: "event", seq, name, at: 100 + seq, seat: null, ...more });

test("a command's events are one step; a write of the room's own (same time) is one step", () => {
  const entries = [
    { kind: "seated", seq: 1, seat: 0, at: 1 },
    ev(2, "rolled", { at: 5 }),
    ev(3, "took", { at: 5, seat: 0 }), // a command's last event closes its step
    ev(4, "timeout_tick", { at: 9 }),
    ev(5, "passed", { at: 9, by: "timeout", seat: 1 }),
  ];
  const steps = cutSteps(entries);
  assert.deepEqual(steps.map((s) => s.seq), [1, 3, 5]);
  assert.deepEqual(steps[1].events, ["rolled", "took"]);
  assert.equal(steps[1].seat, 0);
  assert.deepEqual(steps[2].events, ["timeout", "timeout_tick", "passed"], "the room's reason first");
  assert.equal(steps[2].by, "timeout");
  assert.equal(steps[0].kind, "seated");
  assert.deepEqual(cutSteps([]), []);
});

test("seat names: the player's, a bot's in the viewer's language, else the seat's number", () => {
  const view = { room: { seats: [{ name: "Ana" }, { name: "bot 2" }, { name: null }] } };
  assert.equal(seatNameIn(view, 0), "Ana");
  assert.equal(seatNameIn(view, 1), "bot 2");
  assert.equal(seatNameIn(view, 2), "Seat 3");
  assert.equal(seatNameIn(null, 0), "Seat 1");
});

test("one step's lines: the room's own first, then the game's describe()", () => {
  const previous = { room: { status: "waiting", seats: [{ name: "Ana", taken: false }] }, game: {} };
  const view = { room: { status: "playing", seats: [{ name: "Ana", taken: true }] }, game: {} };
  /** @type {any[]} */
  const asked = [];
  const game = { describe: (/** @type {any[]} */ ...args) => (asked.push(args[2]), [{ key: "g.line", params: {}, kind: "info" }]) };
  const [step] = cutSteps([{ kind: "seated", seq: 1, seat: 0, at: 1 }]);
  const lines = describeStep(game, step, previous, view, {});
  assert.deepEqual(lines.map((l) => l.key), ["story.seated", "story.started", "g.line"]);
  assert.deepEqual(lines[0].params, { name: "Ana", n: 1 });
  assert.deepEqual(asked, [["set_up"]], "only the start is described for a seat's step");
  const played = cutSteps([ev(2, "rolled", { seat: 0 })])[0];
  assert.deepEqual(describeStep(game, played, view, view, {}).map((l) => l.key), ["g.line"]);
  assert.deepEqual(asked[1], ["rolled"]);
});
