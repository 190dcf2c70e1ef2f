// Who is playing: the player's session (docs/protocol.md 12.1 and 15.1) and the account
// panel of the lobby (play as a guest, add a username and password, sign in on another
// device, sign out here or everywhere).
//
// The session token is a secret: it lives in localStorage under `rollhouse.session` and
// goes out only as `Authorization: Bearer` on our own origin and in a v2 hello. A guest is
// made on the first visit that needs one (ensurePlayer); when the server refuses (the
// guests-per-address limit, an old server), the page carries on without a player, as a
// version 1 client would: seat tokens still hold the seats.
// Names are text: every name shown here is set with textContent, never as HTML.

import { h as el } from "./dom.js";
import { errorText, t } from "./i18n.js";

const SESSION_KEY = "rollhouse.session";
const PLAYER_KEY = "rollhouse.player";
const NAME_KEY = "rollhouse.name";
const SIGNED_OUT_KEY = "rollhouse.signed_out";

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch (_) {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch (_) {
    /* private mode: the session lasts as long as the page */
  }
}

/** The stored session token, or null. */
export function session() {
  return read(SESSION_KEY);
}

/** The stored player {id, name, username}, or null. */
export function savedPlayer() {
  try {
    return JSON.parse(read(PLAYER_KEY) || "null");
  } catch (_) {
    return null;
  }
}

function remember(player, token) {
  write(PLAYER_KEY, player ? JSON.stringify(player) : null);
  write(SIGNED_OUT_KEY, null);
  if (token !== undefined) write(SESSION_KEY, token);
  if (player?.name) write(NAME_KEY, player.name);
}

/** Forget the session here (signed out, expired, or refused by the server). */
export function forget() {
  write(SESSION_KEY, null);
  write(PLAYER_KEY, null);
}

/** Headers for a request that acts for the player (plus `extra`). */
export function authHeaders(extra = {}) {
  const token = session();
  return token ? { ...extra, authorization: `Bearer ${token}` } : { ...extra };
}

/** An HTTP error of the API: `code` from the catalogue, `message` translated. */
export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(code ? errorText(code, message) : `HTTP ${status}`);
    this.status = status;
    this.code = code || null;
    this.field = field || null;
  }
}

