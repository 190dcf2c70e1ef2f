"""``rollhouse soak``: three nodes on a Redis Cluster, games and faults for minutes.

It starts a Redis Cluster of its own (3 masters + 3 replicas, ``redis-server`` with
``cluster-enabled yes`` on free loopback ports; or ``--redis host:port,...``, the
seeds of an existing cluster, whose processes it leaves alone), three ``rollhouse
serve`` nodes on it, and keeps ``--rooms`` Rollie games going back to back: some
played by hosted bots, the others by SDK players over websockets (each seat trying
another node first, so most are relayed). Every few seconds (``--every``, ±50 %) it
draws a fault, for ``--minutes``: SIGKILL a node (started again), SIGSTOP a node
past its lease (then SIGCONT), SIGKILL a Redis master (its replica promoted, the old
one started again as a replica), SIGKILL a master and start it again at once (before
any failover: what a supervisor does; the members keep an AOF flushed before every
reply, as deploy/redis-cluster.conf), cut a node from Redis for 2.5 leases or slow its
links (its clients stay connected), put a Redis master in a minority partition (the
link faults: the cluster the soak starts sits behind TCP proxies of its own,
clients/soak/netsplit.py). Then ``--settle`` seconds without faults, and the
verdict over the recorded history (clients/soak/history.py):

- commands acknowledged and verified against the log, lost, duplicated;
- games finished, and those still playing at the end (each must have moved after
  the faults stopped);
- the longest time any room could not take a command (its log did not grow);
- the faults, and the failover time of each room they stalled (p50/p99);
- each process's resident memory at the start and at the end, the load average.

Exit status 0 when nothing acknowledged was lost or duplicated, no view was ahead of
the log, no fence epoch had two nodes, and every game finished or moved after the
faults stopped; 1 otherwise. A progress bar on a terminal; ``--json``: one object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from clients import progress
from clients.soak import faults as F
from clients.soak.run import START_SECONDS, Options, soak

KINDS = (*F.NODE_FAULTS, *F.REDIS_FAULTS, *F.LINK_FAULTS)


def options_from(args: argparse.Namespace) -> Options | str:
    """The soak's options, or what is wrong with the arguments."""
    kinds = tuple(k.strip() for k in args.faults.split(",") if k.strip())
    if unknown := [k for k in kinds if k not in KINDS]:
        return f"unknown fault(s) {unknown}; choose from {', '.join(KINDS)}"
    hosted = args.rooms // 2 if args.hosted is None else args.hosted
    if args.minutes <= 0 or args.rooms < 1 or not 0 <= hosted <= args.rooms:
        return "--minutes above 0, --rooms at least 1, --hosted between 0 and --rooms"
    if args.every <= 0 or args.settle < 0 or args.lease <= 0:
        return "--every and --lease above 0, --settle at least 0"
    return Options(minutes=args.minutes, rooms=args.rooms, hosted=hosted, every=args.every,
                   settle=args.settle, lease=args.lease, seed=args.seed, redis=args.redis,
                   faults=kinds)  # fmt: skip


def _pair(figure: dict[str, Any]) -> str:
    return f"p50 {figure['p50']} s, p99 {figure['p99']} s, max {figure['max']} s"


