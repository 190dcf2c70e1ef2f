// Roll Builder's SVG pieces: the glyph sprite (resources, actions, abilities) and a
// city sheet drawn as a pointy-top hex map in axial coordinates (engine/roll_builder/
// hexmap.py): terrain, partial border spaces cut by the sheet's edge, coast and cliff
// sides, start roads and drawn roads, space icons, X marks, buildings and rings.
// Legal edges and spaces (from you.legal) are drawn as clickable targets.

import { tc } from "./roll-builder-text.js";

const NS = "http://www.w3.org/2000/svg";
const SQRT3 = Math.sqrt(3);
export const HEX = 30; // side length in SVG units

export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.setAttribute("class", v);
    else if (k === "testid") node.dataset.testid = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

// -- glyphs ----------------------------------------------------------------------------

export const RESOURCES = ["food", "supplies", "wealth", "favor", "strength", "idea"];
const GLYPHS = {
  food: ["#d99a1e", s("path", { d: "M10 4v12M10 7l-3-2.5M10 7l3-2.5M10 10l-3-2.5M10 10l3-2.5M10 13l-3-2.5M10 13l3-2.5", fill: "none", stroke: "#fff", "stroke-width": 1.6, "stroke-linecap": "round" })],
  supplies: ["#8a5a2b", s("path", { d: "M5 6h10v9H5zM5 6l10 9M15 6L5 15", fill: "none", stroke: "#fff", "stroke-width": 1.5 })],
  wealth: ["#c9a227", s("circle", { cx: 10, cy: 10, r: 5, fill: "none", stroke: "#fff", "stroke-width": 1.8 }), s("circle", { cx: 10, cy: 10, r: 1.8, fill: "#fff" })],
  favor: ["#8e4fb8", s("path", { d: "M10 15.5C6 12.5 4.5 10.5 4.5 8.3 4.5 6.5 6 5.2 7.6 5.2c1.1 0 2 .6 2.4 1.5.4-.9 1.3-1.5 2.4-1.5 1.6 0 3.1 1.3 3.1 3.1 0 2.2-1.5 4.2-5.5 7.2z", fill: "#fff" })],
  strength: ["#c0392b", s("path", { d: "M10 4l5 2v4c0 3-2.3 5-5 6-2.7-1-5-3-5-6V6z", fill: "#fff" })],
  idea: ["#2e7dd1", s("circle", { cx: 10, cy: 8.5, r: 3.8, fill: "#fff" }), s("rect", { x: 8.3, y: 12.3, width: 3.4, height: 3, rx: 0.6, fill: "#fff" })],
  build: ["#2f6b3a", s("path", { d: "M4.5 10L10 4.8l5.5 5.2V15.5h-11z", fill: "#fff" }), s("rect", { x: 8.6, y: 11.5, width: 2.8, height: 4, fill: "#2f6b3a" })],
  wonder: ["#137a7f", s("path", { d: "M3.5 15.5h13v-2.3h-2v-2.3h-2V8.6h-1.5V5.2h-2v3.4H7.5v2.3h-2v2.3h-2z", fill: "#fff" })],
  roads: ["#5b6270", s("path", { d: "M7 4L5 16M13 4l2 12M10 5v2M10 9.5v2M10 14v2", fill: "none", stroke: "#fff", "stroke-width": 1.6, "stroke-linecap": "round" })],
  ability: ["#4338ca", s("path", { d: "M11.5 3L6 11h3.8L8.5 17 14 9h-3.8z", fill: "#fff" })],
  points: ["#b7791f", s("path", { d: "M10 3.5l1.9 4 4.4.5-3.3 3 .9 4.3L10 13.1l-3.9 2.2.9-4.3-3.3-3 4.4-.5z", fill: "#fff" })],
};

/** A hidden <svg> with one <symbol> per glyph, referenced with <use href="#rb-g-NAME">. */
export function sprite() {
  return s(
    "svg",
    { class: "rb-sprite", "aria-hidden": "true", width: 0, height: 0 },
    s(
      "defs",
      {},
      Object.entries(GLYPHS).map(([name, [bg, ...shapes]]) =>
        s("symbol", { id: `rb-g-${name}`, viewBox: "0 0 20 20" }, s("circle", { cx: 10, cy: 10, r: 10, fill: bg }), shapes.map((n) => n.cloneNode(true))),
      ),
      s("pattern", { id: "rb-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, s("rect", { width: 6, height: 6, fill: "transparent" }), s("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "rgb(0 0 0 / 9%)", "stroke-width": 3 })),
    ),
  );
}

