// Roll Builder's board: the shared dice and the turn list, each player's city sheet
// (an SVG hex map, the wonder, innovations, Favor and Strength tracks, wealth storage),
// what this turn gave, who is done, the event and the visionaries, and the final score
// sheet. Everything clickable comes from you.legal. See js/games/index.js.

import { addStrings } from "../i18n.js";
import strings from "../i18n/roll-builder.js";
import content from "../i18n/roll-builder-content.js";
import { cref, tc } from "./roll-builder-text.js";
import { RESOURCES, edgeKey, edgeKind, effectGlyphs, hexMap, icon, metricValue, sprite } from "./roll-builder-hexmap.js";
import { h } from "../dom.js";
import { seatBadges, seatLabel } from "../seat-status.js";

addStrings(content);

addStrings(strings);

// the stylesheet of this board, linked once
if (typeof document !== "undefined" && !document.querySelector("link[data-rb-css]")) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("../../css/roll-builder.css", import.meta.url).href;
  link.dataset.rbCss = "1";
  document.head.append(link);
}

const TURN_BONUS = { 5: "idea", 10: "build", 15: "wonder" };
const CATEGORIES = ["buildings", "roads", "innovations", "resources", "wonder", "bonus"];


const hexKey = (q, r) => `${q},${r}`;

// -- words for effects, abilities and conditions ------------------------------------------

function gainText(gain, t) {
  return Object.entries(gain || {})
    .map(([r, n]) => t(n < 0 ? "rb.fx.loss" : "rb.fx.gain", { n: Math.abs(n), res: t(`rb.res.${r}`) }))
    .join(", ");
}

function abilityText(a, t) {
  const where = t(`rb.edge.${a.where || "any"}`);
  const gain = gainText(a.gain, t);
  switch (a.kind) {
    case "road_gain":
      return t("rb.ab.road_gain", { where, gain });
    case "build_gain":
      return a.building ? t("rb.ab.build_gain", { n: a.building, gain }) : t("rb.ab.build_gain_any", { gain });
    case "wonder_gain":
      return t("rb.ab.wonder_gain", { gain });
    case "ring_gain":
      return a.limit ? t("rb.ab.ring_gain_limit", { gain, limit: a.limit }) : t("rb.ab.ring_gain", { gain });
    case "allow":
      return t("rb.ab.allow", { where });
    case "forbid_road":
      return t("rb.ab.forbid_road", { where });
    case "substitute":
      return t("rb.ab.substitute", { pay: t(`rb.res.${a.pay}`), res: t(`rb.res.${a.resource}`) });
    case "die_shift":
      return t("rb.ab.die_shift");
    case "end_points":
      return t("rb.ab.end_points", { points: a.points, per: a.per || 1, metric: t(`rb.metric.${a.metric}`) });
    case "ring_points":
      return t("rb.ab.ring_points", { points: a.points || 1 });
    case "gain_adjust":
      return t("rb.ab.gain_adjust", { res: t(`rb.res.${a.resource}`), delta: a.delta > 0 ? `+${a.delta}` : String(a.delta) });
    case "turn_gain":
      return t("rb.ab.turn_gain", { turns: (a.turns || []).join(", "), effect: effectText(a.effect, t) });
    default:
      return a.kind;
  }
}

function effectText(effect, t) {
  if (!effect) return "";
  const parts = [];
  if (effect.gain) parts.push(gainText(effect.gain, t));
  if (effect.roads) parts.push(t("rb.fx.roads", { n: effect.roads }));
  if (effect.build) parts.push(t("rb.fx.build"));
  if (effect.wonder) parts.push(t("rb.fx.wonder"));
  if (effect.points) parts.push(t("rb.fx.points", { n: effect.points }));
  for (const a of effect.abilities || []) parts.push(abilityText(a, t));
  return parts.filter(Boolean).join("; ");
}

function conditionText(cond, p, t) {
  const now = p ? metricValue(p, cond.metric) : null;
  const what = t(`rb.metric.${cond.metric}`);
  return now === null ? t("rb.cond", { at: cond.at, what }) : t("rb.cond_progress", { at: cond.at, what, now });
}

function glyphs(effect, _t) {
  return h(
    "span",
    { class: "rb-glyphs" },
    effectGlyphs(effect).map(([g, n]) => h("span", { class: "rb-glyph" }, icon(g, 16), n !== null && g !== "ability" ? h("small", { text: String(n) }) : null)),
    effect ? null : null,
  );
}

/** A space by its place on the sheet: "row 3, column 5 (land)". */
function spaceShort(sp, p, t) {
  const rows = p.map.spaces.map((x) => x.r);
  const row = sp.r - Math.min(...rows);
  const cols = p.map.spaces.map((x) => x.q + (x.r - (x.r & 1)) / 2);
  const col = sp.q + (sp.r - (sp.r & 1)) / 2 - Math.min(...cols);
  const terrain = sp.terrain ? t(`rb.terrain.${sp.terrain}`) : "";
  return t("rb.map.space_at", { row: row + 1, col: col + 1, terrain });
}

/** Why a click on a space that is not highlighted does nothing. */
function whyNotHere(sp, legal, t) {
  if (legal.builds.size) return sp.building ? t("rb.why.built") : t("rb.why.build");
  if (legal.edges.size) return t("rb.why.roads");
  if (legal.dice[0].length || legal.dice[1].length) return t("rb.why.dice");
  return t("rb.why.nothing");
}

function spaceLabel(sp, t) {
  const parts = [t(`rb.terrain.${sp.terrain}`) + (sp.partial ? ` (${t("rb.partial")})` : "")];
  if (sp.name) parts.push(tc(t, sp.name));
  if (sp.points) parts.push(t("rb.map.points", { n: sp.points }));
  if (sp.effect) parts.push(effectText(sp.effect, t));
  if (sp.building) parts.push(t("rb.map.building", { n: sp.building }));
  if (sp.marked) parts.push(t("rb.map.marked"));
  if (sp.ringed) parts.push(t("rb.map.ringed"));
  if (!sp.connected) parts.push(t("rb.map.unconnected"));
  return parts.join(" · ");
}

// -- legal commands ------------------------------------------------------------------------

