// The lobby: game cards ("play against a bot now"), the new-room form with labelled
// choices, and the room list (refreshed every few seconds) with filters and pages.

import { addStrings, errorText, has, mountLangSwitch, onLangChange, t } from "./i18n.js";
import replayStrings from "./i18n/replay.js";
import lobbyStrings from "./i18n/lobby.js";
import findStrings from "./i18n/lobby-finds.js";
import coachStrings from "./i18n/coach.js";
import contentStrings from "./i18n/roll-builder-content.js";
import { BOT_DELAY, CLOCKS, TAKEOVERS, defaults, emblem, optionChoices, quickRoom } from "./lobby-games.js";
import { savedToken } from "./connection.js";
import { showRules } from "./rules.js";
// people at the table (issue 21): the account panel, my games, quick match, private tables
import peopleStrings from "./i18n/people.js";
import { authHeaders, bindName, ensurePlayer, mountAccount, roomLink, saveInvite } from "./people.js";
import { mountMyGames } from "./mygames.js";
import { quickMatchButton } from "./match.js";

addStrings(lobbyStrings);
addStrings(findStrings);
addStrings(coachStrings);
addStrings(replayStrings);
addStrings(contentStrings);
addStrings(peopleStrings);

const REFRESH_MS = 3000;
const EXPIRES_MIN = 10; // server/room/views.py WAITING_EXPIRES, said in the note
const NAME_KEY = "rollhouse.name";
const FILTER_KEY = "rollhouse.lobby.filter";
const PAGE_SIZE = 8;
const FILTERS = ["now", "open", "playing", "finished", "all"];
/**
 * A room still waiting after its expiry with nobody at it has expired (a rematch nobody
 * joined, a table its maker left): it leaves every list but "All", unless it is yours.
 */
function expired(r) {
  return (
    r.status === "waiting" && r.expires_at != null && Date.now() / 1000 > r.expires_at &&
    !r.players_connected && !r.spectators && !savedToken(r.room)
  ); // prettier-ignore
}
const IN_FILTER = {
  // now (the default): everything not over, so a spectator finds live games at once
  now: (r) => (r.status === "waiting" || r.status === "playing") && !expired(r),
  // open: rooms waiting for players, and your own tables still going
  open: (r) => (r.status === "waiting" && !expired(r)) || (r.status === "playing" && !!savedToken(r.room)),
  playing: (r) => r.status === "playing",
  finished: (r) => r.status === "finished",
  all: () => true,
};

const $ = (sel) => document.querySelector(sel);
let games = [];
let rooms = [];
let loadError = null;
let filter = FILTERS.includes(sessionStorage.getItem(FILTER_KEY)) ? sessionStorage.getItem(FILTER_KEY) : "now";
let page = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** t() whose params may themselves be {key, params} to translate. */
function tt(key, params = {}) {
  const out = {};
  for (const [k, v] of Object.entries(params)) out[k] = v && typeof v === "object" && v.key ? t(v.key, v.params) : v;
  return t(key, out);
}

function gameTitle(name) {
  return games.find((g) => g.name === name)?.title || name;
}

function tableLink(room, watch) {
  return `table.html?room=${encodeURIComponent(room)}${watch ? "&watch=1" : ""}`;
}

// -- the room list ---------------------------------------------------------------------

/** Rooms of the current filter: your own first, then the newest. */
function shownRooms() {
  const mine = (r) => (savedToken(r.room) ? 1 : 0);
  return rooms
    .filter(IN_FILTER[filter] || IN_FILTER.all)
    .sort((a, b) => mine(b) - mine(a) || (b.created_at || 0) - (a.created_at || 0));
}

function renderFilters() {
  const box = $("[data-testid=room-filters]");
  box.replaceChildren(
    ...FILTERS.map((f) =>
      el("button", {
        type: "button",
        class: "btn small filter",
        "aria-pressed": String(f === filter),
        "data-testid": `filter-${f}`,
        text: t("lobby.filter.count", { label: t(`lobby.filter.${f}`), n: rooms.filter(IN_FILTER[f]).length }),
        onclick: () => {
          filter = f;
          page = 0;
          sessionStorage.setItem(FILTER_KEY, f);
          renderRooms();
        },
      }),
    ),
  );
}