/** One glyph as an inline SVG element for HTML (size in CSS px). */
export function icon(name, size = 18, title = null) {
  return s(
    "svg",
    { class: `rb-icon rb-icon-${name}`, width: size, height: size, viewBox: "0 0 20 20", role: title ? "img" : null, "aria-label": title, "aria-hidden": title ? null : "true" },
    title ? s("title", { text: title }) : null,
    s("use", { href: `#rb-g-${name}` }),
  );
}

/** The glyphs of an effect, in order: [[glyph, count]] (count null when it is one action). */
export function effectGlyphs(effect) {
  if (!effect) return [];
  const out = [];
  for (const [r, n] of Object.entries(effect.gain || {})) out.push([r, n]);
  if (effect.roads) out.push(["roads", effect.roads]);
  if (effect.build) out.push(["build", effect.build > 1 ? effect.build : null]);
  if (effect.wonder) out.push(["wonder", effect.wonder > 1 ? effect.wonder : null]);
  if (effect.points) out.push(["points", effect.points]);
  for (let i = 0; i < (effect.abilities || []).length; i++) out.push(["ability", null]);
  return out;
}

// -- geometry ----------------------------------------------------------------------------

export function center(q, r) {
  return [HEX * SQRT3 * (q + r / 2), HEX * 1.5 * r];
}

