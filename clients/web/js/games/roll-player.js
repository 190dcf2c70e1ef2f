// Roll Player's board: the status strip, the Initiative row, the Market, one character
// sheet per player, the current player's choices (all read off `you.legal`) and the
// final scoring. See js/games/index.js for the module interface.
//
// Controls carry a class saying what a click does: `rp-send` sends a legal command,
// `rp-step` opens the next part of a choice (a card, then its row), `rp-opt` changes a
// setting of a choice (where a starting die goes), `rp-aux` starts an optional extra
// (a skill, dropping a weapon). Browser tests play through `rp-send` and `rp-step`.

import { addStrings } from "../i18n.js";
import STRINGS from "../i18n/roll-player.js";
import CATALOG from "./roll-player-catalog.js";
import { h } from "../dom.js";
import { seatBadges, seatLabel } from "../seat-status.js";

addStrings(STRINGS);

if (!document.querySelector("link[data-rp-css]")) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("../../css/roll-player.css", import.meta.url).href;
  link.dataset.rpCss = "1";
  document.head.append(link);
}

export const ATTRS = ["STR", "DEX", "CON", "INT", "WIS", "CHA"];
const ARROW = { up: "↑", down: "↓", left: "←", right: "→" };
const KINDS = ["weapon", "armor", "trait", "skill"];

const CARDS = Object.fromEntries(CATALOG.market.map((c) => [c.name, c]));
const CLASSES = Object.fromEntries(CATALOG.classes.map((c) => [c.name, c]));
const RACES = Object.fromEntries(CATALOG.races.map((r) => [r.name, r]));
const ALIGNMENTS = Object.fromEntries(CATALOG.alignments.map((a) => [a.name, a.grid.flat()]));
const BACKSTORIES = Object.fromEntries(CATALOG.backstories.map((b) => [b.name, b.wants]));
const SETS = Object.fromEntries(Object.entries(CATALOG.armor_sets).filter(([k]) => k !== "source"));
const RULES = CATALOG.rules;


const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

// -- names (translated where the game has a Portuguese term) -----------------------------

function tr(ctx, key, fallback) {
  if (ctx.lazy) return { key, fallback }; // a log parameter, translated when shown
  const text = ctx.t(key);
  return text === key ? fallback : text;
}
const attrName = (ctx, i) => ctx.t(`rp.attr.${ATTRS[i]}`);
const attrShort = (ctx, i) => ctx.t(`rp.attr_short.${ATTRS[i]}`);
const raceName = (ctx, r) => tr(ctx, `rp.race.${r}`, r);
const className = (ctx, k) => tr(ctx, `rp.class.${k}`, k);
const colourName = (ctx, c) => tr(ctx, `rp.colour.${c}`, c);
const setName = (ctx, s) => tr(ctx, `rp.set.${s}`, s);
const kindName = (ctx, k) => ctx.t(`rp.kind.${k}`);
const slug = (n) => String(n).replace(/ /g, "_");
const cardName = (ctx, n) => tr(ctx, `rp.card.${slug(n)}`, n);
const abilityName = (ctx, n) => tr(ctx, `rp.ability.${slug(n)}`, n);
const alignName = (ctx, n) => tr(ctx, `rp.align_name.${slug(n)}`, n);
const storyName = (ctx, n) => tr(ctx, `rp.story.${slug(n)}`, n);
const skillName = (ctx, p, k) => (k === "class" ? abilityName(ctx, CLASSES[p.class]?.ability.name) : cardName(ctx, k));

// -- who is awaited (legal.awaiting, mirrored from the public view) -----------------------

export function awaiting(g) {
  if (Array.isArray(g.awaiting)) return g.awaiting; // the engine says so (newer servers)
  if (g.phase === "over") return [];
  const out = new Set();
  g.players.forEach((p, i) => p.pending && out.add(i));
  if (g.turn !== null && g.turn !== undefined) out.add(g.turn);
  else if (["classes", "placing", "refresh"].includes(g.phase))
    for (let s = 0; s < g.seats; s++) if (!g.done.includes(s)) out.add(s);
  return [...out].sort((a, b) => a - b);
}

export function totalRounds(seats) {
  return 18 - (seats + RULES.starting_dice_extra);
}

