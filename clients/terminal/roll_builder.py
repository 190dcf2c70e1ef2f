"""Roll Builder in the terminal: a summary table with a compact text hex map, and its input.

Commands are picked by their index in the legal list: ``list`` prints the numbered
list, ``7`` sends command 7, ``done`` ends the turn. Keys: ``0``-``9`` send that
command, ``d`` is Done, ``l`` lists the first commands. Everything here is pure.

The text map draws one space per 4 characters, odd rows shifted by 2 (the sheet's
own layout): terrain (``.`` land, ``~`` water, ``:``/``≈`` partial), the space's icon
code from the sheet (``f`` food, ``3`` three points, ...), then its state (building
``1``-``6``, ``x`` crossed off, ``+`` connected to a road).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.terminal.keys import Action, Hint, Send, legal_commands, pick
from clients.terminal.render import clock_text, remaining, seat_name

HELP: list[tuple[str, str]] = [
    ("0-9", "send legal command 0-9 (type list for the numbered commands)"),
    ("d", "done: finish your turn"),
    ("l", "show the first legal commands"),
]
LINES_HELP = "lines: list · <number> · done · quit · help"
TURN_BONUS = {5: "idea", 10: "building action", 15: "wonder action"}
BANNERS: dict[str, tuple[str, str]] = {
    "visionary_completed": ("A visionary's goal is reached!", "bold black on yellow"),
    "game_ended": ("GAME OVER  ·  the fifteen turns are played", "bold white on blue"),
}
SHORT = {"food": "F", "supplies": "S", "wealth": "W", "favor": "V", "strength": "T", "idea": "I"}


# -- rendering -------------------------------------------------------------------------------------


def shown_seat(view: dict[str, Any]) -> int:
    """The viewer's own seat, or seat 0 for a spectator."""
    you = view.get("you") or {}
    seat = you.get("seat")
    return int(seat) if isinstance(seat, int) else 0


def gains(gain: dict[str, int] | None) -> str:
    """``+2 food +1 wealth``."""
    return " ".join(f"{'+' if n > 0 else ''}{n} {r}" for r, n in (gain or {}).items())


def effect_text(effect: dict[str, Any] | None) -> str:
    """A short reading of an effect from the view."""
    if not effect:
        return ""
    parts = [gains(effect.get("gain"))] if effect.get("gain") else []
    if effect.get("roads"):
        parts.append(f"{effect['roads']} roads")
    if effect.get("build"):
        parts.append("bonus building")
    if effect.get("wonder"):
        parts.append("bonus wonder box")
    if effect.get("points"):
        parts.append(f"{effect['points']} pts")
    parts.extend(a["kind"].replace("_", " ") for a in effect.get("abilities", ()))
    return ", ".join(parts)


def cell(space: dict[str, Any]) -> str:
    """Three characters for one space: terrain, icon, state."""
    water = space["terrain"] == "water"
    terrain = ("≈" if water else ":") if space["partial"] else "~" if water else "."
    icon = (space.get("icon") or terrain)[:1]
    if space.get("building"):
        state = str(space["building"])
    elif space.get("marked"):
        state = "x"
    elif space.get("connected"):
        state = "+"
    else:
        state = " "
    return f"{terrain}{icon}{state}"


def text_map(player: dict[str, Any]) -> Text:
    """The city's spaces as rows of text, odd rows half a space to the right."""
    spaces = player["map"]["spaces"]
    by_pos: dict[tuple[int, int], dict[str, Any]] = {}
    for sp in spaces:
        col = sp["q"] + (sp["r"] - (sp["r"] & 1)) // 2
        by_pos[(col, sp["r"])] = sp
    cols = [c for c, _ in by_pos]
    rows = sorted({r for _, r in by_pos})
    text = Text()
    for r in rows:
        line = "  " if r & 1 else ""
        for c in range(min(cols), max(cols) + 1):
            sp = by_pos.get((c, r))
            line += (cell(sp) if sp else "   ") + " "
        text.append(line.rstrip() + "\n", style="bold" if r % 2 == 0 else "")
    text.append(
        ". land ~ water :/≈ partial · then the icon · 1-6 building, x crossed, + connected",
        style="dim",
    )
    return text


def turn_line(view: dict[str, Any], now: float) -> Text:
    """Turn, dice, the turn bonus and who the table waits for."""
    game = view["game"]
    text = Text(f"Turn {game['turn']}/{game['turns']}", style="bold")
    dice = game.get("dice") or []
    text.append("  Dice ").append(" ".join(f"[ {d} ]" for d in dice), style="bold reverse")
    bonus = TURN_BONUS.get(game["turn"])
    if bonus and not game["over"]:
        text.append(f"  turn bonus: {bonus}", style="yellow")
    if game["over"]:
        return text.append(" · game over")
    waiting = []
    for seat in game.get("awaiting") or []:
        left = clock_text(remaining(view, seat, now))
        waiting.append(seat_name(view, seat) + (f" {left}" if left else ""))
    return text.append(" · building: " + (", ".join(waiting) or "nobody"))


