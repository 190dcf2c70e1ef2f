// The page's part of the connection (clients/web/js/connection.js): the seat tokens kept per
// room, the websocket URL of the page's own server, the name a hello may carry. The protocol
// itself is the SDK's (clients/js/test).

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { Client } from "@rollhouse/client";
import { BACKOFF_MS, PING_EVERY_MS, RoomClient, helloName, saveToken, savedToken, tokenKey, wsUrl } from "../../web/js/connection.js";

/** @type {any} */
const g = globalThis;

/** A localStorage for Node: a Map behind getItem/setItem/removeItem. */
function fakeStorage() {
  const map = new Map();
  return {
    map,
    getItem: (/** @type {string} */ k) => (map.has(k) ? map.get(k) : null),
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => void map.set(k, String(v)),
    removeItem: (/** @type {string} */ k) => void map.delete(k),
  };
}

afterEach(() => {
  delete g.localStorage;
});

test("seat tokens are kept per room under rollhouse.seat.<room>, and forgotten", () => {
  const storage = fakeStorage();
  g.localStorage = storage;
  assert.equal(tokenKey("r-abc"), "rollhouse.seat.r-abc");
  assert.equal(savedToken("r-abc"), null);
  saveToken("r-abc", "tok-1");
  saveToken("r-other", "tok-2");
  assert.equal(savedToken("r-abc"), "tok-1");
  assert.deepEqual([...storage.map.keys()].sort(), ["rollhouse.seat.r-abc", "rollhouse.seat.r-other"]);
  saveToken("r-abc", null); // a bad token: forgotten
  assert.equal(savedToken("r-abc"), null);
  assert.equal(savedToken("r-other"), "tok-2");
});

test("no storage (private mode, or none at all): no token, and saving is harmless", () => {
  assert.equal(savedToken("r-abc"), null); // no localStorage in Node
  saveToken("r-abc", "tok-1");
  g.localStorage = { getItem() { throw new Error("denied"); }, setItem() { throw new Error("denied"); } };
  assert.equal(savedToken("r-abc"), null);
  saveToken("r-abc", "tok-1");
});

test("the websocket is the page's own server's /ws: wss for an https page", () => {
  assert.equal(wsUrl({ protocol: "http:", host: "127.0.0.1:8000" }), "ws://127.0.0.1:8000/ws");
  assert.equal(wsUrl({ protocol: "https:", host: "play.example" }), "wss://play.example/ws");
});

test("the hello's name: at most 32 characters, none when blank", () => {
  assert.equal(helloName("Ana"), "Ana");
  assert.equal(helloName("x".repeat(40)), "x".repeat(32));
  assert.equal(helloName("   "), null);
  assert.equal(helloName(""), null);
  assert.equal(helloName(null), null);
});

test("a RoomClient is the SDK's Client with the page's settings, and the seat token kept", () => {
  g.localStorage = fakeStorage();
  saveToken("r-abc", "tok-1");
  const player = new RoomClient({ room: "r-abc", name: "Ana", url: "ws://127.0.0.1:1/ws" });
  assert.ok(player.client instanceof Client);
  assert.equal(player.client.seatToken, "tok-1");
  assert.equal(player.client.encoding, "json"); // the browser tests read the frames as JSON
  assert.deepEqual(player.client.backoff, BACKOFF_MS);
  assert.equal(player.client.pingEvery, PING_EVERY_MS);
  assert.equal(player.client.maxRetries, Infinity); // a page never gives up on a lost network
  assert.equal(player.role, "player");
  assert.equal(player.view, null);
  assert.equal(player.pending.size, 0);
  const watcher = new RoomClient({ room: "r-abc", role: "spectator", url: "ws://127.0.0.1:1/ws" });
  assert.equal(watcher.client.seatToken, null, "a spectator sends no seat token");
});
