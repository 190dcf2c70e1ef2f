"""Three ``rollhouse serve`` nodes on a real Redis Cluster (three masters, three
replicas, tests/support/redis_cluster.py): games across nodes, and a master SIGKILLed
mid-game with its replica promoted, checked over the recorded history
(clients/soak/history.py).

The fault: the replica of the master that holds the first room is frozen (SIGSTOP)
and its link to the master cut (the master closes it: CLIENT KILL TYPE replica; the
frozen replica cannot come back), while play goes on, so it falls behind (Redis
replicates asynchronously and a master goes on without its replicas); then the
master is SIGKILLed and the replica thawed, and it takes over with what it has; the
killed master is started again (it comes back as the new master's replica: until
then the new master has no replica, and nothing on it can be acknowledged). A
build that acknowledged an append before a replica held it would have told players
of records the new master never got: the checker finds them. The negative control
(``test_negative_control_acks_before_wait_are_caught``) runs the nodes so (``?wait=0``:
acknowledge what the master alone holds) and passes only if the checker fails;
``ROLLHOUSE_FAULT_WAIT=0`` runs the positive test so too.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.cluster import RedisCluster as SyncCluster

from clients.soak.history import check, epochs, raw_log
from server.cluster.leases import Leases
from server.store import StoreFenced, StoreUnavailable, open_store
from server.store.redis_conn import connect, single_shot
from tests.cluster.support import (
    end_and_check,
    nodes_on_a_cluster,
    note_seen,
    start_games,
    under_way,
)
from tests.support.redis_cluster import RedisCluster, launch_cluster
from tests.support.server import ServerProcess

pytestmark = [pytest.mark.redis, pytest.mark.timeout(420)]

LEASE = 2.0
NODES = 3
ROOMS = 3
SEATS = 3
FROZEN_FOR = 1.5
"""Seconds the replica stays frozen while play goes on, before its master is killed."""
GAMES_TIMEOUT = 150.0
"""Seconds the games have to end after the kill."""


@pytest.fixture
def cluster_nodes(tmp_path: Path) -> Iterator[tuple[RedisCluster, list[ServerProcess]]]:
    """A Redis Cluster of its own and three nodes on it (``ROLLHOUSE_FAULT_WAIT``
    replicas per ack, 1 by default)."""
    with nodes_on_a_cluster(
        tmp_path, LEASE, "wait=" + os.environ.get("ROLLHOUSE_FAULT_WAIT", "1")
    ) as launched:
        yield launched


@pytest.fixture
def acking_before_wait(tmp_path: Path) -> Iterator[tuple[RedisCluster, list[ServerProcess]]]:
    """The broken build of the negative control: nodes that acknowledge what the
    master alone holds (``?wait=0``)."""
    with nodes_on_a_cluster(tmp_path, LEASE, "wait=0") as launched:
        yield launched


def _client(cluster: RedisCluster) -> SyncCluster:
    return cluster.client()


async def test_games_across_nodes_on_a_cluster(
    cluster_nodes: tuple[RedisCluster, list[ServerProcess]],
) -> None:
    """Rooms on three nodes over a Redis Cluster, seats relayed: every game finishes and
    the history checks out (acks once, epochs one node each)."""
    cluster, servers = cluster_nodes
    histories, games = await start_games(servers, ROOMS, SEATS)
    finals = await asyncio.wait_for(asyncio.gather(*games), 150)
    for i, history in enumerate(histories):
        history.finals = finals[i * SEATS : (i + 1) * SEATS]
    client = _client(cluster)
    try:
        problems, counts = check(client, histories)
    finally:
        client.close()
    print(f"\ncluster games: {counts}")
    assert problems == []
    assert counts["acked"] > 0
    for history in histories:
        for p in history.players:
            await p.close()


async def _kill_master_mid_game(
    cluster: RedisCluster, servers: list[ServerProcess], timeout: float = GAMES_TIMEOUT
) -> tuple[list[str], dict[str, int]]:
    """The master of the first room's slot SIGKILLed mid-game, its replica frozen and cut
    off before (module docstring); the checker's violations and counts."""
    histories, games, master = await under_way(cluster, servers, ROOMS, SEATS)
    replica = cluster.replica_of(master)
    cluster.signal(replica, signal.SIGSTOP)
    cluster.cut_replicas(master)  # what the master takes from now on reaches no replica
    await asyncio.sleep(FROZEN_FOR)
    note_seen(cluster, histories)
    killed = time.monotonic()
    cluster.kill(master)
    cluster.signal(replica, signal.SIGCONT)
    await asyncio.to_thread(cluster.wait_promoted, replica)
    promoted = time.monotonic() - killed
    await asyncio.to_thread(cluster.restart, master)  # back as the new master's replica
    problems, counts, stuck = await end_and_check(cluster, histories, games, timeout)
    finished = time.monotonic() - killed
    print(f"\nmaster {master} killed (replica {replica} frozen {FROZEN_FOR} s before): "
          f"{counts}; replica promoted {promoted:.1f} s and games ended {finished:.1f} s "
          f"after the kill; {stuck} seats stalled; {len(problems)} violations")  # fmt: skip
    return problems, counts


async def test_master_sigkill_mid_game_loses_nothing_acknowledged(
    cluster_nodes: tuple[RedisCluster, list[ServerProcess]],
) -> None:
    """A master SIGKILLed mid-game (its replica frozen behind it, then promoted): every
    acked command in the log once, no view ahead of the log, one node per epoch, every
    room finishes."""
    problems, counts = await _kill_master_mid_game(*cluster_nodes)
    assert problems == [], problems
    assert counts["acked"] > 0 and counts["seen_records_checked"] > 0


