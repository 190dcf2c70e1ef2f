// "Dice verified": the server's check of a finished game's dice against its revealed
// seed (GET /api/rooms/{id}/verify, the code `rollhouse verify` runs; docs/fairness.md).
// The verdict is fetched once; its text follows the language switch.

import { addStrings, onLangChange, t } from "./i18n.js";
import strings from "./i18n/replay.js";
import { authHeaders, withInvite } from "./people.js";

addStrings(strings);

const shown = new Map(); // box -> verdict

function fill(box, verdict) {
  box.hidden = false;
  box.dataset.ok = String(Boolean(verdict.ok));
  box.classList.toggle("error", !verdict.ok);
  box.textContent = verdict.ok
    ? `✓ ${t("replay.verified", { n: verdict.checked })}`
    : t("replay.not_verified", { seq: verdict.seq ?? "-", problem: verdict.problem || "" });
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
