// Quick match from the lobby (docs/protocol.md 15.4): "seat me at a game of X". The
// server holds a seat for this browser's player in the oldest open public room of that
// game and size, or a new one whose free seats get bots after a while; the table page
// then claims the seat with the player's session.

import { t } from "./i18n.js";
import { api, ensurePlayer, roomLink } from "./people.js";

/** Seconds after which a quick-match room fills its free seats with bots. */
export const FILL_BOTS_AFTER = 30;

/** Ask for a seat; resolves with the table's link (an ApiError otherwise). */
export async function quickMatch(game, seats) {
  if (!(await ensurePlayer())) throw new Error(t("err.player/unauthorized"));
  const body = { game, seats, room: { fill_bots_after: FILL_BOTS_AFTER, bot_delay: 1.2, clock: 60, takeover_after: 60 } };
  const data = await api("POST", "/api/match", body);
  return roomLink(data.room, null);
}

/** The "Quick match" button of a game card; errors go to `showError(text)`. */
export function quickMatchButton(game, seats, showError) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn small";
  button.dataset.testid = `match-${game.name}`;
  button.textContent = t("match.button");
  button.setAttribute("aria-label", t("match.label", { game: game.title }));
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = t("match.finding");
    button.setAttribute("aria-label", t("match.finding"));
    try {
      location.href = await quickMatch(game.name, seats);
    } catch (err) {
      showError(t("match.failed", { message: err.message }));
      button.disabled = false;
      button.textContent = t("match.button");
      button.setAttribute("aria-label", t("match.label", { game: game.title }));
    }
  });
  return button;
}
