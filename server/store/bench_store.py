"""Store benchmark (not a test): appends/s per backend, serial vs group-committed.

    python -m server.store.bench_store [--serial 2000] [--rooms 200] [--per-room 25]
                                       [--redis redis://127.0.0.1:PORT/0]

"serial" is one room awaiting each one-record append in turn (one commit each);
"concurrent" is ``--rooms`` room actors appending at once, each awaiting its own
appends in turn, so the durable backends group-commit them. Each is given as appends
per second (wall time) and as this process's CPU per append in microseconds (every
thread: the SQLite store writes on a thread of its own), the figure a server pays.
Without ``--redis`` a throwaway redis-server is started on a free 127.0.0.1 port (if
one is on PATH). The event loop is uvloop's when it is installed, as in ``rollhouse
serve``. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from server.store import EventStore, open_store

EVENT: dict[str, Any] = {"type": "rolled", "seat": 2, "dice": [3, 5, 6, 1, 2], "t": 1_700_000_000}


async def serial(store: EventStore, count: int) -> tuple[float, float]:
    """Appends/s of one room awaiting ``count`` appends one after the other, and the
    CPU microseconds per append."""
    start, cpu = time.perf_counter(), time.process_time()
    for seq in range(count):
        await store.append("bench-serial", [EVENT], seq)
    return _rates(count, start, cpu)


async def concurrent(store: EventStore, rooms: int, per_room: int) -> tuple[float, float]:
    """Appends/s of ``rooms`` actors each awaiting ``per_room`` appends, all at once,
    and the CPU microseconds per append."""

    async def actor(room: str) -> None:
        for seq in range(per_room):
            await store.append(room, [EVENT], seq)

    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(actor(f"bench-{i}") for i in range(rooms)))
    return _rates(rooms * per_room, start, cpu)


def _rates(count: int, start: float, cpu: float) -> tuple[float, float]:
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    return count / wall, used / count * 1e6


async def run_one(name: str, url: str, args: argparse.Namespace) -> None:
    """Benchmark one backend and print a line of figures."""
    store = open_store(url)
    try:
        one, one_cpu = await serial(store, args.serial)
        batcher = getattr(store, "batcher", None)
        before = (batcher.flushes, batcher.items) if batcher else (0, 0)
        many, many_cpu = await concurrent(store, args.rooms, args.per_room)
        batch = ""
        if batcher is not None:
            flushes, items = batcher.flushes - before[0], batcher.items - before[1]
            batch = f"{items / max(flushes, 1):8.1f}"
        print(f"{name:<16}{one:>12,.0f}{one_cpu:>8.1f}{many:>14,.0f}{many_cpu:>8.1f}{batch:>10}")
    finally:
        await store.close()


@contextmanager
def throwaway_redis(workdir: Path) -> Iterator[str | None]:
    """A redis-server on a free 127.0.0.1 port for the benchmark, or None without one."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    args += ["--appendonly", "no", "--dir", str(workdir)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(5)


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)
    raise SystemExit("redis-server did not start")


async def main_async(args: argparse.Namespace, workdir: Path, redis_url: str | None) -> None:
    """Run every backend in turn."""
    print(
        f"{'backend':<16}{'serial/s':>12}{'cpu us':>8}{'concurrent/s':>14}{'cpu us':>8}{'batch':>10}"
    )
    print(f"{'':<16}{'(1 room)':>12}{'':>8}{f'({args.rooms} rooms)':>14}{'':>8}{'(avg)':>10}")
    await run_one("memory", "memory://", args)
    await run_one("sqlite full", f"sqlite:///{workdir / 'full.db'}", args)
    await run_one("sqlite normal", f"sqlite:///{workdir / 'normal.db'}?synchronous=normal", args)
    if redis_url is None:
        print("redis           skipped (no redis-server on PATH and no --redis)")
    else:
        await run_one("redis", f"{redis_url}?prefix=bench{time.time_ns()}", args)


def main() -> None:
    """Parse the options and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serial", type=int, default=2000, help="appends of the serial room")
    parser.add_argument("--rooms", type=int, default=200, help="concurrent rooms")
    parser.add_argument("--per-room", type=int, default=25, help="appends per concurrent room")
    parser.add_argument("--redis", default=None, help="redis URL (default: start one)")
    args = parser.parse_args()
    run: Any = asyncio.run
    if importlib.util.find_spec("uvloop") is not None:
        import uvloop

        run = uvloop.run
    with tempfile.TemporaryDirectory(prefix="rollhouse-bench-") as tmp:
        workdir = Path(tmp)
        if args.redis:
            run(main_async(args, workdir, args.redis))
            return
        with throwaway_redis(workdir) as redis_url:
            run(main_async(args, workdir, redis_url))


if __name__ == "__main__":
    main()
