// Table chat (docs/protocol.md 11 and 15.3): the players' channel, and for spectators
// their own channel too; a line is sent as an `act` {type: "chat", text} and arrives in
// the view's `chat` like any other change. The host may hide a line (`hide`) and, before
// the game starts, remove its writer (`remove` {player}): that is how a host sends away a
// spectator who writes in the players' channel.
//
// Every name and every line is text: set with textContent, never parsed as HTML, and no
// link in a line is made clickable.

import { h as el } from "./dom.js";
import { errorText, t } from "./i18n.js";

const MAX_TEXT = 500;

function clock(at) {
  const d = new Date(at * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/**
 * The chat panel in `box`. `env` gives: act(act) → a promise (the page's RoomClient.act),
 * seatName(seat). Returns {update(state)}, state = {view, role, player, canWrite}.
 */
export function mountChat(box, env) {
  const title = el("h2", { id: "chat-title" });
  const lists = el("div", { class: "chat-lists" });
  const error = el("p", { class: "notice warn chat-error", role: "alert", "data-testid": "chat-error", hidden: true });
  const note = el("p", { class: "muted chat-note", "data-testid": "chat-note", hidden: true });
  const input = el("input", { type: "text", maxlength: String(MAX_TEXT), autocomplete: "off", "data-testid": "chat-input" });
  const label = el("label", { class: "visually-hidden", for: "chat-input" });
  input.id = "chat-input";
  const send = el("button", { type: "submit", class: "btn small primary", "data-testid": "chat-send" });
  const form = el("form", { class: "chat-form", "data-testid": "chat-form", novalidate: true }, label, input, send);
  box.replaceChildren(title, lists, error, note, form);
  let last = null;
  let errorTimer = null;

  function showError(code, message) {
    error.textContent = errorText(code, message);
    error.dataset.code = code || "";
    error.hidden = false;
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => (error.hidden = true), 8000);
  }

  async function act(a, after) {
    try {
      await env.act(a);
      if (after) after();
    } catch (err) {
      showError(err.code, err.message);
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.disabled = true;
    act({ type: "chat", text }, () => (input.value = "")).finally(() => {
      input.disabled = false;
      input.focus();
    });
  });

  function line(l, state) {
    const mine = state.player && l.player === state.player;
    const who = l.name || (l.seat !== null && l.seat !== undefined ? env.seatName(l.seat) : t("chat.spectator"));
    const li = el(
      "li",
      { class: `chat-line${mine ? " mine" : ""}`, "data-testid": `chat-line-${l.seq}`, "data-seq": String(l.seq) },
      el("time", { class: "muted", text: clock(l.at) }),
      " ",
      el("strong", { class: "chat-name", text: who }),
      l.seat === null || l.seat === undefined ? el("span", { class: "muted", text: ` (${t("chat.spectator")})` }) : null,
      ": ",
      el("span", { class: "chat-text", "data-testid": "chat-text", text: l.text }),
    );
    if (state.host && !mine) {
      const tools = el("span", { class: "chat-tools" });
      tools.append(
        el("button", {
          type: "button",
          class: "btn tiny ghost",
          "data-testid": `chat-hide-${l.seq}`,
          "aria-label": t("chat.hide_label", { name: who }),
          text: t("chat.hide"),
          onclick: () => act({ type: "hide", seq: l.seq }),
        }),
      );
      if (l.player && state.waiting)
        tools.append(
          el("button", {
            type: "button",
            class: "btn tiny ghost danger",
            "data-testid": `chat-remove-${l.seq}`,
            "aria-label": t("host.remove_label", { name: who }),
            text: t("host.remove"),
            onclick: () => act({ type: "remove", player: l.player }),
          }),
        );
      li.append(" ", tools);
    }
    return li;
  }

  function channel(name, lines, state, heading) {
    const list = el("ol", { class: "chat-list", "data-testid": `chat-${name}`, "aria-live": "polite" }, ...lines.map((l) => line(l, state)));
    if (!lines.length) list.append(el("li", { class: "muted empty", text: t("chat.empty") }));
    const part = el("section", { class: "chat-channel" });
    if (heading) part.append(el("h3", { text: t(`chat.channel.${name}`) }));
    part.append(list);
    return part;
  }

  function update(state) {
    last = state;
    const chat = state.view?.chat || {};
    const spectator = state.role === "spectator";
    title.textContent = t("chat.title");
    label.textContent = t("chat.input");
    input.placeholder = t("chat.placeholder");
    send.textContent = t("chat.send");
    const parts = [channel("players", chat.players || [], state, spectator)];
    if (spectator) parts.push(channel("spectators", chat.spectators || [], state, true));
    const scrolled = [...lists.querySelectorAll(".chat-list")].map((l) => l.scrollHeight - l.scrollTop - l.clientHeight < 24);
    lists.replaceChildren(...parts);
    lists.querySelectorAll(".chat-list").forEach((l, i) => {
      if (scrolled[i] !== false) l.scrollTop = l.scrollHeight;
    });
    form.hidden = !state.canWrite;
    note.hidden = state.canWrite;
    note.textContent = state.canWrite ? "" : t("chat.need_player");
  }

  return {
    update,
    rerender: () => last && update(last),
  };
}
