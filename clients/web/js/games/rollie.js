// Rollie's board: dice, Bank, Start tokens, every seat's Bet and Wallet, the actions,
// and the final scoring table. See js/games/index.js for the module interface.

import { h } from "../dom.js";
import { coachPanel } from "../coach.js";
import { seatBadges, seatLabel } from "../seat-status.js";

// Bonus token amounts per colour, 1st place first (clients/web/rules/rollie.md; the engine's
// TABLE.bonuses). Used only when the view does not carry them itself.
const BONUSES = { "-5": [100, 60, 40], 0: [80, 50, 30], 2: [70, 40, 20], 5: [50, 30], 10: [] };

const vclass = (v) => `v${String(v).replace("-", "m")}`;
const fmt = (v) => (Number(v) < 0 ? `−${Math.abs(v)}` : String(v));


// Short effects started by describe(). Every redraw replaces the elements, so an
// element drawn during an effect gets a negative animation-delay: the animation goes
// on where it was instead of starting over.
const EFFECT_MS = 600;
function fresh(ctx, name) {
  const fx = ctx.ui.flash && ctx.ui.flash[name];
  return fx && Date.now() - fx.at < EFFECT_MS ? fx : null;
}
function flash(ctx, name, seats = null) {
  ctx.ui.flash ||= {};
  ctx.ui.flash[name] = { at: Date.now(), seats };
}
function effectStyle(fx) {
  return fx ? `--fx-delay: -${Date.now() - fx.at}ms` : null;
}

function legalOf(ctx) {
  const legal = ctx.you?.legal || [];
  return {
    roll: legal.some((c) => c.type === "roll"),
    secure: legal.some((c) => c.type === "secure"),
    takes: legal.filter((c) => c.type === "take").map((c) => c.value),
  };
}

function act(ctx, command) {
  ctx.ui.open = null;
  ctx.send(command).catch(() => {
    /* the page shows the rejection */
  });
}

function names(ctx, seats) {
  return seats.map((s) => ctx.seatName(s)).join(", ");
}

// -- pieces ------------------------------------------------------------------------

function bill(value, count, { small = false, label = null } = {}) {
  return h(
    "span",
    { class: `bill ${vclass(value)}${small ? " small" : ""}${count ? "" : " none"}`, title: label },
    h("span", { class: "bill-value", text: fmt(value) }),
    count !== null ? h("span", { class: "bill-count", text: `×${count}` }) : null,
  );
}

function bills(g, counts, t) {
  const have = g.values.filter((v) => counts[String(v)] > 0);
  if (!have.length) return h("span", { class: "muted", text: t("rollie.final.none") });
  return h("span", { class: "bills" }, have.map((v) => bill(v, counts[String(v)], { small: true })));
}

function token(n, extra = "") {
  return h("span", { class: `token ${extra}`, text: String(n) });
}

function statusStrip(ctx) {
  const { game: g, t } = ctx;
  const total = g.round + g.face_down_tokens;
  const waiting = g.awaiting.filter((s) => s !== ctx.seat);
  let prompt;
  const mine = ctx.seat;
  if (ctx.room.status === "waiting") prompt = t("rollie.prompt.waiting");
  else if (g.phase === "over") prompt = t("rollie.prompt.over");
  else if (g.phase === "rolling")
    prompt = g.first_player === mine ? t("rollie.prompt.you_roll") : t("rollie.prompt.rolling", { name: ctx.seatName(g.first_player) });
  else if (mine !== null && g.awaiting.includes(mine)) prompt = t("rollie.prompt.you_decide");
  else if (mine !== null && !g.seats[mine].in_play) prompt = t("rollie.prompt.out", { names: names(ctx, waiting) });
  else if (mine !== null) prompt = t("rollie.prompt.decided", { names: names(ctx, waiting) });
  else prompt = t("rollie.prompt.deciding", { names: names(ctx, waiting) });
  const yourTurn = mine !== null && ctx.room.status === "playing" && g.awaiting.includes(mine) && g.phase !== "over";
  return h(
    "div",
    { class: `status-strip${yourTurn ? " your-turn" : ""}` },
    h("span", { class: "round", testid: "round", text: t("rollie.round", { n: g.round, total }) }),
    g.final_round && g.phase !== "over" ? h("span", { class: "pill warn", text: t("rollie.final_round") }) : null,
    h("span", { class: "prompt", testid: "prompt", text: prompt }),
  );
}

