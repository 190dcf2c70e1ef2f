"""The relay's frame batching, and what a hop between nodes costs."""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from clients.sdk import Client, CommandRejected, create_room
from server.cluster.relay import _coalesce
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(120)


def test_one_frame_for_many_connections_of_a_node_crosses_once() -> None:
    """Messages of one frame object for one node merge while no connection's own order
    changes; other nodes keep theirs."""
    patch, other = b"patch", b"other"
    queue = [
        ("n1", {"k": "frames", "p": [1], "f": patch}),
        ("n1", {"k": "frames", "p": [2], "f": patch}),
        ("n2", {"k": "frames", "p": [7], "f": patch}),
        ("n1", {"k": "frames", "p": [3], "f": other}),
        ("n1", {"k": "close", "p": 3, "c": "room/moved", "m": ""}),
        ("n1", {"k": "frames", "p": [4], "f": other}),
        ("n1", {"k": "frames", "p": [3], "f": other}),
    ]
    out = _coalesce(queue)
    assert [(n, m["k"], m.get("p")) for n, m in out] == [
        ("n1", "frames", [1, 2]),
        ("n2", "frames", [7]),
        ("n1", "frames", [3, 4]),
        ("n1", "close", 3),
        ("n1", "frames", [3]),  # after its close, as queued
    ]
    assert queue[0][1]["p"] == [1]  # the queued messages are not changed


def test_interleaved_frames_of_many_connections_still_cross_once_each() -> None:
    """Each spectator's patch then presence (one input's frames, peer by peer): two
    messages, not one per frame per connection; a connection's later frame never
    joins a message ahead of one of its earlier frames."""
    patch, presence, late = b"patch", b"presence", b"late"
    queue = []
    for pid in range(1, 51):
        queue += [("n1", {"k": "frames", "p": [pid], "f": patch}),
                  ("n1", {"k": "frames", "p": [pid], "f": presence})]  # fmt: skip
    out = _coalesce(queue)
    assert [(m["f"], m["p"]) for _, m in out] == [
        (patch, list(range(1, 51))),
        (presence, list(range(1, 51))),
    ]
    queue = [("n1", {"k": "frames", "p": [1], "f": patch}),
             ("n1", {"k": "frames", "p": [1], "f": late}),
             ("n1", {"k": "frames", "p": [1], "f": patch}),
             ("n1", {"k": "frames", "p": [2], "f": patch})]  # fmt: skip
    assert [(m["f"], m["p"]) for _, m in _coalesce(queue)] == [
        (patch, [1]),
        (late, [1]),
        (patch, [1, 2]),
    ]


async def _round_trips(url: str, room: str, n: int) -> list[float]:
    """Seconds per answered command of a spectator (refused without touching the store)."""
    client = await Client(url, room, role="spectator").connect()
    times = []
    try:
        for _ in range(n):
            started = time.perf_counter()
            with pytest.raises(CommandRejected):
                await client.send({"type": "roll"})
            times.append(time.perf_counter() - started)
            await asyncio.sleep(0.04)  # under the rate limit
    finally:
        await client.close()
    return times


def _p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


async def test_the_extra_latency_of_a_relayed_command(
    shared_nodes: tuple[str, list[ServerProcess]],
) -> None:
    """A command answered by the owner through another node: printed p50/p99, bounded."""
    _, servers = shared_nodes
    room = (await create_room(servers[0].url, "rollie", 2))["room"]
    local = await _round_trips(servers[0].ws_url, room, 60)
    relayed = await _round_trips(servers[1].ws_url, room, 60)
    print(
        f"\nround trip of a command: local p50 {_p(local, 0.5):.2f} ms p99 {_p(local, 0.99):.2f} ms;"
        f" relayed p50 {_p(relayed, 0.5):.2f} ms p99 {_p(relayed, 0.99):.2f} ms"
    )
    assert statistics.median(relayed) < 0.25


async def test_a_node_says_it_is_alive_before_it_serves(redis_url: str, tmp_path: Path) -> None:
    """The heartbeat is in Redis as soon as the node answers, not one tick later.

    Issue 10's flake: the heartbeat was first written by the first tick (a third of a
    lease after start), so an owner ticking in between saw no heartbeat, dropped the
    peers the new node relayed and told nobody: a spectator there waited for ever."""
    server = ServerProcess(redis_url, tmp_path, args=("--node-id", "fresh", "--lease", "30"))
    server.start()  # returns once /api/health answers; the first tick is 10 s away
    client = aioredis.Redis.from_url(redis_url)
    try:
        assert await client.exists("rollhouse:node:fresh:alive") == 1
    finally:
        await client.aclose()
        server.kill()