// Winners as the engine decides them: most stars, then most gold, then fewest class dice.
export function winners(g) {
  if (Array.isArray(g.winners)) return g.winners; // the engine's own tie-breaks
  const key = (p) => [p.score?.total ?? 0, p.gold, -(p.score?.class_dice ?? 0)];
  const keys = g.players.map(key);
  const best = keys.reduce((a, b) => (cmp(a, b) >= 0 ? a : b));
  return keys.map((k, i) => (cmp(k, best) === 0 ? i : -1)).filter((i) => i >= 0);
}
function cmp(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function raceMods(race) {
  const mods = RACES[race]?.mods || {};
  return ATTRS.map((a) => mods[a] || 0);
}
function weaponMods(p) {
  const out = [0, 0, 0, 0, 0, 0];
  for (const name of p.cards) {
    const c = CARDS[name];
    if (c?.kind === "weapon") ATTRS.forEach((a, i) => (out[i] += c.mods?.[a] || 0));
  }
  return out;
}
function goalMet(text, score) {
  if (text.endsWith("+")) return score >= Number(text.slice(0, -1));
  const [lo, hi] = text.split("-").map(Number);
  return score >= lo && score <= (hi ?? lo);
}
function price(p, card) {
  const ab = CLASSES[p.class]?.ability;
  const off = ab && ab.kind === "discount" && ab.card === card.kind ? ab.gold : 0;
  return Math.max(0, card.cost - off);
}

// -- small pieces ----------------------------------------------------------------------

function die(ctx, d, { testid = null, extra = "", label = null } = {}) {
  if (!d) return h("span", { class: `rp-die empty ${extra}`, testid, role: "img", "aria-label": label || ctx.t("rp.empty_space") });
  return h("span", {
    class: `rp-die c-${d.colour} ${extra}`,
    testid,
    "data-colour": d.colour,
    "data-value": String(d.value),
    title: label || `${colourName(ctx, d.colour)} ${d.value}`,
    role: "img",
    "aria-label": label || `${colourName(ctx, d.colour)} ${d.value}`,
    text: String(d.value),
  });
}

function gold(n, extra = "") {
  return h("span", { class: `rp-gold ${extra}` }, h("span", { class: "coin", "aria-hidden": "true" }), String(n));
}

function stars(n) {
  return h("span", { class: `rp-stars${n < 0 ? " neg" : ""}`, text: `${n < 0 ? "−" : ""}★${Math.abs(n)}` });
}

function act(ctx, command) {
  ctx.ui.rp = {};
  ctx.send(command).catch(() => {
    /* the page shows the rejection */
  });
}
function setUi(ctx, patch) {
  ctx.ui.rp = { ...(ctx.ui.rp || {}), ...patch };
  ctx.rerender();
}

/**
 * @param {any} ctx the game's context
 * @param {any} text the button's text (a string, or elements)
 * @param {{cls?: string, testid?: string | null, title?: string | null, label?: string | null, onclick?: (event: MouseEvent) => unknown, disabled?: boolean, kind?: string}} [options] how it looks and what it does
 * @returns {HTMLElement} the button
 */
function button(ctx, text, { cls = "", testid = null, title = null, label = null, onclick, disabled = false, kind = "rp-send" } = {}) {
  return h("button", {
    type: "button",
    class: `btn small ${kind} ${cls}`,
    testid,
    title,
    "aria-label": label,
    disabled: disabled || !!ctx.ui.busy,
    onclick,
    text,
  });
}

// -- describing any command in words (the "all moves" list and the log) ------------------

function slotName(ctx, p, slot) {
  const d = p.rows[Math.floor(slot / 3)][slot % 3];
  return ctx.t("rp.slot", { attr: attrShort(ctx, Math.floor(slot / 3)), n: (slot % 3) + 1, value: d ? d.value : "?" });
}

function targetText(ctx, p, c) {
  if (c.direction) return `${ARROW[c.direction]} ${ctx.t(`rp.dir.${c.direction}`)}`;
  if (c.card) return cardName(ctx, c.card);
  if (c.slot === undefined || c.slot < 0) return "";
  if (c.other !== undefined && c.other >= 0) return ctx.t("rp.swap_pair", { a: slotName(ctx, p, c.slot), b: slotName(ctx, p, c.other) });
  if (c.delta) return `${slotName(ctx, p, c.slot)} ${signed(c.delta)}`;
  return slotName(ctx, p, c.slot);
}

export function commandText(ctx, c) {
  const g = ctx.game;
  const p = g.players[ctx.seat] || g.players[0];
  switch (c.type) {
    case "choose_sheet":
      return ctx.t("rp.cmd.choose_sheet", { race: raceName(ctx, c.race), side: ctx.t(`rp.side.${c.side}`) });
    case "choose_class":
      return ctx.t("rp.cmd.choose_class", { klass: className(ctx, c.klass) });
    case "place_start":
      return ctx.t("rp.cmd.place_start", { rows: c.rows.map((r) => attrShort(ctx, r)).join(" ") });
    case "arrange":
      return ctx.t("rp.cmd.arrange", { dice: c.order.map((i) => g.pool[i]?.value).join(" ") });
    case "draft":
      return ctx.t("rp.cmd.draft", { card: c.card, attr: attrName(ctx, c.row) });
    case "act":
      return `${ctx.t(`rp.action.${ATTRS[g.action_row]}`)} ${targetText(ctx, p, c)}`.trim();
    case "skip_action":
      return ctx.t("rp.cmd.skip_action");
    case "keep":
      return ctx.t(c.new ? "rp.cmd.keep_new" : "rp.cmd.keep_old", { value: c.new ? p.pending?.new : p.pending?.old });
    case "use_skill": {
      const name = skillName(ctx, p, c.skill);
      const target = targetText(ctx, p, c);
      return target ? ctx.t("rp.cmd.use_skill_on", { skill: name, target }) : ctx.t("rp.cmd.use_skill", { skill: name });
    }
    case "buy": {
      let text = ctx.t("rp.cmd.buy", { card: cardName(ctx, c.card) });
      if (c.charisma) text += ` · ${ctx.t("rp.with_charisma", { n: c.charisma })}`;
      if (c.drop?.length) text += ` · ${ctx.t("rp.dropping", { cards: c.drop.map((n) => cardName(ctx, n)).join(", ") })}`;
      return text;
    }
    case "discard_card":
      return ctx.t("rp.cmd.discard_card", { card: cardName(ctx, c.card) });
    case "end_market_turn":
      return ctx.t("rp.cmd.end_market_turn");
    case "drop_weapon":
      return ctx.t("rp.cmd.drop_weapon", { card: cardName(ctx, c.card) });
    case "refresh":
      return c.skill ? ctx.t("rp.cmd.refresh", { card: skillName(ctx, p, c.skill) }) : ctx.t("rp.cmd.refresh_none");
    default:
      return JSON.stringify(c);
  }
}

// -- the status strip --------------------------------------------------------------------

function prompt(ctx) {
  const g = ctx.game;
  const t = ctx.t;
  const me = ctx.seat;
  const waiting = awaiting(g);
  const others = waiting.filter((s) => s !== me).map((s) => ctx.seatName(s)).join(", ");
  const mineToo = me !== null && me !== undefined && waiting.includes(me);
  if (ctx.room.status === "waiting") return t("rp.prompt.waiting");
  if (g.phase === "over") return t("rp.prompt.over");
  if (mineToo && g.players[me].pending) return t("rp.prompt.you_keep");
  const turnName = g.turn !== null && g.turn !== undefined ? ctx.seatName(g.turn) : "";
  const phase = g.phase;
  if (mineToo) {
    if (phase === "action") return t("rp.prompt.you_action", { action: t(`rp.action_long.${ATTRS[g.action_row]}`) });
    return t(`rp.prompt.you_${phase}`);
  }
  if (["classes", "placing", "refresh"].includes(phase)) return t(`rp.prompt.wait_${phase}`, { names: others || "…" });
  if (phase === "action") return t("rp.prompt.other_action", { name: turnName, attr: attrName(ctx, g.action_row) });
  return t(`rp.prompt.other_${phase}`, { name: turnName || "…" });
}

function statusStrip(ctx) {
  const g = ctx.game;
  const t = ctx.t;
  const me = ctx.seat;
  const mine = me !== null && me !== undefined && ctx.room.status === "playing" && awaiting(g).includes(me);
  const total = totalRounds(g.seats);
  return h(
    "div",
    { class: `status-strip rp-status${mine ? " your-turn" : ""}`, testid: "rp-status" },
    h("span", {
      class: "round",
      testid: "round",
      text: g.round > 0 ? t("rp.round", { n: g.round, total }) : t("rp.setup"),
    }),
    h("span", { class: "pill", testid: "phase", text: t(`rp.phase.${g.phase}`) }),
    g.round > 0 && g.round === total && g.phase !== "over" ? h("span", { class: "pill warn", text: t("rp.final_round") }) : null,
    h("span", { class: "prompt", testid: "prompt", text: prompt(ctx) }),
    h("span", { class: "spacer" }),
    h("span", { class: "rp-start", testid: "start-player", title: t("rp.start_player") }, h("span", { class: "rp-start-icon", "aria-hidden": "true", text: "⚑" }), ` ${t("rp.start_player")}: ${ctx.seatName(g.start)}`),
  );
}

// -- the shared table: Initiative row, pool, Market, supply ------------------------------

function legalOf(ctx) {
  return ctx.you?.legal || [];
}

function initiativeRow(ctx) {
  const g = ctx.game;
  const t = ctx.t;
  const legal = legalOf(ctx);
  const draftCards = new Set(legal.filter((c) => c.type === "draft").map((c) => c.card));
  const chosen = ctx.ui.rp?.card;
  const cards = g.initiative.map((card) => {
    const holder = g.players.findIndex((p) => p.initiative === card.number);
    const can = draftCards.has(card.number);
    const attrs = {
      class: `rp-init${card.die ? "" : " taken"}${can ? " choosable rp-step" : ""}${chosen === card.number ? " chosen" : ""}`,
      testid: `init-${card.number}`,
      "data-card": String(card.number),
      "aria-label": t("rp.init_label", { n: card.number, gold: card.gold }),
    };
    const body = [
      h("span", { class: "rp-init-number", text: String(card.number) }),
      card.die ? die(ctx, card.die) : h("span", { class: "rp-die ghost", "aria-hidden": "true" }),
      card.gold ? gold(card.gold, "small") : h("span", { class: "rp-gold small none", text: "—" }),
      holder >= 0 ? h("span", { class: "rp-init-holder", text: ctx.seatName(holder) }) : null,
    ];
    if (can)
      return h("button", { ...attrs, type: "button", disabled: !!ctx.ui.busy, onclick: () => setUi(ctx, { card: card.number }) }, body);
    return h("div", attrs, body);
  });
  const pool = g.pool.length
    ? h("div", { class: "rp-pool", testid: "pool" }, h("span", { class: "label", text: t("rp.pool") }), g.pool.map((d) => die(ctx, d)))
    : null;
  return h(
    "section",
    { class: "panel rp-felt rp-initiative", "aria-label": t("rp.initiative") },
    h("h2", { text: t("rp.initiative") }),
    h("div", { class: "rp-init-row", testid: "initiative" }, cards),
    pool,
    h(
      "div",
      { class: "rp-supply", testid: "supply" },
      h("span", { title: t("rp.supply") }, `${t("rp.supply")}: `, gold(g.supply)),
      h("span", { text: t("rp.bag", { n: g.bag_count }) }),
      h("span", { text: t("rp.deck", { n: g.deck_count }) }),
      h("span", { text: t("rp.discard_pile", { n: g.discard.length }) }),
    ),
  );
}

function cardFace(ctx, name, { owner = null, exhausted = false, extra = "", children = [] } = {}) {
  const c = CARDS[name];
  if (!c) return h("div", { class: "rp-card" }, name);
  const t = ctx.t;
  const detail = [];
  if (c.kind === "weapon") {
    const mods = ATTRS.map((a, i) => (c.mods?.[a] ? `${attrShort(ctx, i)} ${signed(c.mods[a])}` : null)).filter(Boolean);
    detail.push(h("span", { class: "rp-card-line", text: `${mods.join(" · ")}` }));
    detail.push(h("span", { class: "rp-card-line muted", text: t(c.hands === 2 ? "rp.hands_two" : "rp.hands_one") }));
  } else if (c.kind === "armor") {
    detail.push(
      h("span", { class: "rp-card-line" }, h("span", { class: `rp-chip c-${c.colour}`, "aria-hidden": "true" }), ` ${setName(ctx, c.set)} · ${colourName(ctx, c.colour)}`),
    );
    detail.push(h("span", { class: "rp-card-line muted", text: (/** @type {number[]} */ (SETS[c.set]) || []).map((n) => `${n}`).join("/") + " ★" }));
  } else if (c.kind === "trait") {
    detail.push(h("span", { class: "rp-card-line", text: traitText(ctx, c.score) }));
  } else if (c.kind === "skill") {
    detail.push(h("span", { class: "rp-card-line", text: effectText(ctx, c.effect) }));
  }
  const price0 = owner !== null ? null : c.cost;
  return h(
    "div",
    {
      class: `rp-card k-${c.kind}${exhausted ? " exhausted" : ""} ${extra}`,
      testid: `card-${name}`,
      "data-card": name,
      title: exhausted ? t("rp.exhausted") : null,
    },
    h(
      "div",
      { class: "rp-card-head" },
      h("span", { class: "rp-card-kind", text: kindName(ctx, c.kind) }),
      c.arrow ? h("span", { class: "rp-arrow", title: t("rp.arrow"), text: ARROW[c.arrow] }) : null,
      price0 !== null ? h("span", { class: "rp-cost" }, gold(price0, "small")) : null,
    ),
    h("strong", { class: "rp-card-name", text: cardName(ctx, name) }),
    detail,
    exhausted ? h("span", { class: "pill warn", text: t("rp.exhausted") }) : null,
    children,
  );
}

function traitText(ctx, s) {
  if (!s) return "";
  const t = ctx.t;
  const attr = (a) => attrName(ctx, ATTRS.indexOf(a || "STR"));
  switch (s.kind) {
    case "attr_min":
      return t("rp.score.attr_min", { attr: attr(s.attr), value: s.value, stars: s.stars });
    case "attr_max":
      return t("rp.score.attr_max", { attr: attr(s.attr), value: s.value, stars: s.stars });
    case "alignment_row":
      return t("rp.score.alignment_row", { row: t(`rp.align_row.${s.row || "good"}`), stars: s.stars });
    case "alignment_column":
      return t("rp.score.alignment_column", { column: t(`rp.align_col.${s.column || "lawful"}`), stars: s.stars });
    case "per_card":
      return t("rp.score.per_card", { kind: kindName(ctx, s.card), max: s.max });
    case "per_gold":
      return t("rp.score.per_gold", { gold: s.gold || 1, max: s.max });
    case "flat":
      return t("rp.score.flat", { stars: s.stars });
    default:
      return s.kind;
  }
}

function effectText(ctx, e) {
  if (!e) return "";
  const t = ctx.t;
  const when = e.when === "market_turn" ? ` (${t("rp.when_market")})` : "";
  const kindKey = e.kind === "discount" ? `rp.effect.discount` : `rp.effect.${e.kind}`;
  return t(kindKey, { gold: e.gold || 0, by: e.by || 1, count: e.count || 1, kind: e.card ? kindName(ctx, e.card) : "" }) + when;
}

function market(ctx) {
  const g = ctx.game;
  const t = ctx.t;
  const legal = legalOf(ctx);
  const p = ctx.seat !== null && ctx.seat !== undefined ? g.players[ctx.seat] : null;
  const buys = legal.filter((c) => c.type === "buy");
  const discards = legal.filter((c) => c.type === "discard_card");
  const end = legal.find((c) => c.type === "end_market_turn");
  const cards = g.market.map((name, i) => {
    const mine = buys.filter((c) => c.card === name);
    const disc = discards.find((c) => c.card === name);
    const controls = [];
    for (const c of mine) {
      const cost = p ? price(p, CARDS[name]) : CARDS[name].cost;
      const due = Math.max(0, cost - Math.min(p?.credit || 0, cost) - c.charisma);
      let label = t("rp.buy_for", { gold: due });
      if (c.charisma) label += ` + ${t("rp.charisma_n", { n: c.charisma })}`;
      if (c.drop.length) label += ` · ${t("rp.dropping", { cards: c.drop.map((n) => cardName(ctx, n)).join(", ") })}`;
      controls.push(
        button(ctx, label, { cls: "primary", label: t("rp.buy_label", { card: cardName(ctx, name), what: label }), testid: `buy-${i}${c.charisma ? `-c${c.charisma}` : ""}${c.drop.length ? `-d${c.drop.join("+")}` : ""}`, onclick: () => act(ctx, c) }),
      );
    }
    if (disc) {
      const amount = RULES.market_discard_gold + (CLASSES[p?.class]?.ability.kind === "discard_gold" ? CLASSES[p.class].ability.gold : 0);
      controls.push(button(ctx, t("rp.discard_for", { gold: amount }), { testid: `discard-${i}`, label: t("rp.discard_label", { card: cardName(ctx, name), gold: amount }), onclick: () => act(ctx, disc) }));
    }
    if (!mine.length && (disc || end) && p) {
      // my market turn, and this card cannot be bought: say why instead of hiding it
      const cost = price(p, CARDS[name]);
      const why = p.bought ? t("rp.why.bought") : cost > p.gold + (p.credit || 0) + (p.charisma || 0) ? t("rp.why.gold", { gold: cost, have: p.gold }) : t("rp.why.cannot_buy");
      controls.unshift(h("p", { class: "rp-why", testid: `why-${i}` }, why));
    }
    return cardFace(ctx, name, { children: controls.length ? [h("div", { class: "rp-card-actions" }, controls)] : [] });
  });
  return h(
    "section",
    { class: "panel rp-market", "aria-label": t("rp.market") },
    h("h2", { text: t("rp.market") }),
    h("div", { class: "rp-cards", testid: "market" }, cards.length ? cards : h("p", { class: "muted", text: t("rp.market_empty") })),
    end ? h("div", { class: "actions" }, button(ctx, t("rp.cmd.end_market_turn"), { cls: "primary", testid: "end-market-turn", onclick: () => act(ctx, end) })) : null,
  );
}

// -- targets of an attribute action or a skill --------------------------------------------

// The targeted commands being chosen now: this turn's attribute action, or the skill the
// player picked. Returns {label, commands, skill?} or null.
function targeting(ctx) {
  const legal = legalOf(ctx);
  const g = ctx.game;
  const skill = ctx.ui.rp?.skill;
  if (skill) {
    const commands = legal.filter((c) => c.type === "use_skill" && c.skill === skill);
    if (commands.length) return { skill, commands };
  }
  const acts = legal.filter((c) => c.type === "act");
  if (acts.length) return { action: ATTRS[g.action_row], commands: acts };
  return null;
}

const hasSlot = (c) => c.slot !== undefined && c.slot >= 0;

function dieTargets(ctx, tg) {
  // slot -> {send?: command, step?: true}
  const out = new Map();
  if (!tg) return out;
  const first = ctx.ui.rp?.first;
  const slotted = tg.commands.filter(hasSlot);
  if (first !== undefined && first !== null) {
    for (const c of slotted) if (c.slot === first && c.other >= 0) out.set(c.other, { send: c });
    for (const c of slotted) if (c.other === first && c.slot >= 0 && !out.has(c.slot)) out.set(c.slot, { send: c });
    out.set(first, { cancel: true });
    return out;
  }
  const chosen = ctx.ui.rp?.slot;
  for (const c of slotted) {
    if (c.other >= 0) {
      out.set(c.slot, { step: "first" });
      if (!out.has(c.other)) out.set(c.other, { step: "first" });
    } else if (c.delta) out.set(c.slot, { step: "slot" });
    else out.set(c.slot, { send: c });
  }
  if (chosen !== undefined && chosen !== null && out.has(chosen)) out.set(chosen, { ...out.get(chosen), chosen: true });
  return out;
}

function targetPanel(ctx, tg) {
  const t = ctx.t;
  const g = ctx.game;
  const p = g.players[ctx.seat];
  const parts = [];
  const first = ctx.ui.rp?.first;
  const chosen = ctx.ui.rp?.slot;
  const title = tg.skill
    ? t("rp.using", { skill: skillName(ctx, p, tg.skill) })
    : t(`rp.action_long.${tg.action}`);
  parts.push(h("p", { class: "rp-choice-title", text: title }));
  const plain = tg.commands.filter((c) => !hasSlot(c) && !c.direction && !c.card);
  const dirs = tg.commands.filter((c) => c.direction);
  const cards = tg.commands.filter((c) => c.card);
  const slotted = tg.commands.filter(hasSlot);
  if (slotted.length) {
    let hint;
    if (first !== undefined && first !== null) hint = t("rp.pick_second", { die: slotName(ctx, p, first) });
    else if (slotted.some((c) => c.other >= 0)) hint = t("rp.pick_two");
    else if (slotted.some((c) => c.delta)) hint = t("rp.pick_adjust");
    else hint = t("rp.pick_die");
    parts.push(h("p", { class: "hint", text: hint }));
    if (chosen !== undefined && chosen !== null) {
      const deltas = slotted.filter((c) => c.slot === chosen && c.delta);
      parts.push(
        h(
          "div",
          { class: "actions" },
          h("span", { text: slotName(ctx, p, chosen) }),
          deltas.map((c) => button(ctx, signed(c.delta), { cls: "primary", testid: `delta-${c.delta > 0 ? "up" : "down"}`, onclick: () => act(ctx, c) })),
        ),
      );
    }
  }
  if (dirs.length)
    parts.push(
      h(
        "div",
        { class: "actions rp-dirs" },
        dirs.map((c) => button(ctx, `${ARROW[c.direction]} ${t(`rp.dir.${c.direction}`)}`, { cls: "primary", testid: `dir-${c.direction}`, onclick: () => act(ctx, c) })),
      ),
    );
  if (cards.length) parts.push(h("div", { class: "actions" }, cards.map((c) => button(ctx, cardName(ctx, c.card), { cls: "primary", testid: `salvage-${c.card}`, onclick: () => act(ctx, c) }))));
  const tail = [];
  for (const c of plain) {
    const label = tg.skill
      ? slotted.length || dirs.length || cards.length
        ? t("rp.token_only")
        : t("rp.use")
      : t(`rp.action_short.${tg.action}`);
    tail.push(button(ctx, label, { cls: tg.skill && (slotted.length || dirs.length || cards.length) ? "" : "primary", testid: tg.skill ? "skill-plain" : "act-plain", onclick: () => act(ctx, c) }));
  }
  const skip = legalOf(ctx).find((c) => c.type === "skip_action");
  if (!tg.skill && skip) tail.push(button(ctx, t("rp.cmd.skip_action"), { testid: "skip-action", onclick: () => act(ctx, skip) }));
  if (tg.skill) tail.push(button(ctx, t("rp.cancel"), { kind: "rp-aux", cls: "ghost", testid: "skill-cancel", onclick: () => setUi(ctx, { skill: null, first: null, slot: null }) }));
  else if ((first ?? chosen) !== undefined && (first ?? chosen) !== null)
    tail.push(button(ctx, t("rp.cancel"), { kind: "rp-aux", cls: "ghost", testid: "target-cancel", onclick: () => setUi(ctx, { first: null, slot: null }) }));
  if (tail.length) parts.push(h("div", { class: "actions" }, tail));
  return parts;
}

// -- the player's decision panel ----------------------------------------------------------

function decisionPanel(ctx) {
  const t = ctx.t;
  const g = ctx.game;
  const legal = legalOf(ctx);
  if (ctx.role !== "player" || !legal.length) return null;
  const p = g.players[ctx.seat];
  const types = new Set(legal.map((c) => c.type));
  const parts = [];
  const tg = targeting(ctx);

  if (types.has("keep")) {
    parts.push(h("p", { class: "rp-choice-title", text: t("rp.rerolled", { die: slotName(ctx, p, p.pending.slot) }) }));
    parts.push(
      h(
        "div",
        { class: "actions rp-keep" },
        legal
          .filter((c) => c.type === "keep")
          .map((c) =>
            h(
              "button",
              { type: "button", class: `btn rp-send ${c.new ? "primary" : ""}`, testid: c.new ? "keep-new" : "keep-old", disabled: !!ctx.ui.busy, onclick: () => act(ctx, c) },
              die(ctx, { colour: p.rows[Math.floor(p.pending.slot / 3)][p.pending.slot % 3].colour, value: c.new ? p.pending.new : p.pending.old }),
              ` ${t(c.new ? "rp.keep_new" : "rp.keep_old")}`,
            ),
          ),
      ),
    );
  } else if (types.has("choose_sheet")) {
    const opts = legal.filter((c) => c.type === "choose_sheet");
    const races = [...new Set(opts.map((c) => c.race))];
    parts.push(
      h(
        "div",
        { class: "rp-options" },
        races.map((race) => {
          const mods = raceMods(race)
            .map((m, i) => (m ? `${attrShort(ctx, i)} ${signed(m)}` : null))
            .filter(Boolean)
            .join(" · ");
          return h(
            "div",
            { class: "rp-option", testid: `race-${race}` },
            h("strong", { text: raceName(ctx, race) }),
            h("span", { class: "muted", text: mods || t("rp.no_mods") }),
            h(
              "div",
              { class: "actions" },
              opts
                .filter((c) => c.race === race)
                .map((c) => button(ctx, t(`rp.side.${c.side}`), { testid: `sheet-${race}-${c.side}`, onclick: () => act(ctx, c) })),
            ),
          );
        }),
      ),
    );
  } else if (types.has("choose_class")) {
    parts.push(
      h(
        "div",
        { class: "rp-options" },
        legal
          .filter((c) => c.type === "choose_class")
          .map((c) => {
            const k = CLASSES[c.klass];
            return h(
              "div",
              { class: "rp-option rp-class-option", testid: `class-${c.klass}` },
              h("strong", {}, h("span", { class: `rp-chip c-${k.colour}`, "aria-hidden": "true" }), ` ${className(ctx, c.klass)}`),
              h(
                "table",
                { class: "rp-goals" },
                h(
                  "tbody",
                  {},
                  ATTRS.map((a, i) => h("tr", {}, h("th", { text: attrName(ctx, i) }), h("td", { text: k.goals[a][0] }), h("td", {}, stars(k.goals[a][1])))),
                ),
              ),
              h("span", { class: "rp-ability" }, h("strong", { text: `${abilityName(ctx, k.ability.name)}: ` }), effectText(ctx, k.ability)),
              h("div", { class: "actions" }, button(ctx, t("rp.choose"), { cls: "primary", testid: `choose-${c.klass}`, onclick: () => act(ctx, c) })),
            );
          }),
      ),
    );
  } else if (types.has("place_start")) {
    parts.push(...placement(ctx, legal.filter((c) => c.type === "place_start")));
  } else if (types.has("arrange")) {
    parts.push(
      h(
        "div",
        { class: "actions rp-arrangements" },
        legal
          .filter((c) => c.type === "arrange")
          .map((c, i) =>
            h(
              "button",
              { type: "button", class: "btn rp-send rp-arrangement", testid: `arrange-${i}`, disabled: !!ctx.ui.busy, onclick: () => act(ctx, c) },
              c.order.map((k, j) => h("span", { class: "rp-arr-slot" }, h("small", { text: String(g.initiative[j]?.number ?? j + 1) }), die(ctx, g.pool[k]))),
            ),
          ),
      ),
    );
  } else if (types.has("draft")) {
    const drafts = legal.filter((c) => c.type === "draft");
    const cards = [...new Set(drafts.map((c) => c.card))];
    const chosen = cards.includes(ctx.ui.rp?.card) ? ctx.ui.rp.card : null;
    parts.push(h("p", { class: "hint", text: chosen ? t("rp.pick_row", { n: chosen }) : t("rp.pick_card") }));
    parts.push(
      h(
        "div",
        { class: "actions" },
        cards.map((n) => {
          const card = g.initiative.find((k) => k.number === n);
          return h(
            "button",
            {
              type: "button",
              class: `btn rp-step rp-card-pick${chosen === n ? " chosen" : ""}`,
              testid: `pick-card-${n}`,
              disabled: !!ctx.ui.busy,
              "aria-pressed": String(chosen === n),
              onclick: () => setUi(ctx, { card: n }),
            },
            h("span", { class: "rp-init-number small", text: String(n) }),
            die(ctx, card?.die),
            card?.gold ? gold(card.gold, "small") : null,
          );
        }),
      ),
    );
    if (chosen)
      parts.push(
        h(
          "div",
          { class: "actions" },
          drafts
            .filter((c) => c.card === chosen)
            .map((c) => button(ctx, `→ ${attrName(ctx, c.row)}`, { cls: "primary", testid: `draft-row-${c.row}`, onclick: () => act(ctx, c) })),
        ),
      );
  } else if (tg && !tg.skill) {
    parts.push(...targetPanel(ctx, tg));
  } else if (types.has("refresh")) {
    parts.push(
      h(
        "div",
        { class: "actions" },
        legal
          .filter((c) => c.type === "refresh")
          .map((c) => button(ctx, commandText(ctx, c), { cls: c.skill ? "primary" : "", testid: c.skill ? `refresh-${c.skill}` : "refresh-none", onclick: () => act(ctx, c) })),
      ),
    );
  } else if (types.has("buy") || types.has("discard_card") || types.has("end_market_turn")) {
    parts.push(h("p", { class: "hint", text: p.buys ? t("rp.market_again") : t("rp.market_hint") }));
    const end = legal.find((c) => c.type === "end_market_turn");
    if (end) parts.push(h("div", { class: "actions" }, button(ctx, t("rp.cmd.end_market_turn"), { cls: "primary", testid: "end-market-turn-2", onclick: () => act(ctx, end) })));
  }
  if (tg && tg.skill) parts.push(...targetPanel(ctx, tg));
  if (!parts.length) return allMoves(ctx, legal, true);
  return h(
    "section",
    { class: "panel rp-decide", testid: "rp-actions", "aria-label": t("rp.your_move") },
    h("h2", { text: t("rp.your_move") }),
    parts,
    // the board has a control for every other move: only what may be used at any time
    // is listed (no developer's list of every allowed move)
    legal.some(anytime) ? allMoves(ctx, legal.filter(anytime), false) : null,
  );
}

const anytime = (c) => ["use_skill", "drop_weapon"].includes(c.type);

function allMoves(ctx, legal, alone) {
  const details = h(
    "details",
    { class: `rp-all${alone ? " panel" : ""}`, testid: "all-moves", open: ctx.ui.rp?.all ? true : null, ontoggle: (e) => ((ctx.ui.rp ||= {}).all = e.target.open) },
    h("summary", { text: ctx.t(legal.every((c) => ["use_skill", "drop_weapon"].includes(c.type)) ? "rp.anytime_moves" : "rp.all_moves", { n: legal.length }) }),
    h(
      "div",
      { class: "rp-all-list" },
      legal.map((c, i) => button(ctx, commandText(ctx, c), { kind: "rp-all-cmd", cls: "ghost", testid: `legal-${i}`, onclick: () => act(ctx, c) })),
    ),
  );
  return details;
}

function placement(ctx, options) {
  const t = ctx.t;
  const g = ctx.game;
  const dice = g.starting[ctx.seat] || [];
  const ui = (ctx.ui.rp ||= {});
  if (!Array.isArray(ui.rows) || ui.rows.length !== dice.length) ui.rows = [...options[0].rows];
  const counts = ATTRS.map((_, r) => ui.rows.filter((x) => x === r).length);
  const ok = counts.every((n) => n <= 3);
  const preview = ATTRS.map((_, r) => dice.filter((_, i) => ui.rows[i] === r));
  return [
    h("p", { class: "hint", text: t("rp.place_hint") }),
    h(
      "div",
      { class: "rp-placing", testid: "placing" },
      dice.map((d, i) =>
        h(
          "div",
          { class: "rp-place-die" },
          die(ctx, d),
          h(
            "div",
            { class: "rp-place-rows", role: "group", "aria-label": t("rp.place_die", { n: i + 1 }) },
            ATTRS.map((_, r) =>
              h("button", {
                type: "button",
                class: `rp-opt rp-row-pick${ui.rows[i] === r ? " on" : ""}`,
                testid: `place-${i}-${r}`,
                "aria-pressed": String(ui.rows[i] === r),
                title: attrName(ctx, r),
                disabled: !!ctx.ui.busy,
                text: attrShort(ctx, r),
                onclick: () => {
                  ui.rows[i] = r;
                  ctx.rerender();
                },
              }),
            ),
          ),
        ),
      ),
    ),
    h(
      "div",
      { class: "rp-place-preview" },
      ATTRS.map((_, r) =>
        h("div", { class: `rp-place-line${counts[r] > 3 ? " over" : ""}` }, h("span", { class: "rp-attr-short", text: attrShort(ctx, r) }), preview[r].map((d) => die(ctx, d, { extra: "tiny" }))),
      ),
    ),
    h(
      "div",
      { class: "actions" },
      button(ctx, t("rp.place_confirm"), {
        cls: "primary",
        testid: "place-confirm",
        disabled: !ok,
        onclick: () => act(ctx, { type: "place_start", rows: [...ui.rows] }),
      }),
      button(ctx, t("rp.place_suggest"), {
        kind: "rp-opt",
        testid: "place-suggest",
        onclick: () => {
          const k = ((ui.suggest || 0) + 1) % options.length;
          ui.suggest = k;
          ui.rows = [...options[k].rows];
          ctx.rerender();
        },
      }),
      ok ? null : h("span", { class: "rp-warn", text: t("rp.place_too_many") }),
    ),
  ];
}

// -- a character sheet ---------------------------------------------------------------------

function alignmentGrid(ctx, p, seat, tg) {
  const t = ctx.t;
  const grid = ALIGNMENTS[p.alignment] || Array(9).fill(null);
  const dirs = seat === ctx.seat && tg ? tg.commands.filter((c) => c.direction) : [];
  const byCell = new Map();
  for (const c of dirs) {
    const [dr, dc] = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] }[c.direction];
    byCell.set((Math.floor(p.cell / 3) + dr) * 3 + (p.cell % 3) + dc, c);
  }
  return h(
    "div",
    { class: "rp-align", testid: `alignment-${seat}` },
    h("div", { class: "rp-align-title" }, h("span", { class: "label", text: t("rp.alignment") }), h("strong", { text: p.alignment ? alignName(ctx, p.alignment) : "—" })),
    h(
      "div",
      { class: "rp-align-grid", role: "group", "aria-label": t("rp.alignment") },
      grid.map((v, i) => {
        const token = p.cell === i;
        const c = byCell.get(i);
        const label = `${t(`rp.align_row.${["good", "neutral", "evil"][Math.floor(i / 3)]}`)} · ${t(`rp.align_col.${["lawful", "neutral", "chaotic"][i % 3]}`)}${v === null ? "" : ` · ★${v}`}`;
        const inner = [v === null ? "" : h("span", { class: `rp-cell-stars${v < 0 ? " neg" : v > 0 ? " pos" : ""}`, text: v > 0 ? `+${v}` : v < 0 ? `−${-v}` : "0" }), token ? h("span", { class: `rp-token t-${p.colour || "none"}`, testid: `token-${seat}`, role: "img", "aria-label": t("rp.token") }) : null];
        if (c) return h("button", { type: "button", class: "rp-cell target rp-send", title: label, "aria-label": label, testid: `cell-${seat}-${i}`, disabled: !!ctx.ui.busy, onclick: () => act(ctx, c) }, inner);
        return h("div", { class: `rp-cell${token ? " here" : ""}`, title: label, role: "img", "aria-label": label, testid: `cell-${seat}-${i}` }, inner);
      }),
    ),
  );
}

