"""``rollhouse play`` and ``rollhouse watch``: a room's table in the terminal.

    rollhouse play http://127.0.0.1:8000 --room ID [--name ann] [--token TOKEN]
    rollhouse watch ws://127.0.0.1:8000/ws --room ID

On a TTY the table is live (:mod:`clients.terminal.live`: single keystrokes, redrawn
~4x/s). When stdin is not a TTY the client reads line commands instead (``roll``,
``take 5``, ``secure``, ``quit``), so it can be scripted: each line waits for the
seat's turn (some legal command, or the end of the game), then sends the command if
it is legal or prints why not. Events print as they arrive; the table prints at
exit. End of input quits a player; a spectator then watches until the game ends.

The seat token is printed at join and saved in ``~/.rollhouse/tokens.json``
(:mod:`clients.terminal.tokens`); the next ``play`` of the same room reuses it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TextIO

import attrs
from websockets.exceptions import WebSocketException

from clients.sdk import Client, ClientError, CommandRejected, ConnectionLost, ws_url
from clients.terminal import tokens
from clients.terminal.keys import Action, Help, Hint, Quit, Send, action_for_line, stdin_lines
from clients.terminal.render import COMMON_HELP, Status, game_module, render, to_text

FOREVER = 365 * 24 * 3600.0
"""``wait_for`` needs a bound; a script may wait this long for its turn."""


@attrs.frozen
class Options:
    """Who joins which room."""

    url: str
    room: str
    role: str = "player"
    name: str | None = None
    token: str | None = None
    tokens_path: Path | None = None


def add_parser(subparsers: Any) -> None:
    """Register ``play`` and ``watch``."""
    for command, role, what in (
        ("play", "player", "take a seat at a room and play from the terminal"),
        ("watch", "spectator", "watch a room live from the terminal"),
    ):
        parser = subparsers.add_parser(command, help=what, description=what)
        parser.add_argument("url", help="server: http://host:port or ws://host:port/ws")
        parser.add_argument("--room", required=True, help="room id")
        if role == "player":
            parser.add_argument("--name", help="your name at the table")
            parser.add_argument("--token", help="seat token from an earlier join (resume)")
        parser.set_defaults(func=run, role=role)


def run(args: argparse.Namespace) -> int:
    options = Options(
        args.url, args.room, args.role, getattr(args, "name", None), getattr(args, "token", None)
    )
    lines = None if sys.stdin.isatty() else stdin_lines()
    try:
        return asyncio.run(session(options, lines=lines, out=sys.stdout))
    except KeyboardInterrupt:
        return 130


async def session(options: Options, *, lines: AsyncIterator[str] | None, out: TextIO) -> int:
    """Join, then play or watch: live when ``lines`` is None, else from the lines."""
    try:
        client = await join(options, out)
    except ClientError as exc:
        say(out, f"cannot join room {options.room}: {exc.message} ({exc.code})")
        return 1
    except (OSError, TimeoutError, WebSocketException) as exc:
        say(out, f"cannot reach {ws_url(options.url)}: {exc or type(exc).__name__}")
        return 1
    try:
        if lines is None:
            from clients.terminal.live import run_live

            return await run_live(client, options.room)
        return await run_lines(client, options, lines, out)
    except ConnectionLost as exc:
        say(out, f"connection lost: {exc.message} ({exc.code})")
        return 1
    finally:
        await client.close()


def say(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()


# -- joining ---------------------------------------------------------------------------------------


async def connect(options: Options, token: str | None) -> Client:
    client = Client(
        ws_url(options.url), options.room, role=options.role, name=options.name, seat_token=token
    )
    try:
        await client.connect()
    except BaseException:
        await client.close()
        raise
    return client


async def join(options: Options, out: TextIO) -> Client:
    """Connect, resuming the saved seat when there is one; print and save the token."""
    player = options.role == "player"
    stored = None
    if player and options.token is None:
        stored = tokens.load(options.url, options.room, options.tokens_path)
    try:
        client = await connect(options, options.token or stored)
    except ConnectionLost as exc:
        if stored is None or exc.code != "room/bad_seat_token":
            raise
        tokens.forget(options.url, options.room, options.tokens_path)
        stored = None
        client = await connect(options, None)
    if not player:
        say(out, f"watching room {options.room} ({client.game})")
        return client
    token = client.seat_token or ""
    tokens.save(options.url, options.room, token, options.tokens_path)
    how = "resumed" if (options.token or stored) else "joined"
    say(out, f"{how} room {options.room} ({client.game}) at seat {client.seat}")
    say(out, f"seat token: {token}")
    say(out, f"resume with: rollhouse play {options.url} --room {options.room} --token {token}")
    return client


# -- line mode -------------------------------------------------------------------------------------


class EventPrinter:
    """Prints each patch's event names (and the game's one-line brief) as it arrives."""

    def __init__(self, client: Client, out: TextIO) -> None:
        self.client, self.out, self.seen = client, out, len(client.events)

    def __call__(self, client: Client) -> None:
        fresh = client.events[self.seen :]
        self.seen = len(client.events)
        for seq, names in fresh:
            if names:
                line = f"seq {seq}: {', '.join(names)}"
                if "rollie" in names:
                    line += "  *** ROLLIE! ***"
                say(self.out, line)
        if fresh and client.view is not None:
            module = game_module(str(client.view["game"].get("game", "")))
            if module is not None and hasattr(module, "brief"):
                say(self.out, "  " + module.brief(client.view))


async def run_lines(
    client: Client, options: Options, lines: AsyncIterator[str], out: TextIO
) -> int:
    """Line mode: commands from ``lines``; prints events and, at exit, the table."""
    client.on_change = EventPrinter(client, out)
    try:
        if client.role == "spectator":
            await watch(client, lines, out)
        else:
            await play(client, lines, out)
    finally:
        client.on_change = None
    now = time.time()
    status = Status(room=options.room, role=client.role, connection="connected")
    out.write(to_text(render(client.view, client.presence, status, now)))
    out.flush()
    return 0


async def play(client: Client, lines: AsyncIterator[str], out: TextIO) -> None:
    """Each line waits for the seat's turn, then is sent if legal."""
    async for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        action = action_for_line(line, client.view)
        if isinstance(action, Quit):
            return
        if isinstance(action, Help):
            say(out, help_text(client))
            continue
        await client.wait_for(your_turn, timeout=FOREVER)
        await perform(client, line, action_for_line(line, client.view), out)


