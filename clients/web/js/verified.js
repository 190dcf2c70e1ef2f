// "Dice verified": the server's check of a finished game's dice against its revealed
// seed (GET /api/rooms/{id}/verify, the code `rollhouse verify` runs; docs/fairness.md).
// The verdict is fetched once; its text follows the language switch.

import { addStrings, onLangChange, t } from "./i18n.js";
import strings from "./i18n/replay.js";
import { showRules } from "./rules.js";
import { authHeaders, withInvite } from "./people.js";

addStrings(strings);

const shown = new Map(); // box -> verdict

function fill(box, verdict) {
  box.hidden = false;
  box.dataset.ok = String(Boolean(verdict.ok));
  box.classList.toggle("error", !verdict.ok);
  box.textContent = verdict.ok
    ? `✓ ${t("replay.verified", { n: verdict.checked })} `
    : `${t("replay.not_verified", { seq: verdict.seq ?? "-", problem: verdict.problem || "" })} `;
  // what it means, in plain words (rules/fairness.md in the rules drawer)
  const more = document.createElement("button");
  more.type = "button";
  more.className = "linklike";
  more.dataset.testid = "fairness-link";
  more.textContent = t("replay.verified_what");
  more.addEventListener("click", () => showRules("fairness", t("replay.fairness_title"), true));
  box.append(more);
}

onLangChange(() => {
  for (const [box, verdict] of shown) fill(box, verdict);
});

/** Fill `box` with the verdict for `room` (hidden if it cannot be had); `invite`: the
 * code a private room's visitor brings (none for its players: their session). */
export async function showVerified(box, room, invite = null) {
  try {
    const verdict = await (await fetch(withInvite(`/api/rooms/${encodeURIComponent(room)}/verify`, invite), { headers: authHeaders() })).json();
    shown.set(box, verdict);
    fill(box, verdict);
  } catch (_) {
    box.hidden = true;
  }
}
