// The client: one seat (or a spectator) at one room, kept connected. It is the shell around
// a sans-I/O Session (session.js: the mirror, the seat token, the unanswered commands): it
// owns the socket, the timers and the promises.
//
//   const me = await new Client("ws://127.0.0.1:8000/ws", roomId, { name: "ann" }).connect();
//   const view = await me.waitFor((v) => v.you.legal.length > 0);  // the mirror of your view
//   const seq = await me.send({ type: "roll" });                   // resolves on ack
//   // a refusal rejects with CommandRejected: err.code === "rollie/pile_empty"
//
// When the connection drops it reconnects by itself: exponential backoff with jitter, the
// next URL of the list each time (several nodes of one service), the seat token kept, the
// last applied seq sent so the server replays only what was missed, unanswered commands
// re-sent with their ids. room/moved is followed at once; a final error (room/replaced,
// room/not_found, room/full, room/locked, room/removed, room/no_spectators,
// player/unauthorized, room/bad_seat_token, room/origin_forbidden, room/closed,
// server/banned: codes.js's FINAL_CODES) ends the client:
// `failure` says why, and every pending promise rejects with ConnectionLost. A node that
// sends nothing for three ping intervals counts as dead.
//
// Version 2 (docs/protocol.md 15): with `session` (a player's session token, from
// createGuest or signIn in http.js) the seat is the player's, on any device; `invite`
// opens a private room; act() sends chat lines and the host's actions; `player` is your
// player id from the welcome. The client offers rollhouse.v2.* first, then v1; on a server
// that only speaks v1 the hello goes without session, invite, new_seat_token, client and
// attempt, and act() is refused.
//
// Runs in browsers (their WebSocket) and in Node (the `ws` package, loaded when needed, or
// any WebSocket class passed as `WebSocket`).

import {
  JSON_SUBPROTOCOL,
  JSON_SUBPROTOCOL_V2,
  MAX_SERVER_FRAME,
  MSGPACK_SUBPROTOCOL,
  MSGPACK_SUBPROTOCOL_V2,
  codecFor,
  isV2,
} from "./codec.js";
import { MOVED, ORIGIN_FORBIDDEN, TOO_MANY_CONNECTIONS } from "./codes.js";
import { ActRejected, ClientError, CommandRejected, ConnectionLost, ProtocolError } from "./errors.js";
import { ping, resync } from "./messages.js";
import { Session } from "./session.js";

/**
 * @typedef {import("./messages.js").ClientMessage} ClientMessage
 * @typedef {import("./messages.js").ServerMessage} ServerMessage
 * @typedef {import("./messages.js").GameCommand} GameCommand
 * @typedef {import("./messages.js").View} View
 * @typedef {import("./messages.js").Role} Role
 * @typedef {import("./messages.js").Welcome} Welcome
 * @typedef {import("./messages.js").Presence} Presence
 * @typedef {import("./messages.js").ErrorMessage} ErrorMessage
 * @typedef {import("./messages.js").Reject} Reject
 * @typedef {import("./mirror.js").Action} Action
 * @typedef {import("./mirror.js").ViewAction} ViewAction
 * @typedef {import("./codec.js").Codec} Codec
 */

/**
 * The part of a WebSocket (the browser's, or the `ws` package's) the client uses.
 * @typedef {object} SocketLike
 * @property {string} binaryType
 * @property {string} protocol the subprotocol the server chose
 * @property {number} readyState 1 while open
 * @property {(data: string | Uint8Array) => void} send
 * @property {(code?: number, reason?: string) => void} close
 * @property {(() => void)} [terminate] ends the connection at once (the `ws` package)
 * @property {((event: unknown) => void) | null} onopen
 * @property {((event: {data: unknown}) => void) | null} onmessage
 * @property {((event: {code: number, reason: string}) => void) | null} onclose
 * @property {((event: {message?: string}) => void) | null} onerror
 */
/** @typedef {new (url: string, protocols: string[], options?: object) => SocketLike} SocketClass */

/**
 * @typedef {"connecting" | "connected" | "reconnecting" | "closed"} State
 * @typedef {object} Events What `on(name, fn)` may listen to, and what fn receives.
 * @property {Client} change the client, after every message that changed anything
 * @property {{state: State, retryIn: number | null}} status the connection's state (retryIn: seconds)
 * @property {Welcome} welcome after every (re)join
 * @property {ViewAction} view the mirror moved: {seq, events, view, previous}
 * @property {Presence} presence who is at the table
 * @property {ErrorMessage} error an error the server reported (fatal or not)
 * @property {Reject & {command: GameCommand}} reject a command was refused
 */