function diceArea(ctx) {
  const { game: g, t } = ctx;
  const legal = legalOf(ctx);
  const busy = !!ctx.ui.busy;
  const deciding = g.phase === "deciding";
  const dice = (g.dice || [null, null]).map((face, i) => {
    const isR = face === "R";
    const takeable = deciding && (isR ? legal.takes.length > 0 : legal.takes.includes(face));
    const label =
      face === null
        ? t("rollie.not_rolled")
        : takeable
          ? isR
            ? t("rollie.choose")
            : t("rollie.take_label", { value: fmt(face) })
          : t("rollie.die_label", { face: isR ? "R" : fmt(face) });
    return h(
      "button",
      {
        type: "button",
        class: `die ${face === null ? "blank" : isR ? "vR" : vclass(face)}${takeable ? " takeable" : ""}${deciding ? "" : " stale"}${fresh(ctx, "rolled") ? " just-rolled" : ""}`,
        style: effectStyle(fresh(ctx, "rolled")),
        testid: `die-${i}`,
        "data-face": face === null ? "" : String(face),
        "aria-label": label,
        title: label,
        disabled: !takeable || busy,
        onclick: () => {
          if (isR) {
            ctx.ui.open = "chooser";
            const first = legal.takes[0];
            ctx.ui.focus = first === undefined ? null : `choose-${first}`;
            ctx.rerender();
          } else act(ctx, { type: "take", value: face });
        },
      },
      face === null ? "?" : isR ? "R" : fmt(face),
    );
  });
  const chooser =
    ctx.ui.open === "chooser" && deciding && legal.takes.length
      ? h(
          "div",
          { class: "chooser", testid: "r-chooser", role: "group", "aria-label": t("rollie.choose") },
          h("span", { class: "chooser-title", text: t("rollie.choose") }),
          g.values.map((v) =>
            h(
              "button",
              {
                type: "button",
                class: `bill-button ${vclass(v)}`,
                testid: `choose-${v}`,
                disabled: !legal.takes.includes(v) || busy,
                "aria-label": t("rollie.take_label", { value: fmt(v) }),
                onclick: () => act(ctx, { type: "take", value: v }),
              },
              fmt(v),
            ),
          ),
          h("button", {
            type: "button",
            class: "btn ghost small",
            testid: "choose-cancel",
            text: t("rollie.choose_cancel"),
            onclick: () => closeChooser(ctx),
          }),
        )
      : null;
  const actions = [];
  if (ctx.role === "player") {
    if (legal.roll)
      actions.push(
        h("button", {
          type: "button",
          class: "btn primary big",
          testid: "roll-button",
          disabled: busy,
          text: t("rollie.roll"),
          onclick: () => act(ctx, { type: "roll" }),
        }),
      );
    if (legal.secure)
      actions.push(
        h("button", {
          type: "button",
          class: "btn secure big",
          testid: "secure-button",
          disabled: busy,
          title: t("rollie.secure_hint"),
          text: t("rollie.secure"),
          onclick: () => act(ctx, { type: "secure" }),
        }),
      );
  }
  // the keyboard hint is for keyboards: not on touch screens (where a finger taps)
  const touch = window.matchMedia?.("(hover: none)").matches;
  const hint = legal.takes.length && ctx.role === "player" ? h("p", { class: "hint", text: t(touch ? "rollie.take_hint_touch" : "rollie.take_hint") }) : null;
  const keys =
    ctx.role === "player" && (legal.roll || legal.secure) && !touch
      ? h("p", { class: "keys", testid: "key-hint", text: t("rollie.keys") })
      : null;
  return h(
    "section",
    { class: "panel dice-panel", "aria-label": t("rollie.dice") },
    h("h2", { text: t("rollie.dice") }),
    h("div", { class: "dice", testid: "dice" }, dice),
    chooser,
    hint,
    actions.length ? h("div", { class: "actions", testid: "actions" }, actions) : null,
    keys,
  );
}

