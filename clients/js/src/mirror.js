// The mirror of one viewer's room, sans-I/O: server messages in, actions out. No socket, no
// timer, no storage, so the shared vectors in tests/vectors/mirror check it, with the same
// rules as the Python SDK's Mirror (clients/sdk/mirror.py; docs/protocol.md 6 and 7):
// - a welcome or snapshot with a view replaces view and seq and ends a resync;
// - a welcome with view null resumes at its seq and keeps the view (patches follow); with no
//   view to keep, or a resync pending from the old connection, it asks for a resync;
// - a patch applies only when `from === seq`; one with `to <= seq` is old and ignored; any
//   other is a gap: ask for a resync once and ignore patches until the snapshot; an op that
//   does not fit the view (PatchError) also asks for a resync.

import { PatchError } from "./errors.js";
import { applyPatch } from "./patch.js";

/**
 * @typedef {import("./messages.js").ServerMessage} ServerMessage
 * @typedef {import("./messages.js").Welcome} Welcome
 * @typedef {import("./messages.js").Patch} Patch
 * @typedef {import("./messages.js").Presence} Presence
 * @typedef {import("./messages.js").Reject} Reject
 * @typedef {import("./messages.js").ErrorMessage} ErrorMessage
 * @typedef {import("./messages.js").View} View
 * @typedef {import("./messages.js").Role} Role
 */

/**
 * What the shell must do or know after a message, in order:
 * @typedef {{type: "resync"}} ResyncAction send {type: "resync"}
 * @typedef {{type: "ack", id: string, seq: number}} AckAction command `id` was accepted
 * @typedef {{type: "reject", id: string, reject: Reject}} RejectAction command `id` was refused
 * @typedef {{type: "error", error: ErrorMessage}} ErrorAction the server reported an error
 * @typedef {{type: "welcomed", welcome: Welcome}} WelcomedAction a hello was answered
 * @typedef {{type: "view", seq: number, events: string[], view: View, previous: View | null}} ViewAction
 *   the view moved to `seq`; `events` names what happened (empty for a snapshot)
 * @typedef {{type: "presence", presence: Presence}} PresenceAction who is at the table changed
 * @typedef {ResyncAction | AckAction | RejectAction | ErrorAction | WelcomedAction | ViewAction | PresenceAction} Action
 */

/** One viewer's copy of the room, kept current from the server's messages. */
export class Mirror {
  /** @param {{seatToken?: string | null}} [options] a seat token kept from before */
  constructor({ seatToken = null } = {}) {
    /** @type {string | null} the seat's secret: the one given, or the last a welcome carried */
    this.seatToken = seatToken;
    /** @type {number} the sequence number of `view` */
    this.seq = 0;
    /** @type {View | null} the viewer's view at `seq` (null until the first welcome) */
    this.view = null;
    /** @type {Presence | null} the last presence message */
    this.presence = null;
    /** @type {number | null} the seat from the last welcome (null for a spectator) */
    this.seat = null;
    /** @type {string | null} the game from the last welcome */
    this.game = null;
    /** @type {Role | null} the role from the last welcome */
    this.role = null;
    /** @type {boolean} a resync was asked for and its snapshot has not come: patches are ignored */
    this.resyncing = false;
    /** @type {[number, string[]][]} (seq, event names) of every patch applied, oldest first */
    this.events = [];
  }

  /** @returns {number | null} the last_seq for the next hello: seq while the view is good */
  get resumeSeq() {
    return this.view !== null && !this.resyncing ? this.seq : null;
  }

  /**
   * Apply one server message.
   * @param {ServerMessage} msg a checked server message
   * @returns {Action[]} what the shell must do, in order
   */
  receive(msg) {
    switch (msg.type) {
      case "welcome":
        return this.#welcome(msg);
      case "snapshot":
        return [this.#replace(msg.view, msg.seq, [])];
      case "patch":
        return this.#patch(msg);
      case "ack":
        return [{ type: "ack", id: msg.id, seq: msg.seq }];
      case "reject":
        return [{ type: "reject", id: msg.id, reject: msg }];
      case "presence":
        this.presence = msg;
        return [{ type: "presence", presence: msg }];
      case "error":
        return [{ type: "error", error: msg }];
      default:
        return [];
    }
  }

  /** Forget the view (the viewer changes, e.g. a full room's player turns spectator). */
  reset() {
    this.view = null;
    this.seq = 0;
    this.resyncing = false;
  }

  /**
   * @param {Welcome} msg a welcome
   * @returns {Action[]} the actions
   */
  #welcome(msg) {
    this.seat = msg.seat;
    this.game = msg.game;
    this.role = msg.role;
    if (msg.seat_token !== null) this.seatToken = msg.seat_token;
    /** @type {Action[]} */
    const actions = [];
    if (msg.view !== null) actions.push(this.#replace(msg.view, msg.seq, []));
    else {
      this.seq = msg.seq;
      if (this.view === null || this.resyncing) actions.push(this.#resync());
    }
    actions.push({ type: "welcomed", welcome: msg });
    return actions;
  }

  /**
   * @param {Patch} msg a patch
   * @returns {Action[]} the actions
   */
  #patch(msg) {
    if (this.resyncing || msg.to <= this.seq) return [];
    if (this.view === null || msg.from !== this.seq) return [this.#resync()];
    let view;
    try {
      view = applyPatch(this.view, msg.ops);
    } catch (error) {
      if (error instanceof PatchError) return [this.#resync()];
      throw error;
    }
    this.events.push([msg.to, [...msg.events]]);
    return [this.#replace(view, msg.to, msg.events)];
  }

  /**
   * @param {View} view the new view
   * @param {number} seq its sequence
   * @param {string[]} events what happened
   * @returns {Action} the view action
   */
  #replace(view, seq, events) {
    const previous = this.view;
    this.view = view;
    this.seq = seq;
    this.resyncing = false;
    return { type: "view", seq, events: [...events], view, previous };
  }

  /** @returns {Action} the resync action */
  #resync() {
    this.resyncing = true;
    return { type: "resync" };
  }
}
