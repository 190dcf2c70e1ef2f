"""Roll Player in the terminal: the table as rich renderables, and its keys and lines.

Every allowed move is listed with its index in ``you.legal``. Lines: a number sends
that move (``3`` sends legal[3]), ``list`` shows every move. Keys (live table): type
the digits of a move and press Enter (Backspace corrects, ``l`` shows or hides the
whole list). Dice read ``g5`` (a green 5): g green, b blue, r red, p purple, k black,
w white, y gold. Rendering is pure; the typed number is the only state kept.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.terminal.keys import Action, Hint, Send
from clients.terminal.render import clock_text, remaining, seat_name

ATTRS = ("STR", "DEX", "CON", "INT", "WIS", "CHA")
LETTER = {
    "green": "g",
    "blue": "b",
    "red": "r",
    "purple": "p",
    "black": "k",
    "white": "w",
    "gold": "y",
}
STYLE = {
    "green": "bold white on green4",
    "blue": "bold white on blue3",
    "red": "bold white on red3",
    "purple": "bold white on purple4",
    "black": "bold white on grey15",
    "white": "bold black on grey93",
    "gold": "bold black on gold3",
}
ARROW = {"up": "↑", "down": "↓", "left": "←", "right": "→"}
PHASES = {
    "sheets": "Setup: choose sheets",
    "classes": "Setup: choose classes",
    "placing": "Setup: place starting dice",
    "arrange": "Roll Phase",
    "dice": "Dice Phase",
    "action": "Dice Phase: attribute action",
    "market": "Market Phase",
    "refresh": "Cleanup Phase",
    "over": "Final scoring",
}
ACTIONS = {
    "STR": "flip",
    "DEX": "swap",
    "CON": "+1/-1",
    "INT": "reroll",
    "WIS": "move token",
    "CHA": "Charisma token",
}
ROWS_NAMES = ("Good", "Neutral", "Evil")
COLS_NAMES = ("Lawful", "Neutral", "Chaotic")
SHOWN = 60
"""Moves listed on the table before ``l`` / ``list`` is needed for the rest."""
HELP: list[tuple[str, str]] = [
    ("0-9 Enter", "type the number of a move, then Enter (Backspace corrects)"),
    ("l", "show or hide every allowed move"),
    ("lines", "a number sends that move; 'list' shows them all"),
]

TYPED: dict[str, Any] = {"digits": "", "all": False}
"""The live table's typed number and whether the whole move list shows."""


@cache
def catalog() -> dict[str, Any]:
    """The game's data file (card costs, goals, alignments) as plain data."""
    text = resources.files("engine.roll_player").joinpath("content", "base.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def cards() -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in catalog()["market"]}


def classes() -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in catalog()["classes"]}


# -- pieces -------------------------------------------------------------------------------------


def die_text(d: dict[str, Any] | None) -> Text:
    """``g5`` in the die's colour, ``··`` for an empty space."""
    if d is None:
        return Text("··", style="dim")
    return Text(f"{LETTER.get(d['colour'], '?')}{d['value']}", style=STYLE.get(d["colour"], ""))


def awaiting(game: dict[str, Any]) -> list[int]:
    """Seats with a decision now (mirrors the engine's ``awaiting``)."""
    if game["phase"] == "over":
        return []
    out = {i for i, p in enumerate(game["players"]) if p.get("pending")}
    if game.get("turn") is not None:
        out.add(game["turn"])
    elif game["phase"] in ("classes", "placing", "refresh"):
        out |= set(range(game["seats"])) - set(game.get("done") or [])
    return sorted(out)


def total_rounds(seats: int) -> int:
    return 18 - (seats + int(catalog()["rules"]["starting_dice_extra"]))


def winners(game: dict[str, Any]) -> list[int]:
    """Most stars, then most gold, then fewest class-colour dice."""

    def key(p: dict[str, Any]) -> tuple[int, int, int]:
        score = p.get("score") or {}
        return (score.get("total", 0), p["gold"], -score.get("class_dice", 0))

    keys = [key(p) for p in game["players"]]
    best = max(keys)
    return [i for i, k in enumerate(keys) if k == best]