function legalIndex(ctx, seat) {
  const out = { dice: [[], []], edges: new Map(), builds: new Map(), marks: new Map(), boxes: new Map(), pays: new Map(), converts: { favor: [], strength: [] }, done: null, any: false };
  if (ctx.role !== "player" || ctx.seat !== seat) return out;
  for (const c of ctx.you?.legal || []) {
    out.any = true;
    switch (c.type) {
      case "use_die":
        out.dice[c.die]?.push(c);
        break;
      case "place_road":
        out.edges.set(edgeKey(c.edge), c);
        break;
      case "build": {
        const k = hexKey(...c.space);
        if (!out.builds.has(k)) out.builds.set(k, []);
        out.builds.get(k).push(c);
        break;
      }
      case "mark_space":
        out.marks.set(hexKey(...c.space), c);
        break;
      case "fill_wonder":
        out.boxes.set(c.box, c);
        break;
      case "pay": {
        const k = `${c.innovation}:${c.circle}`;
        if (!out.pays.has(k)) out.pays.set(k, []);
        out.pays.get(k).push(c);
        break;
      }
      case "convert":
        out.converts[c.resource]?.push(c);
        break;
      case "done":
        out.done = c;
        break;
      default:
        break;
    }
  }
  return out;
}

function act(ctx, command) {
  ctx.ui.rbSpace = null;
  ctx.ui.rbPay = null;
  ctx.send(command).catch(() => {
    /* the page shows the rejection */
  });
}

function viewedSeat(ctx) {
  const n = ctx.game.players.length;
  const chosen = ctx.ui.rbSeat;
  if (Number.isInteger(chosen) && chosen >= 0 && chosen < n) return chosen;
  return ctx.seat !== null && ctx.seat !== undefined && ctx.seat < n ? ctx.seat : 0;
}

// -- status, dice, this turn ------------------------------------------------------------------

function names(ctx, seats) {
  return seats.map((s) => ctx.seatName(s)).join(", ");
}

function statusStrip(ctx) {
  const { game: g, t } = ctx;
  const mine = ctx.role === "player" ? ctx.seat : null;
  const others = g.awaiting.filter((s) => s !== mine);
  let prompt;
  if (ctx.room.status === "waiting") prompt = t("rb.prompt.waiting");
  else if (g.over) prompt = t("rb.prompt.over");
  else if (mine !== null && g.awaiting.includes(mine)) prompt = t("rb.prompt.yours");
  else if (mine !== null) prompt = t("rb.prompt.done_waiting", { names: names(ctx, others) });
  else prompt = t("rb.prompt.watching", { names: names(ctx, others) });
  const yourTurn = mine !== null && !g.over && g.awaiting.includes(mine) && ctx.room.status === "playing";
  const deadline = mine !== null ? ctx.room.deadlines[String(mine)] : undefined;
  return h(
    "div",
    { class: `status-strip rb-status${yourTurn ? " your-turn" : ""}` },
    h("span", { class: "round", testid: "rb-turn", "data-turn": String(g.turn), text: t("rb.turn", { n: g.turn, total: g.turns }) }),
    TURN_BONUS[g.turn] && !g.over ? h("span", { class: "pill warn" }, icon(TURN_BONUS[g.turn], 14), " ", t(`rb.turn_bonus.${TURN_BONUS[g.turn]}`)) : null,
    h("span", { class: "prompt", testid: "prompt", text: prompt }),
    h("span", { class: "spacer" }),
    deadline !== undefined ? h("span", { class: "clock", testid: `clock-${mine}`, "data-deadline": String(deadline), "aria-label": t("table.clock_label", { name: ctx.seatName(mine) }) }) : null,
  );
}

const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
function dieFace(face, cls, label, testid) {
  return h(
    "span",
    { class: `rb-die ${cls}`, testid, "data-face": String(face), role: "img", "aria-label": label, title: label },
    Array.from({ length: 9 }, (_, i) => h("span", { class: (PIPS[face] || []).includes(i) ? "pip on" : "pip" })),
  );
}

function dicePanel(ctx, p, legal) {
  const { game: g, t } = ctx;
  const busy = !!ctx.ui.busy;
  const mineViewed = legal.any;
  const shifts = new Set(legal.dice.flat().map((c) => c.shift));
  const shift = shifts.has(ctx.ui.rbShift) ? ctx.ui.rbShift : 0;
  const dice = g.dice.map((face, i) => {
    const used = p.dice_used.includes(i);
    const options = legal.dice[i].filter((c) => c.shift === shift);
    const shown = face + shift;
    return h(
      "div",
      { class: `rb-die-slot${used ? " used" : ""}`, testid: `die-${i}`, "data-used": String(used) },
      dieFace(face, used ? "used" : options.length ? "ready" : "", t("rb.die_label", { n: i + 1, face }), `die-face-${i}`),
      used ? h("span", { class: "rb-used", text: t("rb.die_used") }) : null,
      options.length
        ? h(
            "div",
            { class: "rb-die-actions", role: "group", "aria-label": t("rb.use_die", { n: i + 1 }) },
            ["road", "build", "wonder"].map((action) => {
              const c = options.find((o) => o.action === action);
              const glyph = action === "road" ? "roads" : action;
              const idle = c && wasted(p, action, shown);
              const label = (action === "road" && shown === 1 ? t("rb.use.road_one") : t(`rb.use.${action}`, { n: shown })) + (idle ? ` — ${t(`rb.idle.${action}`)}` : "");
              const word = t(`rb.action.${action}`);
              // the name a screen reader speaks holds the word on the button (WCAG 2.5.3)
              const named = label.startsWith(word) ? label : `${word}: ${label}`;
              return h(
                "button",
                { type: "button", class: `btn small rb-use${idle ? " idle" : ""}`, testid: `use-${i}-${action}`, disabled: !c || busy, title: label, "aria-label": named, onclick: () => act(ctx, c) },
                icon(glyph, 16),
                h("span", { text: word }),
              );
            }),
          )
        : null,
    );
  });
  const shiftRow =
    shifts.size > 1 && mineViewed
      ? h(
          "div",
          { class: "rb-shift", role: "group", "aria-label": t("rb.shift") },
          h("span", { class: "muted", text: t("rb.shift") }),
          [-1, 0, 1].map((d) =>
            h("button", {
              type: "button",
              class: `btn small${shift === d ? " primary" : ""}`,
              testid: `shift-${d}`,
              "aria-pressed": String(shift === d),
              disabled: !shifts.has(d),
              text: d > 0 ? "+1" : d < 0 ? "−1" : "±0",
              onclick: () => {
                ctx.ui.rbShift = d;
                ctx.rerender();
              },
            }),
          ),
        )
      : null;
  return h(
    "section",
    { class: "panel rb-dice-panel", "aria-label": t("rb.dice") },
    h("h2", { text: t("rb.dice") }),
    h("div", { class: "rb-dice", testid: "rb-dice" }, dice),
    shiftRow,
    turnList(ctx),
  );
}

