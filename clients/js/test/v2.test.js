// Version 2 of the protocol (docs/protocol.md 15) in the Client, against a scripted
// websocket server: the session and the invite code in the hello, welcome.player, acts
// answered like commands (ActRejected on a reject, sent again with their ids after a drop),
// and a server that only speaks version 1. The real server is tests/browser/test_js_sdk.py.

import assert from "node:assert/strict";
import { once } from "node:events";
import { afterEach, test } from "node:test";
import { WebSocketServer } from "ws";

import { Client } from "../src/client.js";
import { JSON_SUBPROTOCOL, JSON_SUBPROTOCOL_V2, MSGPACK_SUBPROTOCOL_V2, codecFor, isV2 } from "../src/codec.js";
import { ActRejected, ClientError, CommandRejected, ConnectionLost, ProtocolError } from "../src/errors.js";
import { act, hello, serverMessage } from "../src/messages.js";

const VIEW = { game: {}, room: { status: "waiting" }, chat: { players: [] } };
/** @type {WebSocketServer[]} */
const servers = [];

/**
 * A scripted server; `choose` picks the subprotocol from those offered.
 * @param {(peer: {next: () => Promise<any>, send: (m: object) => void, socket: any, offered: string[]}) => void} onPeer the script
 * @param {(offered: string[]) => string} [choose] the server's choice (the first offered)
 * @returns {Promise<string>} its URL
 */
async function fakeServer(onPeer, choose = (offered) => offered[0]) {
  /** @type {string[]} */
  let offered = [];
  const server = new WebSocketServer({
    port: 0,
    host: "127.0.0.1",
    handleProtocols: (protocols) => {
      offered = [...protocols];
      return choose(offered);
    },
  });
  servers.push(server);
  server.on("connection", (socket) => {
    /** @type {any[]} */
    const messages = [];
    /** @type {((msg: any) => void)[]} */
    const waiting = [];
    socket.on("message", (data) => {
      const msg = JSON.parse(String(data));
      const wake = waiting.shift();
      if (wake) wake(msg);
      else messages.push(msg);
    });
    const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((resolve) => waiting.push(resolve)));
    onPeer({ next, send: (msg) => socket.send(JSON.stringify(msg)), socket, offered });
  });
  await once(server, "listening");
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return `ws://127.0.0.1:${port}/ws`;
}

afterEach(() => {
  for (const server of servers.splice(0)) {
    for (const socket of server.clients) socket.terminate();
    server.close();
  }
});

const options = /** @type {const} */ ({ encoding: "json", backoff: [5, 20], pingEvery: null });
/**
 * @param {object | null} view the snapshot
 * @param {string | null} [player] the player id
 * @returns {object} a v2 welcome
 */
const welcome = (view, player = "p-0123456789abcdef") => ({
  type: "welcome", room: "r", game: "rollie", role: "player", seat: 1, seat_token: null, seq: 5, view,
  server_time: Date.now() / 1000, ...(player ? { player } : {}),
}); // prettier-ignore

test("v2 is offered first; the hello carries the session and the invite; welcome.player is kept", async () => {
  /** @type {any[]} */
  const hellos = [];
  /** @type {string[]} */
  let offered = [];
  const url = await fakeServer(async (peer) => {
    offered = peer.offered;
    hellos.push(await peer.next());
    peer.send(welcome(VIEW));
  });
  const client = await new Client(url, "r", { ...options, session: "p-0123456789abcdef.secret", invite: "Zk3Qv9mAa1" }).connect();
  assert.deepEqual(offered, [JSON_SUBPROTOCOL_V2, JSON_SUBPROTOCOL]);
  assert.deepEqual(hellos[0], {
    type: "hello", room: "r", role: "player", name: null, seat_token: null, last_seq: null,
    session: "p-0123456789abcdef.secret", invite: "Zk3Qv9mAa1", new_seat_token: client.session.newSeatToken,
    client: client.session.clientId, attempt: 1,
  }); // prettier-ignore
  assert.equal(client.player, "p-0123456789abcdef");
  assert.equal(client.v2, true);
  client.close();
});

