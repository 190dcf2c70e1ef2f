// The Client shell against a scripted in-process websocket server (the `ws` package): the
// reconnect loop, re-sent ids, final errors, room/moved, timeouts and handshake refusals.
// The whole games against the real server are tests/clients/test_js_sdk.py.

import assert from "node:assert/strict";
import { once } from "node:events";
import { afterEach, test } from "node:test";
import { WebSocketServer } from "ws";

import { Client, backoffDelay } from "../src/client.js";
import { ClientError, CommandRejected, ConnectionLost, ProtocolError } from "../src/errors.js";
import { decode, encode } from "../src/msgpack.js";

const VIEW = { game: { round: 1 }, room: { status: "playing" }, you: { seat: 0, legal: [{ type: "roll" }] } };
/** @type {WebSocketServer[]} */
const servers = [];

/**
 * @typedef {{socket: import("ws").WebSocket, messages: any[], next: () => Promise<any>, send: (msg: object) => void}} Peer
 */

/**
 * A websocket server that hands each connection, as a Peer, to `onPeer`.
 * @param {(peer: Peer) => void} onPeer the script
 * @param {object} [options] more WebSocketServer options
 * @returns {Promise<string>} its ws:// URL
 */
async function fakeServer(onPeer, options = {}) {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1", handleProtocols: (offered) => [...offered][0], ...options });
  servers.push(server);
  server.on("connection", (socket) => {
    /** @type {any[]} */
    const messages = [];
    /** @type {((msg: any) => void)[]} */
    const waiting = [];
    socket.on("message", (data, binary) => {
      const msg = binary ? decode(new Uint8Array(/** @type {Buffer} */ (data))) : JSON.parse(String(data));
      const wake = waiting.shift();
      if (wake) wake(msg);
      else messages.push(msg);
    });
    const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((resolve) => waiting.push(resolve)));
    onPeer({ socket, messages, next, send: (msg) => socket.send(JSON.stringify(msg)) });
  });
  await once(server, "listening");
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return `ws://127.0.0.1:${port}/ws`;
}

/**
 * @param {number} seq the welcome's seq
 * @param {object | null} view the snapshot, or null to resume
 * @returns {object} a welcome
 */
const welcome = (seq, view) => ({ type: "welcome", room: "r", game: "rollie", role: "player", seat: 0, seat_token: "tok-0", seq, view, server_time: Date.now() / 1000 });

afterEach(async () => {
  for (const server of servers.splice(0)) {
    for (const socket of server.clients) socket.terminate();
    server.close();
  }
});

const options = /** @type {const} */ ({ encoding: "json", backoff: [5, 20], pingEvery: null });

test("a dropped socket: the next hello resumes the seat, the unanswered command goes again with its id", async () => {
  /** @type {any[]} */
  const hellos = [];
  /** @type {any[]} */
  const commands = [];
  let connections = 0;
  const url = await fakeServer(async (peer) => {
    connections += 1;
    hellos.push(await peer.next());
    peer.send(connections === 1 ? welcome(3, VIEW) : welcome(3, null));
    const cmd = await peer.next();
    commands.push(cmd);
    if (connections === 1) return peer.socket.terminate(); // the command is lost with the socket
    peer.send({ type: "patch", from: 3, to: 4, ops: [{ op: "replace", path: ["game", "round"], value: 2 }], events: ["rolled"] });
    peer.send({ type: "ack", id: cmd.id, seq: 4 });
  });
  const client = await new Client(url, "r", { ...options, name: "ann" }).connect();
  const seq = await client.send({ type: "roll" }, "c-1");
  assert.equal(seq, 4);
  assert.deepEqual(client.view?.game, { round: 2 });
  const own = client.session.newSeatToken;
  assert.match(String(own), /^[A-Za-z0-9_-]{32}$/);
  const id = client.session.clientId;
  assert.match(String(id), /^[A-Za-z0-9_-]{16}$/);
  assert.deepEqual(hellos[0], { type: "hello", room: "r", role: "player", name: "ann", seat_token: null, last_seq: null, new_seat_token: own, client: id, attempt: 1 });
  assert.deepEqual(hellos[1], { type: "hello", room: "r", role: "player", name: "ann", seat_token: "tok-0", last_seq: 3, client: id, attempt: 2 });
  assert.deepEqual(commands.map((c) => c.id), ["c-1", "c-1"]);
  assert.equal(client.reconnects, 1);
  client.close();
});