def your_turn(view: dict[str, Any]) -> bool:
    """The game is over, or the seat has something to do."""
    return view["room"]["status"] == "finished" or bool((view.get("you") or {}).get("legal"))


async def perform(client: Client, line: str, action: Action, out: TextIO) -> None:
    """Send a legal command and say how it went, or say the hint."""
    if isinstance(action, Hint):
        say(out, f"> {line}: {action.text}")
        return
    if not isinstance(action, Send):
        return
    try:
        seq = await client.send(action.command)
    except CommandRejected as exc:
        say(out, f"> {line}: rejected: {exc.message} ({exc.code})")
    else:
        say(out, f"> {line}: accepted (seq {seq})")


async def watch(client: Client, lines: AsyncIterator[str], out: TextIO) -> None:
    """Until ``quit``, or the end of the game (end of input does not stop a spectator)."""

    async def read() -> None:
        async for raw in lines:
            if not raw.strip():
                continue
            action = action_for_line(raw, client.view)
            if isinstance(action, Quit):
                return
            say(out, f"> {raw.strip()}: you are watching: spectators cannot act")
        await asyncio.Event().wait()  # end of input: keep watching

    reading = asyncio.create_task(read())
    ending = asyncio.create_task(
        client.wait_for(lambda v: v["room"]["status"] == "finished", timeout=FOREVER)
    )
    done, pending = await asyncio.wait({reading, ending}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in done:
        task.result()


def help_text(client: Client) -> str:
    """The typed commands and keys."""
    module = game_module(client.game or "")
    keys = [*(module.HELP if module is not None else []), *COMMON_HELP]
    words = "lines: roll · take VALUE · secure · quit · help"
    return "\n".join([words, *(f"  {key:<6} {what}" for key, what in keys)])
