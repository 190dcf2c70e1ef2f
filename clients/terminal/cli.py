"""``rollhouse play`` and ``rollhouse watch``: a room's table in the terminal.

    rollhouse play http://127.0.0.1:8000 --room ID [--name ann] [--token TOKEN]
    rollhouse play http://127.0.0.1:8000 --quick [--game rollie --seats 2]
    rollhouse play http://127.0.0.1:8000 --new [--private | --unlisted] [--bots 1]
    rollhouse play 'http://127.0.0.1:8000/table.html?room=ID&invite=CODE'
    rollhouse watch ws://127.0.0.1:8000/ws --room ID

The player's session (``rollhouse login`` or ``register``, :mod:`clients.terminal.account`;
kept in ``~/.rollhouse/sessions.json``) rides in every hello: a seat taken with it is
yours again from any terminal or browser. ``--quick`` and ``--new`` need a player: without
a session they make you a guest first (and keep its session). ``--private`` prints the
invite link to share; a link given instead of a URL brings its invite code. At the
table, ``/say`` chats and the host's ``/kick``, ``/lock``, ``/unlock``, ``/fill``,
``/host`` act (:mod:`clients.terminal.slash`).

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
import httpx
from websockets.exceptions import WebSocketException

from clients.sdk import (
    Account,
    Client,
    ClientError,
    CommandRejected,
    ConnectionLost,
    invite_link,
    parse_link,
    ws_url,
)
from clients.terminal import tokens
from clients.terminal.acting import run_slash
from clients.terminal.keys import Action, Help, Hint, Quit, Send, action_for_line, stdin_lines
from clients.terminal.render import (
    COMMON_HELP,
    Status,
    chat_lines,
    chat_text,
    game_module,
    render,
    to_text,
)
from clients.terminal.slash import HELP as SLASH_HELP
from clients.terminal.slash import is_slash

FOREVER = 365 * 24 * 3600.0
"""``wait_for`` needs a bound; a script may wait this long for its turn."""


@attrs.frozen
class Options:
    """Who joins which room (or how to find one: ``quick``, ``new``)."""

    url: str
    room: str = ""
    role: str = "player"
    name: str | None = None
    token: str | None = None
    tokens_path: Path | None = None
    invite: str | None = None
    """A private room's invite code (from a link)."""
    sessions_path: Path | None = None
    """Where the player's session is kept (``~/.rollhouse/sessions.json``)."""
    quick: bool = False
    """Quick match: a seat at any open public table of ``game`` with ``seats`` seats."""
    new: bool = False
    """Create a room you host, of ``visibility``."""
    visibility: str = "public"
    game: str = "rollie"
    seats: int = 2
    bots: int = 0
    """Hosted bots in a new room."""


def add_parser(subparsers: Any) -> None:
    """Register ``play`` and ``watch``."""
    for command, role, what in (
        ("play", "player", "take a seat at a room and play from the terminal"),
        ("watch", "spectator", "watch a room live from the terminal"),
    ):
        parser = subparsers.add_parser(command, help=what, description=what)
        parser.add_argument(
            "url", help="server (http://host:port or ws://host:port/ws), or a table's invite link"
        )
        parser.add_argument("--room", default="", help="room id (or give a link)")
        if role == "player":
            parser.add_argument("--name", help="your name at the table")
            parser.add_argument("--token", help="seat token from an earlier join (resume)")
            find = parser.add_mutually_exclusive_group()
            find.add_argument("--quick", action="store_true", help="quick match: any open table")
            find.add_argument("--new", action="store_true", help="create a room you host")
            seen = parser.add_mutually_exclusive_group()
            seen.add_argument(
                "--private", action="store_true", help="a new room for invited players"
            )
            seen.add_argument("--unlisted", action="store_true", help="a new room not in the lobby")
            parser.add_argument("--game", default="rollie", help="game of --quick/--new")
            parser.add_argument("--seats", type=int, default=2, help="seats of --quick/--new")
            parser.add_argument("--bots", type=int, default=0, help="hosted bots in a new room")
        parser.set_defaults(func=run, role=role)