test("an act is acked with its seq; a refused one is an ActRejected (a CommandRejected) with its code", async () => {
  /** @type {any[]} */
  const acts = [];
  const url = await fakeServer(async (peer) => {
    await peer.next();
    peer.send(welcome(VIEW));
    const first = await peer.next();
    acts.push(first);
    peer.send({ type: "ack", id: first.id, seq: 6 });
    const second = await peer.next();
    acts.push(second);
    peer.send({ type: "reject", id: second.id, code: "room/not_host", message: "only the room's host may do this", details: {} });
  });
  const client = await new Client(url, "r", { ...options, session: "p-0123456789abcdef.s" }).connect();
  assert.equal(await client.act({ type: "chat", text: "boa sorte!" }, "a1"), 6);
  await assert.rejects(client.act({ type: "lock" }), (/** @type {any} */ e) => {
    assert.ok(e instanceof ActRejected);
    assert.ok(e instanceof CommandRejected);
    assert.equal(e.code, "room/not_host");
    return true;
  });
  assert.deepEqual(acts[0], { type: "act", id: "a1", act: { type: "chat", text: "boa sorte!" } });
  client.close();
});

test("an act unanswered when the socket dropped is sent again with its id", async () => {
  /** @type {string[]} */
  const ids = [];
  let connections = 0;
  const url = await fakeServer(async (peer) => {
    connections += 1;
    await peer.next();
    peer.send(welcome(VIEW));
    const a = await peer.next();
    ids.push(a.id);
    if (connections === 1) return peer.socket.terminate();
    peer.send({ type: "ack", id: a.id, seq: 7 });
  });
  const client = await new Client(url, "r", { ...options, session: "p-0123456789abcdef.s" }).connect();
  assert.equal(await client.act({ type: "chat", text: "hi" }, "a-9"), 7);
  assert.deepEqual(ids, ["a-9", "a-9"]);
  client.close();
});

test("a server that speaks only v1: no session in the hello, acts refused with client/not_v2", async () => {
  /** @type {any[]} */
  const hellos = [];
  const url = await fakeServer(
    async (peer) => {
      hellos.push(await peer.next());
      peer.send(welcome(VIEW, null));
    },
    () => JSON_SUBPROTOCOL,
  );
  const client = await new Client(url, "r", { ...options, session: "p-0123456789abcdef.s", invite: "x" }).connect();
  assert.equal(client.v2, false);
  assert.equal(client.player, null);
  assert.ok(!("session" in hellos[0]) && !("invite" in hellos[0]));
  await assert.rejects(client.act({ type: "chat", text: "hi" }), (/** @type {any} */ e) => {
    assert.ok(e instanceof ClientError);
    assert.equal(e.code, "client/not_v2");
    return true;
  });
  client.close();
});

test("a dead session or a removal ends the client (final codes)", async () => {
  for (const code of ["player/unauthorized", "room/removed", "room/no_spectators"]) {
    const url = await fakeServer(async (peer) => {
      await peer.next();
      peer.send({ type: "error", code, message: "no", field: null, fatal: true });
      peer.socket.close(4000, code);
    });
    const client = new Client(url, "r", { ...options, session: "p-0123456789abcdef.s" });
    await assert.rejects(client.connect(), (/** @type {any} */ e) => e instanceof ConnectionLost && e.code === code);
    client.close();
  }
});

test("the v2 builders and checks: act, hello's optional fields, welcome.player", () => {
  assert.deepEqual(act("a1", { type: "hide", seq: 4 }), { type: "act", id: "a1", act: { type: "hide", seq: 4 } });
  assert.throws(() => act("", { type: "chat" }), ProtocolError);
  assert.throws(() => act("a", /** @type {any} */ ({ text: "x" })), (/** @type {any} */ e) => e.field === "act.type");
  assert.ok(!("session" in hello({ room: "r" })));
  assert.equal(hello({ room: "r", session: "s" }).session, "s");
  const w = serverMessage({ ...welcome(null), player: "p-1" });
  assert.equal(/** @type {any} */ (w).player, "p-1");
  assert.ok(!("player" in serverMessage({ ...welcome(null, null) })));
  assert.throws(() => serverMessage({ ...welcome(null), player: 5 }), ProtocolError);
  assert.ok(isV2(JSON_SUBPROTOCOL_V2) && isV2(MSGPACK_SUBPROTOCOL_V2) && !isV2(JSON_SUBPROTOCOL));
  assert.equal(codecFor(MSGPACK_SUBPROTOCOL_V2).binary, true);
});
