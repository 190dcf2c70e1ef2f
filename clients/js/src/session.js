// What a client keeps across connections, sans-I/O: the mirror of the view, the seat token,
// the commands still waiting for an answer, and what to do when a connection opens, drops or
// ends with an error. The Client (client.js) is the socket-and-timer shell around it, and the
// shared vectors in tests/vectors/sessions check it (and the Python SDK's Session) frame by
// frame: what a client sends when a socket opens, what its mirror holds after each frame.
//
// The rules (docs/protocol.md 4, 5, 7 and 10):
// - a socket opens: send hello (the seat token, and last_seq while the view is good), then
//   every command still unanswered, with its original id (the server holds frames that
//   follow a hello until the hello is answered, and answers a repeated id with its first
//   answer);
// - a command is sent at once while a socket is open, else when the next one opens;
// - an ack or a reject settles its command; a resync the mirror asks for is sent;
// - an error ends the connection or not (its `fatal`); a fatal one is followed by a
//   reconnect with backoff, at once for room/moved, or never for a final code (outcome()).

import { RATE_LIMITED, outcome } from "./codes.js";
import { act as actMessage, command as commandMessage, hello, resync } from "./messages.js";
import { Mirror } from "./mirror.js";

/**
 * @typedef {import("./messages.js").ClientMessage} ClientMessage
 * @typedef {import("./messages.js").ServerMessage} ServerMessage
 * @typedef {import("./messages.js").GameCommand} GameCommand
 * @typedef {import("./messages.js").Role} Role
 * @typedef {import("./mirror.js").Action} Action
 * @typedef {import("./codes.js").Outcome} Outcome
 */

/**
 * @typedef {object} Step What one server message means for the shell.
 * @property {Action[]} actions the mirror's actions (answers, view changes, errors), in order
 * @property {ClientMessage[]} send the messages to send now (a resync)
 * @property {Outcome | null} outcome for an error message: what to do with the connection
 * @property {boolean} resyncLater a resync was refused for its rate: ask again in a second
 */

/**
 * @typedef {object} SessionOptions
 * @property {string} room the room's id
 * @property {Role} [role] player (the default) or spectator
 * @property {string | null} [name] the player's name (1..32 characters)
 * @property {string | null} [seatToken] a seat token kept from before: rejoin that seat
 * @property {string | null} [session] v2: the player's session token (the seat is the player's)
 * @property {string | null} [invite] v2: a private room's invite code
 * @property {string | null} [newSeatToken] v2: the token a free seat this player takes gets
 *   (drawn at random unless given); sent in every hello until a welcome gives the seat's token
 * @property {string | null} [clientId] v2: this client's id, sent in a player's every hello
 *   with the connection's number (`attempt`): a late copy of an earlier hello cannot take
 *   the seat from a later connection (drawn at random unless given)
 */

/**
 * @param {number} [size] random bytes
 * @returns {string} `size` random bytes in base64url (32 characters for 24), from the platform's CSPRNG
 */