def turn_text(view: dict[str, Any], now: float) -> Text:
    """Round, phase, Start Player and who the table waits for (with clocks)."""
    game = view["game"]
    rnd = game["round"]
    text = Text(f"Round {rnd}/{total_rounds(game['seats'])}" if rnd else "Setup", style="bold")
    text.append(f" · {PHASES.get(game['phase'], game['phase'])}")
    if game["phase"] == "action" and game.get("action_row", -1) >= 0:
        attr = ATTRS[game["action_row"]]
        text.append(f" ({attr}: {ACTIONS[attr]})")
    text.append(f" · Start Player: {seat_name(view, game['start'])}")
    if game["phase"] == "over":
        return text
    waiting = []
    for seat in awaiting(game):
        left = clock_text(remaining(view, seat, now))
        waiting.append(seat_name(view, seat) + (f" {left}" if left else ""))
    return text.append(" · waiting for: " + (", ".join(waiting) or "nobody"))


def initiative_text(view: dict[str, Any]) -> Text:
    """``Initiative  [1] g3  [2] ·· 1g (Ana)  [3] r5``, then the pool when tied."""
    game = view["game"]
    text = Text("Initiative ", style="bold")
    for card in game["initiative"]:
        text.append(f" [{card['number']}] ")
        text.append_text(die_text(card["die"]))
        if card["gold"]:
            text.append(f" {card['gold']}g", style="yellow")
        holder = [i for i, p in enumerate(game["players"]) if p["initiative"] == card["number"]]
        if holder:
            text.append(f" ({seat_name(view, holder[0], mark_you=False)})", style="dim")
    if game.get("pool"):
        text.append("   pool: ", style="bold")
        for d in game["pool"]:
            text.append_text(die_text(d)).append(" ")
    return text


def card_line(name: str) -> str:
    """A market card in one line: kind, cost, arrow and what it does."""
    c = cards().get(name)
    if c is None:
        return name
    bits = [f"{c['kind']} {c['cost']}g"]
    if c.get("arrow"):
        bits.append(ARROW[c["arrow"]])
    if c["kind"] == "weapon":
        mods = " ".join(f"{a}{v:+d}" for a, v in c.get("mods", {}).items())
        bits.append(f"{mods} ({c['hands']}h)")
    elif c["kind"] == "armor":
        bits.append(f"{c['set']} {c['colour']}")
    elif c["kind"] == "trait":
        s = c["score"]
        bits.append(
            f"{s['kind']} {s.get('attr', s.get('row', s.get('column', s.get('card', ''))))}"
        )
    elif c["kind"] == "skill":
        bits.append(c["effect"]["kind"])
    return f"{name} ({', '.join(bits)})"


def market_text(view: dict[str, Any]) -> Text:
    game = view["game"]
    text = Text("Market ", style="bold")
    text.append(" · ".join(card_line(n) for n in game["market"]) or "empty")
    text.append(
        f"\nSupply {game['supply']}g · bag {game['bag_count']} dice · deck {game['deck_count']}"
        f" · discarded {len(game['discard'])}",
        style="dim",
    )
    return text


def alignment_lines(p: dict[str, Any]) -> list[Text]:
    """The 3x3 alignment card, the token as ``[ ]``."""
    grid = next((a["grid"] for a in catalog()["alignments"] if a["name"] == p["alignment"]), None)
    out = []
    for r in range(3):
        line = Text(f"{ROWS_NAMES[r][:4]:<5}")
        for c in range(3):
            v = grid[r][c] if grid else 0
            cell = f"{v:+d}" if v else " 0"
            if p["cell"] == r * 3 + c:
                line.append(f"[{cell}]", style="bold reverse")
            else:
                line.append(f" {cell} ")
        out.append(line)
    return out


