"""Rollie in the terminal: the table as rich renderables, and its keys.

Keys: ``r`` roll, ``1``-``5`` take the value of bill column 1-5 (-5, 0, 2, 5, 10),
``a``/``b`` take the value of die A/B, ``s`` secure. Typed lines: ``roll``,
``take 5``, ``secure`` (and any key on its own). Everything here is pure.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.terminal.keys import Action, Hint, pick
from clients.terminal.render import clock_text, remaining, seat_name

DEFAULT_VALUES = (-5, 0, 2, 5, 10)
HELP: list[tuple[str, str]] = [
    ("r", "roll the dice (when you hold them)"),
    ("1-5", "take a bill of column 1-5 (-5, 0, 2, 5, 10)"),
    ("a / b", "take a bill of the value on die A / B"),
    ("s", "secure: move your Bet to your Wallet"),
]
BANNERS: dict[str, tuple[str, str]] = {
    "rollie": ("ROLLIE!  Identical faces: every Bet in play crashes", "bold white on red"),
    "crash": ("CRASH!  Bets go back to the Bank", "bold red"),
    "game_over": ("GAME OVER", "bold white on blue"),
}


# -- rendering -------------------------------------------------------------------------------------


def values(game: dict[str, Any]) -> list[int]:
    """The bill values in column order."""
    return list(game.get("values") or DEFAULT_VALUES)


def bills(counts: dict[str, int]) -> str:
    """``2x5 1x10`` for the non-zero counts of a bill map, ``-`` when empty."""
    held = [f"{n}x{v}" for v, n in counts.items() if n]
    return " ".join(held) or "-"


def dice_text(dice: list[Any] | None) -> Text:
    """``Dice  A [ 5 ]  B [ R ]`` or a note that nobody has rolled."""
    text = Text("Dice  ", style="bold")
    if not dice:
        return text.append("not rolled yet", style="dim")
    for label, face in zip("AB", dice, strict=False):
        text.append(f"{label} ").append(f"[ {face} ]", style="bold reverse").append("  ")
    if dice[0] == dice[1]:
        text.append("identical!", style="bold red")
    return text


def turn_text(view: dict[str, Any], now: float) -> Text:
    """Round, phase and who the table waits for (with their clocks)."""
    game = view["game"]
    text = Text(f"Round {game['round']}", style="bold")
    if game.get("final_round"):
        text.append(" (final round)", style="yellow")
    if game["phase"] == "over":
        return text.append(" · game over")
    waiting = []
    for seat in game.get("awaiting") or []:
        left = clock_text(remaining(view, seat, now))
        waiting.append(seat_name(view, seat) + (f" {left}" if left else ""))
    verb = "rolls" if game["phase"] == "rolling" else "to decide"
    return text.append(f" · {verb}: " + (", ".join(waiting) or "nobody"))


def bank_table(view: dict[str, Any]) -> Table:
    """Bill columns 1-5 with the Bank's piles; legal takes are marked."""
    game = view["game"]
    legal = [c.get("value") for c in (view.get("you") or {}).get("legal") or []]
    table = Table(title=None, show_edge=False, pad_edge=False, box=None, padding=(0, 2))
    table.add_column("")
    row = [Text("Bank", style="bold")]
    for i, value in enumerate(values(game), start=1):
        table.add_column(f"[{i}] {value:>3}", justify="right")
        count = game["bank"].get(str(value), 0)
        cell = Text(str(count), style="bold green" if value in legal else "")
        if value in (game.get("exhausted") or []):
            cell.append(" ran out" if count == 0 else " refilled", style="dim")
        row.append(cell)
    table.add_row(*row)
    return table


def tokens_text(game: dict[str, Any]) -> Text:
    """Face-up Start tokens and how many stay face down."""
    up = ", ".join(str(t) for t in game.get("face_up_tokens") or []) or "none"
    return Text(
        f"Start tokens  face up: {up} · face down: {game.get('face_down_tokens', 0)}",
        style="bold",
    )


def seat_state(game: dict[str, Any], seat: dict[str, Any]) -> str:
    """``rolls``, ``deciding``, ``decided``, ``in play`` or ``secured``."""
    number = seat["seat"]
    state = "in play" if seat["in_play"] else "secured"
    if seat["in_play"] and seat["decided"]:
        state = "decided"
    elif number in (game.get("awaiting") or []):
        state = "rolls" if game["phase"] == "rolling" else "deciding"
    if game["phase"] == "rolling" and number == game.get("first_player") and state == "secured":
        state = "secured · rolls"
    return state


def connected(presence: dict[str, Any] | None, seat: int) -> str:
    """``●`` connected, ``○`` away, blank when presence is unknown."""
    seats = (presence or {}).get("seats") or []
    if seat >= len(seats):
        return ""
    return "●" if seats[seat].get("connected") else "○"


