"""Three ``rollhouse serve`` nodes on one test-started redis-server (loopback only).

``nodes`` starts them for one test (tests that kill, pause or drain a node);
``shared_nodes`` once for the module (tests that leave every node running).
Every node runs with a short lease (``LEASE`` seconds) so failovers are quick.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess

LEASE = 2.0
NODES = 3


def start_nodes(tmp: Path) -> tuple[str, list[ServerProcess], object]:
    url, stop = start_redis(tmp / "redis", appendonly=True)
    servers = [
        ServerProcess(url, tmp, args=("--node-id", f"n{i}", "--lease", str(LEASE)))
        for i in range(NODES)
    ]
    try:
        for server in servers:
            server.start()
    except Exception:
        for server in servers:
            server.kill()
        stop()
        raise
    return url, servers, stop


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[tuple[str, list[ServerProcess]]]:
    """(redis URL, three running nodes) for this test."""
    url, servers, stop = start_nodes(tmp_path)
    try:
        yield url, servers
    finally:
        for server in servers:
            server.kill()
        stop()  # type: ignore[operator]


@pytest.fixture(scope="module")
def shared_nodes(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, list[ServerProcess]]]:
    """(redis URL, three running nodes) shared by a module's tests."""
    url, servers, stop = start_nodes(tmp_path_factory.mktemp("cluster"))
    try:
        yield url, servers
    finally:
        for server in servers:
            server.kill()
        stop()  # type: ignore[operator]


def metric(server: ServerProcess, name: str, **labels: str) -> float:
    """One series of a node's /metrics (0 when absent)."""
    text = httpx.get(server.url + "/metrics", timeout=5).text
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    series = f"{name}{{{want}}}" if labels else name
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    match = re.search(rf"^{re.escape(series)} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0
