// The guided first game (issue 24): while a player learns Rollie against a bot
// (table.html?...&learn=1, from the lobby's "Learn as you play"), the table says above
// the board what to do now and why, and points at the control to use. Pure: what to
// say follows from the view alone, so a reload or a return says the same.

import { addStrings } from "./i18n.js";
import { h } from "./dom.js";
import strings from "./i18n/coach.js";

addStrings(strings);

const fmt = (v) => (v === "R" ? "R" : v < 0 ? `−${-v}` : String(v));

/** What to say now: {lines: [key, params][], target: css selector or null}. */
export function rollieAdvice(ctx) {
  const g = ctx.game;
  const me = ctx.seat;
  const lines = [];
  let target = null;
  if (ctx.room.status === "waiting") return { lines: [["coach.waiting", {}]], target };
  if (g.phase === "over") return { lines: [["coach.over", {}]], target: "[data-testid=rematch], [data-testid=rematch-join]" };
  const row = me !== null && me !== undefined ? g.seats[me] : null;
  const legal = ctx.you?.legal || [];
  const dice = g.dice || [];
  if (g.phase === "rolling") {
    if (dice.length === 2 && dice[0] === dice[1]) lines.push(["coach.after_rollie", {}]);
    if (legal.some((c) => c.type === "roll")) {
      lines.push(["coach.you_roll", {}]);
      target = "[data-testid=roll-button]";
    } else lines.push(["coach.they_roll", { name: ctx.seatName(g.first_player) }]);
    return { lines, target };
  }
  // deciding
  const takes = legal.filter((c) => c.type === "take");
  const total = row ? row.bet_total : 0;
  if (row && !row.in_play) lines.push(["coach.secured", {}]);
  else if (!legal.length) lines.push(["coach.decided", {}]);
  else if (!takes.length) {
    lines.push(["coach.only_secure", {}]);
    target = "[data-testid=secure-button]";
  } else if (!total) {
    lines.push(["coach.take_first", {}], ["coach.bonus", {}]);
    target = ".die.takeable";
  } else {
    lines.push(["coach.take_or_secure", { total: fmt(total) }], ["coach.risk", {}]);
    target = "[data-testid=secure-button], .die.takeable";
  }
  return { lines, target };
}

/** The coach's panel (null when the player hid it); marks its target in `board`. */
export function coachPanel(ctx, board) {
  const { lines, target } = rollieAdvice(ctx);
  if (target) for (const el of board.querySelectorAll(target)) el.classList.add("coach-target");
  return h(
    "aside",
    { class: "panel coach", testid: "coach", role: "note", "aria-label": ctx.t("coach.title") },
    h(
      "header",
      { class: "coach-head" },
      h("strong", { text: ctx.t("coach.title") }),
      h("button", {
        type: "button",
        class: "btn small ghost",
        testid: "coach-hide",
        text: ctx.t("coach.hide"),
        onclick: () => {
          ctx.ui.coachOff = true;
          ctx.rerender();
        },
      }),
    ),
    lines.map(([key, params], i) => h("p", { class: i ? "coach-why" : "coach-now", testid: i ? null : "coach-now", text: ctx.t(key, params) })),
  );
}
