"""The soak's faults, one at a time, each undone before the next is drawn.

- ``node-kill``: SIGKILL a node, start it again (same id and port): its rooms move
  to the others within the lease, then spread back as rooms are made;
- ``node-pause``: SIGSTOP a node past its lease (1.5 leases), then SIGCONT: its
  rooms move; woken, it must find itself fenced and stop acknowledging for them;
- ``master-kill``: SIGKILL a Redis master (only on a cluster the soak started): its
  replica is promoted (every acknowledged append is on it: WAIT), the old master
  is started again and rejoins as the new master's replica;
- ``master-restart``: SIGKILL a Redis master and start it again at once, as a
  supervisor may (a pod's first container restart is immediate), before its
  replica can be promoted: it comes back as the master with what its AOF holds
  (``appendfsync always``: everything it acknowledged) and its replica resyncs from
  it. With no AOF it would come back empty and its replica would drop everything
  (tests/cluster/test_master_restart.py shows the checker finds that);
- ``node-cut``: a node partitioned from Redis (every connection it has to the cluster
  blackholed by the soak's proxies, :mod:`clients.soak.netsplit`) for 2.5 leases
  while its clients stay connected: it must stop acknowledging within a lease, let
  its clients go and its rooms move; then the link heals;
- ``node-slow``: a node's links to Redis slowed for a few seconds (every chunk 20 ms
  late, one in 20 held 300 ms more: a lossy link's retransmissions);
- ``master-isolate``: a Redis master in a minority partition (nobody reaches it, it
  reaches nobody): its replica is promoted; healed, the old master rejoins as a
  replica and drops whatever it took alone (nothing acknowledged: WAIT).

The kinds come in rounds, each round in a shuffled order (:func:`draw`). Each fault
notes the rooms it stalls (a node's: the rooms whose lease it held; a
master's: the rooms whose slot it served) with their log's length when it began, so
the failover time of each is read from the tracks afterwards
(:func:`clients.soak.track.recovered_after`). The link faults need the cluster the
soak started behind its proxies: each node's store URL remaps every address the
cluster announces to that node's own proxies (``remap=``, server/store/redis_conn.py).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from redis.asyncio.cluster import RedisCluster as AsyncCluster

from clients.bench.cluster import Node
from clients.soak.history import RoomHistory, Seen, raw_log
from clients.soak.netsplit import Link, ProxiedCluster
from clients.soak.redis_cluster import NotAMaster, RedisCluster
from server.store.redis_conn import mget

NODE_FAULTS = ("node-kill", "node-pause")
REDIS_FAULTS = ("master-kill", "master-restart")
LINK_FAULTS = ("node-cut", "node-slow", "master-isolate")
"""Faults made by the soak's proxies (a cluster the soak started)."""
MASTER_FAULTS = ("master-kill", "master-restart", "master-isolate")
PAUSE_LEASES = 1.5
"""A paused node sleeps this many leases: past its lease, so its rooms move."""
CUT_LEASES = 2.5
"""A node cut from Redis stays cut this many leases: it lets go after one."""
SLOW_SECONDS = 5.0
SLOW = (0.02, 0.05, 0.3)
"""A slowed link: every chunk this late (s), this share of them held this much more."""


@attrs.define
class Fault:
    kind: str
    target: str
    began: float
    tails: dict[str, int]
    """Each room the fault stalls -> its log's length when the fault began."""
    promoted: float | None = None
    """A master's kill: seconds until its replica was a master."""
    whole: float | None = None
    """A master's kill: seconds until every master had a replica in sync again (the old
    master back as a replica): until then the promoted one acknowledges nothing."""
    restarts: int = 0


def key(prefix: str, room: str, part: str) -> str:
    return f"{prefix}:room:{{{room}}}:{part}"


async def tails(client: AsyncCluster, prefix: str, rooms: Sequence[str]) -> dict[str, int]:
    """Each room's log length now."""
    out = {}
    for room in rooms:
        top: Any = await client.xrevrange(key(prefix, room, "log"), count=1)
        out[room] = int(bytes(top[0][0]).split(b"-")[1]) if top else 0
    return out


async def held_by(client: AsyncCluster, prefix: str, rooms: Sequence[str], node: str) -> list[str]:
    """The rooms whose lease ``node`` holds now."""
    holders = await mget(client, [key(prefix, r, "lease") for r in rooms])
    return [r for r, h in zip(rooms, holders, strict=True) if h is not None and h.decode() == node]


async def kill_node(client: AsyncCluster, prefix: str, node: Node, rooms: Sequence[str]) -> Fault:
    stalled = await held_by(client, prefix, rooms, node.id)
    began = time.monotonic()
    node.kill()
    fault = Fault("node-kill", node.id, began, await tails(client, prefix, stalled))
    await asyncio.to_thread(node.start)
    fault.restarts = 1
    return fault


async def pause_node(client: AsyncCluster, prefix: str, node: Node, rooms: Sequence[str]) -> Fault:
    assert node.proc is not None
    stalled = await held_by(client, prefix, rooms, node.id)
    began = time.monotonic()
    os.kill(node.proc.pid, signal.SIGSTOP)
    try:
        fault = Fault("node-pause", node.id, began, await tails(client, prefix, stalled))
        await asyncio.sleep(max(0.0, began + PAUSE_LEASES * node.lease - time.monotonic()))
    finally:
        os.kill(node.proc.pid, signal.SIGCONT)
    return fault


async def cut_node(
    client: AsyncCluster, prefix: str, node: Node, links: Sequence[Link], rooms: Sequence[str]
) -> Fault:
    """Blackhole every link of ``node`` to Redis for :data:`CUT_LEASES` leases."""
    return await _on_links("node-cut", client, prefix, node, links, rooms,
                           CUT_LEASES * node.lease, Link.partition, Link.heal)  # fmt: skip


