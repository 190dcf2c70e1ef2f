// The table page: connects to one room, mirrors its view and hands it to the game's
// module (js/games/<game>.js, or the raw fallback) to draw. The page owns what every
// game shares: connection status, clocks, banners, the event log, rejection notices.

import { errorText, lang, mountLangSwitch, onLangChange, t } from "./i18n.js";
import { RoomClient } from "./protocol.js";
import { showRules } from "./rules.js";
import { loadGame } from "./games/index.js";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
const roomId = params.get("room");
const watching = params.get("watch") === "1";
const LOG_LIMIT = 60;

let client = null;
let game = null; // the game module
let gameTitle = "";
let presence = null;
let status = { state: "connecting", retryIn: null };
let fatal = null; // {key} (a page message) or {code, message} (from the server)
let switchedToWatch = false;
const ui = {}; // per-page UI state a game module may keep (e.g. an open chooser)
const logEntries = []; // {key, params} so the log re-translates

function seatName(s) {
  const seats = client?.view?.room?.seats || [];
  const name = seats[s]?.name || presence?.seats?.[s]?.name;
  return name || t("common.seat", { n: s + 1 });
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
    serverNow: () => client.serverNow(),
    rerender: render,
    send: (command) => sendCommand(command),
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
function showReject(code, message) {
  const box = $("[data-testid=reject-message]");
  box.dataset.code = code;
  box.textContent = t("table.rejected", { message: errorText(code, message) });
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
  document.title = `${gameTitle || "Rollhouse"} · ${roomId || ""}`;
}

function renderFatal() {
  const box = $("[data-testid=fatal-message]");
  if (!fatal) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.replaceChildren(fatal.key ? t(fatal.key) : errorText(fatal.code, fatal.message));
  if (fatal.key === "table.full_now_watching") return;
  const link = document.createElement("a");
  link.className = "btn small";
  const gone = fatal.key === "table.no_room" || fatal.code === "room/not_found";
  link.href = gone ? "/" : location.href;
  link.textContent = gone ? t("table.to_lobby") : t("table.rejoin");
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
  share.textContent = t("table.share");
  box.replaceChildren(p, list, share);
}

function render() {
  renderStatus();
  renderHeader();
  renderFatal();
  renderWaiting();
  const root = $("[data-testid=game-root]");
  if (!client?.view || !game) return;
  root.setAttribute("aria-busy", "false");
  root.dataset.game = client.game;
  // keep keyboard focus across the redraw
  const focused = document.activeElement?.dataset?.testid;
  game.render(root, context());
  if (focused) root.querySelector(`[data-testid="${CSS.escape(focused)}"]`)?.focus();
  tickClocks();
}

function renderLog() {
  const list = $("[data-testid=event-log]");
  list.replaceChildren(
    ...logEntries.map((e) => {
      const li = document.createElement("li");
      li.className = e.kind || "";
      li.textContent = t(e.key, e.params);
      return li;
    }),
  );
}

// Banners play one after another (a Rollie! in the last round, then Game over).
let bannerTimer = null;
const bannerQueue = [];

function showBanner(entry) {
  if (bannerTimer) {
    if (bannerQueue.length < 3) bannerQueue.push(entry);
    return;
  }
  const box = $("[data-testid=banner]");
  box.className = `banner ${entry.kind || ""}`;
  box.dataset.kind = entry.kind || "";
  box.replaceChildren(
    Object.assign(document.createElement("strong"), { textContent: t(entry.key, entry.params) }),
  );
  if (entry.also)
    box.append(Object.assign(document.createElement("span"), { textContent: t(entry.also.key, entry.also.params) }));
  box.hidden = false;
  // restart the animation
  box.style.animation = "none";
  void box.offsetWidth;
  box.style.animation = "";
  const ms = entry.kind === "over" ? 5000 : bannerQueue.length ? 2000 : 3200;
  bannerTimer = setTimeout(() => {
    bannerTimer = null;
    box.hidden = true;
    if (bannerQueue.length) showBanner(bannerQueue.shift());
  }, ms);
}

const early = []; // changes that arrived while the game module was loading

function onView(change) {
  if (!game) {
    early.push(change);
    return;
  }
  const { view, previous, events } = change;
  if (previous && events.length && game.describe) {
    const lines = game.describe(previous, view, events, context());
    for (const line of lines) {
      logEntries.unshift(line);
      if (line.banner) showBanner(line);
    }
    logEntries.length = Math.min(logEntries.length, LOG_LIMIT);
    renderLog();
  }
  if (ui.open && view.you && !view.you.legal?.length) ui.open = null;
  render();
}

function tickClocks() {
  if (!client) return;
  const now = client.serverNow();
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Number(el.dataset.deadline) - now);
    const text = t("table.clock", { s: Math.ceil(left) });
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle("low", left <= 5);
  }
}

async function start() {
  mountLangSwitch();
  onLangChange(() => {
    render();
    renderLog();
  });
  if (!roomId) {
    fatal = { key: "table.no_room" };
    status = { state: "closed" };
    renderStatus();
    renderFatal();
    return;
  }
  $("[data-testid=rules-button]").addEventListener("click", () => {
    if (client?.game) showRules(client.game, gameTitle || client.game);
  });
  const name = (localStorage.getItem("rollhouse.name") || "").trim() || null;
  client = new RoomClient({ room: roomId, role: watching ? "spectator" : "player", name });
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
    if (!game || game.name !== msg.game) {
      game = await loadGame(msg.game);
      try {
        const info = await (await fetch(`/api/rooms/${encodeURIComponent(roomId)}`)).json();
        gameTitle = info.title || msg.game;
        ui.info = info;
      } catch (_) {
        gameTitle = msg.game;
      }
    }
    if (!switchedToWatch) fatal = null;
    for (const change of early.splice(0)) onView(change);
    render();
  });
  client.on("view", onView);
  client.on("reject", (r) => showReject(r.code, r.message));
  client.on("error", (err) => {
    if (err.switched) {
      switchedToWatch = true;
      fatal = { key: "table.full_now_watching" };
    } else if (err.fatal) {
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
