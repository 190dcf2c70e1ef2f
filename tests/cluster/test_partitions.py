"""Issue 23, item 3: partitions and slow links on a Redis Cluster, made by TCP proxies
the test controls (clients/soak/netsplit.py), each checked over the recorded history
(clients/soak/history.py: every acknowledged command in the log exactly once, no view
ahead of the log, one node per fence epoch, every room finished once the faults stop).

Three masters with a replica each talk to each other only through proxies (client
and cluster-bus ports announced as the proxies', outgoing connections bound to an
address of each member's own); each of the three ``rollhouse serve`` nodes reaches
every member through proxies of its own (``remap`` in its store URL); players reach
each node through one proxy per node. Three rooms of three seats, most seats relayed.

- a node partitioned from Redis while its clients stay connected: no client hears an
  ack from it from one lease after the cut, its room moves to another node (a later
  epoch taken by another node), and every room finishes while it is still cut off
  (it lets its clients go: they resume on the other nodes);
- a node partitioned from its clients but not from Redis: its players go to the other
  nodes, which relay to it (it keeps its rooms), every room finishes;
- a Redis master in a minority partition: nobody reaches it, it reaches nobody; its
  replica is promoted by the majority; healed, it rejoins as a replica; nothing
  acknowledged is lost (WAIT) and every room finishes;
- a slow, lossy link between a node and Redis: 40 ms each way, a tenth of the chunks
  held 0.3 s more, every connection reset every 1.5 s; the games go on meanwhile and
  finish once it heals.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from clients.bots.play import play_seat
from clients.sdk import create_room
from clients.soak.history import RoomHistory, Seen, check, epochs, raw_log
from clients.soak.netsplit import Link, ProxiedCluster, source_address
from tests.cluster.support import RecordingClient
from tests.support.redis_cluster import binaries
from tests.support.server import ServerProcess

pytestmark = [pytest.mark.redis, pytest.mark.timeout(240)]

LEASE = 2.0
NODES = 3
ROOMS = 3
SEATS = 3
BEHIND = 1.5
"""Seconds a master takes writes no replica gets before its minority partition."""
GAMES_TIMEOUT = 120.0
CUT_GAMES_TIMEOUT = 60.0
"""Seconds the games have to end while a node stays cut off from Redis."""
"""Seconds the games have to end once the fault is over."""


class ViaClient(RecordingClient):
    """A recording player that also notes which URL each ack came through, and when."""

    via: list[tuple[str, float]]

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        seq = await super().send(command, cmd_id)
        self.via.append((self.url, time.monotonic()))
        return seq


@attrs.define
class Setup:
    cluster: ProxiedCluster
    servers: list[ServerProcess]
    fronts: list[Link]
    """The proxy players reach node i through."""

    def ws_urls(self, first: int) -> list[str]:
        return [f"ws://127.0.0.1:{self.fronts[(first + i) % NODES].port}/ws"
                for i in range(NODES)]  # fmt: skip


@pytest.fixture
async def setup(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Setup]:
    """The proxied cluster, three nodes on it (acknowledging once ``wait`` replicas
    hold a write: 1, or ``wait=N`` as the test's indirect parameter; ``module=M`` runs
    a broken build instead: a negative control), a proxy in front of each."""
    binaries()  # skip (or fail under CI) before anything starts
    param = dict(part.split("=", 1) for part in getattr(request, "param", "").split(",") if part)
    wait, module = param.get("wait", "1"), param.get("module", "clients.cli")
    names = [f"n{i}" for i in range(NODES)]
    cluster = await ProxiedCluster(tmp_path / "redis").launch(names)
    servers = [
        ServerProcess(cluster.node_url(name, f"wait={wait}"), tmp_path,
                      args=("--node-id", name, "--lease", str(LEASE)), module=module)
        for name in names
    ]  # fmt: skip
    fronts: list[Link] = []
    try:
        for server in servers:  # in a thread: the proxies live in this loop
            await asyncio.to_thread(server.start)
            fronts.append(await Link(server.port, f"players to {server.port}").start())
        yield Setup(cluster, servers, fronts)
    finally:
        for server in servers:
            server.kill()
        for link in fronts:
            await link.close()
        await asyncio.to_thread(cluster.stop)
        await cluster.close_links()


@attrs.define
class Game:
    histories: list[RoomHistory]
    tasks: list[asyncio.Task[dict[str, Any]]]
    owners: list[str]


async def _start(setup: Setup) -> Game:
    histories, tasks, owners = [], [], []
    for r in range(ROOMS):
        made = await create_room(setup.servers[r % NODES].url, "rollie", SEATS,
                                 room={"clock": 0})  # fmt: skip
        room = made["room"]
        owners.append(made["node"])
        players = []
        for i in range(SEATS):  # seat i of room r goes to node (r + i) % 3 first
            p = ViaClient(setup.ws_urls((r + i) % NODES), room, name=f"p{i}",
                          backoff=(0.05, 0.5), ping_every=1.0)  # fmt: skip
            p.acked, p.via = [], []
            players.append(await p.connect())
        histories.append(RoomHistory(room, players))
        tasks += [asyncio.create_task(play_seat(p, "push", delay=0.02, seed=10 * r + i))
                  for i, p in enumerate(players)]  # fmt: skip
    return Game(histories, tasks, owners)


def _before(setup: Setup, game: Game) -> None:
    """What the clients have seen, then the log behind it (no view ahead of the log).
    Run in a thread, as every call of a synchronous client here: the proxies it goes
    through live in the test's loop."""
    seen = [max(p.seq for p in history.players) for history in game.histories]
    client = setup.cluster.client()
    try:
        for history, seq in zip(game.histories, seen, strict=True):
            log = [(s, b) for s, b, _ in raw_log(client, "rollhouse", history.room)]
            history.snapshots.append(Seen(seq, log))
    finally:
        client.close()


