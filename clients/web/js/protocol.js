// The Rollhouse wire protocol for browsers (JSON subprotocol "rollhouse.v2.json").
//
// ViewMirror is the pure part: a mirror of this viewer's view (the welcome's snapshot,
// then every patch applied in order; a patch whose `from` is not our seq is a gap: ask
// for a snapshot ({type: "resync"}) and ignore patches until it comes), fed messages,
// returning what to do. RoomClient is the shell around it: socket, timers, storage.
// Commands carry a client id; send() returns a promise settled by the matching ack or reject. When the
// socket drops we reconnect with exponential backoff plus jitter, say hello with our
// seat token and last seq, and re-send every unanswered command with the same id (the
// server answers a repeated id with the first answer, so nothing runs twice).
// Version 2 (docs/protocol.md section 15): the hello also carries the player's session
// and a private room's invite code; `act` sends chat lines and the host's actions, answered
// like commands; the welcome names our player id.

export const SUBPROTOCOL = "rollhouse.v2.json";
const PING_EVERY_MS = 20000;
const SILENCE_LIMIT_MS = 45000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 10000;
// Errors after which reconnecting cannot help.
const FINAL = new Set([
  "room/replaced",
  "room/not_found",
  "room/origin_forbidden",
  "room/bad_seat_token",
  "room/removed",
  // an operator closed the room, or banned this address or player (the console)
  "room/closed",
  "server/banned",
  // version 2: the seats are locked, no spectators, a dead session
  "room/locked",
  "room/no_spectators",
  "player/unauthorized",
]);

export class PatchError extends Error {}

/** Apply patch ops to a copy of `view` (never mutates `view`). */
export function applyPatch(view, ops) {
  let root = structuredClone(view);
  for (const op of ops) {
    const path = op.path || [];
    if (path.length === 0) {
      if (op.op !== "replace") throw new PatchError(`${op.op} needs a path`);
      root = structuredClone(op.value);
      continue;
    }
    let node = root;
    for (const step of path.slice(0, -1)) {
      if (node === null || typeof node !== "object" || !(step in node))
        throw new PatchError(`no path ${JSON.stringify(path)}`);
      node = node[step];
    }
    const last = path[path.length - 1];
    if (Array.isArray(node)) {
      if (typeof last !== "number") throw new PatchError("list index must be a number");
      if (op.op === "add") {
        if (last < 0 || last > node.length) throw new PatchError("add: index out of range");
        node.splice(last, 0, op.value);
      } else if (last < 0 || last >= node.length) {
        throw new PatchError(`${op.op}: index out of range`);
      } else if (op.op === "remove") node.splice(last, 1);
      else node[last] = op.value;
    } else if (node !== null && typeof node === "object") {
      const exists = Object.prototype.hasOwnProperty.call(node, last);
      if (op.op === "add") {
        if (exists) throw new PatchError(`add: key ${last} exists`);
        node[last] = op.value;
      } else if (!exists) {
        throw new PatchError(`${op.op}: no key ${last}`);
      } else if (op.op === "remove") delete node[last];
      else node[last] = op.value;
    } else {
      throw new PatchError(`path ${JSON.stringify(path)} is not a container`);
    }
  }
  return root;
}

export class CommandError extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details || {};
  }
}

/**
 * The mirror of one viewer's room: server messages in, actions out. No socket, no
 * timer, no storage, so the shared vectors in tests/vectors/mirror check it, with the
 * same rules as the Python SDK's Mirror (clients/sdk/mirror.py, docs/protocol.md 6-7):
 * - welcome or snapshot with a view: replace view and seq, end a resync;
 * - welcome with view null: resume at its seq, keep the view (patches follow); with no
 *   view to keep, or a resync pending from the old connection, ask for a resync;
 * - patch: apply only when `from === seq`; `to <= seq` is old news, ignored; otherwise
 *   a gap: ask for a resync once and ignore patches until the snapshot; an op that does
 *   not fit the view also asks for a resync.
 * receive(msg) returns the actions, in order, each {type, ...}:
 *   view     {view, previous, events}   the mirror changed
 *   resync   {}                        send {type: "resync"}
 *   welcomed {message}                 a hello was answered
 *   ack      {id, message}   reject {id, message}   presence {message}   error {message}
 */
