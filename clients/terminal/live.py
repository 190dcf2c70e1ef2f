"""The interactive terminal table: rich ``Live`` redrawn ~4x/s, single keystrokes in.

The terminal is put in cbreak mode (no Enter, no echo) and restored on every exit,
Ctrl-C included. Keys are read with ``loop.add_reader``; each becomes an action
(:mod:`clients.terminal.keys`); commands are sent in the background so the table
keeps moving, and their outcome lands in the status line. Frames come from the pure
:func:`clients.terminal.render.render`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

from rich.console import Console, RenderableType
from rich.live import Live

from clients.sdk import Client, ClientError, CommandRejected
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


def connection_text(client: Client) -> str:
    """``connected``, ``reconnecting (n)`` or ``disconnected: why``."""
    if client.failure is not None:
        return f"disconnected: {client.failure.message}"
    if not client.connected:
        return f"reconnecting ({client.reconnects + 1})"
    return "connected" + (f" (reconnected {client.reconnects}x)" if client.reconnects else "")


class LiveTable:
    """What the interactive table remembers between frames."""

    def __init__(self, client: Client, room: str) -> None:
        self.client = client
        self.room = room
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
            task = asyncio.create_task(self.send(action.command))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return True

    async def send(self, command: dict[str, Any]) -> None:
        try:
            await self.client.send(command)
        except CommandRejected as exc:
            self.message = f"rejected: {exc.message} ({exc.code})"
        except ClientError as exc:
            self.message = f"not sent: {exc.message}"
        else:
            self.message = f"{describe(command)} ✓"


async def run_live(client: Client, room: str, console: Console | None = None) -> int:
    """Show the table until ``q`` (or the end of input); returns the exit code."""
    table = LiveTable(client, room)
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
                    if not table.handle(action_for_key(keys.get_nowait(), client.view)):
                        return 0
                now = client.server_now()
                table.note_events(now)
                live.update(table.frame(now), refresh=True)
        finally:
            loop.remove_reader(fd)
            client.on_change = None
