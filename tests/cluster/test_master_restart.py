"""A Redis master killed and started again at once, before its replica is promoted.

What a supervisor that restarts it within the node timeout does (a pod's first
container restart is immediate): the master comes back still the master of its slots,
with what it loaded from disk, and its replica resyncs from it, dropping what it
held. So a master may only be restarted with an AOF that holds every write it
acknowledged: ``appendfsync always`` (deploy/redis-cluster.conf; Redis flushes the
AOF before it answers a client or feeds a replica). ``everysec`` can lose the last
second, no AOF loses everything the shard held. The negative control runs without an
AOF and passes only if the checker finds acknowledged commands missing (and if the
master really came back before a failover: else the fault did not happen).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clients.soak.redis_cluster import ALWAYS
from tests.cluster.support import (
    end_and_check,
    nodes_on_a_cluster,
    note_seen,
    under_way,
)
from tests.support.redis_cluster import RedisCluster
from tests.support.server import ServerProcess

pytestmark = [pytest.mark.redis, pytest.mark.timeout(300)]


async def _restart_master_at_once(
    cluster: RedisCluster, servers: list[ServerProcess], timeout: float
) -> tuple[list[str], dict[str, int], bool]:
    """Kill the master of the first room's slot mid-game and start it again at once;
    the checker's violations and counts, and whether it came back as the master."""
    histories, games, master = await under_way(cluster, servers)
    note_seen(cluster, histories)
    cluster.kill(master)
    await asyncio.to_thread(cluster.restart, master)
    still = cluster.replication(master).get("role") == "master"
    await asyncio.to_thread(cluster.wait_whole, 30.0)
    problems, counts, stuck = await end_and_check(cluster, histories, games, timeout)
    print(f"\nmaster {master} killed and started again, still the master: {still}; "
          f"{counts}; {stuck} seats stalled; {len(problems)} violations; "
          f"first: {problems[:3]}")  # fmt: skip
    return problems, counts, still


async def test_a_master_restarted_at_once_with_its_aof_loses_nothing(tmp_path: Path) -> None:
    """``appendfsync always``: every acknowledged command is in the log, every room
    finishes."""
    with nodes_on_a_cluster(tmp_path, appendonly=True, appendfsync=ALWAYS) as launched:
        problems, counts, _still = await _restart_master_at_once(*launched, 150)
    assert problems == [], problems
    assert counts["acked"] > 0 and counts["seen_records_checked"] > 0


async def test_negative_control_a_master_restarted_without_aof_loses_acks(tmp_path: Path) -> None:
    """No AOF: the master comes back empty, its replica resyncs to nothing, and the
    checker finds acknowledged commands missing."""
    with nodes_on_a_cluster(tmp_path, appendonly=False) as launched:
        problems, _counts, still = await _restart_master_at_once(*launched, 10)
    assert still, "the replica was promoted first: the fault did not happen"
    assert [p for p in problems if p.endswith("(lost)")], problems
