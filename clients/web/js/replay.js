// The replay page: a room's public history (GET /api/rooms/{id}/events) folded into the
// spectator's view at every seq, drawn by the game's own board module, with a timeline
// named as the table's log names things, play/pause, speed, steps and a scrubber.
// A live room's replay keeps following the game and links back to the live table.

import { addStrings, mountLangSwitch, onLangChange, t, translatePage } from "./i18n.js";
import strings from "./i18n/replay.js";
import tableStrings from "./i18n/table.js";
import { Story, seatNameIn, spectatorContext } from "./story.js";
import { loadGame } from "./games/index.js";
import { showVerified } from "./verified.js";
import { authHeaders, withInvite } from "./people.js";

addStrings(strings);
addStrings(tableStrings); // seat and bot names as the table says them

const $ = (sel) => document.querySelector(sel);
const roomId = new URLSearchParams(location.search).get("room");
// a private room's history: read with the player's session, or the link's invite code
const invite = new URLSearchParams(location.search).get("invite");
const api = (path) => fetch(withInvite(path, invite), { headers: authHeaders() });
const BASE_MS = 700;
const POLL_MS = 2000;

let story = null; // js/story.js: the same steps and lines as the live table's log
let steps = []; // {seq, entries, view, lines}
let game = null;
let index = 0;
let timer = null;
let info = null;

function context(view) {
  return { ...spectatorContext(view), rerender: render };
}

/** What the timeline says of one step: the live log's lines, else the step's kind. */
function stepLines(step) {
  if (step.lines.length) return step.lines;
  const entry = step.entries[step.entries.length - 1];
  const name = entry.seat != null ? seatNameIn(step.view, entry.seat) : entry.player || entry.name;
  return [{ key: `replay.step.${entry.kind}`, params: { name } }];
}

/** Read the story anew (first load, or a language switch: names in the new language). */
async function readAll() {
  story = new Story(roomId, game, { keepViews: true, fetcher: api });
  await story.update();
  steps = story.steps;
}

function render() {
  if (!steps.length || !game) return;
  const step = steps[index];
  const root = $("[data-testid=game-root]");
  root.setAttribute("aria-busy", "false");
  root.dataset.game = info.game;
  root.dataset.seq = String(step.seq);
  game.render(root, context(step.view));
  const scrub = $("[data-testid=replay-scrub]");
  scrub.max = String(steps.length - 1);
  scrub.value = String(index);
  $("[data-testid=replay-seq]").textContent = t("replay.position", { i: index + 1, n: steps.length, seq: step.seq });
  $("[data-testid=replay-play]").textContent = timer ? t("replay.pause") : t("replay.play");
  for (const li of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-testid=replay-timeline] li"))) {
    const current = Number(li.dataset.index) === index;
    li.classList.toggle("current", current);
    if (current) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  }
  window.rollhouseReplay = { index, count: steps.length, seq: step.seq, view: step.view, playing: Boolean(timer) };
}

function renderTimeline() {
  window.rollhouseReplayLines = steps.flatMap((s) => s.lines.map((l) => t(l.key, l.params)));
  const list = $("[data-testid=replay-timeline]");
  list.replaceChildren(
    ...steps.map((step, i) => {
      const li = document.createElement("li");
      li.dataset.index = String(i);
      li.dataset.seq = String(step.seq);
      const button = document.createElement("button");
      button.type = "button";
      button.className = "linklike";
      button.textContent = `${step.seq} · ${stepLines(step).map((l) => t(l.key, l.params)).join(" · ")}`;
      button.addEventListener("click", () => go(i));
      li.append(button);
      return li;
    }),
  );
}

function go(i) {
  index = Math.max(0, Math.min(steps.length - 1, i));
  render();
  document.querySelector("[data-testid=replay-timeline] li.current")?.scrollIntoView({ block: "nearest" });
}

function speed() {
  return Number($("[data-testid=replay-speed]").value) || 1;
}

function play() {
  stop();
  timer = setInterval(() => {
    if (index < steps.length - 1) go(index + 1);
    else if (info.status === "finished") stop();
  }, BASE_MS / speed());
  render();
}

function stop() {
  clearInterval(timer);
  timer = null;
  render();
}

async function follow() {
  // a live room: new entries join the timeline; the end follows them while it is shown
  const atEnd = index === steps.length - 1;
  const fresh = await story.update();
  if (fresh.length) {
    renderTimeline();
    if (atEnd && !timer) index = steps.length - 1;
    render();
  }
  info = await (await api(`/api/rooms/${encodeURIComponent(roomId)}`)).json();
  if (info.status === "finished") showVerified($("[data-testid=replay-verified]"), roomId, invite);
  else setTimeout(follow, POLL_MS);
}

function wire() {
  $("[data-testid=replay-play]").addEventListener("click", () => (timer ? stop() : play()));
  $("[data-testid=replay-back]").addEventListener("click", () => (stop(), go(index - 1)));
  $("[data-testid=replay-forward]").addEventListener("click", () => (stop(), go(index + 1)));
  $("[data-testid=replay-start]").addEventListener("click", () => (stop(), go(0)));
  $("[data-testid=replay-end]").addEventListener("click", () => (stop(), go(steps.length - 1)));
  $("[data-testid=replay-scrub]").addEventListener("input", (e) => {
    const to = Number(e.target.value); // read before stop() redraws the scrubber
    stop();
    go(to);
  });
  $("[data-testid=replay-speed]").addEventListener("change", () => timer && play());
  document.addEventListener("keydown", (e) => {
    if (/** @type {Element | null} */ (e.target)?.closest?.("input, select")) return;
    if (e.key === "ArrowLeft") go(index - 1);
    else if (e.key === "ArrowRight") go(index + 1);
    else if (e.key === " ") (e.preventDefault(), timer ? stop() : play());
  });
}

function fail(text) {
  const box = $("[data-testid=fatal-message]");
  box.hidden = false;
  box.textContent = text;
}

async function start() {
  mountLangSwitch();
  translatePage();
  onLangChange(async () => {
    translatePage();
    const seq = steps[index]?.seq;
    await readAll(); // the names in the log, in the new language
    index = Math.max(0, steps.findIndex((s) => s.seq >= seq));
    renderTimeline();
    render();
  });
  if (!roomId) return fail(t("replay.no_room"));
  $("[data-testid=game-root]").textContent = t("replay.loading");
  try {
    info = await (await api(`/api/rooms/${encodeURIComponent(roomId)}`)).json();
    if (info.error) throw new Error(info.error.message);
    game = await loadGame(info.game);
    $("[data-testid=game-title]").textContent = info.title || info.game;
    $("[data-testid=room-id]").textContent = roomId;
    document.title = `${info.title || info.game} · ${t("replay.title")}`;
    await readAll();
  } catch (err) {
    return fail(t("replay.failed", { message: err.message }));
  }
  wire();
  renderTimeline();
  const at = Number(new URLSearchParams(location.search).get("at"));
  go(at ? steps.findIndex((s) => s.seq >= at) : steps.length - 1);
  const live = $("[data-testid=replay-live]");
  if (info.status === "finished") {
    showVerified($("[data-testid=replay-verified]"), roomId, invite);
  } else {
    live.hidden = false;
    live.href = `/table.html?room=${encodeURIComponent(roomId)}&watch=1`;
    const box = $("[data-testid=replay-verified]");
    box.hidden = false;
    box.dataset.i18n = "replay.secret_until_end"; // re-translated on a language switch
    box.textContent = t("replay.secret_until_end");
    setTimeout(follow, POLL_MS);
  }
}

start();