/** A JSON request to our API with the session; the answer's body, or an ApiError. */
export async function api(method, path, body) {
  const init = { method, headers: authHeaders(body === undefined ? {} : { "content-type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  init.cache = "no-store";
  const reply = await fetch(path, init);
  const data = reply.status === 204 ? {} : await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const e = data.error || {};
    if (reply.status === 401 && e.code === "player/unauthorized") forget();
    throw new ApiError(reply.status, e.code, e.message, e.field);
  }
  return data;
}

/** `path` with the room's invite code as `?invite=` (HTTP routes of a private room). */
export function withInvite(path, invite) {
  if (!invite) return path;
  return `${path}${path.includes("?") ? "&" : "?"}invite=${encodeURIComponent(invite)}`;
}

// -- invite codes the browser was given (the host's, or one from a link) -----------------

export function savedInvite(room) {
  return read(`rollhouse.invite.${room}`);
}

export function saveInvite(room, code) {
  write(`rollhouse.invite.${room}`, code || null);
}

/** The link that opens a room: with its invite code when there is one. */
export function roomLink(room, invite = savedInvite(room)) {
  const url = new URL("table.html", location.origin + "/");
  url.searchParams.set("room", room);
  if (invite) url.searchParams.set("invite", invite);
  return url.href;
}

// -- the player ----------------------------------------------------------------------------

/** A new guest player with this name (or the server's "Guest xxxx"); stores its session. */
export async function becomeGuest(name) {
  const body = name ? { name: name.slice(0, 32) } : {};
  const data = await api("POST", "/api/players", body);
  remember(data.player, data.session);
  return data.player;
}

/**
 * The player of this browser: the stored one, else a new guest. Null when there is
 * none and none can be made (the page goes on without a player).
 */
export async function ensurePlayer(name = read(NAME_KEY)) {
  if (session()) return savedPlayer();
  try {
    return await becomeGuest((name || "").trim() || null);
  } catch (err) {
    if (err.code === "player/bad_name") {
      try {
        return await becomeGuest(null);
      } catch (_) {
        return null;
      }
    }
    return null;
  }
}

/**
 * The player with the name the lobby's field holds (`rollhouse.name`): renamed first when
 * it differs (a name typed just before leaving the lobby), kept when the server refuses it.
 */
export async function syncName(name = read(NAME_KEY)) {
  const player = savedPlayer();
  const wanted = (name || "").trim();
  if (!session() || !player || !wanted || wanted === player.name) return player;
  try {
    return await rename(wanted);
  } catch (_) {
    return player;
  }
}

/** GET /api/me: the player as the server knows it now (null when signed out). */
export async function refreshMe() {
  if (!session()) return null;
  try {
    const data = await api("GET", "/api/me");
    remember(data.player);
    return data.player;
  } catch (err) {
    return err.status === 401 ? null : savedPlayer();
  }
}

export async function rename(name) {
  const data = await api("PATCH", "/api/me", { name });
  remember(data.player);
  return data.player;
}

export async function register(username, password) {
  const data = await api("POST", "/api/me/credentials", { username, password });
  remember(data.player);
  return data.player;
}

export async function signIn(username, password) {
  const data = await api("POST", "/api/sessions", { username, password });
  remember(data.player, data.session);
  return data.player;
}

export async function signOut(everywhere = false) {
  try {
    await api("DELETE", everywhere ? "/api/sessions" : "/api/sessions/current");
  } finally {
    forget();
    write(SIGNED_OUT_KEY, "1");
  }
}

// -- the account panel (lobby) -------------------------------------------------------------

function field(label, input) {
  return el("label", { class: "field" }, el("span", { text: label }), input);
}

/**
 * The account panel in `box`: who you are, and the forms to sign in, keep the account
 * (username and password) and sign out. `changed()` runs when the player changes.
 * Returns {render} (call it when the language changes).
 */
export function mountAccount(box, changed = () => {}) {
  const state = { mode: null, error: null, busy: false }; // mode: null | "signin" | "register"

  async function run(fn) {
    state.busy = true;
    state.error = null;
    render();
    try {
      await fn();
      state.mode = null;
      changed();
    } catch (err) {
      state.error = err.message;
    }
    state.busy = false;
    render();
  }

  function credentialsForm(mode) {
    const user = el("input", { name: "username", autocomplete: "username", maxlength: "32", "data-testid": `${mode}-username`, required: true });
    const pass = el("input", {
      name: "password",
      type: "password",
      autocomplete: mode === "signin" ? "current-password" : "new-password",
      minlength: "10",
      maxlength: "256",
      "data-testid": `${mode}-password`,
      required: true,
    });
    const form = el(
      "form",
      { class: "account-form", "data-testid": `${mode}-form`, novalidate: true },
      field(t("people.username"), user),
      field(t("people.password"), pass),
      mode === "register" ? el("small", { class: "help", text: t("people.register.help") }) : null,
      el(
        "div",
        { class: "account-actions" },
        el("button", { type: "submit", class: "btn primary small", disabled: state.busy, "data-testid": `${mode}-submit`, text: t(`people.${mode}.submit`) }),
        el("button", { type: "button", class: "btn small ghost", text: t("people.cancel"), onclick: () => ((state.mode = null), render()) }),
      ),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const u = user.value.trim();
      const p = pass.value;
      run(() => (mode === "signin" ? signIn(u, p) : register(u, p)));
    });
    return form;
  }

  function render() {
    const player = savedPlayer();
    /** @type {HTMLElement[]} */
    const parts = [el("h2", { id: "account-title", text: t("people.title") })];
    if (player) {
      const who = el("p", { class: "who", "data-testid": "account-who" });
      who.append(t(player.username ? "people.signed_in_as" : "people.guest_as"), " ");
      who.append(el("strong", { "data-testid": "account-name", text: player.name }));
      if (player.username) who.append(" ", el("span", { class: "muted", text: `(@${player.username})` }));
      parts.push(who);
    } else {
      parts.push(el("p", { class: "muted", "data-testid": "account-who", text: t("people.nobody") }));
    }
    const actions = el("div", { class: "account-actions" });
    if (!player) {
      actions.append(
        el("button", {
          type: "button",
          class: "btn small primary",
          "data-testid": "play-as-guest",
          text: t("people.guest"),
          onclick: () => run(() => becomeGuest((read(NAME_KEY) || "").trim() || null)),
        }),
      );
    }
    if (!player?.username) {
      actions.append(el("button", { type: "button", class: "btn small", "data-testid": "show-signin", text: t("people.signin"), onclick: () => ((state.mode = "signin"), render()) }));
    }
    if (player && !player.username) {
      actions.append(el("button", { type: "button", class: "btn small", "data-testid": "show-register", text: t("people.register"), onclick: () => ((state.mode = "register"), render()) }));
    }
    if (player) {
      actions.append(
        el("button", { type: "button", class: "btn small ghost", "data-testid": "signout", text: t("people.signout"), onclick: () => run(() => signOut(false)) }),
      );
      if (player.username)
        actions.append(
          el("button", { type: "button", class: "btn small ghost", "data-testid": "signout-all", text: t("people.signout_all"), onclick: () => run(() => signOut(true)) }),
        );
    }
    parts.push(actions);
    if (state.mode) parts.push(credentialsForm(state.mode));
    if (state.error) parts.push(el("p", { class: "notice error", role: "alert", "data-testid": "account-error", text: state.error }));
    box.replaceChildren(...parts);
  }

  render();
  // the first visit makes a guest (not after an explicit sign-out: the buttons are there)
  const first = session() || read(SIGNED_OUT_KEY) ? refreshMe() : ensurePlayer().then((p) => p && changed());
  first.then(() => render());
  return {
    render,
    /** Show a refusal in the panel (e.g. a display name the server would not take). */
    error(message) {
      state.error = message;
      render();
    },
  };
}

/** Keep the player's display name in step with the lobby's name field (on change);
 * `failed(message)` is told a refusal (player/bad_name), translated. */
/**
 * @param {HTMLInputElement} input the name field
 * @param {() => void} [changed] after a rename
 * @param {(message: string) => void} [failed] with the server's refusal
 */
export function bindName(input, changed = () => {}, failed = (_message) => {}) {
  input.addEventListener("change", async () => {
    const name = input.value.trim();
    if (!name || !session() || name === savedPlayer()?.name) return;
    try {
      await rename(name);
      input.removeAttribute("aria-invalid");
      changed();
    } catch (err) {
      input.setAttribute("aria-invalid", "true"); // a name the server refuses (player/bad_name)
      failed(err.message);
    }
  });
}
