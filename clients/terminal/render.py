"""Pure rendering of a room for the terminal: (view, presence, status, now) -> rich renderable.

Nothing here touches a terminal or the network, so every frame can be rendered to a
string in tests (``Console(record=True, width=100)`` then ``export_text``).

The frame is generic: a header (game, room, who you are, the clock), a banner for
notable events, the game's table, an optional help panel and a status line
(connection and the last message). The table itself comes from a per-game module
named in :data:`GAME_MODULES`; a game without one is shown as its pretty-printed
view. A game module provides:

* ``render(view, presence, now) -> RenderableType``: the table;
* ``banner(events) -> RenderableType | None``: what to shout for these events;
* ``on_key(key, view) -> Action`` and ``on_line(line, view) -> Action``
  (see :mod:`clients.terminal.keys`);
* ``HELP: list[tuple[str, str]]``: its keys and what they do.
"""

from __future__ import annotations

import importlib
import io
from types import ModuleType
from typing import Any

import attrs
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.pretty import Pretty
from rich.table import Table
from rich.text import Text

GAME_MODULES: dict[str, str] = {"rollie": "clients.terminal.rollie"}
"""Game name -> module rendering its table (Roll Player and Roll Builder come later)."""
GAME_MODULES["roll-player"] = "clients.terminal.roll_player"
GAME_MODULES["roll-builder"] = "clients.terminal.roll_builder"

COMMON_HELP: list[tuple[str, str]] = [
    ("/", "type a command: /say TEXT, /chat; the host's /kick, /lock, /unlock, /fill, /host"),
    ("t", "talk: starts /say"),
    ("?", "show or hide this help"),
    ("q", "quit"),
]


@attrs.frozen
class Status:
    """Everything the frame shows that is not in the view."""

    room: str = ""
    role: str = "player"
    connection: str = "connecting"
    """``connected``, ``reconnecting (n)`` or ``disconnected: <why>``."""
    message: str = ""
    """The last rejection, hint or confirmation, shown plainly."""
    events: tuple[str, ...] = ()
    """Public names of recent notable events (``rollie``, ``crash``, ``game_over``)."""
    help: bool = False
    typing: str | None = None
    """The slash command being typed (live mode), or None."""


def game_name(view: dict[str, Any] | None) -> str:
    """The game a view belongs to (``""`` when unknown)."""
    game = (view or {}).get("game")
    return str(game.get("game", "")) if isinstance(game, dict) else ""


def game_module(name: str) -> ModuleType | None:
    """The terminal module of game ``name``, or None to show the generic view."""
    module_name = GAME_MODULES.get(name)
    return importlib.import_module(module_name) if module_name else None


def seat_name(view: dict[str, Any], seat: int, mark_you: bool = True) -> str:
    """``Seat 1 (ann)``, with ``(you)`` for the viewer's own seat."""
    seats = view.get("room", {}).get("seats") or []
    name = seats[seat].get("name") if seat < len(seats) else None
    label = f"Seat {seat}" + (f" ({name})" if name else "")
    you = view.get("you") or {}
    return label + (" (you)" if mark_you and you.get("seat") == seat else "")


def remaining(view: dict[str, Any], seat: int, now: float) -> float | None:
    """Seconds left on ``seat``'s clock, or None when it does not run."""
    deadline = (view.get("room", {}).get("deadlines") or {}).get(str(seat))
    return None if deadline is None else max(0.0, float(deadline) - now)


def clock_text(seconds: float | None) -> str:
    """``12s`` (``m:ss`` from a minute up); empty without a clock."""
    if seconds is None:
        return ""
    whole = int(seconds + 0.999)
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else f"{whole}s"