/**
 * @typedef {object} ClientOptions
 * @property {Role} [role] "player" (the default) or "spectator"
 * @property {string | null} [name] the player's name, 1..32 characters
 * @property {string | null} [seatToken] a seat token kept from before: rejoin that seat
 * @property {string | null} [session] v2: the player's session token (http.js createGuest, signIn)
 * @property {string | null} [invite] v2: a private room's invite code
 * @property {string | null} [newSeatToken] v2: the own token the free seat this player takes
 *   gets, sent in every hello until the welcome (drawn at random unless given: give the same
 *   one to a new Client that tries the same join again)
 * @property {1 | 2} [version] the newest protocol version to offer (2)
 * @property {"msgpack" | "json"} [encoding] the wire encoding (msgpack by default)
 * @property {boolean} [reconnect] reconnect when the connection drops (true by default)
 * @property {readonly [number, number]} [backoff] the first and the largest delay, ms ([50, 3000])
 * @property {number} [maxRetries] attempts in a row before giving up (50)
 * @property {number | null} [pingEvery] ms between pings; a node silent for three is dead (5000; null: never)
 * @property {SocketClass} [WebSocket] the WebSocket class (default: the browser's, or `ws` in Node)
 * @property {() => number} [random] a number in [0, 1) for the jitter (Math.random)
 */

/**
 * The delay before reconnect attempt `attempt` (1, 2, ...): exponential, capped, with jitter
 * (a random half of it taken off), as the Python SDK's.
 * @param {number} attempt 1 for the first retry
 * @param {readonly [number, number]} backoff the first and the largest delay, ms
 * @param {() => number} [random] a number in [0, 1)
 * @returns {number} milliseconds
 */
export function backoffDelay(attempt, [low, high], random = Math.random) {
  const ceiling = Math.min(high, low * 2 ** Math.min(attempt, 10));
  return ceiling * (0.5 + random() / 2);
}

/**
 * The WebSocket class to use: the one given, `ws` in Node, else the browser's.
 * @param {SocketClass | undefined} given the option
 * @returns {Promise<SocketClass>} the class
 */
async function socketClass(given) {
  if (given) return given;
  const inNode = typeof process !== "undefined" && Boolean(process.versions?.node);
  if (inNode) {
    const name = "ws"; // a variable: bundlers for browsers leave it alone
    const ws = await import(name);
    return /** @type {SocketClass} */ (ws.WebSocket ?? ws.default);
  }
  return /** @type {SocketClass} */ (/** @type {unknown} */ (globalThis.WebSocket));
}

/**
 * The code of a handshake the server refused, from the `ws` package's error text.
 * @param {{message?: string}} event an error event
 * @returns {string | null} room/origin_forbidden, room/too_many_connections, http/<status>, or null
 */
function handshakeCode(event) {
  const match = /Unexpected server response: (\d+)/.exec(event?.message ?? "");
  if (!match) return null;
  if (match[1] === "403") return ORIGIN_FORBIDDEN;
  if (match[1] === "429") return TOO_MANY_CONNECTIONS;
  return `http/${match[1]}`;
}

export class Client {
  /** @type {Partial<Record<keyof Events, ((payload: any) => void)[]>>} */
  #handlers = {};
  /** @type {Map<string, {command: GameCommand, act?: boolean, resolve: (seq: number) => void, reject: (error: Error) => void}>} */
  #answers = new Map();
  #v2 = false;
  /** @type {Set<() => void>} */
  #waiters = new Set();
  /** @type {SocketLike | null} */
  #ws = null;
  /** @type {Codec} */
  #codec;
  #attempt = 0;
  #closed = false;
  #moved = false;
  #welcomed = false;
  #heard = 0;
  #urlIndex = 0;
  #nextId = 1;
  #prefix = Math.random().toString(36).slice(2, 10);
  /** @type {{retry?: ReturnType<typeof setTimeout>, ping?: ReturnType<typeof setInterval>, resync?: ReturnType<typeof setTimeout>}} */
  #timers = {};
  /** @type {ClientError | null} */
  #failure = null;

