"""Clients and log checks shared by the cluster tests."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import redis.asyncio as aioredis

from clients.sdk import Client
from clients.soak.history import RecordingClient
from server.store import open_store
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