export class ViewMirror {
  constructor() {
    this.view = null;
    this.seq = null;
    this.resyncing = false; // a resync was asked for and its snapshot has not come
    this.seat = null;
    this.seatToken = null; // the last non-null token a welcome carried
    this.game = null;
    this.role = null;
    this.presence = null;
  }

  /** The last_seq for the next hello: seq while the view is trusted, else null. */
  get resumeSeq() {
    return this.view !== null && this.seq !== null && !this.resyncing ? this.seq : null;
  }

  /** Forget the view (the viewer changes: a player of a full room turns spectator). */
  reset() {
    this.view = null;
    this.seq = null;
    this.resyncing = false;
  }

  receive(msg) {
    switch (msg.type) {
      case "welcome":
        return this._welcome(msg);
      case "snapshot":
        return [this._replace(msg.view, msg.seq, [])];
      case "patch":
        return this._patch(msg);
      case "ack":
      case "reject":
        return [{ type: msg.type, id: msg.id, message: msg }];
      case "presence":
        this.presence = msg;
        return [{ type: "presence", message: msg }];
      case "error":
        return [{ type: "error", message: msg }];
      default:
        return [];
    }
  }

  _welcome(msg) {
    this.seat = msg.seat;
    this.game = msg.game;
    this.role = msg.role;
    if (msg.seat_token != null) this.seatToken = msg.seat_token;
    const actions = [];
    if (msg.view != null) actions.push(this._replace(msg.view, msg.seq, []));
    else {
      this.seq = msg.seq; // patches from last_seq follow
      if (this.view === null || this.resyncing) actions.push(this._resync());
    }
    actions.push({ type: "welcomed", message: msg });
    return actions;
  }

  _patch(msg) {
    if (this.resyncing) return [];
    if (this.seq !== null && msg.to <= this.seq) return []; // old news
    if (this.view === null || msg.from !== this.seq) return [this._resync()];
    let next;
    try {
      next = applyPatch(this.view, msg.ops);
    } catch (err) {
      console.warn("patch did not fit; resyncing", err);
      return [this._resync()];
    }
    return [this._replace(next, msg.to, msg.events || [])];
  }

  _resync() {
    this.resyncing = true;
    return { type: "resync" };
  }

  _replace(view, seq, events) {
    const previous = this.view;
    this.view = view;
    this.seq = seq;
    this.resyncing = false;
    return { type: "view", view, previous, events };
  }
}

function requestMessage(kind, id, body) {
  return kind === "act" ? { type: "act", id, act: body } : { type: "command", id, command: body };
}

function tokenKey(room) {
  return `rollhouse.seat.${room}`;
}

export function savedToken(room) {
  try {
    return localStorage.getItem(tokenKey(room));
  } catch (_) {
    return null;
  }
}

function saveToken(room, token) {
  try {
    if (token) localStorage.setItem(tokenKey(room), token);
    else localStorage.removeItem(tokenKey(room));
  } catch (_) {
    /* private mode: the seat lasts as long as the page */
  }
}

export function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

/**
 * One viewer of one room: the shell around a ViewMirror (view, seq, seat, game and
 * resyncing read through to it).
 * Events (subscribe with on(name, fn)):
 *   status   ({state: "connecting"|"connected"|"reconnecting"|"closed", retryIn})
 *   welcome  (message)            after every (re)join
 *   view     ({view, previous, events})  the mirror changed
 *   presence (message)
 *   error    ({code, message, fatal})
 *   reject   ({code, message, details, command})
 */