  /**
   * @param {string | string[]} url the websocket URL (ws://host:port/ws), or several nodes' URLs
   * @param {string} room the room's id
   * @param {ClientOptions} [options] who joins, and how
   */
  constructor(url, room, options = {}) {
    this.urls = typeof url === "string" ? [url] : [...url];
    if (this.urls.length === 0) throw new TypeError("no URL");
    const role = options.role ?? "player";
    if (role !== "player" && role !== "spectator") throw new TypeError(`role must be player or spectator, got ${role}`);
    this.session = new Session({
      room,
      role,
      name: options.name ?? null,
      seatToken: options.seatToken ?? null,
      session: options.session ?? null,
      invite: options.invite ?? null,
      newSeatToken: options.newSeatToken ?? null,
    });
    this.version = options.version ?? 2;
    if (this.version !== 1 && this.version !== 2) throw new TypeError(`version must be 1 or 2, got ${this.version}`);
    if (this.version === 1 && (options.session || options.invite)) throw new TypeError("session and invite need version 2");
    this.encoding = options.encoding ?? "msgpack";
    this.reconnect = options.reconnect ?? true;
    /** @type {readonly [number, number]} */
    this.backoff = options.backoff ?? [50, 3000];
    this.maxRetries = options.maxRetries ?? 50;
    this.pingEvery = options.pingEvery === undefined ? 5000 : options.pingEvery;
    this.random = options.random ?? Math.random;
    this.WebSocket = options.WebSocket;
    /** reconnects that opened a socket */
    this.reconnects = 0;
    /** server time minus local time, seconds, from the last welcome or pong */
    this.clockOffset = 0;
    /** @type {State} */
    this.state = "closed";
    this.#codec = codecFor(this.encoding === "msgpack" ? MSGPACK_SUBPROTOCOL : JSON_SUBPROTOCOL);
  }

  // -- the mirror ----------------------------------------------------------------------------

  /** @returns {string} the room's id */
  get room() {
    return this.session.room;
  }

  /** @returns {import("./mirror.js").Mirror} the view, seq, seat and presence */
  get mirror() {
    return this.session.mirror;
  }

  /** @returns {View | null} the viewer's view at `seq` (null until the first welcome) */
  get view() {
    return this.mirror.view;
  }

  /** @returns {number} the sequence number of `view` */
  get seq() {
    return this.mirror.seq;
  }

  /** @returns {number | null} the seat from the last welcome (null for a spectator) */
  get seat() {
    return this.mirror.seat;
  }

  /** @returns {string | null} the game from the last welcome */
  get game() {
    return this.mirror.game;
  }

  /** @returns {string | null} the seat's secret: keep it to come back to the seat */
  get seatToken() {
    return this.mirror.seatToken;
  }

  /** @returns {string | null} v2: your player id, from the last welcome (null without a session) */
  get player() {
    return this.session.player;
  }

  /** @returns {boolean} the connection speaks version 2 (acts may be sent) */
  get v2() {
    return this.#v2;
  }

  /** @returns {Presence | null} the last presence message */
  get presence() {
    return this.mirror.presence;
  }

  /** @returns {[number, string[]][]} (seq, event names) of every patch applied */
  get events() {
    return this.mirror.events;
  }

