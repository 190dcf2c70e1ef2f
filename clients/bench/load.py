"""Room loading under traffic (not a test): how long a long room takes to load, and how
long the other rooms wait meanwhile.

    python -m clients.bench.load [--stores sqlite,redis] [--seats 6] [--every 500]

Per store, twice (snapshots every ``--every`` events, then none):

1. a server process plays a Roll Builder room of ``--seats`` hosted bots to the end
   (the longest room the games make: about 900 records with 6 seats), then stops;
2. a fresh server on the same store (the room is not in its memory); a spectator of
   another room pings it every 2 ms over its websocket (``ping``/``pong``; the
   servers run with the message rate limit lifted);
3. after 0.5 s a second client says hello to the long room, which makes the server
   load it; the client times hello -> welcome; pings go on for 0.5 s more.

Printed per run: the records in the room, the load as the client saw it, the
server's own ``rollhouse_room_load_seconds``, and the ping round trip before the load
(p50/p99) and the worst one while it loaded (the stall other rooms felt). The
machine's load average is printed beside them. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from clients.bench.proc import start_server, stop_process, store_url
from clients.bench.report import percentile

JSON = "rollhouse.v1.json"


async def play_long_room(url: str, seats: int) -> tuple[str, int]:
    """A Roll Builder room of hosted bots played to the end; (room id, last seq)."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        body = {"game": "roll-builder", "seats": seats, "room": {"bots": seats, "bot_delay": 0}}
        room = (await http.post("/api/rooms", json=body)).json()["room"]
        for _ in range(1200):  # bounded: 10 minutes at most
            info = (await http.get(f"/api/rooms/{room}")).json()
            if info["status"] == "finished":
                return room, int(info["seq"])
            await asyncio.sleep(0.5)
    raise RuntimeError("the long room did not finish")


async def _hello(ws: Any, room: str) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "hello", "room": room, "role": "spectator"}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "welcome":
            return message  # type: ignore[no-any-return]


async def measure_load(base: str, room: str) -> dict[str, Any]:
    """Ping another room while ``room`` loads; the figures of one run."""
    ws_url = base.replace("http://", "ws://") + "/ws"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        other = (await http.post("/api/rooms", json={"game": "rollie", "seats": 2})).json()
    rtts: list[tuple[float, float]] = []  # (sent at, round trip)
    loaded: dict[str, float] = {}
    async with websockets.connect(ws_url, subprotocols=[JSON]) as pinger:  # type: ignore[list-item]
        await _hello(pinger, other["room"])

        async def ping_loop(until: float) -> None:
            nonce = 0
            while time.perf_counter() < until:
                nonce += 1
                sent = time.perf_counter()
                await pinger.send(json.dumps({"type": "ping", "nonce": nonce}))
                while True:  # a pong that never comes ends the run (bounded)
                    reply = json.loads(await asyncio.wait_for(pinger.recv(), 10.0))
                    if reply.get("nonce") == nonce:
                        break
                rtts.append((sent, time.perf_counter() - sent))
                await asyncio.sleep(0.002)

        async def load() -> None:
            await asyncio.sleep(0.5)
            async with websockets.connect(ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
                loaded["start"] = time.perf_counter()
                await _hello(ws, room)
                loaded["end"] = time.perf_counter()

        start = time.perf_counter()
        await asyncio.gather(ping_loop(start + 1.5), load())
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            metrics = (await http.get("/metrics")).text
    before = [r * 1000 for t, r in rtts if t < loaded["start"]]
    during = [r * 1000 for t, r in rtts if loaded["start"] - 0.01 <= t <= loaded["end"]]
    server_load = _metric(metrics, "rollhouse_room_load_seconds_sum")
    return {
        "load_ms": round((loaded["end"] - loaded["start"]) * 1000, 1),
        "server_load_ms": None if server_load is None else round(server_load * 1000, 1),
        "ping_before_ms": {"p50": percentile(before, 50), "p99": percentile(before, 99)},
        "ping_worst_during_load_ms": None if not during else round(max(during), 2),
        "pings_during_load": len(during),
    }


def _metric(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


def run_store(store: str, seats: int, every: int, workdir: Path) -> dict[str, Any]:
    if store == "memory":
        raise SystemExit("a load needs a store that outlives the server: sqlite, redis")
    env = {"ROLLHOUSE_SNAPSHOT_EVERY": str(every), "ROLLHOUSE_RATE": "100000"}
    env_before = {name: os.environ.get(name) for name in env}
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(store_url(store, workdir, "load.db"))
        stack.callback(_restore, env_before)
        os.environ.update(env)  # the server processes inherit them
        port, proc = start_server(url, workdir)
        try:
            room, seq = asyncio.run(play_long_room(f"http://127.0.0.1:{port}", seats))
        finally:
            stop_process(proc)
        port, proc = start_server(url, workdir)
        try:
            figures = asyncio.run(measure_load(f"http://127.0.0.1:{port}", room))
        finally:
            stop_process(proc)
    return {"store": store, "snapshot_every": every, "records": seq, **figures}


def _restore(env: dict[str, str | None]) -> None:
    for name, value in env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stores", default="sqlite,redis")
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--every", type=int, default=500, help="snapshot every N events")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rollhouse-load-") as tmp:
        for store in [s.strip() for s in args.stores.split(",") if s.strip()]:
            for every in (args.every, 0):
                workdir = Path(tmp) / f"{store}-{every}"
                rows.append(run_store(store, args.seats, every, workdir))
    load = {"before": load_before, "after": os.getloadavg()}
    if args.json:
        print(json.dumps({"load_average": load, "runs": rows}))
        return
    print(f"room loads under traffic; load average {load['before']} before, {load['after']} after")
    print(f"{'store':<7} {'snapshots':>9} {'records':>7} {'load ms':>8} {'server ms':>9}"
          f" {'ping p50/p99 ms':>16} {'worst ping during load ms':>26}")  # fmt: skip
    for r in rows:
        ping = r["ping_before_ms"]
        print(
            f"{r['store']:<7} {r['snapshot_every'] or 'none':>9} {r['records']:>7}"
            f" {r['load_ms']!s:>8} {r['server_load_ms']!s:>9} {ping['p50']!s:>7} /"
            f" {ping['p99']!s:<6} {r['ping_worst_during_load_ms']!s:>26}"
        )


if __name__ == "__main__":
    main()