function sheetRows(ctx, p, seat, tg) {
  const t = ctx.t;
  const g = ctx.game;
  const mine = seat === ctx.seat;
  const race = raceMods(p.race);
  const weapons = weaponMods(p);
  const klass = CLASSES[p.class];
  const wants = BACKSTORIES[p.backstory] || [];
  const targets = mine ? dieTargets(ctx, tg) : new Map();
  const drafts = mine ? legalOf(ctx).filter((c) => c.type === "draft" && c.card === ctx.ui.rp?.card) : [];
  const pendingSlot = p.pending ? p.pending.slot : -1;
  const rows = ATTRS.map((a, r) => {
    const row = p.rows[r] || [];
    const sum = row.reduce((s, d) => s + d.value, 0);
    const score = p.score?.attributes?.[a] ?? sum + race[r] + weapons[r];
    const goal = klass?.goals[a];
    const met = goal ? goalMet(goal[0], score) : false;
    const want = wants[r];
    const spaces = [0, 1, 2].map((i) => {
      const slot = r * 3 + i;
      const d = row[i] || null;
      const wanted = want && want[1] === i + 1;
      const extra = `${wanted ? ` want c-want-${want[0]}` : ""}${slot === pendingSlot ? " pending" : ""}${wanted && d && d.colour === want[0] ? " matched" : ""}`;
      const tgt = targets.get(slot);
      const label = d ? `${attrName(ctx, r)} ${i + 1}: ${colourName(ctx, d.colour)} ${d.value}` : `${attrName(ctx, r)} ${i + 1}: ${t("rp.empty_space")}`;
      if (tgt && d) {
        const kind = tgt.send ? "rp-send" : tgt.cancel ? "rp-aux" : "rp-step";
        return h(
          "button",
          {
            type: "button",
            class: `rp-space target ${kind}${tgt.chosen || tgt.cancel ? " chosen" : ""}${extra}`,
            testid: `space-${seat}-${slot}`,
            "aria-label": label,
            disabled: !!ctx.ui.busy,
            onclick: () => {
              if (tgt.send) act(ctx, tgt.send);
              else if (tgt.cancel) setUi(ctx, { first: null });
              else if (tgt.step === "first") setUi(ctx, { first: slot });
              else setUi(ctx, { slot });
            },
          },
          die(ctx, d, { label }),
        );
      }
      return h("div", { class: `rp-space${extra}`, testid: `space-${seat}-${slot}`, title: wanted ? t("rp.backstory_wants", { colour: colourName(ctx, want[0]) }) : null }, die(ctx, d, { label }));
    });
    const draft = drafts.find((c) => c.row === r);
    const mods = race[r] + weapons[r];
    return h(
      "tr",
      { class: `rp-row${g.action_row === r && g.turn === seat && g.phase === "action" ? " acting" : ""}`, testid: `row-${seat}-${r}`, "data-score": String(score) },
      h("th", { scope: "row", class: "rp-attr", title: t(`rp.action_long.${a}`) }, h("span", { class: "rp-attr-name", text: attrName(ctx, r) })),
      h("td", { class: "rp-spaces" }, spaces, draft ? button(ctx, t("rp.place_here"), { cls: "primary rp-place-here", testid: `place-row-${r}`, onclick: () => act(ctx, draft) }) : null),
      h("td", { class: "num rp-sum", text: String(sum) }),
      h("td", { class: `num rp-mod${mods ? "" : " zero"}`, title: t("rp.mods_title", { race: signed(race[r]), weapons: signed(weapons[r]) }), text: mods ? signed(mods) : "" }),
      h("td", { class: `num rp-score${met ? " met" : ""}`, testid: `score-${seat}-${r}`, text: String(score) }),
      h("td", { class: `rp-goal${met ? " met" : ""}` }, goal ? [h("span", { text: goal[0] }), " ", stars(goal[1])] : "—", met ? h("span", { class: "rp-check", "aria-label": t("rp.goal_met"), text: " ✓" }) : null),
    );
  });
  return h(
    "table",
    { class: "rp-sheet-rows" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col", text: t("rp.col.attribute") }),
        h("th", { scope: "col", text: t("rp.col.dice") }),
        h("th", { scope: "col", class: "num", text: t("rp.col.sum") }),
        h("th", { scope: "col", class: "num", text: t("rp.col.mods") }),
        h("th", { scope: "col", class: "num", text: t("rp.col.total") }),
        h("th", { scope: "col", text: t("rp.col.goal") }),
      ),
    ),
    h("tbody", {}, rows),
  );
}

