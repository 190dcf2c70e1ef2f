"""A replica that has not synced since it restarted must never be promoted.

The fault (what a 30-minute soak ran into by chance, docs/cluster.md): a master is
SIGKILLed and its replica promoted; the old master is started again and comes back
as the new master's replica, holding whatever it loaded from disk (here nothing: no
persistence) until it has synced. Before it has, the new master fails too (frozen
past the node timeout: a spontaneous failover under load does the same). Redis then
has one candidate for the slots, the replica that never synced.

Kept to Redis's ``cluster-replica-validity-factor`` (10, deploy/redis-cluster.conf),
that replica refuses to take over (its data is as old as its restart); the master,
thawed, keeps its slots, the replica syncs, and every acknowledged command is still
in the log. With the factor 0, as the soak's cluster ran before, the replica takes
over with nothing, the thawed master becomes its replica and drops its data to
resync: every acknowledged command of that shard is lost. The negative control runs
so and passes only if the checker finds the loss (it shows the checker and the fault
would catch a cluster configured to lose; our nodes cannot help it: what a promoted
master lacks, they cannot put back).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.cluster.support import (
    end_and_check,
    nodes_on_a_cluster,
    note_seen,
    under_way,
)
from tests.support.redis_cluster import RedisCluster
from tests.support.server import ServerProcess

pytestmark = [pytest.mark.redis, pytest.mark.timeout(300)]

FROZEN_FOR = 4.0
"""Seconds the new master stays frozen: past the node timeout (1 s) and an election."""


async def _unsynced_replica_left_alone(
    cluster: RedisCluster, servers: list[ServerProcess], timeout: float
) -> tuple[list[str], dict[str, int], bool]:
    """The fault of the module docstring; the checker's violations and counts, and
    whether the unsynced replica took over."""
    histories, games, old = await under_way(cluster, servers)
    new = cluster.replica_of(old)
    note_seen(cluster, histories)
    cluster.kill(old)
    await asyncio.to_thread(cluster.wait_promoted, new)
    # the new master has no replica now: it holds every acknowledged command, and takes
    # no more until the old one is back
    cluster.signal(new, signal.SIGSTOP)  # before the old master can sync from it
    try:
        await asyncio.to_thread(cluster.restart, old)
        await asyncio.sleep(FROZEN_FOR)
        took_over = cluster.replication(old).get("role") == "master"
    finally:
        cluster.signal(new, signal.SIGCONT)
    await asyncio.to_thread(cluster.wait_whole, 30.0)
    problems, counts, stuck = await end_and_check(cluster, histories, games, timeout)
    print(f"\nmaster {old} killed, {new} promoted then frozen {FROZEN_FOR} s with {old} "
          f"back unsynced: {old} took over: {took_over}; {counts}; {stuck} seats stalled; "
          f"{len(problems)} violations; first: {problems[:3]}")  # fmt: skip
    return problems, counts, took_over


async def test_a_replica_back_from_a_restart_is_not_promoted_before_it_synced(
    tmp_path: Path,
) -> None:
    """Redis's default validity factor: the unsynced replica waits, nothing acknowledged
    is lost, every room finishes."""
    with nodes_on_a_cluster(tmp_path) as (cluster, servers):
        problems, counts, took_over = await _unsynced_replica_left_alone(cluster, servers, 150)
    assert not took_over
    assert problems == [], problems
    assert counts["acked"] > 0 and counts["seen_records_checked"] > 0


async def test_negative_control_a_stale_replica_promoted_loses_acks(tmp_path: Path) -> None:
    """``cluster-replica-validity-factor 0``: the unsynced replica takes over and the
    checker finds acknowledged commands missing from the log."""
    with nodes_on_a_cluster(tmp_path, validity=0) as (cluster, servers):
        problems, _counts, took_over = await _unsynced_replica_left_alone(cluster, servers, 10)
    assert took_over, "the unsynced replica was not promoted: the fault did not happen"
    assert [p for p in problems if p.endswith("(lost)")], problems
