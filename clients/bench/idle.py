"""Many idle connections (not a test): memory per connection and server CPU per join.

    python -m clients.bench.idle [--connections 10000] [--rooms 100]

Against our server (memory store) and then the bare ``websockets`` server
(:mod:`clients.bench.bare`): open ``--connections`` websockets from one client process
(200 handshakes at a time), each saying ``hello`` as a spectator of one of ``--rooms``
rooms, and wait for every ``welcome``. Printed per target: the server's RSS growth per
connection (``VmRSS`` after minus before, over N), its CPU seconds per join, the time
to open them all, and the presence frames the clients received (every join used to be
told to everyone already there: N x N / rooms / 2; coalesced it is far fewer). For
our server also a spectator of one more room pinging it every 2 ms for 3 s, before
the connections open and once they are all open: its round trip p50/p99, what a
live room feels of the crowd (``--probe-seconds``). The machine's load average is printed beside them.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from clients.bench.proc import (
    cpu_seconds,
    rss_kib,
    start_bare,
    start_server,
    stop_process,
)
from clients.bench.report import percentile

JSON = "rollhouse.v1.json"
AT_ONCE = 200


async def open_all(ws_url: str, rooms: list[str], count: int) -> tuple[list[Any], float, int]:
    """``count`` spectators spread over ``rooms``, each welcomed; (sockets, seconds it
    took, presence frames received)."""
    gate = asyncio.Semaphore(AT_ONCE)
    sockets: list[Any] = []
    presences = [0]

    async def one(i: int) -> None:
        async with gate:
            ws = await websockets.connect(ws_url, subprotocols=[JSON], max_queue=None)  # type: ignore[list-item]
            await ws.send(json.dumps({"type": "hello", "room": rooms[i % len(rooms)],
                                      "role": "spectator"}))  # fmt: skip
            while json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] != "welcome":
                pass
            sockets.append(ws)

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(count)))
    opened = time.perf_counter() - started
    await asyncio.sleep(1.0)  # the last coalesced presences arrive

    async def drain(ws: Any) -> None:
        while True:
            try:
                message = await asyncio.wait_for(ws.recv(), 0.01)
            except (TimeoutError, websockets.ConnectionClosed):
                return
            presences[0] += json.loads(message)["type"] == "presence"

    await asyncio.gather(*(drain(ws) for ws in sockets))
    return sockets, opened, presences[0]


async def probe(ws: Any, seconds: float) -> dict[str, float | None]:
    """Ping round trips on ``ws`` (a spectator of a room of its own), one every 2 ms for
    ``seconds``: p50/p99 in ms (bounded: a pong that never comes ends the run)."""
    rtts, nonce = [], 0
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        nonce += 1
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "ping", "nonce": nonce}))
        while json.loads(await asyncio.wait_for(ws.recv(), 10.0)).get("nonce") != nonce:
            pass
        rtts.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(0.002)
    return {"p50": percentile(rtts, 50), "p99": percentile(rtts, 99)}


async def measure(
    base: str, ws_url: str, pid: int, count: int, rooms: int, ours: bool, probe_seconds: float
) -> dict[str, Any]:
    prober = None
    if ours:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            ids = [(await http.post("/api/rooms", json={"game": "rollie", "seats": 2})).json()["room"]
                   for _ in range(rooms + 1)]  # fmt: skip
        prober = await websockets.connect(ws_url, subprotocols=[JSON])  # type: ignore[list-item]
        await prober.send(json.dumps({"type": "hello", "room": ids.pop(), "role": "spectator"}))
        while json.loads(await asyncio.wait_for(prober.recv(), 60))["type"] != "welcome":
            pass
    else:
        ids = [f"idle-{i}" for i in range(rooms)]
    await asyncio.sleep(0.5)
    alone = await probe(prober, probe_seconds) if prober else None
    rss_before, cpu_before = rss_kib(pid), cpu_seconds(pid)
    sockets, opened, presences = await open_all(ws_url, ids, count)
    cpu = cpu_seconds(pid) - cpu_before
    rss_after = rss_kib(pid)
    crowded = await probe(prober, probe_seconds) if prober else None
    for ws in sockets:
        ws.transport.abort()
    if prober is not None:
        await prober.close()
    row: dict[str, Any] = {
        "connections": len(sockets),
        "kib_per_connection": round((rss_after - rss_before) / len(sockets), 1),
        "server_cpu_ms_per_join": round(cpu / len(sockets) * 1000, 3),
        "seconds_to_open_all": round(opened, 2),
        "presence_frames_received": presences,
    }
    if alone is not None and crowded is not None:
        row["ping_ms_without"], row["ping_ms_with"] = alone, crowded
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--probe-seconds", type=float, default=3.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    limits = {"ROLLHOUSE_CONNECTIONS_PER_ADDRESS": str(args.connections + 100),
              "ROLLHOUSE_CREATIONS_PER_MINUTE": "1000000", "ROLLHOUSE_RATE": "100000"}  # fmt: skip
    os.environ.update(limits)
    load_before = os.getloadavg()
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="rollhouse-idle-") as tmp:
        port, proc = start_server("memory://", Path(tmp))
        try:
            rows["memory"] = asyncio.run(measure(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws",
                                                 proc.pid, args.connections, args.rooms, True, args.probe_seconds))  # fmt: skip
        finally:
            stop_process(proc)
        port, proc = start_bare(Path(tmp))
        try:
            rows["bare"] = asyncio.run(measure("", f"ws://127.0.0.1:{port}/", proc.pid,
                                               args.connections, args.rooms, False, 0.0))  # fmt: skip
        finally:
            stop_process(proc)
    summary = {"load_average": {"before": load_before, "after": os.getloadavg()}, **rows}
    if args.json:
        print(json.dumps(summary))
        return
    print(f"{args.connections} idle spectators over {args.rooms} rooms; load average"
          f" {summary['load_average']}")  # fmt: skip
    print(f"{'target':<7} {'KiB/conn':>8} {'CPU ms/join':>11} {'open all s':>10} {'presences':>9}")
    for name, r in rows.items():
        print(f"{name:<7} {r['kib_per_connection']:>8} {r['server_cpu_ms_per_join']:>11}"
              f" {r['seconds_to_open_all']:>10} {r['presence_frames_received']:>9}")  # fmt: skip
    alone, crowded = rows["memory"]["ping_ms_without"], rows["memory"]["ping_ms_with"]
    print(f"a spectator's ping, p50/p99 ms: {alone['p50']} / {alone['p99']} alone,"
          f" {crowded['p50']} / {crowded['p99']} with the idle connections open")  # fmt: skip


if __name__ == "__main__":
    main()