function roomActions(r) {
  const mine = savedToken(r.room);
  const canJoin = r.status === "waiting" && r.taken < r.seats;
  const actions = el("div", { class: "actions" });
  if (mine) {
    actions.append(
      el("a", {
        class: "btn small primary",
        href: tableLink(r.room, false),
        "aria-label": t("lobby.resume_label", { room: r.room }),
        "data-testid": `resume-${r.room}`,
        text: t("lobby.resume"),
      }),
    );
  } else if (canJoin) {
    actions.append(
      el("a", {
        class: "btn small primary",
        href: tableLink(r.room, false),
        "aria-label": t("lobby.join_label", { room: r.room }),
        "data-testid": `join-${r.room}`,
        text: t("lobby.join"),
      }),
    );
  }
  actions.append(
    el("a", {
      class: "btn small",
      href: tableLink(r.room, true),
      "aria-label": t("lobby.watch_label", { room: r.room }),
      "data-testid": `watch-${r.room}`,
      text: t("lobby.watch"),
    }),
  );
  if (r.status === "finished")
    actions.append(
      el("a", {
        class: "btn small",
        href: `replay.html?room=${encodeURIComponent(r.room)}`,
        "aria-label": `${t("replay.watch")} · ${r.room}`,
        "data-testid": `replay-${r.room}`,
        text: t("replay.watch"),
      }),
    );
  return actions;
}

/** A seated name as the lobby says it ("bot 2" in the viewer's language). */
function seatedName(name) {
  const bot = /^bot (\d+)$/.exec(name || "");
  return bot ? t("common.bot_n", { n: bot[1] }) : name;
}

/** Who sits at a room, and how many seats are free: "Ana, bot 1 · 1 seat free". */
function roomPeople(r) {
  const names = (r.names || []).filter(Boolean).map(seatedName);
  const free = r.seats - r.taken;
  const parts = [];
  if (names.length) parts.push(names.join(", "));
  if (free > 0 && r.status === "waiting") parts.push(free === 1 ? t("lobby.free_one") : t("lobby.free_n", { n: free }));
  return parts.join(" · ");
}

function roomRow(r) {
  const title = r.title || gameTitle(r.game);
  const cell = (label, text) => el("td", { class: "num", "data-label": label, text });
  return el(
    "tr",
    { "data-testid": `room-${r.room}`, dataset: { status: r.status } },
    el(
      "td",
      { class: "room-cell" },
      el("button", {
        type: "button",
        class: "linklike room-game",
        title: t("rules.open_game", { game: title }),
        onclick: () => showRules(r.game, title),
        text: title,
      }),
      el("span", { class: "room-people", "data-testid": `room-people-${r.room}`, text: roomPeople(r) }),
      el("span", { class: "muted mono room-id", text: r.room }),
    ),
    el("td", {}, el("span", { class: `status-pill ${r.status}`, text: t(`status.${r.status}`) })),
    cell(t("lobby.col.seats"), r.bots ? t(r.bots === 1 ? "lobby.seats_bot" : "lobby.seats_bots", { taken: r.taken, seats: r.seats, bots: r.bots }) : `${r.taken}/${r.seats}`),
    cell(t("lobby.col.people"), t("lobby.people", { players: r.players_connected, watching: r.spectators })),
    el("td", { class: "actions-cell" }, roomActions(r)),
  );
}

function renderRooms() {
  const error = $("[data-testid=lobby-error]");
  error.hidden = !loadError;
  error.textContent = loadError ? t("lobby.load_failed", { message: loadError }) : "";
  renderFilters();
  const list = shownRooms();
  const pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
  page = Math.min(page, pages - 1);
  $("[data-testid=rooms-body]").replaceChildren(...list.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map(roomRow));
  $("[data-testid=rooms-table]").hidden = list.length === 0;
  const gone = rooms.filter(expired).length;
  const note = $("[data-testid=rooms-expired]");
  note.hidden = !gone || filter === "all";
  note.textContent = gone ? t(gone === 1 ? "lobby.expired_one" : "lobby.expired_n", { n: gone, min: Math.round(EXPIRES_MIN) }) : "";
  const empty = $("[data-testid=rooms-empty]");
  empty.hidden = list.length > 0 || !!loadError;
  empty.textContent = rooms.length === 0 ? t("lobby.empty") : t(`lobby.filter.empty.${filter}`);
  const pager = $("[data-testid=rooms-pager]");
  pager.hidden = pages < 2;
  $("[data-testid=page-label]").textContent = t("lobby.page", { n: page + 1, total: pages });
  $("[data-testid=page-prev]").disabled = page === 0;
  $("[data-testid=page-next]").disabled = page >= pages - 1;
}