test("a socket lost before its welcome: the next hello carries the same own seat token", async () => {
  /** @type {any[]} */
  const hellos = [];
  const url = await fakeServer(async (peer) => {
    const hello = await peer.next();
    hellos.push(hello);
    if (hellos.length === 1) return peer.socket.terminate(); // the seat taken, its welcome lost
    peer.send({ ...welcome(3, VIEW), seat_token: hello.new_seat_token });
  });
  const client = await new Client(url, "r", { ...options, name: "ann" }).connect();
  assert.equal(hellos.length, 2);
  assert.match(hellos[0].new_seat_token, /^[A-Za-z0-9_-]{32}$/);
  assert.deepEqual(hellos[1], { ...hellos[0], attempt: 2 }); // the same hello, the next connection
  assert.equal(client.seatToken, hellos[0].new_seat_token);
  assert.equal(client.session.hello().new_seat_token, undefined); // a seat token now: no own token sent
  client.close();
});

test("a reject is a CommandRejected with the code and details; nothing changes", async () => {
  const url = await fakeServer(async (peer) => {
    await peer.next();
    peer.send(welcome(3, VIEW));
    const cmd = await peer.next();
    peer.send({ type: "reject", id: cmd.id, code: "rollie/pile_empty", message: "no 0 bill left", details: { value: 0 } });
  });
  const client = await new Client(url, "r", options).connect();
  await assert.rejects(client.send({ type: "take", value: 0 }), (/** @type {any} */ e) => {
    assert.ok(e instanceof CommandRejected);
    assert.equal(e.code, "rollie/pile_empty");
    assert.deepEqual(e.details, { value: 0 });
    assert.equal(String(e), "rollie/pile_empty: no 0 bill left");
    return true;
  });
  assert.equal(client.seq, 3);
  client.close();
});

test("room/replaced ends the client: pending commands and waits reject, no reconnect", async () => {
  let connections = 0;
  const url = await fakeServer(async (peer) => {
    connections += 1;
    await peer.next();
    peer.send(welcome(3, VIEW));
    await peer.next(); // the command
    peer.send({ type: "error", code: "room/replaced", message: "another tab", field: null, fatal: true });
    peer.socket.close(4000, "room/replaced");
  });
  const client = await new Client(url, "r", options).connect();
  const waiting = client.waitFor(() => false, { timeout: null });
  await assert.rejects(client.send({ type: "roll" }), (/** @type {any} */ e) => e instanceof ConnectionLost && e.code === "room/replaced");
  await assert.rejects(waiting, (/** @type {any} */ e) => e.code === "room/replaced");
  await assert.rejects(client.send({ type: "roll" }), (/** @type {any} */ e) => e.code === "room/replaced");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(connections, 1);
  assert.equal(client.state, "closed");
});

test("room/moved: the client goes at once to the next URL and resumes", async () => {
  const first = await fakeServer(async (peer) => {
    await peer.next();
    peer.send(welcome(3, VIEW));
    peer.send({ type: "error", code: "room/moved", message: "moved", field: null, fatal: true });
    peer.socket.close(4000, "room/moved");
  });
  /** @type {any[]} */
  const hellos = [];
  const second = await fakeServer(async (peer) => {
    hellos.push(await peer.next());
    peer.send(welcome(3, null));
  });
  /** @type {any[]} */
  const errors = [];
  const client = new Client([first, second], "r", { ...options, backoff: [10000, 10000] }); // backoff would time out
  client.on("error", (e) => errors.push(e));
  await client.connect();
  await client.waitFor(() => client.reconnects === 1 && client.connected, { timeout: 2000 });
  assert.equal(client.url, second);
  assert.equal(hellos[0].last_seq, 3);
  assert.deepEqual(errors, []); // moving is not an error to show
  client.close();
});