def sheet(view: dict[str, Any], seat: int, presence: dict[str, Any] | None, now: float) -> Panel:
    """One character: identity, purse, the 6 attribute rows, alignment and cards."""
    game = view["game"]
    p = game["players"][seat]
    klass = classes().get(p["class"])
    races = {r["name"]: r.get("mods", {}) for r in catalog()["races"]}
    wants: list[str] = next(
        (b["wants"] for b in catalog()["backstories"] if b["name"] == p["backstory"]), []
    )
    weapons = [cards()[n] for n in p["cards"] if cards().get(n, {}).get("kind") == "weapon"]
    head = Text()
    head.append(f"{p['race'] or '-'} ({p['side'] or '-'}) · ")
    head.append(f"{p['class'] or (p['colour'] + ' card' if p['colour'] else '-')}", style="bold")
    if klass:
        head.append(f" [{klass['colour']}] {klass['ability']['name']}")
        if "class" in p["exhausted"]:
            head.append(" (exhausted)", style="dim")
    head.append(f"\nBackstory {p['backstory'] or '-'} · Alignment {p['alignment'] or '-'}")
    head.append(f"\nGold {p['gold']} · Charisma {p['charisma']}")
    if p["credit"]:
        head.append(f" · {p['credit']}g off")
    if p["initiative"]:
        head.append(f" · Initiative {p['initiative']}")
    if p.get("score"):
        head.append(f" · stars now {p['score']['total']}", style="bold yellow")
    if p.get("pending"):
        pd = p["pending"]
        head.append(f"\nrerolled {ATTRS[pd['slot'] // 3]} {pd['slot'] % 3 + 1}: ")
        head.append(f"old {pd['old']} / new {pd['new']}", style="bold")
    rows = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for col in ("", "dice", "sum", "mod", "tot", "goal", "want"):
        rows.add_column(col, justify="right" if col in ("sum", "mod", "tot") else "left")
    for r, attr in enumerate(ATTRS):
        row = p["rows"][r]
        dice = Text(" ").join([die_text(row[i] if i < len(row) else None) for i in range(3)])
        total = sum(d["value"] for d in row)
        mod = races.get(p["race"], {}).get(attr, 0) + sum(
            w.get("mods", {}).get(attr, 0) for w in weapons
        )
        score = (p.get("score") or {}).get("attributes", {}).get(attr, total + mod)
        goal = klass["goals"][attr] if klass else None
        met = bool(goal) and (p.get("score") or {}).get("goals", {}).get(attr, 0) > 0
        want = f"{LETTER[wants[r][0]]}@{wants[r][1]}" if r < len(wants) else ""
        rows.add_row(
            attr,
            dice,
            str(total),
            f"{mod:+d}" if mod else "",
            Text(str(score), style="bold green" if met else "bold"),
            f"{goal[0]} *{goal[1]}" + (" ok" if met else "") if goal else "-",
            want,
        )
    owned = Text("Cards: ", style="bold")
    owned.append(
        ", ".join(n + (" (exhausted)" if n in p["exhausted"] else "") for n in p["cards"]) or "none"
    )
    clock = clock_text(remaining(view, seat, now))
    seats = (presence or {}).get("seats") or []
    online = "" if seat >= len(seats) else ("● " if seats[seat].get("connected") else "○ ")
    title = online + seat_name(view, seat) + (" ⚑" if game["start"] == seat else "")
    if clock:
        title += f" {clock}"
    mine = (view.get("you") or {}).get("seat") == seat
    return Panel(
        Group(head, rows, Group(*alignment_lines(p)), owned),
        title=title,
        title_align="left",
        border_style="cyan" if mine else ("yellow" if seat in awaiting(game) else "dim"),
    )


