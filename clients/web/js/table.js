// The table page: connects to one room, mirrors its view and hands it to the game's
// module (js/games/<game>.js, or the raw fallback) to draw. The page owns what every
// game shares: connection status, clocks, banners, the event log, rejection notices.

import { addStrings, errorText, lang, mountLangSwitch, onLangChange, t } from "./i18n.js";
import { showVerified } from "./verified.js";
import tableStrings from "./i18n/table.js";
import { RoomClient } from "./connection.js";
import { showRules } from "./rules.js";
import { loadGame } from "./games/index.js";
import { Story } from "./story.js";
import { TurnAlert, mountAlertsMenu } from "./your-turn.js";
// people at the table (issue 21): the player's session, invite codes, the host, chat
import peopleStrings from "./i18n/people.js";
import { authHeaders, ensurePlayer, forget, roomLink, savedInvite, saveInvite, session as sessionToken, syncName, withInvite } from "./people.js";
import { mountChat } from "./chat.js";
import { mountHost } from "./host.js";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
const roomId = params.get("room");
const watching = params.get("watch") === "1";
// a guided first game (the lobby's "Learn as you play"): kept across a reload of this room
const coaching = params.get("learn") === "1";

addStrings(tableStrings);
addStrings(peopleStrings);
if (params.get("invite")) saveInvite(roomId, params.get("invite")); // a link's code, kept for reloads
let invite = roomId ? savedInvite(roomId) : null;
/** The invite code our HTTP requests bring: none once the session's seat lets us in. */
const httpInvite = () => client?.invite ?? (client?.player ? null : invite);
let chat = null; // js/chat.js
let host = null; // js/host.js

let client = null;
let game = null; // the game module
let gameTitle = "";
let presence = null;
let status = { state: "connecting", retryIn: null };
let fatal = null; // {key} (a page message) or {code, message} (from the server)
let switchedToWatch = false;
const ui = {}; // per-page UI state a game module may keep (e.g. an open chooser)
// "What happened" is the room's story (js/story.js): read from the room's history, so
// a reload, a return, a second device and a late spectator all see every line.
let story = null;
let storyFailed = false;
const liveLines = []; // {from, to, lines}: what describe() said of each live patch (banners; tests)
let liveSeq = null;
const LIVE_KEPT = 400;

/** A log line's text: t() translates names kept as {key, params, fallback} too. */
const text = (key, params) => t(key, params);

function seatName(s) {
  const seats = client?.view?.room?.seats || [];
  const name = seats[s]?.name || presence?.seats?.[s]?.name;
  const bot = /^bot (\d+)$/.exec(name || "");
  if (bot) return t("common.bot_n", { n: bot[1] });
  return name || t("common.seat", { n: s + 1 });
}

/** Whether a seat's player is here (a socket open, or a hosted bot). */
function seatConnected(s) {
  const seat = client?.view?.room?.seats?.[s];
  if (seat && typeof seat.connected === "boolean") return seat.connected;
  if (seat?.bot) return true;
  if (seat?.away === true) return false; // the room's log says so (rooms with takeover_after)
  return presence ? !!presence.seats?.[s]?.connected : true;
}

function context() {
  const view = client.view;
  return {
    view,
    game: view?.game,
    room: view?.room,
    you: view?.you || null,
    seat: client.seat,
    role: client.role,
    presence,
    ui,
    t,
    lang: lang(),
    seatName,
    seatConnected,
    seatTakeover: (s) => !!client?.view?.room?.seats?.[s]?.takeover,
    coach: coaching,
    serverNow: () => client.serverNow(),
    rerender: render,
    send: (command) => sendCommand(command),
    explain: (message) => explain(message),
  };
}

async function sendCommand(command) {
  ui.busy = true;
  render();
  try {
    return await client.send(command);
  } finally {
    ui.busy = false;
    render();
  }
}

let rejectTimer = null;

/** Why a click or key did nothing, shown where refusals show (and announced). */
function explain(message) {
  const box = $("[data-testid=reject-message]");
  box.dataset.code = "explain";
  box.textContent = message;
  box.hidden = false;
  clearTimeout(rejectTimer);
  rejectTimer = setTimeout(() => (box.hidden = true), 6000);
}

function showReject(code, message) {
  const box = $("[data-testid=reject-message]");
  box.dataset.code = code;
  box.textContent = t("table.rejected", { message: errorText(code, message) });
  box.tabIndex = -1;
  box.hidden = false;
  clearTimeout(rejectTimer);
  rejectTimer = setTimeout(() => (box.hidden = true), 8000);
}

