"""A load-generator process of ``rollhouse bench``, driven over stdin/stdout.

``python -m clients.bench.worker --target game|bare --url http://127.0.0.1:P ...``

The orchestrator (:mod:`clients.bench.cli`) steps it through phases, so that it can
read the server's memory and CPU at the right moments. Each line on stdout is one
JSON object; each line on stdin is one word:

1. the worker creates its first rooms (game target) and prints ``{"phase": "rooms"}``;
2. on ``connect`` it connects 7 clients per room and prints ``{"phase": "connected"}``;
3. on ``go`` it plays (``--seconds`` or until ``--games`` are done), prints
   ``{"phase": "done"}`` the moment the measurement window closes, tears down and
   prints ``{"phase": "result", ...}`` with its :class:`~clients.bench.record.Totals`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any

from clients.bench.game import PLAYERS, GameSlots, Table, TimedClient, open_room, seat_tables
from clients.bench.record import Recorder, Totals, Window

TEARDOWN_SECONDS = 5.0
"""How long the cancelled rooms may take to settle their figures."""


def emit(message: dict[str, Any]) -> None:
    print(json.dumps(message), flush=True)


async def expect(word: str) -> None:
    """Wait for the orchestrator's next line; it must be ``word``."""
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if line.strip() != word:
        raise SystemExit(f"bench worker: expected {word!r}, got {line.strip()!r}")


class BareLoad:
    """The same traffic shape against the bare server: 6 players and 1 spectator a room."""

    def __init__(
        self, base_url: str, encoding: str, totals: Totals, name: str, rate: float | None
    ) -> None:
        self.ws_url = base_url.replace("http://", "ws://", 1) + "/"
        self.encoding = encoding
        self.totals = totals
        self.name = name
        self.rate = rate

    async def prepare(self, recorders: list[Recorder]) -> list[Table]:
        rooms = [f"{self.name}-{i}" for i in range(len(recorders))]
        return await seat_tables(
            self.ws_url, rooms, recorders, self.totals, self.encoding, self.rate
        )

    async def run_slot(self, table: Table, _: Any) -> None:
        """Until cancelled at the window's end; then settle and leave the sockets to the exit."""
        try:
            await asyncio.gather(*(self._player(c) for c in table.players))
        finally:
            table.recorder.settle(self.totals)
            if table.pacer is not None:
                self.totals.late += table.pacer.late

    @staticmethod
    async def _player(client: TimedClient) -> None:
        """One command awaited at a time, then wait for the own mirror to reach it."""
        while True:
            seq = await client.send({"type": "take", "value": 5})
            await client.wait_seq(seq, timeout=60)


async def run(args: argparse.Namespace) -> None:
    totals, window = Totals(), Window()
    rooms = args.rooms if args.games is None else min(args.rooms, args.games)
    viewers = PLAYERS[args.game] + 1
    per_room = args.rate / rooms if args.rate else None
    recorders = [Recorder(viewers, window) for _ in range(rooms)]
    if args.target == "game":
        games_left = None if args.games is None else args.games - rooms
        load: Any = GameSlots(args.url, args.encoding, totals, games_left, args.game, per_room)
        room_ids = [await open_room(load.http, args.game) for _ in range(rooms)]
        emit({"phase": "rooms"})
        await expect("connect")
        tables = await load.prepare(room_ids, recorders)
    else:
        load = BareLoad(args.url, args.encoding, totals, args.name, per_room)
        emit({"phase": "rooms"})
        await expect("connect")
        tables = await load.prepare(recorders)
    emit({"phase": "connected", "connections": rooms * viewers})
    await expect("go")
    elapsed = await play(tables, load.run_slot, lambda: Recorder(viewers, window), window, args)
    for table in tables:  # a slot whose cancellation was swallowed never settled its room
        table.recorder.settle(totals)
    emit({"phase": "result", **totals.as_data(elapsed, rooms * viewers)})
    os._exit(0)  # the sockets close with the process: no goodbyes to wait for


async def play(
    tables: list[Table],
    slot: Callable[[Table, Any], Coroutine[Any, Any, None]],
    new_recorder: Callable[[], Recorder],
    window: Window,
    args: argparse.Namespace,
) -> float:
    """Run every slot through the window; returns the window's length in seconds."""
    window.start = time.perf_counter()
    if args.seconds is not None:
        window.end = window.start + args.seconds
    tasks: list[asyncio.Task[None]] = [asyncio.create_task(slot(t, new_recorder)) for t in tables]
    await asyncio.wait(tasks, timeout=args.seconds)
    elapsed = min(time.perf_counter(), window.end) - window.start
    emit({"phase": "done"})
    for task in tasks:
        task.cancel()
    await asyncio.wait(tasks, timeout=TEARDOWN_SECONDS)
    return elapsed


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", choices=["game", "bare"], required=True)
    parser.add_argument("--url", required=True, help="http://127.0.0.1:PORT")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--games", type=int)
    parser.add_argument("--encoding", choices=["msgpack", "json"], default="msgpack")
    parser.add_argument("--name", default="bare", help="room name prefix (bare target)")
    parser.add_argument("--game", choices=sorted(PLAYERS), default="rollie")
    parser.add_argument("--rate", type=float, help="commands per second over all rooms, paced")
    args = parser.parse_args(argv)
    if (args.seconds is None) == (args.games is None) and args.target == "game":
        parser.error("give --seconds or --games")
    if args.target == "bare" and args.seconds is None:
        parser.error("the bare target runs for --seconds")
    return args


def main() -> None:
    args = parse()
    if importlib.util.find_spec("uvloop") is not None:
        import uvloop

        uvloop.run(run(args))
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