test("waitFor gives up after its timeout with client/timeout", async () => {
  const url = await fakeServer(async (peer) => {
    await peer.next();
    peer.send(welcome(3, VIEW));
  });
  const client = await new Client(url, "r", options).connect();
  assert.deepEqual(await client.waitFor((v) => v.room.status === "playing"), VIEW); // already true
  await assert.rejects(client.waitFor(() => false, { timeout: 30 }), (/** @type {any} */ e) => e instanceof ClientError && e.code === "client/timeout");
  client.close();
});

test("a command without a type is refused before it is sent", async () => {
  const url = await fakeServer(async (peer) => {
    await peer.next();
    peer.send(welcome(3, VIEW));
  });
  const client = await new Client(url, "r", options).connect();
  await assert.rejects(client.send(/** @type {any} */ ({ value: 5 })), (/** @type {any} */ e) => e instanceof ProtocolError && e.field === "command.type");
  client.close();
});

test("a handshake refused with 403 (origin) ends the client", async () => {
  const url = await fakeServer(() => {}, { verifyClient: (/** @type {any} */ _info, /** @type {any} */ done) => done(false, 403) });
  const client = new Client(url, "r", options);
  await assert.rejects(client.connect({ timeout: 2000 }), (/** @type {any} */ e) => e instanceof ConnectionLost && e.code === "room/origin_forbidden");
});

test("a server that never answers: the client gives up after maxRetries", async () => {
  const url = await fakeServer((peer) => peer.socket.terminate());
  const client = new Client(url, "r", { ...options, maxRetries: 3, backoff: [1, 2] });
  await assert.rejects(client.connect({ timeout: 2000 }), (/** @type {any} */ e) => e.code === "client/gave_up");
});

test("retryNow: a reconnect waiting for its backoff starts at once (the browser's online event)", async () => {
  let connections = 0;
  const url = await fakeServer(async (peer) => {
    connections += 1;
    await peer.next();
    peer.send(connections === 1 ? welcome(3, VIEW) : welcome(3, null));
    if (connections === 1) peer.socket.terminate();
  });
  // a backoff of a minute: only retryNow() can bring the second connection within the test
  const client = new Client(url, "r", { ...options, backoff: [60000, 60000] });
  assert.equal(client.retryNow(), false, "nothing waits before the first connection");
  await client.connect();
  const heard = client.lastHeard;
  assert.ok(heard > 0 && heard <= Date.now());
  await new Promise((resolve) => client.on("status", (s) => s.state === "reconnecting" && resolve(s)));
  assert.equal(client.retryNow(), true);
  assert.equal(client.retryNow(), false, "the reconnect is no longer waiting");
  await client.waitFor(() => client.connected, { timeout: 5000 });
  assert.equal(connections, 2);
  assert.equal(client.reconnects, 1);
  assert.ok(client.lastHeard >= heard);
  client.close();
  assert.equal(client.retryNow(), false, "a closed client stays closed");
});

test("msgpack frames both ways", async () => {
  /** @type {any[]} */
  const hellos = [];
  const url = await fakeServer(async (peer) => {
    hellos.push(await peer.next());
    peer.socket.send(encode(welcome(3, VIEW)));
  });
  const client = await new Client(url, "r", { ...options, encoding: "msgpack" }).connect();
  assert.deepEqual(client.view, VIEW);
  assert.equal(hellos[0].type, "hello");
  client.close();
});

test("backoff doubles from the first delay up to the largest, with jitter", () => {
  assert.equal(backoffDelay(1, [50, 3000], () => 0), 50);
  assert.equal(backoffDelay(1, [50, 3000], () => 0.999999) < 100, true);
  assert.equal(backoffDelay(3, [50, 3000], () => 0), 200);
  assert.equal(backoffDelay(20, [50, 3000], () => 0), 1500);
  assert.equal(backoffDelay(20, [50, 3000], () => 0.999999) <= 3000, true);
});
