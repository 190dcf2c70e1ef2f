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

const PAGE = 500;

/** A seat's name as the log says it, in the viewer's language ("bot 2" is the server's). */
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
 */
export async function fetchEntries(roomId, from, fetcher = (url) => fetch(url)) {
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

/** Whether `entry` starts a new step after `group` (the entries of the step so far). */
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
 */
export function cutSteps(entries) {
  const groups = [];
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
    const names = g.filter((e) => e.kind === "event").map((e) => e.name);
    const by = last.kind === "event" ? last.by || null : null;
    return { seq: last.seq, entries: g, events: by ? [by, ...names] : names, by, seat: last.seat ?? null, kind: last.kind };
  });
}

/** What the log says of one step the room itself made (a clock, a seat, a takeover). */
function roomLines(step, previous, view) {
  const name = (s) => seatNameIn(view, s);
  const out = [];
  if (step.by === "timeout" && step.seat !== null) out.push({ key: "table.ev.timeout", params: { name: name(step.seat) }, kind: "timeout" });
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

/** A describe() context for a spectator's view (no seat, no sending, throwaway UI state). */
export function spectatorContext(view, extra = {}) {
  return {
    view, game: view?.game, room: view?.room, you: null, seat: null, role: "spectator",
    presence: null, ui: {}, t, lang: document.documentElement.lang,
    seatName: (s) => seatNameIn(view, s), seatConnected: () => true, seatTakeover: () => false,
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
  constructor(roomId, game, { keepViews = false, fetcher = undefined } = {}) {
    this.roomId = roomId;
    this.game = game;
    this.keepViews = keepViews;
    this.fetcher = fetcher; // see fetchEntries
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

  /** Fold more entries (already fetched) into the story; returns the new steps. */
  add(entries) {
    const fresh = [];
    for (const step of cutSteps(entries)) {
      const previous = this.view;
      let view = previous;
      for (const entry of step.entries) view = entry.ops ? applyPatch(view, entry.ops) : entry.view;
      const lines = describeStep(this.game, step, previous, view, spectatorContext(view));
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
   */
  update() {
    if (this.running) {
      this.again = true;
      return Promise.resolve([]);
    }
    const generation = this.generation;
    const run = (async () => {
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

  /** Every line, oldest first. */
  lines() {
    return this.steps.flatMap((s) => s.lines);
  }
}
