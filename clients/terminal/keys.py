"""Input for the terminal client: keys and lines become actions; the terminal's modes.

:func:`action_for_key` and :func:`action_for_line` are pure: (input, view) -> one of
:class:`Send` (a legal command), :class:`Hint` (why nothing is sent), :class:`Quit`
or :class:`Help`. ``q`` and ``?`` are common to every game; the rest goes to the
game's terminal module (:data:`clients.terminal.render.GAME_MODULES`). Only commands
listed in ``view["you"]["legal"]`` are ever sent (:func:`pick`).

:func:`cbreak` puts a TTY in cbreak mode (single keystrokes, no echo) and restores it
on exit, Ctrl-C included; :func:`stdin_lines` reads line commands from a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios
import threading
import tty
from collections.abc import AsyncIterator, Iterator
from typing import Any, TextIO

import attrs

from clients.terminal.render import game_module, game_name


@attrs.frozen
class Send:
    """Send ``command`` (one of the legal commands)."""

    command: dict[str, Any]


@attrs.frozen
class Hint:
    """Nothing to send; tell the player ``text``."""

    text: str


@attrs.frozen
class Quit:
    """Leave the table."""


@attrs.frozen
class Help:
    """Show or hide the keys."""


Action = Send | Hint | Quit | Help


def describe(command: dict[str, Any]) -> str:
    """``take 5`` for ``{"type": "take", "value": 5}``."""
    rest = [str(v) for k, v in command.items() if k != "type"]
    return " ".join([str(command.get("type", "?")), *rest])


def legal_commands(view: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The commands the viewer may send now (none for spectators)."""
    you = (view or {}).get("you") or {}
    return list(you.get("legal") or [])


def pick(command: dict[str, Any], view: dict[str, Any] | None, refusal: str) -> Action:
    """``Send(command)`` if it is legal now, else a hint saying why not."""
    legal = legal_commands(view)
    if command in legal:
        return Send(command)
    if view is None:
        return Hint("not connected to the table yet")
    if view.get("you") is None:
        return Hint("you are watching: spectators cannot act")
    if view.get("room", {}).get("status") == "finished":
        return Hint("the game is over")
    if view.get("room", {}).get("status") == "waiting":
        return Hint("the game starts when every seat is taken")
    if not legal:
        return Hint(f"{refusal}: it is not your turn")
    return Hint(f"{refusal}; you can: " + ", ".join(describe(c) for c in legal))


def action_for_key(key: str, view: dict[str, Any] | None) -> Action:
    """What a single keystroke asks for."""
    if key in ("q", "Q"):
        return Quit()
    if key == "?":
        return Help()
    module = game_module(game_name(view))
    if module is None:
        return Hint("this game has no keys in the terminal yet; press q to quit")
    result: Action = module.on_key(key, view)
    return result


def action_for_line(line: str, view: dict[str, Any] | None) -> Action:
    """What a typed line (``roll``, ``take 5``, ``secure``, ``quit``) asks for."""
    words = line.strip().lower().split()
    if not words:
        return Hint("empty line")
    if words[0] in ("quit", "exit", "q"):
        return Quit()
    if words[0] in ("help", "?"):
        return Help()
    module = game_module(game_name(view))
    if module is None:
        return Hint("this game takes no typed commands in the terminal yet")
    result: Action = module.on_line(words, view)
    return result


# -- terminal modes and input sources ------------------------------------------------------------


@contextlib.contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """Single keystrokes without Enter or echo; the old mode comes back on any exit."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def key_reader(fd: int, queue: asyncio.Queue[str], wake: asyncio.Event) -> None:
    """Register ``fd`` with the loop: each readable chunk's characters go to ``queue``."""

    def readable() -> None:
        try:
            chunk = os.read(fd, 64).decode(errors="ignore")
        except OSError:
            chunk = ""
        if not chunk:  # end of input: behave as if q was pressed
            chunk = "q"
            asyncio.get_running_loop().remove_reader(fd)
        for char in chunk:
            queue.put_nowait(char)
        wake.set()

    asyncio.get_running_loop().add_reader(fd, readable)


async def stdin_lines(stream: TextIO | None = None) -> AsyncIterator[str]:
    """Lines of ``stream`` (stdin) without blocking the loop; ends at end of input.

    A daemon thread reads, so a pipe that never closes cannot hold up the exit.
    """
    source = stream or sys.stdin
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        with contextlib.suppress(RuntimeError, ValueError, OSError):  # loop closed, or stdin
            for line in source:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="stdin-lines", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line


async def lines_of(items: list[str]) -> AsyncIterator[str]:
    """An input source from a list (tests and scripts)."""
    for item in items:
        yield item
