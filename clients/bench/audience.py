"""A big audience (not a test): one Rollie room, 6 players, N spectators, one node.

    python -m clients.bench.audience [--spectators 5000] [--commands 40] [--json]

Against our server (memory store, its own process) and then the bare ``websockets``
server (:mod:`clients.bench.bare`, its own process), from this process as the load
generator:

- ours: a Rollie room with no clock, ``--spectators`` spectators (raw msgpack
  websockets, cheap: each decodes every frame it gets, nothing more) and 6 players
  (SDK clients running the ``push`` bot). One command at a time: a player sends it,
  and the next goes once its ack has come and every spectator has decoded its patch.
  The time from the send to the last spectator's decode of the patch is the figure
  (p50/p99); deliveries are patches received by spectators and players;
- bare: the same number of spectators and 6 players in one room of the bare server;
  one player replays, as commands, the spectators' patch frames recorded from our run,
  which the bare server broadcasts unchanged (``websockets.broadcast``) to the room.

Printed for both: deliveries per server CPU second (the server's user + system CPU
from ``/proc`` over the commands' window), the ratio ours / bare, the patch
p50/p99 to the last spectator, and the machine's load average. Figures are
printed, never asserted. On a terminal a progress bar (stderr) shows what runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import struct
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import msgpack

from clients import progress
from clients.bench.proc import cpu_seconds, start_bare, start_server, stop_process
from clients.bench.report import percentile
from clients.bots.play import choose
from clients.sdk import Client, CommandRejected

SUBPROTOCOL = "rollhouse.v2.msgpack"
PLAYERS = 6
AT_ONCE = 200
"""Handshakes under way at once."""
WAIT = 60.0
"""Seconds any one step may take before the run fails."""


class Tally:
    """Patches decoded per ``to`` by the spectators; who was last, and when."""

    def __init__(self, spectators: int) -> None:
        self.spectators = spectators
        self.counts: dict[int, int] = {}
        self.last: dict[int, float] = {}
        self.waiting: dict[int, asyncio.Future[float]] = {}
        self.received = 0
        self.lost = 0
        self.frames: dict[int, bytes] = {}
        """One spectator's patch frame per ``to`` (what the bare server replays)."""

    def got(self, to: int, frame: bytes | None) -> None:
        self.received += 1
        count = self.counts[to] = self.counts.get(to, 0) + 1
        if frame is not None:
            self.frames[to] = frame
        if count == self.spectators:
            now = time.perf_counter()
            self.last[to] = now
            future = self.waiting.pop(to, None)
            if future is not None and not future.done():
                future.set_result(now)

    async def everyone(self, to: int) -> float:
        """When the last spectator decoded the patch to ``to``."""
        if to in self.last:
            return self.last[to]
        future = self.waiting.setdefault(to, asyncio.get_running_loop().create_future())
        try:
            return await asyncio.wait_for(future, WAIT)
        except TimeoutError:
            got = self.counts.get(to, 0)
            raise RuntimeError(
                f"{got} of {self.spectators} spectators got the patch to {to}"
                f" within {WAIT} s ({self.lost} connections lost)"
            ) from None