// A building or wonder die that nothing can use now would be lost: the button says so.
function wasted(p, action, face) {
  if (action === "build")
    return !p.map.spaces.some((sp) => sp.terrain === "land" && !sp.partial && sp.connected && !sp.building);
  if (action === "wonder") return !p.wonder.boxes.some((b) => b.available && b.n === face);
  return false;
}

function turnList(ctx) {
  const { game: g, t } = ctx;
  return h(
    "ol",
    { class: "rb-turns", testid: "rb-turns", "aria-label": t("rb.turn_list") },
    Array.from({ length: g.turns }, (_, i) => {
      const n = i + 1;
      const roll = g.rolls[i];
      const bonus = TURN_BONUS[n];
      return h(
        "li",
        { class: `${n === g.turn && !g.over ? "now" : ""}${n < g.turn || g.over ? " past" : ""}`, title: bonus ? t(`rb.turn_bonus.${bonus}`) : null },
        h("span", { class: "rb-turn-n", text: String(n) }),
        h("span", { class: "rb-turn-roll", text: roll ? `${roll[0]}·${roll[1]}` : "" }),
        bonus ? icon(bonus, 12) : null,
      );
    }),
  );
}

function thisTurn(ctx, p, legal) {
  const { t } = ctx;
  const rows = [];
  if (p.roads_left) rows.push(h("li", { testid: "pool-roads" }, icon("roads", 18), (p.roads_left === 1 ? t("rb.pool.road_one") : t("rb.pool.roads", { n: p.roads_left }))));
  for (const b of p.builds) rows.push(h("li", { class: "pool-build" }, icon("build", 18), b ? t("rb.pool.build_n", { n: b }) : t("rb.pool.build_any")));
  for (const w of p.wonders) rows.push(h("li", { class: "pool-wonder" }, icon("wonder", 18), w ? t("rb.pool.wonder_n", { n: w }) : t("rb.pool.wonder_any")));
  const res = RESOURCES.filter((r) => p.pool[r]);
  const hints = [];
  if (legal.edges.size) hints.push(t("rb.hint.roads"));
  if (legal.builds.size) hints.push(t("rb.hint.build"));
  if (legal.boxes.size) hints.push(t("rb.hint.wonder"));
  if (legal.marks.size) hints.push(t("rb.hint.mark"));
  if (legal.pays.size) hints.push(t("rb.hint.pay"));
  const waiting = legal.dice[0].length || legal.dice[1].length;
  return h(
    "section",
    { class: "panel rb-pool-panel", testid: "rb-pool", "aria-label": t("rb.this_turn") },
    h("h2", { text: t("rb.this_turn") }),
    res.length
      ? h("div", { class: "rb-pool-res" }, res.map((r) => h("span", { class: "rb-res", testid: `pool-${r}`, title: t(`rb.res.${r}`) }, icon(r, 20), h("b", { text: String(p.pool[r]) }))))
      : null,
    rows.length ? h("ul", { class: "rb-pool-list" }, rows) : null,
    !res.length && !rows.length ? h("p", { class: "muted", text: waiting ? t("rb.pool.use_dice") : t("rb.pool.empty") }) : null,
    hints.length ? h("ul", { class: "rb-hints" }, hints.map((x) => h("li", { text: x }))) : null,
    convertButtons(ctx, legal),
    legal.done
      ? h("button", {
          type: "button",
          class: `btn big ${waiting || rows.length ? "" : "primary"} rb-done`,
          testid: "done-button",
          disabled: !!ctx.ui.busy,
          title: t("rb.done_hint"),
          text: t("rb.done"),
          onclick: () => {
            // Done with a die still unused: say so once; a second press ends the turn
            const unused = [0, 1].filter((i) => legal.dice[i].length);
            if (unused.length && ctx.ui.rbDoneWarned !== ctx.game.turn) {
              ctx.ui.rbDoneWarned = ctx.game.turn;
              ctx.explain(unused.length === 2 ? t("rb.why.done_both") : t("rb.why.done_one", { n: unused[0] + 1 }));
              return;
            }
            act(ctx, legal.done);
          },
        })
      : null,
  );
}

// Favor and strength may go onto their tracks mid-turn (a grey box that opens at converted
// favor opens at once): one button per resource, converting all of it that fits.
function convertButtons(ctx, legal) {
  const { t } = ctx;
  const buttons = ["favor", "strength"]
    .map((r) => legal.converts[r].reduce((best, c) => (!best || c.amount > best.amount ? c : best), null))
    .filter(Boolean)
    .map((c) =>
      h(
        "button",
        {
          type: "button",
          class: "btn rb-convert",
          testid: `convert-${c.resource}`,
          disabled: !!ctx.ui.busy,
          title: t("rb.convert_hint"),
          onclick: () => act(ctx, c),
        },
        icon(c.resource, 16),
        ` ${t("rb.convert", { n: c.amount, res: t(`rb.res.${c.resource}`) })}`,
      ),
    );
  return buttons.length ? h("div", { class: "rb-converts" }, buttons) : null;
}

// -- the city sheet ---------------------------------------------------------------------------

function cityTabs(ctx, shown) {
  const { game: g, t } = ctx;
  if (g.players.length < 2) return null;
  return h(
    "div",
    { class: "rb-tabs", role: "tablist", "aria-label": t("rb.cities") },
    g.players.map((p) =>
      h(
        "button",
        {
          type: "button",
          role: "tab",
          class: `rb-tab${p.seat === shown ? " active" : ""}${p.done ? " done" : ""}`,
          testid: `city-tab-${p.seat}`,
          "aria-selected": String(p.seat === shown),
          onclick: () => {
            ctx.ui.rbSeat = p.seat;
            ctx.ui.rbSpace = null;
            ctx.rerender();
          },
        },
        h("strong", { text: ctx.seatName(p.seat) }),
        p.seat === ctx.seat && ctx.role === "player" ? h("span", { class: "tag you", text: t("common.you") }) : null,
        h("span", { class: "muted", text: ` ${tc(t, p.city.name)} · ${t("rb.points_short", { n: p.score })}` }),
        p.done && !g.over ? h("span", { class: "rb-check", "aria-label": t("rb.is_done"), text: " ✓" }) : null,
      ),
    ),
  );
}

