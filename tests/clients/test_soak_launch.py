"""The soak's Redis Cluster launcher starts again on fresh ports when a new cluster does
not become whole in time (seen once under the suite's load), and says what was missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.soak import redis_cluster
from clients.soak.redis_cluster import LAUNCH_TRIES, NotWhole, RedisCluster


def launcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: int) -> list[list[int]]:
    """A launcher whose first ``fails`` clusters never become whole (no process is
    started: ``_make`` and ``stop`` stand in); the ports of each attempt."""
    monkeypatch.setattr(redis_cluster, "binaries", lambda: ("redis-server", "redis-cli"))
    cluster = RedisCluster(tmp_path)
    tried: list[list[int]] = []

    def make() -> None:
        tried.append(list(cluster.ports))
        if len(tried) <= fails:
            raise NotWhole(
                "the Redis Cluster did not become whole in 30 s: master 1 has no replica connected"
            )

    monkeypatch.setattr(cluster, "_make", make)
    monkeypatch.setattr(cluster, "stop", lambda: None)
    cluster.start()
    return tried


def test_a_cluster_that_never_becomes_whole_is_made_again_on_fresh_ports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tried = launcher(tmp_path, monkeypatch, fails=1)
    assert len(tried) == 2 and tried[0] != tried[1]


def test_the_last_try_raises_what_was_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(NotWhole, match="has no replica connected"):
        launcher(tmp_path, monkeypatch, fails=LAUNCH_TRIES)