function renderStatus() {
  const box = $("[data-testid=connection-status]");
  box.dataset.state = status.state;
  if (status.state === "reconnecting" && status.retryIn)
    box.textContent = t("conn.reconnecting", { s: Math.max(1, Math.round(status.retryIn)) });
  else if (status.state === "reconnecting") box.textContent = t("conn.reconnecting_now");
  else box.textContent = t(`conn.${status.state}`);
}

function renderHeader() {
  $("[data-testid=game-title]").textContent = gameTitle;
  $("[data-testid=room-id]").textContent = roomId ? t("table.room", { room: roomId }) : "";
  const role = $("[data-testid=role]");
  if (client?.role === "player" && client.seat !== null) {
    role.textContent = t("table.you_are", { n: client.seat + 1 });
  } else if (client?.role === "spectator") {
    role.textContent = t("table.spectating");
  } else role.textContent = "";
  if (presence?.spectators) role.textContent += ` · ${t("table.spectators", { n: presence.spectators })}`;
  baseTitle = `${gameTitle || "Rollhouse"} · ${roomId || ""}`;
  $("[data-testid=alerts]").hidden = client?.role !== "player";
}

let baseTitle = document.title;
let turnAlert = null;

/** Whether the room awaits this player now (a legal move while the game is on). */
function awaitsYou() {
  const view = client?.view;
  return client?.role === "player" && view?.room?.status === "playing" && (view?.you?.legal?.length || 0) > 0;
}

function renderTurn() {
  const view = client?.view;
  const deadline = client?.seat != null ? view?.room?.deadlines?.[client.seat] ?? null : null;
  const prompt = $("[data-testid=game-root] [data-testid=prompt]")?.textContent || "";
  turnAlert.update({ yours: awaitsYou(), title: baseTitle, prompt, deadline, now: client ? client.serverNow() : 0 });
}

function renderFatal() {
  const box = $("[data-testid=fatal-message]");
  if (!fatal) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.replaceChildren(fatal.key ? t(fatal.key) : errorText(fatal.code, fatal.message));
  // an operator's close or ban: the reason is in the server's words
  if (fatal.code === "room/closed" || fatal.code === "server/banned") box.append(" ", fatal.message);
  if (fatal.key === "table.full_now_watching") return;
  const link = document.createElement("a");
  link.className = "btn small";
  const gone = fatal.key === "table.no_room" || ["room/not_found", "room/removed", "room/no_spectators", "room/closed", "server/banned"].includes(fatal.code);
  link.href = gone ? "/" : location.href;
  link.textContent = gone ? t("table.to_lobby") : t("table.rejoin");
  if (fatal.code === "room/locked") {
    link.href = withInvite(`table.html?room=${encodeURIComponent(roomId)}&watch=1`, invite);
    link.dataset.testid = "watch-instead";
    link.textContent = t("table.watch_instead");
  } else if (fatal.code === "player/unauthorized") link.textContent = t("table.start_again"); // a reload makes a new guest
  box.append(" ", link);
}

function renderWaiting() {
  const box = $("[data-testid=waiting]");
  const room = client?.view?.room;
  if (!room || room.status !== "waiting") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const taken = room.seats.filter((s) => s.taken).length;
  const list = document.createElement("ul");
  list.className = "waiting-seats";
  for (const s of room.seats) {
    const li = document.createElement("li");
    li.className = s.taken ? "taken" : "free";
    li.textContent = s.taken ? `${seatName(s.seat)}${s.bot ? ` (${t("common.bot")})` : ""}` : "…";
    list.append(li);
  }
  const p = document.createElement("p");
  p.textContent = t("table.waiting", { taken, seats: room.seats.length });
  const share = document.createElement("p");
  share.className = "muted";
  share.textContent = room.visibility === "private" ? t("table.share_private") : t("table.share");
  share.append(" ", inviteButton());
  box.replaceChildren(p, list, share);
}

function inviteButton() {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn small";
  button.dataset.testid = "copy-invite";
  button.textContent = ui.copied ? t("table.invite_copied") : t("table.invite");
  button.addEventListener("click", async () => {
    const url = roomLink(roomId, invite);
    try {
      await navigator.clipboard.writeText(url);
    } catch (_) {
      window.prompt(t("table.invite"), url); // no clipboard (plain http): let them copy it
    }
    ui.copied = true;
    renderWaiting();
    setTimeout(() => {
      ui.copied = false;
      renderWaiting();
    }, 2500);
  });
  return button;
}

function link(href, cls, testid, label) {
  const a = document.createElement("a");
  a.href = href;
  a.className = cls;
  a.dataset.testid = testid;
  a.textContent = label;
  return a;
}

