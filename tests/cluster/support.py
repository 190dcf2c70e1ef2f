"""Clients and log checks shared by the cluster tests."""

from __future__ import annotations

import time
from typing import Any

from clients.sdk import Client
from server.store import open_store
from tests.support.server import ServerProcess


class RecordingClient(Client):
    """A client that remembers the id, ack seq and arrival time of every acked command."""

    acked: list[tuple[str, int, float]]

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        cmd_id = cmd_id or self.next_id()
        seq = await super().send(command, cmd_id)
        self.acked.append((cmd_id, seq, time.monotonic()))
        return seq


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