function bonusLine(g, v, t) {
  const amounts = (g.bonuses || BONUSES)[String(v)] || [];
  return h(
    "span",
    { class: "pile-bonus", title: t("rollie.bonus_label") },
    amounts.length ? `★ ${amounts.join(" · ")}` : "—",
  );
}

function bank(ctx) {
  const { game: g, t } = ctx;
  return h(
    "section",
    { class: "panel bank-panel", "aria-label": t("rollie.bank") },
    h("h2", { text: t("rollie.bank") }),
    h(
      "div",
      { class: "piles", testid: "bank" },
      g.values.map((v) => {
        const count = g.bank[String(v)];
        const out = g.exhausted.includes(v);
        return h(
          "div",
          {
            class: `pile ${vclass(v)}${count === 0 ? " empty" : ""}${out ? " exhausted" : ""}`,
            testid: `pile-${v}`,
            "data-count": String(count),
            title: t("rollie.pile_label", { count, value: fmt(v) }),
          },
          h("span", { class: "pile-value", text: fmt(v) }),
          h("span", { class: "pile-count", text: String(count) }),
          out ? h("span", { class: "pile-flag", text: t("rollie.exhausted") }) : null,
          bonusLine(g, v, t),
        );
      }),
    ),
    h(
      "div",
      { class: "tokens-row", testid: "tokens" },
      h("span", { class: "label", text: t("rollie.tokens") }),
      g.face_up_tokens.length
        ? g.face_up_tokens.map((n) => token(n, "up"))
        : h("span", { class: "muted", text: t("rollie.no_face_up") }),
      g.face_down_tokens
        ? h(
            "span",
            { class: "face-down", testid: "face-down" },
            token("?", "down"),
            h("span", { class: "muted", text: g.face_down_tokens === 1 ? t("rollie.face_down_one") : t("rollie.face_down", { n: g.face_down_tokens }) }),
          )
        : null,
    ),
  );
}

