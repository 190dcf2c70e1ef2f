"""``rollhouse bots``: N bots, each a real websocket client, play the free seats of a room.

    rollhouse bots http://127.0.0.1:8000 --room ID --count 2 [--policy push] [--delay 0.6]

Each bot is an SDK :class:`~clients.sdk.Client` joining the room's next free seat
(one after another, so seats fill in order), then plays it with the game's own pure
policy (:func:`clients.bots.play.play_seat`) until the game ends. A bot waits as long
as it takes for the room to fill and for slow humans to move. At the end each bot
prints one line: seat, name, policy, final score and whether it won.
Exit code 0 when every requested bot played to the end, 1 otherwise, 2 for bad
arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any, TextIO

from websockets.exceptions import WebSocketException

from clients.bots.play import play_seat
from clients.sdk import Client, ClientError, ws_url
from engine.core import get_game

DEFAULT_DELAY = 0.6
"""A human-like pause before each move (seconds, randomised 0.5x-1.5x)."""


def add_parser(subparsers: Any) -> None:
    """Register ``bots``."""
    parser = subparsers.add_parser(
        "bots", help="bots that join a room's free seats", description=__doc__
    )
    parser.add_argument("url", help="server: http://host:port or ws://host:port/ws")
    parser.add_argument("--room", required=True, help="room id")
    parser.add_argument("--count", type=int, default=1, help="how many bots (default 1)")
    parser.add_argument("--policy", default="", help="bot policy (default: the game's first)")
    parser.add_argument(
        "--delay", type=float, default=DEFAULT_DELAY, help="pause before each move, 0 for load"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for the bots' choices")
    parser.add_argument("--name", default="bot", help="name prefix (bot-1, bot-2, ...)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.count < 1 or args.delay < 0:
        print("--count must be at least 1 and --delay not negative", file=sys.stderr)
        return 2
    try:
        return asyncio.run(
            run_bots(
                args.url,
                args.room,
                args.count,
                policy=args.policy,
                delay=args.delay,
                seed=args.seed,
                prefix=args.name,
            )
        )
    except KeyboardInterrupt:
        return 130


async def run_bots(
    url: str,
    room: str,
    count: int,
    *,
    policy: str = "",
    delay: float = DEFAULT_DELAY,
    seed: int | None = None,
    prefix: str = "bot",
    out: TextIO | None = None,
) -> int:
    """Join up to ``count`` bots, play to the end, print a summary line each."""
    out = out or sys.stdout
    clients = await join_all(ws_url(url), room, count, prefix, out)
    try:
        if not clients:
            return 1
        policy_name = check_policy(clients[0].game or "", policy)
        if policy_name is None:
            print(f"unknown policy {policy!r} for {clients[0].game}", file=out)
            return 2
        seeds = [None if seed is None else seed + i for i in range(len(clients))]
        views = await asyncio.gather(
            *(play(c, policy_name, delay, s) for c, s in zip(clients, seeds, strict=True)),
            return_exceptions=True,
        )
        finished = 0
        for client, view in zip(clients, views, strict=True):
            if isinstance(view, BaseException):
                print(f"seat {client.seat} {client.name}: stopped: {view}", file=out)
            else:
                finished += 1
                print(summary(client, policy_name, view), file=out)
        return 0 if finished == count else 1
    finally:
        for client in clients:
            with contextlib.suppress(Exception):
                await client.close()


async def join_all(url: str, room: str, count: int, prefix: str, out: TextIO) -> list[Client]:
    """Seat the bots one by one; stops at the first that cannot join (e.g. room full)."""
    clients: list[Client] = []
    for i in range(1, count + 1):
        client = Client(url, room, name=f"{prefix}-{i}")
        try:
            await client.connect()
        except (ClientError, OSError, TimeoutError, WebSocketException) as exc:
            await client.close()
            why = f"{exc.message} ({exc.code})" if isinstance(exc, ClientError) else repr(exc)
            print(f"{prefix}-{i}: could not join room {room}: {why}", file=out)
            break
        clients.append(client)
    return clients


def check_policy(game: str, policy: str) -> str | None:
    """The policy's name (the game's first when ``policy`` is empty), or None if unknown."""
    policies = list(get_game(game).policies)
    if not policy:
        return policies[0]
    return policy if policy in policies else None


async def play(client: Client, policy: str, delay: float, seed: int | None) -> dict[str, Any]:
    """Play the seat to the end, however long the room waits for others (a slow human)."""
    return await play_seat(client, policy, delay, seed, patience=None)


def summary(client: Client, policy: str, view: dict[str, Any]) -> str:
    """``seat 0 bot-1 (push): 123 points, winner``."""
    line = f"seat {client.seat} {client.name} ({policy})"
    result = (view.get("game") or {}).get("result")
    if not isinstance(result, dict) or "scores" not in result or client.seat is None:
        return line + ": finished"
    line += f": {result['scores'][client.seat]} points"
    return line + (", winner" if client.seat in result.get("winners", []) else "")
