"""``rollhouse login|register|whoami|logout|games``: who you are at a server, and your games.

    rollhouse register http://127.0.0.1:8000 --username ann [--name Ann]
    rollhouse login    http://127.0.0.1:8000 --username ann
    rollhouse whoami   http://127.0.0.1:8000
    rollhouse logout   http://127.0.0.1:8000 [--everywhere]
    rollhouse games    http://127.0.0.1:8000 [--resume N | --replay N]

The session is kept in ``~/.rollhouse/sessions.json`` (mode 0600, one per server;
:class:`clients.sdk.SavedSessions`) and used by ``rollhouse play``: a seat you took is
yours again from any terminal or browser where you are signed in. ``register`` first
makes you a guest when you are nobody yet, then gives that player a username and
password. Passwords are read from the terminal without echo (from stdin's first line
when it is not a terminal), never from the command line. ``games`` lists your rooms,
newest first; ``--resume N`` opens the N-th (or a room id) at your seat, ``--replay N``
replays a finished one from its export.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

import attrs
import httpx

from clients.sdk import Account, ClientError

Reader = Callable[[str], str]
"""Reads a password after a prompt."""


@attrs.frozen
class Resume:
    """``games --resume``: open this room at your seat (after the listing's event loop)."""

    room: str


def add_parser(subparsers: Any) -> None:
    """Register ``login``, ``register``, ``whoami``, ``logout`` and ``games``."""
    login = subparsers.add_parser("login", help="sign in with your username and password")
    login.add_argument("url", help="server: http://host:port")
    login.add_argument("--username", required=True)
    login.set_defaults(func=run, action="login")
    register = subparsers.add_parser(
        "register", help="a username and password for you (a guest first if need be)"
    )
    register.add_argument("url", help="server: http://host:port")
    register.add_argument("--username", required=True)
    register.add_argument("--name", help="your display name, for a new guest")
    register.set_defaults(func=run, action="register")
    whoami = subparsers.add_parser("whoami", help="who you are signed in as")
    whoami.add_argument("url", help="server: http://host:port")
    whoami.set_defaults(func=run, action="whoami")
    logout = subparsers.add_parser("logout", help="sign out (of this terminal, or everywhere)")
    logout.add_argument("url", help="server: http://host:port")
    logout.add_argument("--everywhere", action="store_true", help="end every session of yours")
    logout.set_defaults(func=run, action="logout")
    games = subparsers.add_parser("games", help="your games: list, resume or replay them")
    games.add_argument("url", help="server: http://host:port")
    pick = games.add_mutually_exclusive_group()
    pick.add_argument("--resume", metavar="N", help="open game N of the list (or a room id)")
    pick.add_argument("--replay", metavar="N", help="replay finished game N (or a room id)")
    games.add_argument("--limit", type=int, default=20, help="games listed (1-50)")
    games.set_defaults(func=run, action="games")


def run(args: argparse.Namespace) -> int:
    account = Account(args.url)
    try:
        done = asyncio.run(command(args, account, sys.stdout, read_password))
    except KeyboardInterrupt:
        return 130
    if isinstance(done, Resume):
        from clients.terminal.cli import Options, start

        return start(Options(account.url, done.room))
    return done


def read_password(prompt: str) -> str:
    """From the terminal without echo, else stdin's next line."""
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    return sys.stdin.readline().rstrip("\r\n")


async def command(
    args: argparse.Namespace, account: Account, out: TextIO, read: Reader
) -> int | Resume:
    """Carry out one account command; the exit code (1 for a refusal, with its code), or
    the room ``games --resume`` opens."""
    try:
        return await _command(args, account, out, read)
    except ClientError as exc:
        say(out, f"{exc.message} ({exc.code})")
        return 1
    except (OSError, httpx.HTTPError) as exc:
        say(out, f"cannot reach {account.url}: {exc or type(exc).__name__}")
        return 1


async def _command(
    args: argparse.Namespace, account: Account, out: TextIO, read: Reader
) -> int | Resume:
    match args.action:
        case "login":
            player = await account.login(args.username, read("password: "))
            say(out, f"signed in as {describe(player)}")
        case "register":
            await account.ensure_player(args.name)
            password = read("new password (10 characters or more): ")
            player = await account.register(args.username, password)
            say(out, f"registered {describe(player)}")
            say(
                out,
                f"sign in elsewhere with: rollhouse login {account.url} --username {player['username']}",
            )
        case "whoami":
            if not account.signed_in:
                say(out, "not signed in (rollhouse login, or play --quick as a guest)")
                return 1
            say(out, describe(await account.whoami()))
        case "logout":
            if not account.signed_in:
                say(out, "not signed in")
                return 0
            await (account.logout_everywhere() if args.everywhere else account.logout())
            say(out, "signed out everywhere" if args.everywhere else "signed out")
        case "games":
            return await games(args, account, out)
    return 0


def describe(player: dict[str, Any]) -> str:
    """``Ann (p-0123456789abcdef), username ann`` or ``..., a guest``."""
    who = f"{player.get('name')} ({player.get('id')})"
    username = player.get("username")
    return f"{who}, username {username}" if username else f"{who}, a guest"


# -- my games -----------------------------------------------------------------------------------


async def games(args: argparse.Namespace, account: Account, out: TextIO) -> int | Resume:
    """List your games; or resume or replay one of them."""
    listed = (await account.my_games(limit=max(1, min(50, args.limit))))["rooms"]
    if args.resume is None and args.replay is None:
        for line in listing(listed, account.player):
            say(out, line)
        return 0
    room = chosen(args.resume or args.replay, listed)
    if room is None:
        say(out, f"no game {args.resume or args.replay!r} in your list (rollhouse games)")
        return 1
    if args.replay is not None:
        from clients.replay.cli import replay

        replay([json.loads(line) for line in await account.export(room)])
        return 0
    return Resume(room)


def chosen(which: str, listed: list[dict[str, Any]]) -> str | None:
    """The room of list number ``which`` (1 = newest), or ``which`` as a listed room id."""
    if which.isdigit() and 1 <= int(which) <= len(listed):
        return str(listed[int(which) - 1]["room"])
    return which if any(g["room"] == which for g in listed) else None


def listing(listed: list[dict[str, Any]], player: dict[str, Any] | None) -> list[str]:
    """One line a game: number, room, game, status, seats, when you joined, the result."""
    if not listed:
        return ["no games yet: rollhouse play URL --quick"]
    me = (player or {}).get("id")
    lines = []
    for n, game in enumerate(listed, start=1):
        joined = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(game["joined_at"])))
        summary = game.get("summary")
        if summary is None:
            lines.append(f"{n:>3}. {game['room']:<12} (no longer open to you)  joined {joined}")
            continue
        seats = f"{summary.get('taken', '?')}/{summary.get('seats', '?')} seats"
        line = f"{n:>3}. {game['room']:<12} {summary.get('game', '?'):<12} "
        line += f"{summary.get('status', '?'):<9} {seats}  joined {joined}"
        if summary.get("host") == me and me is not None:
            line += "  (you host)"
        lines.append(line + result_text(summary.get("result")))
    return lines


def result_text(result: dict[str, Any] | None) -> str:
    """``  scores 12, 9 · winner seat 0`` for a finished game, else empty."""
    if not result:
        return ""
    scores = ", ".join(str(s) for s in result.get("scores") or [])
    winners = ", ".join(str(w) for w in result.get("winners") or [])
    plural = "s" if len(result.get("winners") or []) > 1 else ""
    return f"  scores {scores} · winner{plural} seat {winners}"


def say(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()