def render(s: dict[str, Any]) -> str:
    """The printout."""
    c, g, f = s["commands"], s["games"], s["faults"]
    stall = s["longest_stall"]
    lines = [
        f"rollhouse soak: {s['minutes']:g} min of faults + settle ({s['seconds']:g} s in all),"
        f" {s['nodes']} nodes, lease {s['lease_seconds']:g} s, Redis: {s['redis']};"
        f" {s['rooms']['websocket']} websocket rooms + {s['rooms']['hosted']} hosted bots' rooms",
        f"verdict: {'OK' if s['ok'] else 'FAILED'}",
        f"commands: {c['acked']} acknowledged, {c['verified']} verified against the log,"
        f" {c['lost']} lost, {c['duplicated']} duplicated, {c['misplaced']} at another seq;"
        f" {c['seen_records_checked']} records seen by players before a master kill, rechecked",
        f"games: {g['played']} played, {g['finished']} finished, {g['playing_at_end']} still"
        f" playing at the end (each moved after the faults stopped); {g['records']} records",
        f"longest time a room could not take a command: {stall['seconds']} s"
        f" ({stall['kind']} room {stall['room']})",
        f"faults: {f['count']} (" + ", ".join(f"{k} {n}" for k, n in f["by_kind"].items()) + ")",
        f"failover (fault to the room's next record, {f['failover_seconds']['count']} rooms):"
        f" {_pair(f['failover_seconds'])}",
    ]
    for kind, figure in f["failover_seconds_by_kind"].items():
        lines.append(f"  {kind} ({figure['count']} rooms): {_pair(figure)}")
    if f["promotion_seconds"]["count"]:
        lines += [
            f"  a master's SIGKILL to its replica promoted: {_pair(f['promotion_seconds'])}",
            "  ... to every master with a replica in sync again (the old one back): "
            + _pair(f["replica_back_seconds"]),
        ]
    lines += [f"  never recovered: {r}" for r in f["rooms_never_recovered"]]
    lines.append(f"{'process':<22} {'RSS start':>10} {'RSS end':>10}  restarts")
    for name, m in s["memory_kib"].items():
        start, end = (f"{m[k] / 1024:.1f} MiB" if m[k] else "-" for k in ("start", "end"))
        lines.append(f"{name:<22} {start:>10} {end:>10}  {m['restarts']}")
    load = s["load_average"]
    phases = ", ".join(f"{k} {v:g}" for k, v in s.get("phases_seconds", {}).items())
    lines.append(f"phases (seconds from the start): {phases}")
    lines.append(f"load average (1/5/15 min, {s['cpus']} CPUs): start {load['start']},"
                 f" end {load['end']}")  # fmt: skip
    lines += [f"problem: {p}" for p in s["problems"]]
    if s["problem_count"] > len(s["problems"]):
        lines.append(f"... {s['problem_count'] - len(s['problems'])} more problems")
    lines += [f"error: {e}" for e in s["errors"]]
    if s["error_count"] > len(s["errors"]):
        lines.append(f"... {s['error_count'] - len(s['errors'])} more errors")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    options = options_from(args)
    if isinstance(options, str):
        print(options)
        return 2
    total = START_SECONDS + options.minutes * 60 + options.settle
    with (
        progress.bar("soak", total, progress.wanted(args.json)) as shown,
        tempfile.TemporaryDirectory(prefix="rollhouse-soak-") as tmp,
    ):
        workdir = Path(args.logs) if args.logs else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        summary = asyncio.run(soak(options, workdir, shown))
    print(json.dumps(summary) if args.json else render(summary))
    return 0 if summary["ok"] else 1


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "soak",
        help="three nodes on a Redis Cluster under faults for minutes; a verdict",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, default=30.0, help="of faults (default 30)")
    parser.add_argument("--rooms", type=int, default=50, help="games at once (default 50)")
    parser.add_argument("--hosted", type=int, help="of them hosted bots' (default half)")
    parser.add_argument("--every", type=float, default=5.0,
                        help="mean seconds between faults (default 5)")  # fmt: skip
    parser.add_argument("--settle", type=float, default=20.0,
                        help="seconds of play without faults at the end (default 20)")  # fmt: skip
    parser.add_argument("--faults", default=",".join(KINDS),
                        help=f"the kinds drawn (default {','.join(KINDS)})")  # fmt: skip
    parser.add_argument("--lease", type=float, default=2.0, help="the nodes' lease (2 s)")
    parser.add_argument("--seed", type=int, default=1, help="of the fault schedule")
    parser.add_argument("--redis", help="seeds host:port,... of an existing Redis Cluster")
    parser.add_argument("--logs", help="keep the nodes' logs and Redis files in this folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)