def options_from(args: argparse.Namespace) -> Options:
    """The parsed command line as :class:`Options` (a link brings its room and invite)."""
    url, room, invite = args.url, args.room, None
    if "room=" in url:
        link = parse_link(url)
        url, room, invite = link.url, room or link.room, link.invite
    private, unlisted = getattr(args, "private", False), getattr(args, "unlisted", False)
    visibility = "private" if private else "unlisted" if unlisted else "public"
    return Options(
        url, room, args.role, getattr(args, "name", None), getattr(args, "token", None),
        invite=invite, quick=getattr(args, "quick", False),
        new=getattr(args, "new", False) or private or unlisted, visibility=visibility,
        game=getattr(args, "game", "rollie"), seats=getattr(args, "seats", 2),
        bots=getattr(args, "bots", 0),
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    try:
        options = options_from(args)
    except ClientError as exc:
        print(exc.message)
        return 2
    if not (options.room or options.quick or options.new):
        print("which room? give --room ID, a table link, --quick or --new")
        return 2
    return start(options)


def start(options: Options) -> int:
    """Play or watch from this terminal (live on a TTY, else line mode)."""
    lines = None if sys.stdin.isatty() else stdin_lines()
    try:
        return asyncio.run(session(options, lines=lines, out=sys.stdout))
    except KeyboardInterrupt:
        return 130


async def session(options: Options, *, lines: AsyncIterator[str] | None, out: TextIO) -> int:
    """Join, then play or watch: live when ``lines`` is None, else from the lines."""
    account = Account(options.url, path=options.sessions_path)
    try:
        options = await find_room(options, account, out)
        try:
            client = await join(options, out, account.session)
        except ConnectionLost as exc:
            if exc.code != "player/unauthorized":
                raise
            account.forget()  # a session that ended: go on without it
            say(out, "your saved session has ended (rollhouse login to sign in again)")
            client = await join(options, out, None)
    except ClientError as exc:
        say(out, f"cannot join room {options.room or '(none yet)'}: {exc.message} ({exc.code})")
        return 1
    except (OSError, TimeoutError, WebSocketException, httpx.HTTPError) as exc:
        say(out, f"cannot reach {ws_url(options.url)}: {exc or type(exc).__name__}")
        return 1
    try:
        if lines is None:
            from clients.terminal.live import run_live

            return await run_live(client, options.room, account=account)
        return await run_lines(client, options, lines, out, account)
    except ConnectionLost as exc:
        say(out, f"connection lost: {exc.message} ({exc.code})")
        return 1
    finally:
        await client.close()


def say(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()


# -- joining ---------------------------------------------------------------------------------------


async def find_room(options: Options, account: Account, out: TextIO) -> Options:
    """``--quick``: a seat held at an open table; ``--new``: a room you host (its link
    printed); else the room as given. Both make you a guest first if need be."""
    if not (options.quick or options.new):
        return options
    player = await account.ensure_player(options.name)
    say(out, f"playing as {player['name']} ({player['id']})")
    if options.quick:
        matched = await account.match(options.game, options.seats)
        say(out, f"quick match: room {matched['room']}, seat {matched['seat']} held for you")
        return attrs.evolve(options, room=str(matched["room"]), quick=False)
    room = {"bots": options.bots} if options.bots else {}
    made = await account.create_room(
        options.game, options.seats, visibility=options.visibility, room=room
    )
    room_id = str(made["room"])
    say(out, f"created {options.visibility} room {room_id} ({made['game']}); you are its host")
    if made.get("invite") or options.visibility != "public":
        say(out, f"invite link: {invite_link(account.url, room_id, made.get('invite'))}")
    return attrs.evolve(options, room=room_id, new=False)


async def connect(options: Options, token: str | None, session: str | None = None) -> Client:
    client = Client(
        ws_url(options.url), options.room, role=options.role, name=options.name,
        seat_token=token, session_token=session, invite=options.invite,
    )  # fmt: skip
    try:
        await client.connect()
    except BaseException:
        await client.close()
        raise
    return client


async def join(options: Options, out: TextIO, session: str | None = None) -> Client:
    """Connect (with the player's session, when there is one), resuming the saved seat
    when there is one; print and save the token."""
    player = options.role == "player"
    stored = None
    if player and options.token is None:
        stored = tokens.load(options.url, options.room, options.tokens_path)
    try:
        client = await connect(options, options.token or stored, session)
    except ConnectionLost as exc:
        if stored is None or exc.code != "room/bad_seat_token":
            raise
        tokens.forget(options.url, options.room, options.tokens_path)
        stored = None
        client = await connect(options, None, session)
    if not player:
        say(out, f"watching room {options.room} ({client.game})")
        return client
    token = client.seat_token or ""
    if client.seat_token:
        tokens.save(options.url, options.room, token, options.tokens_path)
    how = "resumed" if (options.token or stored or not client.seat_token) else "joined"
    say(out, f"{how} room {options.room} ({client.game}) at seat {client.seat}")
    if client.player is not None:
        say(out, f"as player {client.player}: your session brings you back to this seat")
    if token:
        say(out, f"seat token: {token}")
        say(out, f"resume with: rollhouse play {options.url} --room {options.room} --token {token}")
    return client


# -- line mode -------------------------------------------------------------------------------------


class EventPrinter:
    """Prints each patch's event names (and the game's one-line brief) as it arrives, and
    each new chat line."""

    def __init__(self, client: Client, out: TextIO) -> None:
        self.client, self.out, self.seen = client, out, len(client.events)
        self.chat_seen = max((int(c["seq"]) for c in chat_lines(client.view)), default=0)

    def __call__(self, client: Client) -> None:
        for said in chat_lines(client.view):
            if int(said["seq"]) > self.chat_seen:
                self.chat_seen = int(said["seq"])
                say(self.out, "chat " + chat_text(said))
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
    client: Client,
    options: Options,
    lines: AsyncIterator[str],
    out: TextIO,
    account: Account | None = None,
) -> int:
    """Line mode: commands from ``lines``; prints events and, at exit, the table."""
    client.on_change = EventPrinter(client, out)
    try:
        if client.role == "spectator":
            await watch(client, lines, out, account)
        else:
            await play(client, lines, out, account)
    finally:
        client.on_change = None
    now = time.time()
    status = Status(room=options.room, role=client.role, connection="connected")
    out.write(to_text(render(client.view, client.presence, status, now)))
    out.flush()
    return 0


async def play(
    client: Client, lines: AsyncIterator[str], out: TextIO, account: Account | None = None
) -> None:
    """Each line waits for the seat's turn, then is sent if legal; a slash command (chat,
    the host's actions) is carried out at once."""
    async for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if is_slash(line):
            say(out, f"> {line}: {await run_slash(client, account, line)}")
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


async def watch(
    client: Client, lines: AsyncIterator[str], out: TextIO, account: Account | None = None
) -> None:
    """Until ``quit``, or the end of the game (end of input does not stop a spectator)."""

    async def read() -> None:
        async for raw in lines:
            if not raw.strip():
                continue
            if is_slash(raw):
                say(out, f"> {raw.strip()}: {await run_slash(client, account, raw)}")
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
    slash = [f"  {key:<16} {what}" for key, what in SLASH_HELP]
    return "\n".join([words, *(f"  {key:<6} {what}" for key, what in keys), *slash])