def result_table(view: dict[str, Any]) -> Table:
    """Final scoring item by item, a column per player."""
    game = view["game"]
    best = winners(game)
    table = Table(title="Final scoring (Reputation Stars)", header_style="bold", title_style="bold")
    table.add_column("item")
    for s in range(game["seats"]):
        table.add_column(("★ " if s in best else "") + seat_name(view, s), justify="right")
    scores = [p.get("score") or {} for p in game["players"]]
    for attr in ATTRS:
        table.add_row(
            f"{attr} goal",
            *(
                f"{sc.get('attributes', {}).get(attr, '?')} → {sc.get('goals', {}).get(attr, 0)}"
                for sc in scores
            ),
        )
    for key, label in (
        ("class_dice", "class-colour dice"),
        ("alignment", "alignment"),
        ("backstory", "backstory"),
    ):
        table.add_row(label, *(str(sc.get(key, 0)) for sc in scores))
    table.add_row(
        "armor",
        *(" ".join(f"{k} {v}" for k, v in sc.get("armor", {}).items()) or "0" for sc in scores),
    )
    table.add_row(
        "traits",
        *(" ".join(f"{k} {v}" for k, v in sc.get("traits", {}).items()) or "0" for sc in scores),
    )
    table.add_row("TOTAL", *(Text(str(sc.get("total", 0)), style="bold") for sc in scores))
    table.add_row("gold (tie-break)", *(str(p["gold"]) for p in game["players"]))
    return table


# -- moves --------------------------------------------------------------------------------------


