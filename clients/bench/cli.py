"""``rollhouse bench``: the whole stack under game traffic, per store, against a bare baseline.

For each store (memory, sqlite, redis) the server runs as a separate process
(``python -m clients.cli serve``; SQLite in a temporary directory, Redis as a
private ``redis-server`` on a free port). Load-generator processes
(:mod:`clients.bench.worker`, one by default) open R Rollie rooms with 6 bot
players and 1 spectator each over real websockets and play them back to back with
no clock and no delays, for ``--seconds`` or until ``--games`` are done. Then the
same traffic shape runs against a bare ``websockets`` broadcast server
(:mod:`clients.bench.bare`) to give the ceiling our throughput is a fraction of.

``--game`` picks the game (Rollie by default: 6 players; Roll Player and Roll
Builder: 4). ``--rate N`` paces the commands at N per second over all rooms instead
of as fast as they are answered; ``--open-loop`` runs each target a second time,
paced at half the commands/s it reached, for the latency of a server that is not
saturated.

Figures per store: acked commands per second of wall time; command-to-ack and
command-to-last-patch latency (p50/p99; the last patch is the moment the last of
the room's 7 viewers holds the patch the command produced); server RSS growth per
connection; games completed; CPU of each process over the window (percent of one
core); rejections and errors, which should be zero.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from clients import progress
from clients.bench.game import PLAYERS
from clients.bench.proc import start_bare, start_redis, start_server, stop_process
from clients.bench.report import render, summarise
from clients.bench.run import Plan, measure

STORES = ("memory", "sqlite", "redis")


@contextmanager
def store_server(store: str, workdir: Path) -> Iterator[tuple[int, int, dict[str, int]]]:
    """The server for ``store`` (and its redis-server): yields (port, pid, extra pids)."""
    workdir.mkdir(parents=True, exist_ok=True)
    extra: dict[str, int] = {}
    redis_proc = None
    if store == "memory":
        url = "memory://"
    elif store == "sqlite":
        url = "sqlite:///bench.db"
    else:
        url, redis_proc = start_redis(workdir)
        extra["redis"] = redis_proc.pid
    try:
        port, proc = start_server(url, workdir)
        try:
            yield port, proc.pid, extra
        finally:
            stop_process(proc)
    finally:
        if redis_proc is not None:
            stop_process(redis_proc, 5.0)


def plan_for(args: argparse.Namespace, target: str, port: int, workdir: Path) -> Plan:
    return Plan(
        target=target,
        url=f"http://127.0.0.1:{port}",
        rooms=args.rooms,
        seconds=args.seconds,
        games=args.games,
        encoding=args.encoding,
        workers=args.workers,
        workdir=workdir,
        game=args.game,
        rate=args.rate,
    )


def _with_half_rate(
    args: argparse.Namespace, plan: Plan, pid: int, extra: dict[str, int]
) -> dict[str, Any]:
    """Measure ``plan``; with ``--open-loop``, again paced at half the rate it reached."""
    row = summarise(measure(plan, pid, extra))
    if args.open_loop and row["commands_per_second"]:
        half = attrs.evolve(plan, rate=row["commands_per_second"] / 2, games=None,
                            seconds=plan.seconds or 10.0)  # fmt: skip
        paced = summarise(measure(half, pid, extra))
        row["half_rate"] = {"rate": half.rate, **paced}
    return row


def bench_store(args: argparse.Namespace, store: str, tmp: Path) -> dict[str, Any]:
    workdir = tmp / store
    with store_server(store, workdir) as (port, pid, extra):
        return _with_half_rate(args, plan_for(args, "game", port, workdir), pid, extra)


def bench_bare(args: argparse.Namespace, tmp: Path, seconds: float) -> dict[str, Any]:
    workdir = tmp / "bare"
    workdir.mkdir(parents=True, exist_ok=True)
    port, proc = start_bare(workdir)
    try:
        plan = attrs.evolve(plan_for(args, "bare", port, workdir), seconds=seconds, games=None)
        return _with_half_rate(args, plan, proc.pid, {})
    finally:
        stop_process(proc)


def _ratio(row: dict[str, Any], bare: dict[str, Any], key: str) -> float | None:
    ours, theirs = row[key], bare[key]
    return float(f"{ours / theirs:.4g}") if ours and theirs else None


def expected_seconds(args: argparse.Namespace) -> float:
    """About how long one target takes: its window (twice with ``--open-loop``) and the
    start of its processes (with ``--games``, a guess): the progress bar's unit."""
    window = float(args.seconds if args.seconds is not None else 2.0 * args.games)
    return window * (2 if args.open_loop else 1) + 4.0


