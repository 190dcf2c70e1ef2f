// The page's connection to its room: the JS SDK's Client (@rollhouse/client, served at /sdk/,
// imported through the pages' import map) plus what only a browser page needs:
// - the seat token kept in localStorage (rollhouse.seat.<room>): a reload, a return from the
//   lobby, a second tab take the same seat; dropped when the server says it is bad;
// - the page's own origin for the websocket URL (wsUrl);
// - the browser's "online" event reconnects at once, and a tab back from sleep or from the
//   background checks the line at once (a ping, or a drop when nothing came for too long);
// - a player who finds every seat taken (room/full) watches instead, right away.
// The protocol itself (the mirror, resume from the last seq, command ids re-sent after a
// reconnect, backoff with jitter, final errors) is the SDK's: there is no copy of it here.

import { Client } from "@rollhouse/client";

/**
 * @typedef {import("@rollhouse/client").GameCommand} GameCommand
 * @typedef {import("@rollhouse/client").View} View
 * @typedef {import("@rollhouse/client").Welcome} Welcome
 * @typedef {import("@rollhouse/client").Presence} Presence
 * @typedef {import("@rollhouse/client").ErrorMessage} ErrorMessage
 * @typedef {import("@rollhouse/client").Reject} Reject
 * @typedef {import("@rollhouse/client").Role} Role
 * @typedef {"connecting" | "connected" | "reconnecting" | "closed"} State
 */

/**
 * What `on(name, fn)` may listen to, and what fn receives.
 * @typedef {object} Events
 * @property {{state: State, retryIn: number | null}} status the connection's state
 * @property {Welcome} welcome after every (re)join
 * @property {{view: View, previous: View | null, events: string[], seq: number}} view the mirror moved
 * @property {Presence} presence who is at the table
 * @property {ErrorMessage & {switched?: boolean}} error an error the server reported;
 *   `switched`: the room was full, the page watches instead
 * @property {Reject & {command: GameCommand}} reject a command was refused
 */

/** Ping this often (ms); a line silent for three pings (45 s) counts as dead. */
export const PING_EVERY_MS = 15000;
/** The first and the largest delay before a reconnect (ms), with jitter (the SDK's backoff). */
export const BACKOFF_MS = /** @type {const} */ ([500, 10000]);

/**
 * @param {string} room a room's id
 * @returns {string} the localStorage key of its seat token
 */
export function tokenKey(room) {
  return `rollhouse.seat.${room}`;
}

/**
 * @param {string} room a room's id
 * @returns {string | null} the seat token this browser keeps for it
 */
export function savedToken(room) {
  try {
    return localStorage.getItem(tokenKey(room));
  } catch {
    return null;
  }
}

/**
 * @param {string} room a room's id
 * @param {string | null | undefined} token the seat token to keep, or nothing to forget it
 */
export function saveToken(room, token) {
  try {
    if (token) localStorage.setItem(tokenKey(room), token);
    else localStorage.removeItem(tokenKey(room));
  } catch {
    /* private mode: the seat lasts as long as the page */
  }
}

/**
 * The websocket URL of the page's own server.
 * @param {{protocol: string, host: string}} where the page's location
 * @returns {string} ws://host/ws, or wss:// for a page served over https
 */