async def slow_node(
    client: AsyncCluster, prefix: str, node: Node, links: Sequence[Link], rooms: Sequence[str]
) -> Fault:
    """Slow every link of ``node`` to Redis (:data:`SLOW`) for :data:`SLOW_SECONDS`."""
    return await _on_links("node-slow", client, prefix, node, links, rooms, SLOW_SECONDS,
                           lambda link: link.slow(*SLOW), Link.slow)  # fmt: skip


async def _on_links(
    kind: str,
    client: AsyncCluster,
    prefix: str,
    node: Node,
    links: Sequence[Link],
    rooms: Sequence[str],
    seconds: float,
    do: Callable[[Link], object],
    undo: Callable[[Link], object],
) -> Fault:
    """``do`` to every link of ``node`` for ``seconds``, then ``undo``."""
    stalled = await held_by(client, prefix, rooms, node.id)
    began = time.monotonic()
    for link in links:
        do(link)
    try:
        fault = Fault(kind, node.id, began, await tails(client, prefix, stalled))
        await asyncio.sleep(max(0.0, began + seconds - time.monotonic()))
    finally:
        for link in links:
            undo(link)
    return fault


async def kill_master(
    client: AsyncCluster,
    cluster: RedisCluster,
    prefix: str,
    master: int,
    histories: Sequence[RoomHistory],
) -> Fault:
    """SIGKILL ``master``; the views of its rooms' players are noted first (the
    checker finds any record they saw that the promoted replica lacks)."""
    return await _lose_master("master-kill", client, cluster, prefix, master, histories)


async def isolate_master(
    client: AsyncCluster,
    cluster: ProxiedCluster,
    prefix: str,
    master: int,
    histories: Sequence[RoomHistory],
) -> Fault:
    """Put ``master`` in a minority partition until its replica is promoted, then heal."""
    return await _lose_master("master-isolate", client, cluster, prefix, master, histories)


async def restart_master(
    client: AsyncCluster,
    cluster: RedisCluster,
    prefix: str,
    master: int,
    histories: Sequence[RoomHistory],
) -> Fault:
    """SIGKILL ``master`` and start it again at once (before any failover)."""
    return await _lose_master("master-restart", client, cluster, prefix, master, histories)


async def _lose_master(
    kind: str,
    client: AsyncCluster,
    cluster: RedisCluster,
    prefix: str,
    master: int,
    histories: Sequence[RoomHistory],
) -> Fault:
    await _whole_with(cluster, master)
    before = await _note_views(client, cluster, prefix, master, histories)
    at_once = kind == "master-restart"  # no promotion to wait for
    replica = None if at_once else await asyncio.to_thread(cluster.replica_of, master)
    began = time.monotonic()
    proxied = cluster if isinstance(cluster, ProxiedCluster) and kind == "master-isolate" else None
    if proxied is not None:
        proxied.isolate(master)
    else:
        cluster.kill(master)
    fault = Fault(kind, f"redis {master}", began, before, restarts=0 if proxied is not None else 1)
    try:
        if replica is not None:
            await asyncio.to_thread(cluster.wait_promoted, replica)
            fault.promoted = time.monotonic() - began
    finally:
        if proxied is not None:
            proxied.heal()
        else:
            await asyncio.to_thread(cluster.restart, master)
    await asyncio.to_thread(cluster.wait_whole, 60.0)
    fault.whole = time.monotonic() - began
    return fault


async def _whole_with(cluster: RedisCluster, master: int) -> None:
    """Wait for the cluster to be whole (every master with a replica in sync: one whose
    replica is not attached has nothing to promote), ``master`` still one of them."""
    await asyncio.to_thread(cluster.wait_whole, 60.0)
    if master not in await asyncio.to_thread(cluster.masters):
        raise NotAMaster(f"redis {master} is no longer a master")


async def _note_views(
    client: AsyncCluster,
    cluster: RedisCluster,
    prefix: str,
    master: int,
    histories: Sequence[RoomHistory],
) -> dict[str, int]:
    """The log length of each room ``master`` serves; the views of their players first
    (the checker finds any record they saw that the log lacks afterwards)."""
    rooms = [h.room for h in histories]
    stalled = [r for r in rooms if _port(client, cluster, key(prefix, r, "log")) == master]
    before = await tails(client, prefix, stalled)
    for history in histories:
        if history.room in stalled and history.players:
            seen = max(p.seq for p in history.players)
            log = await asyncio.to_thread(_read, cluster, prefix, history.room)
            history.snapshots.append(Seen(seen, log))
    return before


def _port(client: AsyncCluster, cluster: RedisCluster, name: str) -> int | None:
    """The member serving ``name`` (its own port, not a proxy's)."""
    node = client.get_node_from_key(name)
    return None if node is None else cluster.real(int(node.port))


def _read(cluster: RedisCluster, prefix: str, room: str) -> list[tuple[int, bytes]]:
    sync = cluster.client()
    try:
        return [(s, b) for s, b, _ in raw_log(sync, prefix, room)]
    finally:
        sync.close()


def draw(
    rng: random.Random,
    deck: list[str],
    kinds: Sequence[str],
    nodes: Sequence[Node],
    masters: list[int],
) -> tuple[str, Node | int]:
    """The next fault and its target. The kinds come in rounds, each in a shuffled order
    (``deck`` holds what is left of this round), so a short run sees every kind."""
    if not deck:
        deck += rng.sample(list(kinds), len(kinds))
    kind = deck.pop()
    if kind in MASTER_FAULTS:
        return kind, rng.choice(masters)
    return kind, rng.choice(list(nodes))