function mapPanel(ctx, p, legal) {
  const { t } = ctx;
  const clickable = new Set([...legal.builds.keys(), ...legal.marks.keys()]);
  const onSpace = (sp) => {
    if (ctx.ui.busy) return;
    const k = hexKey(sp.q, sp.r);
    const options = [...(legal.marks.has(k) ? [legal.marks.get(k)] : []), ...(legal.builds.get(k) || [])];
    if (options.length === 1) act(ctx, options[0]);
    else {
      ctx.ui.rbSpace = k;
      ctx.rerender();
    }
  };
  const svg = hexMap(p, {
    t,
    legalEdges: legal.edges,
    legalSpaces: clickable,
    selected: ctx.ui.rbSpace,
    label: (sp) => spaceLabel(sp, t),
    short: (sp) => spaceShort(sp, p, t),
    onEdge: (c) => !ctx.ui.busy && act(ctx, c),
    onSpace,
    onOther: legal.any ? (sp) => ctx.explain(whyNotHere(sp, legal, t)) : null,
  });
  return h(
    "section",
    { class: "panel rb-map-panel", testid: `city-${p.seat}`, "aria-label": t("rb.map.label", { city: tc(t, p.city.name) }) },
    h(
      "header",
      { class: "rb-city-head" },
      h("h2", { text: tc(t, p.city.name) }),
      h("span", { class: "muted", text: ctx.seatName(p.seat) }),
      h("span", { class: "spacer" }),
      h("span", { class: "rb-score", testid: `score-${p.seat}`, "data-score": String(p.score), text: t("rb.score", { n: p.score }) }),
    ),
    mapHint(ctx, legal),
    h("div", { class: "rb-map-wrap", tabindex: "0" }, svg),
    roadList(ctx, p, legal),
    spaceChooser(ctx, p, legal),
    legend(ctx),
  );
}

/** What to do on the map, said right above it (phones: the turn's panel is far below). */
function mapHint(ctx, legal) {
  const { t } = ctx;
  const hints = [];
  const touch = window.matchMedia?.("(hover: none)").matches; // a finger taps
  if (legal.edges.size) hints.push(t("rb.hint.roads_list"));
  if (legal.builds.size) hints.push(t(touch ? "rb.hint.build_touch" : "rb.hint.build"));
  if (legal.marks.size) hints.push(t(touch ? "rb.hint.mark_touch" : "rb.hint.mark"));
  return hints.length ? h("p", { class: "rb-map-hint", testid: "map-hint", text: hints.join(" ") }) : null;
}

function edgeKindOf(p, e) {
  const terrain = new Map(p.map.spaces.map((sp) => [hexKey(sp.q, sp.r), sp.terrain]));
  return edgeKind(e, terrain, new Set(p.map.cliffs.map(edgeKey)));
}

/** The sides a road may go on, as a choice list a finger can use (the map's sides are thin). */
function roadList(ctx, p, legal) {
  const { t } = ctx;
  if (!legal.edges.size) return null;
  const bySpace = new Map(p.map.spaces.map((sp) => [hexKey(sp.q, sp.r), sp]));
  const end = (q, r) => spaceShort(bySpace.get(hexKey(q, r)) || { q, r }, p, t);
  const commands = [...legal.edges.values()];
  return h(
    "label",
    { class: "rb-road-list" },
    h("span", { text: t("rb.road_choose") }),
    h(
      "select",
      {
        testid: "road-list",
        disabled: !!ctx.ui.busy,
        onchange: (ev) => {
          const command = commands[Number(ev.target.value)];
          if (command && !ctx.ui.busy) act(ctx, command);
        },
      },
      h("option", { value: "", text: t("rb.road_choose_first") }),
      [...legal.edges.keys()].map((key, i) => {
        const e = key.split(",").map(Number);
        return h("option", { value: String(i), text: t("rb.map.road_between", { kind: t(`rb.edge.${edgeKindOf(p, e)}`), a: end(e[0], e[1]), b: end(e[2], e[3]) }) });
      }),
    ),
  );
}

function spaceChooser(ctx, p, legal) {
  const { t } = ctx;
  const k = ctx.ui.rbSpace;
  if (!k) return null;
  const mark = legal.marks.get(k);
  const builds = legal.builds.get(k) || [];
  if (!mark && !builds.length) return null;
  const sp = p.map.spaces.find((x) => hexKey(x.q, x.r) === k);
  const byN = new Map(p.buildings.map((b) => [b.n, b]));
  return h(
    "div",
    { class: "rb-chooser", testid: "space-chooser", role: "group", "aria-label": t("rb.choose_space") },
    h("span", { class: "rb-chooser-title", text: t("rb.choose_space") }),
    mark
      ? h("button", { type: "button", class: "btn small", testid: "choose-mark", onclick: () => act(ctx, mark) }, h("b", { text: "✕ " }), t("rb.mark", { what: effectText(sp?.effect, t) }))
      : null,
    builds.map((c) => {
      const b = byN.get(c.building);
      return h(
        "button",
        { type: "button", class: "btn small", testid: `choose-build-${c.building}`, title: effectText(b?.effect, t), onclick: () => act(ctx, c) },
        h("span", { class: `rb-bmark b${c.building}`, text: b?.letter || String(c.building) }),
        ` ${c.building} ${b ? tc(t, b.name) : ""}`,
      );
    }),
    h("button", {
      type: "button",
      class: "btn ghost small",
      testid: "choose-cancel",
      text: t("rb.cancel"),
      onclick: () => {
        ctx.ui.rbSpace = null;
        ctx.rerender();
      },
    }),
  );
}

function legend(ctx) {
  const { t } = ctx;
  const item = (cls, key) => h("span", { class: "rb-legend-item" }, h("span", { class: `rb-swatch ${cls}` }), t(key));
  return h(
    "div",
    { class: "rb-legend", "aria-hidden": "true" },
    item("land", "rb.terrain.land"),
    item("water", "rb.terrain.water"),
    item("partial", "rb.partial"),
    item("coast", "rb.edge.coast"),
    item("cliff", "rb.edge.cliff"),
    item("start", "rb.legend.start_road"),
    item("road", "rb.legend.road"),
    item("legal", "rb.legend.legal"),
  );
}

