// "Dice verified": the server's check of a finished game's dice against its revealed
// seed (GET /api/rooms/{id}/verify, the code `rollhouse verify` runs; docs/fairness.md).

import { addStrings, t } from "./i18n.js";
import strings from "./i18n/replay.js";

addStrings(strings);

/** Fill `box` with the verdict for `room` (hidden until the game is over). */
export async function showVerified(box, room) {
  try {
    const verdict = await (await fetch(`/api/rooms/${encodeURIComponent(room)}/verify`)).json();
    box.hidden = false;
    box.dataset.ok = String(Boolean(verdict.ok));
    box.classList.toggle("error", !verdict.ok);
    box.textContent = verdict.ok
      ? `✓ ${t("replay.verified", { n: verdict.checked })}`
      : t("replay.not_verified", { seq: verdict.seq ?? "-", problem: verdict.problem || "" });
  } catch (_) {
    box.hidden = true;
  }
}
