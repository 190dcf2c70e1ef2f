"""Coming back after a drop, with other rooms playing (not a test).

    python -m clients.bench.resume [--stores memory,sqlite,redis] [--rooms 20]
                                   [--resumes 300] [--rate N]

Per store: a server process, and the load generator of ``rollhouse bench``
(:mod:`clients.bench.worker`) playing ``--rooms`` Rollie rooms of 6 bots, flat out or
paced at ``--rate`` commands per second over all of them. Meanwhile one more client,
in this process, comes and goes ``--resumes`` times: it joins a playing room as a
spectator (msgpack), reads its patches for 20 ms, drops the socket, stays away
100 ms (the room moves on without it), opens a new socket and says ``hello`` with
its ``last_seq``. The figure is hello -> ``welcome`` as that client sees it: the
server answers a resume with a viewless welcome and the missed patches in one write,
or with a snapshot when sending the patches would cost more. The playing rooms are
taken in turn (the list is read again every 10 resumes: games end and the load
generator starts new ones).

Printed per store: resume p50/p99/max in ms, how many were answered with the missed
patches and how many with a snapshot, the patches missed per resume, and the
machine's load average. A player's resume is the same path plus its seat token's
check (one hash lookup). Figures are printed, never asserted.
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

from clients.bench.proc import start_server, stop_process, store_url
from clients.bench.report import percentile
from clients.bench.run import Plan, read_phase, start_workers, tell
from protocol.codec import MSGPACK, MSGPACK_SUBPROTOCOL

AWAY = 0.1
"""Seconds between the drop and the new hello."""


async def playing_rooms(base: str) -> list[str]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        page = (await http.get("/api/rooms", params={"limit": 500})).json()
    odd = [r for r in page["rooms"] if "status" not in r]
    if odd:  # seen once, in a bench-all run, never again: say what it was
        raise RuntimeError(f"GET /api/rooms listed {len(odd)} rooms without a status: {odd[:3]}")
    return [r["room"] for r in page["rooms"] if r["status"] == "playing"]


async def one_resume(ws_url: str, room: str) -> dict[str, Any] | None:
    """Join, follow, drop, come back: the figures of one resume (None: the room ended)."""
    seq = None
    async with websockets.connect(ws_url, subprotocols=[MSGPACK_SUBPROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(MSGPACK.encode_data({"type": "hello", "room": room, "role": "spectator"}))
        until = time.perf_counter() + 0.02
        while time.perf_counter() < until:
            try:
                frame = await asyncio.wait_for(ws.recv(), max(0.001, until - time.perf_counter()))
            except TimeoutError:
                break
            message = MSGPACK.decode_data(frame)
            if message["type"] == "welcome":
                if message["view"]["room"]["status"] != "playing":
                    return None  # the game ended since the room list was read
                seq = message["seq"]
            elif message["type"] == "patch":
                seq = message["to"]
    if seq is None:
        return None
    await asyncio.sleep(AWAY)
    async with websockets.connect(ws_url, subprotocols=[MSGPACK_SUBPROTOCOL]) as ws:  # type: ignore[list-item]
        hello = {"type": "hello", "room": room, "role": "spectator", "last_seq": seq}
        sent = time.perf_counter()
        await ws.send(MSGPACK.encode_data(hello))
        for _ in range(1000):  # bounded: presence or patches may come first only in theory
            message = MSGPACK.decode_data(await asyncio.wait_for(ws.recv(), 10.0))
            if message["type"] == "welcome":
                took = time.perf_counter() - sent
                break
            if message["type"] == "error":
                return None
        else:
            return None
        missed = 0
        if message["view"] is None:  # the missed patches follow in the same write
            while True:
                try:
                    frame = await asyncio.wait_for(ws.recv(), 0.005)
                except TimeoutError:
                    break
                if MSGPACK.decode_data(frame)["type"] == "patch":
                    missed += 1
    return {"ms": took * 1000, "resumed": message["view"] is None, "missed": missed}


async def resume_loop(base: str, resumes: int) -> list[dict[str, Any]]:
    ws_url = base.replace("http://", "ws://") + "/ws"
    rooms = await playing_rooms(base)
    figures: list[dict[str, Any]] = []
    turn = 0
    for _ in range(resumes * 3):  # bounded: rooms that end are skipped
        if len(figures) >= resumes:
            break
        if not rooms or turn % 10 == 0:  # games end and new ones start: look again
            rooms = await playing_rooms(base)
            if not rooms:
                await asyncio.sleep(0.1)
                continue
        room = rooms[turn % len(rooms)]
        turn += 1
        one = await one_resume(ws_url, room)
        if one is None:
            rooms.remove(room)
            continue
        figures.append(one)
    return figures


def run_store(
    store: str, rooms: int, resumes: int, rate: float | None, workdir: Path
) -> dict[str, Any]:
    with store_url(store, workdir, "resume.db") as url:
        port, server = start_server(url, workdir)
        base = f"http://127.0.0.1:{port}"
        plan = Plan("game", base, rooms, 300.0, None, "msgpack", 1, workdir, rate=rate)
        workers = start_workers(plan)
        try:
            for proc in workers:
                read_phase(proc, "rooms")
            tell(workers, "connect")
            for proc in workers:
                read_phase(proc, "connected")
            tell(workers, "go")
            time.sleep(1.0)  # the rooms are under way
            figures = asyncio.run(resume_loop(base, resumes))
        finally:
            for proc in workers:
                stop_process(proc)
            stop_process(server)
    times = [f["ms"] for f in figures]
    resumed = [f for f in figures if f["resumed"]]
    worst = round(max(times), 2) if times else None
    return {
        "store": store,
        "resumes": len(figures),
        "resume_ms": {"p50": percentile(times, 50), "p99": percentile(times, 99), "max": worst},
        "answered_with_patches": len(resumed),
        "answered_with_snapshot": len(figures) - len(resumed),
        "missed_patches_p50": percentile([float(f["missed"]) for f in resumed], 50),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stores", default="memory,sqlite,redis")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--resumes", type=int, default=300)
    parser.add_argument("--rate", type=float, help="commands/s over the other rooms, paced")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rollhouse-resume-") as tmp:
        rows = [
            run_store(store, args.rooms, args.resumes, args.rate, Path(tmp) / store)
            for store in [s.strip() for s in args.stores.split(",") if s.strip()]
        ]
    load = {"before": load_before, "after": os.getloadavg()}
    if args.json:
        print(json.dumps({"load_average": load, "rooms": args.rooms, "rate": args.rate,
                          "runs": rows}))  # fmt: skip
        return
    pace = "flat out" if args.rate is None else f"at {args.rate:g} commands/s"
    print(f"resumes with {args.rooms} other rooms playing {pace}; load average"
          f" {load['before']} before, {load['after']} after")  # fmt: skip
    print(f"{'store':<7} {'resumes':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
          f" {'patches/snapshot':>17} {'missed p50':>10}")  # fmt: skip
    for r in rows:
        ms = r["resume_ms"]
        both = f"{r['answered_with_patches']}/{r['answered_with_snapshot']}"
        print(
            f"{r['store']:<7} {r['resumes']:>7} {ms['p50']!s:>7} {ms['p99']!s:>7}"
            f" {ms['max']!s:>7} {both:>17} {r['missed_patches_p50']!s:>10}"
        )


if __name__ == "__main__":
    main()