function wonderPanel(ctx, p, legal) {
  const { t } = ctx;
  const boxes = p.wonder.boxes;
  const x = new Map();
  const xOf = (b) => {
    if (x.has(b.index)) return x.get(b.index);
    const v = b.after.length ? b.after.reduce((sum, i) => sum + xOf(boxes[i]), 0) / b.after.length : b.col;
    x.set(b.index, v);
    return v;
  };
  boxes.forEach(xOf);
  const rows = Math.max(...boxes.map((b) => b.row)) + 1;
  const cols = Math.max(...boxes.map((b) => xOf(b))) + 1;
  const U = 46;
  const grey = boxes.find((b) => b.grey && b.opens);
  const conditions = [];
  for (const b of boxes) {
    if (b.opens && !conditions.some((c) => c.metric === b.opens.metric && c.at === b.opens.at)) conditions.push(b.opens);
  }
  const filled = boxes.filter((b) => b.filled).length;
  return h(
    "section",
    { class: "panel rb-wonder-panel", testid: `wonder-${p.seat}`, "aria-label": tc(t, p.wonder.name) },
    h("h2", {}, icon("wonder", 18), ` ${tc(t, p.wonder.name)} `, h("span", { class: "muted", text: t("rb.wonder.filled", { n: filled, total: boxes.length }) })),
    h(
      "div",
      { class: "rb-wonder", style: `width:${cols * U}px;height:${rows * U}px` },
      boxes.map((b) => {
        const c = legal.boxes.get(b.index);
        const state = b.filled ? "filled" : b.available ? "open" : b.grey && !openNow(b, p) ? "grey" : "closed";
        const tip = [t("rb.wonder.box", { n: b.n }), effectText(b.effect, t), b.opens ? conditionText(b.opens, p, t) : "", b.after.length ? t("rb.wonder.after", { boxes: b.after.map((i) => boxes[i].n).join(", ") }) : ""]
          .filter(Boolean)
          .join(" · ");
        return h(
          "button",
          {
            type: "button",
            class: `rb-box ${state}${b.grey ? " greyish" : ""}${c ? " legal" : ""}`,
            testid: `box-${b.index}`,
            "data-state": state,
            style: `left:${xOf(b) * U}px;top:${(rows - 1 - b.row) * U}px`,
            title: tip,
            disabled: !c || !!ctx.ui.busy,
            onclick: () => c && act(ctx, c),
          },
          h("span", { class: "visually-hidden", text: tip }),
          h("span", { class: "rb-box-n", "aria-hidden": "true", text: String(b.n) }),
          effectGlyphs(b.effect)
            .slice(0, 1)
            .map(([g, n]) => h("span", { class: "rb-box-fx", "aria-hidden": "true" }, icon(g, 13), n !== null && g !== "ability" ? h("small", { text: String(n) }) : null)),
          b.filled ? h("span", { class: "rb-box-x", "aria-hidden": "true", text: "✕" }) : null,
        );
      }),
    ),
    h("p", { class: "rb-rule muted", text: tc(t, p.wonder.rule) }),
    conditions.length
      ? h("p", { class: "rb-opens" }, h("span", { class: "rb-swatch grey" }), conditions.map((c) => conditionText(c, p, t)).join(" · "))
      : null,
    grey ? null : null,
  );
}

function openNow(b, p) {
  if (!b.opens) return true;
  const v = metricValue(p, b.opens.metric);
  return v !== null && v >= b.opens.at;
}

function innovationsPanel(ctx, p, legal) {
  const { t } = ctx;
  const open = ctx.ui.rbPay;
  return h(
    "section",
    { class: "panel rb-innovations-panel", testid: `innovations-${p.seat}`, "aria-label": t("rb.innovations") },
    h("h2", { text: t("rb.innovations") }),
    h(
      "div",
      { class: "rb-innovations" },
      p.innovations.map((inv) =>
        h(
          "article",
          { class: `rb-inv${inv.discovered ? " discovered" : ""}`, testid: `inv-${inv.id}`, "data-discovered": String(inv.discovered) },
          h("header", {}, h("strong", { text: tc(t, inv.name) }), h("span", { class: "rb-inv-points", title: t("rb.fx.points", { n: inv.points }), text: String(inv.points) })),
          h(
            "div",
            { class: "rb-costs" },
            inv.cost.map((c, i) => {
              const key = `${inv.id}:${i}`;
              const options = legal.pays.get(key) || [];
              const label = c.paid ? t("rb.cost.paid", { res: t(`rb.res.${c.resource}`) }) : options.length ? t("rb.cost.pay", { res: t(`rb.res.${c.resource}`) }) : t("rb.cost.unpaid", { res: t(`rb.res.${c.resource}`) });
              return h(
                "button",
                {
                  type: "button",
                  class: `rb-cost${c.paid ? " paid" : ""}${options.length ? " legal" : ""}${open === key ? " selected" : ""}`,
                  testid: `circle-${inv.id}-${i}`,
                  title: label,
                  "aria-label": label,
                  disabled: !options.length || !!ctx.ui.busy,
                  onclick: () => {
                    if (options.length === 1) act(ctx, options[0]);
                    else {
                      ctx.ui.rbPay = key;
                      ctx.rerender();
                    }
                  },
                },
                icon(c.resource, 20),
                c.paid ? h("span", { class: "rb-cost-x", "aria-hidden": "true", text: "✕" }) : null,
              );
            }),
          ),
          open && open.startsWith(`${inv.id}:`) && (legal.pays.get(open) || []).length > 1
            ? h(
                "div",
                { class: "rb-chooser small", testid: "pay-chooser" },
                h("span", { class: "rb-chooser-title", text: t("rb.pay_with") }),
                legal.pays.get(open).map((c) =>
                  h("button", { type: "button", class: "btn small", testid: `pay-with-${c.resource}`, onclick: () => act(ctx, c) }, icon(c.resource, 16), ` ${t(`rb.res.${c.resource}`)}`),
                ),
              )
            : null,
          h("p", { class: "rb-inv-text", text: tc(t, inv.text) }),
          inv.discovered ? h("span", { class: "pill secured", text: t("rb.discovered") }) : null,
        ),
      ),
    ),
  );
}