function ownedCards(ctx, p, seat) {
  const t = ctx.t;
  const legal = seat === ctx.seat ? legalOf(ctx) : [];
  const skillsUsable = new Set(legal.filter((c) => c.type === "use_skill").map((c) => c.skill));
  const drops = new Map(legal.filter((c) => c.type === "drop_weapon").map((c) => [c.card, c]));
  const klass = CLASSES[p.class];
  const names = KINDS.flatMap((kind) => p.cards.filter((n) => CARDS[n]?.kind === kind));
  const list = names.map((n) => {
    const controls = [];
    if (skillsUsable.has(n))
      controls.push(button(ctx, t("rp.use"), { kind: "rp-aux", testid: `use-${n}`, onclick: () => setUi(ctx, { skill: n, first: null, slot: null }) }));
    if (drops.has(n)) controls.push(button(ctx, t("rp.drop"), { kind: "rp-aux", cls: "ghost", testid: `drop-${n}`, onclick: () => act(ctx, drops.get(n)) }));
    return cardFace(ctx, n, { owner: seat, exhausted: p.exhausted.includes(n), extra: "owned", children: controls.length ? [h("div", { class: "rp-card-actions" }, controls)] : [] });
  });
  const ability = klass
    ? h(
        "div",
        { class: `rp-ability${p.exhausted.includes("class") ? " exhausted" : ""}`, testid: `ability-${seat}` },
        h("strong", { text: `${abilityName(ctx, klass.ability.name)}: ` }),
        effectText(ctx, klass.ability),
        p.exhausted.includes("class") ? h("span", { class: "pill warn", text: ` ${t("rp.exhausted")}` }) : null,
        skillsUsable.has("class") ? button(ctx, t("rp.use"), { kind: "rp-aux", testid: "use-class", onclick: () => setUi(ctx, { skill: "class", first: null, slot: null }) }) : null,
      )
    : null;
  return h(
    "div",
    { class: "rp-owned", testid: `cards-${seat}` },
    ability,
    names.length ? h("div", { class: "rp-cards small" }, list) : h("p", { class: "muted small", text: t("rp.no_cards") }),
  );
}