class Spectator(asyncio.Protocol):
    """A raw websocket client: handshake, a hello, then every server frame decoded (and
    pings answered)."""

    def __init__(self, path: str, room: str, tally: Tally, keeper: bool) -> None:
        self.path, self.room, self.tally, self.keeper = path, room, tally, keeper
        self.buffer = b""
        self.upgraded = False
        self.welcomed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        request = (f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n")  # fmt: skip
        transport.write(request.encode())  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data
        if not self.upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self.buffer = buffer
                return
            if not buffer.startswith(b"HTTP/1.1 101"):
                self.fail(buffer[:200].decode(errors="replace"))
                return
            self.upgraded, buffer = True, buffer[end + 4 :]
            hello = {"type": "hello", "room": self.room, "role": "spectator"}
            assert self.transport is not None
            self.transport.write(masked(msgpack.packb(hello)))
        at = 0
        while len(buffer) - at >= 2:
            opcode, size = buffer[at] & 0x0F, buffer[at + 1] & 0x7F
            head = 2
            if size == 126:
                if len(buffer) - at < 4:
                    break
                size, head = struct.unpack_from("!H", buffer, at + 2)[0], 4
            elif size == 127:
                if len(buffer) - at < 10:
                    break
                size, head = struct.unpack_from("!Q", buffer, at + 2)[0], 10
            if len(buffer) - at < head + size:
                break
            payload = buffer[at + head : at + head + size]
            at += head + size
            if opcode == 2:
                self.message(payload)
            elif opcode == 9:  # the server's keepalive ping: a silent socket is closed
                assert self.transport is not None
                self.transport.write(masked(payload, opcode=10))
            elif opcode == 8:
                self.fail(f"closed: {payload[2:].decode(errors='replace')}")
        self.buffer = buffer[at:]

    def message(self, payload: bytes) -> None:
        message = msgpack.unpackb(payload)
        kind = message.get("type")
        if kind == "patch":
            self.tally.got(message["to"], payload if self.keeper else None)
        elif kind == "welcome" and not self.welcomed.done():
            self.welcomed.set_result(None)

    def fail(self, why: str) -> None:
        if not self.welcomed.done():
            self.welcomed.set_exception(RuntimeError(why))

    def connection_lost(self, exc: Exception | None) -> None:
        self.tally.lost += 1
        self.fail(f"connection lost: {exc}")


def masked(payload: bytes, opcode: int = 2) -> bytes:
    """A client frame (masked with a zero key: the payload is unchanged)."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    return head + b"\0\0\0\0" + payload


async def open_spectators(
    port: int, path: str, room: str, count: int, tally: Tally
) -> list[Spectator]:
    loop, gate = asyncio.get_running_loop(), asyncio.Semaphore(AT_ONCE)
    spectators: list[Spectator] = []

    async def one(i: int) -> None:
        async with gate:
            _, spectator = await loop.create_connection(
                lambda: Spectator(path, room, tally, keeper=i == 0), "127.0.0.1", port
            )
            await asyncio.wait_for(spectator.welcomed, WAIT)
            spectators.append(spectator)

    await asyncio.gather(*(one(i) for i in range(count)))
    return spectators


def close_all(spectators: list[Spectator]) -> None:
    for spectator in spectators:
        if spectator.transport is not None:
            spectator.transport.abort()


def row(deliveries: int, cpu: float, wall: float, latencies: list[float]) -> dict[str, Any]:
    ms = [x * 1000 for x in latencies]
    return {
        "commands": len(latencies),
        "deliveries": deliveries,
        "server_cpu_seconds": round(cpu, 3),
        "wall_seconds": round(wall, 2),
        "deliveries_per_server_cpu_second": round(deliveries / cpu) if cpu > 0 else None,
        "patch_to_last_spectator_ms": {"p50": percentile(ms, 50), "p99": percentile(ms, 99)},
    }


async def run_ours(
    port: int, pid: int, spectators: int, commands: int
) -> tuple[dict[str, Any], list[bytes]]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        body = {"game": "rollie", "seats": PLAYERS, "options": {}, "room": {"clock": 0}}
        room = str((await http.post("/api/rooms", json=body)).json()["room"])
    tally = Tally(spectators)
    crowd = await open_spectators(port, "/ws", room, spectators, tally)
    players = []
    for i in range(PLAYERS):
        client = Client(f"ws://127.0.0.1:{port}/ws", room, name=f"p{i}", reconnect=False)
        players.append(await client.connect())
    await asyncio.sleep(1.0)  # the joins' presence frames go out
    for client in players:
        await client.wait_for(lambda v: v["room"]["status"] == "playing", WAIT)
    rng = random.Random(1)
    received_before = tally.received
    latencies: list[float] = []
    cpu_before, started = cpu_seconds(pid), time.perf_counter()
    for _ in range(commands):
        mover = next((c for c in players if ((c.view or {}).get("you") or {}).get("legal")), None)
        if mover is None or (mover.view or {})["room"]["status"] == "finished":
            break
        command = choose("rollie", "push", mover.view or {}, rng)
        if command is None:
            break
        sent = time.perf_counter()
        try:
            seq = await mover.send(command)
        except CommandRejected:
            continue
        latencies.append(await tally.everyone(seq) - sent)
        for client in players:
            await client.wait_seq(seq, WAIT)
    cpu, wall = cpu_seconds(pid) - cpu_before, time.perf_counter() - started
    deliveries = tally.received - received_before + len(latencies) * PLAYERS
    for client in players:
        await client.close()
    close_all(crowd)
    frames = [tally.frames[to] for to in sorted(tally.frames) if tally.last.get(to, 0) >= started]
    return row(deliveries, cpu, wall, latencies), frames


async def run_bare(port: int, pid: int, spectators: int, frames: list[bytes]) -> dict[str, Any]:
    tally = Tally(spectators + PLAYERS)
    crowd = await open_spectators(port, "/", "audience", spectators + PLAYERS, tally)
    driver = crowd[-1]
    assert driver.transport is not None
    await asyncio.sleep(0.5)
    received_before = tally.received
    latencies: list[float] = []
    cpu_before, started = cpu_seconds(pid), time.perf_counter()
    for i, frame in enumerate(frames):
        to = msgpack.unpackb(frame)["to"]
        command = {"type": "cmd", "id": str(i), "command": {"type": "replay"}, "frame": frame}
        sent = time.perf_counter()
        driver.transport.write(masked(msgpack.packb(command)))
        latencies.append(await tally.everyone(to) - sent)
    cpu, wall = cpu_seconds(pid) - cpu_before, time.perf_counter() - started
    close_all(crowd)
    return row(tally.received - received_before, cpu, wall, latencies)


def run(args: argparse.Namespace) -> dict[str, Any]:
    limits = {"ROLLHOUSE_CONNECTIONS_PER_ADDRESS": str(args.spectators + 100),
              "ROLLHOUSE_RATE": "100000", "ROLLHOUSE_OUTBOX_LIMIT": "100000"}  # fmt: skip
    os.environ.update(limits)
    load_before = os.getloadavg()
    rows: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="rollhouse-audience-") as tmp,
        progress.bar("audience", 2, progress.wanted(args.json)) as shown,
    ):
        shown.now(f"ours: {args.spectators} spectators, {args.commands} commands")
        port, proc = start_server("memory://", Path(tmp))
        try:
            rows["ours"], frames = asyncio.run(
                run_ours(port, proc.pid, args.spectators, args.commands)
            )
        finally:
            stop_process(proc)
        shown.advance()
        shown.now(f"bare: {args.spectators} spectators, the same {len(frames)} frames")
        port, proc = start_bare(Path(tmp))
        try:
            rows["bare"] = asyncio.run(run_bare(port, proc.pid, args.spectators, frames))
        finally:
            stop_process(proc)
        shown.advance()
    ours, bare = (rows[k]["deliveries_per_server_cpu_second"] for k in ("ours", "bare"))
    return {
        "spectators": args.spectators,
        "players": PLAYERS,
        "load_average": {"before": load_before, "after": os.getloadavg()},
        **rows,
        "ratio_per_server_cpu": round(ours / bare, 2) if ours and bare else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--spectators", type=int, default=5000)
    parser.add_argument("--commands", type=int, default=40,
                        help="commands measured (fewer if the game ends first)")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    summary = run(args)
    if args.json:
        print(json.dumps(summary))
        return
    print(f"one Rollie room, {PLAYERS} players and {args.spectators} spectators; load average"
          f" {summary['load_average']['before']} -> {summary['load_average']['after']}")  # fmt: skip
    print(f"{'target':<6} {'commands':>8} {'deliveries':>10} {'server CPU s':>12}"
          f" {'deliveries/CPU s':>16} {'p50 ms':>8} {'p99 ms':>8}")  # fmt: skip
    for name in ("ours", "bare"):
        r = summary[name]
        ms = r["patch_to_last_spectator_ms"]
        print(f"{name:<6} {r['commands']:>8} {r['deliveries']:>10} {r['server_cpu_seconds']:>12}"
              f" {r['deliveries_per_server_cpu_second']!s:>16} {ms['p50']!s:>8} {ms['p99']!s:>8}")  # fmt: skip
    print(
        f"deliveries per server CPU second, ours / bare: {summary['ratio_per_server_cpu']}x"
        " (target >= 0.6x)"
    )


if __name__ == "__main__":
    main()
