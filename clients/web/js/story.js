// The story of a room, as everyone sees it: its public history (GET
// /api/rooms/{id}/events) folded into the spectator's view and cut into the steps the
// live table saw (one step per write: a command's events, the moves a clock or a bot
// made, a seat taken), each step described by the game's own module as the live log
// describes a patch. The table's "What happened" and the replay's timeline are both
// made here, so a reload, a return, a second device, a late spectator and the replay
// all read the same lines, from the first roll, in the viewer's language.

import { applyPatch } from "@rollhouse/client";
import { addStrings, t } from "./i18n.js";
import storyStrings from "./i18n/story.js";

addStrings(storyStrings);

/**
 * @typedef {any} View a spectator's view of the room (plain data; its shape is each game's)
 * @typedef {{[key: string]: unknown}} Params what fills a line's {placeholders}
 * @typedef {{key: string, params: Params, kind: string, banner?: boolean}} Line one line of the log
 * @typedef {object} Entry one entry of the room's history (GET /api/rooms/{id}/events)
 * @property {string} kind "event", or what the room did: seated, left, returned, takeover, rematch...
 * @property {number} seq its sequence number
 * @property {string} [name] an event's public name
 * @property {number | null} [seat] the seat it concerns (a command's last event: the player's)
 * @property {number} [at] when (unix seconds)
 * @property {string | null} [by] a room's move for a player: timeout, bot or takeover
 * @property {boolean} [bot] a seat taken by a bot
 * @property {unknown[]} [ops] the patch to the spectator's view
 * @property {View} [view] the spectator's whole view (instead of ops)
 * @typedef {{seq: number, entries: Entry[], events: string[], by: string | null, seat: number | null, kind: string}} Step
 *   the entries of one write, as the live table saw them
 * @typedef {{seq: number, entries: Entry[], events: string[], lines: Line[], view?: View}} KeptStep
 * @typedef {{describe?: (previous: View, view: View, events: string[], ctx: any) => Line[]}} GameModule
 * @typedef {(url: string) => Promise<Response>} Fetcher
 */

const PAGE = 500;

/**
 * A seat's name as the log says it, in the viewer's language ("bot 2" is the server's).
 * @param {View} view the view
 * @param {number} s the seat
 * @returns {string} the name
 */
export function seatNameIn(view, s) {
  const name = view?.room?.seats?.[s]?.name;
  const bot = /^bot (\d+)$/.exec(name || "");
  if (bot) return t("common.bot_n", { n: bot[1] });
  return name || t("common.seat", { n: Number(s) + 1 });
}

/**
 * Every entry after `from`, page by page (a step is never cut between two pages).
 * `fetcher(url)` does the request (`fetch`, or one that adds the player's session and
 * invite, so a private table's story reads too).
 * @param {string} roomId the room
 * @param {number} from the last seq read
 * @param {Fetcher} [fetcher] does the request
 * @returns {Promise<Entry[]>} the entries
 */
export async function fetchEntries(roomId, from, fetcher = (url) => fetch(url)) {
  /** @type {Entry[]} */
  const entries = [];
  let next = from;
  for (let pages = 0; next !== null && pages < 1000; pages++) {
    const reply = await fetcher(`/api/rooms/${encodeURIComponent(roomId)}/events?from=${next}&limit=${PAGE}`);
    const page = await reply.json();
    if (!reply.ok || page.error) throw new Error(page.error?.message || `HTTP ${reply.status}`);
    entries.push(...page.events);
    next = page.next;
  }
  return entries;
}

/**
 * Whether `entry` starts a new step after `group` (the entries of the step so far).
 * @param {Entry[]} group the step so far
 * @param {Entry} entry the next entry
 * @returns {boolean} it starts a new step
 */
