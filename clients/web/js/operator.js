// The operator console page (operator.html): a thin view of /api/operator/... (docs/protocol.md
// 12.3). The token is typed by the operator and kept in this tab's sessionStorage only; every
// request carries it as "Authorization: Bearer". Without it (or on a 401) nothing but the token
// form is shown. Everything the server sends is rendered as text (textContent), never as HTML.

import { h } from "./dom.js";

const $ = (sel) => document.querySelector(sel);
const KEY = "rollhouse.operator.token";
const WHO = "rollhouse.operator.name";
let openRoom = null;
let timer = null;

class Refused extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const token = sessionStorage.getItem(KEY);
  if (!token) throw new Refused(401, "operator/unauthorized", "no token");
  const headers = { Authorization: `Bearer ${token}`, "X-Operator": sessionStorage.getItem(WHO) || "operator" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const reply = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new Refused(reply.status, data.error?.code || `http/${reply.status}`, data.error?.message || reply.statusText);
  return data;
}

function time(at) {
  return at ? new Date(at * 1000).toISOString().replace("T", " ").slice(0, 19) : "";
}

function fill(testid, rows) {
  $(`[data-testid=${testid}] tbody`).replaceChildren(...rows);
}

function cells(...values) {
  return values.map((v) => (v instanceof Node ? h("td", {}, v) : h("td", { text: v === null || v === undefined ? "" : String(v) })));
}

function button(text, testid, onclick, cls = "btn small") {
  return h("button", { type: "button", class: cls, text, testid, onclick });
}

function show(which, text) {
  const box = $(`[data-testid=${which}]`);
  box.textContent = text;
  box.hidden = !text;
}

function locked(message) {
  // No token, or a refused one: the page shows nothing of the service.
  clearInterval(timer);
  timer = null;
  openRoom = null;
  $("[data-testid=console]").hidden = true;
  $("[data-testid=sign-out]").hidden = true;
  $("[data-testid=token-form]").hidden = false;
  for (const id of ["nodes", "rooms", "addresses", "bans", "audit", "detail-seats", "detail-connections", "detail-chat"])
    fill(id, []);
  $("[data-testid=detail-events]").replaceChildren();
  $("[data-testid=room-detail]").hidden = true;
  show("console-error", "");
  show("console-done", "");
  show("token-error", message || "");
}

async function guarded(work) {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Refused && (err.status === 401 || err.code === "operator/off")) {
      sessionStorage.removeItem(KEY);
      locked(err.code === "operator/off" ? "The console is off on this server (no operator token is set)." : "The token was refused.");
    } else show("console-error", `${err.code || "error"}: ${err.message}`);
    return null;
  }
}

async function act(method, path, body, done) {
  const out = await guarded(() => api(method, path, body));
  if (out) {
    show("console-error", "");
    show("console-done", done);
    await refresh();
  }
  return out;
}

// -- views ------------------------------------------------------------------------------

function renderNodes(nodes) {
  fill("nodes", nodes.map((n) => h("tr", { "data-node": n.node },
    cells(n.node, n.address, n.rooms, n.connections, n.spectators, n.lease_age, n.version,
      n.draining ? "draining" : "serving",
      n.draining || n.lease_age === null ? "" : button("Drain", `drain-${n.node}`, () => {
        if (confirm(`Drain node ${n.node}? Its rooms move to other nodes and it stops taking rooms.`))
          act("POST", `/api/operator/nodes/${encodeURIComponent(n.node)}/drain`, undefined, `Node ${n.node} is draining.`);
      })))));
}

function roomQuery() {
  const form = new FormData($("[data-testid=room-filter]"));
  const q = new URLSearchParams();
  for (const key of ["game", "status", "node"]) if (form.get(key)) q.set(key, String(form.get(key)));
  return q.toString();
}

function renderRooms(rooms) {
  fill("rooms", rooms.map((r) => h("tr", { "data-room": r.room },
    cells(r.room, r.game, r.status, `${r.taken ?? ""}/${r.seats ?? ""}`, r.players_connected, r.spectators,
      r.visibility || "public", r.node, button("Open", `open-${r.room}`, () => openDetail(r.room))))));
}

