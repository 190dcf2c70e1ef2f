"""The room list with many rooms in the store (not a test): ``GET /api/rooms`` pages.

    python -m clients.bench.rooms [--stores sqlite,redis] [--rooms 10000] [--repeat 20]

Per store: ``--rooms`` rooms are written straight into a fresh store (each a
``created`` Rollie record, concurrently so SQLite's group commit takes them in
batches) with their lobby summaries where a node keeps them (SQLite: the store's
summary index; Redis: the cluster's index, :mod:`server.cluster.index`, which every
node of a Redis store lists from);
then a server process starts on that store (the rooms are not in its memory) and this
process asks it for pages over HTTP: ``?cursor=C&limit=L`` at the newest rooms, the
middle and the end of the list, with ``limit`` 100 and 500 (the most one page holds),
``--repeat`` times each after one warm-up request. Printed per store and page: the
round trip as the client sees it (p50 and max, ms), the rooms the page held and the
machine's load average. Figures are printed, never asserted.
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
import redis.asyncio as aioredis

from clients.bench.proc import start_server, stop_process, store_url
from clients.bench.report import percentile
from engine.core import get_game
from server.cluster.index import Index
from server.room.model.fold import start
from server.room.model.records import created_record, to_plain
from server.room.views import room_summary
from server.store.url import is_redis, open_store, redis_parts

LIMITS = (100, 500)


async def fill(store_url: str, rooms: int) -> None:
    """``rooms`` Rollie rooms, each its created record and its summary, straight into the store."""
    store = open_store(store_url)
    game = get_game("rollie")
    try:
        summaries: dict[str, dict[str, Any]] = {}
        for first in range(0, rooms, 500):
            batch = []
            for n in range(first, min(rooms, first + 500)):
                room_id = f"r-{n:08x}"
                created = created_record(game, 2 + n % 5, {}, n, 0.0, 1.8e9 + n, {}, salt="s")
                summaries[room_id] = room_summary(start(room_id, created))
                batch.append(store.append(room_id, [to_plain(created)], 0))
            await asyncio.gather(*batch)
        if is_redis(store_url):
            url, prefix = redis_parts(store_url)
            client = aioredis.Redis.from_url(url)
            try:
                await Index(client, prefix).put(
                    {r: {**s, "node": None} for r, s in summaries.items()}
                )
            finally:
                await client.aclose()
        else:
            await store.save_summaries(summaries)
    finally:
        await store.close()


async def pages(base_url: str, rooms: int, repeat: int) -> list[dict[str, Any]]:
    rows = []
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        for limit in LIMITS:
            for cursor in (0, rooms // 2, max(0, rooms - limit)):
                url = f"/api/rooms?cursor={cursor}&limit={limit}"
                (await http.get(url)).raise_for_status()  # warm-up: connections, caches
                times, held = [], 0
                for _ in range(repeat):
                    started = time.perf_counter()
                    reply = await http.get(url)
                    times.append((time.perf_counter() - started) * 1e3)
                    reply.raise_for_status()
                    held = len(reply.json()["rooms"])
                rows.append({"cursor": cursor, "limit": limit, "rooms_in_page": held,
                             "p50_ms": round(percentile(times, 50) or 0.0, 2),
                             "max_ms": round(max(times), 2)})  # fmt: skip
    return rows


def run_store(store: str, rooms: int, repeat: int, workdir: Path) -> dict[str, Any]:
    if store == "memory":
        raise SystemExit("the room list needs a store that outlives its filling: sqlite, redis")
    with store_url(store, workdir, "rooms.db") as url:
        started = time.perf_counter()
        asyncio.run(fill(url, rooms))
        filled = time.perf_counter() - started
        port, server = start_server(url, workdir)
        try:
            rows = asyncio.run(pages(f"http://127.0.0.1:{port}", rooms, repeat))
        finally:
            stop_process(server)
    return {"store": store, "rooms": rooms, "fill_seconds": round(filled, 1), "pages": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", default="sqlite,redis")
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rollhouse-rooms-") as tmp:
        runs = [
            run_store(store, args.rooms, args.repeat, Path(tmp) / store)
            for store in [s.strip() for s in args.stores.split(",") if s.strip()]
        ]
    load = {"before": load_before, "after": os.getloadavg()}
    if args.json:
        print(json.dumps({"load_average": load, "runs": runs}))
        return 0
    print(f"GET /api/rooms with {args.rooms} rooms in the store; load average"
          f" {load['before']} before, {load['after']} after")  # fmt: skip
    print(f"{'store':<7} {'cursor':>7} {'limit':>5} {'rooms':>5} {'p50 ms':>7} {'max ms':>7}")
    for run in runs:
        for row in run["pages"]:
            print(f"{run['store']:<7} {row['cursor']:>7} {row['limit']:>5}"
                  f" {row['rooms_in_page']:>5} {row['p50_ms']:>7} {row['max_ms']:>7}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