function startsStep(group, entry) {
  if (!group.length) return false;
  const last = group[group.length - 1];
  if (last.kind !== "event" || entry.kind !== "event") return true;
  if (last.seat !== null && last.seat !== undefined) return true; // a command's last event
  return last.at !== entry.at; // one write shares one time
}

/**
 * Entries cut into steps, each {seq, entries, events, by, seat}: `events` are the
 * public names as the live patch carried them (`timeout`, `bot` or `takeover` first
 * when the room moved for a player).
 * @param {Entry[]} entries the history, oldest first
 * @returns {Step[]} its steps
 */
export function cutSteps(entries) {
  /** @type {Entry[][]} */
  const groups = [];
  /** @type {Entry[]} */
  let group = [];
  for (const entry of entries) {
    if (startsStep(group, entry)) {
      groups.push(group);
      group = [];
    }
    group.push(entry);
  }
  if (group.length) groups.push(group);
  return groups.map((g) => {
    const last = g[g.length - 1];
    const names = g.filter((e) => e.kind === "event").map((e) => String(e.name));
    const by = last.kind === "event" ? last.by || null : null;
    return { seq: last.seq, entries: g, events: by ? [by, ...names] : names, by, seat: last.seat ?? null, kind: last.kind };
  });
}

/**
 * What the log says of one step the room itself made (a clock, a seat, a takeover).
 * @param {Step} step the step
 * @param {View} previous the view before it
 * @param {View} view the view after it
 * @returns {Line[]} its lines
 */
function roomLines(step, previous, view) {
  const name = (/** @type {number} */ s) => seatNameIn(view, s);
  /** @type {Line[]} */
  const out = [];
  if (step.by === "timeout" && step.seat !== null) out.push({ key: "table.ev.timeout", params: { name: name(step.seat) }, kind: "timeout" });
  // a bot's move for a player who is away: the table says so of each such move, live
  if (step.by === "takeover" && step.seat !== null) out.push({ key: "table.ev.takeover", params: { name: name(step.seat) }, kind: "takeover" });
  for (const e of step.entries) {
    if (e.kind === "seated" && e.seat != null && !previous?.room?.seats?.[e.seat]?.taken)
      out.push({ key: e.bot ? "story.seated_bot" : "story.seated", params: { name: name(e.seat), n: e.seat + 1 }, kind: "seat" });
    else if (e.kind === "takeover" && e.seat != null) out.push({ key: "table.ev.takeover", params: { name: name(e.seat) }, kind: "takeover" });
    else if (e.kind === "left" && e.seat != null) out.push({ key: "story.left", params: { name: name(e.seat) }, kind: "seat" });
    else if (e.kind === "returned" && e.seat != null) out.push({ key: "story.returned", params: { name: name(e.seat) }, kind: "seat" });
    else if (e.kind === "rematch") out.push({ key: "story.rematch", params: {}, kind: "info" });
  }
  return out;
}

/**
 * The lines of one step: the room's own, then the game module's describe() of the
 * spectator's view before and after it (as the live table describes a patch).
 * @param {GameModule | null} game the game's module
 * @param {Step} step the step
 * @param {View} previous the view before it
 * @param {View} view the view after it
 * @param {any} ctx the describe() context
 * @returns {Line[]} its lines
 */
export function describeStep(game, step, previous, view, ctx) {
  const lines = roomLines(step, previous, view);
  if (view?.room?.status === "playing" && previous?.room?.status !== "playing") {
    // the game begins: its set-up (and a first roll the engine makes) comes with the view
    lines.push({ key: "story.started", params: {}, kind: "round" });
    if (game?.describe) for (const l of game.describe(previous, view, ["set_up"], ctx)) lines.push(l);
  }
  if (previous && view && step.kind === "event" && game?.describe) {
    for (const l of game.describe(previous, view, step.events, ctx)) lines.push(l);
  }
  return lines;
}

/**
 * A describe() context for a spectator's view (no seat, no sending, throwaway UI state).
 * @param {View} view the view
 * @param {object} [extra] more of the context
 * @returns {any} the context
 */