function sheet(ctx, p, seat) {
  const t = ctx.t;
  const g = ctx.game;
  const room = ctx.room;
  const roomSeat = room.seats[seat] || {};
  const deadline = room.deadlines[String(seat)];
  const waiting = awaiting(g).includes(seat) && room.status === "playing";
  const klass = CLASSES[p.class];
  const tg = seat === ctx.seat ? targeting(ctx) : null;
  const won = g.phase === "over" && winners(g).includes(seat);
  const wants = BACKSTORIES[p.backstory] || [];
  return h(
    "article",
    {
      class: `panel rp-sheet${seat === ctx.seat ? " mine" : ""}${waiting ? " awaiting" : ""}${won ? " winner" : ""}`,
      testid: `sheet-${seat}`,
      "aria-label": seatLabel(ctx, seat, roomSeat.bot),
      style: klass ? `--class-colour: var(--die-${klass.colour})` : null,
    },
    h(
      "header",
      { class: "seat-head rp-sheet-head" },
      seatBadges(ctx, seat)[0],
      h("strong", { class: "seat-name", testid: `seat-name-${seat}`, text: ctx.seatName(seat) }),
      seatBadges(ctx, seat).slice(1),
      seat === ctx.seat ? h("span", { class: "tag you", text: t("common.you") }) : null,
      roomSeat.bot ? h("span", { class: "tag bot", text: t("common.bot") }) : null,
      g.start === seat && g.phase !== "over" ? h("span", { class: "tag rp-first", title: t("rp.start_player"), "aria-label": t("rp.start_player"), text: "⚑" }) : null,
      waiting ? h("span", { class: "pill deciding", text: g.players[seat].pending ? t("rp.keeping") : t("rp.deciding") }) : null,
      won ? h("span", { class: "pill warn", text: `★ ${t("rp.winner")}` }) : null,
      h("span", { class: "spacer" }),
      deadline !== undefined ? h("span", { class: "clock", testid: `clock-${seat}`, "data-deadline": String(deadline), "aria-label": t("table.clock_label", { name: ctx.seatName(seat) }) }) : null,
    ),
    h(
      "div",
      { class: "rp-identity" },
      h("div", { class: "rp-id" }, h("span", { class: "label", text: t("rp.race") }), h("strong", { testid: `race-name-${seat}`, text: p.race ? raceName(ctx, p.race) : "—" }), p.side ? h("span", { class: "muted", text: ` · ${t(`rp.side.${p.side}`)}` }) : null),
      h(
        "div",
        { class: "rp-id" },
        h("span", { class: "label", text: t("rp.class") }),
        klass ? h("span", { class: `rp-chip c-${klass.colour}`, "aria-hidden": "true" }) : null,
        h("strong", { testid: `class-name-${seat}`, text: p.class ? ` ${className(ctx, p.class)}` : p.colour ? ` ${t("rp.class_card", { colour: colourName(ctx, p.colour) })}` : "—" }),
      ),
      h(
        "div",
        { class: "rp-id" },
        h("span", { class: "label", text: t("rp.backstory") }),
        h("strong", { text: p.backstory ? storyName(ctx, p.backstory) : "—" }),
        wants.length ? h("span", { class: "rp-wants", title: t("rp.backstory_hint") }, wants.map(([c, s], r) => h("span", { class: `rp-want c-${c}`, title: `${attrName(ctx, r)} ${s}: ${colourName(ctx, c)}`, text: String(s) }))) : null,
      ),
      h(
        "div",
        { class: "rp-purse" },
        h("span", { class: "rp-purse-item", testid: `gold-${seat}`, title: t("rp.gold") }, gold(p.gold), ` ${t("rp.gold")}`),
        h("span", { class: "rp-purse-item", testid: `charisma-${seat}`, title: t("rp.charisma_tokens") }, h("span", { class: "rp-cha", "aria-hidden": "true", text: "✦" }), ` ${p.charisma} ${t("rp.charisma")}`),
        p.credit ? h("span", { class: "rp-purse-item", text: t("rp.credit", { n: p.credit }) }) : null,
        p.initiative ? h("span", { class: "rp-purse-item", testid: `held-init-${seat}`, text: t("rp.holds_init", { n: p.initiative }) }) : null,
        p.score ? h("span", { class: "rp-purse-item rp-running", testid: `stars-${seat}`, title: t("rp.running_total") }, stars(p.score.total)) : null,
      ),
    ),
    sheetRows(ctx, p, seat, tg),
    h("div", { class: "rp-sheet-foot" }, alignmentGrid(ctx, p, seat, tg), ownedCards(ctx, p, seat)),
  );
}

