// Game modules: js/games/<name>.js, each exporting a default object
//   { name,
//     render(root, ctx),                        draw the table into root (called on every change)
//     describe(previous, view, events, ctx) ->  [{key, params, kind, banner}] log lines / banners
//   }
// ctx: { view, game, room, you, seat, role, presence, ui, t, lang, seatName(s),
//        serverNow(), send(command) -> Promise (ack / CommandError), rerender() }.
// A game without a module gets the raw view (raw.js), so new games work before their board.

import raw from "./raw.js";

const cache = new Map();

export async function loadGame(name) {
  if (!/^[a-z][a-z0-9_-]*$/.test(name || "")) return raw;
  if (!cache.has(name)) {
    cache.set(
      name,
      import(`./${name}.js`).then(
        (m) => m.default,
        () => raw,
      ),
    );
  }
  return cache.get(name);
}