export function spectatorContext(view, extra = {}) {
  return {
    view, game: view?.game, room: view?.room, you: null, seat: null, role: "spectator",
    presence: null, ui: {}, t, lang: document.documentElement.lang,
    seatName: (/** @type {number} */ s) => seatNameIn(view, s), seatConnected: () => true, seatTakeover: () => false,
    serverNow: () => Date.now() / 1000, rerender: () => {}, explain: () => {},
    send: () => Promise.reject(new Error("the story cannot act")),
    ...extra,
  }; // prettier-ignore
}

/**
 * A room's story, kept up to date: update() reads the entries after the last one it has
 * (one request at a time; asked again while one runs, it runs once more after).
 * `steps` (oldest first) hold {seq, lines, view?}: views are kept only with keepViews
 * (the replay); the table keeps only the last one, to fold the next entries onto.
 */
export class Story {
  /**
   * @param {string} roomId the room
   * @param {GameModule | null} game its game's module
   * @param {{keepViews?: boolean, fetcher?: Fetcher}} [options] keep each step's view (the replay); how to fetch
   */
  constructor(roomId, game, { keepViews = false, fetcher = undefined } = {}) {
    this.roomId = roomId;
    this.game = game;
    this.keepViews = keepViews;
    /** @type {Fetcher | undefined} */
    this.fetcher = fetcher; // see fetchEntries
    this.generation = 0;
    /** @type {KeptStep[]} */
    this.steps = [];
    /** @type {View} */
    this.view = null;
    this.seq = 0;
    /** @type {Promise<KeptStep[]> | null} */
    this.running = null;
    this.again = false;
    this.reset();
  }

  reset() {
    this.generation = (this.generation || 0) + 1; // a read under way for the old story is dropped
    this.steps = [];
    this.view = null;
    this.seq = 0;
    this.running = null;
    this.again = false;
  }

  /**
   * Fold more entries (already fetched) into the story.
   * @param {Entry[]} entries the entries after `seq`
   * @returns {KeptStep[]} the new steps
   */
  add(entries) {
    /** @type {KeptStep[]} */
    const fresh = [];
    for (const step of cutSteps(entries)) {
      /** @type {View} */
      const previous = this.view;
      /** @type {View} */
      let view = previous;
      for (const entry of step.entries) view = entry.ops ? applyPatch(view, entry.ops) : entry.view;
      const lines = describeStep(this.game, step, previous, view, spectatorContext(view));
      /** @type {KeptStep} */
      const kept = { seq: step.seq, entries: step.entries, events: step.events, lines };
      if (this.keepViews) kept.view = view;
      this.steps.push(kept);
      fresh.push(kept);
      this.view = view;
      this.seq = step.seq;
    }
    return fresh;
  }

  /**
   * Read and fold what is new; resolves with the new steps. Asked while a read runs, it
   * resolves with none at once, and the running read reads once more before it ends
   * (so each new step is handed out once).
   * @returns {Promise<KeptStep[]>} the new steps
   */
  update() {
    if (this.running) {
      this.again = true;
      return Promise.resolve([]);
    }
    const generation = this.generation;
    /** @type {Promise<KeptStep[]> | undefined} */
    let run = undefined; // the read below compares itself with this.running when it ends
    run = (async () => {
      /** @type {KeptStep[]} */
      const fresh = [];
      try {
        do {
          this.again = false;
          const entries = await fetchEntries(this.roomId, this.seq, this.fetcher);
          if (generation !== this.generation) return [];
          fresh.push(...this.add(entries));
        } while (this.again);
      } finally {
        if (this.running === run) this.running = null;
      }
      return fresh;
    })();
    this.running = run;
    return run;
  }

  /** @returns {Line[]} every line, oldest first */
  lines() {
    return this.steps.flatMap((s) => s.lines);
  }
}
