"""Real redis-server processes for the tests, on free 127.0.0.1 ports (never 6379).

- ``start_redis(tmpdir) -> (url, stop)``: a plain helper that starts one server and
  returns its URL and a callable stopping it (for tests that restart a server).
- ``launch_redis(tmpdir) -> (url, process)``: the same with the process handle, for
  fault tests that signal it (see tests/support/faults.py).
- ``redis_server`` (session fixture): one server for the whole run, its URL.
- ``redis_url`` (function fixture): that server's db 0 emptied (FLUSHDB), its URL.

Without a ``redis-server`` on PATH the fixtures skip, unless the environment sets
``ROLLHOUSE_REQUIRE_REDIS=1`` (as CI does): then they fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

START_TIMEOUT = 10.0  # seconds to wait for PING after starting
STOP_TIMEOUT = 5.0


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_binary() -> str:
    """Path of redis-server, or skip (fail when ROLLHOUSE_REQUIRE_REDIS=1)."""
    path = shutil.which("redis-server")
    if path is None:
        message = "redis-server is not on PATH"
        if os.environ.get("ROLLHOUSE_REQUIRE_REDIS") == "1":
            pytest.fail(f"{message} and ROLLHOUSE_REQUIRE_REDIS=1")
        pytest.skip(message)
    return path


def _wait_for_ping(url: str, process: subprocess.Popen[bytes]) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if client.ping():
                    return True
            except redis.ConnectionError:
                time.sleep(0.02)
        return False
    finally:
        client.close()


def _stopper(process: subprocess.Popen[bytes]) -> Callable[[], None]:
    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_TIMEOUT)

    return stop


def launch_redis(
    tmpdir: str | os.PathLike[str],
    *,
    port: int | None = None,
    appendonly: bool = False,
    appendfsync: str = "everysec",
) -> tuple[str, subprocess.Popen[bytes]]:
    """Start redis-server with its files in ``tmpdir``; return (url, process).

    The process handle lets a fault test signal it (SIGSTOP, SIGKILL); most tests
    want :func:`start_redis`. ``appendfsync`` (``always``, ``everysec``, ``no``)
    applies with ``appendonly``.
    """
    binary = redis_binary()
    Path(tmpdir).mkdir(parents=True, exist_ok=True)
    for _attempt in range(3):  # a free port can be taken between probe and bind
        chosen = port if port is not None else free_port()
        if chosen == 6379:
            continue
        args = [binary, "--port", str(chosen), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "yes" if appendonly else "no", "--dir", str(tmpdir)]
        args += ["--appendfsync", appendfsync]
        args += ["--protected-mode", "no", "--daemonize", "no", "--loglevel", "warning"]
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{chosen}/0"
        if _wait_for_ping(url, process):
            return url, process
        _stopper(process)()
    pytest.fail(f"redis-server did not answer PING within {START_TIMEOUT}s")


def start_redis(
    tmpdir: str | os.PathLike[str], *, port: int | None = None, appendonly: bool = False
) -> tuple[str, Callable[[], None]]:
    """Start redis-server with its files in ``tmpdir``; return (url, stop).

    ``port`` reuses a port (to restart a server where clients expect it);
    ``appendonly`` turns on the AOF (fsync every second) for crash tests.
    """
    url, process = launch_redis(tmpdir, port=port, appendonly=appendonly)
    return url, _stopper(process)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One redis-server for the session; yields its URL redis://127.0.0.1:PORT/0."""
    url, stop = start_redis(tmp_path_factory.mktemp("redis"))
    try:
        yield url
    finally:
        stop()


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The session's redis-server with db 0 emptied for this test; its URL."""
    client = redis.Redis.from_url(redis_server)
    try:
        client.flushdb()
    finally:
        client.close()
    return redis_server