function randomToken(size = 24) {
  const bytes = new Uint8Array(size);
  globalThis.crypto.getRandomValues(bytes);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export class Session {
  /** @param {SessionOptions} options who joins which room */
  constructor({ room, role = "player", name = null, seatToken = null, session = null, invite = null, newSeatToken = null, clientId = null }) {
    this.room = room;
    /** @type {string | null} v2: the player's session token, sent in every hello */
    this.session = session || null;
    /** @type {string | null} v2: the invite code, sent in every hello */
    this.invite = invite || null;
    /** @type {Role} */
    this.role = role;
    this.name = name || null;
    this.mirror = new Mirror({ seatToken });
    /** @type {string | null} v2: this player's own token for a free seat (a lost welcome's hello, sent again, finds its seat) */
    this.newSeatToken = role === "player" ? newSeatToken || randomToken() : null;
    /** @type {string | null} v2: this client's id in a player's every hello, with `attempts` */
    this.clientId = role === "player" ? clientId || randomToken(12) : null;
    /** @type {number} connections opened so far (the next hello's `attempt` is one more) */
    this.attempts = 0;
    /** @type {Map<string, GameCommand>} commands and (v2) acts sent and not yet answered, in send order */
    this.pending = new Map();
    /** @type {string | null} v2: the player id from the last welcome that carried one (a session's) */
    this.player = null;
    /** @type {Set<string>} v2: the ids in `pending` that are acts, not commands */
    this.acts = new Set();
    /** @type {boolean} a socket is open and its hello sent */
    this.open = false;
    /** @type {{code: string, message: string} | null} why the session ended for good */
    this.failure = null;
    this.hello(); // a bad name fails here, not on every reconnect
  }

  /** @returns {import("./messages.js").Hello} the hello for the next connection */
  hello() {
    return hello({
      room: this.room,
      role: this.role,
      name: this.name,
      seatToken: this.mirror.seatToken,
      lastSeq: this.mirror.resumeSeq,
      session: this.session,
      invite: this.invite,
      newSeatToken: this.mirror.seatToken ? null : this.newSeatToken,
      client: this.clientId,
      attempt: this.clientId === null ? null : this.attempts + 1,
    });
  }

  /** @returns {ClientMessage[]} what to send on a socket that just opened */
  opened() {
    this.open = true;
    const first = this.hello();
    this.attempts += 1;
    return [
      first,
      ...[...this.pending].map(([id, body]) => (this.acts.has(id) ? actMessage(id, body) : commandMessage(id, body))),
    ];
  }

  /**
   * The socket closed or was lost: what to do next.
   * @param {string | null} [reason] the close reason of close code 4000 (an error code), or
   *   the code of a refused handshake; null for a lost connection
   * @returns {Outcome} reconnect (with backoff), reconnect_now (room/moved) or give_up
   */
  dropped(reason = null) {
    this.open = false;
    if (this.failure !== null) return "give_up";
    return reason === null ? "reconnect" : this.ended(reason, true);
  }

  /**
   * Register a command; the messages to send now (none while no socket is open).
   * @param {string} id its id, unique per seat
   * @param {GameCommand} cmd the game command
   * @returns {ClientMessage[]} the command message, or nothing until a socket opens
   */
  command(id, cmd) {
    const message = commandMessage(id, cmd); // ProtocolError: no "type", a bad id
    this.pending.set(id, cmd);
    return this.open ? [message] : [];
  }

  /**
   * Register an act (v2: chat, a host's action); the messages to send now. An act waits in
   * `pending` with the commands (in send order) and goes again, with its id, when a socket
   * opens (the server answers an id once).
   * @param {string} id its id, unique per player
   * @param {import("./plain.js").PlainMap & {type: string}} a the act
   * @returns {ClientMessage[]} the act message, or nothing until a socket opens
   */
  act(id, a) {
    const message = actMessage(id, a); // ProtocolError: no "type", a bad id
    this.pending.set(id, a);
    this.acts.add(id);
    return this.open ? [message] : [];
  }

  /**
   * Apply one server message.
   * @param {ServerMessage} msg a checked server message
   * @returns {Step} what the shell must do
   */
  receive(msg) {
    const actions = this.mirror.receive(msg);
    /** @type {Step} */
    const step = { actions, send: [], outcome: null, resyncLater: false };
    for (const action of actions) {
      if (action.type === "resync") step.send.push(resync());
      else if (action.type === "welcomed") {
        if (action.welcome.player !== undefined && action.welcome.player !== null) this.player = action.welcome.player; // the last one a welcome carried
        if (action.welcome.seat !== null) this.invite = null; // seated: the seat is the way back in, not the code
      }
      else if (action.type === "ack" || action.type === "reject") {
        this.pending.delete(action.id);
        this.acts.delete(action.id);
      }
      else if (action.type === "error") {
        const { code, fatal, message } = action.error;
        step.outcome = this.ended(code, fatal, message);
        step.resyncLater = !fatal && code === RATE_LIMITED && this.mirror.resyncing;
      }
    }
    return step;
  }

  /**
   * An error ended the connection (fatal), or not: what to do next. A final code ends the
   * session (`failure`) and forgets the unanswered commands.
   * @param {string} code the error code (an error message's, a close reason's, a refused handshake's)
   * @param {boolean} fatal whether the connection ends
   * @param {string} [message] for humans
   * @returns {Outcome} what to do
   */
  ended(code, fatal, message = code) {
    const next = outcome(code, fatal);
    if (next === "give_up") {
      if (this.failure === null) this.failure = { code, message };
      this.pending.clear(); // nothing will answer them: the shell fails them
      this.acts.clear();
    }
    return next;
  }
}
