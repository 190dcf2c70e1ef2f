"""A real Redis Cluster for the tests: three masters and three replicas on loopback,
started by :mod:`clients.soak.redis_cluster` (the same launcher ``rollhouse soak``
uses).

- ``launch_cluster(tmpdir)``: the processes, for fault tests that SIGKILL a master
  and watch its replica take over (:class:`RedisCluster`).
- ``redis_cluster`` (session fixture): one cluster for the whole run.
- ``redis_cluster_url`` (function fixture): its masters emptied (FLUSHALL), its store
  URL ``redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3``.

Without redis-server or redis-cli on PATH the fixtures skip, unless
``ROLLHOUSE_REQUIRE_REDIS=1`` (CI): then they fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.soak.redis_cluster import NoRedis, RedisCluster
from clients.soak.redis_cluster import binaries as cluster_binaries
from clients.soak.redis_cluster import launch_cluster as _launch
from tests.support.required import missing

__all__ = ["RedisCluster", "binaries", "launch_cluster"]


def binaries() -> tuple[str, str]:
    """redis-server and redis-cli, or skip (fail under ROLLHOUSE_REQUIRE_REDIS=1)."""
    try:
        return cluster_binaries()
    except NoRedis as exc:
        missing(str(exc), "ROLLHOUSE_REQUIRE_REDIS")


def launch_cluster(
    directory: Path,
    *,
    appendonly: bool = False,
    config: Path | None = None,
    appendfsync: str = "everysec",
    validity: int | None = None,
) -> RedisCluster:
    """Start a Redis Cluster with its files under ``directory`` (skip without Redis);
    the settings as :func:`clients.soak.redis_cluster.launch_cluster`."""
    binaries()
    return _launch(
        directory, appendonly=appendonly, config=config, appendfsync=appendfsync,
        validity=validity,
    )  # fmt: skip


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    """One Redis Cluster (three masters, three replicas) for the session."""
    cluster = launch_cluster(tmp_path_factory.mktemp("redis-cluster"))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def redis_cluster_url(redis_cluster: RedisCluster) -> str:
    """The session's cluster with every master emptied; its store URL."""
    redis_cluster.flush()
    return redis_cluster.url