function track(ctx, p, name) {
  const { t } = ctx;
  const tr = p.tracks[name];
  return h(
    "div",
    { class: `rb-track ${name}`, testid: `track-${name}-${p.seat}`, "data-crossed": String(tr.crossed) },
    h("span", { class: "rb-track-label" }, icon(name, 18), ` ${t(`rb.res.${name}`)}`),
    h(
      "ol",
      {},
      tr.values.map((v, i) =>
        h("li", {
          class: i < tr.crossed ? "crossed" : i === tr.crossed ? "now" : "",
          title: i === tr.crossed ? t("rb.track.now", { n: v }) : null,
          text: String(v),
        }),
      ),
    ),
  );
}

function resourcesPanel(ctx, p) {
  const { t } = ctx;
  const circles = Array.from({ length: p.storage }, (_, i) => h("span", { class: `rb-coin${i < p.stored_wealth ? " full" : ""}` }));
  return h(
    "section",
    { class: "panel rb-res-panel", "aria-label": t("rb.resources") },
    h("h2", { text: t("rb.resources") }),
    track(ctx, p, "favor"),
    track(ctx, p, "strength"),
    h(
      "div",
      { class: "rb-storage", testid: `storage-${p.seat}`, "data-stored": String(p.stored_wealth) },
      h("span", { class: "rb-track-label" }, icon("wealth", 18), ` ${t("rb.storage", { n: p.stored_wealth, max: p.storage })}`),
      h("div", { class: "rb-coins" }, circles),
    ),
  );
}

function buildingsPanel(ctx, p) {
  const { t } = ctx;
  const count = new Map();
  for (const sp of p.map.spaces) if (sp.building) count.set(sp.building, (count.get(sp.building) || 0) + 1);
  const abilities = [...p.specials.map((x) => ({ text: tc(t, x) })), ...p.abilities.map((a) => ({ text: abilityText(a, t), now: true }))];
  return h(
    "section",
    { class: "panel rb-buildings-panel", "aria-label": t("rb.buildings") },
    h("h2", { text: t("rb.buildings") }),
    h(
      "ul",
      { class: "rb-buildings" },
      p.buildings.map((b) =>
        h(
          "li",
          { title: effectText(b.effect, t) },
          h("span", { class: `rb-bmark b${b.n}`, text: b.letter }),
          h("b", { text: ` ${b.n} ` }),
          h("span", { text: tc(t, b.name) }),
          glyphs(b.effect, t),
          count.get(b.n) ? h("span", { class: "muted", text: ` ×${count.get(b.n)}` }) : null,
        ),
      ),
    ),
    h("h3", { text: t("rb.abilities") }),
    h("ul", { class: "rb-abilities" }, abilities.map((a) => h("li", { class: a.now ? "active" : "" }, icon("ability", 14), ` ${a.text}`))),
  );
}

// -- the table: players, event, visionaries -------------------------------------------------

function playersPanel(ctx) {
  const { game: g, room, t } = ctx;
  return h(
    "section",
    { class: "panel rb-players-panel", testid: "rb-players", "aria-label": t("rb.players") },
    h("h2", { text: t("rb.players") }),
    h(
      "ul",
      { class: "rb-players" },
      g.players.map((p) => {
        const deadline = room.deadlines[String(p.seat)];
        const roomSeat = room.seats[p.seat] || {};
        return h(
          "li",
          { class: `${p.seat === ctx.seat && ctx.role === "player" ? "mine" : ""}${p.done ? " done" : ""}`, testid: `seat-${p.seat}`, "aria-label": seatLabel(ctx, p.seat, roomSeat.bot), "data-done": String(p.done) },
          seatBadges(ctx, p.seat)[0],
          h("strong", { class: "seat-name", text: ctx.seatName(p.seat) }),
          seatBadges(ctx, p.seat).slice(1),
          roomSeat.bot ? h("span", { class: "tag bot", text: t("common.bot") }) : null,
          h("span", { class: "muted", text: tc(t, p.city.name) }),
          h("span", { class: "spacer" }),
          h(
            "span",
            { class: "rb-dice-used", title: t("rb.dice_used", { n: p.dice_used.length }) },
            [0, 1].map((i) => h("span", { class: `rb-mini-die${p.dice_used.includes(i) ? " used" : ""}`, text: String(g.dice[i]) })),
          ),
          g.over ? null : h("span", { class: `pill ${p.done ? "decided" : "deciding"}`, text: p.done ? `✓ ${t("rb.is_done")}` : t("rb.playing") }),
          h("span", { class: "rb-score", text: t("rb.points_short", { n: p.score }) }),
          deadline !== undefined ? h("span", { class: "clock", testid: `clock-${p.seat}`, "data-deadline": String(deadline), "aria-label": t("table.clock_label", { name: ctx.seatName(p.seat) }) }) : null,
        );
      }),
    ),
  );
}

function eventPanel(ctx, p) {
  const { game: g, t } = ctx;
  const ev = g.event;
  if (!ev) return null;
  const solo = g.players.length === 1;
  const ahead = p.score > ev.target;
  return h(
    "section",
    { class: "panel rb-event-panel", testid: "rb-event", "aria-label": t("rb.event") },
    h("h2", { text: t("rb.event") }),
    h("p", {}, h("strong", { text: tc(t, ev.name) }), h("span", { class: "rb-target", text: ` ${t("rb.target", { n: ev.target })}` })),
    h("p", { class: "rb-inv-text", text: tc(t, ev.text) }),
    solo
      ? h("p", { class: `rb-survive ${ahead ? "ahead" : "behind"}`, text: t(ahead ? "rb.event.ahead" : "rb.event.behind", { score: p.score, target: ev.target }) })
      : null,
  );
}