function seatCard(ctx, row) {
  const { game: g, room, t } = ctx;
  const s = row.seat;
  const roomSeat = room.seats[s] || {};
  const deadline = room.deadlines[String(s)];
  const classes = ["panel", "seat-card"];
  if (s === ctx.seat) classes.push("mine");
  if (g.awaiting.includes(s) && g.phase !== "over" && room.status === "playing") classes.push("awaiting");
  if (!row.in_play) classes.push("out");
  const crash = fresh(ctx, "crash");
  if (crash && crash.seats.includes(s)) classes.push("just-crashed");
  let state;
  if (g.phase === "over" && g.result)
    state = h("span", {
      class: `pill ${g.result.winners.includes(s) ? "warn" : ""}`,
      text: `${g.result.winners.includes(s) ? "★ " : ""}${t("rollie.final.total")}: ${g.result.scores[s]}`,
    });
  else if (g.phase === "over") state = null;
  else if (!row.in_play) state = h("span", { class: "pill secured", text: t("rollie.secured") });
  else if (g.phase === "deciding" && row.decided) state = h("span", { class: "pill decided", text: `✓ ${t("rollie.decided")}` });
  else if (g.phase === "deciding") state = h("span", { class: "pill deciding", text: t("rollie.deciding") });
  else state = h("span", { class: "pill in-play", text: t("rollie.in_play") });
  return h(
    "article",
    {
      class: classes.join(" "),
      testid: `seat-${s}`,
      "aria-label": seatLabel(ctx, s, roomSeat.bot),
      "data-in-play": String(row.in_play),
      "data-decided": String(row.decided),
      style: crash && crash.seats.includes(s) ? effectStyle(crash) : null,
    },
    h(
      "header",
      { class: "seat-head" },
      seatBadges(ctx, s)[0],
      h("strong", { class: "seat-name", testid: `seat-name-${s}`, text: ctx.seatName(s) }),
      seatBadges(ctx, s).slice(1),
      s === ctx.seat ? h("span", { class: "tag you", text: t("common.you") }) : null,
      roomSeat.bot ? h("span", { class: "tag bot", text: t("common.bot") }) : null,
      g.first_player === s && g.phase !== "over"
        ? h("span", { class: "tag first", title: t("rollie.first_player"), "aria-label": t("rollie.first_player") }, "⚄")
        : null,
      h("span", { class: "spacer" }),
      deadline !== undefined
        ? h("span", {
            class: "clock",
            testid: `clock-${s}`,
            "data-deadline": String(deadline),
            "aria-label": t("table.clock_label", { name: ctx.seatName(s) }),
          })
        : null,
    ),
    h("div", { class: "seat-state" }, state),
    h(
      "div",
      { class: "holdings" },
      holding(t("rollie.bet"), `bet-${s}`, bills(g, row.bet, t), fmt(row.bet_total)),
      holding(t("rollie.wallet"), `wallet-${s}`, bills(g, row.wallet, t), fmt(row.wallet_total)),
      holding(
        t("rollie.start_tokens"),
        `start-tokens-${s}`,
        row.start_tokens.length
          ? h("span", { class: "bills" }, row.start_tokens.map((n) => token(n, "up small")))
          : h("span", { class: "muted", text: t("rollie.final.none") }),
        null,
      ),
    ),
  );
}

function holding(label, testid, content, total) {
  return h(
    "div",
    { class: "holding", testid },
    h("span", { class: "holding-label", text: label }),
    total !== null ? h("span", { class: "total", text: total }) : h("span"),
    h("div", { class: "holding-items" }, content),
  );
}

function finalTable(ctx) {
  const { game: g, t } = ctx;
  const r = g.result;
  const winners = r.winners.map((s) => ctx.seatName(s)).join(", ");
  return h(
    "section",
    { class: "panel final", testid: "final-scores" },
    h("h2", { text: t("rollie.final.title") }),
    h(
      "p",
      { class: "winner-line", testid: "winners" },
      h("span", { class: "trophy", "aria-hidden": "true", text: "★" }),
      " ",
      r.winners.length > 1 ? t("rollie.final.win_shared", { names: winners }) : t("rollie.final.wins", { names: winners }),
    ),
    h(
      "div",
      { class: "table-scroll", tabindex: "0" },
      h(
        "table",
        { class: "scores" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col", text: t("rollie.final.player") }),
            g.values.map((v) =>
              h("th", { scope: "col", class: "num", "aria-label": t("rollie.final.bills_of", { value: fmt(v) }) }, bill(v, null, { small: true })),
            ),
            h("th", { scope: "col", class: "num", text: t("rollie.final.bills") }),
            h("th", { scope: "col", text: t("rollie.final.start_tokens") }),
            h("th", { scope: "col", text: t("rollie.final.bonus_tokens") }),
            h("th", { scope: "col", class: "num", text: t("rollie.final.bonus") }),
            h("th", { scope: "col", class: "num", text: t("rollie.final.total") }),
          ),
        ),
        h(
          "tbody",
          {},
          r.seats.map((row) =>
            h(
              "tr",
              { class: r.winners.includes(row.seat) ? "winner" : "", testid: `final-row-${row.seat}`, "data-total": String(row.total) },
              h("th", { scope: "row" }, r.winners.includes(row.seat) ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : "", ctx.seatName(row.seat)),
              g.values.map((v) => h("td", { class: `num ${vclass(v)}-text`, text: String(row.bills[String(v)]) })),
              h("td", { class: "num", text: fmt(row.bills_total) }),
              h("td", {}, row.start_tokens.length ? row.start_tokens.map((n) => token(n, "up small")) : t("rollie.final.none")),
              h(
                "td",
                {},
                row.bonuses.length
                  ? row.bonuses.map((b) =>
                      h("span", {
                        class: `bonus ${vclass(b.value)}`,
                        text: t("rollie.final.place", { place: t(`rollie.ord.${b.place}`), value: fmt(b.value), amount: b.amount }),
                      }),
                    )
                  : t("rollie.final.none"),
              ),
              h("td", { class: "num", text: String(row.bonus_total) }),
              h("td", { class: "num total", testid: `final-total-${row.seat}`, text: String(row.total) }),
            ),
          ),
        ),
      ),
    ),
  );
}

