"""Processes for ``rollhouse bench``: the server, a private redis-server, /proc readings.

Everything here runs child processes on 127.0.0.1 free ports (never 6379) and reads
``/proc/<pid>`` for resident memory and CPU time. It deliberately does not import
from ``tests/``: shipped code carries its own small copies of those helpers.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago (never 6379)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port != 6379:
            return port


def child_env() -> dict[str, str]:
    """The environment for a child Python: this project importable from anywhere."""
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "PYTHONPATH": f"{PROJECT_ROOT}{os.pathsep}{path}" if path else str(PROJECT_ROOT),
    }


def stop_process(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)


BENCH_LIMITS = {"ROLLHOUSE_CREATIONS_PER_MINUTE": "1000000", "ROLLHOUSE_MAX_ROOMS": "1000000"}
"""The public server's per-address limits are for strangers; the benchmark is one address
that opens rooms back to back, so the served node lifts them (nothing else changes)."""


def spawn(args: Sequence[str], workdir: Path, log_name: str) -> subprocess.Popen[bytes]:
    """Start ``python args...`` with its output in ``workdir/log_name``."""
    with open(workdir / log_name, "ab") as log:
        return subprocess.Popen(
            [sys.executable, *args],
            cwd=workdir,
            stdout=log,
            stderr=log,
            env={**child_env(), **BENCH_LIMITS},
        )


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Poll ``url`` until it answers 200; fail if the process exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1).status_code == 200:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Poll until something accepts TCP connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def start_server(store_url: str, workdir: Path) -> tuple[int, subprocess.Popen[bytes]]:
    """``python -m clients.cli serve`` on a free port; returns (port, process) once healthy."""
    port = free_port()
    args = ["-m", "clients.cli", "serve", "--port", str(port), "--store", store_url]
    proc = spawn(args, workdir, f"server-{port}.log")
    try:
        wait_http(f"http://127.0.0.1:{port}/api/health", proc)
    except Exception:
        stop_process(proc)
        raise
    return port, proc


def start_bare(workdir: Path) -> tuple[int, subprocess.Popen[bytes]]:
    """The bare websockets broadcast server (:mod:`clients.bench.bare`) on a free port."""
    port = free_port()
    proc = spawn(["-m", "clients.bench.bare", "--port", str(port)], workdir, f"bare-{port}.log")
    try:
        wait_port(port, proc)
    except Exception:
        stop_process(proc)
        raise
    return port, proc


def start_redis(workdir: Path) -> tuple[str, subprocess.Popen[bytes]]:
    """A private redis-server (no persistence) on a free port; returns (url, process)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not on PATH")
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly"]
    args += ["no", "--dir", str(workdir), "--protected-mode", "no", "--loglevel", "warning"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, proc, timeout=10.0)
    except Exception:
        stop_process(proc)
        raise
    return f"redis://127.0.0.1:{port}/0", proc


@contextlib.contextmanager
def store_url(store: str, workdir: Path, sqlite_name: str = "bench.db") -> Iterator[str]:
    """The URL of a fresh ``store`` for one run (``memory``, ``sqlite``: a file in
    ``workdir``, ``redis``: a private redis-server, stopped on exit)."""
    workdir.mkdir(parents=True, exist_ok=True)
    if store == "memory":
        yield "memory://"
    elif store == "sqlite":
        yield f"sqlite:///{workdir / sqlite_name}"
    elif store == "redis":
        url, proc = start_redis(workdir)
        try:
            yield url
        finally:
            stop_process(proc, 5.0)
    else:
        raise SystemExit(f"unknown store {store!r} (memory, sqlite or redis)")


def rss_kib(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (VmRSS from /proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by ``pid`` (/proc/<pid>/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def busy_cpu_seconds() -> float:
    """CPU seconds every process on the machine has used so far (/proc/stat, all CPUs)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


def log_tail(path: Path, lines: int = 15) -> str:
    """The last ``lines`` lines of a log file ('' if there is none)."""
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