def _check(setup: Setup, game: Game) -> tuple[list[str], dict[str, int]]:
    client = setup.cluster.client()
    try:
        return check(client, game.histories)
    finally:
        client.close()


def _epochs(setup: Setup, room: str) -> dict[str, str]:
    client = setup.cluster.client()
    try:
        return epochs(client, "rollhouse", room)
    finally:
        client.close()


async def _finish(
    setup: Setup, game: Game, timeout: float
) -> tuple[list[str], dict[str, int], float, int]:
    """Wait for the games; (violations, counts, seconds until they ended, seats stuck)."""
    started = time.monotonic()
    done, stuck = await asyncio.wait(game.tasks, timeout=timeout)
    ended = time.monotonic() - started
    for task in stuck:
        task.cancel()
    await asyncio.gather(*stuck, return_exceptions=True)
    for i, history in enumerate(game.histories):
        mine = game.tasks[i * SEATS : (i + 1) * SEATS]
        history.finals = [t.result() for t in mine if t in done and t.exception() is None]
    problems, counts = await asyncio.to_thread(_check, setup, game)
    for history in game.histories:
        for p in history.players:
            await p.close()
    return problems, counts, ended, len(stuck)


async def _run(
    setup: Setup, fault: Callable[[Setup, Game], Awaitable[str]], timeout: float = GAMES_TIMEOUT
) -> tuple[list[str], dict[str, int]]:
    game = await _start(setup)
    first = game.histories[0].players[0]
    await first.wait_for(lambda _: first.seq >= 12, timeout=60)
    if fault is not _minority:  # it reads the log once the master is behind
        await asyncio.to_thread(_before, setup, game)
    said = await fault(setup, game)
    problems, counts, ended, stuck = await _finish(setup, game, timeout)
    print(f"\n{said}; games ended {ended:.1f} s after the heal, {stuck} seats stuck: {counts}")
    return problems, counts


async def _moved(setup: Setup, room: str, away_from: str, timeout: float) -> float | None:
    """Seconds until another node than ``away_from`` took an epoch of ``room``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        taken = await asyncio.to_thread(_epochs, setup, room)
        if any(node != away_from for node in taken.values()):
            return time.monotonic() - started
        await asyncio.sleep(0.1)
    return None


MOVED_ON = 6 * LEASE
"""Seconds within which a player that was on a node cut from Redis acks again elsewhere."""


def _playing(game: Game) -> list[tuple[Any, asyncio.Task[Any]]]:
    """The players whose game is not over yet, with their play's task."""
    players = [p for h in game.histories for p in h.players]
    return [(p, task) for p, task in zip(players, game.tasks, strict=True) if not task.done()]


