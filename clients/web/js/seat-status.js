// What every game's seat header shows besides the name: here or away (a word, not
// only a grey dot), a bot playing for an absent player, a clock that just ran out;
// and the seat card's accessible name.

import { h } from "./dom.js";

/**
 * What a seat's header needs of the table's context.
 * @typedef {object} SeatContext
 * @property {(key: string, params?: {[name: string]: unknown}) => string} t a string in the viewer's language
 * @property {(seat: number) => string} seatName the seat's player name
 * @property {((seat: number) => boolean) | undefined} [seatConnected] the player is here
 * @property {((seat: number) => boolean) | undefined} [seatTakeover] a bot plays for the absent player
 * @property {{marks?: {[seat: number]: {kind: string, until: number}}} | undefined} [ui] the page's state
 * @property {number | null} [seat] the viewer's seat
 */

/**
 * The presence dot and status tags of seat `s`.
 * @param {SeatContext} ctx the table's context
 * @param {number} s the seat
 * @returns {(HTMLElement | null)[]} the dot and the tags
 */
export function seatBadges(ctx, s) {
  const { t } = ctx;
  const name = ctx.seatName(s);
  const online = ctx.seatConnected ? ctx.seatConnected(s) : true;
  const takeover = ctx.seatTakeover ? ctx.seatTakeover(s) : false;
  const mark = ctx.ui?.marks?.[s];
  const timedOut = mark && mark.kind === "timeout" && mark.until > Date.now();
  return [
    h("span", { class: `dot ${online ? "on" : "off"}`, title: online ? "" : t("seat.away_long", { name }), "aria-hidden": "true" }),
    online ? null : h("span", { class: "tag away", testid: `away-${s}`, title: t("seat.away_long", { name }), text: t("seat.away") }),
    takeover ? h("span", { class: "tag takeover", testid: `takeover-${s}`, title: t("seat.takeover_long", { name }), text: t("seat.takeover") }) : null,
    timedOut ? h("span", { class: "tag timeout", testid: `timeout-${s}`, text: t("seat.timeout") }) : null,
  ];
}

/**
 * The accessible name of seat `s`'s card: who sits there, and whether it is you or a bot.
 * @param {SeatContext} ctx the table's context
 * @param {number} s the seat
 * @param {boolean} [bot] a bot sits there
 * @returns {string} the name
 */
export function seatLabel(ctx, s, bot) {
  const name = ctx.seatName(s);
  if (s === ctx.seat) return ctx.t("seat.label_you", { name });
  return bot ? ctx.t("seat.label_bot", { name }) : ctx.t("seat.label", { name });
}
