"""deploy/haproxy.cfg exercised: a real haproxy in front of three nodes on loopback.

The config is deploy/haproxy.cfg itself with only its bind and server addresses
pointed at loopback ports (tests/support/haproxy.py). Players and a spectator know
one URL, the proxy's. The node running their room is SIGKILLed mid-game and they
carry on through the proxy, which marks the dead node DOWN. Then a survivor's link
to Redis is held: it still answers HTTP, but /api/health/ready says 503 once its
leases are not renewed, so haproxy marks it DOWN by that check (Layer7, 503), and UP
again once the link is back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import attrs
import pytest

from clients.bots.play import play_seat
from clients.sdk import Client, create_room
from tests.cluster.conftest import LEASE
from tests.cluster.support import RecordingClient, check_acks_once, first_ack_after, read_log
from tests.support.haproxy import Haproxy, haproxy_binary
from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess, free_port
from tests.support.tcp_proxy import TcpProxy

pytestmark = pytest.mark.timeout(180)


@attrs.define
class Setup:
    redis_url: str
    servers: list[ServerProcess]
    links: list[TcpProxy]
    front: Haproxy


@pytest.fixture
async def behind_haproxy(tmp_path: Path) -> AsyncIterator[Setup]:
    """redis, three nodes (each reaching Redis through its own TcpProxy), haproxy."""
    haproxy_binary()  # skip (or fail under CI) before anything starts
    url, stop = start_redis(tmp_path / "redis", appendonly=True)
    target = urlsplit(url).port or 0
    links = [await TcpProxy(target).start() for _ in range(3)]
    servers = [
        ServerProcess(f"redis://127.0.0.1:{link.port}/0", tmp_path,
                      args=("--node-id", f"n{i}", "--lease", str(LEASE)))
        for i, link in enumerate(links)
    ]  # fmt: skip
    front = Haproxy(tmp_path, free_port(), [s.port for s in servers])
    try:
        for server in servers:  # in a thread: the links live in this loop
            await asyncio.to_thread(server.start)
        await asyncio.to_thread(front.start)
        yield Setup(url, servers, links, front)
    finally:
        front.stop()
        for server in servers:
            server.kill()
        for link in links:
            await link.close()
        stop()


async def _logged(front: Haproxy, line: str, timeout: float) -> float | None:
    """Seconds until haproxy's log holds ``line`` (None: not within ``timeout``)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if line in front.text():
            return time.monotonic() - started
        await asyncio.sleep(0.1)
    return None


async def test_play_through_haproxy_while_a_node_dies(behind_haproxy: Setup) -> None:
    """A game through the proxy survives its node's SIGKILL; readiness steers haproxy."""
    setup = behind_haproxy
    front, servers = setup.front, setup.servers
    info = await create_room(front.url, "rollie", 2, room={"clock": 0})
    room, owner_id = info["room"], info["node"]
    index = int(owner_id[1:])
    players = []
    for i in range(2):
        p = RecordingClient(front.ws_url, room, name=f"p{i}", backoff=(0.05, 0.5), ping_every=1.0)
        p.acked = []
        players.append(await p.connect())
    watcher = await Client(front.ws_url, room, role="spectator", backoff=(0.05, 0.5)).connect()
    games = [
        asyncio.create_task(play_seat(p, "push", delay=0.02, seed=i)) for i, p in enumerate(players)
    ]
    await players[0].wait_for(lambda _: players[0].seq >= 12, timeout=60)
    killed = time.monotonic()
    servers[index].kill()
    tail = len(await read_log(setup.redis_url, room))
    finals = await asyncio.wait_for(asyncio.gather(*games), 120)
    assert all(f["room"]["status"] == "finished" for f in finals)
    assert all(p.failure is None for p in players)
    await watcher.wait_seq(max(p.seq for p in players), timeout=30)  # it saw it all too
    first_ack = first_ack_after(players, tail, killed)
    dead = await _logged(front, f"rollhouse/node{index + 1} is DOWN", 15)
    assert dead is not None
    assert await check_acks_once(setup.redis_url, room, players) > 0
    for client in [*players, watcher]:
        await client.close()

    other = (index + 1) % 3  # a survivor cut off from Redis: alive, not ready
    setup.links[other].hold()
    held = time.monotonic()
    down_line = f"rollhouse/node{other + 1} is DOWN, reason: Layer7 wrong status, code: 503"
    not_ready = await _logged(front, down_line, 20)
    setup.links[other].release()
    back = await _logged(front, f"rollhouse/node{other + 1} is UP", 20)
    print(
        f"\nthrough haproxy: first ack {first_ack:.2f} s after SIGKILL of {owner_id};"
        f" {owner_id} marked DOWN {dead:.1f} s after the game ended; n{other} with its Redis"
        f" link held marked DOWN by readiness after {not_ready} s, UP {back} s after release"
        f" ({time.monotonic() - held:.1f} s in all)"
    )
    assert not_ready is not None and back is not None