def seats_table(view: dict[str, Any], presence: dict[str, Any] | None, now: float) -> Table:
    """Every seat's Bet, Wallet, Start tokens, state and clock."""
    game = view["game"]
    table = Table(show_edge=False, box=None, padding=(0, 1), header_style="bold")
    for name in ("", "Player", "Bet", "Wallet", "Tokens", "State", "Clock"):
        table.add_column(name)
    you = (view.get("you") or {}).get("seat")
    for seat in game["seats"]:
        number = seat["seat"]
        table.add_row(
            connected(presence, number),
            seat_name(view, number),
            f"{seat['bet_total']:>3} {bills(seat['bet'])}",
            f"{seat['wallet_total']:>3} {bills(seat['wallet'])}",
            " ".join(str(t) for t in seat["start_tokens"]) or "-",
            seat_state(game, seat),
            clock_text(remaining(view, number, now)),
            style="cyan" if number == you else None,
        )
    return table


def bonus_text(bonuses: list[dict[str, Any]]) -> str:
    """``-5 1st +100, 0 2nd +50``."""
    places = {1: "1st", 2: "2nd", 3: "3rd"}
    return ", ".join(
        f"{b['value']} {places.get(b['place'], str(b['place']))} +{b['amount']}" for b in bonuses
    )


def result_table(view: dict[str, Any]) -> Table:
    """The final scoring: Wallet bills, Start tokens, bonuses, totals, winners."""
    result = view["game"]["result"]
    table = Table(title="Final scoring", header_style="bold", title_style="bold")
    for name in ("Player", "Bills", "Tokens", "Bonuses", "Total", ""):
        table.add_column(name)
    for seat in result["seats"]:
        number = seat["seat"]
        table.add_row(
            seat_name(view, number),
            str(seat["bills_total"]),
            " ".join(str(t) for t in seat["start_tokens"]) or "-",
            f"{seat['bonus_total']} ({bonus_text(seat['bonuses'])})" if seat["bonuses"] else "0",
            Text(str(seat["total"]), style="bold"),
            Text("★ winner", style="bold yellow") if number in result["winners"] else "",
        )
    return table


def render(view: dict[str, Any], presence: dict[str, Any] | None, now: float) -> RenderableType:
    """The Rollie table."""
    game = view["game"]
    parts: list[RenderableType] = [
        turn_text(view, now),
        dice_text(game.get("dice")),
        bank_table(view),
        tokens_text(game),
        seats_table(view, presence, now),
    ]
    if game.get("result"):
        parts.append(result_table(view))
    return Panel(Group(*parts), title="Rollie", title_align="left")


def brief(view: dict[str, Any]) -> str:
    """One line for line mode: round, phase, dice and the Bank."""
    game = view["game"]
    dice = " ".join(str(f) for f in game.get("dice") or []) or "-"
    bank = " ".join(f"{v}:{n}" for v, n in game["bank"].items())
    waits = ", ".join(str(s) for s in game.get("awaiting") or []) or "-"
    return f"round {game['round']} · {game['phase']} (seats {waits}) · dice {dice} · bank {bank}"


def banner(events: tuple[str, ...]) -> RenderableType | None:
    """A loud line for a Rollie, a crash or the end of the game."""
    lines = [BANNERS[name] for name in ("rollie", "crash", "game_over") if name in events]
    if not lines:
        return None
    return Group(*(Panel(Text(msg, justify="center"), style=style) for msg, style in lines))


# -- input -----------------------------------------------------------------------------------------


def take(view: dict[str, Any] | None, value: int) -> Action:
    """Take a bill of ``value`` if that is legal."""
    return pick({"type": "take", "value": value}, view, f"you cannot take {value} now")


def on_key(key: str, view: dict[str, Any] | None) -> Action:
    """The action of one keystroke."""
    game = (view or {}).get("game") or {}
    key = key.lower()
    if key == "r":
        return pick({"type": "roll"}, view, "you cannot roll now")
    if key == "s":
        return pick({"type": "secure"}, view, "you cannot secure now")
    if key in "12345" and len(key) == 1:
        return take(view, values(game)[int(key) - 1])
    if key in ("a", "b"):
        dice = game.get("dice")
        if not dice:
            return Hint("no dice on the table yet")
        face = dice[0 if key == "a" else 1]
        if not isinstance(face, int):
            return Hint(f"die {key.upper()} shows {face}: pick a column with 1-5")
        return take(view, face)
    return Hint(f"no action on key {key!r}; press ? for the keys")


def on_line(words: list[str], view: dict[str, Any] | None) -> Action:
    """The action of a typed line, split into lowercase words."""
    if words[0] == "roll" and len(words) == 1:
        return pick({"type": "roll"}, view, "you cannot roll now")
    if words[0] == "secure" and len(words) == 1:
        return pick({"type": "secure"}, view, "you cannot secure now")
    if words[0] == "take":
        try:
            (value,) = (int(w.replace("\u2212", "-")) for w in words[1:])
        except ValueError:
            return Hint("say which value: take -5, take 0, take 2, take 5 or take 10")
        return take(view, value)
    if len(words) == 1 and len(words[0]) == 1:
        return on_key(words[0], view)
    return Hint(f"unknown command {' '.join(words)!r}: try roll, take 5, secure, quit")