async function rematch(button) {
  button.disabled = true;
  const box = $("[data-testid=after-game]");
  try {
    const reply = await fetch(withInvite(`/api/rooms/${encodeURIComponent(roomId)}/rematch`, httpInvite()), { method: "POST", headers: authHeaders() });
    const data = await reply.json().catch(() => ({}));
    if (reply.ok && data.room) {
      location.href = `table.html?room=${encodeURIComponent(data.room)}`;
      return;
    }
    ui.rematchError = data.error?.code ? errorText(data.error.code, data.error.message) : t("table.rematch_unavailable");
  } catch (_) {
    ui.rematchError = t("table.rematch_unavailable");
  }
  button.disabled = false;
  renderAfterGame();
  box.querySelector("[data-testid=new-game]")?.focus();
}

let verifiedBox = null; // "dice verified" on the final screen (js/verified.js)

function renderAfterGame() {
  const box = $("[data-testid=after-game]");
  const room = client?.view?.room;
  if (!room || room.status !== "finished") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const title = document.createElement("h2");
  title.textContent = t("table.after.title");
  const row = document.createElement("div");
  row.className = "after-actions";
  const next = room.rematch;
  if (next) {
    const label = client.role === "player" ? t("table.rematch_join") : t("table.rematch_watch");
    const watch = client.role === "player" ? "" : "&watch=1";
    row.append(link(`table.html?room=${encodeURIComponent(next)}${watch}`, "btn primary", "rematch-join", label));
  } else if (client.role === "player") {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "btn primary";
    button.dataset.testid = "rematch";
    button.textContent = t("table.rematch");
    button.addEventListener("click", () => rematch(button));
    row.append(button);
  }
  row.append(link("/", "btn", "new-game", t("table.new_game")));
  row.append(link(withInvite(`replay.html?room=${encodeURIComponent(roomId)}`, httpInvite()), "btn", "watch-replay", t("replay.watch")));
  if (!verifiedBox) {  // checked once, when the game is over
    verifiedBox = document.createElement("p");
    verifiedBox.className = "notice";
    verifiedBox.dataset.testid = "dice-verified";
    verifiedBox.hidden = true;
    showVerified(verifiedBox, roomId, httpInvite());
  }
  const parts = [title, row, verifiedBox];
  if (ui.rematchError && !next) {
    const p = document.createElement("p");
    p.className = "notice warn";
    p.dataset.testid = "rematch-error";
    p.textContent = ui.rematchError;
    parts.push(p);
  }
  if (next) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = t("table.rematch_ready");
    parts.splice(1, 0, p);
  }
  box.replaceChildren(...parts);
}

/** The host's panel and the chat, drawn from the view (js/host.js, js/chat.js). */
function renderPeople() {
  if (!client?.view) return;
  const view = client.view;
  const me = client.player;
  host?.update({ view, player: me });
  chat?.update({
    view,
    role: client.role,
    player: me,
    host: !!me && view.room?.host === me,
    waiting: view.room?.status === "waiting",
    canWrite: client.role === "player" ? client.seat !== null : !!me,
  });
}

let lastPrompt = "";
function announcePrompt() {
  const prompt = $("[data-testid=game-root] [data-testid=prompt]")?.textContent || "";
  if (prompt && prompt !== lastPrompt) $("[data-testid=announce]").textContent = prompt;
  lastPrompt = prompt;
}

function render() {
  renderStatus();
  renderHeader();
  renderFatal();
  renderWaiting();
  renderAfterGame();
  renderPeople();
  const root = $("[data-testid=game-root]");
  if (!client?.view || !game) return renderTurn();
  root.setAttribute("aria-busy", "false");
  root.dataset.game = client.game;
  const focused = /** @type {HTMLElement | null} */ (document.activeElement)?.dataset?.testid;
  game.render(root, context());
  // keep keyboard focus across the redraw, unless the game moves it (ui.focus)
  const target = ui.focus || focused;
  ui.focus = null;
  if (target) root.querySelector(`[data-testid="${CSS.escape(target)}"]`)?.focus();
  announcePrompt();
  tickClocks();
  renderTurn();
}

function logItem(e) {
  const li = document.createElement("li");
  li.className = e.kind || "";
  li.textContent = text(e.key, e.params);
  return li;
}

/** The whole log again (newest first), e.g. once the story is read anew. */
function renderLog() {
  const list = $("[data-testid=event-log]");
  list.setAttribute("aria-busy", "true"); // not read out line by line
  const lines = story ? story.lines() : [];
  const items = lines.map(logItem).reverse();
  if (roomId && !fatal && (!story || (!story.steps.length && story.running)))
    items.push(logItem({ key: "story.loading", params: {}, kind: "muted" }));
  if (storyFailed) items.unshift(logItem({ key: "story.failed", params: {}, kind: "muted" }));
  list.replaceChildren(...items);
  list.dataset.count = String(lines.length);
  list.setAttribute("aria-busy", "false");
  showLatest();
}