// -- the module ---------------------------------------------------------------------

// Keyboard: R rolls, S secures, 1-5 take the values in display order (when legal).
let keyCtx = null;
function onKey(ev) {
  const ctx = keyCtx;
  if (!ctx || ev.ctrlKey || ev.metaKey || ev.altKey || ctx.ui.busy) return;
  if (ev.target.closest && ev.target.closest("input, select, textarea, dialog")) return;
  const legal = legalOf(ctx);
  const key = ev.key.toLowerCase();
  if (key === "escape" && ctx.ui.open === "chooser") closeChooser(ctx);
  else if (key === "r" && legal.roll) act(ctx, { type: "roll" });
  else if (key === "s" && legal.secure) act(ctx, { type: "secure" });
  else if (/^[1-9]$/.test(key)) {
    const value = ctx.game.values[Number(key) - 1];
    if (value !== undefined && legal.takes.includes(value)) act(ctx, { type: "take", value });
    else if (value !== undefined && legal.takes.length) ctx.explain(t_(ctx, "rollie.why.not_on_dice", { value: fmt(value) }));
    else if (value !== undefined && ctx.game.phase === "deciding" && ctx.you) ctx.explain(t_(ctx, "rollie.why.cannot_take"));
    else return;
  } else return;
  ev.preventDefault();
}

const t_ = (ctx, key, params) => ctx.t(key, params);

/** Close the R chooser and give the focus back to the R die. */
function closeChooser(ctx) {
  ctx.ui.open = null;
  const r = (ctx.game.dice || []).indexOf("R");
  ctx.ui.focus = r >= 0 ? `die-${r}` : null;
  ctx.rerender();
}

function render(root, ctx) {
  const g = ctx.game;
  if (!keyCtx) document.addEventListener("keydown", onKey);
  keyCtx = ctx.role === "player" ? ctx : null;
  const board = h(
    "div",
    { class: "rollie", "data-phase": g.phase },
    statusStrip(ctx),
    g.result ? finalTable(ctx) : null,
    h("div", { class: "board" }, h("div", { class: "center" }, diceArea(ctx), bank(ctx))),
    h("div", { class: "seats", testid: "seats" }, g.seats.map((row) => seatCard(ctx, row))),
  );
  // a guided first game: what to do now and why, above the board (js/coach.js)
  if (ctx.coach && ctx.role === "player" && !ctx.ui.coachOff) board.children[0].after(coachPanel(ctx, board));
  root.replaceChildren(board);
}

function changedSeats(before, after, pick) {
  return after.seats.filter((row, i) => pick(before.seats[i], row)).map((row) => row.seat);
}