function visionariesPanel(ctx) {
  const { game: g, t } = ctx;
  if (!g.visionaries.length) return null;
  const solo = g.players.length === 1;
  return h(
    "section",
    { class: "panel rb-vis-panel", testid: "rb-visionaries", "aria-label": t("rb.visionaries") },
    h("h2", { text: t("rb.visionaries") }),
    h(
      "ul",
      { class: "rb-visionaries" },
      g.visionaries.map((v) => {
        const who = g.players.filter((p) => p.visionaries.includes(v.id)).map((p) => p.seat);
        const p = g.players[viewedSeat(ctx)];
        return h(
          "li",
          { class: who.length ? "reached" : "", testid: `visionary-${v.id}` },
          h("header", {}, h("strong", { text: v.name }), solo ? null : h("span", { class: `rb-corner${v.claimed ? " claimed" : ""}`, title: t("rb.corner"), text: String(v.corner) })),
          h("p", { class: "rb-inv-text", text: tc(t, v.text) }),
          h("p", { class: "muted", text: conditionText(v.goal, p, t) }),
          who.length ? h("p", { class: "rb-reached", text: t("rb.reached_by", { names: names(ctx, who) }) }) : null,
        );
      }),
    ),
  );
}

// -- final scoring ----------------------------------------------------------------------------

const LABELS = [
  [/^Building marks$/, "rb.item.buildings"],
  [/^Space (-?\d+),(-?\d+)$/, "rb.item.space"],
  [/^Ringed spaces \((\d+)\)$/, "rb.item.rings"],
  [/^Stored wealth \((\d+)\)$/, "rb.item.wealth"],
  [/^Favor track \((\d+)\)$/, "rb.item.favor"],
  [/^Strength track \((\d+)\)$/, "rb.item.strength"],
  [/^Wonder boxes$/, "rb.item.wonder"],
  [/^Wonder box (\d+)$/, "rb.item.wonder_box"],
  [/^Event, turn (\d+)$/, "rb.item.event_turn"],
  [/^Map$/, "rb.item.map"],
];
function itemLabel(label, t) {
  const end = label.match(/^(\d+) per (\d+) (\w+) \((\d+)\)$/);
  if (end) return t("rb.item.end_points", { points: end[1], per: end[2], metric: t(`rb.metric.${end[3]}`), n: end[4] });
  for (const [re, key] of LABELS) {
    const m = label.match(re);
    if (m) return t(key, { a: m[1], b: m[2] });
  }
  const first = label.match(/^(.+) \(first\)$/);
  if (first) return t("rb.item.first", { a: tc(t, first[1]) });
  return tc(t, label);
}

function meter(score, target, t) {
  const top = Math.max(score, target) * 1.15 || 1;
  return h(
    "div",
    { class: `rb-meter${score > target ? " ok" : ""}`, role: "img", "aria-label": t("rb.final.meter", { score, target }) },
    h("div", { class: "rb-meter-bar", style: `width:${((score / top) * 100).toFixed(1)}%` }, h("span", { text: String(score) })),
    h("div", { class: "rb-meter-target", style: `left:${((target / top) * 100).toFixed(1)}%` }, h("span", { text: t("rb.target", { n: target }) })),
  );
}

function finalPanel(ctx) {
  const { game: g, t } = ctx;
  const best = Math.max(...g.players.map((p) => p.score));
  const solo = g.players.length === 1 && g.event;
  const winners = solo ? (g.players[0].score > g.event.target ? [0] : []) : g.players.filter((p) => p.score === best).map((p) => p.seat);
  let headline;
  if (solo) headline = winners.length ? t("rb.final.survived", { event: tc(t, g.event.name), score: g.players[0].score, target: g.event.target }) : t("rb.final.fell", { event: tc(t, g.event.name), score: g.players[0].score, target: g.event.target });
  else if (g.players.length === 1) headline = t("rb.final.solo", { score: g.players[0].score });
  else headline = winners.length > 1 ? t("rb.final.win_shared", { names: names(ctx, winners) }) : t("rb.final.wins", { names: names(ctx, winners) });
  return h(
    "section",
    { class: `panel final rb-final${solo && !winners.length ? " fell" : ""}`, testid: "final-scores" },
    h("h2", { text: t("rb.final.title") }),
    h("p", { class: "winner-line", testid: solo ? "rb-survival" : "winners", "data-survived": solo ? String(!!winners.length) : null }, h("span", { class: "trophy", "aria-hidden": "true", text: winners.length ? "★ " : "☠ " }), headline),
    solo ? meter(g.players[0].score, g.event.target, t) : null,
    h(
      "div",
      { class: "rb-final-cards" },
      g.players.map((p) => {
        const byCat = new Map(CATEGORIES.map((c) => [c, []]));
        for (const it of p.items) (byCat.get(it.category) || byCat.set(it.category, []).get(it.category)).push(it);
        return h(
          "div",
          { class: `rb-final-card${winners.includes(p.seat) ? " winner" : ""}`, testid: `final-row-${p.seat}`, "data-total": String(p.score) },
          h("header", {}, h("strong", { text: ctx.seatName(p.seat) }), h("span", { class: "muted", text: ` ${tc(t, p.city.name)}` })),
          h(
            "table",
            { class: "scores rb-items" },
            h(
              "tbody",
              {},
              [...byCat.entries()].flatMap(([cat, its]) => [
                h("tr", { class: "rb-cat" }, h("th", { scope: "row", text: t(`rb.cat.${cat}`) }), h("td", { class: "num", text: String(its.reduce((a, i) => a + i.points, 0)) })),
                ...its.map((it) => h("tr", { class: "rb-item" }, h("td", { text: itemLabel(it.label, t) }), h("td", { class: "num", text: String(it.points) }))),
              ]),
              h("tr", { class: "rb-total" }, h("th", { scope: "row", text: t("rb.final.total") }), h("td", { class: "num total", testid: `final-total-${p.seat}`, text: String(p.score) })),
              solo ? h("tr", { class: "rb-item" }, h("td", { text: t("rb.target", { n: g.event.target }) }), h("td", { class: "num", text: String(g.event.target) })) : null,
            ),
          ),
        );
      }),
    ),
  );
}

// -- the module ---------------------------------------------------------------------------------

