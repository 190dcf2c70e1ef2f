"""One measured run of ``rollhouse bench``: a server process, its load generators, /proc.

:func:`measure` starts the load-generator processes (:mod:`clients.bench.worker`)
against an already running server, steps them through their phases, and reads
the server's resident memory before and after the clients connect and the CPU
time of every process involved over the measurement window.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import attrs

from clients.bench.proc import (
    busy_cpu_seconds,
    child_env,
    cpu_seconds,
    log_tail,
    rss_kib,
    stop_process,
)

PHASE_TIMEOUT = 120.0


@attrs.frozen
class Plan:
    """What to run against one target."""

    target: str  # "game" or "bare"
    url: str
    rooms: int
    seconds: float | None
    games: int | None
    encoding: str
    workers: int
    workdir: Path
    game: str = "rollie"
    rate: float | None = None
    """Commands per second over all rooms, paced (None: as fast as they are answered)."""


def worker_args(plan: Plan, index: int, rooms: int, games: int | None) -> list[str]:
    args = ["-m", "clients.bench.worker", "--target", plan.target, "--url", plan.url]
    args += ["--rooms", str(rooms), "--encoding", plan.encoding, "--name", f"bare{index}"]
    args += ["--game", plan.game]
    if plan.rate is not None:
        args += ["--rate", str(plan.rate * rooms / plan.rooms)]
    if plan.seconds is not None:
        args += ["--seconds", str(plan.seconds)]
    if games is not None:
        args += ["--games", str(games)]
    return args


def split(total: int, parts: int) -> list[int]:
    """``total`` spread over ``parts`` as evenly as possible."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def start_workers(plan: Plan) -> list[subprocess.Popen[str]]:
    rooms = split(plan.rooms, plan.workers)
    games = split(plan.games, plan.workers) if plan.games is not None else [None] * plan.workers
    procs = []
    for i in range(plan.workers):
        if rooms[i] == 0 or games[i] == 0:
            continue
        with open(plan.workdir / f"worker-{plan.target}-{i}.log", "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, *worker_args(plan, i, rooms[i], games[i])],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                text=True, env=child_env(), cwd=plan.workdir,
            )  # fmt: skip
            procs.append(proc)
    return procs


def read_phase(proc: subprocess.Popen[str], phase: str) -> dict[str, Any]:
    """The worker's next line, which must announce ``phase``."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], PHASE_TIMEOUT)
    line = proc.stdout.readline() if ready else ""
    if not line:
        raise RuntimeError(f"load generator {proc.pid} gave no {phase!r} (see worker log)")
    message: dict[str, Any] = json.loads(line)
    if message.get("phase") != phase:
        raise RuntimeError(f"load generator {proc.pid}: expected {phase!r}, got {message}")
    return message


def tell(procs: list[subprocess.Popen[str]], word: str) -> None:
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(word + "\n")
        proc.stdin.flush()


def cpu_of(pids: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds per group of processes, and ``others``: the rest of the machine."""
    used = {name: sum(cpu_seconds(p) for p in group) for name, group in pids.items()}
    used["others"] = busy_cpu_seconds() - sum(used.values())
    return used


def measure(plan: Plan, server_pid: int, extra: dict[str, int]) -> dict[str, Any]:
    """Run the load against the server ``server_pid``; raw figures of every worker."""
    procs = start_workers(plan)
    try:
        return step_through(procs, server_pid, extra)
    except RuntimeError as exc:
        logs = sorted(plan.workdir.glob("*.log"))
        tails = "\n".join(f"--- {log.name}\n{log_tail(log)}" for log in logs)
        raise RuntimeError(f"{exc}\n{tails}") from exc
    finally:
        for proc in procs:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                proc.wait(10)
            stop_process(proc)


def step_through(
    procs: list[subprocess.Popen[str]], server_pid: int, extra: dict[str, int]
) -> dict[str, Any]:
    for proc in procs:
        read_phase(proc, "rooms")
    rss_before = rss_kib(server_pid)
    tell(procs, "connect")
    connections = sum(read_phase(p, "connected")["connections"] for p in procs)
    rss_after = rss_kib(server_pid)
    pids = {"server": [server_pid], "load": [p.pid for p in procs], "bench": [os.getpid()]}
    pids.update({name: [pid] for name, pid in extra.items()})
    cpu_start, started = cpu_of(pids), time.monotonic()
    tell(procs, "go")
    for proc in procs:
        read_phase(proc, "done")
    cpu_end, wall = cpu_of(pids), time.monotonic() - started
    results = [read_phase(p, "result") for p in procs]
    cpu = {name: round(100 * (cpu_end[name] - cpu_start[name]) / wall, 1) for name in cpu_end}
    return {
        "results": results,
        "connections": connections,
        "rss_before_kib": rss_before,
        "rss_after_kib": rss_after,
        "cpu_percent": cpu,
    }