async def test_negative_control_acks_before_wait_are_caught(
    acking_before_wait: tuple[RedisCluster, list[ServerProcess]],
) -> None:
    """Negative control: the same fault on nodes that acknowledge before any replica
    holds the append (``?wait=0``, i.e. without WAIT). The checker must find
    acknowledged commands missing from the log (it did in every run so far; found
    whether or not the games finish: they get 10 s)."""
    problems, counts = await _kill_master_mid_game(*acking_before_wait, timeout=10.0)
    missing = [p for p in problems if p.endswith("(lost)")]
    print(f"negative control: {len(missing)} of {counts['acked']} acked commands missing; "
          f"first: {problems[:3]}")  # fmt: skip
    assert missing, "the checker did not catch acks that no replica held"


async def test_leases_and_fences_on_the_cluster(
    redis_cluster: RedisCluster, redis_cluster_url: str
) -> None:
    """On a Redis Cluster: claims wait for a replica and note their node, fenced records
    keep their epoch, a stale epoch is refused, and a fence found below a node's epoch
    is put back up while the node drops the room."""
    client = connect(redis_cluster_url)
    store = open_store(redis_cluster_url)
    try:
        a, b = (Leases(client, "rollhouse", n, 0.2, replicas=1) for n in "ab")
        epoch = (await a.take("r-1")).epoch
        await store.append("r-1", [{"k": "x"}], 0, fence=epoch)
        await asyncio.sleep(0.3)
        claimed = await b.take("r-1")
        with pytest.raises(StoreFenced):
            await store.append("r-1", [{"k": "y"}], 1, fence=epoch)
        assert await store.append("r-1", [{"k": "z"}], 1, fence=claimed.epoch) == 2
        sync = redis_cluster.client()
        try:
            assert [e for _, _, e in raw_log(sync, "rollhouse", "r-1")] == [epoch, claimed.epoch]
            assert epochs(sync, "rollhouse", "r-1") == {str(epoch): "a", str(claimed.epoch): "b"}
        finally:
            sync.close()
        await client.set("rollhouse:room:{r-1}:fence", claimed.epoch - 1)  # a lost INCR
        assert await b.renew({"r-1": claimed.epoch}) == {"r-1": False}
        assert int(await client.get("rollhouse:room:{r-1}:fence")) == claimed.epoch
        assert b.backwards == 1
    finally:
        await store.close()
        await client.aclose()


async def test_a_fenced_refence_still_waits_for_a_replica(
    redis_cluster: RedisCluster, redis_cluster_url: str
) -> None:
    """A room settling an append of unknown outcome refences first; when the lease has
    lapsed (nobody's: no claim WAITed since), the refence is refused, and the room would
    answer from the log what only the master may hold. So a refused refence first
    writes a marker to the room's slot and WAITs: asked for two replicas of masters
    that have one, it is StoreUnavailable (settle again later), not StoreFenced; with
    one, StoreFenced. (Before, both were StoreFenced at once: found by the 30-minute
    soak, which lost acknowledged commands.)"""
    client = connect(redis_cluster_url)
    try:
        writer = single_shot(redis_cluster_url, client, 1.0)
        strict = Leases(client, "rollhouse", "a", 0.2, replicas=2, wait_timeout=0.1, writer=writer)
        fair = Leases(client, "rollhouse", "a", 0.2, replicas=1, wait_timeout=1.0, writer=writer)
        with pytest.raises(StoreUnavailable):
            await strict.refence("r-lapsed")
        with pytest.raises(StoreFenced):
            await fair.refence("r-lapsed")
        assert await client.get("rollhouse:room:{r-lapsed}:synced") == b"a"
    finally:
        await client.aclose()


async def test_one_master_away_costs_only_its_own_rooms_renewals(tmp_path: Path) -> None:
    """A renewal goes to each master on its own: with one master stopped (SIGSTOP, as
    a failover begins), its rooms' renewals are unknown (None) while the rooms on the
    other masters renew, and the node is not taken for cut off; only with every master
    stopped is the renewal StoreUnavailable. (Before, one pipeline for all: one master
    away failed every renewal, and a node let go of every room it ran after a lease.)"""
    cluster = await asyncio.to_thread(launch_cluster, tmp_path / "redis")
    taker = connect(cluster.url)
    client = connect(cluster.url, socket_timeout=0.3, socket_connect_timeout=0.3)
    stopped: list[int] = []
    try:
        claims = Leases(taker, "rollhouse", "a", 1.0, replicas=1)
        rooms = [f"r-{i}" for i in range(30)]
        epochs_of = {room: (await claims.take(room)).epoch for room in rooms}
        leases = Leases(client, "rollhouse", "a", 1.0)  # the same node's renewals
        masters = {room: await asyncio.to_thread(cluster.master_of, f"rollhouse:room:{{{room}}}:lease")
                   for room in rooms}  # fmt: skip
        away = masters[rooms[0]]
        cluster.signal(away, signal.SIGSTOP)
        stopped.append(away)
        renewed = await leases.renew(epochs_of)
        assert {r for r, ok in renewed.items() if ok is None} == {
            r for r in rooms if masters[r] == away
        }
        assert all(renewed[r] is True for r in rooms if masters[r] != away)
        for port in set(masters.values()) - {away}:
            cluster.signal(port, signal.SIGSTOP)
            stopped.append(port)
        with pytest.raises(StoreUnavailable):
            await leases.renew(epochs_of)
    finally:
        for port in stopped:
            cluster.signal(port, signal.SIGCONT)
        await client.aclose()
        await taker.aclose()
        await asyncio.to_thread(cluster.stop)