def header(view: dict[str, Any] | None, status: Status, now: float) -> Text:
    """The title line: game, room, status, who you are and your clock."""
    text = Text("Rollhouse", style="bold magenta")
    name = game_name(view)
    if name:
        text.append(f" · {name}", style="bold")
    if status.room:
        text.append(f" · room {status.room}")
    if view is None:
        return text
    room = view.get("room", {})
    text.append(f" · {room.get('status', '?')}")
    you = view.get("you")
    if you is None:
        text.append(" · watching", style="cyan")
    else:
        text.append(f" · you: {seat_name(view, you['seat'], mark_you=False)}", style="cyan")
    if room.get("clock"):
        text.append(f" · clock {clock_text(float(room['clock']))}/move")
    if you is not None:
        mine = remaining(view, you["seat"], now)
        if mine is not None:
            text.append(f" · YOUR CLOCK {clock_text(mine)}", style="bold yellow")
    return text


def status_line(status: Status) -> Text:
    """Connection state, then the last message (or the slash command being typed)."""
    style = "green" if status.connection == "connected" else "bold yellow"
    text = Text(status.connection, style=style)
    if status.typing is not None:
        return text.append(" · ").append(status.typing + "_", style="bold")
    if status.message:
        text.append(" · " + status.message)
    return text


def chat_lines(view: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every chat line this viewer may read, by seq (both channels for a spectator)."""
    chat = (view or {}).get("chat") or {}
    lines = [
        {**line, "channel": channel}
        for channel in ("players", "spectators")
        for line in chat.get(channel) or []
    ]
    return sorted(lines, key=lambda line: int(line.get("seq") or 0))


def chat_text(line: dict[str, Any]) -> str:
    """``[12] ann: hello`` (``[12] (spectators) cy: ...`` in the spectators' channel), on
    one line of printable characters: a line break shows as `` / ``, anything a terminal
    would obey (an escape sequence) as U+FFFD, whatever the server let through."""
    who = line.get("name") or ("spectator" if line.get("seat") is None else f"seat {line['seat']}")
    channel = " (spectators)" if line.get("channel") == "spectators" else ""
    return f"[{line.get('seq')}]{channel} {printable(str(who))}: {printable(str(line.get('text', '')))}"


def printable(text: str) -> str:
    """``text`` on one line, with nothing a terminal would take as a control."""
    text = text.replace("\r\n", "\n").replace("\n", " / ")
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


CHAT_PANEL = 5
"""Chat lines the live table shows."""


def chat_panel(view: dict[str, Any]) -> Panel | None:
    """The latest chat lines, as plain text (never markup), or None before the first."""
    lines = chat_lines(view)[-CHAT_PANEL:]
    if not lines:
        return None
    return Panel(Text("\n".join(chat_text(line) for line in lines)), title="chat", expand=False)


def help_panel(module: ModuleType | None, role: str) -> Panel:
    """The keys of this game (none for spectators) and the common ones."""
    keys = [] if module is None or role != "player" else list(module.HELP)
    table = Table.grid(padding=(0, 2))
    for key, what in [*keys, *COMMON_HELP]:
        table.add_row(Text(key, style="bold"), what)
    return Panel(table, title="keys", expand=False)


def generic(view: dict[str, Any]) -> RenderableType:
    """A game without a terminal module: its view, pretty-printed."""
    return Pretty(view.get("game"), expand_all=False)


def render(
    view: dict[str, Any] | None,
    presence: dict[str, Any] | None,
    status: Status,
    now: float,
) -> RenderableType:
    """The whole frame for one moment."""
    module = game_module(game_name(view))
    parts: list[RenderableType] = [header(view, status, now)]
    if view is None:
        parts.append(Text("waiting for the table…"))
    elif module is None:
        parts.append(generic(view))
    else:
        shout = module.banner(status.events)
        if shout is not None:
            parts.append(shout)
        parts.append(module.render(view, presence, now))
    if view is not None:
        chat = chat_panel(view)
        if chat is not None:
            parts.append(chat)
    if status.help:
        parts.append(help_panel(module, status.role))
    parts.append(status_line(status))
    return Group(*parts)


def to_text(renderable: RenderableType, width: int = 100) -> str:
    """A renderable as plain text (for line mode and tests)."""
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()