const LISTED = 500; // the newest rooms the lobby lists (GET /api/rooms pages of 250)

async function refreshRooms() {
  try {
    const found = [];
    let cursor = 0;
    while (cursor !== null && found.length < LISTED) {
      const reply = await fetch(`/api/rooms?cursor=${cursor}&limit=250`, { cache: "no-store" });
      if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
      const page = await reply.json();
      found.push(...(page.rooms || []));
      cursor = page.next ?? null;
    }
    rooms = found;
    loadError = null;
  } catch (err) {
    loadError = err.message;
  }
  renderRooms();
}

// -- the new-room form -------------------------------------------------------------------

const choice = (value, text, selected) => el("option", { value: String(value), text, selected: selected || null });

function fillSelect(select, items, current) {
  const keep = current ?? select.value;
  select.replaceChildren(...items.map(([value, text]) => choice(value, text)));
  if (items.some(([v]) => String(v) === String(keep))) select.value = String(keep);
}

function clockText(s) {
  if (!s) return t("form.clock.0");
  return s >= 120 ? t("form.clock.min", { m: s / 60 }) : t("form.clock.n", { s });
}

function takeoverText(s) {
  if (s === null) return t("form.takeover.never");
  return s >= 120 ? t("form.takeover.min", { m: s / 60 }) : t("form.takeover.n", { s });
}

function renderSeatsAndBots(game) {
  const seats = $("#seats");
  const range = [];
  for (let n = game.min_seats; n <= game.max_seats; n++) range.push([n, String(n)]);
  fillSelect(seats, range);
  const n = Number(seats.value);
  const bots = [];
  for (let b = 0; b < n; b++) bots.push([b, b === 0 ? t("form.bots.none") : b === 1 ? t("form.bots.one") : t("form.bots.n", { n: b })]);
  fillSelect($("#bots"), bots);
}

function renderTimes() {
  fillSelect($("#clock"), CLOCKS.map((s) => [s, clockText(s)]));
  fillSelect($("#takeover"), TAKEOVERS.map((s) => [s ?? "", takeoverText(s)]));
}

function optionField(game, name, value, choices, advanced) {
  const id = `opt-${name}`;
  const label = `opt.${game.name}.${name}`;
  const helpId = `${id}-help`;
  let input;
  if (choices) {
    input = el("select", { id, name, "data-testid": `option-${name}`, "aria-describedby": has(`${label}.help`) ? helpId : null });
    input.append(...choices.map(([v, key, params]) => choice(v, tt(key, params), v === value)));
    input.dataset.kind = typeof choices[0][0];
  } else if (typeof value === "boolean") {
    input = el("input", { id, type: "checkbox", name, checked: value, "data-testid": `option-${name}` });
    input.dataset.kind = "boolean";
  } else {
    input = el("input", { id, type: typeof value === "number" ? "number" : "text", name, value: String(value ?? ""), "data-testid": `option-${name}` });
    input.dataset.kind = typeof value;
  }
  const text = has(label) ? t(label) : has(`option.${name}`) ? t(`option.${name}`) : name.replace(/_/g, " ");
  return el(
    "label",
    { class: `field${advanced ? " advanced" : ""}`, for: id },
    el("span", { text }),
    input,
    has(`${label}.help`) ? el("small", { class: "help", id: helpId, text: t(`${label}.help`) }) : null,
  );
}

function currentGame() {
  return games.find((g) => g.name === $("#game").value);
}