/** The newest line, shown in the log's bar on phones (the log folds there). */
function showLatest() {
  const first = story?.steps.length ? story.lines().at(-1) : null;
  $("[data-testid=log-latest]").textContent = first ? text(first.key, first.params) : "";
}

/** New lines on top (announced by the live region). */
function addLogLines(steps) {
  const lines = steps.flatMap((s) => s.lines);
  if (!lines.length) return;
  const list = $("[data-testid=event-log]");
  for (const old of list.querySelectorAll("li.muted")) old.remove();
  list.prepend(...lines.map(logItem).reverse());
  list.dataset.count = String(story.lines().length);
  showLatest();
}

/** Read what is new in the room's story and show it. */
async function readStory({ anew = false } = {}) {
  if (!story) return;
  if (anew) {
    story.reset();
    renderLog();
  }
  try {
    const fresh = await story.update();
    storyFailed = false;
    if (anew) renderLog();
    else addLogLines(fresh);
  } catch (err) {
    console.warn("the story could not be read", err);
    storyFailed = true;
    renderLog();
  }
  window.rollhouseStory = {
    seq: story.seq,
    lines: story.lines().map((l) => text(l.key, l.params)),
    steps: story.steps.map((st, i) => ({ from: i ? story.steps[i - 1].seq : 0, to: st.seq, lines: st.lines.map((l) => text(l.key, l.params)) })),
  };
}

// One banner at a time, and only current news: a newer patch replaces it (or clears
// it), it sits above the board instead of over it, and it re-translates.
const BANNER_RANK = { over: 3, rollie: 2, crash: 2, round: 1 };
let bannerTimer = null;
let banner = null;

function drawBanner() {
  const box = $("[data-testid=banner]");
  if (!banner) {
    box.hidden = true;
    return;
  }
  box.className = `banner ${banner.kind || ""}`;
  box.dataset.kind = banner.kind || "";
  box.replaceChildren(Object.assign(document.createElement("strong"), { textContent: text(banner.key, banner.params) }));
  if (banner.also)
    box.append(Object.assign(document.createElement("span"), { textContent: text(banner.also.key, banner.also.params) }));
  box.hidden = false;
}

function showBanner(entry) {
  clearTimeout(bannerTimer);
  banner = entry;
  drawBanner();
  const box = $("[data-testid=banner]");
  box.style.animation = "none"; // restart the animation
  void box.offsetWidth;
  box.style.animation = "";
  bannerTimer = setTimeout(clearBanner, entry.kind === "over" ? 6000 : 3000);
}

function clearBanner() {
  clearTimeout(bannerTimer);
  banner = null;
  drawBanner();
}

/** The news of one patch: the most important banner among its lines. */
function pickBanner(lines) {
  let best = null;
  for (const line of lines) {
    if (line.banner && (!best || (BANNER_RANK[line.kind] || 0) > (BANNER_RANK[best.kind] || 0))) best = line;
  }
  return best;
}

/** Log lines the page itself adds: a clock that ran out, a bot playing for someone away. */
function tableLines(previous, view, events) {
  const first = events[0];
  if (first === "timeout") {
    const deadlines = previous?.room?.deadlines || {};
    const seats = Object.keys(deadlines).sort((a, b) => deadlines[a] - deadlines[b]);
    const seat = seats.length ? Number(seats[0]) : null;
    if (seat !== null) {
      ui.marks = { ...(ui.marks || {}), [seat]: { kind: "timeout", until: Date.now() + 8000 } };
      return [{ key: "table.ev.timeout", params: { name: seatName(seat) }, kind: "timeout" }];
    }
    return [{ key: "table.ev.timeout_any", params: {}, kind: "timeout" }];
  }
  if (first === "takeover") {
    const seats = (view.room?.seats || []).filter((s) => s.takeover).map((s) => s.seat);
    if (seats.length) return seats.map((s) => ({ key: "table.ev.takeover", params: { name: seatName(s) }, kind: "takeover" }));
    return [{ key: "table.ev.takeover_any", params: {}, kind: "takeover" }];
  }
  return [];
}

const early = []; // changes that arrived while the game module was loading