def players_table(view: dict[str, Any]) -> Table:
    """Every city: score, dice used, what is left this turn, done or not."""
    game = view["game"]
    table = Table(show_edge=False, box=None, padding=(0, 1), header_style="bold")
    for name in ("Player", "City", "Score", "Dice used", "This turn", "State"):
        table.add_column(name)
    you = (view.get("you") or {}).get("seat")
    for p in game["players"]:
        pool = [f"{n}{SHORT.get(r, r)}" for r, n in p["pool"].items()]
        if p["roads_left"]:
            pool.append(f"{p['roads_left']} roads")
        pool += [f"build {b or 'any'}" for b in p["builds"]]
        pool += [f"wonder {w or 'any'}" for w in p["wonders"]]
        used = " ".join(f"{'x' if i in p['dice_used'] else '-'}{game['dice'][i]}" for i in (0, 1))
        table.add_row(
            seat_name(view, p["seat"]),
            p["city"]["name"],
            str(p["score"]),
            used,
            " ".join(pool) or "-",
            "" if game["over"] else ("done" if p["done"] else "building"),
            style="cyan" if p["seat"] == you else None,
        )
    return table


def sheet_text(player: dict[str, Any]) -> Text:
    """Wonder boxes, innovations, tracks and storage of one city, as lines."""
    text = Text()
    boxes = player["wonder"]["boxes"]
    text.append(f"Wonder {player['wonder']['name']}", style="bold")
    text.append("  (X filled · . open now · # grey)\n", style="dim")
    rows = sorted({b["row"] for b in boxes}, reverse=True)
    for row in rows:
        marks = []
        for b in (b for b in boxes if b["row"] == row):
            mark = "X" if b["filled"] else ("." if b["available"] else ("#" if b["grey"] else " "))
            marks.append(f"[{b['n']}{mark}]")
        text.append(
            "  " + " " * (2 * (len(boxes) // len(rows) - len(marks))) + " ".join(marks) + "\n"
        )
    text.append("Innovations", style="bold")
    text.append(
        "  (o to pay · x paid; F food S supplies W wealth V favor T strength I idea)\n", style="dim"
    )
    for inv in player["innovations"]:
        circles = " ".join(
            ("x" if c["paid"] else "o") + SHORT.get(c["resource"], "?") for c in inv["cost"]
        )
        flag = " DISCOVERED" if inv["discovered"] else ""
        text.append(f"  {inv['name']} ({inv['points']} pts) {circles}{flag}\n")
    for name in ("favor", "strength"):
        track = player["tracks"][name]
        values = track["values"]
        text.append(
            f"{name.capitalize()} track: {track['crossed']} crossed, worth {values[track['crossed']]}  "
        )
    text.append(f"Stored wealth {player['stored_wealth']}/{player['storage']}")
    return text


def final_table(view: dict[str, Any]) -> Table:
    """The score sheet: each city's items, its total and (solo) survival."""
    game = view["game"]
    table = Table(title="Final scoring", header_style="bold", title_style="bold")
    table.add_column("Player")
    table.add_column("Item")
    table.add_column("Points", justify="right")
    best = max(p["score"] for p in game["players"])
    event = game.get("event")
    solo = len(game["players"]) == 1 and event
    for p in game["players"]:
        for i, item in enumerate(p["items"]):
            name = seat_name(view, p["seat"]) if i == 0 else ""
            table.add_row(name, f"{item['category']}: {item['label']}", str(item["points"]))
        if solo:
            won = p["score"] > event["target"]
            verdict = f"SURVIVED {event['name']}" if won else f"FELL to {event['name']}"
            verdict += f" (target {event['target']})"
        else:
            verdict = "★ winner" if p["score"] == best else ""
        table.add_row("", Text(f"Total  {verdict}", style="bold"), Text(str(p["score"]), "bold"))
    return table


def render(view: dict[str, Any], presence: dict[str, Any] | None, now: float) -> RenderableType:
    """The Roll Builder table."""
    game = view["game"]
    me = game["players"][shown_seat(view)]
    parts: list[RenderableType] = [turn_line(view, now)]
    event = game.get("event")
    if event:
        parts.append(Text(f"Event: {event['name']} (target {event['target']}) · {event['text']}"))
    parts.append(players_table(view))
    title = f"{me['city']['name']} · {seat_name(view, me['seat'])} · {me['score']} pts"
    parts.append(Panel(Group(text_map(me), sheet_text(me)), title=title, title_align="left"))
    for v in game.get("visionaries") or []:
        who = [seat_name(view, p["seat"]) for p in game["players"] if v["id"] in p["visionaries"]]
        line = f"Visionary {v['name']}: {v['text']}"
        parts.append(Text(line + (f" · reached by {', '.join(who)}" if who else ""), style="dim"))
    legal = legal_commands(view)
    if legal:
        parts.append(Text(f"{len(legal)} legal commands: type list, then a number", style="green"))
    if game["over"]:
        parts.append(final_table(view))
    return Panel(Group(*parts), title="Roll Builder", title_align="left")


def brief(view: dict[str, Any]) -> str:
    """One line for line mode: turn, dice, each city's score and whether it is done."""
    game = view["game"]
    cities = ", ".join(
        f"{p['seat']}: {p['score']} pts{' done' if p['done'] else ''}" for p in game["players"]
    )
    dice = " ".join(str(d) for d in game.get("dice") or [])
    return f"turn {game['turn']}/{game['turns']} · dice {dice} · {cities}"


def banner(events: tuple[str, ...]) -> RenderableType | None:
    """A loud line for a visionary reached or the end of the game."""
    lines = [BANNERS[name] for name in BANNERS if name in events]
    if not lines:
        return None
    return Group(*(Panel(Text(msg, justify="center"), style=style) for msg, style in lines))


# -- input -----------------------------------------------------------------------------------------


def _player(view: dict[str, Any] | None) -> dict[str, Any] | None:
    you = (view or {}).get("you") or {}
    players = ((view or {}).get("game") or {}).get("players") or []
    seat = you.get("seat")
    return players[seat] if isinstance(seat, int) and seat < len(players) else None


def command_text(command: dict[str, Any], view: dict[str, Any] | None) -> str:
    """A legal command in plain words, e.g. ``build 3 Market on 2,4``."""
    me = _player(view) or {}
    kind = command.get("type")
    if kind == "use_die":
        face = ((view or {}).get("game") or {}).get("dice", [0, 0])[command["die"]]
        face += command.get("shift", 0)
        shift = f" (shifted {command['shift']:+d})" if command.get("shift") else ""
        what = {
            "road": f"{face} roads",
            "build": f"building {face}",
            "wonder": f"wonder box {face}",
        }
        return f"use die {command['die'] + 1} for {what.get(command['action'], '?')}{shift}"
    if kind == "place_road":
        q1, r1, q2, r2 = command["edge"]
        return f"road between {q1},{r1} and {q2},{r2}"
    if kind == "build":
        names = {b["n"]: b["name"] for b in me.get("buildings", [])}
        q, r = command["space"]
        return f"build {command['building']} {names.get(command['building'], '')} on {q},{r}"
    if kind == "mark_space":
        q, r = command["space"]
        space: dict[str, Any] = next(
            (s for s in me.get("map", {}).get("spaces", []) if (s["q"], s["r"]) == (q, r)), {}
        )
        return f"cross off {q},{r} ({effect_text(space.get('effect'))})"
    if kind == "fill_wonder":
        boxes = me.get("wonder", {}).get("boxes", [])
        box = boxes[command["box"]] if command["box"] < len(boxes) else {}
        extra = effect_text(box.get("effect"))
        return f"fill wonder box #{command['box']} (a {box.get('n', '?')})" + (
            f": {extra}" if extra else ""
        )
    if kind == "pay":
        return (
            f"pay {command['innovation']} circle {command['circle'] + 1} with {command['resource']}"
        )
    if kind == "done":
        return "done: finish this turn"
    return str(command)


def listing(view: dict[str, Any] | None) -> str:
    """The legal commands, numbered."""
    legal = legal_commands(view)
    if not legal:
        return "nothing to do now"
    return "\n".join(f"{i:>4}  {command_text(c, view)}" for i, c in enumerate(legal))


def by_index(view: dict[str, Any] | None, index: int) -> Action:
    """Legal command ``index``, or why not."""
    legal = legal_commands(view)
    if 0 <= index < len(legal):
        return Send(legal[index])
    if not legal:
        return pick({"type": "?"}, view, "nothing to send")
    return Hint(f"no command {index}: there are {len(legal)} (0-{len(legal) - 1}); type list")


def on_key(key: str, view: dict[str, Any] | None) -> Action:
    """The action of one keystroke."""
    key = key.lower()
    if key.isdigit() and len(key) == 1:
        return by_index(view, int(key))
    if key == "d":
        return pick({"type": "done"}, view, "you cannot finish a turn now")
    if key == "l":
        first = listing(view).splitlines()[:10]
        return Hint(" | ".join(line.strip() for line in first))
    return Hint(f"no action on key {key!r}; press ? for the keys")


def on_line(words: list[str], view: dict[str, Any] | None) -> Action:
    """The action of a typed line, split into lowercase words."""
    if words == ["list"] or words == ["ls"]:
        return Hint("legal commands:\n" + listing(view))
    if words == ["done"]:
        return pick({"type": "done"}, view, "you cannot finish a turn now")
    if len(words) == 1 and words[0].isdigit():
        return by_index(view, int(words[0]))
    return Hint(f"unknown command {' '.join(words)!r}: {LINES_HELP}")
