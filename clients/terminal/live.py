"""The interactive terminal table: rich ``Live`` redrawn ~4x/s, single keystrokes in.

The terminal is put in cbreak mode (no Enter, no echo) and restored on every exit,
Ctrl-C included. Keys are read with ``loop.add_reader``; each becomes an action
(:mod:`clients.terminal.keys`); commands are sent in the background so the table
keeps moving, and their outcome lands in the status line. Frames come from the pure
:func:`clients.terminal.render.render`.

``/`` starts a slash command (``/say hi``, ``/lock``, ``/kick 2``...:
:mod:`clients.terminal.slash`), typed on the status line: Enter sends it, Esc drops it,
Backspace takes a character back. ``t`` starts ``/say `` (talk).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

from rich.console import Console, RenderableType
from rich.live import Live

from clients.sdk import Account, Client, ClientError, CommandRejected
from clients.terminal.acting import run_slash
from clients.terminal.keys import (
    Action,
    Help,
    Hint,
    Quit,
    Send,
    action_for_key,
    cbreak,
    describe,
    key_reader,
)
from clients.terminal.render import Status, render

NOTABLE = frozenset({"rollie", "crash", "game_over"})
"""Event names worth a banner."""
BANNER_SECONDS = 4.0
FRAME_SECONDS = 0.25
TYPED_MAX = 500
"""Characters a typed slash command may hold (a chat line's cap)."""
ENTER, ESCAPE, BACKSPACE = frozenset("\r\n"), "\x1b", frozenset("\x7f\b")


def connection_text(client: Client) -> str:
    """``connected``, ``reconnecting (n)`` or ``disconnected: why``."""
    if client.failure is not None:
        return f"disconnected: {client.failure.message}"
    if not client.connected:
        return f"reconnecting ({client.reconnects + 1})"
    return "connected" + (f" (reconnected {client.reconnects}x)" if client.reconnects else "")


class LiveTable:
    """What the interactive table remembers between frames."""

    def __init__(self, client: Client, room: str, account: Account | None = None) -> None:
        self.client = client
        self.room = room
        self.account = account
        self.typing: str | None = None
        """The slash command being typed, or None."""
        self.message = "press ? for the keys"
        self.help = False
        self.banner: tuple[str, ...] = ()
        self.banner_until = 0.0
        self.seen = len(client.events)
        self.tasks: set[asyncio.Task[None]] = set()

    def note_events(self, now: float) -> None:
        """Raise a banner for notable events that arrived since the last frame."""
        fresh = self.client.events[self.seen :]
        self.seen = len(self.client.events)
        names = {name for _, batch in fresh for name in batch} & NOTABLE
        if names:
            self.banner, self.banner_until = tuple(sorted(names)), now + BANNER_SECONDS

    def status(self, now: float) -> Status:
        view = self.client.view or {}
        message = self.message
        if view.get("room", {}).get("status") == "finished" and not message:
            message = "game over · press q to leave"
        return Status(
            room=self.room,
            role=self.client.role,
            connection=connection_text(self.client),
            message=message,
            events=self.banner if now < self.banner_until else (),
            help=self.help,
            typing=self.typing,
        )

    def frame(self, now: float) -> RenderableType:
        return render(self.client.view, self.client.presence, self.status(now), now)

    def handle(self, action: Action) -> bool:
        """Carry out one action; False means quit."""
        if isinstance(action, Quit):
            return False
        if isinstance(action, Help):
            self.help = not self.help
        elif isinstance(action, Hint):
            self.message = action.text
        elif isinstance(action, Send):
            self.message = f"{describe(action.command)} …"
            self._start(self.send(action.command))
        return True

    def key(self, key: str) -> bool:
        """One keystroke: typed into the slash command, else the game's key; False: quit."""
        if self.typing is None and key not in ("/", "t"):
            return self.handle(action_for_key(key, self.client.view))
        if self.typing is None:
            self.typing = "/" if key == "/" else "/say "
        elif key in ENTER:
            line, self.typing = self.typing, None
            self.message = f"{line} …"
            self._start(self.slash(line))
        elif key == ESCAPE:
            self.typing = None
        elif key in BACKSPACE:
            self.typing = self.typing[:-1] or None
        elif key.isprintable() and len(self.typing) < TYPED_MAX:
            self.typing += key
        return True

    async def slash(self, line: str) -> None:
        self.message = (await run_slash(self.client, self.account, line)).replace("\n", " · ")

    def _start(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def send(self, command: dict[str, Any]) -> None:
        try:
            await self.client.send(command)
        except CommandRejected as exc:
            self.message = f"rejected: {exc.message} ({exc.code})"
        except ClientError as exc:
            self.message = f"not sent: {exc.message}"
        else:
            self.message = f"{describe(command)} ✓"


async def run_live(
    client: Client, room: str, console: Console | None = None, account: Account | None = None
) -> int:
    """Show the table until ``q`` (or the end of input); returns the exit code."""
    table = LiveTable(client, room, account)
    wake = asyncio.Event()
    keys: asyncio.Queue[str] = asyncio.Queue()
    client.on_change = lambda _: wake.set()
    fd = sys.stdin.fileno()
    loop = asyncio.get_running_loop()
    with (
        cbreak(fd),
        Live(table.frame(client.server_now()), console=console, auto_refresh=False) as live,
    ):
        key_reader(fd, keys, wake)
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), FRAME_SECONDS)
                wake.clear()
                while not keys.empty():
                    if not table.key(keys.get_nowait()):
                        return 0
                now = client.server_now()
                table.note_events(now)
                live.update(table.frame(now), refresh=True)
        finally:
            loop.remove_reader(fd)
            client.on_change = None