async def _moved_on(
    playing: list[tuple[Any, asyncio.Task[Any]]], front: str, cut: float
) -> tuple[int, int]:
    """Once :data:`MOVED_ON` has passed since ``cut``: (the ``playing`` players whose last
    ack before the cut came through ``front``, those of them that acked through another
    node since, or whose game ended)."""
    await asyncio.sleep(max(0.0, cut + MOVED_ON - time.monotonic()))
    there = [(p, task) for p, task in playing
             if [url for url, t in p.via if t < cut][-1:] == [front]]  # fmt: skip
    moved = [p for p, task in there
             if task.done() or any(url != front and cut < t < cut + MOVED_ON for url, t in p.via)]  # fmt: skip
    return len(there), len(moved)


async def test_a_node_cut_from_redis_stops_acknowledging_and_its_room_moves(
    setup: Setup,
) -> None:
    """The owner of the first room loses Redis (every proxy of its own held) while its
    players' connections stay up: it acknowledges nothing more from one lease after the
    cut, its room is taken by another node, and its players (and those it relayed to
    other rooms) go elsewhere, acking again within a few leases: every room finishes
    while it is still cut off."""

    async def fault(setup: Setup, game: Game) -> str:
        owner = game.owners[0]
        front = f"ws://127.0.0.1:{setup.fronts[int(owner[1:])].port}/ws"
        playing = _playing(game)
        cut = time.monotonic()
        for link in setup.cluster.links_of(owner):
            link.partition()
        moved = await _moved(setup, game.histories[0].room, owner, 20)
        there, moved_on = await _moved_on(playing, front, cut)
        _, stuck = await asyncio.wait(game.tasks, timeout=CUT_GAMES_TIMEOUT)
        healed = time.monotonic()
        for link in setup.cluster.links_of(owner):
            link.heal()
        players = [p for h in game.histories for p in h.players]
        late = [(t - cut) for p in players for url, t in p.via  # type: ignore[attr-defined]
                if url == front and cut + LEASE < t < healed]  # fmt: skip
        firsts = [
            min((round(t - cut, 1) for _, t in p.via if t > cut), default=None)
            for p in game.histories[0].players
        ]  # type: ignore[attr-defined]
        assert moved is not None, "the room did not move"
        assert late == [], f"acks from {owner} after one lease without Redis: {late}"
        assert there and moved_on == there, f"{there - moved_on} of {there} players stayed"
        assert not stuck, f"{len(stuck)} seats did not finish while {owner} was cut off"
        return (f"{owner} cut from Redis: room moved {moved:.1f} s after the cut (its seats' "
                f"first acks after the cut: {firsts} s), every game over "
                f"{healed - cut:.1f} s after the cut, before the heal")  # fmt: skip

    problems, counts = await _run(setup, fault)
    assert problems == [], problems
    assert counts["acked"] > 0 and counts["seen_records_checked"] > 0


@pytest.mark.parametrize("setup", ["module=tests.support.holding_node"], indirect=True)
async def test_negative_control_a_node_cut_from_redis_that_keeps_its_players(
    setup: Setup,
) -> None:
    """Negative control: the same cut on nodes that never let their clients go
    (tests/support/holding_node.py). Its players stay on it, waiting: none of them acks
    again elsewhere within the time the test above holds every one of them to."""
    game = await _start(setup)
    first = game.histories[0].players[0]
    await first.wait_for(lambda _: first.seq >= 12, timeout=60)
    owner = game.owners[0]
    front = f"ws://127.0.0.1:{setup.fronts[int(owner[1:])].port}/ws"
    playing = _playing(game)
    cut = time.monotonic()
    for link in setup.cluster.links_of(owner):
        link.partition()
    there, moved_on = await _moved_on(playing, front, cut)
    for link in setup.cluster.links_of(owner):
        link.heal()
    problems, counts, _, _ = await _finish(setup, game, 20.0)
    print(f"negative control: {moved_on} of {there} players of {owner} acked elsewhere "
          f"within {MOVED_ON:g} s of the cut; then healed: {problems[:3]}, {counts}")  # fmt: skip
    assert there > 0 and moved_on < there, "the players moved on without the node letting go"