function renderOptions(fresh = false) {
  const game = currentGame();
  const box = $("#options");
  if (!game) return box.replaceChildren();
  const kept = fresh ? {} : formOptions(game);
  if (fresh) {
    const d = defaults(game.name);
    $("#seats").replaceChildren(choice(d.seats, String(d.seats)));
    $("#seats").value = String(d.seats);
    $("#clock").replaceChildren(choice(d.clock, ""));
    $("#clock").value = String(d.clock);
  }
  renderSeatsAndBots(game);
  if (fresh) $("#bots").value = String(Math.min(1, Number($("#seats").value) - 1));
  renderTimes();
  const known = optionChoices(game.name);
  const fields = [];
  const advanced = [];
  for (const [name, def] of Object.entries(game.options || {})) {
    const spec = known?.find(([n]) => n === name);
    const value = name in kept ? kept[name] : def;
    const field = optionField(game, name, value, spec?.[1] && spec[1].some(([v]) => v === def) ? spec[1] : null, spec?.[2]);
    (spec?.[2] ? advanced : fields).push(field);
  }
  box.replaceChildren(...fields);
  if (advanced.length) {
    box.append(el("details", { class: "more" }, el("summary", { text: t("form.more") }), ...advanced));
  }
}

function formOptions(game) {
  const options = {};
  for (const input of $("#options").querySelectorAll("input, select")) {
    const kind = input.dataset.kind;
    const value = kind === "boolean" ? input.checked : kind === "number" ? Number(input.value) : input.value;
    if (game.options && value !== game.options[input.name]) options[input.name] = value;
  }
  return options;
}

function renderGames() {
  const box = $("[data-testid=game-cards]");
  box.replaceChildren(
    ...games.map((g) => {
      const players =
        g.min_seats === g.max_seats
          ? t("lobby.players_exact", { n: g.min_seats })
          : t("lobby.players_range", { min: g.min_seats, max: g.max_seats });
      const minutes = has(`game.${g.name}.minutes`) ? t("lobby.duration", { min: t(`game.${g.name}.minutes`) }) : null;
      return el(
        "article",
        { class: "game-card", "data-testid": `game-${g.name}`, "aria-labelledby": `card-${g.name}` },
        el("div", { class: "game-card-art" }, emblem(g.name)),
        el("h3", { id: `card-${g.name}`, text: g.title }),
        has(`game.${g.name}.pitch`) ? el("p", { class: "pitch", text: t(`game.${g.name}.pitch`) }) : null,
        el("p", { class: "muted facts", text: [players, minutes].filter(Boolean).join(" · ") }),
        el(
          "div",
          { class: "game-actions" },
          el("button", {
            type: "button",
            class: "btn primary",
            "data-testid": `play-bot-${g.name}`,
            "aria-label": t("lobby.play_bot_label", { game: g.title }),
            text: t("lobby.play_bot"),
            onclick: (ev) => playAgainstBot(g, ev.currentTarget),
          }),
          g.name === "rollie"
            ? el("button", {
                type: "button",
                class: "btn small",
                "data-testid": `learn-${g.name}`,
                text: t("coach.learn"),
                onclick: (ev) => playAgainstBot(g, ev.currentTarget, true),
              })
            : null,
          el("button", {
            type: "button",
            class: "btn small",
            "data-testid": `new-${g.name}`,
            "aria-label": t("lobby.setup_room_label", { game: g.title }),
            text: t("lobby.setup_room"),
            onclick: () => {
              $("#game").value = g.name;
              renderOptions(true);
              $("#seats").focus();
            },
          }),
          quickMatchButton(g, defaults(g.name)?.seats || g.min_seats, (text) => {
            const error = $("[data-testid=quick-error]");
            error.textContent = text;
            error.hidden = false;
          }),
          el("button", {
            type: "button",
            class: "btn small ghost",
            "data-testid": `rules-${g.name}`,
            text: t("rules.open"),
            "aria-label": t("rules.open_game", { game: g.title }),
            onclick: () => showRules(g.name, g.title),
          }),
        ),
      );
    }),
  );
}

async function loadGames() {
  const reply = await fetch("/api/games");
  games = (await reply.json()).games || [];
  const select = $("#game");
  select.replaceChildren(...games.map((g) => el("option", { value: g.name, text: g.title })));
  renderOptions(true);
  renderGames();
}

/** POST /api/rooms (as this browser's player: its host); the new room's link, or an
 * Error whose message is translated. A private room's invite code is kept for its host. */
