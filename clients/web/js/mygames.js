// "My games" in the lobby: the rooms this browser's player joined (GET /api/me/rooms,
// docs/protocol.md 12.1), playing, waiting or finished with the scores, each with a way
// back (resume the seat: the session opens it on any device) or a replay.

import { api, roomLink, savedInvite, savedPlayer, session } from "./people.js";
import { t } from "./i18n.js";

const PAGE = 20;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function resultText(summary) {
  const result = summary.result;
  if (!result || !Array.isArray(result.scores)) return "";
  const scores = result.scores.join(" · ");
  const winners = (result.winners || []).map((s) => t("common.seat", { n: s + 1 })).join(", ");
  return winners ? t("mygames.result", { scores, winners }) : t("mygames.scores", { scores });
}

function row(entry) {
  const s = entry.summary;
  const room = entry.room;
  // a seat of ours opens the room (the session); a code only for rooms we watched
  const invite = s?.players?.includes(savedPlayer()?.id) ? null : savedInvite(room);
  const replay = `replay.html?room=${encodeURIComponent(room)}${invite ? `&invite=${encodeURIComponent(invite)}` : ""}`;
  if (!s) {
    return el("li", { class: "mygame gone", "data-testid": `mygame-${room}` }, el("span", { class: "mono", text: room }), el("span", { class: "muted", text: t("mygames.gone") }));
  }
  const actions = el("span", { class: "actions" });
  if (s.status !== "finished")
    actions.append(el("a", { class: "btn small primary", href: roomLink(room, invite), "data-testid": `mygame-resume-${room}`, text: t("lobby.resume") }));
  actions.append(el("a", { class: "btn small", href: replay, "data-testid": `mygame-replay-${room}`, text: t("replay.watch") }));
  return el(
    "li",
    { class: "mygame", "data-testid": `mygame-${room}`, "data-status": s.status },
    el("strong", { text: s.title || s.game }),
    el("span", { class: `status-pill ${s.status}`, text: t(`status.${s.status}`) }),
    s.visibility && s.visibility !== "public" ? el("span", { class: "muted", text: t(`visibility.${s.visibility}`) }) : null,
    el("span", { class: "muted mono", text: room }),
    s.status === "finished" ? el("span", { class: "result", "data-testid": `mygame-result-${room}`, text: resultText(s) }) : null,
    actions,
  );
}

/** The "My games" panel in `box`; returns {refresh, render}. */
export function mountMyGames(box) {
  let entries = [];
  let error = null;
  let next = null; // the cursor of the next page, or null at the end

  function render() {
    box.hidden = !session();
    const parts = [el("h2", { id: "mygames-title", text: t("mygames.title") })];
    if (error) parts.push(el("p", { class: "notice error", text: error }));
    else if (!entries.length) parts.push(el("p", { class: "muted", "data-testid": "mygames-empty", text: t("mygames.empty") }));
    else parts.push(el("ul", { class: "mygames", "data-testid": "mygames-list" }, ...entries.map(row)));
    if (next !== null && !error) {
      const more = el("button", { type: "button", class: "btn small", "data-testid": "mygames-more", text: t("mygames.more") });
      more.addEventListener("click", () => load(next));
      parts.push(more);
    }
    box.replaceChildren(...parts);
  }

  /** The first page (cursor 0, replacing the list) or the next one (appended). */
  async function load(cursor = 0) {
    if (!session()) {
      entries = [];
      error = null;
      next = null;
      return render();
    }
    try {
      const page = await api("GET", `/api/me/rooms?cursor=${cursor}&limit=${PAGE}`);
      entries = cursor === 0 ? page.rooms || [] : [...entries, ...(page.rooms || [])];
      next = page.next ?? null;
      error = null;
    } catch (err) {
      error = err.status === 401 ? null : t("mygames.failed", { message: err.message });
      entries = [];
      next = null;
    }
    return render();
  }

  const refresh = () => load(0);

  render();
  refresh();
  return { refresh, render };
}
