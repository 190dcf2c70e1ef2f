"""Clients and log checks shared by the cluster tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from clients.bots.play import play_seat
from clients.sdk import Client, create_room
from clients.soak.history import RecordingClient, RoomHistory, Seen, check, raw_log
from clients.soak.redis_cluster import RedisCluster
from server.store import open_store
from tests.support.redis_cluster import launch_cluster
from tests.support.server import ServerProcess


def urls_from(servers: list[ServerProcess], first: int) -> list[str]:
    """Every node's websocket URL, starting with node ``first`` (the SDK's rotation order)."""
    return [servers[(first + i) % len(servers)].ws_url for i in range(len(servers))]


def player(
    servers: list[ServerProcess], first: int, room: str, name: str, ping_every: float | None = 1.0
) -> RecordingClient:
    """A recording player trying node ``first`` first, then the others in turn."""
    urls = urls_from(servers, first)
    client = RecordingClient(urls, room, name=name, backoff=(0.05, 0.5), ping_every=ping_every)
    client.acked = []
    return client


@contextlib.contextmanager
def nodes_on_a_cluster(
    tmp_path: Path, lease: float = 2.0, query: str = "", **settings: Any
) -> Iterator[tuple[RedisCluster, list[ServerProcess]]]:
    """A Redis Cluster of its own (``settings``: :func:`launch_cluster`'s) and three
    nodes on it (``query``: added to their store URL)."""
    cluster = launch_cluster(tmp_path / "redis", **settings)
    url = cluster.url + (f"?{query}" if query else "")
    servers = [
        ServerProcess(url, tmp_path, args=("--node-id", f"n{i}", "--lease", str(lease)))
        for i in range(3)
    ]
    try:
        for server in servers:
            server.start()
        yield cluster, servers
    finally:
        for server in servers:
            server.kill()
        cluster.stop()


Games = list["asyncio.Task[dict[str, Any]]"]


async def start_games(
    servers: list[ServerProcess], rooms: int = 3, seats: int = 3
) -> tuple[list[RoomHistory], Games]:
    """``rooms`` Rollie games of ``seats`` bots, each seat a recording player trying node
    (room + seat) % nodes first (most seats are relayed); their histories and tasks."""
    histories, games = [], []
    for r in range(rooms):
        made = await create_room(servers[r % len(servers)].url, "rollie", seats,
                                 room={"clock": 0})  # fmt: skip
        room = made["room"]
        players = [await player(servers, (r + i) % len(servers), room, f"p{i}").connect()
                   for i in range(seats)]  # fmt: skip
        histories.append(RoomHistory(room, players))
        games += [asyncio.create_task(play_seat(p, "push", delay=0.02, seed=10 * r + i))
                  for i, p in enumerate(players)]  # fmt: skip
    return histories, games


async def under_way(
    cluster: RedisCluster, servers: list[ServerProcess], rooms: int = 3, seats: int = 3
) -> tuple[list[RoomHistory], Games, int]:
    """:func:`start_games`, once the first room has 15 records: the histories, the games'
    tasks and the port of the master that holds the first room's slot (the one to fail)."""
    histories, games = await start_games(servers, rooms, seats)
    first = histories[0]
    await first.players[0].wait_for(lambda _: first.players[0].seq >= 15, timeout=60)
    return histories, games, cluster.master_of(f"rollhouse:room:{{{first.room}}}:log")


def note_seen(cluster: RedisCluster, histories: list[RoomHistory]) -> None:
    """Before a fault: what each room's clients have seen, and the log behind it (the
    checker finds any seen record the log lacks afterwards)."""
    client = cluster.client()
    try:
        for history in histories:
            seen = max(p.seq for p in history.players)
            log = [(s, b) for s, b, _ in raw_log(client, "rollhouse", history.room)]
            history.snapshots.append(Seen(seen, log))
    finally:
        client.close()


async def end_and_check(
    cluster: RedisCluster, histories: list[RoomHistory], games: Games, timeout: float
) -> tuple[list[str], dict[str, int], int]:
    """Give the games ``timeout`` seconds to end, then check the recorded history against
    the cluster (clients/soak/history.py): the violations, the counts and how many seats
    did not finish."""
    done, stuck = await asyncio.wait(games, timeout=timeout)
    for game in stuck:
        game.cancel()
    await asyncio.gather(*stuck, return_exceptions=True)
    seats = len(games) // len(histories)
    for i, history in enumerate(histories):
        mine = games[i * seats : (i + 1) * seats]
        history.finals = [g.result() for g in mine if g in done and g.exception() is None]
    client = cluster.client()
    try:
        problems, counts = check(client, histories)
    finally:
        client.close()
    for history in histories:
        for p in history.players:
            await p.close()
    return problems, counts, len(stuck)


async def read_log(url: str, room: str) -> list[tuple[int, dict[str, Any]]]:
    store = open_store(url)
    try:
        return [(r.seq, r.data) for r in await store.read(room)]
    finally:
        await store.close()


async def check_acks_once(url: str, room: str, players: list[RecordingClient]) -> int:
    """Every acked command is in the log exactly once, at its acked seq; the count of acks."""
    records = await read_log(url, room)
    assert [seq for seq, _ in records] == list(range(1, len(records) + 1))
    logged: dict[tuple[int, str], list[int]] = {}
    for seq, data in records:
        if data.get("cmd") is not None and data.get("by") is None:
            logged.setdefault((data["seat"], data["cmd"]), []).append(seq)
    acked = [(p.seat, cmd_id, seq) for p in players for cmd_id, seq, _ in p.acked]
    for seat, cmd_id, seq in acked:
        assert logged.get((seat, cmd_id)) == [seq], (seat, cmd_id, seq)
    return len(acked)


def first_ack_after(players: list[RecordingClient], tail: int, killed: float) -> float:
    """Seconds from ``killed`` to the first ack of an event past ``tail`` (the log's
    length at the kill): the room is served again, not an answer already on its way."""
    return min(t for p in players for _, seq, t in p.acked if seq > tail) - killed


class History:
    """What :func:`sample_history` records while games go on, and its checks."""

    def __init__(self) -> None:
        self.holders: dict[str, dict[int, set[str]]] = {}
        """Room -> fence epoch -> every node seen holding the room's lease at that epoch."""
        self.ahead: list[tuple[str, str, int, int]] = []
        """(room, client, its seq, the log's last seq) whenever a view was ahead of the log."""
        self.samples = 0

    def check(self) -> None:
        """No view was ever ahead of the log; each fence epoch had one holder."""
        assert self.samples > 0
        assert self.ahead == []
        shared = {
            (room, epoch): nodes
            for room, fences in self.holders.items()
            for epoch, nodes in fences.items()
            if len(nodes) > 1
        }
        assert shared == {}


async def sample_history(url: str, rooms: dict[str, list[Client]], history: History) -> None:
    """Every 20 ms until cancelled, for each room: its lease holder with its fence epoch
    (read together), and each client's seq against the log's last seq (read after the
    seqs, so a view is never judged against an older log)."""
    redis = aioredis.Redis.from_url(url, socket_timeout=1)
    try:
        while True:
            for room, clients in rooms.items():
                with contextlib.suppress(Exception):  # Redis may be down: the next sample
                    seqs = [(c.name or c.role, c.seq) for c in clients]
                    key = f"rollhouse:room:{{{room}}}:"
                    holder, fence = await redis.mget([key + "lease", key + "fence"])
                    top = await redis.xrevrange(key + "log", count=1)
                    last = int(top[0][0].split(b"-")[1]) if top else 0
                    if holder is not None and fence is not None:
                        fences = history.holders.setdefault(room, {})
                        fences.setdefault(int(fence), set()).add(holder.decode())
                    history.ahead += [(room, n, seq, last) for n, seq in seqs if seq > last]
                    history.samples += 1
            await asyncio.sleep(0.02)
    finally:
        await redis.aclose()
