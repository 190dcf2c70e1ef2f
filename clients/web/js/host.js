// The host's controls at a table (docs/protocol.md 15.2-15.3): before the game starts,
// remove a seated player, lock or unlock the seats, fill the free seats with bots and
// start, hand the host role to another seated player; any time, issue a new invite code
// for a private room or revoke it (HTTP: the code must reach the host alone). Everyone
// else reads who the host is. Acts are refused by the server for anyone but the host;
// the panel is only a convenience.

import { h as el } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { api, saveInvite } from "./people.js";

/**
 * The host panel in `box`. `env`: room (id), act(act) → promise, seatName(seat),
 * inviteChanged(code) (a new code, or null once revoked). Returns {update(state)},
 * state = {view, player}.
 */
export function mountHost(box, env) {
  let last = null;
  let message = null; // {kind: "error" | "ok", text}
  let busy = false;

  async function run(fn, ok) {
    busy = true;
    message = null;
    rerender();
    try {
      await fn();
      message = ok ? { kind: "ok", text: ok } : null;
    } catch (err) {
      message = { kind: "error", text: errorText(err.code, err.message) };
    }
    busy = false;
    rerender();
  }

  const act = (a) => run(() => env.act(a));

  async function newInvite() {
    const data = await api("POST", `/api/rooms/${encodeURIComponent(env.room)}/invite`);
    saveInvite(env.room, data.invite);
    env.inviteChanged(data.invite);
  }

  async function revokeInvite() {
    await api("DELETE", `/api/rooms/${encodeURIComponent(env.room)}/invite`);
    saveInvite(env.room, null);
    env.inviteChanged(null);
  }

  function button(testid, text, onclick, cls = "btn small", label = null) {
    return el("button", { type: "button", class: cls, "data-testid": testid, disabled: busy, "aria-label": label, text, onclick });
  }

  function seatRow(s, room, me) {
    const name = env.seatName(s.seat);
    const li = el("li", { "data-testid": `host-seat-${s.seat}` }, el("span", { class: "seat-name", text: s.taken ? name : t("host.free_seat") }));
    if (s.player === room.host) li.append(" ", el("span", { class: "badge", text: t("host.badge") }));
    else if (s.held) li.append(" ", el("span", { class: "muted", text: t("host.held") }));
    if (room.status === "waiting" && s.taken && !s.bot && s.player !== me) {
      const tools = el("span", { class: "host-tools" });
      tools.append(button(`host-remove-${s.seat}`, t("host.remove"), () => act({ type: "remove", seat: s.seat }), "btn tiny danger", t("host.remove_label", { name })));
      if (s.player)
        tools.append(button(`host-give-${s.seat}`, t("host.give"), () => act({ type: "host", player: s.player }), "btn tiny", t("host.give_label", { name })));
      li.append(" ", tools);
    }
    return li;
  }

  function render(state) {
    const room = state.view?.room;
    if (!room || !room.host) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const hostSeat = (room.seats || []).find((s) => s.player === room.host);
    if (room.host !== state.player) {
      box.replaceChildren(
        el("p", { class: "muted", "data-testid": "host-name" }, t("host.is"), " ", el("strong", { text: hostSeat ? env.seatName(hostSeat.seat) : t("host.away") })),
      );
      return;
    }
    /** @type {HTMLElement[]} */
    const parts = [el("h2", { id: "host-title", text: t("host.title") })];
    if (room.status === "waiting") {
      parts.push(el("ul", { class: "host-seats", "data-testid": "host-seats" }, ...(room.seats || []).map((s) => seatRow(s, room, state.player))));
      const row = el("div", { class: "host-actions" });
      row.append(
        room.locked
          ? button("host-unlock", t("host.unlock"), () => act({ type: "lock", on: false }))
          : button("host-lock", t("host.lock"), () => act({ type: "lock", on: true })),
      );
      if ((room.seats || []).some((s) => !s.taken && !s.held))
        row.append(button("host-fill", t("host.fill"), () => act({ type: "fill" }), "btn small primary"));
      parts.push(row);
      if (room.locked) parts.push(el("p", { class: "muted", "data-testid": "host-locked", text: t("host.locked_note") }));
    } else {
      parts.push(el("p", { class: "muted", text: t("host.started") }));
    }
    if (room.visibility === "private") {
      parts.push(
        el(
          "div",
          { class: "host-actions" },
          button("host-new-invite", t("host.new_invite"), () => run(newInvite, t("host.new_invite_done"))),
          button("host-revoke-invite", t("host.revoke_invite"), () => run(revokeInvite, t("host.revoke_invite_done")), "btn small ghost"),
        ),
      );
    }
    if (message) parts.push(el("p", { class: `notice ${message.kind === "error" ? "warn" : ""}`, role: "status", "data-testid": "host-message", text: message.text }));
    box.replaceChildren(...parts);
  }

  function rerender() {
    if (last) render(last);
  }

  return {
    update(state) {
      last = state;
      render(state);
    },
    rerender,
  };
}