function onView(change) {
  if (!game) {
    early.push(change);
    return;
  }
  const { view, previous, events } = change;
  if (previous && events.length) {
    const lines = [...tableLines(previous, view, events), ...(game.describe ? game.describe(previous, view, events, context()) : [])];
    liveLines.push({ from: liveSeq, to: client.seq, lines: lines.map((l) => text(l.key, l.params)) });
    liveLines.splice(0, Math.max(0, liveLines.length - LIVE_KEPT));
    window.rollhouseLive = liveLines;
    const news = pickBanner(lines);
    if (news) showBanner(news);
    else if (banner && banner.kind !== "over") clearBanner();
  }
  liveSeq = client.seq;
  if (previous !== view) readStory();
  if (ui.open && view.you && !view.you.legal?.length) ui.open = null;
  render();
}

function tickClocks() {
  if (!client) return;
  const now = client.serverNow();
  turnAlert?.tick(now);
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-deadline]"))) {
    const left = Math.max(0, Number(el.dataset.deadline) - now);
    const text = t("table.clock", { s: Math.ceil(left) });
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle("low", left <= 5);
  }
}

async function start() {
  mountLangSwitch();
  turnAlert = new TurnAlert();
  const drawAlerts = mountAlertsMenu($("[data-testid=alerts]"));
  onLangChange(() => {
    drawAlerts?.();
    chat?.rerender();
    host?.rerender();
    render();
    readStory({ anew: true }); // names in the new language, from the first line
    drawBanner();
  });
  renderLog();
  if (!roomId) {
    fatal = { key: "table.no_room" };
    status = { state: "closed", retryIn: null };
    renderStatus();
    renderFatal();
    return;
  }
  $("[data-testid=log-toggle]").addEventListener("click", (e) => {
    const panel = $("[data-testid=log-panel]");
    const open = panel.classList.toggle("open");
    e.currentTarget.setAttribute("aria-expanded", String(open));
  });
  $("[data-testid=rules-button]").addEventListener("click", () => {
    if (client?.game) showRules(client.game, gameTitle || client.game);
  });
  const name = (localStorage.getItem("rollhouse.name") || "").trim() || null;
  // a guest on the first visit (null: none can be made), named as the lobby's field says
  const player = (await ensurePlayer(name)) && (await syncName(name));
  const session = player ? sessionToken() : null;
  // with a session the server seats us under the player's display name (kept by the lobby)
  client = new RoomClient({ room: roomId, role: watching ? "spectator" : "player", name: session ? null : name, session, invite });
  const act = (a) => client.act(a);
  chat = mountChat($("[data-testid=chat]"), { act, seatName });
  host = mountHost($("[data-testid=host-panel]"), {
    room: roomId,
    act,
    seatName,
    inviteChanged: (code) => {
      invite = code;
      renderWaiting();
    },
  });
  window.rollhouse = client; // handy in the console and for tests
  client.on("status", (s) => {
    status = s;
    renderStatus();
  });
  client.on("presence", (p) => {
    presence = p;
    render();
  });
  client.on("welcome", async (msg) => {
    // now, not after the awaits below: an error that comes while they run (the seat taken
    // by another tab, the host's removal) is newer than this welcome and must stay shown
    if (!switchedToWatch) fatal = null;
    if (!game || game.name !== msg.game) {
      game = await loadGame(msg.game);
      // a private table's history: with the player's session (or the code we came with)
      story = new Story(roomId, game, { fetcher: (url) => fetch(withInvite(url, httpInvite()), { headers: authHeaders() }) });
      try {
        const path = withInvite(`/api/rooms/${encodeURIComponent(roomId)}`, httpInvite());
        const info = await (await fetch(path, { headers: authHeaders() })).json();
        gameTitle = info.title || msg.game;
        ui.info = info;
      } catch (_) {
        gameTitle = msg.game;
      }
    }
    for (const change of early.splice(0)) onView(change);
    render();
    readStory(); // a return reads what happened while away
  });
  client.on("view", onView);
  client.on("reject", (r) => showReject(r.code, r.message));
  client.on("error", (err) => {
    if (err.code === "server/notice") {
      const box = $("[data-testid=server-notice]");
      box.textContent = t("err.server/notice", { message: err.message });
      box.hidden = false;
      return;
    }
    if (err.switched) {
      switchedToWatch = true;
      fatal = { key: "table.full_now_watching" };
    } else if (err.fatal) {
      if (err.code === "player/unauthorized") forget(); // the session ended: the next visit makes a new guest
      if (err.code === "room/unavailable" || err.code === "room/slow_consumer") showReject(err.code, err.message);
      else fatal = { code: err.code, message: err.message };
    } else showReject(err.code, err.message);
    render();
  });
  client.start();
  render();
  setInterval(tickClocks, 250);
}

start();