// -- final scoring ---------------------------------------------------------------------

function finalTable(ctx) {
  const g = ctx.game;
  const t = ctx.t;
  const best = winners(g);
  const names = best.map((s) => ctx.seatName(s)).join(", ");
  const seats = g.players.map((_, i) => i);
  const row = (label, cells, cls = "") => h("tr", { class: cls }, h("th", { scope: "row" }, label), cells);
  const score = (s) => g.players[s].score || { goals: {}, armor: {}, traits: {}, attributes: {} };
  const rows = [];
  ATTRS.forEach((a, i) =>
    rows.push(
      row(
        t("rp.final.goal", { attr: attrName(ctx, i) }),
        seats.map((s) => h("td", { class: "num" }, h("span", { class: "muted", text: `${score(s).attributes[a] ?? "?"} ` }), stars(score(s).goals[a] ?? 0))),
      ),
    ),
  );
  rows.push(row(t("rp.final.class_dice"), seats.map((s) => h("td", { class: "num" }, stars(score(s).class_dice ?? 0)))));
  rows.push(row(t("rp.final.alignment"), seats.map((s) => h("td", { class: "num" }, stars(score(s).alignment ?? 0)))));
  rows.push(row(t("rp.final.backstory"), seats.map((s) => h("td", { class: "num" }, stars(score(s).backstory ?? 0)))));
  rows.push(
    row(
      t("rp.final.armor"),
      seats.map((s) => {
        const armor = Object.entries(score(s).armor || {});
        return h("td", { class: "num" }, armor.length ? armor.map(([k, v]) => h("span", { class: "rp-item" }, `${setName(ctx, k)} `, stars(v), " ")) : stars(0));
      }),
    ),
  );
  rows.push(
    row(
      t("rp.final.traits"),
      seats.map((s) => {
        const traits = Object.entries(score(s).traits || {});
        return h("td", { class: "num" }, traits.length ? traits.map(([k, v]) => h("span", { class: "rp-item" }, `${cardName(ctx, k)} `, stars(v), " ")) : stars(0));
      }),
    ),
  );
  rows.push(
    row(
      t("rp.final.total"),
      seats.map((s) => h("td", { class: "num total", testid: `final-total-${s}`, "data-total": String(score(s).total ?? 0), text: `★ ${score(s).total ?? 0}` })),
      "rp-total",
    ),
  );
  rows.push(row(t("rp.final.gold"), seats.map((s) => h("td", { class: "num muted", text: String(g.players[s].gold) }))));
  return h(
    "section",
    { class: "panel final rp-final", testid: "final-scores" },
    h("h2", { text: t("rp.final.title") }),
    h("p", { class: "winner-line", testid: "winners" }, h("span", { class: "trophy", "aria-hidden": "true", text: "★" }), " ", best.length > 1 ? t("rp.final.win_shared", { names }) : t("rp.final.wins", { names })),
    h(
      "div",
      { class: "table-scroll", tabindex: "0" },
      h(
        "table",
        { class: "scores rp-scores" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col", text: t("rp.final.item") }),
            seats.map((s) =>
              h(
                "th",
                { scope: "col", class: `num${best.includes(s) ? " winner" : ""}`, testid: `final-head-${s}` },
                best.includes(s) ? "★ " : "",
                ctx.seatName(s),
                h("br"),
                h("small", { class: "muted", text: `${raceName(ctx, g.players[s].race)} · ${className(ctx, g.players[s].class)}` }),
              ),
            ),
          ),
        ),
        h("tbody", {}, rows),
      ),
    ),
  );
}