  /** @returns {string} the URL of the node in use */
  get url() {
    return this.urls[this.#urlIndex];
  }

  /** @returns {boolean} the socket is open and welcomed (false while reconnecting) */
  get connected() {
    return this.#failure === null && this.#welcomed && this.#ws?.readyState === 1;
  }

  /** @returns {ClientError | null} why the client gave up, once it has */
  get failure() {
    return this.#failure;
  }

  /** @returns {number} when the last frame arrived (Date.now(), ms; 0 before the first socket opened) */
  get lastHeard() {
    return this.#heard;
  }

  /** @returns {number} the server's clock, unix seconds, as estimated from welcome and pong */
  serverNow() {
    return Date.now() / 1000 + this.clockOffset;
  }

  // -- events --------------------------------------------------------------------------------

  /**
   * Listen to an event; returns the function that stops listening.
   * @template {keyof Events} K
   * @param {K} name the event
   * @param {(payload: Events[K]) => void} fn called with its payload
   * @returns {() => void} unsubscribe
   */
  on(name, fn) {
    /** @type {((payload: any) => void)[]} */
    const list = this.#handlers[name] ?? [];
    this.#handlers[name] = list;
    list.push(fn);
    return () => {
      const i = list.indexOf(fn);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * @template {keyof Events} K
   * @param {K} name the event
   * @param {Events[K]} payload its payload
   */
  #emit(name, payload) {
    for (const fn of this.#handlers[name] ?? []) {
      try {
        fn(payload);
      } catch (error) {
        console.error(`rollhouse: a ${name} listener threw`, error); // a caller's bug must not stop the reader
      }
    }
  }

  /**
   * @param {State} state the new state
   * @param {number | null} [retryIn] seconds until the next attempt
   */
  #setState(state, retryIn = null) {
    this.state = state;
    this.#emit("status", { state, retryIn });
  }

  // -- lifecycle -----------------------------------------------------------------------------

  /**
   * Open the connection and wait for the first welcome.
   * @param {{timeout?: number | null}} [options] ms to wait (10000); null: no bound (a page
   *   that waits for a server coming back)
   * @returns {Promise<this>} the client, welcomed
   */
  async connect({ timeout = 10000 } = {}) {
    this.#closed = false;
    this.WebSocket = await socketClass(this.WebSocket);
    this.#setState("connecting");
    this.#open();
    await this.#until(() => this.#welcomed, timeout, "no welcome");
    return this;
  }

  /** Close for good: the socket, the timers; pending commands reject with client/closed. */
  close() {
    this.#closed = true;
    this.#stopTimers();
    const ws = this.#ws;
    this.#ws = null;
    this.session.dropped();
    this.#welcomed = false;
    if (ws) ws.close(1000, "bye");
    this.#fail(new ConnectionLost("client/closed", "the client was closed"));
    this.#setState("closed");
  }

  /** Drop the socket abruptly, as a network failure would: the client reconnects (tests, demos). */
  drop() {
    const ws = this.#ws;
    if (!ws) return;
    if (ws.terminate) ws.terminate();
    else ws.close();
  }

  #stopTimers() {
    clearTimeout(this.#timers.retry);
    this.#timers.retry = undefined;
    clearInterval(this.#timers.ping);
    clearTimeout(this.#timers.resync);
  }

  #open() {
    const Socket = /** @type {SocketClass} */ (this.WebSocket);
    this.#welcomed = false;
    let ws;
    try {
      ws = new Socket(this.url, this.#offered(), { maxPayload: MAX_SERVER_FRAME, perMessageDeflate: false });
    } catch {
      this.#retry();
      return;
    }
    ws.binaryType = "arraybuffer";
    this.#ws = ws;
    /** @type {string | null} */
    let refused = null;
    ws.onopen = () => {
      if (ws !== this.#ws) return;
      this.#heard = Date.now();
      this.#codec = codecFor(ws.protocol);
      this.#v2 = isV2(ws.protocol);
      if (!this.#v2) {
        // a v1 server: no session, invite or own seat token in the hello, and acts cannot be answered
        this.session.session = null;
        this.session.invite = null;
        this.session.newSeatToken = null;
        this.session.clientId = null;
        for (const [id, entry] of this.#answers) {
          if (!entry.act) continue;
          this.session.acts.delete(id);
          this.session.pending.delete(id);
          this.#answers.delete(id);
          entry.reject(new ClientError("client/not_v2", "the server speaks protocol version 1: no acts"));
        }
      }
      for (const msg of this.session.opened()) this.#send(msg);
      this.#startPings(ws);
    };
    ws.onmessage = (event) => {
      if (ws !== this.#ws) return;
      this.#heard = Date.now();
      this.#receive(/** @type {import("./codec.js").Frame} */ (event.data));
    };
    ws.onerror = (event) => {
      refused = handshakeCode(event) ?? refused;
    };
    ws.onclose = (event) => {
      if (ws !== this.#ws) return;
      this.#ws = null;
      this.#closedSocket(event.code === 4000 ? event.reason : refused);
    };
  }

  /** @returns {string[]} the subprotocols to offer: version 2 first (unless version is 1) */
  #offered() {
    const [v2, v1] =
      this.encoding === "msgpack" ? [MSGPACK_SUBPROTOCOL_V2, MSGPACK_SUBPROTOCOL] : [JSON_SUBPROTOCOL_V2, JSON_SUBPROTOCOL];
    return this.version === 2 ? [v2, v1] : [v1];
  }

  /**
   * The socket closed: reconnect, or give up.
   * @param {string | null} code the close reason of close code 4000, or a refused handshake's code
   */
  #closedSocket(code) {
    this.#welcomed = false;
    clearInterval(this.#timers.ping);
    const next = this.session.dropped(code);
    if (next === "reconnect_now") this.#moved = true;
    const failure = this.session.failure;
    if (failure !== null) this.#fail(new ConnectionLost(failure.code, failure.message));
    else if (!this.#closed && !this.reconnect) this.#fail(new ConnectionLost("client/closed", "connection closed"));
    if (this.#closed || this.#failure !== null) return;
    this.#retry();
  }

  #retry() {
    this.#attempt += 1;
    if (this.#attempt > this.maxRetries) {
      this.#fail(new ConnectionLost("client/gave_up", "could not reconnect"));
      return;
    }
    this.#urlIndex = (this.#urlIndex + 1) % this.urls.length;
    const delay = this.#moved ? 0 : backoffDelay(this.#attempt, this.backoff, this.random);
    this.#moved = false;
    this.#setState("reconnecting", delay / 1000);
    this.#timers.retry = setTimeout(() => this.#reopen(), delay);
  }

  #reopen() {
    this.#timers.retry = undefined;
    if (this.#closed || this.#failure !== null) return;
    this.reconnects += 1;
    this.#open();
  }

  /**
   * Reconnect now instead of when the backoff's delay ends (the network came back: a
   * browser's "online" event). Does nothing unless a reconnect is waiting.
   * @returns {boolean} whether a waiting reconnect was started now
   */
  retryNow() {
    if (this.#timers.retry === undefined) return false;
    clearTimeout(this.#timers.retry);
    this.#reopen();
    return true;
  }

  /** @param {SocketLike} ws the open socket */
  #startPings(ws) {
    clearInterval(this.#timers.ping);
    const every = this.pingEvery;
    if (!every) return;
    this.#timers.ping = setInterval(() => {
      if (ws !== this.#ws) return;
      if (Date.now() - this.#heard > 3 * every) this.drop(); // silent: count the node as dead
      else this.#send(ping(0));
    }, every);
  }

  /**
   * @param {ClientMessage} msg a message
   */
  #send(msg) {
    const ws = this.#ws;
    if (!ws || ws.readyState !== 1) return; // sent again after the reconnect, if it matters
    try {
      ws.send(this.#codec.encode(msg));
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
    }
  }

  // -- messages ------------------------------------------------------------------------------

  /** @param {import("./codec.js").Frame} frame what the socket delivered */
  #receive(frame) {
    let msg;
    try {
      msg = this.#codec.decodeServer(frame);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      console.warn(`rollhouse: unreadable server frame skipped: ${error}`); // a newer or broken server
      return;
    }
    if (msg.type === "welcome" || msg.type === "pong") this.clockOffset = msg.server_time - Date.now() / 1000;
    const step = this.session.receive(msg);
    for (const out of step.send) this.#send(out);
    for (const action of step.actions) this.#act(action);
    if (step.outcome === "reconnect_now") this.#moved = true;
    if (step.outcome === "give_up" && this.session.failure !== null) {
      const { code, message } = this.session.failure;
      this.#fail(new ConnectionLost(code, message));
    }
    if (step.resyncLater) {
      clearTimeout(this.#timers.resync);
      this.#timers.resync = setTimeout(() => {
        if (this.mirror.resyncing) this.#send(resync());
      }, 1000);
    }
    this.#notify();
  }

  /** @param {Action} action one of the mirror's actions */
  #act(action) {
    switch (action.type) {
      case "welcomed":
        this.#welcomed = true;
        this.#attempt = 0;
        this.#setState("connected");
        this.#emit("welcome", action.welcome);
        return;
      case "ack":
        this.#answers.get(action.id)?.resolve(action.seq);
        this.#answers.delete(action.id);
        return;
      case "reject": {
        const entry = this.#answers.get(action.id);
        this.#answers.delete(action.id);
        const r = action.reject;
        if (entry) {
          this.#emit("reject", { ...r, command: entry.command });
          const Rejected = entry.act ? ActRejected : CommandRejected;
          entry.reject(new Rejected(r.code, r.message, r.details));
        }
        return;
      }
      case "view":
        this.#emit("view", action);
        return;
      case "presence":
        this.#emit("presence", action.presence);
        return;
      case "error":
        if (action.error.code !== MOVED) this.#emit("error", action.error); // moving is not an error to show
        return;
      default:
    }
  }

  /** @param {ClientError} error why the client ends */
  #fail(error) {
    if (this.#failure === null) this.#failure = error;
    for (const entry of this.#answers.values()) entry.reject(this.#failure);
    this.#answers.clear();
    this.session.pending.clear();
    this.session.acts.clear();
    this.#stopTimers();
    const ws = this.#ws;
    if (ws && !this.#closed) {
      this.#ws = null;
      ws.close(1000, "bye");
    }
    if (!this.#closed) this.#setState("closed");
    this.#notify();
  }

  #notify() {
    for (const wake of [...this.#waiters]) wake();
    this.#emit("change", this);
  }

  // -- API -----------------------------------------------------------------------------------

  /** @returns {string} a fresh command id */
  nextId() {
    return `${this.#prefix}-${this.#nextId++}`;
  }

  /**
   * Send a game command: resolves with the seq of its last event (on ack), rejects with
   * CommandRejected (nothing changed) or ConnectionLost. A command sent while the client
   * reconnects waits, and a command unanswered when the socket dropped is sent again with
   * its id: the server applies an id once.
   * @param {GameCommand} command e.g. {type: "take", value: 5}
   * @param {string} [id] the command's id (default: a fresh one)
   * @returns {Promise<number>} the ack's seq
   */
  send(command, id = this.nextId()) {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    let frames;
    try {
      frames = this.session.command(id, command);
    } catch (error) {
      return Promise.reject(error);
    }
    const answer = new Promise((resolve, reject) => this.#answers.set(id, { command, resolve, reject }));
    for (const msg of frames) this.#send(msg);
    return /** @type {Promise<number>} */ (answer);
  }

  /**
   * Send an act (version 2, docs/protocol.md 15.3): a chat line ({type: "chat", text}) or a
   * host's action ({type: "lock"}, {type: "remove", seat}, {type: "fill"}, {type: "host",
   * player}, {type: "admit", player}, {type: "hide", seq}). Resolves with the seq of its
   * record (on ack); rejects with ActRejected (room/not_host, chat/rate_limited, ...: nothing
   * changed), ConnectionLost, or ClientError client/not_v2 on a version 1 connection.
   * Unanswered acts are sent again with their ids after a reconnect, like commands.
   * @param {import("./plain.js").PlainMap & {type: string}} a the act
   * @param {string} [id] its id (default: a fresh one)
   * @returns {Promise<number>} the ack's seq
   */
  act(a, id = this.nextId()) {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#ws !== null && this.#ws.readyState === 1 && !this.#v2)
      return Promise.reject(new ClientError("client/not_v2", "the server speaks protocol version 1: no acts"));
    if (this.version === 1) return Promise.reject(new ClientError("client/not_v2", "this client speaks version 1: no acts"));
    let frames;
    try {
      frames = this.session.act(id, a);
    } catch (error) {
      return Promise.reject(error);
    }
    const answer = new Promise((resolve, reject) => this.#answers.set(id, { command: a, act: true, resolve, reject }));
    for (const msg of frames) this.#send(msg);
    return /** @type {Promise<number>} */ (answer);
  }

  /** Ask for a fresh snapshot. */
  resync() {
    this.#send(resync());
  }

  /** Ping now (the client also pings every `pingEvery` ms); the pong updates `clockOffset`. */
  ping() {
    this.#send(ping(1));
  }

  /**
   * Wait until `predicate(view)` holds; resolves with the view.
   * @param {(view: View) => unknown} predicate checked now and after every change
   * @param {{timeout?: number | null}} [options] ms (10000); null: no bound
   * @returns {Promise<View>} the view
   */
  async waitFor(predicate, { timeout = 10000 } = {}) {
    await this.#until(() => this.view !== null && Boolean(predicate(this.view)), timeout, "the predicate did not hold");
    return /** @type {View} */ (this.view);
  }

  /**
   * Wait until the mirror has reached `seq` (an ack's seq: your command's effect is in view).
   * @param {number} seq a sequence number
   * @param {{timeout?: number | null}} [options] ms (10000)
   * @returns {Promise<View>} the view
   */
  waitSeq(seq, options) {
    return this.waitFor(() => this.seq >= seq, options);
  }

  /**
   * @param {() => boolean} done the condition
   * @param {number | null} timeout ms, or null
   * @param {string} what for the timeout's message
   * @returns {Promise<void>} settles when `done()` holds, the client fails, or time runs out
   */
  #until(done, timeout, what) {
    return new Promise((resolve, reject) => {
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      const check = () => {
        if (this.#failure !== null) reject(this.#failure);
        else if (done()) resolve();
        else return;
        this.#waiters.delete(check);
        clearTimeout(timer);
      };
      check();
      if (this.#failure !== null || done()) return;
      this.#waiters.add(check);
      if (timeout !== null)
        timer = setTimeout(() => {
          this.#waiters.delete(check);
          reject(new ClientError("client/timeout", `${what} within ${timeout} ms`));
        }, timeout);
    });
  }
}
