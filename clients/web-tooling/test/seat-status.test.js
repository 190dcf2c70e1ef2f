// What a seat's card says of its player (clients/web/js/seat-status.js): its accessible name.

import assert from "node:assert/strict";
import { test } from "node:test";

import { seatLabel } from "../../web/js/seat-status.js";

/**
 * @param {number | null} seat the viewer's seat
 * @returns {import("../../web/js/seat-status.js").SeatContext} a context whose t() shows key and params
 */
const ctx = (seat) => ({
  seat,
  seatName: (s) => ["Ana", "Bruno"][s],
  t: (key, params) => `${key} ${JSON.stringify(params)}`,
});

test("a seat's card names its player, and says whether it is you or a bot", () => {
  assert.equal(seatLabel(ctx(0), 0), 'seat.label_you {"name":"Ana"}');
  assert.equal(seatLabel(ctx(0), 1), 'seat.label {"name":"Bruno"}');
  assert.equal(seatLabel(ctx(0), 1, true), 'seat.label_bot {"name":"Bruno"}');
  assert.equal(seatLabel(ctx(null), 0, true), 'seat.label_bot {"name":"Ana"}', "a spectator has no seat of its own");
});