def slot_text(p: dict[str, Any], slot: int) -> str:
    row = p["rows"][slot // 3]
    d = row[slot % 3] if slot % 3 < len(row) else None
    return f"{ATTRS[slot // 3]}{slot % 3 + 1}" + (
        f"({LETTER[d['colour']]}{d['value']})" if d else ""
    )


def move_text(view: dict[str, Any], c: dict[str, Any]) -> str:
    """A legal command in a few words."""
    game = view["game"]
    seat = (view.get("you") or {}).get("seat") or 0
    p = game["players"][seat]
    kind = c.get("type")
    if kind == "choose_sheet":
        return f"sheet {c['race']} {c['side']}"
    if kind == "choose_class":
        return f"class {c['klass']}"
    if kind == "place_start":
        return "place " + " ".join(ATTRS[r] for r in c["rows"])
    if kind == "arrange":
        return "order " + " ".join(str(game["pool"][i]["value"]) for i in c["order"])
    if kind == "draft":
        return f"take init {c['card']} -> {ATTRS[c['row']]}"
    if kind in ("act", "use_skill"):
        head = ACTIONS[ATTRS[game["action_row"]]] if kind == "act" else f"use {c['skill']}"
        if c.get("direction"):
            return f"{head} {ARROW[c['direction']]}"
        if c.get("card"):
            return f"{head} {c['card']}"
        if c.get("slot", -1) >= 0:
            target = slot_text(p, c["slot"])
            if c.get("other", -1) >= 0:
                target += " <> " + slot_text(p, c["other"])
            if c.get("delta"):
                target += f" {c['delta']:+d}"
            return f"{head} {target}"
        return head
    if kind == "skip_action":
        return "skip action"
    if kind == "keep":
        pd = p.get("pending") or {}
        return f"keep {'new ' + str(pd.get('new')) if c['new'] else 'old ' + str(pd.get('old'))}"
    if kind == "buy":
        extra = f" +{c['charisma']}cha" if c.get("charisma") else ""
        extra += f" drop {'/'.join(c['drop'])}" if c.get("drop") else ""
        return f"buy {c['card']}{extra}"
    if kind == "discard_card":
        return f"discard {c['card']}"
    if kind == "end_market_turn":
        return "end market turn"
    if kind == "drop_weapon":
        return f"drop {c['card']}"
    if kind == "refresh":
        return f"refresh {c['skill']}" if c.get("skill") else "refresh nothing"
    return json.dumps(c)


def legal(view: dict[str, Any] | None) -> list[dict[str, Any]]:
    return list(((view or {}).get("you") or {}).get("legal") or [])


def moves_text(view: dict[str, Any], limit: int | None = SHOWN) -> Text:
    """Every allowed move with its index (the decisions first, skills and drops after)."""
    moves = legal(view)
    text = Text("Your moves", style="bold")
    if not moves:
        return text.append(": none now", style="dim")
    order = sorted(
        range(len(moves)), key=lambda i: moves[i]["type"] in ("use_skill", "drop_weapon")
    )
    shown = order if limit is None else order[:limit]
    text.append(" (type the number):\n")
    text.append("  ".join(f"[{i}] {move_text(view, moves[i])}" for i in shown))
    if len(shown) < len(order):
        text.append(f"\n… {len(order) - len(shown)} more: press l (or type list)", style="dim")
    return text


# -- the plug-in interface ---------------------------------------------------------------------


def render(view: dict[str, Any], presence: dict[str, Any] | None, now: float) -> RenderableType:
    """The Roll Player table."""
    game = view["game"]
    seats = list(range(game["seats"]))
    you = (view.get("you") or {}).get("seat")
    if you is not None:
        seats.remove(you)
        seats.insert(0, you)
    parts: list[RenderableType] = [turn_text(view, now)]
    if game["phase"] == "over":
        parts.append(result_table(view))
    else:
        parts += [initiative_text(view), market_text(view)]
    parts.append(Columns([sheet(view, s, presence, now) for s in seats], equal=True, expand=True))
    if view.get("you") is not None and game["phase"] != "over":
        parts.append(moves_text(view, None if TYPED["all"] else SHOWN))
        if TYPED["digits"]:
            parts.append(Text(f"move #{TYPED['digits']} — Enter sends", style="bold yellow"))
    return Panel(Group(*parts), title="Roll Player", title_align="left")


def brief(view: dict[str, Any]) -> str:
    """One line for line mode: round, phase, who is awaited, the Initiative dice."""
    game = view["game"]
    dice = " ".join(
        f"{c['number']}:{LETTER[c['die']['colour']]}{c['die']['value']}"
        if c["die"]
        else f"{c['number']}:-"
        for c in game["initiative"]
    )
    waits = ", ".join(str(s) for s in awaiting(game)) or "-"
    return f"round {game['round']} · {game['phase']} (seats {waits}) · initiative {dice} · {len(legal(view))} moves"


def banner(events: tuple[str, ...]) -> RenderableType | None:
    """A loud line at the end of the game."""
    if "game_over" in events or "game_ended" in events:
        return Panel(
            Text("GAME OVER · final scoring below", justify="center"), style="bold white on blue"
        )
    return None


def pick_index(index: int, view: dict[str, Any] | None) -> Action:
    """``Send(legal[index])`` or why not."""
    moves = legal(view)
    if view is not None and view.get("you") is None:
        return Hint("you are watching: spectators cannot act")
    if not moves:
        return Hint("nothing to do now: it is not your turn")
    if not 0 <= index < len(moves):
        return Hint(f"no move {index}: moves are 0-{len(moves) - 1} (type list)")
    return Send(moves[index])


def on_key(key: str, view: dict[str, Any] | None) -> Action:
    """Digits build a move number, Enter sends it, Backspace corrects, l toggles the list."""
    if key.isdigit():
        TYPED["digits"] = (TYPED["digits"] + key)[-4:]
        return Hint(f"move #{TYPED['digits']}: press Enter to send")
    if key in ("\x7f", "\b"):
        TYPED["digits"] = TYPED["digits"][:-1]
        return Hint(f"move #{TYPED['digits']}" if TYPED["digits"] else "type a move number")
    if key in ("\n", "\r"):
        digits, TYPED["digits"] = TYPED["digits"], ""
        if not digits:
            return Hint("type a move number first")
        return pick_index(int(digits), view)
    if key.lower() == "l":
        TYPED["all"] = not TYPED["all"]
        return Hint("showing every move" if TYPED["all"] else f"showing the first {SHOWN} moves")
    return Hint(f"no action on key {key!r}; type a move number and Enter, ? for help")


def on_line(words: list[str], view: dict[str, Any] | None) -> Action:
    """A number sends that move; ``list`` shows every move."""
    if words[0] in ("list", "l", "moves"):
        if view is None:
            return Hint("not connected to the table yet")
        return Hint("\n" + moves_text(view, None).plain)
    if len(words) == 1 and words[0].isdigit():
        return pick_index(int(words[0]), view)
    return Hint(f"unknown command {' '.join(words)!r}: type a move number, or list")