async function openDetail(room) {
  openRoom = room;
  const info = await guarded(() => api("GET", `/api/operator/rooms/${encodeURIComponent(room)}`));
  if (!info) return;
  $("[data-testid=room-detail]").hidden = false;
  $("[data-testid=detail-room]").textContent = room;
  const s = info.summary || {};
  $("[data-testid=detail-summary]").textContent =
    `${s.title || s.game || ""} · ${s.status || ""}${info.closed ? ` (closed: ${info.closed})` : ""} · node ${info.node ?? "none"} · ` +
    `log length ${info.log_length} · spectators ${info.spectators} · host ${info.host ?? "none"}`;
  fill("detail-seats", info.seats.map((x) => h("tr", {}, cells(x.seat, x.name, x.player, x.bot, x.connected ? "yes" : "no"))));
  fill("detail-connections", info.connections.map((c) => h("tr", {},
    cells(c.peer, c.role, c.seat, c.name, c.player, button("Remove", `remove-${c.peer}`, () => {
      const reason = prompt("Why? (the person is told)");
      if (reason) act("POST", `/api/operator/rooms/${encodeURIComponent(room)}/remove`, { peer: c.peer, reason }, `Connection ${c.peer} removed.`);
    })))));
  fill("detail-chat", info.chat.map((c) => h("tr", {},
    cells(c.seq, c.channel, c.name, c.text, button("Hide", `hide-${c.seq}`, () =>
      act("POST", `/api/operator/rooms/${encodeURIComponent(room)}/hide`, { seq: c.seq }, `Chat line ${c.seq} hidden.`))))));
  $("[data-testid=detail-events]").replaceChildren(...info.events.map((e) => h("li", { text: JSON.stringify(e) })));
}

function renderAddresses(rows) {
  fill("addresses", rows.map((a) => h("tr", {},
    cells(a.address, a.connections, Object.entries(a.nodes).map(([n, k]) => `${n}: ${k}`).join(", "),
      button("Ban…", `ban-${a.address}`, () => {
        $("[data-testid=ban-kind]").value = "address";
        $("[data-testid=ban-value]").value = a.address;
        $("[data-testid=ban-reason]").focus();
      })))));
}

function renderBans(bans) {
  fill("bans", bans.map((b) => h("tr", {},
    cells(b.kind, b.value, time(b.until), b.reason, b.by, button("Lift", `lift-${b.value}`, () =>
      act("POST", "/api/operator/bans/lift", { kind: b.kind, value: b.value }, `The ban of ${b.value} is lifted.`))))));
}

const SHOWN = ["at", "who", "from", "action", "target", "result", "node"];

function renderAudit(entries) {
  fill("audit", entries.map((e) => {
    const details = Object.entries(e).filter(([k]) => !SHOWN.includes(k)).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    return h("tr", { "data-action": e.action }, cells(time(e.at), e.who, e.from, e.action, e.target, details.join(" "), e.result));
  }));
}

async function refresh() {
  const all = await guarded(() => Promise.all([
    api("GET", "/api/operator/nodes"),
    api("GET", `/api/operator/rooms?${roomQuery()}`),
    api("GET", "/api/operator/connections"),
    api("GET", "/api/operator/bans"),
    api("GET", "/api/operator/audit?limit=100"),
  ]));
  if (!all) return;
  const [nodes, rooms, addresses, bans, audit] = all;
  $("[data-testid=token-form]").hidden = true;
  $("[data-testid=sign-out]").hidden = false;
  $("[data-testid=console]").hidden = false;
  renderNodes(nodes.nodes);
  renderRooms(rooms.rooms);
  renderAddresses(addresses.addresses);
  renderBans(bans.bans);
  renderAudit(audit.audit);
  if (openRoom) await openDetail(openRoom);
}

function start() {
  refresh();
  clearInterval(timer);
  timer = setInterval(refresh, 5000);
}

// -- forms ------------------------------------------------------------------------------

function onSubmit(testid, handler) {
  $(`[data-testid=${testid}]`).addEventListener("submit", (ev) => {
    ev.preventDefault();
    handler(new FormData(ev.target), ev.target);
  });
}

onSubmit("token-form", (form, el) => {
  sessionStorage.setItem(KEY, String(form.get("token")));
  sessionStorage.setItem(WHO, String(form.get("who") || "operator"));
  el.reset();
  show("token-error", "");
  start();
});
onSubmit("room-filter", () => refresh());
onSubmit("close-form", (form, el) => {
  if (!openRoom) return;
  act("POST", `/api/operator/rooms/${encodeURIComponent(openRoom)}/close`, { reason: form.get("reason") }, `Room ${openRoom} closed.`);
  el.reset();
});
onSubmit("ban-form", (form, el) => {
  const body = { kind: form.get("kind"), value: form.get("value"), minutes: Number(form.get("minutes")), reason: form.get("reason") };
  act("POST", "/api/operator/bans", body, `${body.kind} ${body.value} banned for ${body.minutes} min.`);
  el.reset();
});
onSubmit("notice-form", (form, el) => {
  act("POST", "/api/operator/notice", { text: form.get("text") }, "Notice sent.").then((out) => {
    if (out) show("console-done", `Notice sent to ${out.told} connections.`);
  });
  el.reset();
});
$("[data-testid=sign-out]").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  locked("");
});

if (sessionStorage.getItem(KEY)) start();
else locked("");
