// The lobby: the room list (refreshed every few seconds) and the "new room" form.

import { errorText, has, mountLangSwitch, onLangChange, t } from "./i18n.js";
import { savedToken } from "./protocol.js";
import { showRules } from "./rules.js";

const REFRESH_MS = 3000;
const NAME_KEY = "rollhouse.name";

const $ = (sel) => document.querySelector(sel);
let games = [];
let rooms = [];
let loadError = null;

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

function gameTitle(name) {
  return games.find((g) => g.name === name)?.title || name;
}

function tableLink(room, watch) {
  return `table.html?room=${encodeURIComponent(room)}${watch ? "&watch=1" : ""}`;
}

function renderRooms() {
  const body = $("[data-testid=rooms-body]");
  const error = $("[data-testid=lobby-error]");
  error.hidden = !loadError;
  error.textContent = loadError ? t("lobby.load_failed", { message: loadError }) : "";
  body.replaceChildren(
    ...rooms.map((r) => {
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
      return el(
        "tr",
        { "data-testid": `room-${r.room}`, dataset: { status: r.status } },
        el("td", { class: "mono", text: r.room }),
        el(
          "td",
          {},
          el("button", {
            type: "button",
            class: "linklike",
            title: t("rules.open_game", { game: r.title || gameTitle(r.game) }),
            onclick: () => showRules(r.game, r.title || gameTitle(r.game)),
            text: r.title || gameTitle(r.game),
          }),
        ),
        el("td", {}, el("span", { class: `status-pill ${r.status}`, text: t(`status.${r.status}`) })),
        el("td", { class: "num", text: `${r.taken}/${r.seats}` }),
        el("td", { class: "num", text: String(r.bots) }),
        el("td", { class: "num", text: String(r.players_connected) }),
        el("td", { class: "num", text: String(r.spectators) }),
        el("td", {}, actions),
      );
    }),
  );
  $("[data-testid=rooms-empty]").hidden = rooms.length > 0 || !!loadError;
}

async function refreshRooms() {
  try {
    const reply = await fetch("/api/rooms", { cache: "no-store" });
    if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
    rooms = (await reply.json()).rooms || [];
    loadError = null;
  } catch (err) {
    loadError = err.message;
  }
  renderRooms();
}

function optionLabel(name) {
  const key = `option.${name}`;
  const text = t(key);
  return text === key ? name.replace(/_/g, " ") : text;
}

function renderOptions() {
  const game = games.find((g) => g.name === $("#game").value);
  const box = $("#options");
  box.replaceChildren();
  if (!game) return;
  const seats = $("#seats");
  seats.min = game.min_seats;
  seats.max = game.max_seats;
  const current = Number(seats.value);
  if (current < game.min_seats || current > game.max_seats) seats.value = game.min_seats;
  for (const [name, value] of Object.entries(game.options || {})) {
    const id = `opt-${name}`;
    const input =
      typeof value === "boolean"
        ? el("input", { id, type: "checkbox", name, checked: value, "data-testid": `option-${name}` })
        : typeof value === "number"
          ? el("input", { id, type: "number", name, value: String(value), "data-testid": `option-${name}` })
          : el("input", { id, type: "text", name, value: String(value ?? ""), "data-testid": `option-${name}` });
    input.dataset.kind = typeof value;
    box.append(
      el("label", { class: "field", for: id }, el("span", { text: optionLabel(name), "data-option": name }), input),
    );
  }
  $("#bots").max = game.max_seats;
}

function renderGames() {
  const box = $("[data-testid=game-cards]");
  box.replaceChildren(
    ...games.map((g) =>
      el(
        "article",
        { class: "game-card", "data-testid": `game-${g.name}` },
        el("h3", { text: g.title }),
        el("p", {
          class: "muted",
          text:
            g.min_seats === g.max_seats
              ? t("lobby.players_exact", { n: g.min_seats })
              : t("lobby.players_range", { min: g.min_seats, max: g.max_seats }),
        }),
        el(
          "div",
          { class: "game-actions" },
          el("button", {
            type: "button",
            class: "btn small",
            "data-testid": `rules-${g.name}`,
            text: t("rules.open"),
            "aria-label": t("rules.open_game", { game: g.title }),
            onclick: () => showRules(g.name, g.title),
          }),
          el("button", {
            type: "button",
            class: "btn small primary",
            "data-testid": `new-${g.name}`,
            text: t("lobby.new_room_of"),
            onclick: () => {
              $("#game").value = g.name;
              renderOptions();
              $("#seats").focus();
            },
          }),
        ),
      ),
    ),
  );
}

function relabelOptions() {
  for (const span of document.querySelectorAll("[data-option]")) span.textContent = optionLabel(span.dataset.option);
}

async function loadGames() {
  const reply = await fetch("/api/games");
  games = (await reply.json()).games || [];
  const select = $("#game");
  select.replaceChildren(...games.map((g) => el("option", { value: g.name, text: g.title })));
  renderOptions();
  renderGames();
}

async function createRoom(ev) {
  ev.preventDefault();
  const error = $("[data-testid=create-error]");
  error.hidden = true;
  const game = games.find((g) => g.name === $("#game").value);
  if (!game) return;
  const options = {};
  for (const input of $("#options").querySelectorAll("input")) {
    const kind = input.dataset.kind;
    const value = kind === "boolean" ? input.checked : kind === "number" ? Number(input.value) : input.value;
    if (value !== game.options[input.name]) options[input.name] = value;
  }
  const body = {
    game: game.name,
    seats: Number($("#seats").value),
    options,
    room: { clock: Number($("#clock").value) || 0, bots: Number($("#bots").value) || 0 },
  };
  const takeover = $("#takeover").value.trim();
  if (takeover !== "") body.room.takeover_after = Number(takeover);
  const button = $("[data-testid=create-submit]");
  button.disabled = true;
  try {
    const reply = await fetch("/api/rooms", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await reply.json();
    if (!reply.ok) {
      const e = data.error || {};
      const known = has(`err.${e.code}`) ? errorText(e.code) : "";
      // the translated reason, with the server's exact words (which option, which range)
      throw new Error(known ? `${known} (${e.message})` : e.message || `HTTP ${reply.status}`);
    }
    location.href = tableLink(data.room, false);
  } catch (err) {
    error.textContent = t("lobby.create.failed", { message: err.message });
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
  $("#game").addEventListener("change", renderOptions);
  $("#create-form").addEventListener("submit", createRoom);
  $("#game-rules").addEventListener("click", () => {
    const g = games.find((x) => x.name === $("#game").value);
    if (g) showRules(g.name, g.title);
  });
  onLangChange(() => {
    renderRooms();
    renderGames();
    relabelOptions();
  });
  loadGames().catch((err) => {
    loadError = err.message;
    renderRooms();
  });
  refreshRooms();
  setInterval(refreshRooms, REFRESH_MS);
}

start();