async function postRoom(body) {
  await ensurePlayer();
  const reply = await fetch("/api/rooms", {
    method: "POST",
    headers: authHeaders({ "content-type": "application/json" }),
    body: JSON.stringify(body),
  });
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const e = data.error || {};
    const err = /** @type {Error & {field?: string | null}} */ (new Error(e.code ? errorText(e.code, e.message) : `HTTP ${reply.status}`));
    // which field: the server names it in `field` (or, for some games, only in its message)
    err.field = e.field || /'(\w+)'/.exec(e.message || "")?.[1] || null;
    throw err;
  }
  if (data.invite) saveInvite(data.room, data.invite);
  return roomLink(data.room, data.invite || null);
}

function fieldLabel(game, field) {
  if (!field) return "";
  if (has(`opt.${game.name}.${field}`)) return t(`opt.${game.name}.${field}`);
  const room = { clock: "form.clock", bots: "form.bots", takeover_after: "form.takeover", seats: "lobby.create.seats" }[field];
  return room ? t(room) : field;
}

/** A bot game now; `learn`: a guided first game (the table explains each step). */
async function playAgainstBot(game, button, learn = false) {
  const error = $("[data-testid=quick-error]");
  const label = button.textContent;
  error.hidden = true;
  button.disabled = true;
  button.textContent = t("lobby.starting");
  try {
    const body = quickRoom(game.name, game.min_seats);
    if (learn) body.room.bot_delay = 2; // time to read what the table says
    location.href = (await postRoom(body)) + (learn ? "&learn=1" : "");
  } catch (err) {
    error.textContent = t("lobby.create.failed", { message: err.message });
    error.hidden = false;
    button.disabled = false;
    button.textContent = label;
  }
}

async function createRoom(ev) {
  ev.preventDefault();
  const error = $("[data-testid=create-error]");
  error.hidden = true;
  const game = currentGame();
  if (!game) return;
  const body = {
    game: game.name,
    seats: Number($("#seats").value),
    options: formOptions(game),
    room: { clock: Number($("#clock").value) || 0, bots: Number($("#bots").value) || 0, bot_delay: BOT_DELAY },
  };
  const takeover = $("#takeover").value;
  if (takeover !== "") body.room.takeover_after = Number(takeover);
  body.room.visibility = $("#visibility").value;
  if (!$("#watch").checked) body.room.watch = false;
  if ($("#spectator-chat").checked) body.room.spectator_chat = "together";
  const button = $("[data-testid=create-submit]");
  button.disabled = true;
  try {
    location.href = await postRoom(body);
  } catch (err) {
    const field = fieldLabel(game, err.field);
    error.textContent = t("lobby.create.failed", { message: field ? `${err.message} (${field})` : err.message });
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

function start() {
  mountLangSwitch();
  const name = $("#player-name");
  name.value = localStorage.getItem(NAME_KEY) || "";
  name.addEventListener("input", () => localStorage.setItem(NAME_KEY, name.value.trim()));
  const myGames = mountMyGames($("[data-testid=mygames]"));
  const account = mountAccount($("[data-testid=account]"), () => {
    name.value = localStorage.getItem(NAME_KEY) || name.value;
    myGames.refresh();
  });
  bindName(name, () => account.render(), (message) => account.error(message));
  $("#game").addEventListener("change", () => renderOptions(true));
  $("#seats").addEventListener("change", () => renderSeatsAndBots(currentGame()));
  $("#create-form").addEventListener("submit", createRoom);
  $("#game-rules").addEventListener("click", () => {
    const g = currentGame();
    if (g) showRules(g.name, g.title);
  });
  $("[data-testid=page-prev]").addEventListener("click", () => {
    page = Math.max(0, page - 1);
    renderRooms();
  });
  $("[data-testid=page-next]").addEventListener("click", () => {
    page += 1;
    renderRooms();
  });
  onLangChange(() => {
    account.render();
    myGames.render();
    renderRooms();
    renderGames();
    renderOptions();
  });
  loadGames().catch((err) => {
    loadError = err.message;
    renderRooms();
  });
  refreshRooms();
  setInterval(refreshRooms, REFRESH_MS);
}

start();