def run_all(args: argparse.Namespace, shown: progress.Bar | None = None) -> dict[str, Any]:
    """Every store, then the bare baseline; the summary as plain data."""
    shown = shown or progress.Bar("bench", 0, shown=False)
    each = expected_seconds(args)
    results: dict[str, Any] = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rollhouse-bench-") as tmp_name:
        tmp = Path(tmp_name)
        for store in args.store_list:
            shown.now(f"{args.game}, {store} store")
            results[store] = bench_store(args, store, tmp)
            shown.advance(each)
        windows = [r["seconds"] for r in results.values()]
        bare_seconds = args.seconds or min(max(windows, default=10.0), 30.0)
        shown.now(f"{args.game}, the bare websockets server")
        bare = bench_bare(args, tmp, bare_seconds)
        shown.advance(each)
    for row in results.values():
        row["ratio_to_bare"] = _ratio(row, bare, "commands_per_second")
        row["ratio_per_server_cpu"] = _ratio(row, bare, "commands_per_server_cpu_second")
        if "half_rate" in row and "half_rate" in bare:
            ours, theirs = (
                row["half_rate"]["last_patch_ms"]["p99"],
                bare["half_rate"]["last_patch_ms"]["p99"],
            )
            row["half_rate"]["p99_to_bare"] = round(ours / theirs, 2) if ours and theirs else None
    return {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average": {"before": load_before, "after": os.getloadavg()},
        },
        "game": args.game,
        "rate": args.rate,
        "rooms": args.rooms,
        "seconds": args.seconds,
        "games": args.games,
        "encoding": args.encoding,
        "workers": args.workers,
        "stores": results,
        "bare": bare,
    }


def run(args: argparse.Namespace) -> int:
    """The subcommand."""
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = [s for s in stores if s not in STORES]
    if unknown or not stores:
        print(f"unknown store(s) {unknown}; choose from {', '.join(STORES)}")
        return 2
    if args.games is None and args.seconds is None:
        args.seconds = 15.0
    if min(args.rooms, args.workers) < 1 or (args.games is not None and args.games < 1):
        print("--rooms, --workers and --games must be at least 1")
        return 2
    if args.rate is not None and args.rate <= 0:
        print("--rate must be above 0")
        return 2
    args.store_list = stores
    total = expected_seconds(args) * (len(stores) + 1)
    with progress.bar("bench", total, progress.wanted(args.json)) as shown:
        summary = run_all(args, shown)
    print(json.dumps(summary) if args.json else render(summary))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``bench`` on the ``rollhouse`` command line."""
    parser = subparsers.add_parser(
        "bench",
        help="load-test the server per store against a bare websockets baseline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rooms", type=int, default=20, help="concurrent rooms (default 20)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--seconds", type=float, help="seconds per store (default 15)")
    length.add_argument("--games", type=int, help="games to complete per store")
    parser.add_argument("--stores", default=",".join(STORES), help="comma-separated")
    parser.add_argument("--encoding", choices=["msgpack", "json"], default="msgpack")
    parser.add_argument("--workers", type=int, default=1, help="load-generator processes")
    parser.add_argument("--game", choices=sorted(PLAYERS), default="rollie",
                        help="the game the rooms play (default rollie)")  # fmt: skip
    pacing = parser.add_mutually_exclusive_group()
    pacing.add_argument("--rate", type=float,
                        help="commands per second over all rooms, paced (default: flat out)")  # fmt: skip
    pacing.add_argument("--open-loop", action="store_true",
                        help="also run each target paced at half the rate it reached")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)
