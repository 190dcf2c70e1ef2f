"""``rollhouse bench-cluster``: a cluster of node processes on one private Redis.

Three measurements, each printed with the machine's load average beside it (the
figures mean little on a busy machine; take them on a quiet one):

1. **Throughput with 1, 2, 3 nodes** (``--nodes``): N ``rollhouse serve`` processes on
   one ``redis-server``, one load generator (:mod:`clients.bench.worker`, the same
   Rollie traffic as ``rollhouse bench``: 6 bot players + 1 spectator a room) per
   node, each creating and playing its rooms on its own node (``--rooms`` split over
   the nodes). Figures: acked commands per second, and per CPU second of all the
   node processes together (Redis's CPU is shown apart).
2. **The extra latency of a command that crosses nodes**: a spectator's command (a
   read-only refusal, no store write: the hop, nothing else) sent ``--relay-commands``
   times through the room's owner and through another node; p50/p99 of both and the
   difference.
3. **Failover over many kills** (``--kills``): rooms with two players each (their SDK
   knows every node's URL) run by one node, SIGKILLed mid-game; the time from the
   kill to the first ack in each room of an event past the log's end at the kill.
   The killed node is started again (same id and port) before the next kill.

Every wait is bounded; everything listens on 127.0.0.1 free ports (never 6379).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clients import progress
from clients.bench.proc import (
    child_env,
    free_port,
    spawn,
    start_redis,
    stop_process,
    wait_http,
)
from clients.bench.report import percentile, summarise
from clients.bench.run import Plan, split, step_through, worker_args
from clients.bots.play import play_seat
from clients.sdk import Client, CommandRejected, create_room
from server.store import open_store


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Node:
    """One ``rollhouse serve`` process of the cluster (restartable on its port)."""

    def __init__(self, index: int, store_url: str, workdir: Path, lease: float) -> None:
        self.id, self.port = f"b{index}", free_port()
        self.store_url, self.workdir, self.lease = store_url, workdir, lease
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        args = ["-m", "clients.cli", "serve", "--port", str(self.port), "--store",
                self.store_url, "--node-id", self.id, "--lease", str(self.lease)]  # fmt: skip
        self.proc = spawn(args, self.workdir, f"node-{self.id}.log")
        wait_http(self.url + "/api/health", self.proc)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)


@contextlib.contextmanager
def cluster(count: int, workdir: Path, lease: float) -> Iterator[tuple[list[Node], int]]:
    """``count`` nodes on a fresh private redis-server: (nodes, redis pid)."""
    workdir.mkdir(parents=True, exist_ok=True)
    url, redis_proc = start_redis(workdir)
    nodes = [Node(i, url, workdir, lease) for i in range(count)]
    try:
        for node in nodes:
            node.start()
        yield nodes, redis_proc.pid
    finally:
        for node in nodes:
            node.stop()
        stop_process(redis_proc, 5.0)


# -- 1. throughput ---------------------------------------------------------------------


def throughput(args: argparse.Namespace, count: int, workdir: Path) -> dict[str, Any]:
    load_before = load_average()
    with cluster(count, workdir, args.lease) as (nodes, redis_pid):
        procs = []
        for i, (node, rooms) in enumerate(zip(nodes, split(args.rooms, count), strict=True)):
            if rooms == 0:
                continue
            plan = Plan("game", node.url, rooms, args.seconds, None, "msgpack", 1, workdir)
            with open(workdir / f"worker-{i}.log", "ab") as log:
                procs.append(
                    subprocess.Popen(
                        [sys.executable, *worker_args(plan, i, rooms, None)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=log,
                        text=True,
                        cwd=workdir,
                        env=child_env(),
                    )
                )
        extra = {f"node{i}": n.proc.pid for i, n in enumerate(nodes[1:], 1) if n.proc}
        extra["redis"] = redis_pid
        assert nodes[0].proc is not None
        try:
            raw = step_through(procs, nodes[0].proc.pid, extra)
        finally:
            for proc in procs:
                with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                    proc.wait(10)
                stop_process(proc)
    row = summarise(raw)
    cpu = raw["cpu_percent"]
    nodes_cpu = cpu["server"] + sum(cpu.get(f"node{i}", 0.0) for i in range(1, count))
    rate = row["commands_per_second"]
    return {
        "nodes": count,
        "commands_per_second": rate,
        "commands_per_node_cpu_second": round(rate / (nodes_cpu / 100)) if nodes_cpu else None,
        "nodes_cpu_percent": round(nodes_cpu, 1),
        "redis_cpu_percent": cpu.get("redis"),
        "ack_ms": row["ack_ms"],
        "acked": row["acked"],
        "errors": row["errors"],
        "load_average": {"before": load_before, "after": load_average()},
    }


# -- 2. the cross-node hop -------------------------------------------------------------


async def _round_trips(ws_url: str, room: str, count: int) -> list[float]:
    """Milliseconds per answered command of a spectator (refused, no store write)."""
    client = await Client(ws_url, room, role="spectator").connect()
    times = []
    try:
        for _ in range(count):
            started = time.perf_counter()
            with contextlib.suppress(CommandRejected):
                await asyncio.wait_for(client.send({"type": "roll"}), 10)
            times.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.04)  # under the per-connection rate limit
    finally:
        await client.close()
    return times


async def hop(nodes: list[Node], count: int) -> dict[str, Any]:
    load_before = load_average()
    room = (await create_room(nodes[0].url, "rollie", 2))["room"]
    ws = [n.url.replace("http://", "ws://") + "/ws" for n in nodes[:2]]
    local = await _round_trips(ws[0], room, count)
    relayed = await _round_trips(ws[1], room, count)
    figures = {
        "local_ms": {"p50": percentile(local, 50), "p99": percentile(local, 99)},
        "relayed_ms": {"p50": percentile(relayed, 50), "p99": percentile(relayed, 99)},
        "commands": count,
        "load_average": {"before": load_before, "after": load_average()},
    }
    figures["extra_ms"] = {
        q: round(figures["relayed_ms"][q] - figures["local_ms"][q], 2)  # type: ignore[index]
        for q in ("p50", "p99")
    }
    return figures


# -- 3. failover -----------------------------------------------------------------------


class AckTimes(Client):
    """A player remembering (seq, arrival) of every ack."""

    acks: list[tuple[int, float]]

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        seq = await super().send(command, cmd_id)
        self.acks.append((seq, time.monotonic()))
        return seq


async def _log_length(store_url: str, room: str) -> int:
    store = open_store(store_url)
    try:
        return await store.last_seq(room)
    finally:
        await store.close()


async def one_kill(nodes: list[Node], victim: Node, rooms: int) -> list[float]:
    """Seconds from the SIGKILL of ``victim`` to the first fresh ack, per room it ran."""
    urls = [victim.url] + [n.url for n in nodes if n is not victim]
    ws = [u.replace("http://", "ws://") + "/ws" for u in urls]
    made = [(await create_room(victim.url, "rollie", 2, room={"clock": 0}))["room"]
            for _ in range(rooms)]  # fmt: skip
    players: dict[str, list[AckTimes]] = {}
    for room in made:
        players[room] = []
        for i in range(2):
            p = AckTimes(ws, room, name=f"p{i}", backoff=(0.05, 0.5), ping_every=1.0)
            p.acks = []
            await p.connect()
            players[room].append(p)
    games = [asyncio.create_task(play_seat(p, "push", delay=0.05, seed=i))
             for room in made for i, p in enumerate(players[room])]  # fmt: skip
    try:
        await asyncio.sleep(0.5)  # every room is under way
        killed = time.monotonic()
        victim.kill()
        tails = {r: await _log_length(victim.store_url, r) for r in made}
        times = []
        for room in made:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                fresh = [t for p in players[room] for seq, t in p.acks if seq > tails[room]]
                if fresh or all(g.done() for g in games):
                    break
                await asyncio.sleep(0.02)
            fresh = [t for p in players[room] for seq, t in p.acks if seq > tails[room]]
            if fresh:
                times.append(round(min(fresh) - killed, 3))
        return times
    finally:
        for game in games:
            game.cancel()
        await asyncio.gather(*games, return_exceptions=True)
        for room in made:
            for p in players[room]:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(p.close(), 5)


async def failovers(
    nodes: list[Node], kills: int, rooms: int, shown: progress.Bar | None = None
) -> dict[str, Any]:
    load_before = load_average()
    times: list[float] = []
    for k in range(kills):
        victim = nodes[k % len(nodes)]
        times += await one_kill(nodes, victim, rooms)
        await asyncio.to_thread(victim.start)  # back, same id and port, for the next kill
        if shown is not None:
            shown.now(f"failover: SIGKILL {k + 1} of {kills}")
            shown.advance(nodes[0].lease + KILL_EXTRA)
    return {
        "kills": kills,
        "rooms": len(times),
        "seconds": {
            "p50": percentile(times, 50),
            "p99": percentile(times, 99),
            "max": max(times, default=None),
        },
        "lease_seconds": nodes[0].lease,
        "load_average": {"before": load_before, "after": load_average()},
    }


# -- the command -----------------------------------------------------------------------


def run_all(args: argparse.Namespace, shown: progress.Bar | None = None) -> dict[str, Any]:
    shown = shown or progress.Bar("bench-cluster", 0, shown=False)
    out: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "rooms": args.rooms,
        "seconds": args.seconds,
        "lease_seconds": args.lease,
    }
    with tempfile.TemporaryDirectory(prefix="rollhouse-bench-cluster-") as tmp_name:
        tmp = Path(tmp_name)
        out["throughput"] = []
        for n in args.node_counts:
            shown.now(f"throughput with {n} node(s)")
            out["throughput"].append(throughput(args, n, tmp / f"n{n}"))
            shown.advance(args.seconds + THROUGHPUT_START)
        with cluster(max(2, max(args.node_counts)), tmp / "hop", args.lease) as (nodes, _):
            shown.now(f"a command across nodes ({args.relay_commands} each way)")
            out["hop"] = asyncio.run(hop(nodes, args.relay_commands))
            shown.advance(HOP_SECONDS)
            if args.kills:
                shown.now(f"failover: {args.kills} SIGKILLs")
                kills = failovers(nodes, args.kills, args.kill_rooms, shown)
                out["failover"] = asyncio.run(kills)
    return out


# about how long each step takes on two cores (the progress bar's weights)
THROUGHPUT_START, HOP_SECONDS, KILL_EXTRA = 8.0, 5.0, 2.0


def expected_seconds(args: argparse.Namespace) -> float:
    throughput = len(args.node_counts) * (args.seconds + THROUGHPUT_START)
    return float(throughput + HOP_SECONDS + args.kills * (args.lease + KILL_EXTRA))


def _pair(figure: dict[str, Any]) -> str:
    return f"{figure['p50']} / {figure['p99']}"


def render(s: dict[str, Any]) -> str:
    lines = [
        f"rollhouse bench-cluster: {s['rooms']} Rollie rooms (6 bots + 1 spectator) split over"
        f" the nodes, {s['seconds']:g} s each, lease {s['lease_seconds']:g} s,"
        f" {s['machine']['cpus']} CPUs",
        f"{'nodes':>5} {'commands/s':>10} {'/node-cpu-s':>11} {'nodes CPU':>9} {'redis CPU':>9}"
        f" {'ack p50/p99 ms':>15}   load average (1/5/15 min) before -> after",
    ]
    for row in s["throughput"]:
        load = row["load_average"]
        lines.append(
            f"{row['nodes']:>5} {row['commands_per_second']:>10.0f}"
            f" {row['commands_per_node_cpu_second'] or '-':>11} {row['nodes_cpu_percent']:>8.0f}%"
            f" {row['redis_cpu_percent'] or 0:>8.0f}% {_pair(row['ack_ms']):>15}"
            f"   {load['before']} -> {load['after']}"
            + (f"  errors {row['errors']}" if row["errors"] else "")
        )
    hop_ = s["hop"]
    lines.append(
        f"cross-node command ({hop_['commands']} each): local p50/p99 {_pair(hop_['local_ms'])} ms,"
        f" relayed {_pair(hop_['relayed_ms'])} ms, extra {_pair(hop_['extra_ms'])} ms"
        f"   load {hop_['load_average']['after']}"
    )
    if "failover" in s:
        f = s["failover"]
        lines.append(
            f"failover ({f['kills']} kills, {f['rooms']} rooms, lease {f['lease_seconds']:g} s):"
            f" SIGKILL to first ack p50 {f['seconds']['p50']} s, p99 {f['seconds']['p99']} s,"
            f" max {f['seconds']['max']} s   load {f['load_average']['after']}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        args.node_counts = [int(n) for n in args.nodes.split(",") if n.strip()]
    except ValueError:
        args.node_counts = []
    if not args.node_counts or min(args.node_counts) < 1 or args.rooms < 1 or args.kills < 0:
        print("--nodes is a list like 1,2,3; --rooms at least 1; --kills at least 0")
        return 2
    with progress.bar("bench-cluster", expected_seconds(args), progress.wanted(args.json)) as bar:
        summary = run_all(args, bar)
    print(json.dumps(summary) if args.json else render(summary))
    return 0


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench-cluster",
        help="throughput with 1-3 nodes, cross-node latency and failover time",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--nodes", default="1,2,3", help="node counts to measure (1,2,3)")
    parser.add_argument("--rooms", type=int, default=12, help="concurrent rooms (default 12)")
    parser.add_argument("--seconds", type=float, default=10.0, help="window per node count")
    parser.add_argument("--relay-commands", type=int, default=200, help="per path (200)")
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs for failover (20)")
    parser.add_argument("--kill-rooms", type=int, default=3, help="rooms per kill (3)")
    parser.add_argument("--lease", type=float, default=2.0, help="the nodes' lease (2 s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)