function describe(previousView, view, events, ctx) {
  const a = previousView?.game;
  const b = view.game;
  if (!a || !b) return [];
  const out = [];
  const line = (key, params = {}, kind = "info", banner = false) => out.push({ key, params, kind, banner });
  const took = [];
  for (const row of b.seats) {
    const old = a.seats[row.seat];
    for (const v of b.values) {
      if (row.bet[String(v)] > old.bet[String(v)]) took.push([row.seat, v]);
    }
  }
  const tookAll = [...took];
  let securedDone = false;
  // Who crashes follows from the rules: after a Rollie, every Bet holding the doubled
  // value (all Bets on a double R); after a roll no pile can serve, every Bet in play.
  const face = (b.dice || [])[0];
  const hasBills = (row) => Object.values(row.bet).some((n) => n > 0);
  const crashed = events.includes("rollie")
    ? a.seats.filter((row) => hasBills(row) && (face === "R" || row.bet[String(face)] > 0)).map((r) => r.seat)
    : a.seats.filter((row) => hasBills(row) && row.in_play).map((r) => r.seat);
  for (const event of events) {
    switch (event) {
      case "rolled": {
        flash(ctx, "rolled");
        const [d0, d1] = b.dice || [];
        line("rollie.ev.rolled", { name: ctx.seatName(a.first_player), a: d0 === "R" ? "R" : fmt(d0), b: d1 === "R" ? "R" : fmt(d1) });
        break;
      }
      case "took":
        for (const [seat, v] of took) line("rollie.ev.took", { name: ctx.seatName(seat), value: fmt(v) });
        took.length = 0; // one line per bill even if several "took" events share a patch
        break;
      case "secured": {
        if (securedDone) break;
        securedDone = true;
        // Securing moves the Bet, takes a token or leaves play; a secure of an empty Bet
        // that ends the round shows none of these, so the rest come from who was awaited.
        const count = events.filter((e) => e === "secured").length;
        const secured = changedSeats(
          a,
          b,
          (x, y) =>
            JSON.stringify(y.wallet) !== JSON.stringify(x.wallet) ||
            y.start_tokens.length > x.start_tokens.length ||
            (x.in_play && !y.in_play),
        );
        if (a.phase === "deciding" && secured.length < count) {
          const tookSeats = tookAll.map(([seat]) => seat);
          for (const seat of a.awaiting) {
            if (secured.length < count && !secured.includes(seat) && !tookSeats.includes(seat)) secured.push(seat);
          }
        }
        for (const s of secured) {
          const row = b.seats[s];
          const old = a.seats[s];
          const newToken = row.start_tokens.find((n) => !old.start_tokens.includes(n));
          const amount = fmt(row.wallet_total - old.wallet_total);
          if (newToken !== undefined) line("rollie.ev.secured_token", { name: ctx.seatName(s), amount, token: newToken });
          else line("rollie.ev.secured", { name: ctx.seatName(s), amount });
        }
        break;
      }
      case "rollie": {
        const entry = { key: "rollie.ev.rollie", params: { face: face === "R" ? "R" : fmt(face) }, kind: "rollie", banner: true };
        if (events.includes("crash") && crashed.length)
          entry.also = { key: crashed.length > 1 ? "rollie.ev.crash" : "rollie.ev.crash_one", params: { names: names(ctx, crashed) } };
        out.push(entry);
        break;
      }
      case "crash":
        if (crashed.length) {
          flash(ctx, "crash", [...crashed]);
          const who = names(ctx, crashed);
          if (events.includes("rollie"))
            line(crashed.length > 1 ? "rollie.ev.crash" : "rollie.ev.crash_one", { names: who }, "crash");
          else line("rollie.ev.crash_empty", { names: who }, "crash", true);
          crashed.length = 0;
        }
        break;
      case "claim_undone":
        for (const row of b.seats) {
          if (a.seats[row.seat].decided && !row.decided) line("rollie.ev.claim_undone", { name: ctx.seatName(row.seat) });
        }
        break;
      case "dice_passed":
        line("rollie.ev.dice_passed", { name: ctx.seatName(b.first_player) });
        break;
      case "round_ended":
        line("rollie.ev.round_ended", { n: a.round }, "round");
        break;
      case "round_started": {
        const tok = b.face_up_tokens.find((n) => !a.face_up_tokens.includes(n));
        line("rollie.ev.round_started", { n: b.round, token: tok ?? "?" }, "round", !events.includes("rollie") && !events.includes("crash"));
        break;
      }
      case "game_over":
        line("rollie.ev.game_over", {}, "over", true);
        break;
      default:
        break;
    }
  }
  return out;
}

export default { name: "rollie", render, describe };