// -- the module ----------------------------------------------------------------------------

function render(root, ctx) {
  const g = ctx.game;
  ctx.ui.rp ||= {};
  // drop a half-made choice once it no longer fits the legal commands
  const legal = legalOf(ctx);
  const stamp = `${g.phase}/${g.round}/${g.turn}/${legal.length}`;
  if (ctx.ui.rp.stamp !== stamp) {
    const keepRows = g.phase === "placing" ? ctx.ui.rp.rows : undefined;
    const all = ctx.ui.rp.all;
    const skill = legal.some((c) => c.type === "use_skill" && c.skill === ctx.ui.rp.skill) ? ctx.ui.rp.skill : null;
    ctx.ui.rp = { stamp, rows: keepRows, all, skill };
  }
  const order = g.players.map((_, i) => i);
  if (ctx.seat !== null && ctx.seat !== undefined && ctx.seat < order.length) order.unshift(...order.splice(ctx.seat, 1));
  const board = h(
    "div",
    { class: "rp-board", "data-phase": g.phase, "data-lang": ctx.lang },
    statusStrip(ctx),
    g.phase === "over" ? finalTable(ctx) : null,
    decisionPanel(ctx),
    g.phase === "over" ? null : h("div", { class: "rp-table" }, initiativeRow(ctx), market(ctx)),
    h("div", { class: "rp-sheets", testid: "sheets" }, order.map((s) => sheet(ctx, g.players[s], s))),
  );
  root.replaceChildren(board);
}