export class RoomClient {
  constructor({ room, role = "player", name = null, url = wsUrl(), session = null, invite = null }) {
    this.room = room;
    this.role = role;
    this.name = name;
    this.url = url;
    this.session = session; // the player's session token (v2), or null
    this.invite = invite; // a private room's invite code (v2), or null
    this.player = null; // our player id, from the welcome
    this.mirror = new ViewMirror();
    this.serverOffset = 0; // server clock minus our clock, seconds
    this.state = "closed";
    this.pending = new Map(); // id -> {command, resolve, reject}
    this.handlers = {};
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.welcomed = false;
    this.lastHeard = 0;
    this.idPrefix = Math.random().toString(36).slice(2, 10);
    this.nextId = 1;
    this.nonce = 1;
    this.pings = new Map();
    this.timers = { retry: null, ping: null };
    this._online = () => this._reconnectSoon(0);
    // back from sleep or a background tab: check the line at once instead of in 20 s
    this._visible = () => {
      if (document.visibilityState !== "visible" || !this.welcomed) return;
      if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS) this._dropAndReconnect();
      else this._ping();
    };
  }

  get view() {
    return this.mirror.view;
  }

  get seq() {
    return this.mirror.seq;
  }

  get seat() {
    return this.mirror.seat;
  }

  get game() {
    return this.mirror.game;
  }

  get resyncing() {
    return this.mirror.resyncing;
  }

  on(event, fn) {
    (this.handlers[event] ||= []).push(fn);
    return this;
  }

  _emit(event, payload) {
    for (const fn of this.handlers[event] || []) {
      try {
        fn(payload);
      } catch (err) {
        console.error(err);
      }
    }
  }

  _setState(state, retryIn = null) {
    this.state = state;
    this._emit("status", { state, retryIn });
  }

  /** Server time now (unix seconds), corrected for the offset measured at welcome/pong. */
  serverNow() {
    return Date.now() / 1000 + this.serverOffset;
  }

  start() {
    this.stopped = false;
    window.addEventListener("online", this._online);
    document.addEventListener("visibilitychange", this._visible);
    this._connect();
    return this;
  }

  close() {
    this.stopped = true;
    window.removeEventListener("online", this._online);
    document.removeEventListener("visibilitychange", this._visible);
    clearTimeout(this.timers.retry);
    clearInterval(this.timers.ping);
    if (this.ws) this.ws.close(1000, "bye");
    this._setState("closed");
  }

  /** Send a game command; resolves with the ack, rejects with a CommandError. */
  send(command) {
    return this._request("command", command);
  }

  /** Send an act (v2: a chat line, a host's action); settled like a command. */
  act(act) {
    return this._request("act", act);
  }

  _request(kind, body) {
    const id = `${this.idPrefix}-${this.nextId++}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { command: body, kind, resolve, reject });
      if (this.welcomed) this._send(requestMessage(kind, id, body));
    });
  }

  _send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  _connect() {
    clearTimeout(this.timers.retry);
    if (this.stopped) return;
    this._setState(this.attempt === 0 && this.view === null ? "connecting" : "reconnecting");
    this.welcomed = false;
    let ws;
    try {
      ws = new WebSocket(this.url, [SUBPROTOCOL]);
    } catch (err) {
      this._scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) {
        ws.close(); // a newer attempt replaced this one
        return;
      }
      this.lastHeard = Date.now();
      const token = this.role === "player" ? savedToken(this.room) : null;
      const hello = { type: "hello", room: this.room, role: this.role };
      if (this.name) hello.name = this.name.slice(0, 32);
      if (token) hello.seat_token = token;
      if (this.session) hello.session = this.session;
      if (this.invite) hello.invite = this.invite;
      // Resume from our mirror only if it belongs to the same seat we ask for (our seat
      // token's, or our session's: the player's seat on any device).
      const resume = this.mirror.resumeSeq;
      if (resume !== null && (token || this.session || this.role === "spectator")) hello.last_seq = resume;
      this._send(hello);
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (_) {
        return;
      }
      this._handle(msg);
    };
    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      clearInterval(this.timers.ping);
      this.welcomed = false;
      if (ev.code === 4000 && FINAL.has(ev.reason)) this.stopped = true;
      if (this.stopped) {
        this._setState("closed");
        return;
      }
      // The room moved to another node (drain, failover): go again at once, no error shown.
      if (ev.code === 4000 && ev.reason === "room/moved") return this._reconnectSoon(0);
      this._scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  _scheduleReconnect() {
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempt);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2); // "equal jitter"
    this.attempt += 1;
    this._reconnectSoon(delay);
  }

  _reconnectSoon(delay) {
    if (this.stopped) return;
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.welcomed) return;
    clearTimeout(this.timers.retry);
    this._setState("reconnecting", delay / 1000);
    this.timers.retry = setTimeout(() => this._connect(), delay);
  }

  _startPings() {
    clearInterval(this.timers.ping);
    this.timers.ping = setInterval(() => {
      // the socket may look open while nothing arrives any more: treat it as dead
      if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS) this._dropAndReconnect();
      else this._ping();
    }, PING_EVERY_MS);
  }

  _ping() {
    const nonce = this.nonce++;
    this.pings.set(nonce, Date.now());
    if (this.pings.size > 10) this.pings.delete(this.pings.keys().next().value);
    this._send({ type: "ping", nonce });
  }

  _dropAndReconnect() {
    const ws = this.ws;
    this.ws = null;
    this.welcomed = false;
    clearInterval(this.timers.ping);
    if (ws) ws.close();
    this._scheduleReconnect();
  }

  _handle(msg) {
    const actions = this.mirror.receive(msg);
    if (msg.type === "welcome") this._joined(msg);
    else if (msg.type === "pong") this._pong(msg);
    for (const action of actions) this._act(action);
  }

  _act(action) {
    switch (action.type) {
      case "view":
        return this._emit("view", { view: action.view, previous: action.previous, events: action.events });
      case "resync":
        return this._send({ type: "resync" });
      case "welcomed":
        this._emit("welcome", action.message);
        for (const [id, p] of this.pending) this._send(requestMessage(p.kind, id, p.command));
        return undefined;
      case "ack":
        return this._settle(action.id, (p) => p.resolve(action.message));
      case "reject": {
        const msg = action.message;
        return this._settle(msg.id, (p) => {
          this._emit("reject", { ...msg, command: p.command });
          p.reject(new CommandError(msg.code, msg.message, msg.details));
        });
      }
      case "presence":
        return this._emit("presence", action.message);
      case "error":
        return this._error(action.message);
      default:
        return undefined;
    }
  }

  _pong(msg) {
    const sent = this.pings.get(msg.nonce);
    this.pings.delete(msg.nonce);
    if (sent !== undefined && msg.server_time) {
      const mid = (sent + Date.now()) / 2000;
      this.serverOffset = msg.server_time - mid;
    }
  }

  _joined(msg) {
    this.attempt = 0;
    this.welcomed = true;
    this.serverOffset = msg.server_time ? msg.server_time - Date.now() / 1000 : 0;
    this.role = msg.role;
    if (msg.player) this.player = msg.player;
    // seated: the seat (our token, our session) is the way back in, not the invite code
    if (msg.seat !== null && msg.seat !== undefined) this.invite = null;
    // a seat we came back to by our session comes with no token: keep the one we had
    if (msg.role === "player" && (msg.seat_token || !this.player)) saveToken(this.room, msg.seat_token);
    this._setState("connected");
    this._startPings();
  }

  _settle(id, fn) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    fn(p);
  }

  _error(msg) {
    if (msg.code === "room/moved") return; // not an error: the close that follows reconnects
    if (msg.code === "room/bad_seat_token") saveToken(this.room, null);
    if (msg.code === "room/full" && this.role === "player") {
      // Every seat is taken: watch instead, right away.
      this.role = "spectator";
      this.mirror.reset();
      this._emit("error", { ...msg, fatal: false, switched: true });
      this.attempt = 0;
      const ws = this.ws;
      this.ws = null;
      if (ws) ws.close();
      this._reconnectSoon(0);
      return;
    }
    if (msg.fatal && FINAL.has(msg.code)) {
      this.stopped = true;
      for (const [, p] of this.pending) p.reject(new CommandError(msg.code, msg.message));
      this.pending.clear();
    }
    this._emit("error", msg);
  }
}