function corners(cx, cy, size = HEX) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    pts.push(`${(cx + size * Math.cos(a)).toFixed(2)},${(cy + size * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

/** The two ends of the side shared by hexes (q1, r1) and (q2, r2). */
export function edgeEnds(e) {
  const [ax, ay] = center(e[0], e[1]);
  const [bx, by] = center(e[2], e[3]);
  const mx = (ax + bx) / 2;
  const my = (ay + by) / 2;
  const len = Math.hypot(bx - ax, by - ay);
  const px = (-(by - ay) / len) * (HEX / 2);
  const py = ((bx - ax) / len) * (HEX / 2);
  return [mx + px, my + py, mx - px, my - py];
}

/** A thin rhombus around a side (its ends and a third of the way to both centres): the
 * click target of a legal side. */
function edgeHit(e) {
  const [ax, ay, bx, by] = edgeEnds(e);
  const [p, q] = [center(e[0], e[1]), center(e[2], e[3])];
  const mx = (ax + bx) / 2;
  const my = (ay + by) / 2;
  const toward = (c) => `${(mx + (c[0] - mx) * 0.33).toFixed(2)},${(my + (c[1] - my) * 0.33).toFixed(2)}`;
  return `${ax.toFixed(2)},${ay.toFixed(2)} ${toward(p)} ${bx.toFixed(2)},${by.toFixed(2)} ${toward(q)}`;
}

const DIRS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
export const edgeKey = (e) => e.join(",");
const hexKey = (q, r) => `${q},${r}`;

function canonical(a, b) {
  const [lo, hi] = a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]) ? [a, b] : [b, a];
  return [lo[0], lo[1], hi[0], hi[1]];
}

/** The edge kind as hexmap.Geometry.kind names it: cliff, coast, land or water. */
export function edgeKind(e, terrain, cliffs) {
  if (cliffs.has(edgeKey(e))) return "cliff";
  const a = terrain.get(hexKey(e[0], e[1]));
  const b = terrain.get(hexKey(e[2], e[3]));
  const sides = new Set([a, b]);
  if (sides.has("land") && sides.has("water")) return "coast";
  if (sides.has("land")) return "land";
  return "water";
}

/** Every drawable side of a sheet: the sides of its full spaces. */
export function sheetEdges(spaces) {
  const out = new Map();
  for (const sp of spaces) {
    if (sp.partial) continue;
    for (const [dq, dr] of DIRS) {
      const e = canonical([sp.q, sp.r], [sp.q + dq, sp.r + dr]);
      out.set(edgeKey(e), e);
    }
  }
  return [...out.values()];
}

/** Counts the view lacks but conditions use, derived from the sheet. */
export function metricValue(p, metric) {
  const terrain = new Map(p.map.spaces.map((sp) => [hexKey(sp.q, sp.r), sp.terrain]));
  const cliffs = new Set(p.map.cliffs.map(edgeKey));
  switch (metric) {
    case "buildings":
      return p.map.spaces.filter((sp) => sp.building).length;
    case "roads":
      return p.map.roads.length;
    case "coast_cliff_roads":
      return p.map.roads.filter((e) => ["coast", "cliff"].includes(edgeKind(e, terrain, cliffs))).length;
    case "rings":
      return p.map.spaces.filter((sp) => sp.ringed).length;
    case "innovations":
      return p.innovations.filter((i) => i.discovered).length;
    case "wonder_boxes":
      return p.wonder.boxes.filter((b) => b.filled).length;
    case "stored_wealth":
      return p.stored_wealth;
    case "converted_favor":
      return p.tracks.favor.crossed;
    case "converted_strength":
      return p.tracks.strength.crossed;
    case "marked":
      return p.map.spaces.filter((sp) => sp.marked).length;
    default:
      return null;
  }
}

// -- the map ----------------------------------------------------------------------------

/**
 * The SVG map of player p. opts: {legalEdges: Map(key -> command), legalSpaces: Set(key),
 * onEdge(command), onSpace(space), selected: "q,r" | null, label(space) -> title text,
 * t, interactive}.
 */
export function hexMap(p, opts) {
  const { t } = opts;
  const spaces = p.map.spaces;
  const terrain = new Map(spaces.map((sp) => [hexKey(sp.q, sp.r), sp.terrain]));
  const cliffs = new Set(p.map.cliffs.map(edgeKey));
  const starts = new Set(p.map.start_roads.map(edgeKey));
  const roads = new Set(p.map.roads.map(edgeKey));
  const pts = spaces.map((sp) => center(sp.q, sp.r));
  const xs = pts.map((c) => c[0]);
  const ys = pts.map((c) => c[1]);
  // the sheet's edge cuts the partial border spaces a little outside their centres
  const cut = HEX * 0.55;
  const x0 = Math.min(...xs) - cut;
  const y0 = Math.min(...ys) - cut;
  const w = Math.max(...xs) + cut - x0;
  const hgt = Math.max(...ys) + cut - y0;
  const clipId = `rb-clip-${p.seat}`;
  const buildingOf = new Map(p.buildings.map((b) => [b.n, b]));

  const tiles = [];
  const marks = [];
  const bySpace = new Map(spaces.map((sp) => [hexKey(sp.q, sp.r), sp]));
  for (const sp of spaces) {
    const [cx, cy] = center(sp.q, sp.r);
    const key = hexKey(sp.q, sp.r);
    const legal = opts.legalSpaces?.has(key);
    const cls = [
      "rb-hex",
      sp.terrain,
      sp.partial ? "partial" : "",
      sp.connected ? "connected" : "",
      legal ? "legal" : "",
      opts.selected === key ? "selected" : "",
    ].join(" ");
    const title = opts.label(sp);
    tiles.push(
      s(
        "g",
        {
          class: cls,
          testid: `space-${sp.q}-${sp.r}`,
          "data-building": sp.building ?? "",
          "data-marked": String(sp.marked),
          role: legal ? "button" : null,
          tabindex: legal ? 0 : null,
          "aria-label": legal ? title : null,
          onclick: legal ? () => opts.onSpace(sp) : opts.onOther ? () => opts.onOther(sp) : null,
          onkeydown: legal ? (ev) => (ev.key === "Enter" || ev.key === " ") && (ev.preventDefault(), opts.onSpace(sp)) : null,
        },
        s("title", { text: title }),
        s("polygon", { class: "rb-tile", points: corners(cx, cy) }),
        sp.partial ? s("polygon", { class: "rb-hatch", points: corners(cx, cy), fill: "url(#rb-hatch)" }) : null,
        sp.ringed ? s("polygon", { class: "rb-ring", points: corners(cx, cy, HEX * 0.78) }) : null,
      ),
    );
    // what the space shows, then what was done to it
    const glyphs = effectGlyphs(sp.effect);
    if (sp.points) glyphs.unshift(["points", sp.points]);
    const faded = sp.marked || sp.building ? " used" : "";
    glyphs.slice(0, 2).forEach(([g, n], i, all) => {
      const dx = all.length > 1 ? (i === 0 ? -9 : 9) : 0;
      const size = 17;
      marks.push(s("use", { href: `#rb-g-${g}`, class: `rb-space-icon${sp.marked && g !== "points" ? " used" : ""}`, x: cx + dx - size / 2, y: cy - size / 2 - 3, width: size, height: size }));
      if (n !== null && n !== undefined && (g !== "ability"))
        marks.push(s("text", { class: `rb-icon-count${faded}`, x: cx + dx + 6, y: cy + 11, text: String(n) }));
    });
    if (sp.name) marks.push(s("text", { class: "rb-space-name", x: cx, y: cy + 19, text: tc(t, sp.name) }));
    if (sp.marked)
      marks.push(s("path", { class: "rb-x", d: `M${cx - 8} ${cy - 11}l16 16M${cx + 8} ${cy - 11}l-16 16` }));
    if (sp.building) {
      const b = buildingOf.get(sp.building);
      marks.push(
        s(
          "g",
          { class: `rb-building b${sp.building}` },
          s("rect", { x: cx - 11, y: cy - 12, width: 22, height: 22, rx: 4 }),
          s("text", { x: cx, y: cy + 4, text: b ? b.letter : String(sp.building) }),
          s("text", { class: "rb-building-n", x: cx + 9, y: cy - 7, text: String(sp.building) }),
        ),
      );
    }
  }

  // sides: coast and cliffs under the roads, roads, then the clickable legal sides on top
  const sides = [];
  const legalLines = [];
  for (const e of sheetEdges(spaces)) {
    const key = edgeKey(e);
    const kind = edgeKind(e, terrain, cliffs);
    const [ax, ay, bx, by] = edgeEnds(e);
    if (kind === "coast" && !roads.has(key)) sides.push(s("line", { class: "rb-coast", x1: ax, y1: ay, x2: bx, y2: by }));
    if (kind === "cliff") sides.push(s("line", { class: "rb-cliff", x1: ax, y1: ay, x2: bx, y2: by }));
    if (roads.has(key))
      sides.push(s("line", { class: `rb-road${starts.has(key) ? " start" : ""} ${kind}`, testid: `road-${e.join("-")}`, x1: ax, y1: ay, x2: bx, y2: by }));
    const command = opts.legalEdges?.get(key);
    if (command) {
      // each side names the two spaces it runs between, so no two read the same
      const end = (q, r) => (opts.short ? opts.short(bySpace.get(hexKey(q, r)) || { q, r }) : `${q},${r}`);
      const label = t("rb.map.road_between", { kind: t(`rb.edge.${kind}`), a: end(e[0], e[1]), b: end(e[2], e[3]) });
      legalLines.push(
        s(
          "g",
          {
            class: `rb-edge legal ${kind}`,
            testid: `edge-${e.join("-")}`,
            role: "button",
            tabindex: 0,
            "aria-label": label,
            onclick: () => opts.onEdge(command),
            onkeydown: (ev) => (ev.key === "Enter" || ev.key === " ") && (ev.preventDefault(), opts.onEdge(command)),
          },
          s("title", { text: label }),
          s("polygon", { class: "rb-edge-hit", points: edgeHit(e) }),
          s("line", { class: "rb-edge-line", x1: ax, y1: ay, x2: bx, y2: by }),
        ),
      );
    }
  }
  return s(
    "svg",
    {
      class: "rb-map",
      testid: `map-${p.seat}`,
      viewBox: `${x0.toFixed(1)} ${y0.toFixed(1)} ${w.toFixed(1)} ${hgt.toFixed(1)}`,
      role: "group",
      "aria-label": t("rb.map.label", { city: tc(t, p.city.name) }),
    },
    s("defs", {}, s("clipPath", { id: clipId }, s("rect", { x: x0, y: y0, width: w, height: hgt, rx: 6 }))),
    s("rect", { class: "rb-paper", x: x0, y: y0, width: w, height: hgt, rx: 6 }),
    s("g", { "clip-path": `url(#${clipId})` }, tiles, sides, marks, legalLines),
    s("rect", { class: "rb-sheet-edge", x: x0, y: y0, width: w, height: hgt, rx: 6 }),
  );
}