export function wsUrl(where = location) {
  const scheme = where.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${where.host}/ws`;
}

/**
 * A player's name as the hello takes it: trimmed to 32 characters, null when empty.
 * @param {string | null | undefined} name the name the page has
 * @returns {string | null} the name to send
 */
export function helloName(name) {
  const cut = (name ?? "").slice(0, 32);
  return cut.trim() ? cut : null;
}

/**
 * @typedef {object} RoomOptions
 * @property {string} room the room's id
 * @property {Role} [role] player (the default) or spectator
 * @property {string | null} [name] the player's name (without a session)
 * @property {string} [url] the websocket URL (the page's own server)
 * @property {string | null} [session] the player's session token
 * @property {string | null} [invite] a private room's invite code
 */

/** One viewer of one room: the page's shell around the SDK's Client. */
export class RoomClient {
  /** @type {Partial<Record<keyof Events, ((payload: any) => void)[]>>} */
  #handlers = {};
  /** @type {Client} */
  #client;
  #started = false;

  /** @param {RoomOptions} options who joins which room */
  constructor({ room, role = "player", name = null, url = wsUrl(), session = null, invite = null }) {
    this.room = room;
    /** @type {Role} */
    this.role = role;
    this.name = helloName(name);
    this.url = url;
    this.session = session;
    this.invite = invite;
    this.#client = this.#make();
    this._online = () => this.#client.retryNow();
    // back from sleep or a background tab: check the line at once instead of at the next ping
    this._visible = () => {
      const client = this.#client;
      if (document.visibilityState !== "visible" || !client.connected) return;
      if (Date.now() - client.lastHeard > 3 * PING_EVERY_MS) client.drop();
      else client.ping();
    };
  }

  /** @returns {Client} a new SDK client for this page's role, its events passed on */
  #make() {
    const client = new Client(this.url, this.room, {
      role: this.role,
      name: this.name,
      seatToken: this.role === "player" ? savedToken(this.room) : null,
      session: this.session,
      invite: this.invite,
      encoding: "json",
      backoff: BACKOFF_MS,
      maxRetries: Infinity,
      pingEvery: PING_EVERY_MS,
    });
    const mine = () => client === this.#client; // a client replaced (room/full) says nothing more
    client.on("status", (s) => mine() && this.#emit("status", s));
    client.on("view", (v) => mine() && this.#emit("view", v));
    client.on("presence", (p) => mine() && this.#emit("presence", p));
    client.on("reject", (r) => mine() && this.#emit("reject", r));
    client.on("welcome", (w) => {
      if (!mine()) return;
      this.role = w.role;
      // a seat we came back to by our session comes with no token: keep the one we had
      if (w.role === "player" && (w.seat_token || !client.player)) saveToken(this.room, w.seat_token);
      this.#emit("welcome", w);
    });
    client.on("error", (e) => mine() && this.#error(e));
    return client;
  }

  /** @param {ErrorMessage} e an error the server reported */
  #error(e) {
    if (e.code === "room/bad_seat_token") saveToken(this.room, null);
    if (e.code === "room/full" && this.role === "player") {
      // every seat is taken: watch instead, right away
      this.role = "spectator";
      const old = this.#client;
      this.#client = this.#make();
      queueMicrotask(() => old.close());
      this.#emit("error", { ...e, fatal: false, switched: true });
      if (this.#started) this.#connect();
      return;
    }
    this.#emit("error", e);
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
      } catch (err) {
        console.error(err);
      }
    }
  }

  /**
   * Listen to an event.
   * @template {keyof Events} K
   * @param {K} name the event
   * @param {(payload: Events[K]) => void} fn called with its payload
   * @returns {this} the client
   */
  on(name, fn) {
    /** @type {((payload: any) => void)[]} */
    const list = this.#handlers[name] ?? [];
    this.#handlers[name] = list;
    list.push(fn);
    return this;
  }

  /** @returns {Client} the SDK's client in use (a new one after a switch to watching) */
  get client() {
    return this.#client;
  }

  /** @returns {View | null} the mirrored view */
  get view() {
    return this.#client.view;
  }

  /** @returns {number} the sequence number of `view` */
  get seq() {
    return this.#client.seq;
  }

  /** @returns {number | null} our seat (null for a spectator) */
  get seat() {
    return this.#client.seat;
  }

  /** @returns {string | null} the room's game */
  get game() {
    return this.#client.game;
  }

  /** @returns {string | null} our player id, from the welcome */
  get player() {
    return this.#client.player;
  }

  /** @returns {boolean} a resync was asked for and its snapshot has not come */
  get resyncing() {
    return this.#client.mirror.resyncing;
  }

  /** @returns {ReadonlyMap<string, unknown>} the commands and acts not answered yet */
  get pending() {
    return this.#client.session.pending;
  }

  /** @returns {State} the connection's state */
  get state() {
    return this.#client.state;
  }

  /** @returns {number} server time now (unix seconds) */
  serverNow() {
    return this.#client.serverNow();
  }

  /** @returns {this} the client, connecting */
  start() {
    this.#started = true;
    window.addEventListener("online", this._online);
    document.addEventListener("visibilitychange", this._visible);
    this.#connect();
    return this;
  }

  #connect() {
    // the first welcome may be long in coming (a server restarting): no bound; a final
    // error is an "error" event
    this.#client.connect({ timeout: null }).catch(() => {});
  }

  close() {
    this.#started = false;
    window.removeEventListener("online", this._online);
    document.removeEventListener("visibilitychange", this._visible);
    this.#client.close();
  }

  /**
   * Send a game command.
   * @param {GameCommand} command the command
   * @returns {Promise<number>} the ack's seq; rejects with the SDK's CommandRejected or ConnectionLost
   */
  send(command) {
    return this.#client.send(command);
  }

  /**
   * Send an act (a chat line, a host's action); settled like a command.
   * @param {import("@rollhouse/client").GameCommand} act the act
   * @returns {Promise<number>} the ack's seq
   */
  act(act) {
    return this.#client.act(act);
  }
}
