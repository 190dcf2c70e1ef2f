// What the lobby knows about each game beyond /api/games: an emblem, the new-room
// defaults a newcomer is safe with, and every option as labelled choices.
// A game the server offers but this file does not describe gets plain inputs.

const SVG = "http://www.w3.org/2000/svg";

function svg(viewBox, parts) {
  const root = document.createElementNS(SVG, "svg");
  root.setAttribute("viewBox", viewBox);
  root.setAttribute("class", "emblem");
  root.setAttribute("aria-hidden", "true");
  root.innerHTML = parts;
  return root;
}

const pips = (cx, cy, n, r = 3.2, fill = "#fff") => {
  const at = { 1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]] }[n];
  return at.map(([x, y]) => `<circle cx="${cx + x * 8}" cy="${cy + y * 8}" r="${r}" fill="${fill}"/>`).join("");
};

const EMBLEMS = {
  // two dice over fanned bills
  rollie: () =>
    svg(
      "0 0 120 64",
      `<rect x="8" y="14" width="44" height="26" rx="4" fill="#2f9e5f" transform="rotate(-10 30 27)"/>
       <rect x="14" y="22" width="44" height="26" rx="4" fill="#2f74d0" transform="rotate(-3 36 35)"/>
       <rect x="20" y="30" width="44" height="26" rx="4" fill="#c8901a"/>
       <text x="42" y="49" font-size="14" font-weight="800" fill="#fff" text-anchor="middle">10</text>
       <rect x="70" y="8" width="30" height="30" rx="6" fill="#d94848" transform="rotate(8 85 23)"/>${pips(85, 23, 5, 2.6)}
       <rect x="82" y="30" width="30" height="30" rx="6" fill="#2b2f3a" transform="rotate(-8 97 45)"/>
       <text x="97" y="51" font-size="17" font-weight="800" fill="#f4b942" text-anchor="middle">R</text>`,
    ),
  // coloured dice on a character sheet
  "roll-player": () =>
    svg(
      "0 0 120 64",
      `<rect x="6" y="4" width="60" height="56" rx="5" fill="#fbf6ea" stroke="#c9b98f" stroke-width="2"/>
       <line x1="14" y1="18" x2="58" y2="18" stroke="#c9b98f" stroke-width="3"/>
       <line x1="14" y1="30" x2="58" y2="30" stroke="#c9b98f" stroke-width="3"/>
       <line x1="14" y1="42" x2="44" y2="42" stroke="#c9b98f" stroke-width="3"/>
       <rect x="62" y="10" width="26" height="26" rx="5" fill="#3b82c4"/>${pips(75, 23, 3, 2.4)}
       <rect x="88" y="22" width="26" height="26" rx="5" fill="#8b5cf6"/>${pips(101, 35, 5, 2.4)}
       <rect x="66" y="36" width="24" height="24" rx="5" fill="#16a34a"/>${pips(78, 48, 2, 2.4)}`,
    ),
  // hexes of a city with a road and two white dice
  "roll-builder": () =>
    svg(
      "0 0 120 64",
      `${[[18, 20, "#cfe3a7"], [40, 20, "#cfe3a7"], [29, 39, "#9cc7e6"], [51, 39, "#cfe3a7"], [62, 20, "#e8dcb5"]]
        .map((/** @type {[number, number, string]} */ [x, y, f]) => `<polygon points="${[0, 60, 120, 180, 240, 300].map((a) => `${x + 12 * Math.cos(((a + 30) * Math.PI) / 180)},${y + 12 * Math.sin(((a + 30) * Math.PI) / 180)}`).join(" ")}" fill="${f}" stroke="#8a7a55" stroke-width="1.2"/>`)
        .join("")}
       <line x1="18" y1="20" x2="51" y2="39" stroke="#7a4a1f" stroke-width="3" stroke-linecap="round"/>
       <rect x="36" y="14" width="9" height="9" fill="#fff" stroke="#1f2430" stroke-width="1.4"/>
       <rect x="80" y="8" width="26" height="26" rx="5" fill="#fffdf6" stroke="#1f2430" stroke-width="1.5"/>${pips(93, 21, 3, 2.4, "#1f2430")}
       <rect x="88" y="34" width="26" height="26" rx="5" fill="#fffdf6" stroke="#1f2430" stroke-width="1.5"/>${pips(101, 47, 2, 2.4, "#1f2430")}`,
    ),
};

export function emblem(game) {
  return (EMBLEMS[game] || EMBLEMS.rollie)();
}

// Roll Builder's events, as the lobby offers them: names and targets as the engine's
// catalog has them (engine/roll_builder/content; the table shows view.game.event.target,
// and tests/browser/test_content_agrees.py checks these equal it).
export const RB_EVENTS = [
  ["flood", 105],
  ["famine", 105],
  ["festival", 109],
  ["raiders", 104],
  ["golden_age", 115],
  ["exodus", 106],
  ["plague", 96],
];

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

// Each option: [name, [[value, labelKey, params]...]]; the first choice is the default
// unless the server's default is among the values.
const OPTIONS = {
  rollie: [
    ["rounds", range(1, 7).reverse().map((n) => [n, n === 7 ? "opt.rollie.rounds.7" : n === 1 ? "opt.rollie.rounds.1" : "opt.rollie.rounds.n", { n }])],
    ["bills_per_value", [30, 20, 10, 5].map((n) => [n, "opt.rollie.bills_per_value.n", { n }]), true],
    ["priority", ["arrival", "turn"].map((v) => [v, `opt.rollie.priority.${v}`]), true],
  ],
  "roll-player": [["class_mode", ["draw", "choice"].map((v) => [v, `opt.roll-player.class_mode.${v}`])]],
  "roll-builder": [
    ["city", ["tidehaven", "highcrag", "random"].map((v) => [v, `opt.roll-builder.city.${v}`])],
    [
      "event",
      [
        ["auto", "opt.roll-builder.event.auto"],
        ["none", "opt.roll-builder.event.none"],
        ["random", "opt.roll-builder.event.random"],
        ...RB_EVENTS.map(([id, target]) => [id, "opt.roll-builder.event.one", { name: { key: `rb.c.event.${id}` }, target }]),
      ],
    ],
    ["visionaries", range(0, 5).map((n) => [n, n ? "opt.roll-builder.visionaries.n" : "opt.roll-builder.visionaries.0", { n }])],
    ["visionary_goals", ["rulebook", "hard"].map((v) => [v, `opt.roll-builder.visionary_goals.${v}`]), true],
  ],
};

/** The option choices of a game, or null when the lobby does not know it. */
export function optionChoices(game) {
  return OPTIONS[game] || null;
}

// New-room defaults: the creator always keeps a seat; the clock gives time to read.
const DEFAULTS = {
  rollie: { seats: 3, clock: 30 },
  "roll-player": { seats: 2, clock: 120 },
  "roll-builder": { seats: 2, clock: 120 },
};

export function defaults(game) {
  return DEFAULTS[game] || { seats: 2, clock: 60 };
}

export const CLOCKS = [0, 20, 30, 60, 120, 300];
export const TAKEOVERS = [null, 30, 60, 120, 300];

// A bot waits this long before each move, so a human sees the table first.
export const BOT_DELAY = 1.2;

/** The room body of "play against a bot now": one human seat, one bot, no clock. */
export function quickRoom(game, minSeats) {
  const seats = Math.max(2, minSeats);
  return { game, seats, options: {}, room: { clock: 0, bots: seats - 1, bot_delay: BOT_DELAY } };
}