// -- the log ---------------------------------------------------------------------------------

function describe(previousView, view, events, ctx) {
  const a = previousView?.game;
  const b = view.game;
  if (!a || !b || !a.players || !b.players) return [];
  const out = [];
  // names in the log stay keys, so a line re-translates with the language
  const lz = { ...ctx, lazy: true, t: (key, params) => ({ key, params, fallback: key }) };
  const line = (key, params = {}, kind = "info", banner = false) => out.push({ key, params, kind, banner });
  const name = (s) => ctx.seatName(s);
  const seen = new Set();
  const once = (k) => (seen.has(k) ? false : (seen.add(k), true));
  const actor = a.turn ?? b.turn;
  for (const event of events) {
    switch (event) {
      case "sheet_chosen":
        b.players.forEach((p, s) => p.race && !a.players[s].race && line("rp.ev.sheet", { name: name(s), race: raceName(lz, p.race) }));
        break;
      case "class_chosen":
        if (once(event)) b.players.forEach((p, s) => p.class && !a.players[s].class && line("rp.ev.class", { name: name(s), klass: className(lz, p.class) }));
        break;
      case "cards_dealt":
        line("rp.ev.dealt");
        break;
      case "starting_dice_placed":
        if (once(event))
          b.players.forEach((p, s) => {
            const before = a.players[s].rows.flat().length;
            if (p.rows.flat().length > before) line("rp.ev.placed", { name: name(s), gold: p.gold - a.players[s].gold });
          });
        break;
      case "dice_rolled":
        line("rp.ev.rolled", { n: b.round }, "round");
        break;
      case "drafted":
        b.players.forEach((p, s) => {
          if (p.initiative && !a.players[s].initiative) {
            const r = p.rows.findIndex((row, i) => row.length > a.players[s].rows[i].length);
            const d = r >= 0 ? p.rows[r][p.rows[r].length - 1] : null;
            line("rp.ev.drafted", { name: name(s), n: p.initiative, colour: d ? colourName(lz, d.colour) : "", value: d ? d.value : "", attr: r >= 0 ? attrName(lz, r) : "" });
          }
        });
        break;
      case "flipped":
      case "swapped":
      case "adjusted":
      case "alignment_moved":
      case "charisma_taken":
      case "gold_gained":
      case "credit_gained":
      case "salvaged": {
        // whose sheet changed that way (a skill may be used out of turn)
        const moved = {
          flipped: (x, y) => JSON.stringify(x.rows) !== JSON.stringify(y.rows),
          swapped: (x, y) => JSON.stringify(x.rows) !== JSON.stringify(y.rows),
          adjusted: (x, y) => JSON.stringify(x.rows) !== JSON.stringify(y.rows),
          alignment_moved: (x, y) => x.cell !== y.cell,
          charisma_taken: (x, y) => y.charisma > x.charisma,
          gold_gained: (x, y) => y.gold > x.gold,
          credit_gained: (x, y) => y.credit > x.credit,
          salvaged: () => false,
        }[event];
        const who = b.players.findIndex((p, s) => moved(a.players[s], p));
        const s = who >= 0 ? who : actor;
        if (s !== null && s !== undefined && once(`${event}/${s}`)) line(`rp.ev.${event}`, { name: name(s) });
        break;
      }
      case "rerolled": {
        const s = b.players.findIndex((p) => p.pending);
        if (s >= 0) line("rp.ev.rerolled", { name: name(s), old: b.players[s].pending.old, new: b.players[s].pending.new });
        break;
      }
      case "kept": {
        const s = a.players.findIndex((p, i) => p.pending && !b.players[i].pending);
        if (s >= 0) {
          const pd = a.players[s].pending;
          const d = b.players[s].rows[Math.floor(pd.slot / 3)][pd.slot % 3];
          line("rp.ev.kept", { name: name(s), value: d ? d.value : "?" });
        }
        break;
      }
      case "skill_used":
        b.players.forEach((p, s) =>
          p.exhausted
            .filter((k) => !a.players[s].exhausted.includes(k))
            .forEach((k) => line("rp.ev.skill", { name: name(s), skill: skillName(lz, p, k) })),
        );
        break;
      case "bought":
        b.players.forEach((p, s) => p.cards.filter((c) => !a.players[s].cards.includes(c)).forEach((c) => line("rp.ev.bought", { name: name(s), card: cardName(lz, c) })));
        break;
      case "market_discarded": {
        const card = a.market.find((c) => !b.market.includes(c)) || "";
        if (actor !== null && actor !== undefined) line("rp.ev.discarded", { name: name(actor), card: cardName(lz, card), gold: b.players[actor].gold - a.players[actor].gold });
        break;
      }
      case "weapon_dropped":
        if (once(event)) b.players.forEach((p, s) => a.players[s].cards.filter((c) => !p.cards.includes(c)).forEach((c) => line("rp.ev.dropped", { name: name(s), card: cardName(lz, c) })));
        break;
      case "refreshed":
        if (once(event)) b.players.forEach((p, s) => a.players[s].exhausted.filter((k) => !p.exhausted.includes(k)).forEach((k) => line("rp.ev.refreshed", { name: name(s), card: skillName(lz, p, k) })));
        break;
      case "cleaned_up":
        line("rp.ev.cleanup", { name: name(b.start) }, "round");
        break;
      case "game_ended": {
        const best = winners(b).map((s) => name(s)).join(", ");
        line("rp.ev.game_over", { names: best }, "over", true);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

export default { name: "roll-player", render, describe };