async def test_a_node_cut_from_its_players_keeps_its_rooms_through_relays(
    setup: Setup,
) -> None:
    """The owner of the first room can reach Redis but no player reaches it (their
    connections to it stall, new ones hang): they go to the other nodes, which relay to
    it; every room finishes and the history holds."""

    async def fault(setup: Setup, game: Game) -> str:
        owner = game.owners[0]
        front = setup.fronts[int(owner[1:])]
        front.partition()
        started = time.monotonic()
        first = game.histories[0].players
        seq = max(p.seq for p in first)
        await first[0].wait_for(lambda _: first[0].seq >= seq + 5, timeout=60)
        progressed = time.monotonic() - started
        await asyncio.sleep(max(0.0, 2.5 * LEASE - progressed))
        front.heal()
        return (f"{owner} cut from its players for {time.monotonic() - started:.1f} s: its room "
                f"moved on {progressed:.1f} s after the cut")  # fmt: skip

    problems, counts = await _run(setup, fault)
    assert problems == [], problems
    assert counts["acked"] > 0


async def _minority(setup: Setup, game: Game) -> str:
    """The master of the first room's slot is first cut from its replica (the
    replication link stalls: what it takes from then on reaches no replica) for
    ``BEHIND`` seconds, then from everyone: a minority partition of one."""
    cluster = setup.cluster
    key = f"rollhouse:room:{{{game.histories[0].room}}}:log"
    master = await asyncio.to_thread(cluster.master_of, key)
    replica = await asyncio.to_thread(cluster.replica_of, master)
    cluster.client_links[master].partition([source_address(cluster.ports.index(replica))])
    await asyncio.sleep(BEHIND)
    await asyncio.to_thread(_before, setup, game)  # the log as the clients saw it
    started = time.monotonic()
    cluster.isolate(master)
    await asyncio.to_thread(cluster.wait_promoted, replica)
    promoted = time.monotonic() - started
    await asyncio.sleep(1.0)
    # it heard nothing of the promotion: cut off both ways, it still thinks it is master
    assert cluster.replication(master).get("role") == "master"
    cluster.heal()
    await asyncio.to_thread(cluster.wait_whole)  # the old master is the new one's replica
    assert cluster.replication(master).get("role") == "slave"
    return (f"master {master} cut from its replica {BEHIND} s, then from everyone: replica "
            f"{replica} promoted {promoted:.1f} s after, cluster whole again "
            f"{time.monotonic() - started:.1f} s after")  # fmt: skip


async def test_a_master_in_a_minority_partition_loses_nothing_acknowledged(
    setup: Setup,
) -> None:
    """The master of the first room's slot falls behind its replica, then is cut off
    from every other member and every node (both ways, bus and replication included):
    the majority promotes its replica; healed, it comes back as a replica. Nothing
    acknowledged is lost, no record a client saw is gone, every room finishes."""
    problems, counts = await _run(setup, _minority)
    assert problems == [], problems
    assert counts["acked"] > 0 and counts["seen_records_checked"] > 0


@pytest.mark.parametrize("setup", ["wait=0"], indirect=True)
async def test_negative_control_minority_partition_without_wait(setup: Setup) -> None:
    """Negative control: the same partition on nodes that acknowledge before a replica
    holds the append (``wait=0``). The checker must find acknowledged commands
    missing from the log (found whether or not the games finish: they get 10 s)."""
    problems, counts = await _run(setup, _minority, timeout=10.0)
    missing = [p for p in problems if p.endswith("(lost)")]
    print(f"negative control: {len(missing)} of {counts['acked']} acked commands missing; "
          f"first: {problems[:3]}")  # fmt: skip
    assert missing, "the checker did not catch acks that no replica held"


async def test_a_slow_lossy_link_to_redis_keeps_the_history_sound(setup: Setup) -> None:
    """The owner of the first room reaches Redis over a slow, lossy link whose
    connections are reset every 1.5 s, for 6 s: the games go on meanwhile; healed,
    every room finishes and the history holds."""

    async def fault(setup: Setup, game: Game) -> str:
        owner = game.owners[0]
        links = setup.cluster.links_of(owner)
        players = [p for h in game.histories for p in h.players]
        acked = sum(len(p.acked) for p in players)
        started, resets = time.monotonic(), 0
        for link in links:
            link.slow(delay=0.04, stall_chance=0.1, stall=0.3)
        while time.monotonic() - started < 6.0:
            await asyncio.sleep(1.5)
            resets += sum(link.reset() for link in links)
        for link in links:
            link.slow()
        during = sum(len(p.acked) for p in players) - acked
        return (f"{owner}'s link to Redis slow and lossy for {time.monotonic() - started:.1f} s "
                f"({resets} connections reset): {during} acks meanwhile")  # fmt: skip

    problems, counts = await _run(setup, fault)
    assert problems == [], problems
    assert counts["acked"] > 0