function render(root, ctx) {
  const g = ctx.game;
  if (!g || !g.players) return;
  const shown = viewedSeat(ctx);
  const p = g.players[shown];
  const legal = g.over ? legalIndex({ ...ctx, you: null }, shown) : legalIndex(ctx, shown);
  const board = h(
    "div",
    { class: "rb", "data-turn": String(g.turn), "data-over": String(g.over), "data-seat-shown": String(shown) },
    sprite(),
    statusStrip(ctx),
    g.over ? finalPanel(ctx) : null,
    cityTabs(ctx, shown),
    h(
      "div",
      { class: "rb-top" },
      h("div", { class: "rb-main" }, mapPanel(ctx, p, legal), h("div", { class: "rb-under" }, wonderPanel(ctx, p, legal), resourcesPanel(ctx, p))),
      h(
        "div",
        { class: "rb-side" },
        dicePanel(ctx, p, legal),
        legal.any ? thisTurn(ctx, p, legal) : g.over ? null : poolSummary(ctx, p),
        eventPanel(ctx, p),
        playersPanel(ctx),
        buildingsPanel(ctx, p),
      ),
    ),
    innovationsPanel(ctx, p, legal),
    visionariesPanel(ctx),
  );
  root.replaceChildren(board);
}

function poolSummary(ctx, p) {
  // someone else's turn state (or a spectator's look), read-only
  const { t } = ctx;
  const res = RESOURCES.filter((r) => p.pool[r]);
  return h(
    "section",
    { class: "panel rb-pool-panel", testid: "rb-pool", "aria-label": t("rb.this_turn") },
    h("h2", { text: t("rb.this_turn") }),
    res.length ? h("div", { class: "rb-pool-res" }, res.map((r) => h("span", { class: "rb-res", title: t(`rb.res.${r}`) }, icon(r, 20), h("b", { text: String(p.pool[r]) })))) : null,
    p.roads_left ? h("p", {}, icon("roads", 18), ` ${(p.roads_left === 1 ? t("rb.pool.road_one") : t("rb.pool.roads", { n: p.roads_left }))}`) : null,
    h("p", { class: "muted", text: p.done ? t("rb.is_done") : t("rb.playing") }),
  );
}

function describe(previousView, view, events, ctx) {
  const a = previousView?.game;
  const b = view.game;
  const out = [];
  const line = (key, params = {}, kind = "info", banner = false) => out.push({ key, params, kind, banner });
  // the first roll comes with the set-up (there was no game before it)
  if (b?.dice && events.includes("set_up")) line("rb.ev.rolled", { n: b.turn, a: b.dice[0], b: b.dice[1] }, "round");
  if (!a || !b || !a.players || !b.players) return out;
  const seen = new Set();
  const t = ctx.t;
  for (const ev of events) {
    if (seen.has(ev)) continue;
    seen.add(ev);
    switch (ev) {
      case "road_placed":
        for (const p of b.players) {
          const n = p.map.roads.length - a.players[p.seat].map.roads.length;
          if (n > 0) line(n === 1 ? "rb.ev.road" : "rb.ev.roads", { name: ctx.seatName(p.seat), n });
        }
        break;
      case "space_marked":
        for (const p of b.players) {
          const before = new Map(a.players[p.seat].map.spaces.map((sp) => [hexKey(sp.q, sp.r), sp.marked]));
          for (const sp of p.map.spaces) {
            if (sp.marked && !before.get(hexKey(sp.q, sp.r))) {
              const gain = sp.effect ? effectText(sp.effect, t) : "";
              line(gain ? "rb.ev.marked_gain" : "rb.ev.marked", { name: ctx.seatName(p.seat), terrain: t(`rb.terrain.${sp.terrain}`), gain });
            }
          }
        }
        break;
      case "paid":
        for (const p of b.players) {
          for (const inv of p.innovations) {
            const old = a.players[p.seat].innovations.find((x) => x.id === inv.id);
            inv.cost.forEach((c, i) => {
              if (c.paid && old && !old.cost[i]?.paid) line("rb.ev.paid", { name: ctx.seatName(p.seat), res: t(`rb.res.${c.resource}`), innovation: cref(inv.name) });
            });
          }
        }
        break;
      case "converted":
        for (const p of b.players) {
          for (const res of ["favor", "strength"]) {
            const n = (p.tracks?.[res]?.crossed ?? 0) - (a.players[p.seat].tracks?.[res]?.crossed ?? 0);
            if (n > 0) line("rb.ev.converted", { name: ctx.seatName(p.seat), n, res: t(`rb.res.${res}`) });
          }
        }
        break;
      case "built":
        for (const p of b.players) {
          const before = new Map(a.players[p.seat].map.spaces.map((sp) => [hexKey(sp.q, sp.r), sp.building]));
          for (const sp of p.map.spaces) {
            if (sp.building && !before.get(hexKey(sp.q, sp.r))) {
              const bd = p.buildings.find((x) => x.n === sp.building);
              line("rb.ev.built", { name: ctx.seatName(p.seat), building: bd ? cref(bd.name) : String(sp.building) });
            }
          }
        }
        break;
      case "wonder_filled":
        for (const p of b.players) {
          const n = p.wonder.boxes.filter((x) => x.filled).length - a.players[p.seat].wonder.boxes.filter((x) => x.filled).length;
          if (n > 0) line("rb.ev.wonder", { name: ctx.seatName(p.seat), n });
        }
        break;
      case "discovered":
        for (const p of b.players) {
          for (const inv of p.innovations) {
            const old = a.players[p.seat].innovations.find((x) => x.id === inv.id);
            if (inv.discovered && old && !old.discovered) line("rb.ev.discovered", { name: ctx.seatName(p.seat), innovation: cref(inv.name) }, "round");
          }
        }
        break;
      case "visionary_completed":
        for (const p of b.players) {
          for (const id of p.visionaries) {
            if (!a.players[p.seat].visionaries.includes(id)) {
              const v = b.visionaries.find((x) => x.id === id);
              line("rb.ev.visionary", { name: ctx.seatName(p.seat), visionary: v ? v.name : id }, "round", true);
            }
          }
        }
        break;
      case "turn_finished":
        for (const p of a.players) {
          if (!p.done && (b.players[p.seat].done || b.turn !== a.turn || b.over)) line("rb.ev.done", { name: ctx.seatName(p.seat) });
        }
        break;
      case "rolled":
        line("rb.ev.rolled", { n: b.turn, a: b.dice[0], b: b.dice[1] }, "round");
        break;
      case "game_ended": {
        const solo = b.players.length === 1 && b.event;
        if (solo) {
          const ok = b.players[0].score > b.event.target;
          line(ok ? "rb.ev.survived" : "rb.ev.fell", { score: b.players[0].score, target: b.event.target, event: cref(b.event.name) }, "over", true);
        } else line("rb.ev.over", {}, "over", true);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

export default { name: "roll-builder", render, describe };
